import type { ServerAdapterPlugin } from '@whatwg-node/server';
import type { LimitsConfig } from '../config.js';
import { appError, renderError } from '../errors.js';
import type { ServerContext } from '../http/server-context.js';
import { surfaceOf } from '../http/surface.js';
import type { Limits, Subject } from './limiters.js';

/**
 * Counts every request that reaches it against its key's plan, or, without a valid key, against the
 * client's address (so 401s are limited too: guessing keys is slow). Every response carries the headers.
 */
export function useRateLimit(limits: Limits, config: LimitsConfig): ServerAdapterPlugin<ServerContext> {
  const subjectOf = ({ caller, address }: ServerContext): Subject => (caller?.kind === 'key'
    ? {
      id: `key:${caller.key.id}`,
      bannable: true,
      windows: [
        { name: 'minute', limit: caller.key.perMinute, duration: config.windows.minute },
        { name: 'day', limit: caller.key.perDay, duration: config.windows.day },
      ],
    }
    : {
      id: `address:${address}`,
      bannable: false,
      windows: [{ name: 'minute', limit: config.anonymousPerMinute, duration: config.windows.minute }],
    });

  return {
    async onRequest({ url, serverContext, endResponse }) {
      const verdict = await limits.check(subjectOf(serverContext));
      serverContext.rateLimitHeaders = verdict.headers;
      if (verdict.allowed) return;
      serverContext.refusal = verdict.code;
      endResponse(renderError(appError(verdict.code, verdict.message), surfaceOf(url)));
    },
    onResponse({ serverContext, response }) {
      for (const [name, value] of Object.entries(serverContext.rateLimitHeaders ?? {})) response.headers.set(name, value);
    },
  };
}
