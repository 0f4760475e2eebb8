import type { DocumentNode, OperationTypeNode } from 'graphql';
import { appError } from '../errors.js';
import { checkNesting } from '../pipeline/nesting.js';

/** The GraphQL-over-HTTP parameters of one operation, as yoga runs them: the document's text resolved. */
export interface GraphQLParams {
  readonly query: string;
  readonly variables?: Record<string, unknown>;
  readonly operationName?: string;
  readonly extensions?: Record<string, unknown>;
}

/**
 * One operation as the client sent it: its document as text, or named by a `documentId` (trusted
 * documents) or `extensions.persistedQuery` (automatic persisted queries), or both text and hash.
 */
export interface SentParams extends Omit<GraphQLParams, 'query'> {
  readonly query?: string;
  readonly documentId?: unknown;
}

/** An operation whose document is parsed and within the operation limits: what yoga will run, and its cost. */
export interface GraphQLRequest {
  readonly params: GraphQLParams;
  readonly document: DocumentNode;
  readonly cost: number;
  /** Its answer's estimated nodes (fields and list items), with its variables. */
  readonly nodes: number;
  /** query, mutation or subscription. */
  readonly kind: OperationTypeNode;
}

/** What one request runs: an operation, or a batch of them (a JSON array), each checked, in order. */
export interface GraphQLCall {
  readonly operations: readonly GraphQLRequest[];
  readonly batch: boolean;
  /** Points: the sum of its operations'. */
  readonly cost: number;
  /** The operation's; a batch's is `mutation` when one of them is (a batch holds no subscription). */
  readonly kind: OperationTypeNode;
  /** What yoga is given: the one operation's parameters, or the batch's array. */
  readonly params: GraphQLParams | readonly GraphQLParams[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A POST's JSON body (an object, or an array of them: a batch), or a GET's (or HEAD's) query string:
 * checked as GraphQL-over-HTTP says. Which document each names is resolved later (persisted.ts).
 */
export function graphqlParams(method: string, url: URL, body: unknown): SentParams | SentParams[] {
  if (method === 'GET' || method === 'HEAD') {
    const variables = url.searchParams.get('variables');
    const extensions = url.searchParams.get('extensions');
    return sentParams({
      query: url.searchParams.get('query') ?? undefined,
      documentId: url.searchParams.get('documentId') ?? undefined,
      operationName: url.searchParams.get('operationName') ?? undefined,
      variables: variables ? jsonParameter('variables', variables) : undefined,
      extensions: extensions ? jsonParameter('extensions', extensions) : undefined,
    });
  }
  if (Array.isArray(body)) return body.map((one, index) => inBatch(index, body.length, () => sentParams(one)));
  return sentParams(body);
}

/** A batch's operation's problem, saying which operation it is (the batch is refused whole). */
export function inBatch<T>(index: number, size: number, work: () => T): T {
  try {
    return work();
  } catch (error) {
    const { extensions, message, headers } = error as ReturnType<typeof appError>;
    if (!extensions?.code) throw error;
    throw appError(extensions.code, `Operation ${index + 1} of the batch of ${size}: ${message}`, headers ? { headers } : {});
  }
}

function sentParams(raw: unknown): SentParams {
  if (!isObject(raw)) throw appError('BAD_REQUEST', 'The request body must be a JSON object: {"query": "...", "variables": {...}}, or an array of them');
  const { query, documentId, variables, operationName, extensions } = raw;
  if (query != null && (typeof query !== 'string' || query.trim() === '')) {
    throw appError('BAD_REQUEST', 'Send the operation as a non-empty string in "query"');
  }
  if (variables != null && !isObject(variables)) throw appError('BAD_REQUEST', '"variables" must be a JSON object');
  if (operationName != null && typeof operationName !== 'string') throw appError('BAD_REQUEST', '"operationName" must be a string');
  if (extensions != null && !isObject(extensions)) throw appError('BAD_REQUEST', '"extensions" must be a JSON object');
  return {
    ...(query != null ? { query } : {}),
    ...(documentId != null ? { documentId } : {}),
    ...(variables != null ? { variables } : {}),
    ...(operationName != null ? { operationName } : {}),
    ...(extensions != null ? { extensions } : {}),
  };
}

function jsonParameter(name: string, text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw appError('BAD_REQUEST', `"${name}" must be JSON`);
  }
  // As a POST's body is (pipeline/body.ts): a query string may be longer than a body (MAX_HEADER_BYTES).
  checkNesting(value, `"${name}"`);
  return value;
}
