import { Response as AdapterResponse } from '@whatwg-node/server';

/**
 * Header names lower-cased on the way in: whatwg-node's Headers keeps a plain-object init as given, and
 * a later `set` of the same name in another case adds a second header instead of replacing it.
 */
function lowerCaseNames(init?: ResponseInit): ResponseInit | undefined {
  const headers = init?.headers;
  if (!headers || Array.isArray(headers) || typeof (headers as Headers).get === 'function') return init;
  const lowered: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers as Record<string, string>)) lowered[name.toLowerCase()] = value;
  return { ...init, headers: lowered };
}

/**
 * Every response is built with the server adapter's own Response (whatwg-node's, on Node): the adapter
 * writes its body straight to the socket, while the platform's Response (undici) has to be read back
 * through a web stream, which cost /healthz more than half its time.
 */
export class Response extends AdapterResponse {
  constructor(body?: BodyInit | null, init?: ResponseInit) {
    super(body, lowerCaseNames(init));
  }

  static override json(data: unknown, init?: ResponseInit): Response {
    return AdapterResponse.json(data, lowerCaseNames(init));
  }
}
