import { GraphQLError, type DocumentNode } from 'graphql';
import type { SocketResult } from '../graphql/socket-results.js';
import type { ServerContext } from '../pipeline/context.js';
import type { Handler } from '../pipeline/pipeline.js';

/** Where a socket's operations come from: what the pipeline reads of a request's origin. */
export interface Peer {
  readonly authorization: string;
  readonly remoteAddress: string | undefined;
  /** The upgrade request's X-Forwarded-For, read as TRUST_PROXY says, as on any request. */
  readonly forwardedFor: string | undefined;
}

/** What the pipeline made of one Subscribe message: a refusal, or yoga's result for its document. */
export type Outcome =
  | { readonly errors: readonly GraphQLError[] }
  | { readonly document: DocumentNode; readonly operationName?: string; readonly result: SocketResult };

/** Only /graphql's POST is reached: the router, the body's media type and the request checks see that. */
const OPERATION_URL = 'http://websocket/graphql';

/**
 * Runs a Subscribe message's payload as the POST /graphql it stands for, through the whole pipeline: the
 * key checked again (a revoked key is refused), the operation limits, points, scopes, deprecations,
 * stream slots, Idempotency-Key records, the access log and the metrics are the ones every request goes
 * through. `signal` ends the operation's stream (and gives back its slot) when the socket is done with it.
 */
export async function runOperation(run: Handler, peer: Peer, payload: unknown, signal: AbortSignal): Promise<Outcome> {
  const headers: Record<string, string> = {
    authorization: peer.authorization,
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json',
  };
  if (peer.forwardedFor) headers['x-forwarded-for'] = peer.forwardedFor;
  const request = new Request(OPERATION_URL, { method: 'POST', headers, body: JSON.stringify(payload), signal });
  const slot: { value?: SocketResult } = {};
  const serverContext = { via: { transport: 'websocket', remoteAddress: peer.remoteAddress }, socketResult: slot } as ServerContext;
  const response = await run(request, serverContext);
  const { value } = slot;
  // A Subscribe message carries one operation (graphql-ws refuses an array): never a batch.
  const [operation] = serverContext.graphql?.operations ?? [];
  const document = operation?.document;
  if (value === undefined || !document) return { errors: await refusalOf(response) };
  if (!(Symbol.asyncIterator in value) && value.data == null && value.errors?.length) {
    // A request error (a document yoga refused, a subscription refused as it starts): the protocol's `error`.
    if (!('data' in value) || value.data === undefined) return { errors: value.errors };
  }
  const { operationName } = operation!.params;
  return { document, result: value, ...(operationName ? { operationName } : {}) };
}

/** A refusal the pipeline answered before yoga ran (401, 429, an operation limit...), its errors as it rendered them. */
async function refusalOf(response: Response): Promise<GraphQLError[]> {
  const body = await response.text();
  try {
    const { errors } = JSON.parse(body) as { errors?: { message: string; extensions?: Record<string, unknown> }[] };
    if (Array.isArray(errors) && errors.length > 0) return errors.map(({ message, extensions }) => new GraphQLError(message, { extensions }));
  } catch { /* not the GraphQL error shape: below */ }
  return [new GraphQLError('Internal error', { extensions: { code: 'INTERNAL', status: 500 } })];
}
