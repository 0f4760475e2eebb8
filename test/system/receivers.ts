import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { sleep } from '../support/time.js';

/** How a receiver answers: at once, after a while, or with 500s for a spell (a deploy of theirs gone wrong). */
export type Behaviour =
  | { readonly kind: 'prompt' }
  | { readonly kind: 'slow'; readonly ms: number }
  | { readonly kind: 'failing'; readonly from: number; readonly until: number };

/** One delivery as a receiver took it: a valid signature or not, which event, when. */
export interface Receipt {
  readonly webhookId: string;
  readonly eventId: number;
  readonly type: string;
  /** When the event was committed (its `occurredAt`), and when it arrived here (ms since the epoch). */
  readonly occurredAt: number;
  readonly at: number;
}

export interface Receiver {
  readonly name: string;
  readonly url: string;
  readonly types: readonly string[];
  /** Every delivery acknowledged with a 2xx, each attempt that reached it (a retry of one comes again). */
  readonly receipts: Receipt[];
  /** Deliveries whose signature did not verify: answered 400, and listed here for the auditor. */
  readonly forged: { webhookId: string; reason: string }[];
  /** Answered 5xx on purpose (its failing spell). */
  refused: number;
  /** Set once the endpoint is registered: the signing secret the service gave for it. */
  secret?: string;
  stop(): Promise<void>;
}

const body = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

/**
 * A webhook receiver as its owner would write one, on a loopback port of its own: it verifies every
 * delivery's signature with the `standardwebhooks` library before it trusts a byte of it, and answers
 * by its behaviour. `dropEvery` breaks it on purpose (SYSTEM_BREAK=webhook-ack): every n-th delivery is
 * acknowledged but not recorded, a receiver that loses what it acknowledged, which the auditor must catch.
 */
export async function receiver(name: string, types: readonly string[], behaviour: Behaviour, dropEvery = 0): Promise<Receiver> {
  let taken = 0;
  const self: Receiver = {
    name, url: '', types, receipts: [], forged: [], refused: 0,
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
  const server: Server = createServer((request, response) => {
    void (async () => {
      const text = await body(request);
      const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(request.headers[h] ?? '')]));
      const webhookId = headers['webhook-id']!;
      try {
        new Webhook(self.secret ?? '').verify(text, headers);
      } catch (error) {
        self.forged.push({ webhookId, reason: (error as Error).message });
        response.writeHead(400).end();
        return;
      }
      if (behaviour.kind === 'failing' && Date.now() >= behaviour.from && Date.now() < behaviour.until) {
        self.refused += 1;
        response.writeHead(500).end();
        return;
      }
      if (behaviour.kind === 'slow') await sleep(behaviour.ms);
      const { type, data } = JSON.parse(text) as { type: string; data: { id: number; occurredAt: string } };
      taken += 1;
      if (!(dropEvery > 0 && taken % dropEvery === 0)) {
        self.receipts.push({ webhookId, eventId: data.id, type, occurredAt: Date.parse(data.occurredAt), at: Date.now() });
      }
      response.writeHead(204).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(self, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/${name}` });
}

/** Registers `receiver` as an endpoint of the key, as its owner would: its secret is kept for verifying. */
export async function register(url: string, key: string, target: Receiver): Promise<void> {
  const answer = await fetch(`${url}/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: target.url, types: target.types }),
  });
  const created = await answer.json() as { secret?: string };
  if (answer.status !== 201 || !created.secret) throw new Error(`registering ${target.name}: ${answer.status} ${JSON.stringify(created)}`);
  target.secret = created.secret;
}
