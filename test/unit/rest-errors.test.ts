import { describe, expect, it } from 'vitest';
import { appError, type AppError, type InputProblem } from '../../src/errors.js';
import { errorBodies } from '../../src/pipeline/error-response.js';
import { throwRestErrors } from '../../src/rest/errors.js';

/** SOFA's errors as a REST client gets them: the error thrown, rendered as the Error body. */
function renderRestErrors(errors: unknown[]): Response {
  try {
    throwRestErrors(errors);
  } catch (error) {
    return errorBodies.renderError(error as AppError, new Request('http://127.0.0.1/v1/pets'));
  }
}

/** An input error as coerceVariables makes it: graphql-js's wording, the problem as data. */
const inputError = (input: InputProblem, message = 'Variable "$input" got invalid value …; graphql-js wording') =>
  appError('BAD_REQUEST', message, { input });

const rendered = async (errors: unknown[]) => {
  const res = renderRestErrors(errors);
  return { status: res.status, body: await res.json() };
};

const SAFE_INT = 'Expected an integer from 1 to 9007199254740991, got "5"';

describe('throwRestErrors wording an input problem for a REST client', () => {
  it.each<[string, InputProblem, string]>([
    ['a missing body field', { path: ['input', 'name'], problem: 'missing', detail: '' },
      'Missing required field "name" in the request body'],
    ['an unknown body field with its reason', { path: ['input', 'status'], problem: 'unknown', detail: 'an order is placed as "placed"; move it on with an update' },
      'Unknown field "status" in the request body: an order is placed as "placed"; move it on with an update'],
    ['an unknown body field with no reason', { path: ['input', 'colour'], problem: 'unknown', detail: '' },
      'Unknown field "colour" in the request body'],
    ['an invalid body field', { path: ['input', 'categoryId'], problem: 'invalid', detail: SAFE_INT },
      `Invalid "categoryId": ${SAFE_INT}`],
    ['a missing field deep in the body, by its whole path', { path: ['input', 'owner', 'email'], problem: 'missing', detail: '' },
      'Missing required field "owner.email" in the request body'],
    ['an invalid field deep in the body', { path: ['input', 'tags', 0, 'name'], problem: 'invalid', detail: 'too long' },
      'Invalid "tags[0].name": too long'],
    ['an invalid body as a whole', { path: ['input'], problem: 'invalid', detail: 'Expected type "NewPet" to be an object.' },
      'Invalid "request body": Expected type "NewPet" to be an object.'],
    ['an invalid parameter', { path: ['limit'], problem: 'invalid', detail: 'Int cannot represent non-integer value: "ten"' },
      'Invalid "limit": Int cannot represent non-integer value: "ten"'],
  ])('words %s', async (_, input, message) => {
    expect(await rendered([inputError(input)])).toEqual({ status: 400, body: { code: 'BAD_REQUEST', message, status: 400 } });
  });
});

describe('throwRestErrors choosing and answering', () => {
  it('answers the most severe error among several, whatever their order', async () => {
    const missing = inputError({ path: ['input', 'name'], problem: 'missing', detail: '' });
    const conflict = appError('CONFLICT', 'Order 7 cannot go from "delivered" to "placed"; "delivered" is final');
    const notFound = appError('NOT_FOUND', 'Order 7 not found');
    const expected = { status: 409, body: { code: 'CONFLICT', message: 'Order 7 cannot go from "delivered" to "placed"; "delivered" is final', status: 409 } };
    expect(await rendered([missing, conflict, notFound])).toEqual(expected);
    expect(await rendered([notFound, missing, conflict])).toEqual(expected);
  });

  it('answers the first of equally severe errors', async () => {
    const first = inputError({ path: ['input', 'name'], problem: 'missing', detail: '' });
    const second = inputError({ path: ['input', 'colour'], problem: 'unknown', detail: '' });
    expect((await rendered([first, second])).body.message).toBe('Missing required field "name" in the request body');
  });

  it('keeps the message of an error without an input problem', async () => {
    expect(await rendered([appError('NOT_FOUND', 'Pet 3 not found')]))
      .toEqual({ status: 404, body: { code: 'NOT_FOUND', message: 'Pet 3 not found', status: 404 } });
  });

  it('answers in JSON with the status text of the code', () => {
    const res = renderRestErrors([appError('NOT_FOUND', 'Pet 3 not found')]);
    expect([res.status, res.statusText, res.headers.get('content-type')?.split(';')[0]]).toEqual([404, 'Not Found', 'application/json']);
  });

  it('keeps the headers of the error it answers', async () => {
    const limited = appError('RATE_LIMITED', 'Too many requests', { headers: { 'Retry-After': '7', 'X-RateLimit-Remaining': '0' } });
    const res = renderRestErrors([inputError({ path: ['limit'], problem: 'invalid', detail: 'x' }), limited]);
    expect([res.status, res.headers.get('retry-after'), res.headers.get('x-ratelimit-remaining')]).toEqual([429, '7', '0']);
    expect(await res.json()).toEqual({ code: 'RATE_LIMITED', message: 'Too many requests', status: 429 });
  });

  it('keeps the headers of an input error it rewords', async () => {
    const error = appError('BAD_REQUEST', 'graphql-js wording', {
      input: { path: ['input', 'colour'], problem: 'unknown', detail: '' }, headers: { 'X-Extra': 'yes' },
    });
    const res = renderRestErrors([error]);
    expect([res.status, res.headers.get('x-extra')]).toEqual([400, 'yes']);
    expect((await res.json()).message).toBe('Unknown field "colour" in the request body');
  });

  it('puts no headers of an error it does not answer on the response', () => {
    const other = appError('BAD_REQUEST', 'x', { headers: { 'X-Other': 'no' } });
    const res = renderRestErrors([other, appError('CONFLICT', 'y')]);
    expect([res.status, res.headers.get('x-other')]).toEqual([409, null]);
  });
});
