import { PLAN_NAMES } from '../domain/plans.js';
import { SCOPES } from '../domain/scopes.js';
import { ADMIN_BASE } from './routes.js';

const error = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
const json = (description: string, ref: string, headers?: object) => ({
  description, ...(headers ? { headers } : {}), content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } },
});
const nullableString = (description: string, format?: string) => ({ type: 'string', nullable: true, description, ...(format ? { format } : {}) });
const keyId = { name: 'keyId', in: 'path', required: true, description: 'The key\'s id (`keys list`)', schema: { type: 'integer', minimum: 1 } };
const location = { Location: { description: 'The new key', schema: { type: 'string' } } };
const refusals = {
  400: error('Bad input (`BAD_REQUEST`): a field or parameter the message names'),
  401: error('No operator token, or not one of ADMIN_TOKENS (`UNAUTHENTICATED`); API keys are not taken here'),
  503: error('The database did not answer in time (`UNAVAILABLE`); nothing was changed'),
};
const security = [{ operator: [] }];

/**
 * The admin API's own OpenAPI document (GET /admin/openapi.json on the admin port): operators' keys,
 * usage and audit log. Every answer the admin API gives matches it (its tests judge each).
 */
export const adminOpenApi = {
  openapi: '3.0.3',
  info: {
    title: 'Animal Store admin API',
    version: '1.0.0',
    description: 'Keys over HTTP for operators, on a port of its own (ADMIN_PORT, loopback by default), with an operator token (ADMIN_TOKENS), never an API key. '
      + 'Every call, refused ones included, is in the audit log: who (the token\'s name), what, when, from where, and how it ended. '
      + 'The keys command (`node dist/src/cli/keys.js`) makes the same calls, recorded as `cli:<user>` from `local`.',
  },
  servers: [{ url: ADMIN_BASE }],
  security,
  paths: {
    '/keys': {
      get: { operationId: 'listKeys', summary: 'Every key, oldest first (never the key or its hash).', responses: { 200: json('The keys', 'KeyList'), ...refusals } },
      post: {
        operationId: 'createKey', summary: 'Make a key: the key is in this answer only.',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewKey' } } } },
        responses: {
          201: json('The key, shown this once, and its record', 'CreatedKey', location), ...refusals,
          413: error('The body is over 64 KiB (`PAYLOAD_TOO_LARGE`)'), 415: error('The body is not JSON (`UNSUPPORTED_MEDIA_TYPE`)'),
        },
      },
    },
    '/keys/{keyId}': {
      get: { operationId: 'showKey', summary: 'One key.', parameters: [keyId], responses: { 200: json('The key', 'Key'), 404: error('No such key (`NOT_FOUND`)'), ...refusals } },
    },
    '/keys/{keyId}/usage': {
      get: {
        operationId: 'keyUsage', summary: 'A key\'s limits, last use (to the minute) and calls of deprecated fields.', parameters: [keyId],
        responses: { 200: json('Its usage', 'Usage'), 404: error('No such key (`NOT_FOUND`)'), ...refusals },
      },
    },
    '/keys/{keyId}/revoke': {
      post: {
        operationId: 'revokeKey', summary: 'Stop a key working: on every instance within KEY_CACHE_TTL_SECONDS. Revoking twice keeps the first date.', parameters: [keyId],
        responses: { 200: json('The key, revoked', 'Revoked'), 404: error('No such key (`NOT_FOUND`)'), ...refusals },
      },
    },
    '/keys/{keyId}/roll': {
      post: {
        operationId: 'rollKey', summary: 'A new key with the same plan, limits, name, scopes and documents; the old one works until the overlap ends. Its webhooks move to the new one.',
        parameters: [keyId, { name: 'overlapSeconds', in: 'query', required: false, description: 'How long the old key goes on working (default 86400; 0: it stops at once)', schema: { type: 'integer', minimum: 0, maximum: 7_776_000 } }],
        responses: {
          201: json('The new key, shown this once', 'Rolled', location), 404: error('No such key (`NOT_FOUND`)'),
          409: error('The key is revoked or expired (`CONFLICT`): make a new one'), ...refusals,
        },
      },
    },
    '/audit': {
      get: {
        operationId: 'auditLog', summary: 'The audit log, newest first, a page at a time.',
        parameters: [
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
          { name: 'before', in: 'query', required: false, description: 'An entry\'s id: the page after it (`next` gives it)', schema: { type: 'integer', minimum: 1 } },
        ],
        responses: { 200: json('A page of entries', 'AuditPage'), ...refusals },
      },
    },
  },
  components: {
    securitySchemes: { operator: { type: 'http', scheme: 'bearer', description: 'An operator token of ADMIN_TOKENS' } },
    schemas: {
      Error: {
        type: 'object', required: ['code', 'message', 'status'], additionalProperties: false,
        properties: { code: { type: 'string' }, message: { type: 'string' }, status: { type: 'integer' } },
      },
      NewKey: {
        type: 'object', required: ['plan'], additionalProperties: false,
        properties: {
          plan: { type: 'string', enum: PLAN_NAMES },
          name: { type: 'string', minLength: 1, maxLength: 255 },
          perMinute: { type: 'integer', minimum: 1, description: 'Enterprise only, with perDay' },
          perDay: { type: 'integer', minimum: 1, description: 'Enterprise only, with perMinute' },
          scopes: { type: 'string', description: `What it may call, comma- or space-separated: ${SCOPES.join(', ')}; every scope without it` },
          documents: { type: 'string', enum: ['any', 'registered'], description: 'Which GraphQL documents it may send; as GRAPHQL_DOCUMENTS says without it' },
          expiresAt: { type: 'string', format: 'date-time', description: 'When it stops working (in the future)' },
          expiresIn: { type: 'string', pattern: '^\\d{1,7}[smhd]$', description: 'Or how long it works: 90d, 24h, 30m, 45s' },
        },
      },
      Key: {
        type: 'object', additionalProperties: false,
        required: ['id', 'prefix', 'name', 'plan', 'perMinute', 'perDay', 'scopes', 'documents', 'standing', 'created', 'expires', 'revoked', 'lastUsed', 'deprecatedCalls', 'lastDeprecatedCall'],
        properties: {
          id: { type: 'integer' }, prefix: { type: 'string', description: 'The key\'s first characters, safe to show' }, name: nullableString('Its name'),
          plan: { type: 'string', enum: PLAN_NAMES }, perMinute: { type: 'integer' }, perDay: { type: 'integer' },
          scopes: { type: 'string', description: '`all`, or the scopes, space-separated' }, documents: { type: 'string', enum: ['default', 'any', 'registered'] },
          standing: { type: 'string', enum: ['open', 'expired', 'revoked'] },
          created: { type: 'string', format: 'date-time' }, expires: nullableString('When it stops working', 'date-time'),
          revoked: nullableString('When it was revoked', 'date-time'), lastUsed: nullableString('Its last use, to the minute', 'date-time'),
          deprecatedCalls: { type: 'integer', description: 'Its calls of deprecated fields (written every 10 s)' },
          lastDeprecatedCall: nullableString('The last of them', 'date-time'),
        },
      },
      KeyList: { type: 'object', required: ['keys'], additionalProperties: false, properties: { keys: { type: 'array', items: { $ref: '#/components/schemas/Key' } } } },
      CreatedKey: {
        type: 'object', required: ['key', 'record'], additionalProperties: false,
        properties: { key: { type: 'string', description: 'The key: shown this once, stored only as its hash' }, record: { $ref: '#/components/schemas/Key' } },
      },
      Revoked: {
        type: 'object', required: ['alreadyRevoked', 'record'], additionalProperties: false,
        properties: { alreadyRevoked: { type: 'boolean' }, record: { $ref: '#/components/schemas/Key' } },
      },
      Rolled: {
        type: 'object', required: ['key', 'record', 'predecessor'], additionalProperties: false,
        properties: {
          key: { type: 'string', description: 'The new key: shown this once' }, record: { $ref: '#/components/schemas/Key' },
          predecessor: {
            type: 'object', required: ['id', 'prefix', 'endsAt'], additionalProperties: false,
            properties: { id: { type: 'integer' }, prefix: { type: 'string' }, endsAt: { type: 'string', format: 'date-time' } },
          },
        },
      },
      Usage: {
        type: 'object', required: ['id', 'standing', 'perMinute', 'perDay', 'lastUsed', 'deprecatedCalls', 'lastDeprecatedCall'], additionalProperties: false,
        properties: {
          id: { type: 'integer' }, standing: { type: 'string', enum: ['open', 'expired', 'revoked'] }, perMinute: { type: 'integer' }, perDay: { type: 'integer' },
          lastUsed: nullableString('Its last use, to the minute', 'date-time'), deprecatedCalls: { type: 'integer' }, lastDeprecatedCall: nullableString('The last of them', 'date-time'),
        },
      },
      AuditEntry: {
        type: 'object', required: ['id', 'at', 'actor', 'action', 'keyId', 'origin', 'requestId', 'outcome'], additionalProperties: false,
        properties: {
          id: { type: 'integer' }, at: { type: 'string', format: 'date-time' },
          actor: { type: 'string', description: 'The operator\'s name in ADMIN_TOKENS, or `cli:<user>` for the keys command' },
          action: { type: 'string', enum: ['key.create', 'key.list', 'key.show', 'key.usage', 'key.revoke', 'key.roll', 'audit.list'] },
          keyId: { type: 'integer', nullable: true }, origin: { type: 'string', description: 'The client\'s address, or `local`' },
          requestId: nullableString('The call\'s X-Request-Id'), outcome: { type: 'integer', description: 'The HTTP status the call got' },
        },
      },
      AuditPage: {
        type: 'object', required: ['entries', 'next'], additionalProperties: false,
        properties: { entries: { type: 'array', items: { $ref: '#/components/schemas/AuditEntry' } }, next: nullableString('The next page, older entries') },
      },
    },
  },
} as const;
