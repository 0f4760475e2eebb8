import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { productionLaunch } from './support/launch.js';
import {
  ciNodePins, enginesProblems, launchShownProblems, productionMajorProblems, projectSources, stageProblems,
  type RuntimeSources,
} from './support/runtimes.js';

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

const sources = projectSources();

describe('the runtimes: the Dockerfile, the README, CI and engines agree', () => {
  it('every stage of the Dockerfile is on one Node major', () => {
    expect(stageProblems(sources)).toEqual([]);
  });

  it("that major is the README's production runtime and the major of CI's production pin", () => {
    expect(productionMajorProblems(sources)).toEqual([]);
  });

  it("the README shows the Dockerfile's launch exactly, and no launch setting with another value", () => {
    expect(launchShownProblems(sources)).toEqual([]);
  });

  it("package.json's engines admit every runtime the README lists and every version CI pins", () => {
    expect(enginesProblems(sources)).toEqual([]);
  });
});

/** An edit of one source that must change it: an edit that no longer matches would prove nothing. */
function edited(key: keyof RuntimeSources, edit: (text: string) => string): RuntimeSources {
  const text = edit(sources[key]);
  expect(text, `the edit of ${key} changed nothing`).not.toBe(sources[key]);
  return { ...sources, [key]: text };
}

const dockerMajor = Number(/^FROM node:(\d+)/m.exec(sources.dockerfile)![1]);
const productionPin = ciNodePins(sources.pins).find((pin) => pin.role === 'production')!.version;
const everyFromOn = (major: number) => (text: string) => text.replace(/^FROM node:\d+/gm, `FROM node:${major}`);
const nodeOptions = productionLaunch().settings.find((setting) => setting.startsWith('NODE_OPTIONS='))!;

describe('each runtime check fails on a copy that drifted', () => {
  it.each<[string, () => RuntimeSources]>([
    ['a stage on another major', () => edited('dockerfile', (text) => text.replace(/^FROM node:\d+/m, `FROM node:${dockerMajor - 2}`))],
    ['a stage on an image that is not node', () => edited('dockerfile', (text) => text.replace(/^FROM node:\S+/m, 'FROM debian:bookworm-slim'))],
  ])('stages: %s', (_, copy) => {
    expect(stageProblems(copy())).not.toEqual([]);
  });

  it.each<[string, () => RuntimeSources]>([
    ['the Dockerfile moves on alone', () => edited('dockerfile', everyFromOn(dockerMajor + 2))],
    ['the README states another production major', () => edited('readme', (text) => text.replace(/^(- \*\*Production:\*\* Node\.js )\d+/m, `$1${dockerMajor - 2}`))],
    ['the README states two production majors', () => edited('readme', (text) => text.replace(/^(- \*\*Production:\*\* Node\.js )(\d+)/m, `$1$2 and ${dockerMajor - 2}`))],
    ['the README states none', () => edited('readme', (text) => text.replace(/^- \*\*Production:\*\*.*$/m, ''))],
    ["CI's production pin on another major", () => edited('pins', (text) => text.replace(productionPin, `${dockerMajor - 2}.1.0`))],
    ['CI pins two production versions', () => edited('pins', (text) => `${text}${dockerMajor}.0.0 production sha512-x\n`)],
    ['CI pins no production version', () => edited('pins', (text) => text.replace(/^(\d\S*\s+)production\b/m, '$1development'))],
  ])('production major: %s', (_, copy) => {
    expect(productionMajorProblems(copy())).not.toEqual([]);
  });

  it.each<[string, () => RuntimeSources]>([
    ['the Dockerfile retuned alone', () => edited('dockerfile', (text) => text.replace(nodeOptions, 'NODE_OPTIONS="--max-old-space-size=4096 --max-semi-space-size=64"'))],
    ['a launch setting added to the Dockerfile alone', () => edited('dockerfile', (text) => text.replace(/^ENV (?![\s\S]*^ENV )/m, 'ENV UV_THREADPOOL_SIZE=2 '))],
    ["the README's launch line retuned alone", () => edited('readme', (text) => text.replace(/^(NODE_ENV=\S+ NODE_OPTIONS=)\S+/m, '$1--max-old-space-size=4096'))],
    ["the README's launch line gone", () => edited('readme', (text) => text.replace(/^NODE_ENV=.* node .*$/m, ''))],
    ['a stale value in the prose', () => edited('readme', (text) => `${text}\nWith \`MALLOC_ARENA_MAX=8\` it grew.\n`)],
  ])('launch shown: %s', (_, copy) => {
    expect(launchShownProblems(copy())).not.toEqual([]);
  });

  const engines = (range: string) => edited('packageJson', (text) => text.replace(/("engines":\s*\{\s*"node":\s*)"[^"]*"/, `$1"${range}"`));
  it.each<[string, () => RuntimeSources]>([
    ['engines refusing a development runtime the README lists', () => engines('>=22')],
    ['engines refusing the production runtime', () => engines(`>=20.19 <${dockerMajor}`)],
    ['engines refusing the pinned production version, not its major', () => engines(`>=20.19 <${productionPin}`)],
    ['no engines', () => edited('packageJson', (text) => text.replace(/"engines":\s*\{[^}]*\},/, ''))],
  ])('engines: %s', (_, copy) => {
    expect(enginesProblems(copy())).not.toEqual([]);
  });
});
