import { describe, expect, it } from 'vitest';
import { createResponseCache } from '../../src/cache/response-cache.js';
import { useResponseCache } from '../../src/cache/use-response-cache.js';
import type { ServerContext } from '../../src/pipeline/context.js';

/**
 * An answer made for one caller (its resolvers asked who the caller is) is a hit for that caller only:
 * another caller under the same cache key, the same scopes, runs its read. Two callers, one entry.
 */
describe('an answer kept for one caller', () => {
  const cache = createResponseCache(100_000);
  const step = useResponseCache({
    cache,
    keyOf: () => 'G  * R /v1/thing',
    catchUp: () => undefined,
    bypass: () => undefined,
    readFresh: () => undefined,
    wroteHere: () => undefined,
    expiresAt: () => undefined,
    varyOf: () => 'Authorization',
    served: () => undefined,
    counted: () => undefined,
  });
  cache.store('G  * R /v1/thing', { status: 200, headers: [], body: new Uint8Array(2), etag: '"t"', caller: 'key 1' }, [], cache.mark());

  const ask = async (keyId: number) => {
    const serverContext = { caller: { kind: 'key', key: { id: keyId } } } as unknown as ServerContext;
    let answered: Response | undefined;
    await step.onRequest!({
      request: new Request('http://localhost/v1/thing'), url: new URL('http://localhost/v1/thing'), serverContext,
      endResponse(response) { answered = response; },
    });
    return { answered, outcome: serverContext.cached?.outcome };
  };

  it('goes to that caller', async () => {
    const { answered, outcome } = await ask(1);
    expect(outcome).toBe('hit');
    expect(answered?.status).toBe(200);
  });

  it('is a miss for another caller of the same key and scopes', async () => {
    const { answered, outcome } = await ask(2);
    expect(outcome).toBe('miss');
    expect(answered).toBeUndefined();
  });
});
