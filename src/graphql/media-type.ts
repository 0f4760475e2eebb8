/** The media types of a GraphQL-over-HTTP answer that is not a stream, in yoga's order. */
const REGULAR = ['application/graphql-response+json', 'application/json'] as const;
export type ResponseMediaType = (typeof REGULAR)[number];

/** What one Accept value says, for every question asked of it. */
interface AcceptRead {
  readonly mediaType: ResponseMediaType;
  readonly onlyEventStreams: boolean;
  readonly singleAnswers: boolean;
}

/**
 * Clients send a handful of Accept values, each on every request: each is read once. The values come
 * from clients, so only the first few (and short ones) are kept; any other is read each time.
 */
const KEPT_VALUES = 64;
const KEPT_LENGTH = 512;
const reads = new Map<string, AcceptRead>();

function read(accept: string | null): AcceptRead {
  const value = accept || '*/*';
  let found = reads.get(value);
  if (!found) {
    found = readAccept(value);
    if (reads.size < KEPT_VALUES && value.length <= KEPT_LENGTH) reads.set(value, found);
  }
  return found;
}

function readAccept(accept: string): AcceptRead {
  const asked = askedMediaTypes(accept);
  const singleAnswers = asked.some((type) => REGULAR.some((regular) => matches(regular, type)));
  return {
    mediaType: chosenType(asked),
    onlyEventStreams: !singleAnswers && asked.some((type) => matches('text/event-stream', type)),
    singleAnswers,
  };
}

/**
 * The media type yoga answers a single result with, chosen yoga's way (graphql-yoga's accept.js and
 * use-result-processor.js, which the package does not export): Accept's entries in reverse, each tried
 * against the types in order, the last match winning, so the first acceptable entry decides and a
 * wildcard means application/json. Our refusals are answered in it, so a client that reads errors only
 * from application/graphql-response+json (Apollo Client) reads ours. Nothing acceptable: JSON.
 */
export function responseMediaType(accept: string | null): ResponseMediaType {
  return read(accept).mediaType;
}

function chosenType(asked: readonly string[]): ResponseMediaType {
  let chosen: ResponseMediaType | undefined;
  for (const type of asked) {
    for (const regular of REGULAR) if (matches(regular, type)) chosen = regular;
  }
  return chosen ?? 'application/json';
}

/** Accept's media types, last first, without those whose charset is not UTF-8 (yoga's getMediaTypesForRequestInOrder). */
function askedMediaTypes(accept: string): string[] {
  const types: string[] = [];
  for (const entry of accept.replace(/\s/g, '').toLowerCase().split(',')) {
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
  return read(accept).onlyEventStreams;
}

/** Whether Accept names a media type of a single result (or a wildcard that covers one). */
export function acceptsSingleAnswers(accept: string | null): boolean {
  return read(accept).singleAnswers;
}
