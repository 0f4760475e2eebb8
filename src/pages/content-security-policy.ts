import { createHash } from 'node:crypto';

export type Directives = Record<string, readonly string[]>;

/** Nothing is allowed unless a page's policy names it. */
const BASELINE: Directives = {
  'default-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/** A `Content-Security-Policy` value: the baseline, with the page's own directives added or replaced. */
export function contentSecurityPolicy(directives: Directives): string {
  return Object.entries({ ...BASELINE, ...directives }).map(([name, sources]) => `${name} ${sources.join(' ')}`).join('; ');
}

/**
 * The hash source of every inline script of a page (`'sha256-…'`), so the policy allows exactly those
 * scripts and no injected one. Computed once, when the page is built, on its bytes: GraphiQL's page is
 * 9 MB, and as a string it would be another 9 to 18 MB of heap.
 */
export function inlineScriptHashes(html: Uint8Array): string[] {
  const page = Buffer.from(html.buffer, html.byteOffset, html.byteLength);
  const hashes: string[] = [];
  for (let open = page.indexOf('<script'); open >= 0;) {
    const body = page.indexOf('>', open) + 1;
    const end = body > 0 ? page.indexOf('</script>', body) : -1;
    if (end < 0) break;
    if (!/\bsrc=/.test(page.toString('latin1', open, body))) {
      hashes.push(`'sha256-${createHash('sha256').update(page.subarray(body, end)).digest('base64')}'`);
    }
    open = page.indexOf('<script', end);
  }
  return hashes;
}
