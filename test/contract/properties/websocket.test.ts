import fc from 'fast-check';
import { getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { STATUS, type ErrorCode } from '../../../src/errors.js';
import { deepJson, wire } from '../../support/arbitraries/deep.js';
import { graphqlBody } from '../../support/arbitraries/graphql.js';
import { FUZZ_RUNS, fuzzParameters } from '../../support/fuzz.js';
import { fuzzTarget } from '../../support/fuzz-target.js';
import { rawSocket } from '../../support/websocket.js';

const target = fuzzTarget();

/** The close codes a socket may end with here: ours (the test's), and the protocol's answers to bad messages. */
const EXPECTED_CLOSES = new Set([1000, 1005, 1008, 1009, 4400, 4401, 4409, 4429]);

/** The message starts an operation that is answered at once: a subscribe that is no subscription (a refused or malformed one is answered at once too). */
function awaitsAnswer(sent: unknown): boolean {
  if (typeof sent !== 'object' || sent === null || (sent as { type?: unknown }).type !== 'subscribe') return false;
  const payload = (sent as { payload?: { query?: unknown; operationName?: unknown } }).payload;
  if (typeof payload?.query !== 'string') return true;
  try {
    const name = typeof payload.operationName === 'string' ? payload.operationName : undefined;
    return getOperationAST(parse(payload.query), name)?.operation !== 'subscription';
  } catch {
    return true;
  }
}

const checkErrors = (errors: unknown, context: string) => {
  expect(Array.isArray(errors), context).toBe(true);
  for (const error of errors as { message?: unknown; extensions?: { code?: string; status?: number } }[]) {
    expect(typeof error.message, context).toBe('string');
    const code = error.extensions?.code as ErrorCode;
    expect(Object.hasOwn(STATUS, code), context).toBe(true);
    expect(error.extensions?.status, context).toBe(STATUS[code]);
  }
};

/**
 * Any operation, and any message, over a WebSocket: a socket of its own per case (a case sends at most
 * three messages, far below the flood limit), its key checked at connection_init. Every answer is the
 * protocol's (`next` then `complete`, or `error`), every error one of our codes with its status; the
 * socket never closes for a failure of ours (4500, 1011) nor drops (1006); a pet is written only when
 * one is returned. A quarter of FUZZ_RUNS: each case opens a socket.
 */
describe('GraphQL over WebSocket, any message (property)', () => {
  it('answers each by the protocol, with our codes, never failing itself, and writes a pet only when one is returned', async () => {
    const message = fc.oneof(
      { weight: 8, arbitrary: graphqlBody.map((payload) => ({ id: 'op', type: 'subscribe', payload })) },
      { weight: 1, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
      { weight: 1, arbitrary: fc.record({ id: fc.oneof(fc.constant('op'), fc.string()), type: fc.constantFrom('subscribe', 'complete', 'ping', 'pong', 'next', 'connection_init', 'nope'), payload: fc.oneof(fc.jsonValue(), deepJson) }) },
    );
    await fc.assert(fc.asyncProperty(message, async (sent) => {
      const before = await target.pets.count();
      const raw = await rawSocket(target.api.url);
      raw.send({ type: 'connection_init', payload: { authorization: `Bearer ${target.key}` } });
      await raw.receive((m) => m.type === 'connection_ack');
      // Deep values written in whole (graphqlBody and the payloads hold them): too deep for JSON.stringify.
      raw.send(typeof sent === 'string' ? sent : wire(sent));
      const context = `${JSON.stringify(sent).slice(0, 2_000)} → ${JSON.stringify(raw.messages).slice(0, 500)}`;
      // An answer to the operation, or the socket closed by the protocol. A query or mutation is waited for;
      // a subscription that streams answers nothing until an event comes, and a message that is no
      // operation (ping, pong, complete) nothing with its id: after a moment, they are completed by us.
      const settled = await Promise.race([
        raw.closes.then((closed) => ({ closed })),
        raw.receive((m) => m.id === 'op' && (m.type === 'complete' || m.type === 'error'), awaitsAnswer(sent) ? 5_000 : 300)
          .then(() => ({ answered: true }), () => ({ waiting: true })),
      ]);
      if ('waiting' in settled && raw.socket.readyState === raw.socket.OPEN) raw.send({ id: 'op', type: 'complete' });
      raw.socket.close(1000);
      const closed = await raw.closes;
      expect(EXPECTED_CLOSES.has(closed.code), `${context} closed ${closed.code} ${closed.reason}`).toBe(true);
      let created = 0;
      for (const m of raw.messages.filter((m) => m.id === 'op')) {
        if (m.type === 'error') checkErrors(m.payload, context);
        if (m.type === 'next' && m.payload.errors) checkErrors(m.payload.errors, context);
        if (m.type === 'next' && m.payload.data?.createPet) created += 1;
        if (m.type === 'next' && m.payload.data?.deletePet) created -= 1;
      }
      expect(await target.pets.count(), context).toBe(before + created);
    }), { ...fuzzParameters, numRuns: Math.max(50, Math.ceil(FUZZ_RUNS / 4)) });
  }, 600_000);

  it('then answers a valid operation over a new socket', async () => {
    const raw = await rawSocket(target.api.url);
    raw.send({ type: 'connection_init', payload: { authorization: `Bearer ${target.key}` } });
    await raw.receive((m) => m.type === 'connection_ack');
    raw.send({ id: '1', type: 'subscribe', payload: { query: '{ rateLimit { plan } }' } });
    expect((await raw.receive((m) => m.id === '1' && m.type === 'next')).payload).toEqual({ data: { rateLimit: { plan: 'enterprise' } } });
    raw.socket.close(1000);
  });
});
