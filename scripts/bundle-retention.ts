/**
 * Which files of earlier builds a build deletes from dist/bundle, where it writes its own beside them
 * (publish-bundle.ts): an instance imports its chunks after its entry, and once the code has changed
 * their names, hashes of their contents, are not written again.
 */

/**
 * How long a file stays once no build has written it, nor replaced the entry that imports it. An instance
 * imports its chunks today at startup (main.ts's server and tracing, the server's migrations), seconds
 * after it read its entry; a chunk imported on first use would be looked for as long as it runs. The
 * entry a build replaces is kept whole whatever its age, since an instance may have started from it a
 * moment ago, and its files count from then: an instance finds a chunk gone only if the build it started
 * from was replaced over a day before it imports the chunk, and no build since has written it again.
 */
export const KEPT_FOR_MS = 24 * 60 * 60 * 1_000;

/** A file under the bundle's folder: its path there ('/'-separated) and when it was last written or touched. */
export interface BundleFile {
  readonly path: string;
  readonly mtimeMs: number;
}

/**
 * The files that can go: neither the new build's nor the replaced entry's (`kept`, whatever their
 * age), and untouched for KEPT_FOR_MS. A temporary file of a build that died half-way is one too,
 * while a running build's, just written, is not.
 */
export function prunable(files: readonly BundleFile[], kept: ReadonlySet<string>, now: number): string[] {
  return files.filter((file) => !kept.has(file.path) && now - file.mtimeMs > KEPT_FOR_MS).map((file) => file.path);
}

/**
 * The files of ours a module of the bundle imports, statically or by import(), as written by esbuild
 * (`from"./chunk-X.mjs"`, `import("./start-X.mjs")`, `import"./chunks/chunk-X.mjs"`), relative to
 * it. Any such string counts, import or not: keeping a file too many is harmless, one too few is not.
 */
export function importsOf(source: string): string[] {
  return [...source.matchAll(/["'](\.{1,2}\/[^"'\s]+\.mjs)["']/g)].map((match) => match[1]!);
}
