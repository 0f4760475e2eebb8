import { readFileSync } from 'node:fs';
import { productionLaunch } from './launch.js';
import { rangeAdmits, rangeAdmitsMajor } from './node-range.js';

/**
 * Where the project states its Node.js runtimes: the Dockerfile (production), the README and the operations
 * guide (what it promises; docs/operations.md shows the launch settings too),
 * CI's pins (.ci/node-pins: what CI runs) and package.json's engines (what npm lets install). Every reader
 * and check takes the texts, so a test can hand it an edited copy and see the check fail.
 */
export interface RuntimeSources {
  readonly dockerfile: string;
  readonly readme: string;
  readonly pins: string;
  readonly packageJson: string;
}

export function projectSources(): RuntimeSources {
  const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
  return { dockerfile: read('Dockerfile'), readme: `${read('README.md')}\n${read('docs/operations.md')}`, pins: read('.ci/node-pins'), packageJson: read('package.json') };
}

/** Each stage's base image, in order; a stage built on an earlier stage has that stage's image. */
export function dockerfileStageImages(dockerfile: string): string[] {
  const images: string[] = [];
  const stages = new Map<string, string>();
  for (const [, args] of dockerfile.matchAll(/^FROM\s+(.+)$/gim)) {
    const [from = '', as, name] = args!.trim().split(/\s+/).filter((word) => !word.startsWith('--'));
    const image = stages.get(from.toLowerCase()) ?? from;
    images.push(image);
    if (as?.toLowerCase() === 'as' && name) stages.set(name.toLowerCase(), image);
  }
  return images;
}

/** The Node.js major of an official node image (node:26-bookworm-slim: 26); undefined for any other image. */
export function nodeImageMajor(image: string): number | undefined {
  const match = /^(?:(?:docker\.io\/)?library\/)?node:(\d+)(?:[.-][^@\s]*)?(?:@\S+)?$/.exec(image);
  return match ? Number(match[1]) : undefined;
}

/** The majors of a line of the README's Quick start such as `- **Development:** Node.js 20, 22 and 24`. */
function readmeMajors(readme: string, role: string): number[] {
  const line = new RegExp(`^- \\*\\*${role}:\\*\\* Node\\.js ((?:\\d+(?:, | and | or ))*\\d+)\\b`, 'm').exec(readme);
  return line ? line[1]!.match(/\d+/g)!.map(Number) : [];
}

/** The runtimes the README promises, by major. */
export function readmeRuntimes(readme: string): { production: number[]; development: number[] } {
  return { production: readmeMajors(readme, 'Production'), development: readmeMajors(readme, 'Development') };
}

export interface NodePin { readonly version: string; readonly role: string }

/** CI's pinned versions, as .ci/nodes.sh reads them: version, role, integrity a line; `#` starts a comment. */
export function ciNodePins(pins: string): NodePin[] {
  return pins.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => { const [version = '', role = ''] = line.split(/\s+/); return { version, role }; });
}

const majorOf = (version: string) => Number(/^v?(\d+)\./.exec(version)?.[1]);

/** The launch lines the README shows: lines of its code blocks that run the Dockerfile's command. */
export function readmeLaunchLines(readme: string, cmd: readonly string[]): string[] {
  const code = [...readme.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].flatMap((block) => block[1]!.split('\n'));
  const command = cmd.join(' ');
  return code.map((line) => line.trim()).filter((line) => line === command || line.endsWith(` ${command}`));
}

/** Every `NAME=value` the README writes for the given names (a value may be quoted, as in the Dockerfile). */
export function readmeSettings(readme: string, names: readonly string[]): string[] {
  return names.flatMap((name) => [...readme.matchAll(new RegExp(`\\b${name}=(?:"[^"]*"|'[^']*'|[^\\s\`"']+)*`, 'g'))]
    .map((match) => match[0].replace(/[.,;:)]+$/, '')));
}

/** Every stage of the Dockerfile on one official node image major. */
export function stageProblems({ dockerfile }: RuntimeSources): string[] {
  const images = dockerfileStageImages(dockerfile);
  const majors = new Set(images.map(nodeImageMajor));
  if (images.length === 0) return ['the Dockerfile has no FROM'];
  return [
    ...images.filter((image) => nodeImageMajor(image) === undefined).map((image) => `a stage of the Dockerfile is not on a node:<major> image: ${image}`),
    ...(majors.size > 1 ? [`the Dockerfile's stages are on different Node majors: ${images.join(', ')}`] : []),
  ];
}

/** The production major: the Dockerfile's, the README's and CI's production pin agree. */
export function productionMajorProblems(sources: RuntimeSources): string[] {
  const dockerMajor = nodeImageMajor(dockerfileStageImages(sources.dockerfile).at(-1) ?? '');
  const { production } = readmeRuntimes(sources.readme);
  const pinned = ciNodePins(sources.pins).filter((pin) => pin.role === 'production');
  return [
    ...(production.length === 1 && production[0] === dockerMajor ? []
      : [`the README's production runtime is Node.js ${production.join(', ') || '(none)'}, the Dockerfile's ${dockerMajor}`]),
    ...(pinned.length === 1 && majorOf(pinned[0]!.version) === dockerMajor ? []
      : [`CI's production pin is ${pinned.map((pin) => pin.version).join(', ') || '(none)'}, the Dockerfile's major ${dockerMajor}`]),
  ];
}

/** The README shows the Dockerfile's launch exactly, and names no launch setting with another value. */
export function launchShownProblems({ dockerfile, readme }: RuntimeSources): string[] {
  const { settings, cmd } = productionLaunch(dockerfile);
  const launch = [...settings, ...cmd].join(' ');
  const lines = readmeLaunchLines(readme, cmd);
  const names = settings.map((pair) => pair.slice(0, pair.indexOf('=')));
  return [
    ...(lines.length === 0 ? [`the README shows no production launch: ${launch}`] : []),
    ...lines.filter((line) => line !== launch).map((line) => `the README launches "${line}", the Dockerfile "${launch}"`),
    ...readmeSettings(readme, names).filter((pair) => !settings.includes(pair))
      .map((pair) => `the README says ${pair}, the Dockerfile ${settings.find((setting) => setting.startsWith(pair.slice(0, pair.indexOf('=') + 1)))}`),
  ];
}

/** package.json's engines admit every runtime the README lists and every version CI pins. */
export function enginesProblems({ readme, pins, packageJson }: RuntimeSources): string[] {
  const range = (JSON.parse(packageJson) as { engines?: { node?: string } }).engines?.node;
  if (!range) return ['package.json has no engines.node'];
  const { production, development } = readmeRuntimes(readme);
  return [
    ...(production.length + development.length === 0 ? ['the README lists no runtime'] : []),
    ...[...production, ...development].filter((major) => !rangeAdmitsMajor(range, major))
      .map((major) => `engines.node "${range}" refuses Node.js ${major}, which the README lists`),
    ...ciNodePins(pins).filter((pin) => !rangeAdmits(range, pin.version))
      .map((pin) => `engines.node "${range}" refuses ${pin.version}, which CI pins`),
  ];
}
