import { describe, expect, it } from 'vitest';
import { appError, STATUS, type ErrorCode } from '../../src/errors.js';
import { errorBodies } from '../../src/pipeline/error-response.js';

const request = (accept?: string) => new Request('http://127.0.0.1/v1/pets', accept ? { headers: { accept } } : {});

describe('the REST error body, by Accept', () => {
  it.each(Object.keys(STATUS) as ErrorCode[])('%s: RFC 9457 problem details on request, {code, message, status} by default', async (code) => {
    const error = appError(code, `What went wrong (${code})`, { headers: { 'X-Extra': 'kept' } });
    const status = STATUS[code];
    const problem = errorBodies.renderError(error, request('application/problem+json'), 'req-1');
    expect([problem.status, problem.headers.get('content-type'), problem.headers.get('x-extra')]).toEqual([status, 'application/problem+json', 'kept']);
    const quota = status === 429;
    expect(await problem.json()).toEqual({
      type: quota ? 'https://iana.org/assignments/http-problem-types#quota-exceeded' : 'about:blank',
      title: quota ? 'Quota exceeded' : expect.stringMatching(/^[A-Z]/),
      status, detail: `What went wrong (${code})`, instance: 'req-1', code,
    });
    const plain = errorBodies.renderError(error, request(), 'req-1');
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await plain.json()).toEqual({ code, message: `What went wrong (${code})`, status });
  });

  it('adds the error\'s own members (a 429\'s violated-policies) to problem details only', async () => {
    const error = appError('RATE_LIMITED', 'Over', { problem: { 'violated-policies': ['day'] } });
    expect((await errorBodies.renderError(error, request('application/problem+json')).json())['violated-policies']).toEqual(['day']);
    expect(Object.keys(await errorBodies.renderError(error, request()).json())).toEqual(['code', 'message', 'status']);
  });
});
