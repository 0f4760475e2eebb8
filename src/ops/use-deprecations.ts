import type { Counter } from 'prom-client';
import type { GraphQLWarning } from '../graphql/warnings.js';
import type { Step } from '../pipeline/pipeline.js';
import { lifecycleHeaders } from '../schema/extensions.js';
import type { DeprecatedUse } from '../schema/requirements.js';
import type { DeprecatedCallLog } from './deprecated-calls.js';

const warningOf = ({ field, reason, lifecycle }: DeprecatedUse): GraphQLWarning => ({
  code: 'DEPRECATED_FIELD', message: `${field} is deprecated and will be removed on ${lifecycle.sunsetAt.slice(0, 10)}: ${reason}`,
  field, sunset: lifecycle.sunsetAt,
});

/**
 * Every call that uses a deprecated field, once it may run, is counted (the metric, by field; the key's
 * record, which `keys list` shows), so operators can reach its clients before the
 * field goes. A GraphQL operation is told as a REST call is: Deprecation and Sunset headers (the field
 * that goes first), and a warning per field in `extensions.warnings`. A REST route sets its own headers.
 */
export function useDeprecations(calls: DeprecatedCallLog, counter: Counter<'field'>): Step {
  return {
    onRequest({ serverContext }) {
      const deprecated = serverContext.fieldUse?.deprecated;
      if (!deprecated?.length || serverContext.caller?.kind !== 'key') return;
      const keyId = serverContext.caller.key.id;
      for (const { field } of deprecated) counter.inc({ field });
      // A token's subject has no key record to count on.
      if (!serverContext.caller.key.viaToken) calls.record(keyId);
      if (serverContext.graphql) serverContext.warnings = deprecated.map(warningOf);
    },
    onResponse({ serverContext, response }) {
      const first = serverContext.fieldUse?.firstSunset;
      if (!serverContext.graphql || !first) return;
      for (const [name, value] of lifecycleHeaders(first)) response.headers.set(name, value);
    },
  };
}
