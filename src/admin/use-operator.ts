import { createHash } from 'node:crypto';
import { bearerToken } from '../auth/keys.js';
import { appError } from '../errors.js';
import { clientAddress } from '../pipeline/client-address.js';
import type { Step } from '../pipeline/pipeline.js';

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * The admin API's one way in: `Authorization: Bearer <operator token>` (ADMIN_TOKENS), never an API key.
 * Tokens are compared by their SHA-256, so how long a comparison takes says nothing of a token.
 */
export function useOperator(operators: ReadonlyMap<string, string>, trustProxyHops: number): Step {
  const byDigest = new Map([...operators].map(([token, name]) => [digest(token), name]));
  return {
    onRequest({ request, serverContext }) {
      serverContext.address = clientAddress((serverContext.req?.socket ?? serverContext.via)?.remoteAddress, request, trustProxyHops);
      const token = bearerToken(request.headers.get('authorization'));
      const name = token === undefined ? undefined : byDigest.get(digest(token));
      if (name === undefined) {
        throw appError('UNAUTHENTICATED', token === undefined
          ? 'The admin API needs "Authorization: Bearer <operator token>" (ADMIN_TOKENS); API keys are not taken here'
          : 'The operator token is not one of ADMIN_TOKENS', { headers: { 'WWW-Authenticate': 'Bearer realm="admin"' } });
      }
      serverContext.operator = name;
    },
  };
}
