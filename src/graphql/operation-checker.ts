import { Kind, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { OperationLimits } from '../config.js';
import { nodeEstimator } from './node-estimate.js';
import { checkOperation, parseWithin, type CheckedOperation } from './operation-limits.js';
import type { GraphQLParams, GraphQLRequest } from './params.js';

/**
 * A document known before any request names it (the trusted manifest's): parsed, validated against the
 * schema and held to the operation limits once, each of its operations costed, so a request by its id
 * only reads its variables (the node estimate).
 */
export interface PreparedDocument {
  readonly text: string;
  readonly document: DocumentNode;
  /** By operation name; a document of one operation has it under '' too, for a request that names none. */
  readonly operations: ReadonlyMap<string, CheckedOperation>;
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
 * Parses and checks GraphQL requests, remembering recent documents: the token, depth, directive and
 * root-field limits run before any point is taken, and a document is parsed once however often it comes.
 * The node estimate reads the request's variables (a page size may be one), so it is made each time; the
 * caller holds it to the node limit (a batch's estimates are summed first).
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

  // A document's operations within the limits, by name, as the manifest's are: a document sent again is
  // not walked again (one over a limit is, each time: it throws before anything is kept).
  const checkedOperations = new WeakMap<DocumentNode, Map<string, CheckedOperation>>();
  const operationOf = (document: DocumentNode, operationName: string | undefined): CheckedOperation => {
    let byName = checkedOperations.get(document);
    if (!byName) checkedOperations.set(document, byName = new Map());
    let checked = byName.get(operationName ?? '');
    if (!checked) byName.set(operationName ?? '', checked = checkOperation(document, operationName, limits));
    return checked;
  };

  const check = (params: GraphQLParams, prepared?: PreparedDocument): GraphQLRequest => {
    const document = prepared?.document ?? parse(params.query);
    const known = prepared?.operations.get(params.operationName ?? '');
    const { cost, operation } = known ?? operationOf(document, params.operationName);
    const nodes = estimator.operation(document, operation, params.variables ?? {});
    return { params, document, cost, nodes, kind: operation.operation };
  };
  return check;
}

export type OperationChecker = (params: GraphQLParams, prepared?: PreparedDocument) => GraphQLRequest;

/** What prepareDocument found wrong with a document: every problem, for the operator. */
export class DocumentProblem extends Error {}

/** Readies a document for PreparedDocument: throws DocumentProblem naming what is wrong with it. */
export function prepareDocument(text: string, limits: OperationLimits, schema: GraphQLSchema): PreparedDocument {
  let document: DocumentNode;
  try {
    document = parseWithin(text, limits);
  } catch (error) {
    throw new DocumentProblem((error as Error).message);
  }
  const invalid = validate(schema, document);
  if (invalid.length > 0) throw new DocumentProblem(invalid.map((error) => error.message).join('; '));
  const definitions = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operations = new Map<string, CheckedOperation>();
  for (const definition of definitions) {
    const name = definition.name?.value;
    try {
      operations.set(name ?? '', checkOperation(document, name, limits));
    } catch (error) {
      throw new DocumentProblem(`${name ? `operation ${name}: ` : ''}${(error as Error).message}`);
    }
  }
  if (definitions.length === 1) operations.set('', operations.values().next().value!);
  return { text, document, operations };
}
