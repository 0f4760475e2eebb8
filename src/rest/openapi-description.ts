import { CHANGEABLE_PET_FIELDS } from '../domain/pet.js';
import { PLANS } from '../domain/plans.js';
import { SETTINGS } from '../settings/declarations.js';

const plans = Object.entries(PLANS).map(([plan, limits]) =>
  `| ${plan} | ${limits ? limits.perMinute.toLocaleString('en') : 'custom'} | ${limits ? limits.perDay.toLocaleString('en') : 'custom'} |`);

/** 60 → `a minute`, 600 → `10 minutes`: how the document says a default's seconds. */
const spoken = (seconds: number) => {
  const [count, unit] = seconds % 3_600 === 0 ? [seconds / 3_600, 'hour'] : seconds % 60 === 0 ? [seconds / 60, 'minute'] : [seconds, 'second'];
  return count === 1 ? `a ${unit}` : `${count} ${unit}s`;
};
const { BAN_THRESHOLD, BAN_WINDOW_SECONDS, BAN_SECONDS, ANONYMOUS_PER_MINUTE } = SETTINGS;

/** The document's introduction: what the API is, its rules of the road, and the plans' limits. */
export const DESCRIPTION = `An HTTP and JSON interface to a store of animals: list them, add one, fetch one (deprecated),
change or remove one, and order them. The same operations are served as GraphQL at \`/graphql\`, with live
events (subscriptions) besides.

## Orders and the animal's status
An order is \`placed\`, then \`approved\`, then \`delivered\`; a placed or approved order can be
\`cancelled\`. Any other move is \`409 CONFLICT\`. The animal follows its order in the same transaction:
ordering needs an \`available\` animal and makes it \`pending\`; delivery makes it \`sold\`; cancelling
makes it \`available\` again. An animal's status changes only this way: a change (\`PATCH\`) may set its
${CHANGEABLE_PET_FIELDS.map((field) => `\`${field}\``).join(' and ')}, never its \`status\`. An animal that has orders cannot be deleted (\`409\`).

## Query parameters
A parameter sent empty counts as absent, as an HTML form sends an empty field: \`?status=\` is no filter and
\`?limit=\` the default. Parameters the operation does not know are ignored; one sent twice is \`400\`.

## Authentication
Every operation needs an API key: \`Authorization: Bearer <key>\` (the scheme in any case). A missing,
unknown, mistyped (its checksum does not match), expired or revoked key gets \`401 UNAUTHENTICATED\` with
\`WWW-Authenticate: Bearer\`; the message says which.

A key may be restricted to scopes: \`pets:read\`, \`pets:write\`, \`orders:read\`, \`orders:write\`,
\`webhooks\` (a key without them may call everything). Each operation says which it needs
(\`x-required-scopes\`); a call outside the key's scopes is \`403 FORBIDDEN\`, its message naming the
missing scope, and costs its point like any call. The event feed needs both read scopes; a webhook
endpoint hears only the events of records its key may read.

## Errors
Every error has the body \`{code, message, status}\`. A client that sends
\`Accept: application/problem+json\` gets RFC 9457 problem details instead: \`type\`, \`title\`,
\`status\`, \`detail\` (the message), \`instance\` (the request id) and \`code\`; a 429 is of the type
\`https://iana.org/assignments/http-problem-types#quota-exceeded\` and names its refusing windows in
\`violated-policies\`.

## Rate limits
Each key has two fixed windows, a minute (reset at every whole minute) and a day (reset at 00:00 UTC), by
plan:

| Plan | Requests per minute | Requests per day |
|---|---|---|
${plans.join('\n')}

Every REST call costs one point of this budget. The same budget serves GraphQL at \`/graphql\`, where an
operation costs one point per root field it selects, aliases included. Every response carries
\`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` (points left, this request counted) and
\`X-RateLimit-Reset\` (unix seconds) for the window with the fewest points remaining (the shorter one on
a tie), and the IETF draft's \`RateLimit-Policy\` and \`RateLimit\` fields for every window. Over a limit: \`429 RATE_LIMITED\` with \`Retry-After\` seconds; refused requests count against no
window. Back off exponentially: by default, ${BAN_THRESHOLD.default} refused requests within ${spoken(BAN_WINDOW_SECONDS.default)} ban the key for ${spoken(BAN_SECONDS.default)}
(\`429 API_KEY_BANNED\`, \`Retry-After\` the rest of the ban). Requests without a valid key are limited per
client address (${ANONYMOUS_PER_MINUTE.default} a minute).

## Terms of use
A private API: using it needs an API key from the service's operator. The API and this document are
proprietary; no licence to them is granted.`;
