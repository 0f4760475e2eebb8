import { describe, expect, it } from 'vitest';
import type { SecretHome } from '../../src/domain/secrets.js';
import { restore, withhold } from '../../src/idempotency/withheld.js';

const home = (id: number): SecretHome => ({ kind: 'webhookEndpoint', id });
const secrets: Record<number, string> = { 1: 'whsec_one', 2: 'whsec_two' };
const read = async ({ id }: SecretHome) => secrets[id];

describe('withhold and restore', () => {
  it('cuts every occurrence of each secret out, and puts each back from its home', async () => {
    const body = '{"a":{"secret":"whsec_one","again":"whsec_one"},"b":{"secret":"whsec_two"},"url":"https://x/whsec_"}';
    const kept = withhold(body, [{ secret: 'whsec_one', home: home(1) }, { secret: 'whsec_two', home: home(2) }]);
    expect(kept.body).toBe('{"a":{"secret":"","again":""},"b":{"secret":""},"url":"https://x/whsec_"}');
    expect(kept.withheld).toEqual([{ at: 16, home: home(1) }, { at: 27, home: home(1) }, { at: 45, home: home(2) }]);
    expect(await restore(kept.body, kept.withheld, read)).toEqual({ body });
  });

  it('keeps a body that shows no secret as it is', async () => {
    expect(withhold('{"id":1}', [{ secret: 'whsec_one', home: home(1) }])).toEqual({ body: '{"id":1}', withheld: [] });
    expect(await restore('{"id":1}', [], read)).toEqual({ body: '{"id":1}' });
  });

  it('names the home whose secret is gone', async () => {
    const kept = withhold('"whsec_one" "whsec_two"', [{ secret: 'whsec_one', home: home(1) }, { secret: 'whsec_two', home: home(3) }]);
    expect(await restore(kept.body, kept.withheld, read)).toEqual({ gone: home(3) });
  });
});
