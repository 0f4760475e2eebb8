import type { ExecutionResult } from 'graphql';
import { processRegularResult, type Plugin } from 'graphql-yoga';
import type { AppError } from '../errors.js';
import type { ServerContext } from '../pipeline/context.js';
import { classify, errorResponse, mostSevere, type Surface } from '../pipeline/error-response.js';
import { acceptsSingleAnswers, responseMediaType, takesOnlyEventStreams } from './media-type.js';
import { eventStreamRefusal } from './stream-refusal.js';

/**
 * A refusal made before execution (401, 429, a bad document, an operation limit...): the GraphQL error
 * shape, with no `data`, in the error's status and in the media type yoga would answer this client's
 * Accept with, so a client that trusts only application/graphql-response+json for a 4xx reads it. A
 * client that takes only an event stream gets the refusal as one (stream-refusal.ts).
 */
export const graphqlErrors: Surface = {
  renderError(error, request) {
    if (takesOnlyEventStreams(request.headers.get('accept'))) return eventStreamRefusal([error], error.headers);
    const { code, status } = error.extensions;
    const body = { errors: [{ message: error.message, extensions: { code, status } }] };
    return errorResponse(error, body, `${responseMediaType(request.headers.get('accept'))}; charset=utf-8`);
  },
};

/**
 * Codes on every error yoga answers (graphql-js's own syntax and validation errors never pass through
 * masking), and an HTTP status that agrees with the body, as decisions.md says: a result without data is
 * a request error, in the status and with the headers of its most severe error; a result with data, even
 * null, is a 200, its errors carrying their own codes. A client whose Accept names nothing we produce
 * still gets JSON. A request error for a client that takes only event streams (a subscription refused
 * as it starts: an `after` expired or never given out, the events out of reach) is answered as the
 * pipeline's refusals are, as a stream it can read.
 */
export function useErrorResults(): Plugin {
  return {
    onResultProcess({ request, serverContext, result, setResult, resultProcessor, setResultProcessor }) {
      if (!resultProcessor) setResultProcessor(processRegularResult, 'application/json');
      const { requestId } = serverContext as Partial<ServerContext>;
      if (Array.isArray(result)) {
        // A batch is answered 200, in order, each result with its own errors, coded.
        setResult(result.map((one: ExecutionResult) => (one.errors?.length ? { ...one, errors: one.errors.map((error) => classify(error, requestId)) } : one)));
        return;
      }
      const coded = codedResult(result as ExecutionResult, requestId);
      if (coded === result) return;
      setResult(coded);
      const worst = (coded.extensions as { http?: RequestError } | undefined)?.http;
      if (!worst) return;
      const accept = request.headers.get('accept');
      if (takesOnlyEventStreams(accept)) {
        setResultProcessor(() => eventStreamRefusal(coded.errors as AppError[], worst.headers), 'text/event-stream');
        return;
      }
      // A client that reads increments (multipart/mixed first in its Accept) and single answers too gets
      // a request error as a single answer, in its status, as every other client does.
      if (acceptsSingleAnswers(accept)) setResultProcessor(processRegularResult, responseMediaType(accept));
    },
  };
}

/** A request error's status and headers, as yoga reads them from `extensions.http`. */
interface RequestError {
  readonly status: number;
  readonly headers: AppError['headers'];
}

/**
 * One result with its errors coded (the same result when it has none): with data, even null, each error
 * keeps its own code; without, it is a request error, in the status and with the headers of its most
 * severe error (`extensions.http`, which yoga's result processors read and leave out of the body).
 */
export function codedResult(result: ExecutionResult, requestId: string | undefined): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors: AppError[] = result.errors.map((error) => classify(error, requestId));
  if ('data' in result && result.data !== undefined) return { ...result, errors };
  const worst = mostSevere(errors);
  const http: RequestError = { status: worst.extensions.status, headers: worst.headers };
  return { ...result, errors, extensions: { ...result.extensions, http } };
}
