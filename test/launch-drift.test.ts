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
});
