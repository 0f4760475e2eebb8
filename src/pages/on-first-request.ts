import { appError } from '../errors.js';
import { log } from '../log.js';

export type Answer = (request: Request) => Response | Promise<Response>;

/**
 * A page made when it is first asked for, not at startup: an instance that only answers the API never
 * pays for it (GraphiQL's is a 9 MB build, Swagger UI's a 1.5 MB read). Requests that arrive while it is
 * being made wait for that one making. One that failed is logged once and forgotten, so the next request
 * tries again; the requests that waited for it are refused with a 503 and a Retry-After, which the error
 * boundary renders in the route's own error shape.
 */
export function onFirstRequest(what: string, make: () => Promise<Answer>): (request: Request) => Promise<Response> {
  let made: Answer | undefined;
  let making: Promise<Answer> | undefined;
  const start = () => {
    // A make that throws at once fails the same way as one that rejects.
    const attempt = Promise.resolve().then(make).then((answer) => { made = answer; return answer; });
    attempt.catch((error: unknown) => {
      if (making === attempt) making = undefined;
      log.error({ err: error }, `${what} could not be made`);
    });
    return attempt;
  };
  return async (request) => {
    if (made) return made(request);
    making ??= start();
    let answer: Answer;
    try {
      answer = await making;
    } catch {
      throw appError('UNAVAILABLE', `${what} could not be made just now; try again shortly`, { headers: { 'Retry-After': '1' } });
    }
    return answer(request);
  };
}
