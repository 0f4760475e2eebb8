/**
 * The REST API through openapi-fetch, typed only by the types openapi-typescript generated from the
 * committed schema/openapi.json: paths, parameters, bodies and error bodies come from the document.
 * Run against a server: API_URL=http://localhost:8080 API_KEY=<key> node --import tsx examples/rest-client.ts
 */
import createClient from 'openapi-fetch';
import type { paths } from './generated/openapi.js';
import { runDirectly } from './run-directly.js';

export async function restExample(baseUrl: string, apiKey: string) {
  // The document's only server is the relative `/v1`, so the client needs the absolute prefix itself.
  // Errors come as the Error body, or as problem details to a client that asks: each client names the
  // media type it reads, so its `error` has that one type.
  const client = createClient<paths, 'application/json'>({ baseUrl: `${baseUrl}/v1`, headers: { Authorization: `Bearer ${apiKey}` } });
  const problems = createClient<paths, 'application/problem+json'>({
    baseUrl: `${baseUrl}/v1`, headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/problem+json' },
  });

  // `status` is optional because NewPet gives it a default (see --default-non-nullable in package.json);
  // `pending` here keeps the filtered list below short.
  const created = await client.POST('/pets', { body: { name: 'Rex (REST example)', categoryId: 1, status: 'pending' } });
  if (!created.data) throw new Error(`createPet failed: ${created.error?.code} ${created.error?.message}`);
  const pet = created.data;

  // Ascending id order: on a server with more than 100 pending pets the new one may lie beyond this page.
  const listed = await client.GET('/pets', { params: { query: { status: 'pending', limit: 100 } } });
  if (!listed.data) throw new Error(`listPets failed: ${listed.error?.code} ${listed.error?.message}`);

  const fetched = await client.GET('/pets/{petId}', { params: { path: { petId: pet.id } } });
  if (!fetched.data) throw new Error(`getPet failed: ${fetched.error?.code} ${fetched.error?.message}`);

  // The type says `number`; the 1..100 range lives only in the document, so the server is what refuses 0.
  const refused = await client.GET('/pets', { params: { query: { limit: 0 } } });
  if (!refused.error) throw new Error('listPets accepted limit=0');
  // The same refusal as RFC 9457 problem details, typed by the document's Problem schema.
  const asProblem = await problems.GET('/pets', { params: { query: { limit: 0 } } });
  const problem = asProblem.error;
  if (!problem) throw new Error('listPets accepted limit=0');

  // Sell an animal: order it, then approve and deliver the order; the animal follows.
  const forSale = await client.POST('/pets', { body: { name: 'Bella (REST example)', categoryId: 1 } });
  if (!forSale.data) throw new Error(`createPet failed: ${forSale.error?.code} ${forSale.error?.message}`);
  const order = await client.POST('/store/orders', { body: { petId: forSale.data.id } });
  if (!order.data) throw new Error(`placeOrder failed: ${order.error?.code} ${order.error?.message}`);
  const orderId = order.data.id;
  for (const status of ['approved', 'delivered'] as const) {
    const moved = await client.PATCH('/store/orders/{orderId}', { params: { path: { orderId } }, body: { status } });
    if (!moved.data) throw new Error(`updateOrder failed: ${moved.error?.code} ${moved.error?.message}`);
  }
  const delivered = await client.GET('/store/orders/{orderId}', { params: { path: { orderId } } });
  const sold = await client.GET('/pets/{petId}', { params: { path: { petId: forSale.data.id } } });
  // The store's rules, typed as an Error body too: the animal is sold, a second order is a conflict.
  const again = await client.POST('/store/orders', { body: { petId: forSale.data.id } });

  // The event feed, followed as a poller follows it: page after page, each after the last id read.
  let after: number | undefined;
  let heard: { type: string; pet?: unknown } | undefined;
  for (let page = 0; page < 50 && !heard; page++) {
    const events = await client.GET('/events', { params: { query: { type: 'pet.created', limit: 100, after } } });
    if (!events.data) throw new Error(`listEvents failed: ${events.error?.code} ${events.error?.message}`);
    heard = events.data.find((event) => event.pet?.id === pet.id);
    if (events.data.length < 100) break;
    after = events.data.at(-1)!.id;
  }

  // A webhook endpoint: its secret comes once, typed; an address given as one needs no DNS to be checked.
  const hook = await client.POST('/webhooks', { body: { url: 'https://93.184.215.14/animal-store-example', types: ['pet.created', 'pet.deleted'] } });
  if (!hook.data) throw new Error(`createWebhookEndpoint failed: ${hook.error?.code} ${hook.error?.message}`);
  const hooks = await client.GET('/webhooks');
  const removed = await client.DELETE('/webhooks/{endpointId}', { params: { path: { endpointId: hook.data.id } } });

  return {
    created: pet,
    feed: heard && { type: heard.type, pet: heard.pet },
    webhook: {
      secret: hook.data.secret.slice(0, 6), types: hook.data.types, listed: hooks.data?.some((h) => h.id === hook.data.id),
      deleted: removed.response.status,
    },
    listed: { count: listed.data.length, includesCreated: listed.data.some((p) => p.id === pet.id) },
    fetched: fetched.data,
    // The deprecated operation says so at run time too, not only in the document.
    deprecated: { deprecation: fetched.response.headers.get('Deprecation'), sunset: fetched.response.headers.get('Sunset') },
    error: { httpStatus: refused.response.status, code: refused.error.code, message: refused.error.message },
    problem: {
      contentType: asProblem.response.headers.get('Content-Type'), type: problem.type, title: problem.title, code: problem.code,
      instanceIsRequestId: problem.instance === asProblem.response.headers.get('X-Request-Id'),
    },
    sale: {
      placed: order.data.status,
      location: order.response.headers.get('Location'),
      delivered: delivered.data && { status: delivered.data.status, complete: delivered.data.complete },
      petStatus: sold.data?.status,
      orderingAgain: again.error?.code,
    },
  };
}

runDirectly(import.meta.url, restExample);
