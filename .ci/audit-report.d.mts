export type Severity = 'info' | 'low' | 'moderate' | 'high' | 'critical';

export interface VulnerablePackage {
  name: string;
  severity: Severity;
  /** A dependency listed in package.json, rather than one deeper in the tree. */
  direct: boolean;
  /** The package's own advisories. */
  advisories: { title: string; url: string; severity: Severity }[];
  /** Vulnerable dependencies through which it is affected. */
  through: string[];
}

export type AuditResult =
  | { kind: 'unreachable'; reason: string }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'clean'; counts: Record<Severity, number> }
  | { kind: 'vulnerable'; packages: VulnerablePackage[]; counts: Record<Severity, number> };

export const FAILING_SEVERITIES: Severity[];
export function classifyAudit(stdout: string): AuditResult;
export function verdict(result: AuditResult): { exitCode: 0 | 1; lines: string[] };
