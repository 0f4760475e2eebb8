/**
 * The little of oidc-provider (which ships no types) that test/support/oidc-issuer.ts uses: a Koa
 * application whose request handler a node http server calls.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly issuer: string;
    /** Koa's: errors the provider handled itself are not printed again when set. */
    silent: boolean;
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
  }

  /** The OAuth errors it answers with, e.g. `invalid_target` for a resource it does not serve. */
  export const errors: { InvalidTarget: new (description?: string) => Error };
}
