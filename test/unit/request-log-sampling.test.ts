import { afterEach, describe, expect, it, vi } from 'vitest';
import { useRequestLog } from '../../src/ops/use-request-log.js';
import type { ServerContext } from '../../src/pipeline/context.js';
import { requestLines } from '../support/request-lines.js';

afterEach(() => { vi.restoreAllMocks(); });

/** Each line written: its status, and its sampling mark if any. */
const written = () => {
  const lines = requestLines();
  return () => lines().map(({ status, sampled }) => [status, sampled]);
};

/** Runs the step's two hooks over one request answered with `status`, as the pipeline does. */
function answer(step: ReturnType<typeof useRequestLog>, status: number): Response {
  const request = new Request('http://localhost/v1/pets');
  const response = new Response(null, { status });
  const serverContext = { startedAt: performance.now(), pathname: '/v1/pets', route: { label: '/v1/pets' } } as unknown as ServerContext;
  void step.onRequest!({ request, url: new URL(request.url), serverContext, endResponse: () => {} });
  void step.onResponse!({ request, response, serverContext, replaceResponse: () => undefined });
  return response;
}

describe('the access log\'s sampling', () => {
  it('draws nothing at the default: every request gets its line, unmarked', () => {
    const random = vi.spyOn(Math, 'random');
    const lines = written();
    const step = useRequestLog();
    for (const status of [200, 201, 304, 404, 500]) answer(step, status);
    expect(random).not.toHaveBeenCalled();
    expect(lines()).toEqual([[200, undefined], [201, undefined], [304, undefined], [404, undefined], [500, undefined]]);
  });

  it('keeps an answer below 400 when the draw falls under the share, marked with it; skips it otherwise', () => {
    const lines = written();
    const step = useRequestLog({ sample: 0.25 });
    vi.spyOn(Math, 'random').mockReturnValue(0.2499);
    answer(step, 200);
    vi.spyOn(Math, 'random').mockReturnValue(0.25);
    const skipped = answer(step, 302);
    expect(lines()).toEqual([[200, 0.25]]);
    expect(skipped.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('writes every answer of 400 and above whatever the draw, unmarked: it stands for one request', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const lines = written();
    const step = useRequestLog({ sample: 0.000001 });
    for (const status of [400, 401, 404, 429, 500, 503]) answer(step, status);
    expect(lines()).toEqual([[400, undefined], [401, undefined], [404, undefined], [429, undefined], [500, undefined], [503, undefined]]);
  });
});
