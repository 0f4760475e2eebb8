import { hash } from 'node:crypto';
import type { SecretHome, SecretReader, ShowsSecret } from '../domain/secrets.js';
import { appError, type AppError } from '../errors.js';
import { log } from '../log.js';
import type { ServerContext } from '../pipeline/context.js';
import type { Step } from '../pipeline/pipeline.js';
import { Response } from '../pipeline/response.js';
import type { IdempotencyRecords, StoredResponse } from './records.js';
import { restore, withhold } from './withheld.js';

declare module '../pipeline/context.js' {
  interface ServerContext {
    /**
     * The Idempotency-Key this request claimed: its response is kept, or the claim released. `shown`
     * are the secrets the response shows once, which the kept response leaves out.
     */
    idempotency?: {
      readonly id: string; readonly fingerprint: string; readonly shown: { secret: string; home: SecretHome }[];
      /** Renews the claim while the request runs. */
      readonly renewing: NodeJS.Timeout;
    };
  }
}

/** IETF httpapi Idempotency-Key draft: a key is a string; ours are 1 to 255 visible ASCII characters. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** What a replay gives back besides the status and body. */
const KEPT_HEADERS = ['content-type', 'location'];

const sha256 = (text: string) => hash('sha256', text, 'hex');

/** REST routes that create take a key; on /graphql, every mutation does. */
const takesKey = ({ endpoint, graphql }: ServerContext) => Boolean(endpoint?.takesIdempotencyKey || graphql?.kind === 'mutation');

/**
 * A key names one write to retry safely; a batch's answer is several, and one of them may fail while the
 * others committed, so a batch with a mutation is refused with a key rather than half-replayed.
 */
const batchRefusal = () => appError('BAD_REQUEST',
  'Idempotency-Key applies to one operation: send each mutation that needs it in a request of its own, not in a batch');

/** A GraphQL answer with errors is a failure too, though its status may be 200. */
const failed = (status: number, body: string, { graphql }: ServerContext) => {
  if (status >= 400) return true;
  if (!graphql) return false;
  try { return Boolean((JSON.parse(body) as { errors?: unknown[] }).errors?.length); } catch { return true; }
};

/** What a resolver tells of a secret its response shows once, while this request holds a key; else nothing. */
export function secretsShownIn(serverContext: ServerContext): ShowsSecret | undefined {
  const held = serverContext.idempotency;
  return held && ((secret, home) => { held.shown.push({ secret, home }); });
}

/** The first response again; its secrets read back from their homes (a deleted endpoint's is gone: 409). */
async function replay({ status, body, headers, withheld }: StoredResponse, readSecret: SecretReader): Promise<Response> {
  let whole = body;
  if (withheld?.length) {
    const restored = await restore(body, withheld, readSecret);
    if ('gone' in restored) {
      throw appError('CONFLICT', `The webhook endpoint this Idempotency-Key created (${restored.gone.id}) has been deleted since, and its secret with it: `
        + 'the first answer cannot be given again; use a new key for a new request');
    }
    whole = restored.body;
  }
  return new Response(whole, { status, headers: { ...headers, 'Idempotent-Replayed': 'true' } });
}

/**
 * Safe retries. The first request with an Idempotency-Key claims it (per API key, shared by every
 * instance) and runs; its successful response is kept for 24 h and given again, with
 * `Idempotent-Replayed: true`, to a retry with the same key and body, which creates nothing. The same key
 * with another body is 422; a retry while the first still runs is 409. An error is not kept: the claim
 * is released, and the request may be tried again; each write it made is fenced (db/fence.ts), so a
 * retry never writes again what a try committed unanswered. Runs after the request was counted and checked.
 * A secret the response shows once (a webhook's signing secret) is not kept with it: a replay reads it
 * from where it lives (`readSecret`), so that it is at rest there only.
 */
/** What became of a request with an Idempotency-Key (the metrics). */
export type IdempotencyOutcome = 'first' | 'replayed' | 'reused' | 'in_progress';

export function useIdempotency(
  records: IdempotencyRecords, readSecret: SecretReader, longestRequestMs: number, counted: (outcome: IdempotencyOutcome) => void = () => undefined,
): Step {
  const unavailable = (error: unknown): AppError => {
    log.warn({ err: error }, 'idempotency records unreachable');
    return appError('UNAVAILABLE', 'Idempotency-Key cannot be honoured right now; retry shortly');
  };
  // A request longer than the claim's lease keeps it; one whose instance died frees it within the lease.
  // Never past the longest a request may run: a claim whose request somehow never ended still lapses.
  const renewing = (id: string) => {
    const every = (records.runningSeconds * 1000) / 3;
    let left = Math.ceil(longestRequestMs / every);
    const timer = setInterval(() => {
      if (--left < 0) return clearInterval(timer);
      records.renew(id).catch((error: unknown) => log.warn({ err: error }, 'an idempotency claim could not be renewed'));
    }, every);
    timer.unref();
    return timer;
  };
  return {
    onRequest({ request, url, serverContext, endResponse }) {
      const given = request.headers.get('idempotency-key');
      const { caller } = serverContext;
      if (given === null || caller?.kind !== 'key' || !takesKey(serverContext)) return undefined;
      if (!KEY.test(given)) throw appError('BAD_REQUEST', 'Idempotency-Key must be 1 to 255 visible ASCII characters');
      if (serverContext.graphql?.batch) throw batchRefusal();
      const id = sha256(`${caller.key.id}\n${given}`);
      const fingerprint = sha256(JSON.stringify([request.method, url.pathname, serverContext.graphql?.params ?? serverContext.body]));
      return records.claim(id, fingerprint).then((claim) => {
        if (claim.claimed) {
          counted('first');
          serverContext.idempotency = { id, fingerprint, shown: [], renewing: renewing(id) };
        } else if (claim.fingerprint !== fingerprint) {
          counted('reused');
          throw appError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with another request; use a new key for a new request');
        } else if (!claim.response) {
          counted('in_progress');
          throw appError('IDEMPOTENCY_IN_PROGRESS', 'The first request with this Idempotency-Key is still running; retry shortly', {
            headers: { 'Retry-After': '1' },
          });
        } else {
          counted('replayed');
          return replay(claim.response, readSecret).then(endResponse);
        }
        return undefined;
      }, (error: unknown) => { throw unavailable(error); });
    },
    async onResponse({ response, serverContext }) {
      const held = serverContext.idempotency;
      if (!held) return;
      clearInterval(held.renewing);
      serverContext.idempotency = undefined;
      const body = await response.clone().text();
      try {
        if (failed(response.status, body, serverContext)) await records.release(held.id);
        else {
          const headers = Object.fromEntries(KEPT_HEADERS.flatMap((name) => {
            const value = response.headers.get(name);
            return value === null ? [] : [[name, value]];
          }));
          const kept = withhold(body, held.shown);
          await records.complete(held.id, held.fingerprint, {
            status: response.status, body: kept.body, headers, ...(kept.withheld.length > 0 ? { withheld: kept.withheld } : {}),
          });
        }
      } catch (error) {
        // The response stands; a retry then finds the claim until it expires (RUNNING_SECONDS), then its fence.
        log.warn({ err: error, requestId: serverContext.requestId }, 'an idempotency record could not be written');
      }
    },
  };
}
