import type { Step } from '../pipeline/pipeline.js';
import type { LimitsConfig } from '../config.js';
import { appError, renderError } from '../errors.js';
import type { ServerContext } from '../pipeline/context.js';
import type { Limits, Subject } from './limiters.js';

/**
 * Takes what every request that reaches it costs from its key's plan, or, without a valid key, from the
 * client's address (so 401s are limited too: guessing keys is slow). An operation that needs more
 * points than remain is refused whole. Every response carries the headers.
 */
export function useRateLimit(limits: Limits, config: LimitsConfig): Step {
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
    async onRequest({ serverContext, endResponse }) {
      // A request without a key is never executed: it costs one point, whatever it asks for.
      const cost = serverContext.caller?.kind === 'key' ? serverContext.cost : 1;
      const verdict = await limits.check(subjectOf(serverContext), cost);
      serverContext.rateLimitHeaders = verdict.headers;
      if (verdict.allowed) {
        serverContext.counted = { at: verdict.at, windows: verdict.windows };
        return;
      }
      serverContext.refusal = verdict.code;
      endResponse(renderError(appError(verdict.code, verdict.message), serverContext.route.surface));
    },
    onResponse({ serverContext, response }) {
      for (const [name, value] of Object.entries(serverContext.rateLimitHeaders ?? {})) response.headers.set(name, value);
    },
  };
}
