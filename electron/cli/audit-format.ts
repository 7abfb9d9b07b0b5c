/**
 * What `npm run crawl -- audit ID` prints or writes: the findings table for people, as CSV, as JSON.
 */
import type { AuditFinding, CrawlSummary } from '../../shared/model.js';
import { csvLine } from '../service/data/csv.js';
import { statusWord } from './format.js';

/** The header of the findings CSV, in this order. */
export const AUDIT_CSV_COLUMNS = ['severity', 'code', 'title', 'subject', 'count', 'measured', 'explanation', 'not_measured_reason'] as const;

/** The findings table: severity, code, count ("not measured" when it could not be), explanation. */
export function formatFindings(crawl: CrawlSummary, findings: AuditFinding[]): string {
  const found = findings.filter((f) => f.measured && f.count > 0).length;
  const unmeasured = findings.filter((f) => !f.measured).length;
  const head = `Audit of crawl ${crawl.id} (${statusWord(crawl)}): ${found} of ${findings.length} findings with problems${unmeasured ? `, ${unmeasured} not measured` : ''}`;
  const rows = findings.map((f) => [
    f.severity,
    f.code,
    f.measured ? String(f.count) : 'not measured',
    f.measured ? f.explanation : (f.notMeasuredReason ?? 'Not measured.'),
  ]);
  const header = ['SEVERITY', 'CODE', 'COUNT', 'EXPLANATION'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) =>
    r
      .map((cell, i) => (i === 3 ? cell : i === 2 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const lines = [head, '', fmt(header), ...rows.map(fmt)];
  if (found > 0) lines.push('', 'Export the URLs of one finding with: npm run crawl -- audit ID --finding CODE --out FILE.csv');
  return lines.join('\n');
}

/**
 * The findings table as CSV (header AUDIT_CSV_COLUMNS), encoded like the URL export. No cell is
 * guarded against formula injection: every one is Spinneret's own text (the finding catalogue), none
 * comes from a crawled site.
 */
export function findingsCsv(findings: AuditFinding[]): string {
  let text = csvLine(AUDIT_CSV_COLUMNS);
  for (const f of findings) {
    text += csvLine([f.severity, f.code, f.title, f.subject, String(f.count), String(f.measured), f.explanation, f.notMeasuredReason ?? '']);
  }
  return text;
}

/** The findings as JSON, with the crawl they are about. */
export function findingsJson(crawl: CrawlSummary, findings: AuditFinding[]): string {
  return JSON.stringify({ crawl: { id: crawl.id, name: crawl.name, status: crawl.status, startUrl: crawl.startUrl }, findings }, null, 2);
}
