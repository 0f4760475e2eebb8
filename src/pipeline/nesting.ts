import { appError } from '../errors.js';

/**
 * How deep anything a client sends may nest: JSON (a body, a GET's `variables` or `extensions`, a
 * WebSocket message) in arrays and objects, a GraphQL document in braces, brackets and parentheses.
 * What reads them afterwards recurses (JSON.stringify and structuredClone on Node 20, graphql-js's parser,
 * input coercion and validation), and 2,000 to 5,000 levels overflowed the stack: a 500, not a 400. Our
 * deepest real input is 5 (a batch's operation's variables' input's list); GRAPHQL_MAX_DEPTH may allow
 * selections 100 deep. 128 leaves room for both, and is far below where anything overflows.
 */
export const MAX_NESTING = 128;

/**
 * Whether a parsed JSON value nests deeper than `limit` arrays and objects: a walk with a stack of its own,
 * so it never recurses, that stops at the first level past the limit. It visits each array and object
 * once: for a body of 1,400 small objects, a sixth of the time JSON.parse took (a scan of the text took
 * as long as the parse).
 */
export function nestsDeeper(value: unknown, limit = MAX_NESTING): boolean {
  if (typeof value !== 'object' || value === null) return false;
  // Pairs: a value, then its depth.
  const pending: unknown[] = [value, 1];
  const push = (child: unknown, depth: number) => {
    if (typeof child === 'object' && child !== null) pending.push(child, depth);
  };
  while (pending.length > 0) {
    const depth = pending.pop() as number;
    const next = pending.pop() as Record<string, unknown>;
    if (depth > limit) return true;
    // for…in, not Object.values: a parsed object has only its own keys, and no array of them is made.
    if (Array.isArray(next)) for (const child of next) push(child, depth + 1);
    else for (const key in next) push(next[key], depth + 1);
  }
  return false;
}

/** Refuses a parsed JSON value (`what` names it: "The request body", `"variables"`) that nests deeper than MAX_NESTING. */
export function checkNesting(value: unknown, what: string): void {
  if (nestsDeeper(value)) throw appError('BAD_REQUEST', `${what} nests deeper than ${MAX_NESTING} levels of arrays and objects`);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * The same question of JSON text not parsed yet (a WebSocket message, before graphql-ws parses it): one
 * pass over its characters. Exact for valid JSON (brackets outside strings are its structure); of other
 * text it counts the same brackets, and JSON.parse refuses that text anyway.
 */
export function textNestsDeeper(text: string, limit = MAX_NESTING): boolean {
  // Valid JSON deeper than the limit opens and closes more than it: shorter text cannot be.
  if (text.length <= 2 * limit) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // A string's brackets are text: skip to its closing quote (an escape's next character is never one).
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}
