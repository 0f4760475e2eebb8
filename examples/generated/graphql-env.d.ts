/* eslint-disable */
/* prettier-ignore */

export type introspection_types = {
    'Boolean': unknown;
    'ChangeKind': { name: 'ChangeKind'; enumValues: 'CREATED' | 'DELETED' | 'UPDATED'; };
    'Cursor': unknown;
    'DateTime': unknown;
    'Event': { kind: 'OBJECT'; name: 'Event'; fields: { 'id': { name: 'id'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'SafeInt'; ofType: null; }; } }; 'occurredAt': { name: 'occurredAt'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'DateTime'; ofType: null; }; } }; 'order': { name: 'order'; type: { kind: 'OBJECT'; name: 'Order'; ofType: null; } }; 'pet': { name: 'pet'; type: { kind: 'OBJECT'; name: 'Pet'; ofType: null; } }; 'type': { name: 'type'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'EventType'; ofType: null; }; } }; }; };
    'EventType': unknown;
    'Int': unknown;
    'Mutation': { kind: 'OBJECT'; name: 'Mutation'; fields: { 'createPet': { name: 'createPet'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'Pet'; ofType: null; }; } }; 'deletePet': { name: 'deletePet'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'Pet'; ofType: null; }; } }; 'placeOrder': { name: 'placeOrder'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'Order'; ofType: null; }; } }; 'updateOrder': { name: 'updateOrder'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'Order'; ofType: null; }; } }; 'updatePet': { name: 'updatePet'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'Pet'; ofType: null; }; } }; }; };
    'NewOrder': { kind: 'INPUT_OBJECT'; name: 'NewOrder'; isOneOf: false; inputFields: [{ name: 'petId'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'SafeInt'; ofType: null; }; }; defaultValue: null }]; };
    'NewPet': { kind: 'INPUT_OBJECT'; name: 'NewPet'; isOneOf: false; inputFields: [{ name: 'categoryId'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'SafeInt'; ofType: null; }; }; defaultValue: null }, { name: 'name'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'String'; ofType: null; }; }; defaultValue: null }, { name: 'status'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'ENUM'; name: 'PetStatus'; ofType: null; }; }; defaultValue: "available" }]; };
    'Order': { kind: 'OBJECT'; name: 'Order'; fields: { 'complete': { name: 'complete'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'Boolean'; ofType: null; }; } }; 'id': { name: 'id'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'SafeInt'; ofType: null; }; } }; 'pet': { name: 'pet'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'Pet'; ofType: null; }; } }; 'petId': { name: 'petId'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'SafeInt'; ofType: null; }; } }; 'placedAt': { name: 'placedAt'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'DateTime'; ofType: null; }; } }; 'status': { name: 'status'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'ENUM'; name: 'OrderStatus'; ofType: null; }; } }; }; };
    'OrderChange': { kind: 'INPUT_OBJECT'; name: 'OrderChange'; isOneOf: false; inputFields: [{ name: 'status'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'ENUM'; name: 'OrderStatus'; ofType: null; }; }; defaultValue: null }]; };
    'OrderConnection': { kind: 'OBJECT'; name: 'OrderConnection'; fields: { 'edges': { name: 'edges'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'LIST'; name: never; ofType: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'OrderEdge'; ofType: null; }; }; }; } }; 'pageInfo': { name: 'pageInfo'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'PageInfo'; ofType: null; }; } }; }; };
    'OrderEdge': { kind: 'OBJECT'; name: 'OrderEdge'; fields: { 'cursor': { name: 'cursor'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'Cursor'; ofType: null; }; } }; 'node': { name: 'node'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'Order'; ofType: null; }; } }; }; };
    'OrderEvent': { kind: 'OBJECT'; name: 'OrderEvent'; fields: { 'id': { name: 'id'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'SafeInt'; ofType: null; }; } }; 'kind': { name: 'kind'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'ENUM'; name: 'ChangeKind'; ofType: null; }; } }; 'occurredAt': { name: 'occurredAt'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'DateTime'; ofType: null; }; } }; 'order': { name: 'order'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'Order'; ofType: null; }; } }; }; };
    'OrderStatus': { name: 'OrderStatus'; enumValues: 'approved' | 'cancelled' | 'delivered' | 'placed'; };
    'PageInfo': { kind: 'OBJECT'; name: 'PageInfo'; fields: { 'endCursor': { name: 'endCursor'; type: { kind: 'SCALAR'; name: 'String'; ofType: null; } }; 'hasNextPage': { name: 'hasNextPage'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'Boolean'; ofType: null; }; } }; }; };
    'Pet': { kind: 'OBJECT'; name: 'Pet'; fields: { 'categoryId': { name: 'categoryId'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'SafeInt'; ofType: null; }; } }; 'id': { name: 'id'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'SafeInt'; ofType: null; }; } }; 'name': { name: 'name'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'String'; ofType: null; }; } }; 'orders': { name: 'orders'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'LIST'; name: never; ofType: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'Order'; ofType: null; }; }; }; } }; 'status': { name: 'status'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'ENUM'; name: 'PetStatus'; ofType: null; }; } }; }; };
    'PetChange': { kind: 'INPUT_OBJECT'; name: 'PetChange'; isOneOf: false; inputFields: [{ name: 'categoryId'; type: { kind: 'SCALAR'; name: 'SafeInt'; ofType: null; }; defaultValue: null }, { name: 'name'; type: { kind: 'SCALAR'; name: 'String'; ofType: null; }; defaultValue: null }]; };
    'PetConnection': { kind: 'OBJECT'; name: 'PetConnection'; fields: { 'edges': { name: 'edges'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'LIST'; name: never; ofType: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'PetEdge'; ofType: null; }; }; }; } }; 'pageInfo': { name: 'pageInfo'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'PageInfo'; ofType: null; }; } }; }; };
    'PetEdge': { kind: 'OBJECT'; name: 'PetEdge'; fields: { 'cursor': { name: 'cursor'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'Cursor'; ofType: null; }; } }; 'node': { name: 'node'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'Pet'; ofType: null; }; } }; }; };
    'PetEvent': { kind: 'OBJECT'; name: 'PetEvent'; fields: { 'id': { name: 'id'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'SafeInt'; ofType: null; }; } }; 'kind': { name: 'kind'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'ENUM'; name: 'ChangeKind'; ofType: null; }; } }; 'occurredAt': { name: 'occurredAt'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'DateTime'; ofType: null; }; } }; 'pet': { name: 'pet'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'Pet'; ofType: null; }; } }; }; };
    'PetStatus': { name: 'PetStatus'; enumValues: 'available' | 'pending' | 'sold'; };
    'Query': { kind: 'OBJECT'; name: 'Query'; fields: { 'events': { name: 'events'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'LIST'; name: never; ofType: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'Event'; ofType: null; }; }; }; } }; 'order': { name: 'order'; type: { kind: 'OBJECT'; name: 'Order'; ofType: null; } }; 'orders': { name: 'orders'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'LIST'; name: never; ofType: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'Order'; ofType: null; }; }; }; } }; 'ordersConnection': { name: 'ordersConnection'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'OrderConnection'; ofType: null; }; } }; 'pet': { name: 'pet'; type: { kind: 'OBJECT'; name: 'Pet'; ofType: null; } }; 'pets': { name: 'pets'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'LIST'; name: never; ofType: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'Pet'; ofType: null; }; }; }; } }; 'petsConnection': { name: 'petsConnection'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'PetConnection'; ofType: null; }; } }; 'rateLimit': { name: 'rateLimit'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'RateLimit'; ofType: null; }; } }; }; };
    'RateLimit': { kind: 'OBJECT'; name: 'RateLimit'; fields: { 'plan': { name: 'plan'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'String'; ofType: null; }; } }; 'windows': { name: 'windows'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'LIST'; name: never; ofType: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'RateLimitWindow'; ofType: null; }; }; }; } }; }; };
    'RateLimitWindow': { kind: 'OBJECT'; name: 'RateLimitWindow'; fields: { 'limit': { name: 'limit'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'Int'; ofType: null; }; } }; 'name': { name: 'name'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'String'; ofType: null; }; } }; 'remaining': { name: 'remaining'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'Int'; ofType: null; }; } }; 'reset': { name: 'reset'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'SCALAR'; name: 'SafeInt'; ofType: null; }; } }; }; };
    'SafeInt': unknown;
    'String': unknown;
    'Subscription': { kind: 'OBJECT'; name: 'Subscription'; fields: { 'orderChanged': { name: 'orderChanged'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'OrderEvent'; ofType: null; }; } }; 'petChanged': { name: 'petChanged'; type: { kind: 'NON_NULL'; name: never; ofType: { kind: 'OBJECT'; name: 'PetEvent'; ofType: null; }; } }; }; };
};

/** An IntrospectionQuery representation of your schema.
 *
 * @remarks
 * This is an introspection of your schema saved as a file by GraphQLSP.
 * It will automatically be used by `gql.tada` to infer the types of your GraphQL documents.
 * If you need to reuse this data or update your `scalars`, update `tadaOutputLocation` to
 * instead save to a .ts instead of a .d.ts file.
 */
export type introspection = {
  name: never;
  query: 'Query';
  mutation: 'Mutation';
  subscription: 'Subscription';
  types: introspection_types;
};

import * as gqlTada from 'gql.tada';

declare module 'gql.tada' {
  interface setupSchema {
    introspection: introspection
  }
}