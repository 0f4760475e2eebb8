import { OperationTypeNode } from 'graphql';
import type { OperationLimits } from '../config.js';
import { appError } from '../errors.js';
import { checkNodes } from './operation-limits.js';
import type { OperationChecker } from './operation-checker.js';
import { inBatch, type GraphQLCall, type GraphQLRequest, type SentParams } from './params.js';
import type { DocumentMode, DocumentResolver, ResolvedParams } from './persisted.js';

/** A call checked and costed, with the automatic persisted queries it registers once it may run. */
export interface CheckedCall {
  readonly call: GraphQLCall;
  readonly registrations: readonly NonNullable<ResolvedParams['register']>[];
}

/**
 * Checks what a request sends, before it is counted: one operation, or a batch (at most `maxBatch`, not
 * empty, no subscription), each operation's document found and held to the operation limits; a batch's
 * points and node estimates are the sums of its operations', and any problem refuses it whole.
 */
export function callChecker(limits: OperationLimits, resolve: DocumentResolver, check: OperationChecker) {
  const checked = (resolved: ResolvedParams) => ({ resolved, request: check(resolved.params, resolved.prepared) });
  const single = ({ resolved, request }: ReturnType<typeof checked>): CheckedCall => {
    checkNodes(request.nodes, limits);
    return {
      call: { operations: [request], batch: false, cost: request.cost, kind: request.kind, params: request.params },
      registrations: resolved.register ? [resolved.register] : [],
    };
  };
  // A single operation whose document is at hand is checked at once: no promise on the common path.
  return (sent: SentParams | SentParams[], mode: DocumentMode): CheckedCall | Promise<CheckedCall> => {
    if (!Array.isArray(sent)) {
      const resolved = resolve(sent, mode);
      return resolved instanceof Promise ? resolved.then((r) => single(checked(r))) : single(checked(resolved));
    }
    return batch(sent, mode);
  };

  async function batch(sent: SentParams[], mode: DocumentMode): Promise<CheckedCall> {
    if (sent.length === 0) throw appError('BAD_REQUEST', 'The batch is empty: send at least one operation in the array');
    if (sent.length > limits.maxBatch) {
      throw appError('BAD_REQUEST', `The batch has ${sent.length} operations; the limit is ${limits.maxBatch} per request`);
    }
    const all = await Promise.all(sent.map((params, index) => inBatchAsync(index, sent.length, async () => checked(await resolve(params, mode)))));
    const operations: GraphQLRequest[] = all.map(({ request }, index) => {
      if (request.kind === OperationTypeNode.SUBSCRIPTION) {
        throw appError('BAD_REQUEST', `Operation ${index + 1} of the batch of ${sent.length} is a subscription: subscribe in a request of its own`);
      }
      return request;
    });
    checkNodes(operations.reduce((sum, { nodes }) => sum + nodes, 0), limits);
    return {
      call: {
        operations,
        batch: true,
        cost: operations.reduce((sum, { cost }) => sum + cost, 0),
        kind: operations.some(({ kind }) => kind === OperationTypeNode.MUTATION) ? OperationTypeNode.MUTATION : OperationTypeNode.QUERY,
        params: operations.map(({ params }) => params),
      },
      registrations: all.flatMap(({ resolved }) => (resolved.register ? [resolved.register] : [])),
    };
  }
}

const inBatchAsync = <T>(index: number, size: number, work: () => Promise<T>): Promise<T> =>
  work().catch((error: unknown) => inBatch(index, size, () => { throw error; }));

export type CallChecker = ReturnType<typeof callChecker>;
