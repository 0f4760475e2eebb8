import type { ExecutionResult } from 'graphql';
import { processRegularResult, type Plugin } from 'graphql-yoga';
import type { AppError } from '../errors.js';
import type { ServerContext } from '../pipeline/context.js';
import { classify, errorResponse, mostSevere, type Surface } from '../pipeline/error-response.js';
import { responseMediaType } from './media-type.js';

/**
 * A refusal made before execution (401, 429, a bad document, an operation limit...): the GraphQL error
 * shape, with no `data`, in the error's status and in the media type yoga would answer this client's
 * Accept with, so a client that trusts only application/graphql-response+json for a 4xx reads it.
 */
export const graphqlErrors: Surface = {
  renderError(error, request) {
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
 * still gets JSON.
 */
export function useErrorResults(): Plugin {
  return {
    onResultProcess({ serverContext, result, setResult, resultProcessor, setResultProcessor }) {
      if (!resultProcessor) setResultProcessor(processRegularResult, 'application/json');
      if (Array.isArray(result) || !('errors' in result) || !result.errors?.length) return;
      const { requestId } = serverContext as Partial<ServerContext>;
      const errors: AppError[] = result.errors.map((error) => classify(error, requestId));
      if ('data' in result && result.data !== undefined) {
        setResult({ ...(result as ExecutionResult), errors });
        return;
      }
      const worst = mostSevere(errors);
      setResult({
        ...(result as ExecutionResult),
        errors,
        extensions: { ...result.extensions, http: { status: worst.extensions.status, headers: worst.headers } },
      });
    },
  };
}
