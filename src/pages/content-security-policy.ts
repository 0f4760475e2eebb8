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
 * scripts and no injected one. Computed once, when the page is built.
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const [, attributes, body] of html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)) {
    if (/\bsrc=/.test(attributes!)) continue;
    hashes.push(`'sha256-${createHash('sha256').update(body!, 'utf8').digest('base64')}'`);
  }
  return hashes;
}
