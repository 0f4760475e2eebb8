/**
 * What the schema says of a field beyond GraphQL, in its `extensions`: the REST surface and its OpenAPI
 * document read these, so REST follows the schema without a table of its own.
 */

import type { Scope } from '../domain/scopes.js';

/** Marks a field GraphQL serves and REST does not (nested records: REST keeps the spec's flat shapes). */
export const GRAPHQL_ONLY = { graphqlOnly: true } as const;

/** A deprecated field's dates, for the Deprecation and Sunset headers and the OpenAPI document. */
export interface FieldLifecycle {
  /** RFC 9745: when the field became deprecated (the first release of this service). */
  readonly deprecatedAt: string;
  /** RFC 8594: when it will be removed (spec, section 9). */
  readonly sunsetAt: string;
}

export const lifecycleOf = (extensions: Readonly<Record<string, unknown>> | null | undefined) =>
  extensions?.lifecycle as FieldLifecycle | undefined;

/** Deprecation (RFC 9745, a structured date) and Sunset (RFC 8594, an HTTP date), as both surfaces send them. */
export const lifecycleHeaders = ({ deprecatedAt, sunsetAt }: FieldLifecycle): [string, string][] =>
  [['Deprecation', `@${Date.parse(deprecatedAt) / 1000}`], ['Sunset', new Date(sunsetAt).toUTCString()]];

/**
 * What a field's value is beyond its GraphQL type, in JSON Schema's words, for the OpenAPI document: the limits
 * the domain's checks enforce (from the same constants), and, for an input field, that null is taken (it means
 * what leaving the field out means). An output field's null needs no saying: its GraphQL type says it.
 */
export interface ValueRules {
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  /** A JSON Schema format the value is in (`uri`). */
  readonly format?: string;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly nullable?: boolean;
}

export const valueRules = (rules: ValueRules) => ({ valueRules: rules });

export const valueRulesOf = (extensions: Readonly<Record<string, unknown>> | null | undefined) =>
  extensions?.valueRules as ValueRules | undefined;

/**
 * A root field whose answer depends only on the records it reads through the stores (and on the key's
 * scopes): the response cache may keep it, and drops it when one of those records changes.
 */
export const CACHEABLE = { cacheable: true } as const;

export const isCacheable = (extensions: Readonly<Record<string, unknown>> | null | undefined) => extensions?.cacheable === true;

export const isGraphQLOnly = (extensions: Readonly<Record<string, unknown>> | null | undefined) => Boolean(extensions?.graphqlOnly);

/**
 * The scopes a restricted key needs to select the field: declared on the fields that read or change a
 * record, each once; an operation (or a REST route, through SOFA) needs those of every field it selects.
 * A field without them (the quota look-up, a record's own fields) needs none of its own.
 */
export const needs = (...scopes: Scope[]) => ({ scopes });

export const scopesOf = (extensions: Readonly<Record<string, unknown>> | null | undefined) =>
  (extensions?.scopes as readonly Scope[] | undefined) ?? [];

/**
 * How many items a list field may return, for the operation's size estimate (graphql/node-estimate.ts),
 * after the IBM GraphQL cost directive's `@listSize`: the `slicingArgument`'s value when the operation
 * gives it (or its default; a list argument's length), at most `assumedSize`; `assumedSize` alone for a list no argument bounds.
 * `sizedFields`: the list is a child of the field (a connection's `edges`), not the field itself.
 */
export interface ListSize {
  readonly assumedSize: number;
  readonly slicingArgument?: string;
  readonly sizedFields?: readonly string[];
}

export const listSize = (size: ListSize) => ({ listSize: size });
