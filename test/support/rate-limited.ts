import { expect } from 'vitest';

/** The answer was counted: it carries the limit, what remains and when the window resets, each a whole number. */
export function rateLimited(headers: Headers): void {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(headers.get(name), name).toMatch(/^\d+$/);
}
