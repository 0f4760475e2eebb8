import { NODE_TYPES, parseGlobalId, type NodeType } from '../domain/global-ids.js';
import { PAGE_SIZE } from '../domain/ids.js';
import { orderNotFound } from '../domain/order.js';
import { petNotFound } from '../domain/pet.js';
import type { Scope } from '../domain/scopes.js';
import { appError } from '../errors.js';
import { builder, type Context } from './builder.js';
import { CACHEABLE, GRAPHQL_ONLY, listSize } from './extensions.js';
import { NodeRef, typedNode, type TypedNode } from './node-interface.js';
import { ownerOf } from './webhook-types.js';

/**
 * `node` and `nodes`: any record by its global id, under the rules of the type's own field (`pet`, `order`,
 * `webhookEndpoint`): its scope, its owner, its NOT_FOUND, through the request's batches.
 */

interface NodeFetch {
  /** What a restricted key needs to read the type, as the type's own root fields need it. */
  readonly scope: Scope;
  readonly load: (context: Context, id: number) => Promise<{ id: number }>;
}

const FETCHES: Record<NodeType, NodeFetch> = {
  Pet: { scope: 'pets:read', load: async ({ loaders }, id) => (await loaders.pet.load(id)) ?? Promise.reject(petNotFound(id)) },
  Order: { scope: 'orders:read', load: async ({ loaders }, id) => (await loaders.order.load(id)) ?? Promise.reject(orderNotFound(id)) },
  WebhookEndpoint: { scope: 'webhooks', load: (context, id) => context.loaders.endpointOf(context.webhooks, ownerOf(context)).load(id) },
};

/**
 * The document's scopes are checked before it runs, but a Node's type is known only from its id: a
 * restricted key is refused here, before anything is read (so a refusal says nothing of whether the
 * record exists), each refused record null with its FORBIDDEN error.
 */
async function fetchNode(context: Context, text: string, argument: string, field: string) {
  const { type, id } = parseGlobalId(text, argument);
  const { scope, load } = FETCHES[type];
  checkReadScope(context, type, scope, field);
  return typedNode(await load(context, id), type);
}

/** A restricted key without `scope` is refused `type`'s records through Query.`field` (node, nodes, _entities), FORBIDDEN. */
export function checkReadScope(context: Context, type: string, scope: Scope, field: string): void {
  if (!context.scopes || context.scopes.has(scope)) return;
  const has = context.scopes.size > 0 ? [...context.scopes].join(', ') : 'none';
  throw appError('FORBIDDEN', `This key may not read ${type} records through Query.${field}: it needs the ${scope} scope (it has ${has})`);
}

const RULES = `Each record is read as its own field reads it: the scope it needs (${NODE_TYPES.map((t) => `${t} ${FETCHES[t].scope}`).join(', ')}; `
  + 'otherwise null and FORBIDDEN), only your key\'s webhook endpoints, null and NOT_FOUND for one that does not exist, null and BAD_REQUEST for an id that is no global id.';

builder.queryField('node', (t) => t.field({
  type: NodeRef,
  nullable: true,
  description: `Fetch any record by its global id (its \`nodeId\`), as Relay refetches. ${RULES}`,
  extensions: { ...GRAPHQL_ONLY, ...CACHEABLE },
  args: { id: t.arg.id({ required: true, description: 'A global id, as a `nodeId` field gave it.' }) },
  resolve: (_root, { id }, context) => fetchNode(context, String(id), 'id', 'node'),
}));

builder.queryField('nodes', (t) => t.field({
  type: [NodeRef],
  nullable: { list: false, items: true },
  description: `Fetch records by their global ids, at most ${PAGE_SIZE.max}, in the order given, in one batch per type. ${RULES} `
    + 'A record that cannot be read is null at its place, with its error.',
  extensions: { ...GRAPHQL_ONLY, ...CACHEABLE, ...listSize({ slicingArgument: 'ids', assumedSize: PAGE_SIZE.max }) },
  args: { ids: t.arg.idList({ required: true, description: `Global ids, as \`nodeId\` fields gave them: at most ${PAGE_SIZE.max}.` }) },
  resolve: (_root, { ids }, context) => {
    if (ids.length > PAGE_SIZE.max) throw appError('BAD_REQUEST', `"ids" may hold at most ${PAGE_SIZE.max} global ids, got ${ids.length}`);
    // Settled together, each failure an Error at its place: both executors (graphql-js, graphql-jit) null
    // an Error item and report its error, where graphql-jit drops a rejected promise's item from the list.
    // Pothos' types know no Error item, hence the cast.
    return Promise.all(ids.map((id, i) => fetchNode(context, String(id), `ids[${i}]`, 'nodes').catch((error: unknown) => error as TypedNode)));
  },
}));
