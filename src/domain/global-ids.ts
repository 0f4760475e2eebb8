import { appError } from '../errors.js';
import { isSafeId } from './ids.js';

/**
 * Global ids: one string names one record of any type (Relay's Object Identification), where the
 * integer ids repeat across types (pet 1 and order 1). Opaque to clients, so the form may change: today
 * base64url (no padding) of `Type:id`.
 */
export const NODE_TYPES = ['Pet', 'Order', 'WebhookEndpoint'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

const isNodeType = (text: string): text is NodeType => (NODE_TYPES as readonly string[]).includes(text);

/** `WebhookEndpoint:9007199254740991`, encoded, is 44 characters: anything longer is refused before decoding. */
export const GLOBAL_ID_MAX_LENGTH = 44;

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const TYPED = /^([A-Za-z]+):(0|[1-9][0-9]*)$/;

export const globalId = (type: NodeType, id: number): string => Buffer.from(`${type}:${id}`).toString('base64url');

/** What a refusal shows of the id: enough to recognise it, never a whole large input. */
const shown = (text: string) => JSON.stringify(text.length > GLOBAL_ID_MAX_LENGTH ? `${text.slice(0, GLOBAL_ID_MAX_LENGTH)}…` : text);

/**
 * The type and integer id a global id names; BAD_REQUEST naming the argument for anything else: not
 * base64url, not in the one spelling globalId writes (so two strings never name one record), an unknown
 * type, or an id outside 1..2^53-1.
 */
export function parseGlobalId(text: string, argument: string): { type: NodeType; id: number } {
  const refuse = (why: string) => appError('BAD_REQUEST', `"${argument}" must be a global id as a nodeId field gives it; ${shown(text)} ${why}`);
  if (text.length > GLOBAL_ID_MAX_LENGTH || !BASE64URL.test(text)) throw refuse('is not one');
  const decoded = Buffer.from(text, 'base64url').toString('utf8');
  const [, type = '', digits = ''] = TYPED.exec(decoded) ?? [];
  if (!type || Buffer.from(decoded).toString('base64url') !== text) throw refuse('is not one');
  if (!isNodeType(type)) throw refuse(`names the type ${JSON.stringify(type)}, which has none: ${NODE_TYPES.join(', ')} have`);
  const id = Number(digits);
  if (!isSafeId(id) || String(id) !== digits) throw refuse('holds an id outside 1 to 2^53-1');
  return { type, id };
}
