import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REDOCLY = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

/**
 * One run of the CLI from node_modules. Offline: without REDOCLY_TELEMETRY=off it sends a telemetry event
 * (seen as a DNS lookup under strace), and the update notice is not ours to act on in a test.
 */
function lint(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  return new Promise((resolve) => {
    execFile(process.execPath, [REDOCLY, 'lint', file, '--extends', 'recommended', '--format', 'json'], { cwd: ROOT, env },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
  });
}

describe('schema/openapi.json', () => {
  it('lints clean under Redocly\'s recommended ruleset: no errors, no warnings, none ignored', async () => {
    const { code, stdout, stderr } = await lint('schema/openapi.json');
    let report: LintReport;
    try {
      report = JSON.parse(stdout) as LintReport;
    } catch {
      throw new Error(`redocly lint printed no JSON report (exit ${code}):\n${stdout}\n${stderr}`);
    }
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
    expect(code).toBe(0);
  });
});
