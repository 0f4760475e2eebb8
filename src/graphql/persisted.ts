import { appError } from '../errors.js';
import type { DocumentMode } from '../settings/declarations.js';
import { documentKey, persistedQueryHash, sha256Hex } from './document-ids.js';
import type { Manifest } from './manifest.js';
import type { PreparedDocument } from './operation-checker.js';
import type { GraphQLParams, SentParams } from './params.js';
import type { RegisteredDocuments } from './registered-documents.js';

/** Which documents a caller may run: any text (and automatic persisted queries), or only the manifest's. */
export type { DocumentMode } from '../settings/declarations.js';

/** An operation's document, found: its text for yoga, prepared when the manifest has it, and what to register. */
export interface ResolvedParams {
  readonly params: GraphQLParams;
  readonly prepared?: PreparedDocument;
  /** Text sent with its hash, to be registered once the request may run (automatic persisted queries). */
  readonly register?: { readonly hash: string; readonly text: string };
}

/** Apollo's and urql's persisted-query links send the text when they read this message or this code. */
const notFound = (what: string) => appError('PERSISTED_QUERY_NOT_FOUND', what);

const required = () => appError('PERSISTED_DOCUMENT_REQUIRED',
  'This key runs only the trusted documents: send a document of the manifest by "documentId" (or its hash), not a document of your own');

/**
 * Finds the document each operation names. A `documentId` names a manifest document (or, for a caller that
 * may send any, an automatic persisted query by its SHA-256); `extensions.persistedQuery` names one by its
 * SHA-256, and with the text registers it; text alone runs as text. A caller held to `registered` runs the
 * manifest's documents only, by id, hash or the same text.
 */
export function documentResolver(manifest: Manifest, registered: RegisteredDocuments) {
  // Only a look-up of an automatic persisted query waits (on Redis): every other operation resolves at once.
  return ({ query, documentId, ...rest }: SentParams, mode: DocumentMode): ResolvedParams | Promise<ResolvedParams> => {
    const run = (text: string, prepared?: PreparedDocument): ResolvedParams => ({ params: { ...rest, query: text }, ...(prepared ? { prepared } : {}) });
    const lookUp = (hash: string, missing: () => never) =>
      (mode === 'any' ? registered.find(hash).then((text) => (text !== undefined ? run(text) : missing())) : missing());
    if (documentId !== undefined) {
      const key = documentKey(documentId);
      if (query !== undefined) throw appError('BAD_REQUEST', 'Send "query" or "documentId", not both');
      const prepared = manifest.get(key);
      if (prepared) return run(prepared.text, prepared);
      return lookUp(key, () => {
        throw notFound(`No document "${documentId as string}" is registered: send its text in "query"${mode === 'any' ? '' : ' (this key runs only the trusted documents)'}`);
      });
    }
    const hash = persistedQueryHash(rest.extensions);
    if (hash !== undefined) {
      const prepared = manifest.get(hash);
      if (query === undefined) {
        if (prepared) return run(prepared.text, prepared);
        return lookUp(hash, () => { throw notFound('PersistedQueryNotFound'); });
      }
      const actual = sha256Hex(query);
      if (actual !== hash) {
        throw appError('BAD_REQUEST', `"extensions.persistedQuery.sha256Hash" is ${hash}, but the SHA-256 of "query" is ${actual}: hash the exact text sent`);
      }
      if (prepared) return run(prepared.text, prepared);
      if (mode === 'registered') throw required();
      return { ...run(query), register: { hash, text: query } };
    }
    if (query === undefined) throw appError('BAD_REQUEST', 'Send the operation as a non-empty string in "query", or a registered document by "documentId"');
    if (mode === 'any') return run(query);
    const prepared = manifest.get(sha256Hex(query));
    if (prepared) return run(prepared.text, prepared);
    throw required();
  };
}

export type DocumentResolver = ReturnType<typeof documentResolver>;
