import { request } from 'node:http';
import { queryObjects } from 'node:v8';
import { afterAll, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer | undefined;
afterAll(async () => { await api?.close(); });

const EVENTS = 2_000;
// The most root fields an operation may select.
const PER_MUTATION = 20;
const CREATE_MANY = `mutation { ${Array.from({ length: PER_MUTATION }, (_, i) => `p${i}: createPet(input: { categoryId: 1, name: "m${i}" }) { id }`).join(' ')} }`;

const MARKER = 'event: next\n';

/** A subscriber that reads every event and keeps none: it only counts them. */
function countingSubscriber(url: string, authorization: string) {
  const body = JSON.stringify({ query: 'subscription { petChanged { id kind } }' });
  let events = 0;
  let tail = '';
  let waiter: { count: number; resolve: () => void } | undefined;
  const req = request(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization, accept: 'text/event-stream', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  const opened = new Promise<void>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const text = tail + chunk;
        events += text.split(MARKER).length - 1;
        // A marker cut in two by a chunk's end is counted with the next chunk; a whole one, never twice.
        tail = text.slice(-(MARKER.length - 1));
        if (waiter && events >= waiter.count) waiter.resolve();
      });
      res.once('data', () => resolve());
    });
  });
  req.end(body);
  return {
    opened,
    heard: (count: number) => new Promise<void>((resolve) => {
      if (events >= count) resolve();
      else waiter = { count, resolve };
    }),
    close: () => req.destroy(),
  };
}

/** Promises alive after a full collection (queryObjects collects first). */
const livePromises = () => queryObjects(Promise, { format: 'count' }) as number;

it('an open subscription holds no memory per event it has sent', async () => {
  api = await startServer();
  const subscriber = countingSubscriber(api.url, api.headers.authorization!);
  await subscriber.opened;
  const createBatch = async () => {
    const reply = await api!.gql(CREATE_MANY);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.errors).toBeUndefined();
  };
  // Warmed up first: what the first events build once (compiled operations, pools) is not a leak.
  for (let sent = 0; sent < 200; sent += PER_MUTATION) await createBatch();
  await subscriber.heard(200);
  const before = livePromises();
  for (let sent = 0; sent < EVENTS; sent += PER_MUTATION) await createBatch();
  await subscriber.heard(200 + EVENTS);
  const grown = livePromises() - before;
  subscriber.close();
  // Sent through the platform's web stream, every event kept a promise until the stream ended (2,000 here).
  expect(grown).toBeLessThan(EVENTS / 10);
}, 60_000);
