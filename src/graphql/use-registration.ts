import type { ServerContext } from '../pipeline/context.js';
import type { Step } from '../pipeline/pipeline.js';
import type { RegisteredDocuments } from './registered-documents.js';

/**
 * Registers the automatic persisted queries a request sent with their text, once it may run (its key
 * known, counted, within its scopes), against its key's quota. Past the quota the operation still runs:
 * its result's `extensions.warnings` says its hash was not kept, so the client keeps sending the text.
 */
export function useRegistration(registered: RegisteredDocuments, keyOf: (serverContext: ServerContext) => number | undefined): Step {
  return {
    async onRequest({ serverContext }) {
      const { registrations } = serverContext;
      const keyId = keyOf(serverContext);
      if (!registrations || keyId === undefined) return;
      const outcomes = await Promise.all(registrations.map(({ hash, text }) => registered.register(hash, text, keyId)));
      const refused = registrations.filter((_, index) => outcomes[index] === 'over-quota');
      if (refused.length === 0) return;
      serverContext.warnings = [...serverContext.warnings ?? [], ...refused.map(({ hash }) => ({
        code: 'PERSISTED_QUERY_NOT_REGISTERED',
        message: `The document ${hash} was not registered: this key has registered as many documents as it may for now; it ran from its text`,
        sha256Hash: hash,
      }))];
    },
  };
}
