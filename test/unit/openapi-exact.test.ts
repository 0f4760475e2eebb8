import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { getNamedType, isNonNullType, isObjectType } from 'graphql';
import type { OpenAPIV3 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { openApiJson } from '../../src/documents.js';
import { checkUrl } from '../../src/domain/webhooks.js';
import { schema } from '../../src/schema/index.js';

type Schema = OpenAPIV3.SchemaObject;

const doc = JSON.parse(openApiJson(schema)) as OpenAPIV3.Document;
const schemas = doc.components!.schemas as Record<string, Schema>;
const property = (type: string, name: string) => schemas[type]!.properties![name] as Schema;

// ajv-formats is CommonJS: depending on the loader, its plugin is the default export or that export's `default`.
const addFormats: typeof formats.default = typeof formats === 'function' ? formats : (formats as unknown as { default: typeof formats.default }).default;

/** AJV reads OpenAPI 3.0's `nullable` as the 3.0.3 wording does: beside a `type`, nowhere else; formats are checked, as a client's validator would. */
const ajv = new Ajv({ strict: false, validateSchema: false });
addFormats(ajv);
ajv.addSchema(doc as object, 'openapi.json');
function validates(type: string, value: unknown): boolean {
  return ajv.validate({ $ref: `openapi.json#/components/schemas/${type}` }, value) as boolean;
}

const PET = { id: 1, name: 'Rex', categoryId: 3, status: 'available' };
const EVENT = { id: 1, type: 'pet.created', occurredAt: '2026-11-23T09:30:00.000Z', pet: PET, order: null };
const DELIVERY = {
  id: 1, eventId: null, type: 'webhook.test', status: 'pending', attempts: 0, lastStatusCode: null, lastError: null,
  lastDurationMs: null, nextAttemptAt: null, createdAt: '2026-11-23T09:30:00.000Z', deliveredAt: null,
};
const ENDPOINT = { id: 1, url: 'https://hooks.example.com/in', types: [], enabled: true, disabledReason: null, createdAt: '2026-11-23T09:30:00.000Z' };

describe('the OpenAPI document says what the service sends', () => {
  it('lets an event\'s pet or order be null, as the feed sends them, and nothing else in their place', () => {
    expect(validates('Event', EVENT)).toBe(true);
    expect(validates('Event', { ...EVENT, pet: null, order: { id: 1, petId: 1, status: 'placed', complete: false, placedAt: EVENT.occurredAt } })).toBe(true);
    expect(validates('Event', { ...EVENT, pet: 'Rex' })).toBe(false);
  });

  it('lets a delivery\'s six unset fields and an endpoint\'s disabledReason be null', () => {
    expect(validates('WebhookDelivery', DELIVERY)).toBe(true);
    for (const field of ['deliveredAt', 'eventId', 'lastDurationMs', 'lastError', 'lastStatusCode', 'nextAttemptAt']) {
      expect(property('WebhookDelivery', field).nullable, field).toBe(true);
    }
    expect(validates('WebhookEndpoint', ENDPOINT)).toBe(true);
    expect(validates('CreatedWebhookEndpoint', { ...ENDPOINT, secret: 'whsec_x' })).toBe(true);
  });

  it('marks nullable every field GraphQL may answer null for, and required every field (each is in every answer)', () => {
    for (const [name, type] of Object.entries(schema.getTypeMap())) {
      const target = schemas[name];
      if (!isObjectType(type) || !target?.properties) continue;
      for (const [fieldName, field] of Object.entries(type.getFields())) {
        const prop = target.properties[fieldName] as Schema | undefined;
        if (!prop) continue;
        const nullable = prop.nullable === true || (prop.oneOf ?? []).some((s) => JSON.stringify(s) === '{"enum":[null]}');
        expect(nullable, `${name}.${fieldName}`).toBe(!isNonNullType(field.type));
      }
      expect(target.required, name).toEqual(Object.keys(target.properties).sort());
    }
  });
});

describe('the OpenAPI document states every limit the service enforces', () => {
  it('bounds an animal\'s name as checkName does: 1 to 255 characters, one not white space, no control character', () => {
    for (const type of ['NewPet', 'PetChange']) {
      expect(property(type, 'name')).toMatchObject({ minLength: 1, maxLength: 255, pattern: expect.any(String) });
      expect(validates(type, { name: 'x'.repeat(256), categoryId: 1 })).toBe(false);
      expect(validates(type, { name: ' \t', categoryId: 1 })).toBe(false);
      expect(validates(type, { name: 'Rex\u0007', categoryId: 1 })).toBe(false);
      expect(validates(type, { name: '🐶'.repeat(255), categoryId: 1 })).toBe(true);
    }
  });

  it('bounds a webhook\'s url to 2,048 characters and its types to each event type once', () => {
    for (const type of ['NewWebhookEndpoint', 'WebhookEndpointChange']) {
      expect(property(type, 'url')).toMatchObject({ minLength: 1, maxLength: 2048 });
      expect(property(type, 'types')).toMatchObject({ uniqueItems: true, maxItems: 5, nullable: true });
      expect(validates(type, { url: 'https://e.example/', types: ['pet.created', 'pet.created'] })).toBe(false);
      expect(validates(type, { url: `https://e.example/${'a'.repeat(2048)}` })).toBe(false);
      expect(validates(type, { url: 'https://e.example/', types: null })).toBe(true);
    }
  });

  // Spectral's OWASP rule api4:2023-string-restricted: a string input says what it may hold.
  it.each([
    'https://hooks.example.com/in', 'HTTPS://Hooks.Example.com', 'http://93.184.215.14:8080/a/b?x=1&y=%20', 'https://[2606:4700::1]/in', 'https://e.example/p@q',
  ])('lets a webhook\'s url be %s, an absolute URL the service takes', (url) => {
    for (const type of ['NewWebhookEndpoint', 'WebhookEndpointChange']) {
      expect(property(type, 'url')).toMatchObject({ format: 'uri', pattern: expect.any(String) });
      expect(validates(type, { url }), type).toBe(true);
      expect(() => checkUrl(url, true)).not.toThrow();
    }
  });

  it.each([
    'hooks.example.com/in', '/in', 'ftp://e.example/', 'https:e.example/in', 'https:\\\\e.example\\in', ' https://e.example/', 'https://e.example/in\n',
    'https://e.example/a b', 'https://user:pw@e.example/', 'https://@e.example/', 'https://e.example/#', 'https://e.example/#top',
  ])('refuses %j as a webhook\'s url, in the document as in the service', (url) => {
    for (const type of ['NewWebhookEndpoint', 'WebhookEndpointChange']) expect(validates(type, { url }), type).toBe(false);
    expect(() => checkUrl(url, true)).toThrow(/"url"/);
  });
});

describe('the OpenAPI document describes itself fully', () => {
  it('names whom to contact, without an invented address', () => {
    expect(doc.info.contact).toEqual({ name: expect.stringMatching(/\S/), url: '/v1/docs' });
  });

  it('describes every field of every schema', () => {
    const undescribed = Object.entries(schemas).flatMap(([name, s]) =>
      Object.entries(s.properties ?? {}).filter(([, p]) => !(p as Schema).description).map(([field]) => `${name}.${field}`));
    expect(undescribed).toEqual([]);
  });

  it.each([
    ['WebhookEndpoint', 'CreatedWebhookEndpoint'], ['NewWebhookEndpoint', 'WebhookEndpointChange'], ['NewPet', 'PetChange'],
  ])('describes each field %s shares with %s in the same words', (a, b) => {
    const shared = Object.keys(schemas[a]!.properties!).filter((field) => field in schemas[b]!.properties!);
    expect(shared.length).toBeGreaterThan(1);
    for (const field of shared) expect(property(b, field).description, field).toBe(property(a, field).description);
  });
});

describe('PageInfo', () => {
  it('has every field Relay\'s cursor connections name', () => {
    const pageInfo = schema.getType('PageInfo');
    if (!isObjectType(pageInfo)) throw new Error('PageInfo is no object type');
    const fields = Object.fromEntries(Object.entries(pageInfo.getFields()).map(([name, f]) => [name, String(f.type)]));
    expect(fields).toEqual({ hasNextPage: 'Boolean!', hasPreviousPage: 'Boolean!', startCursor: 'String', endCursor: 'String' });
    expect(getNamedType(pageInfo.getFields().startCursor!.type).name).toBe('String');
  });
});
