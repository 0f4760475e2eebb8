import { appError } from '../errors.js';

/** 2^53-1: the largest integer every JSON parser carries exactly (I-JSON, RFC 7493). */
export const MAX_SAFE_ID = Number.MAX_SAFE_INTEGER;

/** An id or a category: an integer from 1 to 2^53-1. */
export function isSafeId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_SAFE_ID;
}

/** How many records one list returns. */
export const PAGE_SIZE = { min: 1, max: 100, default: 20 } as const;

/** The page size a list asked for, or the default; out of range is the client's error. */
export function pageSize(limit: number | null | undefined): number {
  const size = limit ?? PAGE_SIZE.default;
  if (size < PAGE_SIZE.min || size > PAGE_SIZE.max) {
    throw appError('BAD_REQUEST', `"limit" must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}, got ${size}`);
  }
  return size;
}
