import { expect } from 'vitest';
import { STATUS, type ErrorCode } from '../../src/errors.js';

export interface Answer {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly text: string;
}

const json = (text: string): any => {
  try { return JSON.parse(text); } catch { return undefined; }
};

/**
 * What decisions.md promises of every answer, whatever was asked: never a 5xx, a request id, and every
 * error in its shape (REST: `{code, message, status}`; /graphql: GraphQL errors whose codes are ours,
 * the HTTP status one of theirs when nothing ran) with the status its code has in the table.
 */
export function checkContract(surface: 'rest' | 'graphql', answer: Answer, request: unknown): void {
  const where = `${JSON.stringify(request)} → ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBeLessThan(500);
  expect(answer.headers.get('x-request-id'), where).toBeTruthy();
  const body = json(answer.text);
  const graphqlResult = surface === 'graphql' && body && typeof body === 'object' && ('errors' in body || 'data' in body);
  if (graphqlResult) {
    for (const error of body.errors ?? []) {
      expect(typeof error.message, where).toBe('string');
      expect(Object.keys(STATUS), where).toContain(error.extensions?.code);
      expect(error.extensions.status, where).toBe(STATUS[error.extensions.code as ErrorCode]);
    }
    if (answer.status >= 400) {
      expect(body.data ?? null, where).toBeNull();
      expect(body.errors.map((e: { extensions: { status: number } }) => e.extensions.status), where).toContain(answer.status);
    }
    return;
  }
  if (answer.status < 400) return;
  if (answer.headers.get('content-type')?.startsWith('application/problem+json')) {
    // RFC 9457, asked for in Accept: the same code and status, the message as `detail`.
    expect(body, where).toMatchObject({ type: expect.any(String), title: expect.any(String), status: answer.status, detail: expect.stringMatching(/\S/) });
    expect(body.instance, where).toBe(answer.headers.get('x-request-id'));
    expect(STATUS[body.code as ErrorCode], where).toBe(answer.status);
    return;
  }
  expect(answer.headers.get('content-type'), where).toMatch(/^application\/json/);
  expect(Object.keys(body ?? {}).sort(), where).toEqual(['code', 'message', 'status']);
  expect(body.status, where).toBe(answer.status);
  expect(STATUS[body.code as ErrorCode], where).toBe(answer.status);
  expect(body.message, where).toMatch(/\S/);
}
