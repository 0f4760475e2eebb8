import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const committed = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

/** The production launch as the Dockerfile's last stage gives it: its ENV settings and CMD. */
function dockerLaunch() {
  const lastStage = committed('Dockerfile').split(/^FROM /m).at(-1)!;
  const env = [...lastStage.matchAll(/^ENV (.+)$/gm)].flatMap((line) => line[1]!.trim().split(/\s+/));
  const cmd = JSON.parse(/^CMD (\[.+\])$/m.exec(lastStage)![1]!) as string[];
  return { env, cmd };
}

const LAUNCH_SETTINGS = /^(NODE_ENV|NODE_OPTIONS|MALLOC_ARENA_MAX|UV_THREADPOOL_SIZE)=/;

describe('the production launch', () => {
  it('npm start runs the build as the Dockerfile does: the same settings, the same node flags', () => {
    const { env, cmd } = dockerLaunch();
    const settings = env.filter((pair) => LAUNCH_SETTINGS.test(pair));
    const start = (JSON.parse(committed('package.json')) as { scripts: Record<string, string> }).scripts.start;
    expect(start).toBe(`npm run --silent build && ${[...settings, ...cmd].join(' ')}`);
  });

  it('the Dockerfile starts node itself (exec form), so the process gets the stop signal', () => {
    expect(dockerLaunch().cmd[0]).toBe('node');
  });
});
