import type { GraphQLField, GraphQLSchema } from 'graphql';

/**
 * The REST surface, field by field: SOFA builds each route from it, the transport guard answers 404/405
 * from it, and the OpenAPI document takes its operationIds from it.
 */
export const REST_BASE = '/v1';

export interface RestRoute {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Relative to REST_BASE; a `:name` segment is the GraphQL argument of that name. */
  readonly path: string;
  readonly operationId: string;
  readonly responseStatus?: number;
  /** Where a created record lives (Location of the 201), relative to REST_BASE: `:name` is the record's field. */
  readonly location?: string;
  /** Error statuses the route answers beyond those every route of its method and path can. */
  readonly errors?: readonly number[];
  /** Answered 204 without a body (the field's value is for GraphQL clients). */
  readonly noContent?: boolean;
  readonly tags?: string[];
}

export const REST_ROUTES = {
  'Query.pets': { method: 'GET', path: '/pets', operationId: 'listPets', tags: ['pets'] },
  'Mutation.createPet': { method: 'POST', path: '/pets', operationId: 'createPet', responseStatus: 201, location: '/pets/:id', tags: ['pets'] },
  'Query.pet': { method: 'GET', path: '/pets/:petId', operationId: 'getPet', tags: ['pets'] },
  'Mutation.updatePet': { method: 'PATCH', path: '/pets/:petId', operationId: 'updatePet', tags: ['pets'] },
  'Mutation.deletePet': { method: 'DELETE', path: '/pets/:petId', operationId: 'deletePet', noContent: true, errors: [409], tags: ['pets'] },
  'Query.orders': { method: 'GET', path: '/store/orders', operationId: 'listOrders', tags: ['store'] },
  'Mutation.placeOrder': {
    method: 'POST', path: '/store/orders', operationId: 'placeOrder', responseStatus: 201, location: '/store/orders/:id', errors: [404, 409], tags: ['store'],
  },
  'Query.order': { method: 'GET', path: '/store/orders/:orderId', operationId: 'getOrder', tags: ['store'] },
  'Mutation.updateOrder': { method: 'PATCH', path: '/store/orders/:orderId', operationId: 'updateOrder', errors: [409], tags: ['store'] },
  'Query.events': { method: 'GET', path: '/events', operationId: 'listEvents', errors: [410], tags: ['events'] },
  'Query.webhookEndpoints': { method: 'GET', path: '/webhooks', operationId: 'listWebhookEndpoints', tags: ['webhooks'] },
  'Mutation.createWebhookEndpoint': {
    method: 'POST', path: '/webhooks', operationId: 'createWebhookEndpoint', responseStatus: 201, location: '/webhooks/:id', errors: [409], tags: ['webhooks'],
  },
  'Query.webhookEndpoint': { method: 'GET', path: '/webhooks/:endpointId', operationId: 'getWebhookEndpoint', tags: ['webhooks'] },
  'Mutation.updateWebhookEndpoint': { method: 'PATCH', path: '/webhooks/:endpointId', operationId: 'updateWebhookEndpoint', tags: ['webhooks'] },
  'Mutation.deleteWebhookEndpoint': { method: 'DELETE', path: '/webhooks/:endpointId', operationId: 'deleteWebhookEndpoint', noContent: true, tags: ['webhooks'] },
  'Mutation.testWebhookEndpoint': { method: 'POST', path: '/webhooks/:endpointId/test', operationId: 'testWebhookEndpoint', responseStatus: 202, errors: [409], tags: ['webhooks'] },
  'Query.webhookDeliveries': { method: 'GET', path: '/webhooks/:endpointId/deliveries', operationId: 'listWebhookDeliveries', tags: ['webhooks'] },
  'Mutation.redeliverWebhook': {
    method: 'POST', path: '/webhooks/:endpointId/deliveries/:deliveryId/redeliver', operationId: 'redeliverWebhook', responseStatus: 202, errors: [409], tags: ['webhooks'],
  },
  'Query.rateLimit': { method: 'GET', path: '/rate_limit', operationId: 'getRateLimit', tags: ['limits'] },
} as const satisfies Record<string, RestRoute>;

/** A request body is the field's argument of this name, unwrapped: `POST /v1/pets` takes a NewPet itself. */
export const BODY_ARGUMENT = 'input';

/** Routes that create, and so take an Idempotency-Key (on /graphql, every mutation does). */
export const takesIdempotencyKey = (route: RestRoute) => route.method === 'POST';

/** Methods whose request carries a body (the route's BODY_ARGUMENT), and the media types each takes. */
export const BODY_TYPES: Readonly<Partial<Record<RestRoute['method'], readonly string[]>>> = {
  POST: ['application/json'],
  // RFC 7396: a merge patch is JSON too; its null (remove a field) is refused, as no field may be removed.
  PATCH: ['application/json', 'application/merge-patch+json'],
};

/** The media types a route's body may come in; none for a route whose field takes no body argument (a test event, a redelivery). */
export function bodyTypesOf(route: RestRoute, field: GraphQLField<unknown, unknown>): readonly string[] | undefined {
  return field.args.some((arg) => arg.name === BODY_ARGUMENT) ? BODY_TYPES[route.method] : undefined;
}

export interface RoutedField {
  readonly key: string;
  /** `Query` or `Mutation`. */
  readonly typeName: string;
  readonly route: RestRoute;
  readonly field: GraphQLField<unknown, unknown>;
}

/** Each REST route with the GraphQL field it serves, so headers and docs can read the field's metadata. */
export function routedFields(schema: GraphQLSchema): RoutedField[] {
  return Object.entries(REST_ROUTES).map(([coordinate, route]) => {
    const [typeName, fieldName = ''] = coordinate.split('.');
    const field = (typeName === 'Query' ? schema.getQueryType() : schema.getMutationType())?.getFields()[fieldName];
    if (!field) throw new Error(`REST route ${coordinate} names no field of the schema`);
    return { key: routeKey(route), route, field, typeName: typeName! };
  });
}

/** `METHOD /path`, as the transport guard and the REST adapter name a route. */
export function routeKey(route: RestRoute): string {
  return `${route.method} ${route.path}`;
}
