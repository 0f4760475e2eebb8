import {
  getNamedType, isAbstractType, isEnumType, isInputObjectType, isInterfaceType, isListType, isNonNullType, isObjectType, Kind,
  SchemaMetaFieldDef, TypeMetaFieldDef,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLNamedType, type GraphQLSchema, type GraphQLType,
  type OperationDefinitionNode, type SelectionSetNode, type ValueNode,
} from 'graphql';

/** A list field's size, as the schema declares it (schema/extensions.ts `listSize`, after the IBM cost directive's `@listSize`). */
interface ListSize {
  readonly assumedSize: number;
  readonly slicingArgument?: string;
  readonly sizedFields?: readonly string[];
}

/** A list the schema gives no size: as long as the longest page. A test keeps every list of ours declared. */
export const UNDECLARED_LIST_SIZE = 100;

/** Past this the estimate stops growing: numbers stay exact, and the message says "more than". */
export const ESTIMATE_CAP = 1e12;

/** How long an introspection list can be: at most, and on average over everything of its parent's kind. */
interface Extent {
  readonly most: number;
  readonly mean: number;
}

/**
 * The introspection lists (types, a type's fields, a field's args, …) take no page argument: the schema
 * is all they can list, so its own sizes bound them, computed once. A list under an item of a list that
 * holds everything of its kind once (every type, then every field of those) counts its mean size, which
 * adds up to the exact total; anywhere else (under `__type`, a field's `type`) it counts its longest.
 */
function introspectionSizes(schema: GraphQLSchema): ReadonlyMap<string, Extent> {
  const types = Object.values(schema.getTypeMap());
  const directives = schema.getDirectives();
  const fields = types.flatMap((t) => (isObjectType(t) || isInterfaceType(t) ? Object.values(t.getFields()) : []));
  const extent = (of: readonly unknown[], sizes: number[]): Extent => ({
    most: Math.max(1, ...sizes),
    mean: Math.max(1, sizes.reduce((a, b) => a + b, 0)) / Math.max(1, of.length),
  });
  const perType = (size: (type: GraphQLNamedType) => number) => extent(types, types.map(size));
  return new Map([
    ['__Schema.types', extent([1], [types.length])],
    ['__Schema.directives', extent([1], [directives.length])],
    ['__Type.fields', perType((t) => (isObjectType(t) || isInterfaceType(t) ? Object.keys(t.getFields()).length : 0))],
    ['__Type.interfaces', perType((t) => (isObjectType(t) || isInterfaceType(t) ? t.getInterfaces().length : 0))],
    ['__Type.possibleTypes', perType((t) => (isAbstractType(t) ? schema.getPossibleTypes(t).length : 0))],
    ['__Type.enumValues', perType((t) => (isEnumType(t) ? t.getValues().length : 0))],
    ['__Type.inputFields', perType((t) => (isInputObjectType(t) ? Object.keys(t.getFields()).length : 0))],
    ['__Field.args', extent(fields, fields.map((f) => f.args.length))],
    ['__Directive.args', extent(directives, directives.map((d) => d.args.length))],
    ['__Directive.locations', extent(directives, directives.map((d) => d.locations.length))],
  ]);
}

/** Lists whose items, under a parent that is one of everything of its kind, are each of theirs once. */
const EVERY_ONE = new Set(['__Schema.types', '__Schema.directives', '__Type.fields', '__Type.inputFields', '__Field.args', '__Directive.args']);

const isList = (type: GraphQLType): boolean => isListType(isNonNullType(type) ? type.ofType : type);

/** What one estimate reads besides the selections: the document's fragments and the request's variables. */
export interface EstimateInput {
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  /** The request's variables; undefined: not known yet (a REST route's fixed operation), so each list counts at its most. */
  readonly variables?: Readonly<Record<string, unknown>>;
  readonly operation?: OperationDefinitionNode;
  /** Fields whose nodes are counted elsewhere (while the operation runs, by their resolvers): they count nothing here. */
  readonly skip?: (field: GraphQLField<unknown, unknown>, parent: GraphQLNamedType) => boolean;
}

/**
 * The size of an answer before it exists: every field counts one node, and a list counts one per item
 * and each item's fields, an item per page (its `limit` or `first`, literal, from the variables, or its
 * default; the length of `nodes`' `ids`) or the list's declared size. Each fragment is counted where it is spread, measured once per
 * page size it is spread under, so the work is linear in the document however the fragments multiply.
 * A selection the schema does not know counts one (validation refuses it later). One estimator a schema,
 * its introspection sizes computed once.
 */
export function nodeEstimator(schema: GraphQLSchema): NodeEstimator {
  let estimator = estimators.get(schema);
  if (!estimator) estimators.set(schema, estimator = createEstimator(schema));
  return estimator;
}

function createEstimator(schema: GraphQLSchema) {
  const introspection = introspectionSizes(schema);

  const fieldOf = (parent: GraphQLNamedType | undefined, name: string): GraphQLField<unknown, unknown> | undefined => {
    if (parent === schema.getQueryType()) {
      if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
      if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
    }
    return isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
  };

  function selection(selectionSet: SelectionSetNode, type: GraphQLNamedType | undefined, input: EstimateInput): number {
    const memo = new Map<string, number>();
    const visiting = new Set<string>();
    const defaults = new Map(input.operation?.variableDefinitions?.map((d) => [d.variable.name.value, d.defaultValue]) ?? []);

    const argument = (node: FieldNode, field: GraphQLField<unknown, unknown>, name: string, most: number): number => {
      const given = node.arguments?.find((a) => a.name.value === name)?.value;
      const fallback = field.args.find((a) => a.name === name)?.defaultValue;
      const value = (v: ValueNode | undefined): unknown => {
        if (v === undefined || v.kind === Kind.NULL) return fallback;
        if (v.kind === Kind.INT) return Number(v.value);
        // A list argument (`nodes(ids:)`) asks for as many items as it holds.
        if (v.kind === Kind.LIST) return v.values.length;
        if (v.kind !== Kind.VARIABLE) return undefined;
        if (input.variables === undefined) return undefined;
        const variable = v.name.value;
        if (!Object.hasOwn(input.variables, variable)) return defaults.get(variable) ? value(defaults.get(variable)) : fallback;
        const given = input.variables[variable] ?? fallback;
        return Array.isArray(given) ? given.length : given;
      };
      const size = value(given);
      return typeof size === 'number' && Number.isInteger(size) && size >= 1 ? Math.min(size, most) : most;
    };

    /** Where a selection set stands: a connection's page size for its `edges`, and whether it is one of everything of its kind. */
    interface Place { readonly sized?: { readonly fields: readonly string[]; readonly size: number }; readonly everyOne?: boolean }

    const listSize = (parent: GraphQLNamedType, field: GraphQLField<unknown, unknown>, node: FieldNode, place: Place): number => {
      if (place.sized?.fields.includes(field.name)) return place.sized.size;
      const declared = field.extensions?.listSize as ListSize | undefined;
      if (declared) return declared.slicingArgument ? argument(node, field, declared.slicingArgument, declared.assumedSize) : declared.assumedSize;
      const extent = introspection.get(`${parent.name}.${field.name}`);
      if (!extent) return UNDECLARED_LIST_SIZE;
      return place.everyOne ? extent.mean : extent.most;
    };

    const inside = (parent: GraphQLNamedType, field: GraphQLField<unknown, unknown>, node: FieldNode, place: Place): Place => {
      const declared = field.extensions?.listSize as ListSize | undefined;
      if (declared?.sizedFields) return { sized: { fields: declared.sizedFields, size: listSize(parent, field, node, {}) } };
      const coordinate = `${parent.name}.${field.name}`;
      return EVERY_ONE.has(coordinate) && (parent.name === '__Schema' || place.everyOne) ? { everyOne: true } : {};
    };

    const measure = (set: SelectionSetNode, parent: GraphQLNamedType | undefined, place: Place): number => {
      let total = 0;
      for (const node of set.selections) {
        if (node.kind === Kind.FIELD) {
          const field = fieldOf(parent, node.name.value);
          if (!field || !parent) total += 1;
          else if (!input.skip?.(field, parent)) {
            const inner = node.selectionSet ? measure(node.selectionSet, getNamedType(field.type), inside(parent, field, node, place)) : 0;
            total += 1 + (isList(field.type) ? listSize(parent, field, node, place) * (1 + inner) : inner);
          }
        } else if (node.kind === Kind.INLINE_FRAGMENT) {
          const condition = node.typeCondition ? schema.getType(node.typeCondition.name.value) : parent;
          total += measure(node.selectionSet, condition, place);
        } else {
          total += fragment(node.name.value, place);
        }
        if (total >= ESTIMATE_CAP) return ESTIMATE_CAP;
      }
      return total;
    };

    const fragment = (name: string, place: Place): number => {
      const key = `${name} ${place.sized?.size ?? ''} ${place.everyOne ?? ''}`;
      const known = memo.get(key);
      if (known !== undefined) return known;
      const definition = input.fragments[name];
      // An unknown fragment or a cycle counts nothing: validation refuses both.
      if (!definition || visiting.has(key)) return 0;
      visiting.add(key);
      const nodes = measure(definition.selectionSet, schema.getType(definition.typeCondition.name.value), place);
      visiting.delete(key);
      memo.set(key, nodes);
      return nodes;
    };

    return Math.ceil(measure(selectionSet, type, {}));
  }

  /** Operations without variables, by their node: a document sent again (the parse cache keeps it) is estimated once. */
  const fixed = new WeakMap<OperationDefinitionNode, number>();

  /** An operation's answer, at most; `variables` undefined: not known yet, each list at its most. */
  function operation(document: DocumentNode, chosen: OperationDefinitionNode, variables?: Readonly<Record<string, unknown>>): number {
    const known = fixed.get(chosen);
    if (known !== undefined) return known;
    const fragments: Record<string, FragmentDefinitionNode> = {};
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
    }
    const nodes = selection(chosen.selectionSet, schema.getRootType(chosen.operation) ?? undefined, { fragments, variables, operation: chosen });
    if (!chosen.variableDefinitions?.length) fixed.set(chosen, nodes);
    return nodes;
  }

  return { selection, operation };
}

export type NodeEstimator = ReturnType<typeof createEstimator>;
const estimators = new WeakMap<GraphQLSchema, NodeEstimator>();
