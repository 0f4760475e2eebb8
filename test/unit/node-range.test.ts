import { describe, expect, it } from 'vitest';
import { rangeAdmits, rangeAdmitsMajor } from '../support/node-range.js';

// The answers are npm's (its semver package: satisfies, and intersects with `MAJOR.x`).
describe('node-range: the engines ranges the drift test reads', () => {
  it.each([
    ['>=20.19', '20.19.0', true], ['>=20.19', '20.18.9', false], ['>=20.19', '26.12.1', true],
    ['>20.19', '20.19.9', false], ['>20.19', '20.20.0', true], ['>20.19.3', '20.19.4', true],
    ['<=20.19', '20.19.9', true], ['<=20.19', '20.20.0', false], ['<26', '25.9.9', true], ['<26', '26.0.0', false],
    ['^20.19.0 || >=22.12', '21.0.0', false], ['^20.19.0 || >=22.12', '22.12.0', true], ['^20.19.0 || >=22.12', '20.20.2', true],
    ['~22.23', '22.23.3', true], ['~22.23', '22.24.0', false], ['~22', '22.99.0', true],
    ['^0.2.3', '0.2.9', true], ['^0.2.3', '0.3.0', false], ['^0.0.3', '0.0.4', false],
    ['20.x', '20.1.0', true], ['20.x', '21.0.0', false], ['=24.21.0', '24.21.0', true], ['24.21.0', '24.21.1', false],
    ['>=20.19 <21 || >=22.12 <23 || >=24', '23.1.0', false], ['*', '26.12.1', true], ['', '20.0.0', true],
  ])('%s admits %s: %s', (range, version, admitted) => {
    expect(rangeAdmits(range, version)).toBe(admitted);
  });

  it.each([
    ['>=20.19', 20, true], ['>=20.19', 18, false], ['>=22', 20, false], ['<26', 26, false], ['<26.12.1', 26, true],
    ['>=20.19 <21 || >=22.12 <23', 21, false], ['>=20.19 <21 || >=22.12 <23', 22, true], ['^24', 26, false],
  ])('%s admits a Node %i: %s', (range, major, admitted) => {
    expect(rangeAdmitsMajor(range, major)).toBe(admitted);
  });

  it('refuses what it does not read rather than guess', () => {
    expect(() => rangeAdmits('20.19 - 22', '21.0.0')).toThrow(/unsupported/);
    expect(() => rangeAdmits('>=22.0.0-rc.1', '22.0.0')).toThrow(/unsupported/);
    expect(() => rangeAdmits('>= 20', '22.0.0')).toThrow(/unsupported/);
  });
});
