import { isInterfaceType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { GLOBAL_ID_MAX_LENGTH, globalId, NODE_TYPES, parseGlobalId } from '../../src/domain/global-ids.js';
import { MAX_SAFE_ID } from '../../src/domain/ids.js';
import { schema } from '../../src/schema/index.js';

describe('global ids', () => {
  it.each(NODE_TYPES)('reads back what it writes for %s, from 1 to 2^53-1, within the length it allows', (type) => {
    for (const id of [1, 42, MAX_SAFE_ID]) {
      const written = globalId(type, id);
      expect(written).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(written.length).toBeLessThanOrEqual(GLOBAL_ID_MAX_LENGTH);
      expect(parseGlobalId(written, 'id')).toEqual({ type, id });
    }
  });

  it('gives pet 1 and order 1 two ids', () => {
    expect(globalId('Pet', 1)).not.toBe(globalId('Order', 1));
  });

  it('names exactly the types that implement Node in the schema', () => {
    const node = schema.getType('Node');
    if (!isInterfaceType(node)) throw new Error('Node is no interface');
    expect(schema.getPossibleTypes(node).map((t) => t.name).sort()).toEqual([...NODE_TYPES].sort());
  });
});
