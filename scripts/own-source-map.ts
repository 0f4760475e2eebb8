import { decode, encode, type SourceMapSegment } from '@jridgewell/sourcemap-codec';

/** A source map as esbuild writes it (version 3, without sourcesContent). */
export interface RawSourceMap {
  readonly version: 3;
  readonly sources: readonly string[];
  readonly names: readonly string[];
  readonly mappings: string;
  readonly sourceRoot?: string;
  readonly sourcesContent?: readonly (string | null)[];
}

/**
 * The map of a bundle's chunk cut down to our own files, by line: a stack trace still names src/... and
 * the line for every frame of ours, while a library's frame keeps its place in the bundle. Node parses a
 * whole map the first time a stack trace goes through its chunk (a REST 404 for a missing pet does:
 * graphql-js reads the stack of the error it wraps) and keeps it: on Node 26 the server chunk's full map,
 * 452,000 segments, took 46 MB of heap and 340 ms; ours alone, 41,800 segments, 4.4 MB; ours by line,
 * 7,500, under a megabyte. A frame then shows the column where the mapped stretch of that line starts,
 * not the exact one.
 *
 * No names: Node names a frame's function by the name at the function's first segment, by line the
 * line's first name (a frame of prepareKept was shown as `native`); without them it shows the function's
 * own name, which the bundle keeps.
 *
 * Node looks a position up as the last segment at or before it, over line ends too: where a library's code
 * follows ours, a segment with no source (a generated column only) ends our mapping there.
 */
export function ownLinesOnly(map: RawSourceMap, isOwn: (source: string) => boolean): RawSourceMap {
  const sources: string[] = [];
  const sourceIndex = new Map<number, number>();
  const own = map.sources.map(isOwn);
  // The source and line the last kept segment maps to; undefined after a library's code.
  let last: string | undefined;
  const lines = decode(map.mappings).map((line) => line.flatMap((segment): SourceMapSegment[] => {
    if (segment.length !== 1 && own[segment[1]]) {
      const place = `${segment[1]}:${segment[2]}`;
      if (place === last) return [];
      last = place;
      let source = sourceIndex.get(segment[1]);
      if (source === undefined) { source = sources.push(map.sources[segment[1]]!) - 1; sourceIndex.set(segment[1], source); }
      return [[segment[0], source, segment[2], segment[3]]];
    }
    if (last === undefined) return [];
    last = undefined;
    return [[segment[0]]];
  }));
  const { sourcesContent: _, ...rest } = map;
  return { ...rest, sources, names: [], mappings: encode(lines) };
}
