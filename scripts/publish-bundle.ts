/**
 * Puts a build of the bundle in place under the processes that may be running an earlier one: from this
 * checkout, `npm start` builds first, so a second instance, or a test run, builds under the first. Nothing
 * an earlier entry imports is taken away or rewritten, and a process sees the whole of a file or none of it.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { basename, dirname, join, posix, sep } from 'node:path';
import { importsOf, prunable, type BundleFile } from './bundle-retention.js';

/** A file of the new build: its path under the bundle's folder ('/'-separated) and its bytes. */
export interface BuiltFile {
  readonly path: string;
  readonly contents: Uint8Array;
}

/**
 * Chunks first, each beside the earlier builds' (their names are hashes of their contents), the entry and
 * its map last: a process that reads the new entry finds every file it names, one that read the old
 * entry still finds the old build's. Two builds at once each write their own temporary files, and the
 * one that renames last leaves its entry, both builds' chunks in place.
 */
export async function publish(dir: string, entry: string, files: readonly BuiltFile[]): Promise<void> {
  const replaced = await importedFrom(dir, entry);
  const rank = (file: BuiltFile) => [`${entry}.map`, entry].indexOf(file.path);
  const ordered = [...files].sort((a, b) => rank(a) - rank(b));
  const now = new Date();
  for (const file of ordered) await place(join(dir, file.path), file.contents, now);
  // The entry just replaced may be what an instance started from a moment ago: its files count from now.
  await Promise.all([...replaced].map((path) => utimes(join(dir, path), now, now).catch(ifGone)));
  await prune(dir, new Set([...files.map((file) => file.path), ...replaced]), now.getTime());
}

/**
 * Writes a file under its name by renaming a whole copy over it, never by writing into it: a process
 * that opens it meanwhile reads either version whole. A file already there with the same bytes (a chunk
 * the code change did not touch, or a build of the same code) is left as it is, only touched.
 */
async function place(path: string, contents: Uint8Array, now: Date): Promise<void> {
  const current = await readFile(path).catch(ifGone);
  if (current?.equals(contents) && (await utimes(path, now, now).then(() => true, ifGone))) return;
  await mkdir(dirname(path), { recursive: true });
  // Named after this process, and hidden from imports (.tmp): a build beside this one writes its own.
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  await writeFile(temporary, contents);
  await rename(temporary, path);
}

/** The files an entry imports, directly or through its chunks, each with its source map: the build it belongs to. */
async function importedFrom(dir: string, entry: string): Promise<Set<string>> {
  const found = new Set<string>();
  const visit = async (path: string): Promise<void> => {
    if (found.has(path)) return;
    const source = await readFile(join(dir, path), 'utf8').catch(ifGone);
    if (source === undefined) return;
    found.add(path).add(`${path}.map`);
    await Promise.all(importsOf(source).map((specifier) => visit(posix.join(posix.dirname(path), specifier))));
  };
  await visit(entry);
  return found;
}

/**
 * Deletes what no recent build wrote (bundle-retention.ts). A build beside this one can lose a file only
 * if it brings back, at this moment, one that no build has written for a day (two builds of different
 * code at once, one of them of code a day old); the next build writes it again.
 */
async function prune(dir: string, kept: ReadonlySet<string>, now: number): Promise<void> {
  const files: BundleFile[] = [];
  for (const name of await readdir(dir, { recursive: true })) {
    const info = await stat(join(dir, name)).catch(ifGone);
    if (info?.isFile()) files.push({ path: name.split(sep).join('/'), mtimeMs: info.mtimeMs });
  }
  await Promise.all(prunable(files, kept, now).map((path) => unlink(join(dir, path)).catch(ifGone)));
}

/** A file another build deleted or renamed meanwhile is no error: anything else is. */
function ifGone(error: NodeJS.ErrnoException): undefined {
  if (error.code === 'ENOENT') return undefined;
  throw error;
}
