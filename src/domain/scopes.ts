import { EVENT_RECORDS, EVENT_TYPES, recordOf, type EventType } from './events.js';

/**
 * What a restricted key may do. A key made without scopes may do everything (keys from before scopes
 * among them); one made with some may call only the fields that need no other.
 */
export const SCOPES = ['pets:read', 'pets:write', 'orders:read', 'orders:write', 'webhooks'] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/** The scopes as stored and shown: space-separated (as OAuth writes them), in the table's order. */
export function scopesText(scopes: ReadonlySet<Scope>): string {
  return SCOPES.filter((scope) => scopes.has(scope)).join(' ');
}

/** The names in a list, spaces or commas between them (as stored, or as an operator writes them). */
export const scopeNames = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);

/** A stored list: null for a key that may do everything, else exactly the scopes it names. */
export function storedScopes(text: string | null): ReadonlySet<Scope> | null {
  return text === null ? null : new Set(scopeNames(text).filter(isScope));
}

/** Who may hear an event: a key that may read the record it carries (a webhook sends the record). */
export const scopeToHear = (type: EventType): Scope => EVENT_RECORDS[recordOf(type)].scope;

/**
 * The read scopes a restricted key lacks to hear these event types (none given: every type): a webhook
 * endpoint carries the records, so it may hear only what its key may read.
 */
export function missingToHear(types: readonly EventType[], granted: ReadonlySet<Scope>): { type: EventType; scope: Scope }[] {
  const heard = types.length > 0 ? types : EVENT_TYPES;
  return heard.map((type) => ({ type, scope: scopeToHear(type) })).filter(({ scope }) => !granted.has(scope));
}
