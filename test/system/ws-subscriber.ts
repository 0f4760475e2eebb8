import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { sleep } from '../support/time.js';
import { sinceDone } from './clients.js';

const SUBSCRIPTION = 'subscription ($after: SafeInt) { petChanged(after: $after) { id kind pet { id name } } }';

/**
 * A subscriber as a frontend's GraphQLWsLink is one, through the load balancer: graphql-ws's client over
 * a WebSocket, subscribing to every pet's change; when its socket closes (an instance killed, drained,
 * Redis away) or the subscription fails, it subscribes again after a backoff with `after` set to the id
 * of the last event it was given (each event carries it), as docs/frontend.md shows. Otherwise as the
 * SSE subscriber (clients.ts): `seen` and `times` for the audit, quiet for 2 s after the load to end, and
 * `resume: false` for SYSTEM_BREAK=no-resume.
 */
export async function wsSubscriber(
  url: string, key: string, done: Promise<unknown>, seen: number[], times: number[], resume = true,
): Promise<{ reconnections: number }> {
  const since = sinceDone(done);
  let last: number | undefined;
  let reconnections = -1;
  let heardAt = Date.now();
  for (let backoff = 100; ; backoff = Math.min(backoff * 2, 5_000)) {
    if (since() > 30_000) return { reconnections };
    const client = createClient({
      url: `${url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true,
      connectionParams: { authorization: `Bearer ${key}` },
    });
    let heard = false;
    client.on('connected', () => { reconnections += 1; });
    const ended = new Promise<void>((resolve) => {
      client.subscribe<{ petChanged: { id: number } }>({ query: SUBSCRIPTION, variables: { after: resume ? last ?? null : null } }, {
        next: ({ data }) => {
          if (!data) return;
          last = data.petChanged.id;
          heardAt = Date.now();
          heard = true;
          seen.push(last);
          times.push(heardAt);
        },
        error: () => resolve(),
        complete: () => resolve(),
      });
    });
    // Read on until the load is done and the stream has been quiet for 2 s.
    for (;;) {
      const outcome = await Promise.race([ended.then(() => 'ended' as const), sleep(500).then(() => 'waiting' as const)]);
      if (outcome === 'ended') break;
      if (since() > 2_000 && Date.now() - heardAt > 2_000) {
        await client.dispose();
        return { reconnections };
      }
    }
    await client.dispose();
    // A stream that gave events comes back at once; a refused or dead one after a growing pause.
    if (heard) backoff = 50;
    else await sleep(backoff * (0.5 + Math.random()));
  }
}
