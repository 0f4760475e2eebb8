import type { Quota } from '../domain/quota.js';
import { builder } from './builder.js';
import { listSize } from './extensions.js';

const RateLimitWindow = builder.objectRef<Quota['windows'][number]>('RateLimitWindow').implement({
  description: 'One window of a plan, after the request that asked was counted.',
  fields: (t) => ({
    name: t.exposeString('name', { description: '`minute` or `day`: the policy name of the RateLimit fields.' }),
    limit: t.exposeInt('limit', { description: 'Points the window allows.' }),
    remaining: t.exposeInt('remaining', { description: 'Points left in it.' }),
    reset: t.expose('reset', { type: 'SafeInt', description: 'Unix time, in seconds, at which it resets.' }),
  }),
});

const RateLimitStatus = builder.objectRef<Quota>('RateLimit').implement({
  description: 'The calling key\'s plan and windows.',
  fields: (t) => ({
    plan: t.exposeString('plan', { description: '`free`, `pro`, `business` or `enterprise`.' }),
    windows: t.field({ type: [RateLimitWindow], description: 'Shortest first.', extensions: listSize({ assumedSize: 2 }), resolve: (quota) => [...quota.windows] }),
  }),
});

builder.queryField('rateLimit', (t) =>
  t.field({
    type: RateLimitStatus,
    description: 'Your key\'s plan and the state of its windows. Free: it costs no point, and answers even when the budget is spent.',
    resolve: (_root, _args, { quota }) => {
      const found = quota?.();
      // The request checks answer a request without a key before anything runs: this is a bug, not the client's.
      if (!found) throw new Error('The quota look-up ran without a counted key');
      return found;
    },
  }),
);

