import { readFileSync } from 'node:fs';
import { log } from '../log.js';
import { isSha256, manifestKey, sha256Hex } from './document-ids.js';
import { DocumentProblem, type PreparedDocument } from './operation-checker.js';

/**
 * Trusted documents: the manifest a client's build writes, `{"<id>": "<document>"}` (GraphQL Codegen's
 * client preset `persisted-documents.json`, the Relay compiler's `persisted_queries.json`), each document
 * prepared once, when the manifest is read.
 */
export interface Manifest {
  /** By the manifest's id, or by the SHA-256 of the document's text. */
  get(key: string): PreparedDocument | undefined;
  /** Reads the file again; a bad one is logged and the documents already read are kept. */
  reload(): boolean;
}

/**
 * Every problem of a manifest at once, so an operator fixes them in one go: not JSON, not a map of
 * strings, an id no request could send, a SHA-256 id that is not its document's, a document that does
 * not parse, validate or keep within the operation limits.
 */
export function readManifest(file: string, prepare: (text: string) => PreparedDocument): Map<string, PreparedDocument> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`PERSISTED_DOCUMENTS_FILE ${file}: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`PERSISTED_DOCUMENTS_FILE ${file}: must be a JSON object of document ids to documents, {"<id>": "<document>"}`);
  }
  const documents = new Map<string, PreparedDocument>();
  const problems: string[] = [];
  for (const [id, text] of Object.entries(parsed)) {
    const key = manifestKey(id);
    if (key === undefined) problems.push(`"${id.slice(0, 80)}": not a document id (1 to 128 letters, digits, "_", "-" or ".", or "sha256:<hex>")`);
    else if (typeof text !== 'string') problems.push(`"${id}": the document must be a string`);
    else if (isSha256(key) && sha256Hex(text) !== key) problems.push(`"${id}": the document's SHA-256 is ${sha256Hex(text)}`);
    else {
      try {
        const prepared = prepare(text);
        documents.set(key, prepared);
        // Found by its SHA-256 too, whatever its compiler hashed with: the text, or Apollo's hash, names it.
        documents.set(sha256Hex(text), prepared);
      } catch (error) {
        if (!(error instanceof DocumentProblem)) throw error;
        problems.push(`"${id}": ${error.message}`);
      }
    }
  }
  if (problems.length > 0) throw new Error(`PERSISTED_DOCUMENTS_FILE ${file}: ${problems.length} bad document(s):\n- ${problems.join('\n- ')}`);
  return documents;
}

/** The manifest named by PERSISTED_DOCUMENTS_FILE: read now (a bad one stops startup), again on reload(). */
export function loadManifest(file: string | undefined, prepare: (text: string) => PreparedDocument): Manifest {
  let documents = file ? readManifest(file, prepare) : new Map<string, PreparedDocument>();
  if (file) log.info({ file, ids: documents.size }, 'trusted documents read');
  return {
    get: (key) => documents.get(key),
    reload() {
      if (!file) return false;
      try {
        documents = readManifest(file, prepare);
        log.info({ file, ids: documents.size }, 'trusted documents read again');
        return true;
      } catch (error) {
        log.error({ err: error, file, keptIds: documents.size }, 'trusted documents not read again: the documents read before stay in use');
        return false;
      }
    },
  };
}
