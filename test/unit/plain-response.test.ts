import { describe, expect, it } from 'vitest';
import { isPlainResponse, Response } from '../../src/pipeline/response.js';

describe("the service's own responses read as the Fetch API's", () => {
  it('a JSON answer carries its type and its length in bytes, and reads back', async () => {
    const response = Response.json({ name: 'Rex ü' }, { status: 201, headers: { 'X-Request-Id': 'a' } });
    expect(isPlainResponse(response)).toBe(true);
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength('{"name":"Rex ü"}')));
    expect(response.headers.get('x-request-id')).toBe('a');
    expect(await response.clone().json()).toEqual({ name: 'Rex ü' });
    expect(await response.text()).toBe('{"name":"Rex ü"}');
  });

  it('a header set in another case replaces it, as in Headers', () => {
    const response = new Response('x', { headers: { Vary: 'Accept' } });
    response.headers.set('vary', 'Origin');
    expect([...response.headers].filter(([name]) => name === 'vary')).toEqual([['vary', 'Origin']]);
    expect(response.headers.get('content-type')).toBe('text/plain;charset=UTF-8');
  });

  it('has no JSON for undefined, as the platform', () => {
    expect(() => Response.json(undefined)).toThrow(TypeError);
  });

  it('a streamed body is the server adapter\'s Response, which node:http is given to pump', async () => {
    const stream = new ReadableStream({ start(controller) { controller.enqueue(new TextEncoder().encode('data: 1\n\n')); controller.close(); } });
    const response = new Response(stream, { headers: { 'Content-Type': 'text/event-stream' } });
    expect(isPlainResponse(response)).toBe(false);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe('data: 1\n\n');
  });
});
