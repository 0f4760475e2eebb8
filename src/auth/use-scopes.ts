import type { Scope } from '../domain/scopes.js';
import { appError } from '../errors.js';
import type { ServerContext } from '../pipeline/context.js';
import type { Step } from '../pipeline/pipeline.js';
import type { FieldUse } from '../schema/requirements.js';

declare module '../pipeline/context.js' {
  interface ServerContext {
    /** What the call selects: the scopes it needs and the deprecated fields it uses (set once it may run). */
    fieldUse?: FieldUse;
  }
}

const listed = (scopes: readonly string[]) =>
  scopes.length === 1 ? scopes[0]! : `${scopes.slice(0, -1).join(', ')} and ${scopes.at(-1)!}`;

/**
 * A restricted key calls only what its scopes allow: a call that needs another is refused whole, 403
 * FORBIDDEN naming each missing scope and a field that needs it, before anything runs. It runs once the
 * request is counted (a refusal costs its points like any call) and its other problems answered.
 */
export function useScopes(useOf: (serverContext: ServerContext) => FieldUse | undefined): Step {
  return {
    onRequest({ request, serverContext }) {
      const use = useOf(serverContext);
      if (!use) return;
      serverContext.fieldUse = use;
      const { caller } = serverContext;
      const granted = caller?.kind === 'key' ? caller.key.scopes : undefined;
      if (!granted) return;
      const missing = [...use.scopes].filter(([scope]) => !granted.has(scope));
      if (missing.length === 0) return;
      const what = serverContext.graphql
        ? `select ${listed([...new Set(missing.map(([, field]) => field))])}`
        : `call ${request.method} ${serverContext.route.label}`;
      const has = granted.size > 0 ? [...granted].join(', ') : 'none';
      const scopes = missing.map(([scope]) => scope as Scope);
      throw appError('FORBIDDEN', `This key may not ${what}: it needs the ${listed(scopes)} scope${scopes.length > 1 ? 's' : ''} (it has ${has})`);
    },
  };
}
