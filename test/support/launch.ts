import { readFileSync } from 'node:fs';

/** Settings of the Dockerfile's ENV that shape how node runs: the production launch's. */
const LAUNCH_SETTINGS = ['NODE_ENV', 'NODE_OPTIONS', 'MALLOC_ARENA_MAX', 'UV_THREADPOOL_SIZE'];

export interface Launch {
  /** `NAME=value`, in the Dockerfile's order. */
  readonly settings: readonly string[];
  /** The CMD, exec form: `node`, its flags, the entry point. */
  readonly cmd: readonly string[];
}

/** The production launch, as the last stage of the project's Dockerfile gives it. */
export function productionLaunch(dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8')): Launch {
  const lastStage = dockerfile.split(/^FROM /m).at(-1)!;
  const env = [...lastStage.matchAll(/^ENV (.+)$/gm)].flatMap((line) => line[1]!.trim().split(/\s+/));
  const settings = env.filter((pair) => LAUNCH_SETTINGS.includes(pair.slice(0, pair.indexOf('='))));
  const cmd = JSON.parse(/^CMD (\[.+\])$/m.exec(lastStage)![1]!) as string[];
  return { settings, cmd };
}
