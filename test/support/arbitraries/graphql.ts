import fc from 'fast-check';
import { anyJson, oddText, petBody, storeBody, webhookBody } from './rest.js';

const VALID = [
  '{ pets { id name categoryId status } }',
  'query List($limit: Int, $status: PetStatus) { pets(limit: $limit, status: $status) { id name } }',
  'query One($id: SafeInt!) { pet(id: $id) { id name status } }',
  'mutation Create($input: NewPet!) { createPet(input: $input) { id name categoryId status } }',
  '{ a: pets(limit: 1) { id } b: pet(id: 1) { name } }',
  '{ __typename }',
  '{ __schema { queryType { name } } }',
  'fragment F on Pet { id name } query Q { pets(limit: 2) { ...F } }',
  'query Q($skip: Boolean!) { pets { id @skip(if: $skip) name } }',
  'query Orders($limit: Int, $status: OrderStatus) { orders(limit: $limit, status: $status) { id status placedAt pet { id orders { id } } } }',
  'mutation Place($input: NewOrder!) { placeOrder(input: $input) { id status pet { status } } }',
  'mutation Move($id: SafeInt!, $status: OrderStatus!) { updateOrder(orderId: $id, input: { status: $status }) { id status complete } }',
  'mutation Change($id: SafeInt!, $input: PetChange!) { updatePet(petId: $id, input: $input) { id name categoryId } }',
  'mutation Remove($id: SafeInt!) { deletePet(petId: $id) { id } }',
  'query Page($after: Cursor, $status: PetStatus) { petsConnection(first: 3, after: $after, status: $status) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }',
  'query Orders2($id: Cursor) { ordersConnection(after: $id) { pageInfo { endCursor } } orders(cursor: $id) { id } }',
  'subscription Watch($id: SafeInt) { petChanged(petId: $id) { kind pet { id } } }',
  'subscription Resume($from: SafeInt, $id: SafeInt) { orderChanged(after: $from, orderId: $id) { id occurredAt order { id } } }',
  'mutation Hook($input: NewWebhookEndpoint!) { createWebhookEndpoint(input: $input) { id url types } }',
  'mutation Rehook($id: SafeInt!, $hook: WebhookEndpointChange!) { updateWebhookEndpoint(endpointId: $id, input: $hook) { id enabled } }',
  'query Hooks($id: SafeInt!) { webhookEndpoints { id } webhookEndpoint(endpointId: $id) { url } webhookDeliveries(endpointId: $id) { id status } }',
  'mutation Ping($id: SafeInt!, $from: SafeInt!) { testWebhookEndpoint(endpointId: $id) { id } redeliverWebhook(endpointId: $id, deliveryId: $from) { id } }',
  'query Feed($from: SafeInt, $limit: Int, $type: EventType) { events(after: $from, limit: $limit, type: $type) { id type occurredAt pet { id } order { id pet { id } } } }',
  'query Node($id: ID!, $ids: [ID!]!) { node(id: $id) { nodeId ... on Pet { name orders { nodeId } } } nodes(ids: $ids) { __typename ... on Order { pet { nodeId } } ... on WebhookEndpoint { url } } }',
];

/** One edit to a document: a character inserted, deleted or replaced, or two documents spliced. */
const mutated = fc.tuple(fc.constantFrom(...VALID), fc.nat(), fc.oneof(fc.constantFrom('{', '}', '(', ')', '$', '@', '"', '...', '#', ':', '!', '[', ']', ' ', 'pets', 'id'), fc.string({ maxLength: 3 })), fc.constantFrom('insert', 'delete', 'replace'))
  .map(([doc, at, text, how]) => {
    const i = at % (doc.length + 1);
    return how === 'insert' ? doc.slice(0, i) + text + doc.slice(i)
      : how === 'delete' ? doc.slice(0, i) + doc.slice(i + text.length + 1)
        : doc.slice(0, i) + text + doc.slice(i + text.length);
  });

/** Nested selections, values and many aliases: within the limits or far past them (graphql-js's parser recurses per level). */
const heavy = fc.oneof(
  fc.integer({ min: 1, max: 40 }).map((n) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: pets(limit: 1) { id }`).join(' ')} }`),
  fc.integer({ min: 1, max: 30 }).map((n) => `{ pets { ${'__typename '.repeat(n)} } }`),
  fc.integer({ min: 1, max: 20 }).map((n) => `query Q { pets { id ${'... on Pet { '.repeat(n)}name${' }'.repeat(n)} } }`),
  fc.integer({ min: 1, max: 20 }).map((n) => `{ pets { id ${'@include(if: true) '.repeat(n)} } }`),
  fc.oneof(fc.integer({ min: 100, max: 160 }), fc.integer({ min: 1_000, max: 20_000 })).chain((n) => fc.constantFrom(
    `{ nodes(ids: ${'['.repeat(n)}${']'.repeat(n)}) { nodeId } }`,
    `{ pets(status: ${'{a: '.repeat(n)}1${'}'.repeat(n)}) { id } }`,
    `{ pets { ${'a { '.repeat(n)}id${' }'.repeat(n)} } }`,
  )),
);

/** A document: a valid one, an edited one, a heavy one, or text. */
export const graphqlDocument = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...VALID) }, { weight: 3, arbitrary: mutated },
  { weight: 1, arbitrary: heavy }, { weight: 1, arbitrary: oddText },
);

/** Variables: the right names with odd values, or anything at all. */
export const graphqlVariables = fc.oneof(
  fc.record({
    limit: fc.oneof(fc.integer({ min: -5, max: 200 }), oddText, anyJson),
    status: fc.oneof(fc.constantFrom('available', 'sold', 'AVAILABLE', 'placed', 'approved', 'delivered', 'cancelled'), oddText),
    id: fc.oneof(fc.integer(), fc.integer({ min: 1, max: 30 }), fc.constantFrom(1, 2 ** 53), oddText),
    input: fc.oneof(petBody, storeBody, webhookBody, anyJson),
    hook: fc.oneof(webhookBody, anyJson),
    skip: fc.oneof(fc.boolean(), anyJson),
    after: fc.oneof(oddText, fc.constantFrom('eyJsIjoicGV0cyIsInMiOm51bGwsImEiOjJ9.-0PmWNJ1JjL5fmSpJcrIfQ', '.', 'a.b')),
    from: fc.oneof(fc.integer(), fc.integer({ min: 1, max: 30 }), fc.constantFrom(2 ** 53, 2 ** 53 - 1), oddText),
    type: fc.oneof(fc.constantFrom('pet.created', 'order.updated', 'pet.sold', 'PET_CREATED'), oddText, anyJson),
    // Global ids: of each type (Pet:1, Order:1, WebhookEndpoint:1, Dog:1), odd text, and lists past the cap of 100.
    ids: fc.oneof(fc.array(fc.oneof(fc.constantFrom('UGV0OjE', 'T3JkZXI6MQ', 'V2ViaG9va0VuZHBvaW50OjE', 'RG9nOjE'), oddText), { maxLength: 120 }), anyJson),
  }, { requiredKeys: [] }),
  anyJson,
);

/** A whole GraphQL-over-HTTP body, perhaps with fields of the wrong type. */
export const graphqlBody = fc.record({
  query: fc.oneof({ weight: 9, arbitrary: graphqlDocument }, { weight: 1, arbitrary: anyJson }),
  variables: graphqlVariables,
  operationName: fc.oneof(fc.constantFrom('List', 'One', 'Create', 'Q', 'Nope', '', 'Orders', 'Place', 'Move', 'Change', 'Remove', 'Watch', 'Node'), anyJson),
  extensions: anyJson,
}, { requiredKeys: ['query'] });
