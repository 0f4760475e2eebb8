import { afterEach, describe, expect, it, vi } from 'vitest';
import { graphqlErrors } from '../../src/graphql/errors.js';
import { log } from '../../src/log.js';
import { onFirstRequest, type Answer } from '../../src/pages/on-first-request.js';
import { classify, errorBodies } from '../../src/pipeline/error-response.js';

afterEach(() => { vi.restoreAllMocks(); });

const browser = () => new Request('http://localhost/graphql', { headers: { accept: 'text/html' } });
const page: Answer = () => new Response('<!doctype html>', { headers: { 'content-type': 'text/html' } });

/** A making the test finishes (or fails) when it chooses. */
function pending() {
  let finish!: (answer: Answer) => void;
  let fail!: (error: Error) => void;
  const made = new Promise<Answer>((resolve, reject) => { finish = resolve; fail = reject; });
  return { made, finish: () => finish(page), fail: () => fail(new Error('the bundle could not be read')) };
}

describe('a page made on its first request', () => {
  it('is not made until asked for; requests that come while it is made wait for that one making', async () => {
    const making = pending();
    const make = vi.fn(() => making.made);
    const get = onFirstRequest('The page', make);
    expect(make).not.toHaveBeenCalled();

    const first = get(browser());
    const second = get(browser());
    making.finish();
    const answers = await Promise.all([first, second, get(browser())]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    await get(browser());
    expect(make).toHaveBeenCalledTimes(1);
  });

  it('refuses those that waited for a failed making with a 503 in their surface\'s error shape, and tries again on the next request', async () => {
    const error = vi.spyOn(log, 'error').mockImplementation(() => undefined);
    const failing = pending();
    const make = vi.fn<() => Promise<Answer>>().mockReturnValueOnce(failing.made).mockResolvedValueOnce(page);
    const get = onFirstRequest('The GraphiQL page', make);

    const waiting = [get(browser()), get(browser())].map((answer) => answer.then(() => undefined, (refusal: unknown) => refusal));
    failing.fail();
    const refusals = await Promise.all(waiting);
    // Logged once, for the making, not once per request that waited for it.
    expect(error).toHaveBeenCalledTimes(1);
    for (const refusal of refusals) {
      const refused = classify(refusal);
      expect(refused.extensions).toEqual({ code: 'UNAVAILABLE', status: 503 });
      expect(refused.message).toBe('The GraphiQL page could not be made just now; try again shortly');
      expect(refused.headers).toEqual({ 'Retry-After': '1' });
      // As the pipeline's boundary renders it on /graphql, and on a path of the Error body.
      const asGraphQL = graphqlErrors.renderError(refused, browser());
      expect(asGraphQL.status).toBe(503);
      expect(asGraphQL.headers.get('retry-after')).toBe('1');
      expect(await asGraphQL.json()).toEqual({ errors: [{ message: refused.message, extensions: { code: 'UNAVAILABLE', status: 503 } }] });
      expect(await errorBodies.renderError(refused, browser()).json()).toEqual({ code: 'UNAVAILABLE', message: refused.message, status: 503 });
    }

    expect((await get(browser())).status).toBe(200);
    expect(make).toHaveBeenCalledTimes(2);
  });

  it('treats a making that throws at once as one that failed', async () => {
    vi.spyOn(log, 'error').mockImplementation(() => undefined);
    const make = vi.fn<() => Promise<Answer>>().mockImplementationOnce(() => { throw new Error('no bundle'); }).mockResolvedValueOnce(page);
    const get = onFirstRequest('The page', make);
    await expect(get(browser())).rejects.toMatchObject({ extensions: { code: 'UNAVAILABLE', status: 503 } });
    expect((await get(browser())).status).toBe(200);
  });
});
