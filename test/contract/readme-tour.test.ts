import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Command {
  readonly text: string;
  /** The comment lines under it: what the README says it prints. */
  readonly expected: readonly string[];
}

/** The README's tour: every `sh` block between "## A short tour" and the next section, command by command. */
function tourCommands(): Command[][] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## A short tour');
  const tour = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...tour.matchAll(/```sh\n([\s\S]*?)```/g)].map(([, block]) => {
    const commands: { text: string; expected: string[] }[] = [];
    let open = false;
    for (const line of block!.split('\n')) {
      if (line.startsWith('#')) commands.at(-1)?.expected.push(line.replace(/^# ?/, ''));
      else if (open) commands.at(-1)!.text += `\n${line}`;
      else if (line.trim()) commands.push({ text: line, expected: [] });
      open = line.endsWith('\\');
    }
    return commands;
  });
}

/** `npm run keys --` as its script runs it once built: the part after the build (the test run built once). */
const keysScript = /node \S+\/keys\.js$/.exec((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { keys: string } }).scripts.keys)![0];

/** A JSON answer the README shows (`201 {...}`, `{...}`, `200 [...]`), its volatile fields as the test will mark them. */
function shownJson(expected: readonly string[]): unknown {
  const match = /^(?:\d{3} )?([[{].*)$/.exec(expected[0] ?? '');
  return match ? JSON.parse(match[1]!) : undefined;
}
const steady = (value: unknown): unknown => JSON.parse(JSON.stringify(value), (key, field: unknown) => (key === 'placedAt' ? '<time>' : field));

let api: TestServer;
let dir: string;
beforeAll(async () => {
  api = await startServer();
  dir = await mkdtemp(join(tmpdir(), 'animal-store-tour-'));
});
afterAll(async () => {
  await api?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the README\'s tour, run as written', () => {
  it('makes a key, and every command answers what the README shows; the live events arrive meanwhile', async () => {
    const blocks = tourCommands();
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const local = (text: string) => text.replaceAll('localhost:8080', api.url.replace('http://', '')).replaceAll('npm run --silent keys --', keysScript);
    // The stream a user keeps open in a third terminal: started once there is a key, stopped at the end.
    const streaming = blocks.flat().filter((command) => / -sN /.test(command.text));
    const checked = blocks.flat().filter((command) => !streaming.includes(command));
    expect(streaming).toHaveLength(1);
    const script = [
      'set -u',
      ...checked.flatMap((command, n) => [
        local(command.text), `printf '\\n@@%d:%d\\n' ${n} $?`,
        ...(n === 0 ? [`( timeout 60 ${local(streaming[0]!.text)} > ${join(dir, 'stream.out')} 2>&1 ) & STREAM=$!`, 'sleep 1'] : []),
      ]),
      'sleep 1', 'kill $STREAM 2>/dev/null', 'exit 0',
    ].join('\n');
    const output = await new Promise<string>((resolve, reject) => {
      const bash = spawn('bash', ['-c', script], {
        cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...api.store.env, API_URL: api.url },
      });
      let text = '';
      bash.stdout.on('data', (chunk: Buffer) => { text += chunk.toString(); });
      bash.stderr.on('data', (chunk: Buffer) => { text += chunk.toString(); });
      bash.on('error', reject);
      bash.on('close', () => resolve(text));
    });

    const outputs = output.split(/\n@@(\d+):(\d+)\n/);
    checked.forEach((command, n) => {
      const at = outputs.findIndex((part, i) => i % 3 === 1 && Number(part) === n);
      expect(at, `no end marker for: ${command.text}\n${output}`).toBeGreaterThan(0);
      const [printed, exit] = [outputs[at - 1]!, outputs[at + 1]!];
      expect(exit, `${command.text}\n${printed}`).toBe('0');
      const shown = shownJson(command.expected);
      if (shown !== undefined) expect(steady(JSON.parse(printed.trim().split('\n').at(-1)!)), command.text).toEqual(steady(shown));
    });
    // The stream saw the change the README shows (the first order made Rex pending).
    const stream = await readFile(join(dir, 'stream.out'), 'utf8');
    const shownEvent = streaming[0]!.expected.find((line) => line.startsWith('data: '))!;
    expect(stream).toContain('event: next');
    expect(stream).toContain(shownEvent);
  }, 120_000);
});
