import { Kind } from 'graphql';
import { appError } from '../errors.js';
import { builder } from './builder.js';

/** 2^53-1: the largest integer every JSON parser carries exactly (I-JSON, RFC 7493). */
export const MAX_SAFE_ID = Number.MAX_SAFE_INTEGER;

export function isSafeId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_SAFE_ID;
}

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
