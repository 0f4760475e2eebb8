import { Kind } from 'graphql';
import { CURSOR_MAX_LENGTH } from '../domain/cursor.js';
import { EVENT_TYPES, isEventType, type EventType } from '../domain/events.js';
import { MAX_SAFE_ID, isSafeId } from '../domain/ids.js';
import { appError } from '../errors.js';
import { builder } from './builder.js';

function parseSafeInt(value: unknown): number {
  if (isSafeId(value)) return value;
  throw appError('BAD_REQUEST', `Expected an integer from 1 to ${MAX_SAFE_ID}, got ${JSON.stringify(value)}`);
}

builder.scalarType('SafeInt', {
  description:
    `An integer from 1 to ${MAX_SAFE_ID} (2^53-1), sent and received as a JSON number. ` +
    'GraphQL\'s Int stops at 2^31-1; this range is the one every JSON parser carries exactly (I-JSON, RFC 7493).',
  serialize: (value) => {
    // Output comes from our own store: a value out of range there is a bug, not the client's fault.
    if (isSafeId(value)) return value;
    throw new TypeError(`SafeInt cannot represent ${JSON.stringify(value)}`);
  },
  parseValue: parseSafeInt,
  parseLiteral: (ast) => parseSafeInt(ast.kind === Kind.INT ? Number(ast.value) : 'value' in ast ? ast.value : ast.kind),
});

/** RFC 3339 in UTC, to the millisecond, as Date.prototype.toISOString writes it. */
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

function parseDateTime(value: unknown): string {
  if (typeof value === 'string' && RFC3339_UTC.test(value) && !Number.isNaN(Date.parse(value))) return new Date(value).toISOString();
  throw appError('BAD_REQUEST', `Expected an RFC 3339 date-time in UTC such as "2026-11-23T09:30:00.000Z", got ${JSON.stringify(value)}`);
}

builder.scalarType('DateTime', {
  description: 'A moment in time: an RFC 3339 date-time in UTC, to the millisecond, such as `2026-11-23T09:30:00.000Z`.',
  serialize: (value) => {
    if (typeof value === 'string' && RFC3339_UTC.test(value)) return value;
    throw new TypeError(`DateTime cannot represent ${JSON.stringify(value)}`);
  },
  parseValue: parseDateTime,
  parseLiteral: (ast) => parseDateTime(ast.kind === Kind.STRING ? ast.value : ast.kind),
});


function parseCursor(value: unknown): string {
  if (typeof value === 'string' && value.length > 0 && value.length <= CURSOR_MAX_LENGTH) return value;
  throw appError('BAD_REQUEST', `Expected a cursor: a string of 1 to ${CURSOR_MAX_LENGTH} characters, as a list gave it`);
}

builder.scalarType('Cursor', {
  description: 'An opaque position in a list, as a list gave it (its `next` link, or `pageInfo.endCursor`).',
  serialize: (value) => parseCursor(value),
  parseValue: parseCursor,
  parseLiteral: (ast) => parseCursor(ast.kind === Kind.STRING ? ast.value : ast.kind),
});

function parseEventType(value: unknown): EventType {
  if (isEventType(value)) return value;
  throw appError('BAD_REQUEST', `Expected an event type, one of ${EVENT_TYPES.join(', ')}; got ${JSON.stringify(value)}`);
}

// A string rather than an enum: GraphQL's enum values cannot hold the dot that webhooks and the feed
// share with the Standard Webhooks convention (`pet.created`).
builder.scalarType('EventType', {
  description: `What happened: one of ${EVENT_TYPES.map((type) => `\`${type}\``).join(', ')}.`,
  serialize: (value) => {
    if (isEventType(value)) return value;
    throw new TypeError(`EventType cannot represent ${JSON.stringify(value)}`);
  },
  parseValue: parseEventType,
  parseLiteral: (ast) => parseEventType(ast.kind === Kind.STRING ? ast.value : ast.kind),
});
