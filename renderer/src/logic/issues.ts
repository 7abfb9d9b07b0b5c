/** The sitemap audit as the window shows it: findings grouped by severity, tab counts, tree badges. */
import type { AuditBadge, AuditFinding, AuditSeverity } from '../../../shared/model.js';

export const SEVERITIES: readonly AuditSeverity[] = ['critical', 'warning', 'notice'];

export const SEVERITY_LABEL: Record<AuditSeverity, string> = { critical: 'Critical', warning: 'Warnings', notice: 'Notices' };

/** The badge class of a severity: red, amber, blue. */
export const SEVERITY_TONE: Record<AuditSeverity, string> = { critical: 'badge-error', warning: 'badge-warn', notice: 'badge-info' };

export interface FindingGroup {
  severity: AuditSeverity;
  /** Measured findings, those with problems first (most affected first), then the clean ones. */
  findings: AuditFinding[];
  /** Findings with at least one affected URL or sitemap. */
  withProblems: number;
}

/** Findings by severity (critical, warning, notice); the ones not measured apart, in catalogue order. */
export function groupFindings(findings: readonly AuditFinding[]): { groups: FindingGroup[]; notMeasured: AuditFinding[] } {
  const groups = SEVERITIES.map((severity): FindingGroup => {
    const measured = findings.filter((f) => f.severity === severity && f.measured);
    const withProblems = measured.filter((f) => f.count > 0).sort((a, b) => b.count - a.count);
    return { severity, findings: [...withProblems, ...measured.filter((f) => f.count === 0)], withProblems: withProblems.length };
  });
  return { groups, notMeasured: findings.filter((f) => !f.measured) };
}

/** What the Issues tab shows: how many findings have problems, and the worst severity among them. */
export function issueSummary(findings: readonly AuditFinding[] | null | undefined): { count: number; worst: AuditSeverity | null } {
  let count = 0;
  let worst: AuditSeverity | null = null;
  for (const f of findings ?? []) {
    if (!f.measured || f.count === 0) continue;
    count++;
    if (worst === null || SEVERITIES.indexOf(f.severity) < SEVERITIES.indexOf(worst)) worst = f.severity;
  }
  return { count, worst };
}

/** A tree node's badge: its findings summed, coloured by the worst of them; null when it has none. */
export function badgeSummary(badges: readonly AuditBadge[] | undefined): { total: number; worst: AuditSeverity } | null {
  if (!badges || badges.length === 0) return null;
  let total = 0;
  let worst: AuditSeverity = 'notice';
  for (const b of badges) {
    total += b.count;
    if (SEVERITIES.indexOf(b.severity) < SEVERITIES.indexOf(worst)) worst = b.severity;
  }
  return { total, worst };
}

/** "3 URLs", "1 sitemap": what a finding's count counts. */
export function countNoun(f: Pick<AuditFinding, 'subject' | 'count'>): string {
  const one = f.subject === 'sitemap' ? 'sitemap' : 'URL';
  return f.count === 1 ? one : `${one}s`;
}
