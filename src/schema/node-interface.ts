import { globalId, NODE_TYPES, type NodeType } from '../domain/global-ids.js';
import { builder } from './builder.js';
import { GRAPHQL_ONLY } from './extensions.js';

/**
 * Relay's Node interface, beside the records' integer ids rather than in their place: `id` stays the
 * SafeInt both surfaces have always sent, and the global id is a field of its own, `nodeId` (relay-compiler's
 * `nodeInterfaceIdField`). GraphQL only: REST's records keep their flat shapes.
 */

const TYPE = Symbol('node type');

/** A record as `node` and `nodes` answer it: tagged with its type, which nothing in its fields says. */
export type TypedNode = { readonly id: number; readonly [TYPE]?: NodeType };

export const typedNode = <T extends { id: number }>(record: T, type: NodeType): T & TypedNode => ({ ...record, [TYPE]: type });

export const NodeRef = builder.interfaceRef<{ id: number }>('Node').implement({
  description: 'A record with a global id, which `node` and `nodes` fetch it by (Relay\'s Object Identification). '
    + `Implemented by ${NODE_TYPES.join(', ')} (GraphQL only).`,
  extensions: GRAPHQL_ONLY,
  // Where else a Node is answered (a list, a nested field), its field's type is the object type itself.
  resolveType: (record: TypedNode) => record[TYPE]!,
  fields: (t) => ({
    nodeId: t.field({
      type: 'ID',
      description: 'The record\'s global id: opaque, unique across every type (the integer `id` is unique within its type only). '
        + 'Fetch the record again with `node(id:)`; a Relay client keys its store by it.',
      extensions: GRAPHQL_ONLY,
      resolve: (record, _args, _context, info) => globalId(info.parentType.name as NodeType, record.id),
    }),
  }),
});
