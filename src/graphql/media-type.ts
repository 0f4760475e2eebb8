/** The media types of a GraphQL-over-HTTP answer that is not a stream, in yoga's order. */
const REGULAR = ['application/graphql-response+json', 'application/json'] as const;
export type ResponseMediaType = (typeof REGULAR)[number];

/**
 * The media type yoga answers a single result with, chosen yoga's way (graphql-yoga's accept.js and
 * use-result-processor.js, which the package does not export): Accept's entries in reverse, each tried
 * against the types in order, the last match winning, so the first acceptable entry decides and a
 * wildcard means application/json. Our refusals are answered in it, so a client that reads errors only
 * from application/graphql-response+json (Apollo Client) reads ours. Nothing acceptable: JSON.
 */
export function responseMediaType(accept: string | null): ResponseMediaType {
  let chosen: ResponseMediaType | undefined;
  for (const asked of askedMediaTypes(accept)) {
    for (const type of REGULAR) if (matches(type, asked)) chosen = type;
  }
  return chosen ?? 'application/json';
}

/** Accept's media types, last first, without those whose charset is not UTF-8 (yoga's getMediaTypesForRequestInOrder). */
function askedMediaTypes(accept: string | null): string[] {
  const types: string[] = [];
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [type = '', ...params] = entry.split(';');
    const charset = params.find((param) => param.includes('charset=')) ?? 'charset=utf-8';
    if (charset === 'charset=utf-8') types.push(type);
  }
  return types.reverse();
}

/** The asked type may be a wildcard, of any type or of any subtype. */
function matches(type: string, asked: string): boolean {
  const [askedType, askedSubtype] = asked.split('/');
  const [kind, subtype] = type.split('/');
  return (askedType === '*' || askedType === kind) && (askedSubtype === '*' || askedSubtype === subtype);
}

/**
 * Whether a client is answered with an event stream whatever the result: it accepts one, and none of the
 * types of a single result (yoga picks those for a result that is not a stream, whenever it may).
 */
export function takesOnlyEventStreams(accept: string | null): boolean {
  const asked = askedMediaTypes(accept);
  return asked.some((type) => matches('text/event-stream', type))
    && !asked.some((type) => REGULAR.some((regular) => matches(regular, type)));
}

/** Whether Accept names a media type of a single result (or a wildcard that covers one). */
export function acceptsSingleAnswers(accept: string | null): boolean {
  return askedMediaTypes(accept).some((type) => REGULAR.some((regular) => matches(regular, type)));
}
