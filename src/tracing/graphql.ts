import { context, trace, type Span, type Tracer } from '@opentelemetry/api';
import { getOperationAST, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { OperationChecker } from '../graphql/operation-checker.js';
import { failed } from './outcome.js';
import { recording } from './recording.js';

// The GraphQL conventions are still incubating: their names are copied here, not imported from the
// package's unstable entry point.
const ATTR_OPERATION_TYPE = 'graphql.operation.type';
const ATTR_OPERATION_NAME = 'graphql.operation.name';
/** The work was done for an earlier request: the parse, or the validation, came from its cache. */
export const ATTR_CACHED = 'animal_store.cached';

type Execute = (args: ExecutionArgs) => unknown;

const operationAttributes = (document: DocumentNode, operationName: string | null | undefined) => {
  const operation = getOperationAST(document, operationName);
  return {
    ...(operation ? { [ATTR_OPERATION_TYPE]: operation.operation } : {}),
    ...(operation?.name ? { [ATTR_OPERATION_NAME]: operation.name.value } : {}),
  };
};

/**
 * `graphql.parse`: the operation step's parse of the document, with its operation limits, before the
 * request is counted. The checker keeps recent documents: one it hands out again is the same object,
 * which tells a cached parse (microseconds) from a real one.
 */
export function tracedChecks(tracer: Tracer, check: OperationChecker): OperationChecker {
  const parsed = new WeakSet<DocumentNode>();
  return (params, prepared) => {
    if (!recording()) {
      const checked = check(params, prepared);
      parsed.add(checked.document);
      return checked;
    }
    const span = tracer.startSpan('graphql.parse');
    try {
      const checked = check(params, prepared);
      span.setAttributes({ [ATTR_CACHED]: parsed.has(checked.document), ...operationAttributes(checked.document, params.operationName) });
      parsed.add(checked.document);
      return checked;
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  };
}

const isPromise = (value: unknown): value is Promise<unknown> => value instanceof Promise;

/** A result's errors (an AsyncIterable of a subscription has none to look at yet). */
function settled(span: Span, result: unknown): void {
  const { errors } = (result ?? {}) as ExecutionResult;
  if (Array.isArray(errors) && errors.length > 0) failed(span, ...errors);
  span.end();
}

/**
 * `graphql.execute` (or `graphql.subscribe`): the resolvers run in the span's context, so the statements
 * and Redis calls they make are its children. Wraps yoga's execute (graphql-jit's, see execute.ts) and
 * the executor SOFA runs each REST route with, alike.
 */
export function tracedExecute<E extends Execute>(tracer: Tracer, execute: E, name = 'graphql.execute'): E {
  return ((args: ExecutionArgs) => {
    if (!recording()) return execute(args);
    const span = tracer.startSpan(name, { attributes: operationAttributes(args.document, args.operationName) });
    let result: unknown;
    try {
      result = context.with(trace.setSpan(context.active(), span), () => execute(args));
    } catch (error) {
      failed(span, error);
      span.end();
      throw error;
    }
    if (!isPromise(result)) {
      settled(span, result);
      return result;
    }
    return result.then((done) => {
      settled(span, done);
      return done;
    }, (error: unknown) => {
      failed(span, error);
      span.end();
      throw error;
    });
  }) as E;
}

/**
 * The direct lane's `graphql.validate` for a document whose validation it remembered (graphql/direct.ts;
 * one it runs goes through yoga's validate, which useGraphQLTracing traces): the span yoga's lane makes
 * for a validation its cache answered.
 */
export function tracedRememberedValidation(tracer: Tracer): () => void {
  return () => {
    if (recording()) tracer.startSpan('graphql.validate', { attributes: { [ATTR_CACHED]: true } }).end();
  };
}

/**
 * Yoga's side: `graphql.validate`, and the execute and subscribe spans (listed after useJit, this wraps
 * it). Yoga keeps each document's validation: a document validated before is not validated again, which
 * the span tells by its validate function not having run.
 */
export function useGraphQLTracing(tracer: Tracer): Plugin {
  return {
    onValidate({ validateFn, setValidationFn }) {
      if (!recording()) return undefined;
      const span = tracer.startSpan('graphql.validate');
      let ran = false;
      setValidationFn((...args) => {
        ran = true;
        return validateFn(...args);
      });
      return ({ result }) => {
        span.setAttribute(ATTR_CACHED, !ran);
        if (result.length > 0) failed(span, ...result);
        span.end();
      };
    },
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn(tracedExecute(tracer, executeFn as Execute) as never);
    },
    onSubscribe({ subscribeFn, setSubscribeFn }) {
      setSubscribeFn(tracedExecute(tracer, subscribeFn as Execute, 'graphql.subscribe') as never);
    },
  };
}
