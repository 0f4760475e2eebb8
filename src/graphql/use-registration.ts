import type { ServerContext } from '../pipeline/context.js';
import type { Step } from '../pipeline/pipeline.js';
import { MAX_REGISTERED_LENGTH, type RegisteredDocuments, type Registration } from './registered-documents.js';

const WHY: Partial<Record<Registration, string>> = {
  'over-quota': 'this key has registered as many documents as it may for now',
  'too-large': `it is longer than ${MAX_REGISTERED_LENGTH.toLocaleString('en-US')} characters`,
};

/**
 * Registers the automatic persisted queries a request sent with their text, once it may run (its key
 * known, counted, within its scopes), against its key's quota. Past the quota the operation still runs:
 * its result's `extensions.warnings` says its hash was not kept, so the client keeps sending the text
 * (so too for a document too long to keep).
 */
export function useRegistration(registered: RegisteredDocuments, keyOf: (serverContext: ServerContext) => number | undefined): Step {
  return {
    async onRequest({ serverContext }) {
      const { registrations } = serverContext;
      const keyId = keyOf(serverContext);
      if (!registrations || keyId === undefined) return;
      const outcomes = await Promise.all(registrations.map(({ hash, text }) => registered.register(hash, text, keyId)));
      const refused = registrations.flatMap(({ hash }, index) => {
        const why = WHY[outcomes[index]!];
        return why ? [{ code: 'PERSISTED_QUERY_NOT_REGISTERED', message: `The document ${hash} was not registered: ${why}; it ran from its text`, sha256Hash: hash }] : [];
      });
      if (refused.length > 0) serverContext.warnings = [...serverContext.warnings ?? [], ...refused];
    },
  };
}
