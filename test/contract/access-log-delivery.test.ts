import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { keyOn } from '../support/backend.js';
import { listeningUrl, spawnedServers, type ServerProcess } from '../support/process.js';
import { parseResponses, rawConnection } from '../support/raw-socket.js';

const servers = spawnedServers();

/**
 * The request ids of the access-log lines the process has written to stdout so far, in order, but for
 * the OpenAPI document the response checker fetches (test/support/validate-responses.ts).
 */
function loggedIds(server: ServerProcess): string[] {
  return server.output().split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    const entry = JSON.parse(line) as { requestId?: string; durationMs?: number; path?: string };
    // The one line per request carries its duration; other lines about a request may carry its id.
    return entry.durationMs !== undefined && entry.requestId && entry.path !== '/v1/openapi.json' ? [entry.requestId] : [];
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the access log, written in blocks', () => {
  it("has a quiet instance's line on stdout within about 100 ms of its answer", async () => {
    const { server, store } = await servers.start({ LOG_FORMAT: 'json' });
    const url = await listeningUrl(server);
    const auth = await keyOn(store);
    const delays: number[] = [];
    // A few lines far below a block (4 KB), at intervals that fall on every phase of the flush's timer:
    // flushed once a second, as before, all five within 400 ms would be a 1-in-100 chance.
    for (let i = 0; i < 5; i++) {
      const id = `quiet-${i}`;
      const res = await fetch(`${url}/v1/pets?limit=1`, { headers: { ...auth, 'x-request-id': id } });
      const answered = performance.now();
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      while (!loggedIds(server).includes(id)) {
        if (performance.now() - answered > 2_000) throw new Error(`no line for ${id} within 2 s`);
        await sleep(5);
      }
      delays.push(performance.now() - answered);
      await sleep(70 + 45 * i);
    }
    // 100 ms, and slack for a busy machine's timers.
    expect(Math.max(...delays)).toBeLessThan(400);
  });

  it('loses no line on SIGTERM: exactly one per request answered, those in flight at the signal included', async () => {
    const { server, store } = await servers.start({ LOG_FORMAT: 'json' });
    const url = await listeningUrl(server);
    const auth = await keyOn(store);

    // Requests in flight for sure when the signal comes: their bodies are half sent.
    const body = '{"name":"In flight","categoryId":1}';
    const inFlight = await Promise.all([0, 1, 2].map(async (i) => {
      const connection = await rawConnection(url);
      connection.write(`POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth.authorization}\r\nX-Request-Id: in-flight-${i}\r\n`
        + `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
      return connection;
    }));

    // And a stream of requests from 16 clients, each until the server stops taking them: answered as
    // usual, then refused with 503 while it drains, then not taken at all.
    const answered: string[] = [];
    let sent = 0;
    let signalled = false;
    let answeredAcross = 0;
    const client = async () => {
      for (;;) {
        const id = `stream-${sent++}`;
        const before = signalled;
        try {
          const res = await fetch(`${url}/v1/pets?limit=5`, { headers: { ...auth, 'x-request-id': id } });
          await res.arrayBuffer();
          expect(res.headers.get('x-request-id')).toBe(id);
          expect([200, 503]).toContain(res.status);
          answered.push(id);
          if (!before && signalled) answeredAcross += 1;
        } catch {
          return;
        }
      }
    };
    const clients = Array.from({ length: 16 }, client);
    while (answered.length < 100) await sleep(5);
    // A log collector that falls behind: stdout's pipe fills up, and the service's writes of its lines
    // wait for room (process.exit would cut off the one under way). Then the signal comes.
    server.child.stdout!.pause();
    while (answered.length < 1_500) await sleep(5);

    signalled = true;
    server.child.kill('SIGTERM');
    await sleep(50);
    for (const connection of inFlight) connection.write(body.slice(5));
    await sleep(450);
    server.child.stdout!.resume();
    const created = await Promise.all(inFlight.map(async (connection) => parseResponses((await connection.closed).text)));
    await Promise.all(clients);
    expect(await server.exited).toBe(0);

    expect(created.map((responses) => responses.map(({ status, headers }) => [status, headers['x-request-id']]))).toEqual(
      [0, 1, 2].map((i) => [[201, `in-flight-${i}`]]),
    );
    // The stream's requests were in flight too: sent before the signal, answered after it.
    expect(answeredAcross).toBeGreaterThan(0);
    const logged = loggedIds(server);
    expect(new Set(logged).size).toBe(logged.length);
    expect(logged.sort()).toEqual([...answered, 'in-flight-0', 'in-flight-1', 'in-flight-2'].sort());
  });

  it('has the reason on stdout when startup fails, before the process ends', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const { server } = await servers.start({ LOG_FORMAT: 'json', PORT: String((taken.address() as AddressInfo).port) });
      expect(await server.exited).toBe(1);
      const fatal = server.output().split('\n').filter((line) => line.includes('"level":60')).map((line) => JSON.parse(line));
      expect(fatal).toEqual([expect.objectContaining({ msg: 'startup failed', err: expect.objectContaining({ code: 'EADDRINUSE' }) })]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
