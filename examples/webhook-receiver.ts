/**
 * A webhook receiver: verifies each request's signature with the Standard Webhooks library (any of its
 * implementations does the same), answers 2xx at once, and de-duplicates by `webhook-id` (delivery is at
 * least once). Run it: WEBHOOK_SECRET=whsec_… PORT=4000 node --import tsx examples/webhook-receiver.ts
 * then point an endpoint at it (a public https URL in production; a tunnel, or the service with
 * WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE_TARGETS, while developing).
 */
import { createServer, type Server } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export interface ReceivedEvent {
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
}

/** A receiver on `port` (0: any free one) that hands each verified, new event to `handle`. */
export function startReceiver(secret: string, port: number, handle: (event: ReceivedEvent) => void): Promise<Server> {
  const webhook = new Webhook(secret);
  // Ids seen: a real receiver keeps them in its database, beside what the event changed.
  const seen = new Set<string>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let payload: { type: string; data: unknown };
      try {
        // Checks the signature over id, timestamp and body, and that the timestamp is within 5 minutes.
        payload = webhook.verify(body, request.headers as Record<string, string>) as typeof payload;
      } catch (error) {
        response.writeHead(error instanceof WebhookVerificationError ? 400 : 500).end();
        return;
      }
      const id = String(request.headers['webhook-id']);
      // Acknowledge first, work after: the sender waits at most 10 s, and retries what it thinks failed.
      response.writeHead(204).end();
      if (seen.has(id)) return;
      seen.add(id);
      handle({ id, type: payload.type, data: payload.data });
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error('WEBHOOK_SECRET is not set: use the secret createWebhookEndpoint answered with.');
    process.exit(2);
  }
  void startReceiver(secret, Number(process.env.PORT ?? 4000), (event) => console.log(JSON.stringify(event)))
    .then((server) => console.error(`listening on ${JSON.stringify(server.address())}`));
}
