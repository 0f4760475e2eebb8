/**
 * The part of npm's version ranges that an `engines.node` field uses: comparator sets joined by `||`, each
 * comparator `>=`, `>`, `<=`, `<`, `=`, `^` or `~` before a version that may stop short or end in `x`.
 * Anything else (hyphen ranges, prereleases) is refused rather than guessed at, so a drift test built on it
 * fails loudly instead of passing wrongly.
 */
type Version = readonly [number, number, number];

/** Versions from `min` (included) up to `max` (excluded; none: no end). */
interface Interval { readonly min: Version; readonly max?: Version }

const COMPARATOR = /^(>=|<=|>|<|=|\^|~)?v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?$/;

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** The first version past every one that the partial version `parts` names (20.19 → 20.20.0). */
function past(parts: readonly number[]): Version {
  const last = parts.length - 1;
  return [0, 1, 2].map((i) => (i < last ? parts[i]! : i === last ? parts[i]! + 1 : 0)) as unknown as Version;
}

/** The first version the partial version `parts` names (20.19 → 20.19.0). */
function first(parts: readonly number[]): Version {
  return [0, 1, 2].map((i) => parts[i] ?? 0) as unknown as Version;
}

function caretEnd(parts: readonly number[]): Version {
  const significant = parts.findIndex((part) => part !== 0);
  return past(parts.slice(0, significant === -1 ? parts.length : significant + 1));
}

function comparatorInterval(text: string): Interval {
  const match = COMPARATOR.exec(text);
  if (!match) throw new Error(`unsupported version range comparator "${text}"`);
  const [, op = '=', ...fields] = match;
  // A missing part or an x stops the version there: 20.x is 20.
  const stop = fields.findIndex((field) => field === undefined || /^[xX*]$/.test(field));
  const given = fields.slice(0, stop === -1 ? fields.length : stop).map(Number);
  if (given.length === 0) return op === '<' || op === '>' ? { min: [0, 0, 0], max: [0, 0, 0] } : { min: [0, 0, 0] };
  switch (op) {
    case '>=': return { min: first(given) };
    case '>': return { min: past(given) };
    case '<': return { min: [0, 0, 0], max: first(given) };
    case '<=': return { min: [0, 0, 0], max: past(given) };
    case '^': return { min: first(given), max: caretEnd(given) };
    case '~': return { min: first(given), max: past(given.length === 1 ? given : given.slice(0, 2)) };
    default: return { min: first(given), max: past(given) };
  }
}

function intersect(a: Interval, b: Interval): Interval {
  const min = compare(a.min, b.min) >= 0 ? a.min : b.min;
  const max = a.max && b.max ? (compare(a.max, b.max) <= 0 ? a.max : b.max) : a.max ?? b.max;
  return max ? { min, max } : { min };
}

function isEmpty(interval: Interval): boolean {
  return interval.max !== undefined && compare(interval.min, interval.max) >= 0;
}

/** The range as the intervals it admits, one per comparator set. */
export function rangeIntervals(range: string): Interval[] {
  return range.split('||').map((set) => set.trim().split(/\s+/).filter(Boolean)
    .map(comparatorInterval)
    .reduce(intersect, { min: [0, 0, 0] }));
}

function parseVersion(version: string): Version {
  const match = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new Error(`not a release version: "${version}"`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** Whether `range` admits the release `version` (26.12.1). */
export function rangeAdmits(range: string, version: string): boolean {
  const exact = parseVersion(version);
  return rangeIntervals(range).some((interval) => !isEmpty(intersect(interval, { min: exact, max: past(exact) })));
}

/** Whether `range` admits some release of the major `major`. */
export function rangeAdmitsMajor(range: string, major: number): boolean {
  return rangeIntervals(range).some((interval) => !isEmpty(intersect(interval, { min: [major, 0, 0], max: [major + 1, 0, 0] })));
}
