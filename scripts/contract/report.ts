/** The gate's result as a person reads it: what changed since the release, by level, and what to do about what fails. */
import type { ContractChange, Level } from './change.js';
import type { GateResult } from './check.js';

const HEADINGS: Record<Level, string> = {
  breaking: 'Breaking',
  dangerous: 'Dangerous (listed: clients may need to prepare)',
  'non-breaking': 'Non-breaking',
};

const line = (change: ContractChange) => `  - ${change.document}: \`${change.id}\`: ${change.message}`;

export function report(result: GateResult): string {
  if (result.changes.length === 0) return 'contract gate: schema/ is the released contract (schema/released/), unchanged.\n';
  const out = ['contract gate: schema/ against its release (schema/released/)', ''];
  for (const level of ['breaking', 'dangerous', 'non-breaking'] as const) {
    const changes = result.changes.filter((change) => change.level === level);
    if (changes.length === 0) continue;
    out.push(`${HEADINGS[level]}:`);
    for (const change of changes) {
      const verdict = result.breaking.find((one) => one.change === change);
      out.push(line(change) + (verdict ? (verdict.declaredBy ? '  [declared]' : `  [NOT DECLARED: ${verdict.refused}]`) : ''));
    }
    out.push('');
  }
  const undeclared = result.breaking.filter((one) => !one.declaredBy);
  if (undeclared.length > 0) {
    out.push(
      `FAILED: ${undeclared.length} breaking change(s) not declared. Either undo them, or declare each in CHANGELOG.md under`,
      '"## Unreleased" / "### Breaking": an entry naming its identifier in backticks and the deprecation that preceded it, e.g.',
      '',
      ...undeclared.map(({ change }) => `- \`${change.id}\`: deprecated in <version> (or: deprecated since <YYYY-MM-DD>). <what each client kind must do>`),
      '',
    );
  } else out.push('passed: every breaking change is declared.', '');
  return out.join('\n');
}
