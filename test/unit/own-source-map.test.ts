import { decode, encode } from '@jridgewell/sourcemap-codec';
import { expect, it } from 'vitest';
import { ownLinesOnly } from '../../scripts/own-source-map.js';

const OURS = '../../../src/a.ts';
const THEIRS = '../../../node_modules/lib/index.js';
const isOwn = (source: string) => source.startsWith('../../../src/');

it("keeps our files' segments, one per line of ours and without names, and ends our mapping where a library's code begins", () => {
  const map = ownLinesOnly({
    version: 3,
    sources: [THEIRS, OURS],
    names: ['theirs', 'ours'],
    mappings: encode([
      // A library's code first: nothing of ours to end, so no segment.
      [[0, 0, 5, 0, 0], [10, 0, 5, 4]],
      // Ours, line 3 twice (one kept) then line 4; then the library again (a segment without a source).
      [[0, 1, 3, 2, 1], [7, 1, 3, 9], [12, 1, 4, 0], [20, 0, 6, 0], [25, 0, 6, 3]],
      // The library still, on the next line: it was already ended.
      [[0, 0, 7, 0]],
      [[0, 1, 9, 0]],
    ]),
    sourcesContent: ['their text', 'our text'],
  }, isOwn);
  expect(map.sources).toEqual([OURS]);
  expect(map.names).toEqual([]);
  expect(map.sourcesContent).toBeUndefined();
  expect(decode(map.mappings)).toEqual([
    [],
    [[0, 0, 3, 2], [12, 0, 4, 0], [20]],
    [],
    [[0, 0, 9, 0]],
  ]);
});
