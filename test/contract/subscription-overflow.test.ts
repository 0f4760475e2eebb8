import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { scrape, seriesValue } from '../support/metrics.js';
import { startServer, type TestServer } from '../support/server.js';
import { subscribe } from '../support/sse.js';

let api: TestServer | undefined;
afterAll(async () => { await api?.close(); });

/** The body of a chunked HTTP/1.1 response so far, its chunks joined. */
function dechunk(raw: string): string {
  let rest = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  let body = '';
  for (;;) {
    const line = rest.indexOf('\r\n');
    if (line < 0) return body;
    const size = parseInt(rest.slice(0, line), 16);
    if (!(size > 0) || rest.length < line + 2 + size) return body;
    body += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

/** Each event of this subscription is about half a megabyte: the name, 2,000 times over (aliases). */
const BULKY = `subscription { petChanged { id kind pet { id } ${Array.from({ length: 2_000 }, (_, i) => `n${i}: pet { name }`).join(' ')} } }`;

/**
 * A subscriber that reads nothing until told to: its socket is paused, so once the kernel's buffers are
 * full the server can write no more, as with a client on a slow link.
 */
async function stalledSubscriber(url: string, authorization: string) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const body = JSON.stringify({ query: BULKY });
  socket.write(`POST /graphql HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: ${authorization}\r\n`
    + `accept: text/event-stream\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  let raw = '';
  let answered!: () => void;
  const headers = new Promise<void>((resolve) => { answered = resolve; });
  const onData = (chunk: Buffer) => {
    raw += chunk.toString();
    if (raw.includes('\r\n\r\n')) answered();
  };
  socket.on('data', onData);
  await headers;
  socket.pause();
  return {
    status: Number(raw.slice(9, 12)),
    /** Reads again, until the stream completes: its events, each `next` payload parsed. */
    async drain(): Promise<{ next: any[]; ids: (string | undefined)[]; completed: boolean }> {
      socket.resume();
      await new Promise<void>((resolve) => {
        const check = () => { if (dechunk(raw).includes('event: complete')) resolve(); };
        socket.on('data', check);
        socket.once('close', resolve);
        check();
      });
      socket.destroy();
      const events = dechunk(raw).split('\n\n').filter((block) => block.startsWith('event: next'));
      return {
        next: events.map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6))),
        ids: events.map((block) => /^id: (.*)$/m.exec(block)?.[1]),
        completed: dechunk(raw).includes('event: complete'),
      };
    },
  };
}

describe('a subscriber that reads slower than events come', () => {
  it('is cut off past the stream queue with a STREAM_OVERFLOW event, then complete; the others go on', async () => {
    api = await startServer({ env: { STREAM_QUEUE_EVENTS: '20', GRAPHQL_MAX_TOKENS: '20000' } });
    const slow = await stalledSubscriber(api.url, api.headers.authorization!);
    expect(slow.status).toBe(200);
    const keepingUp = await subscribe(api.url, 'subscription { petChanged { kind pet { id } } }', api.headers);

    // 100 events of half a megabyte, 10 at a time (a burst the queue holds): several times what the
    // loopback socket's buffers and the queue hold together.
    const name = 'x'.repeat(255);
    const created: number[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const replies = await Promise.all(Array.from({ length: 10 }, () => api!.post('/v1/pets', { name, categoryId: 1 })));
      created.push(...replies.map((reply) => reply.body.id));
    }

    const { next, ids, completed } = await slow.drain();
    expect(completed).toBe(true);
    // Each event carries its outbox id as its SSE id; the error that ends the stream has none, and says
    // where to resume: after the last event it delivered.
    expect(ids.slice(0, -1)).toEqual(next.slice(0, -1).map((event) => String(event.data.petChanged.id)));
    expect(ids.at(-1)).toBeUndefined();
    const lastHeard = next.at(-2).data.petChanged.id;
    const last = next.at(-1);
    expect(last).toEqual({
      data: null,
      errors: [{
        message: `This subscription fell more than 20 events behind: it ends here; subscribe again with \`after: ${lastHeard}\` (or the Last-Event-ID header) to go on without missing any`,
        locations: [{ line: 1, column: 16 }],
        path: ['petChanged'],
        extensions: { code: 'STREAM_OVERFLOW', status: 503 },
      }],
    });
    // What came before the cut is some of what was created, each once.
    const delivered = next.slice(0, -1).map((event) => event.data.petChanged.pet.id);
    expect(next.slice(0, -1).every((event) => event.data.petChanged.n1999.name === name)).toBe(true);
    expect(new Set(delivered).size).toBe(delivered.length);
    expect(delivered.every((id) => created.includes(id))).toBe(true);
    expect(delivered.length).toBeLessThan(created.length);

    // A client that reads heard every one, and its stream goes on.
    const heard = new Set<number>();
    for (let i = 0; i < created.length; i++) heard.add((await keepingUp.next(5_000)).data.petChanged.pet.id);
    expect([...heard].sort((a, b) => a - b)).toEqual([...created].sort((a, b) => a - b));
    // Resumed after the last event it heard, the cut-off client gets exactly what it missed, in id order.
    const resumed = await subscribe(api.url, 'subscription { petChanged { id pet { id } } }', { ...api.headers, 'last-event-id': String(lastHeard) });
    expect(resumed.status).toBe(200);
    const missed: { id: number; pet: { id: number } }[] = [];
    for (let i = delivered.length; i < created.length; i++) missed.push((await resumed.next(5_000)).data.petChanged);
    expect(missed.map((event) => event.id)).toEqual([...missed.map((event) => event.id)].sort((a, b) => a - b));
    expect(missed[0]!.id).toBeGreaterThan(lastHeard);
    expect([...delivered, ...missed.map((event) => event.pet.id)].sort((a, b) => a - b)).toEqual([...created].sort((a, b) => a - b));

    const after = (await api.post('/v1/pets', { name: 'After', categoryId: 1 })).body;
    expect((await keepingUp.next()).data.petChanged.pet.id).toBe(after.id);
    expect((await resumed.next()).data.petChanged.pet.id).toBe(after.id);
    // What an operator sees: the cut, and the two streams still open.
    const metrics = await scrape(api.url);
    expect(seriesValue(metrics, 'animal_store_subscription_overflows_total')).toBe(1);
    expect(seriesValue(metrics, 'animal_store_subscriptions_open')).toBe(2);
    keepingUp.close();
    resumed.close();
    await expect.poll(async () => seriesValue(await scrape(api!.url), 'animal_store_subscriptions_open'), { timeout: 3_000, interval: 50 }).toBe(0);
  }, 120_000);
});
