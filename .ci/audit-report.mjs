// Reads the output of `npm audit --json` (auditReportVersion 2, npm 7 and later). Pure: no process, no I/O,
// so test/unit/audit-report.test.ts can feed it recorded outputs. Types in audit-report.d.mts.

export const FAILING_SEVERITIES = ['critical', 'high'];

/**
 * @param {string} stdout what `npm audit --json` printed on standard output
 * @returns {import('./audit-report.d.mts').AuditResult}
 */
export function classifyAudit(stdout) {
  let report;
  try {
    report = JSON.parse(stdout);
  } catch {
    const line = stdout.trim().split('\n')[0];
    return { kind: 'unreachable', reason: line ? `npm printed no JSON report: ${line}` : 'npm printed no report' };
  }
  // npm prints a failed advisory request as { message, uri, statusCode, … } and its exit handler adds
  // error: { code, summary, detail } (npm's lib/utils/audit-error.js and output-error.js).
  if (report?.error !== undefined) {
    const reason = [report.message, report.error?.summary, report.error?.code].find((s) => typeof s === 'string' && s !== '');
    return { kind: 'unreachable', reason: reason ?? 'npm reported an error and no details' };
  }
  if (typeof report?.vulnerabilities !== 'object' || report.vulnerabilities === null) {
    return { kind: 'unreadable', reason: 'the report has no "vulnerabilities" object (not auditReportVersion 2?)' };
  }
  // npm's counts are of vulnerable packages (a dependent of a vulnerable package counts too), not advisories.
  const counts = { critical: 0, high: 0, moderate: 0, low: 0, info: 0, ...report.metadata?.vulnerabilities };
  delete counts.total;
  const packages = Object.values(report.vulnerabilities)
    .filter((v) => FAILING_SEVERITIES.includes(v.severity))
    .map((v) => ({
      name: v.name,
      severity: v.severity,
      direct: v.isDirect === true,
      advisories: (v.via ?? []).filter((via) => typeof via === 'object').map((a) => ({ title: a.title, url: a.url, severity: a.severity })),
      through: (v.via ?? []).filter((via) => typeof via === 'string'),
    }));
  return packages.length > 0 ? { kind: 'vulnerable', packages, counts } : { kind: 'clean', counts };
}

/**
 * What CI prints and how it exits.
 * @param {import('./audit-report.d.mts').AuditResult} result
 * @returns {{ exitCode: 0 | 1, lines: string[] }}
 */
export function verdict(result) {
  const tally = (counts) => Object.entries(counts).filter(([, n]) => n > 0).map(([s, n]) => `${n} ${s}`).join(', ') || 'none';
  switch (result.kind) {
    case 'unreachable':
      return { exitCode: 0, lines: [
        `WARNING: npm audit could not reach the advisory service (${result.reason}); production dependencies were not checked.`,
      ] };
    case 'unreadable':
      return { exitCode: 1, lines: [`npm audit: cannot read its report: ${result.reason}. Update .ci/audit-report.mjs.`] };
    case 'clean':
      return { exitCode: 0, lines: [`npm audit: no high or critical advisories in production dependencies (vulnerable packages: ${tally(result.counts)}).`] };
    case 'vulnerable': {
      // Packages with an advisory of their own first: the rest are affected only through them.
      const sorted = [...result.packages].sort((a, b) =>
        Number(b.advisories.length > 0) - Number(a.advisories.length > 0) || a.name.localeCompare(b.name));
      return { exitCode: 1, lines: [
        `npm audit: ${sorted.length} production package(s) affected by high or critical advisories (vulnerable packages: ${tally(result.counts)}):`,
        ...sorted.flatMap((p) => [
          `  ${p.name} (${p.severity}${p.direct ? ', direct dependency' : ''})${p.through.length > 0 ? ` through ${p.through.join(', ')}` : ''}`,
          ...p.advisories.map((a) => `    ${a.severity}: ${a.title} ${a.url}`),
        ]),
        'Run `npm audit --omit=dev` for the fixes npm proposes.',
      ] };
    }
  }
}
