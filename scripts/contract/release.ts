/**
 * `npm run contract:release -- <version> [--date YYYY-MM-DD]`: makes schema/'s documents the released
 * contract (copied into schema/released/) and CHANGELOG.md's Unreleased section the version's, once the
 * gate passes. The version in package.json and the documents' info.version are the releaser's to set.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { release } from './changelog.js';
import { runGate } from './check.js';
import { contractDocuments, RELEASED_DIR, SCHEMA_DIR } from './documents.js';
import { report } from './report.js';

const argument = (name: string) => { const at = process.argv.indexOf(name); return at > 0 ? process.argv[at + 1] : undefined; };
const version = process.argv[2];
const date = argument('--date') ?? new Date().toISOString().slice(0, 10);
const root = resolve(argument('--root') ?? '.');
if (!version || !/^\d+\.\d+\.\d+[\w.+-]*$/.test(version) || !/^\d{4}-\d{2}-\d{2}$/.test(date)) {
  console.error('usage: npm run contract:release -- <version, e.g. 1.1.0> [--date YYYY-MM-DD]');
  process.exit(2);
}
const result = await runGate(root);
if (!result.passed) {
  process.stderr.write(report(result));
  console.error('not released: the gate must pass first');
  process.exit(1);
}
const changelog = join(root, 'CHANGELOG.md');
let released: string;
try {
  released = release(readFileSync(changelog, 'utf8'), version, date);
} catch (error) {
  // A version released before, or no Unreleased section: nothing is written.
  console.error(`not released: ${(error as Error).message}`);
  process.exit(1);
}
writeFileSync(changelog, released);
mkdirSync(join(root, RELEASED_DIR), { recursive: true });
for (const { name, current } of contractDocuments(root)) {
  if (current === undefined) rmSync(join(root, RELEASED_DIR, name));
  else copyFileSync(join(root, SCHEMA_DIR, name), join(root, RELEASED_DIR, name));
}
console.log(`released ${version} (${date}): ${readdirSync(join(root, RELEASED_DIR)).join(', ')} in ${RELEASED_DIR}/; CHANGELOG.md's Unreleased section is now ${version}'s`);
