/**
 * An OpenAPI document against its release: openapi-diff (Atlassian's) for paths, methods, request and
 * response bodies, status codes and headers, given the documents' text (diffSpecs reads nothing else:
 * its loader, which fetches URLs, is only for the CLI's file arguments, and a $ref outside the document
 * is refused before it is called), and the gate's own comparisons of what openapi-diff leaves out:
 * parameters and enum values.
 */
import openapiDiff from 'openapi-diff';
import type { ContractChange, Level } from './change.js';
import { dereference, type Json } from './openapi-dereference.js';
import { enumChanges } from './openapi-enums.js';
import { differingOperations } from './openapi-narrow.js';
import { operationRemoval } from './deprecated-first.js';
import { isObject, operationsOf, type Operation } from './openapi-operations.js';
import { parameterChanges } from './openapi-parameters.js';

type Difference = openapiDiff.DiffResult<openapiDiff.DiffResultType>;

const LEVELS: Record<openapiDiff.DiffResultType, Level> = {
  breaking: 'breaking',
  // What openapi-diff cannot classify (an x- property changed) may matter to someone: listed, never silent.
  unclassified: 'dangerous',
  'non-breaking': 'non-breaking',
};

const WORDS: Record<openapiDiff.DiffResultCode, string> = {
  'path.add': 'path added',
  'path.remove': 'path removed',
  'method.add': 'operation added',
  'method.remove': 'operation removed',
  'request.body.scope.add': 'request body accepts more than before',
  'request.body.scope.remove': 'request body accepts less than before (a property required or narrowed, a value refused)',
  'response.body.scope.add': 'response body may hold what it could not before (a property removed or loosened, a type widened)',
  'response.body.scope.remove': 'response body holds less than before (a property required or narrowed)',
  'response.optional.header.add': 'optional response header added',
  'response.optional.header.remove': 'optional response header removed',
  'response.required.header.add': 'required response header added',
  'response.required.header.remove': 'required response header removed',
  'response.status-code.add': 'response status added',
  'response.status-code.remove': 'response status removed',
  'unclassified.add': 'unclassified addition',
  'unclassified.remove': 'unclassified removal',
};

const locationOf = (difference: Difference) =>
  (difference.sourceSpecEntityDetails[0] ?? difference.destinationSpecEntityDetails[0])?.location ?? '';

const toChange = (document: string, difference: Difference, released: Map<string, Operation>, current: Map<string, Operation>): ContractChange => {
  const undeprecated = operationRemoval(released, current, difference.code, locationOf(difference));
  return {
    document,
    level: LEVELS[difference.type],
    id: `${difference.code} ${locationOf(difference)}`,
    message: WORDS[difference.code] ?? difference.code,
    ...(undeprecated ? { undeprecated } : {}),
  };
};

export async function openapiChanges(document: string, releasedText: string, currentText: string): Promise<ContractChange[]> {
  const released = JSON.parse(releasedText) as Json;
  const current = JSON.parse(currentText) as Json;
  if (!isObject(released) || !isObject(current)) throw new Error(`${document}: not an OpenAPI document`);
  const releasedOperations = operationsOf(dereference(released, `schema/released/${document}`));
  const currentOperations = operationsOf(dereference(current, `schema/${document}`));
  const [source, destination] = differingOperations(released, current, releasedOperations, currentOperations);
  const outcome = await openapiDiff.diffSpecs({
    sourceSpec: { content: JSON.stringify(source), location: `schema/released/${document}`, format: 'openapi3' },
    destinationSpec: { content: JSON.stringify(destination), location: `schema/${document}`, format: 'openapi3' },
  });
  const differences = [
    ...(outcome.breakingDifferencesFound ? outcome.breakingDifferences : []), ...outcome.unclassifiedDifferences, ...outcome.nonBreakingDifferences,
  ];
  return [
    ...differences.map((difference) => toChange(document, difference, releasedOperations, currentOperations)),
    ...parameterChanges(document, releasedOperations, currentOperations),
    ...enumChanges(document, releasedOperations, currentOperations),
  ];
}
