import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyAudit, verdict } from '../../.ci/audit-report.mjs';

/** Outputs of `npm audit --omit=dev --json` recorded with npm 11.19.1; fixtures/npm-audit/README.md says how. */
const recorded = (name: string) => readFileSync(new URL(`fixtures/npm-audit/${name}.json`, import.meta.url), 'utf8');
const none = { critical: 0, high: 0, moderate: 0, low: 0, info: 0 };

describe('.ci/audit.mjs: classifyAudit and verdict', () => {
  it('fails on a high advisory, listing the package that has it first, then those affected through it', () => {
    const result = classifyAudit(recorded('high'));
    expect(result).toMatchObject({ kind: 'vulnerable', counts: { ...none, high: 4, moderate: 2 } });
    expect(verdict(result)).toEqual({
      exitCode: 1,
      lines: [
        'npm audit: 4 production package(s) affected by high or critical advisories (vulnerable packages: 4 high, 2 moderate):',
        '  tar-fs (high)',
        '    high: Fixture: path traversal when extracting a tarball (not a real advisory) https://github.com/advisories/GHSA-fixt-ure0-0001',
        '  better-sqlite3 (high, direct dependency) through prebuild-install',
        '  prebuild-install (high) through node-abi, tar-fs',
        '  typeorm (high, direct dependency) through better-sqlite3',
        'Run `npm audit --omit=dev` for the fixes npm proposes.',
      ],
    });
  });

  it('fails on a critical advisory in a direct dependency', () => {
    expect(classifyAudit(recorded('critical'))).toEqual({
      kind: 'vulnerable',
      counts: { ...none, critical: 1 },
      packages: [{
        name: 'mysql2', severity: 'critical', direct: true, through: [],
        advisories: [{
          severity: 'critical', url: 'https://github.com/advisories/GHSA-fixt-ure0-0003',
          title: 'Fixture: remote code execution via a crafted result set (not a real advisory)',
        }],
      }],
    });
    expect(verdict(classifyAudit(recorded('critical'))).exitCode).toBe(1);
  });

  it('passes a report with moderate advisories only, counting them', () => {
    const result = classifyAudit(recorded('moderate-only'));
    expect(result).toEqual({ kind: 'clean', counts: { ...none, moderate: 5 } });
    expect(verdict(result)).toEqual({
      exitCode: 0,
      lines: ['npm audit: no high or critical advisories in production dependencies (vulnerable packages: 5 moderate).'],
    });
  });

  it('passes a clean report', () => {
    const result = classifyAudit(recorded('clean'));
    expect(result).toEqual({ kind: 'clean', counts: none });
    expect(verdict(result)).toEqual({
      exitCode: 0,
      lines: ['npm audit: no high or critical advisories in production dependencies (vulnerable packages: none).'],
    });
  });

  it.each([
    ['the registry answers the advisory request 405 (this build machine)', recorded('endpoint-405'),
      '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk'],
    ['there is no network', recorded('offline'),
      'request to https://registry.npmjs.org/-/npm/v1/security/advisories/bulk failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org'],
    ['npm prints no report', '', 'npm printed no report'],
    ['npm prints text, not JSON', 'npm ERR! something broke\nmore\n', 'npm printed no JSON report: npm ERR! something broke'],
  ])('warns and passes when %s', (_, stdout, reason) => {
    const result = classifyAudit(stdout);
    expect(result).toEqual({ kind: 'unreachable', reason });
    expect(verdict(result)).toEqual({
      exitCode: 0,
      lines: [`WARNING: npm audit could not reach the advisory service (${reason}); production dependencies were not checked.`],
    });
  });

  it('fails on JSON it cannot read, rather than passing a report it did not understand', () => {
    const result = classifyAudit('{"auditReportVersion": 3, "findings": []}');
    expect(result).toEqual({ kind: 'unreadable', reason: 'the report has no "vulnerabilities" object (not auditReportVersion 2?)' });
    expect(verdict(result).exitCode).toBe(1);
  });
});
