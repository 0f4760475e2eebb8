/** One difference between a document and its release, in the words the gate prints and the changelog quotes. */
export type Level = 'breaking' | 'dangerous' | 'non-breaking';

export interface ContractChange {
  /** The document's file name in schema/ (schema.graphql, openapi.json, …). */
  readonly document: string;
  readonly level: Level;
  /**
   * What a changelog entry names to declare the change, in backticks: stable across runs, so a person can
   * paste it. GraphQL: Inspector's change type and path (`FIELD_REMOVED Pet.name`); OpenAPI: the diff's
   * code and location (`path.remove paths./rate_limit`).
   */
  readonly id: string;
  /** The change in a sentence, for the person reading the gate's output. */
  readonly message: string;
  /** A removal of what the release did not deprecate: why no changelog entry can declare it. */
  readonly undeprecated?: string;
}
