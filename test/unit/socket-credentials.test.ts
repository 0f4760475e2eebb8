import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import type { ActiveKey, Caller } from '../../src/auth/authenticate.js';
import { EXPIRED_REASON, watchCredentials } from '../../src/websocket/credentials.js';
import { createSocketGuard } from '../../src/websocket/socket-guard.js';

/** src/websocket/credentials.ts on fake timers: when a socket closes for its key, and when it does not. */
beforeEach(() => { vi.useFakeTimers({ now: 1_000_000 }); });
afterEach(() => { vi.useRealTimers(); });

const RECHECK_MS = 15_000;
const DAY_MS = 86_400_000;

function socketWith(key: ActiveKey, standing: () => Caller | undefined = () => ({ kind: 'key', key })) {
  const close = vi.fn();
  const socket = { readyState: 1, OPEN: 1, close } as unknown as WebSocket;
  const guard = createSocketGuard(socket, () => false);
  const start = () => watchCredentials({
    socket, guard, key, recheckMs: RECHECK_MS, clock: { now: () => Date.now() }, recheck: () => Promise.resolve(standing()),
  });
  return { close, guard, start };
}

const key = (expiresAt?: number): ActiveKey => ({ id: 1, prefix: 'as_test_0000', plan: 'free', perMinute: 60, perDay: 1_000, ...(expiresAt !== undefined ? { expiresAt } : {}) });

it('closes the socket at the key\'s expiry, not a millisecond before, with 4403 and the reason', () => {
  const { close, start } = socketWith(key(Date.now() + 2_000));
  start();
  vi.advanceTimersByTime(1_999);
  expect(close).not.toHaveBeenCalled();
  vi.advanceTimersByTime(1);
  expect(close).toHaveBeenCalledExactlyOnceWith(4403, EXPIRED_REASON);
});

it('leaves an expiry past setTimeout\'s reach (2^31-1 ms) to the recheck: a key ending in a year does not close the socket at once', async () => {
  const { close, start } = socketWith(key(Date.now() + 365 * DAY_MS));
  start();
  await vi.advanceTimersByTimeAsync(RECHECK_MS * 2);
  expect(close).not.toHaveBeenCalled();
  // Just within reach, the timer is set (beside each socket's recheck).
  const near = socketWith(key(Date.now() + 2 ** 31 - 1));
  near.start();
  expect(vi.getTimerCount()).toBe(3);
});

it('sets no timer for a key without expiry, and clears it when the socket closes first', async () => {
  const lasting = socketWith(key());
  lasting.start();
  expect(vi.getTimerCount()).toBe(1);
  lasting.guard.dispose();
  const expiring = socketWith(key(Date.now() + 2_000));
  expiring.start();
  expiring.guard.dispose();
  expect(vi.getTimerCount()).toBe(0);
  await vi.advanceTimersByTimeAsync(5_000);
  expect(expiring.close).not.toHaveBeenCalled();
});

it('starts nothing for a socket that closed while its connection_init was checked', () => {
  const { guard, start } = socketWith(key(Date.now() + 2_000));
  guard.dispose();
  start();
  expect(vi.getTimerCount()).toBe(0);
});

it('closes for a key the recheck finds revoked through the same path, with the refusal\'s words; an unreachable key table closes nothing', async () => {
  let now: Caller | undefined;
  const { close, start } = socketWith(key(), () => now);
  start();
  await vi.advanceTimersByTimeAsync(RECHECK_MS);
  expect(close).not.toHaveBeenCalled();
  now = { kind: 'anonymous', problem: 'The API key is unknown or revoked', sentToken: true, reason: 'revoked' };
  await vi.advanceTimersByTimeAsync(RECHECK_MS);
  expect(close).toHaveBeenCalledExactlyOnceWith(4403, 'The API key is unknown or revoked');
});
