/**
 * CHANGELOG.md as the gate reads and the release writes it. A breaking change is declared by an entry of
 * the `### Breaking` list under `## Unreleased` that names the change's identifier in backticks and the
 * deprecation that preceded it: "deprecated in <a version released in this file>" or "deprecated since
 * <a date, not in the future>" ("Deprecation since" too, as the header says it).
 */
export const UNRELEASED = '## Unreleased';
export const SUBSECTIONS = ['### Breaking', '### Dangerous', '### Added'] as const;

export interface Entry {
  readonly text: string;
  /** What the entry names in backticks. */
  readonly names: readonly string[];
  /** The deprecation it cites, or why it cites none that counts. */
  readonly deprecation: { readonly ok: true; readonly cited: string } | { readonly ok: false; readonly why: string };
}

const lines = (text: string) => text.split('\n');
const isRelease = (line: string) => /^## (?!#)/.test(line);

/** The lines of a `## ` section (without its heading) whose heading starts with `heading`. */
function section(text: string, heading: string, level: RegExp): string[] | undefined {
  const all = lines(text);
  const start = all.findIndex((line) => line.trim().toLowerCase() === heading.toLowerCase());
  if (start < 0) return undefined;
  const end = all.findIndex((line, index) => index > start && level.test(line));
  return all.slice(start + 1, end < 0 ? undefined : end);
}

/** Versions with a `## <version>` section: what "deprecated in" may cite. */
export function releasedVersions(text: string): string[] {
  return lines(text).flatMap((line) => /^## v?(\d+\.\d+\.\d+[\w.+-]*)/.exec(line)?.[1] ?? []);
}

const CITATION = /\bdeprecat(?:ed|ion)\s+(in|since)\s+(v?\d+\.\d+\.\d+[\w.+-]*|\d{4}-\d{2}-\d{2})\b/i;

function deprecationOf(entry: string, versions: readonly string[], today: string): Entry['deprecation'] {
  const match = CITATION.exec(entry);
  if (!match) return { ok: false, why: 'it cites no deprecation ("deprecated in <version>" or "deprecated since <YYYY-MM-DD>"): a breaking change must follow one' };
  const cited = match[2]!.replace(/^v/, '');
  if (/^\d{4}-/.test(cited)) {
    if (Number.isNaN(Date.parse(cited))) return { ok: false, why: `its deprecation date ${cited} is no date` };
    if (cited > today) return { ok: false, why: `its deprecation date ${cited} is in the future: the deprecation must precede the removal` };
  } else if (!versions.includes(cited)) {
    return { ok: false, why: `it cites ${cited}, which has no section in CHANGELOG.md: the deprecation must have been released` };
  }
  return { ok: true, cited: match[0] };
}

/** The entries of the Unreleased section's Breaking list. */
export function breakingEntries(text: string, today = new Date().toISOString().slice(0, 10)): Entry[] {
  const unreleased = section(text, UNRELEASED, /^## (?!#)/);
  if (!unreleased) return [];
  const breaking = section(unreleased.join('\n'), '### Breaking', /^#{2,3} /) ?? [];
  const entries: string[] = [];
  for (const line of breaking) {
    if (/^[-*] /.test(line)) entries.push(line.slice(2));
    else if (line.trim() !== '' && entries.length > 0) entries[entries.length - 1] += `\n${line}`;
  }
  const versions = releasedVersions(text);
  return entries.map((entry) => ({
    text: entry,
    names: [...entry.matchAll(/`([^`]+)`/g)].map((match) => match[1]!.trim()),
    deprecation: deprecationOf(entry, versions, today),
  }));
}

/**
 * The Unreleased section becomes `## <version> — <date>` (its empty lists left out), under a fresh
 * Unreleased section with empty lists.
 */
export function release(text: string, version: string, date: string): string {
  if (releasedVersions(text).includes(version)) throw new Error(`CHANGELOG.md already has a section for ${version}`);
  const all = lines(text);
  const start = all.findIndex((line) => line.trim().toLowerCase() === UNRELEASED.toLowerCase());
  if (start < 0) throw new Error(`CHANGELOG.md has no "${UNRELEASED}" section to release`);
  const end = all.findIndex((line, index) => index > start && isRelease(line));
  const body = all.slice(start + 1, end < 0 ? undefined : end);
  // Drop the subsections that stayed empty.
  const kept: string[] = [];
  for (let index = 0; index < body.length; index += 1) {
    const line = body[index]!;
    if (/^### /.test(line)) {
      const next = body.findIndex((other, at) => at > index && /^### /.test(other));
      const content = body.slice(index + 1, next < 0 ? undefined : next);
      if (content.every((other) => other.trim() === '')) { index = (next < 0 ? body.length : next) - 1; continue; }
    }
    kept.push(line);
  }
  const fresh = [UNRELEASED, '', ...SUBSECTIONS.flatMap((heading) => [heading, ''])];
  const released = [`## ${version} — ${date}`, ...kept];
  return [...all.slice(0, start), ...fresh, ...released, ...(end < 0 ? [] : all.slice(end))].join('\n');
}
