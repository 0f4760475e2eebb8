import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { productionLaunch } from './support/launch.js';

describe('the production launch', () => {
  it('npm start runs the build as the Dockerfile does: the same settings, the same node flags', () => {
    const { settings, cmd } = productionLaunch();
    const start = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts.start;
    expect(start).toBe(`npm run --silent build && ${[...settings, ...cmd].join(' ')}`);
  });

  it('the Dockerfile starts node itself (exec form), so the process gets the stop signal', () => {
    expect(productionLaunch().cmd[0]).toBe('node');
  });

  it('reads an ENV that goes over several lines and quoted values holding several node flags', () => {
    const launch = productionLaunch([
      'FROM node:26 AS build', 'ENV NODE_OPTIONS=--stack-size=1', 'FROM node:26',
      'ENV NODE_ENV=production \\', '    NODE_OPTIONS="--max-old-space-size=192 --max-semi-space-size=16" PORT=8080 \\',
      '    MALLOC_ARENA_MAX=2', 'CMD ["node", "dist/src/main.js"]',
    ].join('\n'));
    expect(launch.settings).toEqual(['NODE_ENV=production', 'NODE_OPTIONS="--max-old-space-size=192 --max-semi-space-size=16"', 'MALLOC_ARENA_MAX=2']);
    expect(launch.env).toEqual({ NODE_ENV: 'production', NODE_OPTIONS: '--max-old-space-size=192 --max-semi-space-size=16', MALLOC_ARENA_MAX: '2' });
  });
});
