import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { SETTINGS } from '../../src/settings/declarations.js';
import { kustomizeBuild, render, type Manifest } from '../support/kustomize.js';

const BASE = 'deploy/kubernetes/base';
const OVERLAYS = ['deploy/kubernetes/overlays/mysql-sentinel'];

/** The kubernetes-models class of a manifest's kind (generated from Kubernetes' published OpenAPI schemas). */
async function validator(manifest: Manifest): Promise<new (data: unknown) => { validate(): void }> {
  const [group, version] = manifest.apiVersion.includes('/') ? manifest.apiVersion.split('/') : ['', manifest.apiVersion];
  const module = await import(`kubernetes-models/${group ? `${group}/` : ''}${version}/${manifest.kind}`) as Record<string, new (data: unknown) => { validate(): void }>;
  return module[manifest.kind]!;
}

const find = <T = any>(manifests: Manifest[], kind: string, name?: string) =>
  manifests.find((one) => one.kind === kind && (name === undefined || one.metadata.name === name)) as unknown as T;

/** The environment a pod gets: its ConfigMap's data and its Secret's values, as envFrom hands them over. */
function podEnvironment(manifests: Manifest[]): Record<string, string> {
  const settings = find(manifests, 'ConfigMap', 'animal-store-settings');
  const secret = find(manifests, 'Secret', 'animal-store-secrets');
  return { ...settings.data, ...secret.stringData };
}

describe.each([BASE, ...OVERLAYS])('the Kubernetes manifests of %s', (dir) => {
  const manifests = render(dir);

  const built = kustomizeBuild(dir);
  it.skipIf(built === undefined)('are what Kustomize builds (where this machine\'s kubectl has it)', () => {
    const key = (one: Manifest) => `${one.kind}/${one.metadata.name}`;
    expect(Object.fromEntries(built!.map((one) => [key(one), one]))).toEqual(Object.fromEntries(manifests.map((one) => [key(one), one])));
  });

  it('each validate against Kubernetes\' published schemas (kubernetes-models)', async () => {
    expect(manifests.map((one) => one.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'Job', 'PodDisruptionBudget', 'Secret', 'Service', 'Service']);
    for (const manifest of manifests) {
      const Model = await validator(manifest);
      expect(() => new Model(manifest).validate(), `${manifest.kind}/${manifest.metadata.name}`).not.toThrow();
    }
  });

  it('give the pods settings the service knows and accepts', () => {
    const env = podEnvironment(manifests);
    expect(Object.keys(env).filter((name) => !(name in SETTINGS))).toEqual([]);
    expect(() => loadConfig(env)).not.toThrow();
    const config = loadConfig(env);
    expect(config.database.kind).toBe('mysql');
    expect(config.redis).toBeDefined();
  });

  it('probe readiness on /readyz and liveness on /healthz, run read-only and unprivileged, within measured resources', () => {
    const deployment = find(manifests, 'Deployment', 'animal-store');
    const pod = deployment.spec.template.spec;
    const [container] = pod.containers;
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(container.resources.requests.memory).toBeDefined();
    expect(container.resources.limits.memory).toBe('384Mi');
    expect(container.volumeMounts.map((mount: { mountPath: string }) => mount.mountPath)).toContain('/app/data');
    // The drain window and the requests after it fit in the grace period (docs/operations.md).
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(Number(podEnvironment(manifests).DRAIN_SECONDS) + 10);
    // The migration Job runs the same image and settings, and a command the build makes.
    const job = find(manifests, 'Job', 'animal-store-migrate');
    const [migrate] = job.spec.template.spec.containers;
    expect(migrate.image).toBe(container.image);
    expect(migrate.envFrom).toEqual(container.envFrom);
    expect(migrate.command).toEqual(['node', 'dist/src/cli/migrate.js']);
    expect(existsSync('src/cli/migrate.ts')).toBe(true);
  });

  it('select the Deployment\'s pods from every Service, the disruption budget and the autoscaler', () => {
    const labels = find(manifests, 'Deployment', 'animal-store').spec.template.metadata.labels;
    for (const service of manifests.filter((one) => one.kind === 'Service')) expect((service as any).spec.selector).toEqual(labels);
    expect(find(manifests, 'PodDisruptionBudget').spec.selector.matchLabels).toEqual(labels);
    expect(find(manifests, 'HorizontalPodAutoscaler').spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'animal-store' });
    // Prometheus's DNS discovery (deploy/prometheus/prometheus.yml) scrapes not-ready pods too.
    expect(find(manifests, 'Service', 'animal-store-pods').spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
  });
});

describe('the MySQL with Redis Sentinel overlay', () => {
  it('finds Redis through the Sentinels, never a REDIS_URL beside them, with the image set', () => {
    const manifests = render(OVERLAYS[0]!);
    const env = podEnvironment(manifests);
    expect(env.REDIS_URL).toBeUndefined();
    expect(env.REDIS_SENTINELS!.split(',')).toHaveLength(3);
    expect(loadConfig(env).redis?.topology.kind).toBe('sentinel');
    expect(find(manifests, 'Deployment').spec.template.spec.containers[0].image).toBe('registry.example.com/animal-store:1.0.0');
  });
});
