import type { DocumentNode, GraphQLSchema, OperationTypeNode } from 'graphql';
import type { OperationLimits } from '../config.js';
import { appError } from '../errors.js';
import { nodeEstimator } from './node-estimate.js';
import { checkNodes, checkOperation, parseWithin } from './operation-limits.js';

/** The GraphQL-over-HTTP parameters of one request, as yoga reads them. */
export interface GraphQLParams {
  readonly query: string;
  readonly variables?: Record<string, unknown>;
  readonly operationName?: string;
  readonly extensions?: Record<string, unknown>;
}

/** A request whose document is parsed and within the operation limits: what yoga will run, and its cost. */
export interface GraphQLRequest {
  readonly params: GraphQLParams;
  readonly document: DocumentNode;
  readonly cost: number;
  /** query, mutation or subscription. */
  readonly kind: OperationTypeNode;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A POST's JSON body, or a GET's (or HEAD's) query string: checked as GraphQL-over-HTTP says, one
 * operation at a time.
 */
export function graphqlParams(method: string, url: URL, body: unknown): GraphQLParams {
  let raw: Record<string, unknown>;
  if (method === 'GET' || method === 'HEAD') {
    const variables = url.searchParams.get('variables');
    const extensions = url.searchParams.get('extensions');
    raw = {
      query: url.searchParams.get('query') ?? undefined,
      operationName: url.searchParams.get('operationName') ?? undefined,
      variables: variables ? jsonParameter('variables', variables) : undefined,
      extensions: extensions ? jsonParameter('extensions', extensions) : undefined,
    };
  } else if (Array.isArray(body)) {
    throw appError('BAD_REQUEST', 'Batched operations are not supported: send one operation per request');
  } else if (!isObject(body)) {
    throw appError('BAD_REQUEST', 'The request body must be a JSON object: {"query": "...", "variables": {...}}');
  } else {
    raw = body;
  }
  const { query, variables, operationName, extensions } = raw;
  if (typeof query !== 'string' || query.trim() === '') {
    throw appError('BAD_REQUEST', 'Send the operation as a non-empty string in "query"');
  }
  if (variables != null && !isObject(variables)) throw appError('BAD_REQUEST', '"variables" must be a JSON object');
  if (operationName != null && typeof operationName !== 'string') throw appError('BAD_REQUEST', '"operationName" must be a string');
  if (extensions != null && !isObject(extensions)) throw appError('BAD_REQUEST', '"extensions" must be a JSON object');
  return {
    query,
    ...(variables != null ? { variables } : {}),
    ...(operationName != null ? { operationName } : {}),
    ...(extensions != null ? { extensions } : {}),
  };
}

function jsonParameter(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw appError('BAD_REQUEST', `"${name}" must be JSON`);
  }
}

/**
 * Documents a client sends again and again are parsed once; bounded in count, size and total size: a
 * parsed document holds about 70 bytes of heap per character, so a thousand distinct 8 KB documents
 * would have kept over 500 MB (the fan-out property test ran the 128 MB process out of memory so).
 */
const CACHE_ENTRIES = 1_000;
const CACHEABLE_LENGTH = 8 * 1024;
const CACHE_CHARACTERS = 128 * 1024;

/**
 * Parses and checks GraphQL requests, remembering recent documents: the token, depth, directive,
 * root-field and node limits run before any point is taken, and a document is parsed once however often
 * it comes. The node estimate reads the request's variables (a page size may be one), so it runs each time.
 */
export function createOperationChecker(limits: OperationLimits, schema: GraphQLSchema) {
  const estimator = nodeEstimator(schema);
  const documents = new Map<string, DocumentNode>();
  let characters = 0;
  const parse = (query: string): DocumentNode => {
    const cached = documents.get(query);
    if (cached) return cached;
    const document = parseWithin(query, limits);
    if (query.length <= CACHEABLE_LENGTH) {
      while (documents.size >= CACHE_ENTRIES || characters + query.length > CACHE_CHARACTERS) {
        const oldest = documents.keys().next().value!;
        documents.delete(oldest);
        characters -= oldest.length;
      }
      documents.set(query, document);
      characters += query.length;
    }
    return document;
  };
  return (params: GraphQLParams): GraphQLRequest => {
    const document = parse(params.query);
    const { cost, operation } = checkOperation(document, params.operationName, limits);
    checkNodes(estimator.operation(document, operation, params.variables ?? {}), limits);
    return { params, document, cost, kind: operation.operation };
  };
}

export type OperationChecker = ReturnType<typeof createOperationChecker>;
