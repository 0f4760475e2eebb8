import {
  getNamedType, getOperationAST, isInterfaceType, isObjectType, Kind, OperationTypeNode,
  type DocumentNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLFieldMap, type GraphQLNamedType, type GraphQLSchema, type SelectionSetNode,
} from 'graphql';
import type { Scope } from '../domain/scopes.js';
import { isCacheable, isGraphQLOnly, lifecycleOf, scopesOf, type FieldLifecycle } from './extensions.js';

/** A deprecated field a call selects, with what its clients are told. */
export interface DeprecatedUse {
  /** `Query.pet`. */
  readonly field: string;
  readonly reason: string;
  readonly lifecycle: FieldLifecycle;
}

/** What a call selects that matters before it runs: the scopes it needs, and the deprecated fields it uses. */
export interface FieldUse {
  /** Each scope, with the first field that needs it (for the refusal's message). */
  readonly scopes: ReadonlyMap<Scope, string>;
  readonly deprecated: readonly DeprecatedUse[];
  /** The lifecycle of the deprecated field that goes first: the one the Deprecation and Sunset headers tell. */
  readonly firstSunset?: FieldLifecycle;
  /** A query whose every root field is cacheable (extensions.ts): the response cache may keep its answer. */
  readonly cacheable: boolean;
}

const fieldsOf = (type: GraphQLNamedType | undefined | null): GraphQLFieldMap<unknown, unknown> | undefined =>
  (isObjectType(type) || isInterfaceType(type) ? type.getFields() : undefined);

class Collector {
  readonly scopes = new Map<Scope, string>();
  readonly deprecated = new Map<string, DeprecatedUse>();

  add(typeName: string, field: GraphQLField<unknown, unknown>): void {
    const coordinate = `${typeName}.${field.name}`;
    for (const scope of scopesOf(field.extensions)) if (!this.scopes.has(scope)) this.scopes.set(scope, coordinate);
    const lifecycle = lifecycleOf(field.extensions);
    if (field.deprecationReason && lifecycle) this.deprecated.set(coordinate, { field: coordinate, reason: field.deprecationReason, lifecycle });
  }

  done(cacheable: boolean): FieldUse {
    const deprecated = [...this.deprecated.values()];
    const first = deprecated.reduce<DeprecatedUse | undefined>(
      (a, b) => (a && Date.parse(a.lifecycle.sunsetAt) <= Date.parse(b.lifecycle.sunsetAt) ? a : b), undefined);
    return { scopes: this.scopes, deprecated, ...(first ? { firstSunset: first.lifecycle } : {}), cacheable };
  }
}

/**
 * Reads the schema's declarations for whole calls: a GraphQL operation (every field it selects, through
 * its fragments, each fragment once) and a REST route (its field and every field SOFA's fixed operation
 * selects below it: all but the GraphQL-only ones). Worked out once per document and per route.
 */
export function fieldUses(schema: GraphQLSchema) {
  for (const type of Object.values(schema.getTypeMap())) {
    for (const field of Object.values(fieldsOf(type) ?? {})) {
      // A deprecated field's clients are told when it goes: a field without the date would be announced without it.
      if (field.deprecationReason && !lifecycleOf(field.extensions)) throw new Error(`${type.name}.${field.name} is deprecated without a lifecycle (its sunset)`);
    }
  }

  const operations = new WeakMap<DocumentNode, Map<string, FieldUse>>();
  function ofOperation(document: DocumentNode, operationName?: string): FieldUse {
    let byName = operations.get(document);
    if (!byName) operations.set(document, byName = new Map());
    const known = byName.get(operationName ?? '');
    if (known) return known;
    const operation = getOperationAST(document, operationName);
    const collector = new Collector();
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    const spread = new Set<string>();
    // A query is cacheable while every field at its root is (through its root fragments); __typename is.
    let cacheable = operation?.operation === OperationTypeNode.QUERY;
    const walk = (set: SelectionSetNode, type: GraphQLNamedType | undefined | null, root: boolean) => {
      const fields = fieldsOf(type);
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          // Unknown fields (and __typename, __schema) are validation's to answer, and need nothing.
          const field = fields?.[selection.name.value];
          if (root && selection.name.value !== '__typename' && !isCacheable(field?.extensions)) cacheable = false;
          if (!field) continue;
          collector.add(type!.name, field);
          if (selection.selectionSet) walk(selection.selectionSet, getNamedType(field.type), false);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          walk(selection.selectionSet, selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type, root);
        } else if (!spread.has(selection.name.value)) {
          spread.add(selection.name.value);
          const fragment = fragments.get(selection.name.value);
          if (fragment) walk(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value), root);
        }
      }
    };
    if (operation) walk(operation.selectionSet, schema.getRootType(operation.operation), true);
    const use = collector.done(cacheable);
    byName.set(operationName ?? '', use);
    return use;
  }

  function ofRoute(typeName: string, field: GraphQLField<unknown, unknown>): FieldUse {
    const collector = new Collector();
    collector.add(typeName, field);
    const seen = new Set<string>();
    const walk = (type: GraphQLNamedType): void => {
      if (seen.has(type.name)) return;
      seen.add(type.name);
      for (const inner of Object.values(fieldsOf(type) ?? {})) {
        if (isGraphQLOnly(inner.extensions)) continue;
        collector.add(type.name, inner);
        walk(getNamedType(inner.type));
      }
    };
    walk(getNamedType(field.type));
    return collector.done(isCacheable(field.extensions));
  }

  return { ofOperation, ofRoute };
}

export type FieldUses = ReturnType<typeof fieldUses>;

/** What a batch selects: every scope and deprecated field of its operations (a batch is refused or run whole). */
export function combinedUse(uses: readonly FieldUse[]): FieldUse {
  if (uses.length === 1) return uses[0]!;
  const collector = new Collector();
  for (const use of uses) {
    for (const [scope, field] of use.scopes) if (!collector.scopes.has(scope)) collector.scopes.set(scope, field);
    for (const deprecated of use.deprecated) collector.deprecated.set(deprecated.field, deprecated);
  }
  return collector.done(false);
}
