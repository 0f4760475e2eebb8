import fc from 'fast-check';

/** Marks where a deep value goes in JSON.stringify's text: a string no other arbitrary makes. */
const MARK = '\u2063deep';
const MARKED = new RegExp(`"${MARK}:(\\d+):(\\w+)"`, 'g');

type Shape = 'arrays' | 'objects' | 'mixed';

/**
 * A JSON value nested `depth` arrays and objects deep. It is written as text: JSON.stringify of the value
 * itself overflows the stack past a few thousand levels on Node 20, in the test as in the service. Put it
 * anywhere in a value and `wire()` writes it in.
 */
export class DeepJson {
  constructor(readonly depth: number, readonly shape: Shape) {}

  /** What JSON.stringify writes for it (a failing case prints it so): wire() replaces it with the text. */
  toJSON(): string {
    return `${MARK}:${this.depth}:${this.shape}`;
  }

  get text(): string {
    const open = (level: number) => (this.shape === 'arrays' || (this.shape === 'mixed' && level % 2 === 0) ? '[' : '{"a":');
    let head = '';
    let tail = '';
    for (let level = 0; level < this.depth; level++) {
      const opening = open(level);
      head += opening;
      tail = (opening === '[' ? ']' : '}') + tail;
    }
    return `${head}1${tail}`;
  }
}

/**
 * Depth as a hostile client sends it: around the service's limit (128), and thousands of levels past it,
 * as far as a 64 KiB body holds and past that.
 */
export const deepJson: fc.Arbitrary<DeepJson> = fc.tuple(
  fc.oneof(fc.integer({ min: 100, max: 160 }), fc.integer({ min: 1_000, max: 40_000 })),
  fc.constantFrom<Shape>('arrays', 'objects', 'mixed'),
).map(([depth, shape]) => new DeepJson(depth, shape));

/** JSON text of a value, each DeepJson in it written in whole. */
export function wire(value: unknown): string {
  return JSON.stringify(value).replace(MARKED, (_, depth: string, shape: Shape) => new DeepJson(Number(depth), shape).text);
}
