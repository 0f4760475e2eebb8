import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { Attempt } from '../db/webhook-rows.js';
import { addressOf, refusedAddress, safeLookup } from './targets.js';

/** Of a receiver's answer, only this much is read: enough for a status page's message, never a flood. */
const RESPONSE_BYTES = 4_096;

export interface SendOptions {
  /** The receiver has this long to answer with a 2xx; later is a failure, and the connection is cut. */
  readonly timeoutMs: number;
  /** Private, loopback and link-local targets allowed (tests, a private network). */
  readonly allowPrivate: boolean;
}

/**
 * One attempt: the body POSTed to the endpoint, signed as Standard Webhooks says (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`, made by its library), redirects not followed, the answer
 * read up to RESPONSE_BYTES. The `webhook-id` is the delivery's, the same on every attempt: a receiver
 * de-duplicates by it.
 */
export function send(target: { url: string; secret: string }, delivery: { id: number; payload: string }, options: SendOptions): Promise<Attempt> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  const url = new URL(target.url);
  const literal = addressOf(url.hostname);
  const refused = literal && !options.allowPrivate ? refusedAddress(literal) : undefined;
  if (refused) return Promise.resolve({ statusCode: null, error: `refused: ${url.hostname} is ${refused}`, durationMs: 0 });

  const id = `msg_${delivery.id}`;
  const now = new Date();
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'animal-store-webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(target.secret).sign(id, now, delivery.payload),
    'content-length': String(Buffer.byteLength(delivery.payload)),
  };
  return new Promise<Attempt>((resolve) => {
    let settled = false;
    const finish = (attempt: Omit<Attempt, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...attempt, durationMs: took() });
    };
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'POST', headers, ...(options.allowPrivate ? {} : { lookup: safeLookup }),
    }, (response) => {
      const statusCode = response.statusCode ?? null;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= RESPONSE_BYTES) response.destroy();
      });
      const done = () => finish({ statusCode, error: statusCode !== null && statusCode >= 200 && statusCode < 300 ? null : `answered ${statusCode}` });
      response.once('end', done);
      response.once('close', done);
    });
    const timer = setTimeout(() => {
      finish({ statusCode: null, error: `no answer within ${options.timeoutMs} ms` });
      request.destroy();
    }, options.timeoutMs);
    request.once('error', (error: NodeJS.ErrnoException) => finish({ statusCode: null, error: `${error.code === 'EREFUSEDADDRESS' ? 'refused' : 'could not connect'}: ${error.message}` }));
    request.end(delivery.payload);
  });
}
