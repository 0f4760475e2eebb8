/**
 * The Authorization a client sent in connection_init's payload, in either shape the common clients send
 * it: `{authorization: 'Bearer …'}` (Apollo's GraphQLWsLink and urql's recipes, any case of the name) or
 * `{headers: {Authorization: 'Bearer …'}}` (what a client that reuses its HTTP headers sends).
 */
export function authorizationOf(params: Readonly<Record<string, unknown>> | undefined): string | null {
  if (!params) return null;
  return headerIn(params) ?? (isRecord(params.headers) ? headerIn(params.headers) : null);
}

function headerIn(record: Readonly<Record<string, unknown>>): string | null {
  for (const [name, value] of Object.entries(record)) {
    if (name.toLowerCase() === 'authorization' && typeof value === 'string') return value;
  }
  return null;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
