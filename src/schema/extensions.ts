/**
 * What the schema says of a field beyond GraphQL, in its `extensions`: the REST surface and its OpenAPI
 * document read these, so REST follows the schema without a table of its own.
 */

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

export const isGraphQLOnly = (extensions: Readonly<Record<string, unknown>> | null | undefined) => Boolean(extensions?.graphqlOnly);
