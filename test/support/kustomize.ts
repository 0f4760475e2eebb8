import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

interface Kustomization {
  resources?: string[];
  patches?: { path: string }[];
  images?: { name: string; newName?: string; newTag?: string }[];
  [field: string]: unknown;
}

/** The fields of a kustomization.yaml this renderer follows; any other is refused, not ignored. */
const FOLLOWED = new Set(['apiVersion', 'kind', 'resources', 'patches', 'images']);

const parse = (file: string): unknown[] => parseAllDocuments(readFileSync(file, 'utf8')).map((document) => {
  if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}`);
  return document.toJS();
}).filter((value) => value !== null);

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A strategic merge patch as the overlays use one: maps merge key by key, a null deletes its key. A list
 * in a patch would need the schema's merge keys: refused, so that a patch this cannot apply as kustomize
 * would fails the test instead of rendering something else.
 */
function merge(target: Record<string, unknown>, patch: Record<string, unknown>, path: string): Record<string, unknown> {
  const out = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (Array.isArray(value)) throw new Error(`${path}.${key}: a list in a patch is beyond this renderer; check it with kustomize`);
    else if (isMap(value) && isMap(out[key])) out[key] = merge(out[key] as Record<string, unknown>, value, `${path}.${key}`);
    else out[key] = value;
  }
  return out;
}

function setImages(manifest: Manifest, images: NonNullable<Kustomization['images']>): Manifest {
  const spec = manifest.spec as { template?: { spec?: { containers?: { image: string }[] } } } | undefined;
  for (const container of spec?.template?.spec?.containers ?? []) {
    const [name, tag] = container.image.split(':');
    const image = images.find((one) => one.name === name);
    if (image) container.image = `${image.newName ?? name}:${image.newTag ?? tag}`;
  }
  return manifest;
}

/**
 * What `kubectl apply -k dir` would apply, for the parts of Kustomize our kustomizations use: resources
 * (files and other kustomizations), patches (strategic merge, by kind and name) and images.
 */
export function render(dir: string): Manifest[] {
  const kustomization = parse(join(dir, 'kustomization.yaml'))[0] as Kustomization;
  const unknown = Object.keys(kustomization).filter((field) => !FOLLOWED.has(field));
  if (unknown.length > 0) throw new Error(`${dir}/kustomization.yaml: ${unknown.join(', ')} beyond this renderer`);
  let manifests = (kustomization.resources ?? []).flatMap((resource) => {
    const path = join(dir, resource);
    return resource.endsWith('.yaml') ? parse(path) as Manifest[] : render(path);
  });
  for (const { path } of kustomization.patches ?? []) {
    for (const patch of parse(join(dir, path)) as Manifest[]) {
      const at = manifests.findIndex((one) => one.kind === patch.kind && one.metadata.name === patch.metadata.name);
      if (at < 0) throw new Error(`${dir}/${path}: no ${patch.kind} ${patch.metadata.name} to patch`);
      manifests = manifests.with(at, merge(manifests[at]!, patch, `${patch.kind}/${patch.metadata.name}`) as Manifest);
    }
  }
  return manifests.map((manifest) => setImages(structuredClone(manifest), kustomization.images ?? []));
}

/** Kustomize itself, when this machine's kubectl has one (v1.21 and later: kustomize v4 or v5); else undefined. */
export function kustomizeBuild(dir: string): Manifest[] | undefined {
  let text: string;
  try {
    const version = execFileSync('kubectl', ['version', '--client'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    if (!/Kustomize Version: v[4-9]/.test(version)) return undefined;
    text = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseAllDocuments(text).map((document) => document.toJS() as Manifest);
}
