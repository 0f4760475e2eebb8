/**
 * The GraphQL API with gql.tada: results and variables are inferred from the documents below and the
 * introspection generated from the committed schema/schema.graphql; no code generation per query.
 * Run against a server: API_URL=http://localhost:8080 API_KEY=<key> node --import tsx examples/graphql-client.ts
 */
import { print } from 'graphql';
import type { TadaDocumentNode } from 'gql.tada';
import { graphql, type ResultOf, type VariablesOf } from './graphql.js';
import { runDirectly } from './run-directly.js';

export const CreatePet = graphql(`
  mutation CreatePet($input: NewPet!) { createPet(input: $input) { id name categoryId status } }
`);

export const ListPets = graphql(`
  query ListPets($limit: Int, $status: PetStatus) { pets(limit: $limit, status: $status) { id name categoryId status } }
`);

/** Deprecated in the schema, like GET /v1/pets/{petId}; still served until its removal date. */
export const GetPet = graphql(`
  query GetPet($petId: SafeInt!) { pet(petId: $petId) { id name categoryId status } }
`);

/** Ordering and moving an order on; the nested `pet` shows the animal following in the same transaction. */
export const PlaceOrder = graphql(`
  mutation PlaceOrder($petId: SafeInt!) { placeOrder(input: { petId: $petId }) { id status pet { id status } } }
`);

/** The event feed: the changes, oldest first; follow it with `after` set to the last id read. */
export const Events = graphql(`
  query Events($after: SafeInt, $type: EventType) { events(after: $after, type: $type, limit: 100) { id type pet { id name } order { id status } } }
`);

/** A webhook endpoint, its signing secret shown this once; and its removal. */
export const CreateWebhook = graphql(`
  mutation CreateWebhook($input: NewWebhookEndpoint!) { createWebhookEndpoint(input: $input) { id url types secret } }
`);
export const DeleteWebhook = graphql(`
  mutation DeleteWebhook($id: SafeInt!) { deleteWebhookEndpoint(endpointId: $id) { id } }
`);

export const UpdateOrder = graphql(`
  mutation UpdateOrder($orderId: SafeInt!, $status: OrderStatus!) {
    updateOrder(orderId: $orderId, input: { status: $status }) { id status complete pet { status orders { id } } }
  }
`);

/** A GraphQL error, with the `extensions.code` the gateway puts on every error (BAD_REQUEST, NOT_FOUND...). */
export class GraphQLRequestError extends Error {
  constructor(message: string, readonly code: string | undefined) {
    super(message);
    this.name = 'GraphQLRequestError';
  }
}

/** What the gateway tells beside a result: a deprecated field the operation selected, and when it goes. */
export interface Warning {
  code: string;
  message: string;
  field?: string;
  sunset?: string;
}

interface GraphQLResponse<Data> {
  data?: Data | null;
  errors?: { message: string; extensions?: { code?: string } }[];
  extensions?: { warnings?: Warning[] };
}

/**
 * A fetch-based executor for one endpoint and key: all a typed client needs, no GraphQL client library.
 * The warnings results carry are handed to `warn` (a real client would log them once).
 */
export function createExecutor(baseUrl: string, apiKey: string, warn: (warning: Warning) => void = () => {}) {
  return async function execute<Result, Variables>(
    document: TadaDocumentNode<Result, Variables>,
    variables: Variables,
  ): Promise<ResultOf<typeof document>> {
    const response = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: print(document), variables }),
    });
    const text = await response.text();
    let body: GraphQLResponse<Result>;
    try {
      body = JSON.parse(text) as GraphQLResponse<Result>;
    } catch {
      throw new GraphQLRequestError(`HTTP ${response.status}: ${text.slice(0, 200)}`, undefined);
    }
    for (const warning of body.extensions?.warnings ?? []) warn(warning);
    const [first] = body.errors ?? [];
    if (first) throw new GraphQLRequestError(first.message, first.extensions?.code);
    if (body.data == null) throw new GraphQLRequestError(`HTTP ${response.status} without data`, undefined);
    return body.data;
  };
}

export async function graphqlExample(baseUrl: string, apiKey: string) {
  const warnings: Warning[] = [];
  const execute = createExecutor(baseUrl, apiKey, (warning) => warnings.push(warning));

  const input: VariablesOf<typeof CreatePet>['input'] = { name: 'Rex (GraphQL example)', categoryId: 1, status: 'pending' };
  const { createPet: pet } = await execute(CreatePet, { input });

  // Ascending id order: on a server with more than 100 pending pets the new one may lie beyond this page.
  const { pets } = await execute(ListPets, { status: 'pending', limit: 100 });
  const { pet: fetched } = await execute(GetPet, { petId: pet.id });

  // GraphQL's Int has no range; the server refuses 0 and says why in extensions.code.
  const error = await execute(ListPets, { limit: 0 }).then(
    () => { throw new Error('pets(limit: 0) was accepted'); },
    (refused: unknown) => {
      if (!(refused instanceof GraphQLRequestError)) throw refused;
      return { code: refused.code, message: refused.message };
    },
  );

  // Sell an animal: order it, then approve and deliver the order.
  const { createPet: forSale } = await execute(CreatePet, { input: { name: 'Bella (GraphQL example)', categoryId: 1 } });
  const { placeOrder: order } = await execute(PlaceOrder, { petId: forSale.id });
  await execute(UpdateOrder, { orderId: order.id, status: 'approved' });
  const { updateOrder: delivered } = await execute(UpdateOrder, { orderId: order.id, status: 'delivered' });
  const orderingAgain = await execute(PlaceOrder, { petId: forSale.id }).then(
    () => { throw new Error('a sold pet was ordered again'); },
    (refused: unknown) => (refused instanceof GraphQLRequestError ? refused.code : Promise.reject(refused)),
  );

  // The order's life in the event feed, followed page after page from its first event.
  let after: number | undefined;
  const orderEvents: string[] = [];
  for (let page = 0; page < 50; page++) {
    const { events } = await execute(Events, { after, type: null });
    for (const event of events) if (event.order?.id === order.id) orderEvents.push(`${event.type} ${event.order.status}`);
    if (events.length < 100) break;
    after = events.at(-1)!.id;
  }

  const { createWebhookEndpoint: hook } = await execute(CreateWebhook, {
    input: { url: 'https://93.184.215.14/animal-store-example', types: ['order.created', 'order.updated'] },
  });
  const { deleteWebhookEndpoint: removed } = await execute(DeleteWebhook, { id: hook.id });

  return {
    created: pet,
    listed: { count: pets.length, includesCreated: pets.some((p) => p.id === pet.id) },
    orderEvents,
    webhook: { secret: hook.secret.slice(0, 6), types: hook.types, deleted: removed.id === hook.id },
    fetched,
    // The deprecated field says so at run time too: a warning naming it and its removal date.
    deprecated: warnings.filter((w) => w.code === 'DEPRECATED_FIELD').map(({ field, sunset }) => ({ field, sunset })),
    error,
    sale: {
      placed: order.status,
      petWhenPlaced: order.pet.status,
      delivered: { status: delivered.status, complete: delivered.complete },
      petStatus: delivered.pet.status,
      petOrders: delivered.pet.orders.length,
      orderingAgain,
    },
  };
}

runDirectly(import.meta.url, graphqlExample);
