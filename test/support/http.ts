/** Small helpers so each test reads as the request it makes. */
export interface Reply<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

export async function call<T = any>(url: string, init: RequestInit & { json?: unknown } = {}): Promise<Reply<T>> {
  const { json, headers, ...rest } = init;
  const response = await fetch(url, {
    ...rest,
    headers: { ...(json !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: json !== undefined ? JSON.stringify(json) : rest.body,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch { /* not JSON: keep the text */ }
  return { status: response.status, headers: response.headers, body: body as T };
}
