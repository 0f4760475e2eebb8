import { readFileSync } from 'node:fs';

/** Settings of the Dockerfile's ENV that shape how node runs: the production launch's. */
const LAUNCH_SETTINGS = ['NODE_ENV', 'NODE_OPTIONS', 'MALLOC_ARENA_MAX', 'UV_THREADPOOL_SIZE'];

export interface Launch {
  /** `NAME=value`, in the Dockerfile's order, quoted as written there (also valid shell). */
  readonly settings: readonly string[];
  /** The same settings as a process environment: quotes taken off. */
  readonly env: Readonly<Record<string, string>>;
  /** The CMD, exec form: `node`, its flags, the entry point. */
  readonly cmd: readonly string[];
}

/** `NAME=value` pairs of an ENV instruction; a value may be quoted ("--a --b" holds two node flags). */
const ENV_PAIR = /[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|[^\s"']+)*/g;

function unquoted(value: string): string {
  return value.replace(/"([^"]*)"|'([^']*)'/g, (_, double?: string, single?: string) => double ?? single ?? '');
}

/** The production launch, as the last stage of the project's Dockerfile gives it. */
export function productionLaunch(dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8')): Launch {
  // A long ENV may go on over several lines.
  const lastStage = dockerfile.split(/^FROM /m).at(-1)!.replace(/\\\r?\n/g, ' ');
  const env = [...lastStage.matchAll(/^ENV (.+)$/gm)].flatMap((line) => line[1]!.match(ENV_PAIR) ?? []);
  const settings = env.filter((pair) => LAUNCH_SETTINGS.includes(pair.slice(0, pair.indexOf('='))));
  const cmd = JSON.parse(/^CMD (\[.+\])$/m.exec(lastStage)![1]!) as string[];
  return {
    settings,
    env: Object.fromEntries(settings.map((pair) => [pair.slice(0, pair.indexOf('=')), unquoted(pair.slice(pair.indexOf('=') + 1))])),
    cmd,
  };
}

/** The script the production launch runs (the CMD's last word): the server's bundle, dist/bundle/server.mjs. */
export function productionEntry(): string {
  return productionLaunch().cmd.at(-1)!;
}
