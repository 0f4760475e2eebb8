import type { EnumRef, ObjectRef } from '@pothos/core';
import type { PageOf } from '../domain/cursor.js';
import { PAGE_SIZE, pageSize } from '../domain/ids.js';
import { builder, type Context } from './builder.js';
import type { Scope } from '../domain/scopes.js';
import { CACHEABLE, GRAPHQL_ONLY, listSize, needs } from './extensions.js';

/** The `limit` argument of every list, as both surfaces document it. */
export const limitArgument = (what: string) => ({
  defaultValue: PAGE_SIZE.default,
  description: `The maximum number of ${what} returned: ${PAGE_SIZE.min} to ${PAGE_SIZE.max}.`,
});

/** A list paged by its `limit` argument: as long as the operation asks, at most a full page. */
export const PAGED_BY_LIMIT = listSize({ slicingArgument: 'limit', assumedSize: PAGE_SIZE.max });

/** The `cursor` argument of a list: REST's `?cursor=` and the lists' `cursor:` alike. */
export const CURSOR_DESCRIPTION = 'Continue after the page that gave this cursor (the `next` link of a list, or `pageInfo.endCursor`). '
  + 'Only valid with the filter it was made for.';

/**
 * One page of a list in id order: `limit` records after the cursor's, and the cursor of the next page
 * when there may be more (one record more is read to know).
 */
export async function listPage<T extends { id: number }>(
  { cursors }: Context, of: PageOf, limit: number | null | undefined, cursor: string | null | undefined,
  fetch: (query: { limit: number; after?: number }) => Promise<T[]>,
): Promise<{ items: T[]; next?: string }> {
  const size = pageSize(limit);
  const after = cursor == null ? undefined : cursors.read(of, cursor);
  const rows = await fetch({ limit: size + 1, after });
  const items = rows.length > size ? rows.slice(0, size) : rows;
  return { items, next: rows.length > size ? cursors.make(of, items.at(-1)!.id) : undefined };
}

// Pothos's generics do not follow a node type through a helper; the helper's own signature keeps it typed.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type PothosTypes = any;

/** How a list reads a page from its store. */
export type PageFetch<T, S extends string> = (context: Context, query: { limit: number; status?: S; after?: number }) => Promise<T[]>;

/** The resolver of a plain list (`pets`, `orders`): one page, its next page's cursor told to REST (Link). */
export function listResolver<T extends { id: number }, S extends string>(list: PageOf['list'], fetch: PageFetch<T, S>) {
  return async (_root: unknown, args: { limit?: number | null; status?: S | null; cursor?: string | null }, context: Context) => {
    const of = { list, status: args.status ?? undefined };
    const { items, next } = await listPage(context, of, args.limit, args.cursor, (q) => fetch(context, { ...q, status: of.status }));
    if (next && context.reply) context.reply.next = { cursor: next };
    return items;
  };
}

interface PageInfoShape { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null }

const PageInfo = builder.objectRef<PageInfoShape>('PageInfo').implement({
  description: 'Where a page of a connection starts and ends, and whether another follows (Relay\'s cursor connections).',
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage', { description: 'Whether a page may follow: ask again with `after: endCursor`.' }),
    hasPreviousPage: t.exposeBoolean('hasPreviousPage', {
      description: 'Always false: these connections page forward only (`first` and `after`), where Relay lets it be false.',
    }),
    startCursor: t.exposeString('startCursor', { nullable: true, description: 'The cursor of the page\'s first edge; null for an empty page.' }),
    endCursor: t.exposeString('endCursor', { nullable: true, description: 'The cursor of the page\'s last edge; null for an empty page.' }),
  }),
});

interface Connection<T> { edges: { cursor: string; node: T }[]; pageInfo: PageInfoShape }

/** A Relay connection type for a node type, and a field that serves one from the same keyset pages. */
export function connectionField<T extends { id: number }, S extends string>(options: {
  field: string;
  node: ObjectRef<PothosTypes, T>;
  list: PageOf['list'];
  what: string;
  statusEnum: EnumRef<PothosTypes, S>;
  fetch: PageFetch<T, S>;
  /** What a restricted key needs to read the records. */
  scope: Scope;
}) {
  const name = options.node.name;
  const Edge = builder.objectRef<{ cursor: string; node: T }>(`${name}Edge`).implement({
    description: `One ${name} of a page, with the cursor that continues after it.`,
    fields: (t) => ({
      cursor: t.expose('cursor', { type: 'Cursor', description: 'Continues after this record: `after` of the next call.' }),
      node: t.field({ type: options.node, description: `The ${name}.`, resolve: (edge) => edge.node as never }),
    }),
  });
  const ConnectionType = builder.objectRef<Connection<T>>(`${name}Connection`).implement({
    description: `A page of ${options.what}, in id order (Relay connection).`,
    fields: (t) => ({
      edges: t.field({ type: [Edge], description: 'The page\'s records, in id order, each with its cursor.', resolve: (c) => c.edges }),
      pageInfo: t.field({ type: PageInfo, description: 'Where the page starts and ends, and whether another follows.', resolve: (c) => c.pageInfo }),
    }),
  });
  builder.queryField(options.field, (t) => t.field({
    type: ConnectionType,
    description: `Pages of ${options.what} in id order, with cursors: the same pages and cursors as the list.`,
    extensions: { ...GRAPHQL_ONLY, ...CACHEABLE, ...needs(options.scope), ...listSize({ slicingArgument: 'first', assumedSize: PAGE_SIZE.max, sizedFields: ['edges'] }) },
    args: {
      first: t.arg.int({ defaultValue: PAGE_SIZE.default, description: `Records per page: ${PAGE_SIZE.min} to ${PAGE_SIZE.max}.` }),
      after: t.arg({ type: 'Cursor', description: CURSOR_DESCRIPTION }),
      status: t.arg({ type: options.statusEnum, description: 'Only records with this status. Omitted: no filter.' }),
    },
    resolve: async (_root, args, context) => {
      const { first, after, status } = args as { first?: number | null; after?: string | null; status?: S | null };
      const of: PageOf = { list: options.list, status: status ?? undefined };
      const { items, next } = await listPage(context, of, first, after, (q) => options.fetch(context, { ...q, status: of.status as S | undefined }));
      const edges = items.map((node) => ({ cursor: context.cursors.make(of, node.id), node }));
      return {
        edges,
        pageInfo: { hasNextPage: next !== undefined, hasPreviousPage: false, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
      };
    },
  }));
}
