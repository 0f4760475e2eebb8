import { describe, expect, it } from 'vitest';
import {
  auditCachedReads, auditFeed, auditFeedAgainstOutbox, auditLimits, auditStreams, auditUpdates, auditWebhooks, auditWrites, crashes, failuresOutside, internalErrors, restartCosts, SETTLE_MS,
} from '../system/audit.js';
import type { FeedEvent, LimitedCall, VersionRead, VersionWrite, WriteRecord } from '../system/clients.js';
import type { Receiver } from '../system/receivers.js';
import { SENTINELS_OWN, unplannedFailovers } from '../system/sentinel-watch.js';

const write = (n: number, status: number, id?: number): WriteRecord => ({ name: `run-${n}`, idempotencyKey: `k${n}`, status, id, tries: 1 });
const created = (id: number, petId: number, name = `run-${petId}`): FeedEvent => ({ id, type: 'pet.created', occurredAt: '2026-11-27T00:00:00.000Z', pet: { id: petId, name } });
const checks = (violations: { check: string }[]) => violations.map((v) => v.check);

// The system run's auditor must be able to fail: each check, given the books of a broken run, says so.
describe('the system run\'s auditor', () => {
  it('passes books that balance', () => {
    const writes = [write(1, 201, 1), write(2, 201, 2), write(3, 0)];
    expect(auditWrites(writes, [{ id: 1, name: 'run-1' }, { id: 2, name: 'run-2' }, { id: 3, name: 'run-3' }])).toEqual([]);
    // The write that got no answer was stored: its event is in the feed, rightly.
    expect(auditFeed([created(10, 1), created(11, 2), created(12, 3)], [1, 2, 3].map((id) => ({ id, name: `run-${id}` })), 'run-')).toEqual([]);
    expect(auditStreams([[10, 11], [11]], [created(10, 1), created(11, 2)])).toEqual([]);
  });

  it('finds an acknowledged write stored twice (a retry without its key), or not at all, or under another id', () => {
    expect(checks(auditWrites([write(1, 201, 1)], [{ id: 1, name: 'run-1' }, { id: 2, name: 'run-1' }]))).toEqual(['an acknowledged write is stored exactly once']);
    expect(checks(auditWrites([write(1, 201, 1)], []))).toEqual(['an acknowledged write is stored exactly once']);
    expect(checks(auditWrites([write(1, 201, 7)], [{ id: 1, name: 'run-1' }]))).toEqual(['an acknowledged write is stored exactly once']);
  });

  it('finds a write that got no answer stored twice', () => {
    expect(checks(auditWrites([write(1, 0)], [{ id: 1, name: 'run-1' }, { id: 2, name: 'run-1' }]))).toEqual(['an unacknowledged write is stored at most once']);
  });

  it('finds a write said to be applied (409 IDEMPOTENCY_KEY_APPLIED) that is not stored', () => {
    const applied: WriteRecord = { ...write(1, 409), code: 'IDEMPOTENCY_KEY_APPLIED' };
    expect(auditWrites([applied], [{ id: 1, name: 'run-1' }])).toEqual([]);
    expect(checks(auditWrites([applied], []))).toEqual(['a write said to be applied is stored exactly once']);
  });

  it('finds a webhook endpoint that missed an event of its types, a forged signature, or a webhook-id reused', () => {
    const feed = [created(10, 1), created(11, 2), { ...created(12, 1), type: 'pet.updated' }];
    const hook = (receipts: [string, number][], forged: Receiver['forged'] = []): Receiver => ({
      name: 'hook', url: '', types: ['pet.created'], forged, refused: 0, stop: async () => {},
      receipts: receipts.map(([webhookId, eventId]) => ({ webhookId, eventId, type: 'pet.created', occurredAt: 0, at: 0 })),
    });
    // Twice is at least once; the update is not of its types.
    expect(auditWebhooks([hook([['msg_1', 10], ['msg_1', 10], ['msg_2', 11]])], feed)).toEqual([]);
    expect(checks(auditWebhooks([hook([['msg_1', 10]])], feed))).toEqual(['a webhook endpoint gets every event it subscribed to']);
    expect(checks(auditWebhooks([hook([['msg_1', 10], ['msg_2', 11]], [{ webhookId: 'msg_3', reason: 'No matching signature found' }])], feed)))
      .toEqual(['every webhook\'s signature verifies']);
    // The second event under the first's id: the first then counts as never delivered.
    expect(checks(auditWebhooks([hook([['msg_1', 10], ['msg_1', 11]])], feed)))
      .toEqual(['a webhook-id carries one event', 'a webhook endpoint gets every event it subscribed to']);
  });

  it('finds a key given more than its plan in a window, allowing each instance its own count while Redis was away', () => {
    const minute = 60_000 * 29_000_000;
    const calls = (n: number, status = 200): LimitedCall[] => Array.from({ length: n }, (_, i) => ({ key: 'free', sentAt: minute + i * 10, at: minute + i * 10 + 5, status }));
    const limits = new Map([['free', 10]]);
    expect(auditLimits([...calls(10), ...calls(50, 429)], limits, [], 3)).toEqual({ violations: [], allowanceWindows: 0 });
    expect(checks(auditLimits(calls(11), limits, [], 3).violations)).toEqual(['no key gets more than its plan allows in a window']);
    // A call sent in one window and answered in the next may have been counted in either: not counted.
    const spanning = { key: 'free', sentAt: minute - 1, at: minute + 1, status: 200 };
    expect(auditLimits([...calls(10), spanning], limits, [], 3).violations).toEqual([]);
    const away = { name: 'Redis master killed', target: 'redis', startedAt: minute + 1_000, recoveredAt: minute + 2_000 };
    expect(auditLimits(calls(40), limits, [away], 3)).toEqual({ violations: [], allowanceWindows: 1 });
    expect(checks(auditLimits(calls(41), limits, [away], 3).violations)).toEqual(['no key gets more than its plan allows in a window']);
    // Any other fault leaves Redis counting.
    expect(auditLimits(calls(11), limits, [{ ...away, name: 'rolling restart' }], 3).violations).toHaveLength(1);
  });

  it('finds a feed that goes back, repeats, misses a stored pet, doubles one, or invents one', () => {
    const pets = [{ id: 1, name: 'run-1' }, { id: 2, name: 'run-2' }];
    expect(checks(auditFeed([created(11, 1), created(10, 2)], pets, 'run-'))).toEqual(['the feed goes up by id, each event once']);
    expect(checks(auditFeed([created(10, 1), created(10, 1), created(11, 2)], pets, 'run-'))).toContain('the feed goes up by id, each event once');
    expect(checks(auditFeed([created(10, 1)], pets, 'run-'))).toEqual(['each stored pet has exactly one pet.created in the feed']);
    expect(checks(auditFeed([created(10, 1), created(11, 1), created(12, 2)], pets, 'run-'))).toEqual(['each stored pet has exactly one pet.created in the feed']);
    expect(checks(auditFeed([created(10, 1), created(11, 2), created(12, 3)], pets, 'run-')))
      .toEqual(['the feed holds no pet.created for a pet that is not stored']);
  });

  it('finds a feed that skipped a committed event or gave one never committed; an id in neither rolled back', () => {
    const feed = [created(10, 1), created(12, 2), created(13, 3)];
    expect(auditFeedAgainstOutbox(feed, [10, 12, 13, 14])).toEqual({ violations: [], rolledBack: 1 });
    expect(checks(auditFeedAgainstOutbox(feed, [10, 11, 12, 13]).violations)).toEqual(['the feed holds every committed event']);
    expect(checks(auditFeedAgainstOutbox(feed, [10, 13]).violations)).toEqual(['the feed holds only committed events']);
  });

  it('finds an acknowledged update without its pet.updated, or more events than tries', () => {
    const updated = (id: number, petId: number): FeedEvent => ({ ...created(id, petId), type: 'pet.updated' });
    const feed = [created(10, 1), updated(11, 1), updated(12, 1)];
    // Two tries, each applied (the first's answer lost): two events for one acknowledged update.
    expect(auditUpdates([{ petId: 1, status: 200, tries: 2 }], feed)).toEqual([]);
    expect(checks(auditUpdates([{ petId: 1, status: 200, tries: 1 }], feed))).toEqual(['each acknowledged update has its pet.updated, and no try two']);
    expect(checks(auditUpdates([{ petId: 2, status: 200, tries: 1 }], feed))).toEqual(['each acknowledged update has its pet.updated, and no try two']);
  });

  it('finds a key reading older than its own write, and any answer older than the cache\'s bound', () => {
    const writes: VersionWrite[] = [
      { client: 'a', petId: 7, version: 1, sentAt: 1_000, ackAt: 1_010 },
      { client: 'a', petId: 7, version: 2, sentAt: 5_000, ackAt: 5_010 },
      // Never acknowledged: nothing is owed for it.
      { client: 'a', petId: 7, version: 3, sentAt: 9_000 },
    ];
    const read = (own: boolean, sentAt: number, version: number): VersionRead => ({
      client: own ? 'a' : 'observer', own, petId: 7, sentAt, at: sentAt + 5, version, surface: 'rest', cache: 'hit',
    });
    const balanced = [read(true, 5_020, 2), read(false, 5_020, 1), read(false, 7_000, 2), read(false, 9_500, 3), read(true, 1_005, 0)];
    expect(auditCachedReads(writes, balanced, 2_000)).toEqual([]);
    // Its own write, acknowledged before it asked: an older version is a violation, whichever instance answered.
    expect(checks(auditCachedReads(writes, [read(true, 5_020, 1)], 2_000))).toEqual(['a key never reads older than its own write']);
    // Another key may see the old version within the bound, not after it.
    expect(checks(auditCachedReads(writes, [read(false, 7_011, 1)], 2_000))).toEqual(['no answer older than the cache\'s bound (2000 ms)']);
    expect(auditCachedReads(writes, [read(false, 7_009, 1)], 2_000)).toEqual([]);
  });

  it('finds an instance that exited without being stopped, and none when each was only stopped', () => {
    const crash = { instance: 'instance-2', at: '2026-11-28T00:00:00.000Z', code: null, signal: 'SIGSEGV' as const };
    expect(checks(crashes([{ crashes: [] }, { crashes: [crash] }]))).toEqual(['no instance exits unless it is stopped']);
    expect(crashes([{ crashes: [] }, { crashes: [] }])).toEqual([]);
  });

  it('counts a topology change no fault asked for as a fault of its own, from the first +sdown to its last event', () => {
    const killed = { name: 'Redis master killed', target: 'redis 1', startedAt: 10_000, recoveredAt: 12_000 };
    // The fault's own changes (inside its window) are not counted again; three Sentinels' events 60 s later are one.
    expect(unplannedFailovers({ sdowns: [10_500, 70_000, 70_100], changes: [11_500, 11_600, 71_200, 71_300, 72_000] }, [killed]))
      .toEqual([{ name: SENTINELS_OWN, target: 'redis', startedAt: 70_000, recoveredAt: 72_000 }]);
    // A conversion with no +sdown before it (a Sentinel with an older view) starts 3 s before; two apart are two.
    expect(unplannedFailovers({ sdowns: [], changes: [90_000, 120_000] }, [])).toEqual([
      { name: SENTINELS_OWN, target: 'redis', startedAt: 87_000, recoveredAt: 90_000 },
      { name: SENTINELS_OWN, target: 'redis', startedAt: 117_000, recoveredAt: 120_000 },
    ]);
    expect(unplannedFailovers({ sdowns: [10_500], changes: [11_500] }, [killed])).toEqual([]);
  });

  it('finds a 500 even inside a fault', () => {
    expect(checks(internalErrors([{ at: 1, ms: 1, status: 500, kind: 'read' }, { at: 2, ms: 1, status: 503, kind: 'read' }]))).toEqual(['no 500 INTERNAL, in a fault or out of one']);
  });

  it('finds a subscriber that missed an event after it subscribed (one that skips Last-Event-ID), went back, or got nothing', () => {
    const feed = [created(10, 1), created(11, 2), created(12, 3)];
    expect(checks(auditStreams([[10, 12]], feed))).toEqual(['a subscriber is given every event after it subscribed']);
    expect(checks(auditStreams([[10, 12, 11]], feed))).toEqual(['a subscriber\'s events come in id order']);
    expect(checks(auditStreams([[]], feed))).toEqual(['every subscriber is given events']);
    // Given again after a reconnection: at least once is enough.
    expect(auditStreams([[10, 11, 11, 12]], feed)).toEqual([]);
  });

  it('finds a 5xx or a lost answer outside every fault, and lets those inside one (and its settling) pass', () => {
    const fault = { name: 'primary restarted', target: 'mariadb primary', startedAt: 1_000, recoveredAt: 2_000 };
    const at = (when: number, status: number) => ({ at: when, ms: 1, status, kind: 'write' as const });
    expect(failuresOutside([at(1_500, 503), at(2_000 + SETTLE_MS, 0), at(500, 200)], [fault])).toEqual([]);
    expect(checks(failuresOutside([at(500, 503), at(2_001 + SETTLE_MS, 0)], [fault]))).toEqual([
      'no 5xx and no lost answer outside a fault', 'no 5xx and no lost answer outside a fault',
    ]);
  });

  it('finds a 5xx or a lost answer during a rolling restart and its settling, unless another fault was under way', () => {
    const restart = { name: 'rolling restart', target: 'every instance', startedAt: 1_000, recoveredAt: 2_000 };
    const kill = { name: 'kill -9 an instance', target: 'instance-1', startedAt: 2_500, recoveredAt: 3_000 };
    const at = (when: number, status: number) => ({ at: when, ms: 1, status, kind: 'read' as const });
    expect(checks(restartCosts([at(1_500, 503), at(2_000 + SETTLE_MS, 0), at(1_600, 200)], [restart]))).toEqual([
      'a rolling restart costs no 5xx and no lost answer', 'a rolling restart costs no 5xx and no lost answer',
    ]);
    // Before it, after its settling, or inside another fault's window: not the restart's.
    expect(restartCosts([at(999, 503), at(2_001 + SETTLE_MS, 0), at(2_700, 502)], [restart, kill])).toEqual([]);
  });
});
