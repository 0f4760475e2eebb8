#!/usr/bin/env node
// CI: fail on a high or critical advisory in the production dependencies (`npm audit --omit=dev`).
// Plain Node, no dependencies: it runs right after `npm ci`, before anything else is trusted.
//
// When the advisory service cannot be reached (npm prints an error, or no report), this warns and
// passes. A registry mirror or proxy that does not serve the audit endpoint (this build machine's answers
// 405) would otherwise fail every run for a reason that says nothing about our dependencies, and a red
// CI that is always red gets ignored. The WARNING line says that nothing was checked; the check is only
// as good as a run where the service answered.
import { spawnSync } from 'node:child_process';
import { classifyAudit, verdict } from './audit-report.mjs';

// npm exits 1 when it finds any advisory, or cannot ask: its report, not its exit code, decides.
const npm = spawnSync('npm', ['audit', '--omit=dev', '--json'], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
  maxBuffer: 64 * 1024 * 1024,
});
if (npm.error) {
  console.error(`npm audit could not be run: ${npm.error.message}`);
  process.exit(1);
}
const result = classifyAudit(npm.stdout);
const { exitCode, lines } = verdict(result);
const print = exitCode === 0 && result.kind === 'clean' ? console.log : console.error;
for (const line of lines) print(line);
process.exit(exitCode);
