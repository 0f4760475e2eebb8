import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { ServerContext } from '../pipeline/context.js';

/** Something a client should know about its operation, that is no error: a deprecated field it selected. */
export interface GraphQLWarning {
  readonly code: string;
  readonly message: string;
  readonly [member: string]: unknown;
}

declare module '../pipeline/context.js' {
  interface ServerContext {
    /** What the operation's result tells the client in `extensions.warnings`. */
    warnings?: readonly GraphQLWarning[];
  }
}

/**
 * Puts the request's warnings in the result's `extensions.warnings`, beside whatever else it carries. A
 * subscription's events do not repeat them: its response's headers say it.
 */
export function useWarnings(): Plugin {
  return {
    onExecute({ args }) {
      const { warnings } = args.contextValue as Partial<ServerContext>;
      if (!warnings?.length) return undefined;
      return {
        onExecuteDone({ result, setResult }) {
          if (isAsyncIterable(result)) return;
          setResult(withWarnings(result, warnings));
        },
      };
    },
  };
}

/** The result with the request's warnings in `extensions.warnings` (the same result when there are none). */
export function withWarnings<T extends { extensions?: Record<string, unknown> }>(result: T, warnings: readonly GraphQLWarning[] | undefined): T {
  return warnings?.length ? { ...result, extensions: { ...result.extensions, warnings } } : result;
}
