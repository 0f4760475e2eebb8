import fc from 'fast-check';
import { globalId } from '../../../src/domain/global-ids.js';

/**
 * GraphQL documents that fan out: lists aliased at every level, inline or through fragments spread
 * several times, nested through the store (Pet.orders, Order.pet, connections, `nodes` of pets) and
 * introspection (types, fields, args, …). Most are far past the node limit; some are within it and run.
 */

/** Each type's plain fields and the fields that lead to another type (with their arguments, if any). */
const GRAPH: Record<string, { leaves: string[]; children: [field: string, type: string][] }> = {
  Pet: { leaves: ['id', 'name', 'categoryId', 'status'], children: [['orders', 'Order']] },
  Order: { leaves: ['id', 'petId', 'status', 'complete', 'placedAt'], children: [['pet', 'Pet']] },
  PetConnection: { leaves: ['__typename'], children: [['edges', 'PetEdge'], ['pageInfo', 'PageInfo']] },
  PetEdge: { leaves: ['cursor'], children: [['node', 'Pet']] },
  PageInfo: { leaves: ['hasNextPage', 'endCursor'], children: [] },
  __Schema: { leaves: ['__typename'], children: [['types', '__Type'], ['directives', '__Directive'], ['queryType', '__Type']] },
  __Type: {
    leaves: ['name', 'kind', 'description'],
    children: [['fields', '__Field'], ['interfaces', '__Type'], ['possibleTypes', '__Type'], ['enumValues', '__EnumValue'], ['inputFields', '__InputValue'], ['ofType', '__Type']],
  },
  __Field: { leaves: ['name', 'isDeprecated'], children: [['type', '__Type'], ['args', '__InputValue']] },
  __InputValue: { leaves: ['name', 'defaultValue'], children: [['type', '__Type']] },
  __EnumValue: { leaves: ['name'], children: [] },
  __Directive: { leaves: ['name', 'locations'], children: [['args', '__InputValue']] },
};

/**
 * `nodes` of as many pets as the page size, written out (its ids are no Int variable): the animals 1 to 20
 * the property's fresh store holds, over again, so that every one is answered.
 */
const petIds = (size: string) => Array.from({ length: /^\d+$/.test(size) ? Number(size) : 100 }, (_, i) => `"${globalId('Pet', (i % 20) + 1)}"`).join(' ');

/** Each root field, the type its selection is on, and whether that selection goes in an inline fragment (a Node's). */
const ROOTS: [field: (size: string) => string, type: string, inline?: boolean][] = [
  [(size) => `pets(limit: ${size})`, 'Pet'],
  [(size) => `nodes(ids: [${petIds(size)}])`, 'Pet', true],
  [(size) => `orders(limit: ${size})`, 'Order'],
  [(size) => `petsConnection(first: ${size})`, 'PetConnection'],
  [() => '__schema', '__Schema'],
  [() => '__type(name: "Pet")', '__Type'],
];

interface Child { field: string; type: string; aliases: number; spreads: number; plan: Plan }
interface Plan {
  readonly leaves: string[];
  readonly children: readonly Child[];
}

const plan = (type: string, depth: number): fc.Arbitrary<Plan> => {
  const node = GRAPH[type]!;
  const children: fc.Arbitrary<readonly Child[]> = depth <= 0 || node.children.length === 0 ? fc.constant([])
    : fc.array(fc.record({ child: fc.constantFrom(...node.children), aliases: fc.integer({ min: 1, max: 6 }), spreads: fc.integer({ min: 0, max: 3 }) }), { maxLength: 2 })
      .chain((picked) => fc.tuple(...picked.map(({ child: [field, childType], aliases, spreads }) =>
        plan(childType, depth - 1).map((inner) => ({ field, type: childType, aliases, spreads, plan: inner })))));
  return fc.record({ leaves: fc.subarray(node.leaves, { minLength: 1 }), children });
};

/** The selection of a plan; spread children become fragments, each spread as many times as planned. */
function render(selection: Plan, fragments: string[]): string {
  const parts = [...selection.leaves];
  for (const [c, child] of selection.children.entries()) {
    let body = render(child.plan, fragments);
    if (child.spreads > 0) {
      const name = `F${fragments.length}`;
      fragments.push(`fragment ${name} on ${child.type} { ${body} }`);
      body = Array.from({ length: child.spreads }, () => `...${name}`).join(' ');
    }
    for (let i = 0; i < child.aliases; i += 1) parts.push(`${child.field}${c}_${i}: ${child.field} { ${body} }`);
  }
  return parts.join(' ');
}

export interface FanOut {
  readonly query: string;
  readonly variables: Record<string, unknown>;
}

/** A document of one to three aliased roots, each nested up to seven levels, a page size literal or a variable. */
export const fanOut: fc.Arbitrary<FanOut> = fc.array(fc.record({
  root: fc.constantFrom(...ROOTS),
  aliases: fc.integer({ min: 1, max: 5 }),
  size: fc.integer({ min: 1, max: 100 }),
  variable: fc.boolean(),
  depth: fc.integer({ min: 1, max: 7 }),
}).chain((root) => plan(root.root[1], root.depth).map((selection) => ({ ...root, selection }))), { minLength: 1, maxLength: 3 })
  .map((roots) => {
    const fragments: string[] = [];
    const variables: Record<string, unknown> = {};
    const fields = roots.flatMap(({ root: [field, type, inline], aliases, size, variable, selection }, r) => {
      if (variable) variables[`n${r}`] = size;
      const rendered = render(selection, fragments);
      const body = inline ? `... on ${type} { ${rendered} }` : rendered;
      return Array.from({ length: aliases }, (_, i) => `r${r}_${i}: ${field(variable ? `$n${r}` : String(size))} { ${body} }`);
    });
    const used = Object.keys(variables).filter((name) => fields.some((f) => f.includes(`$${name}`)));
    const header = used.length > 0 ? `query (${used.map((name) => `$${name}: Int`).join(', ')}) ` : '';
    return { query: `${header}{ ${fields.join(' ')} }\n${fragments.join('\n')}`, variables: Object.fromEntries(used.map((n) => [n, variables[n]])) };
  })
  // Inline selections repeat their text at each alias: past the body limit (64 KiB) a document is not this test's case.
  .filter(({ query }) => query.length < 60_000);
