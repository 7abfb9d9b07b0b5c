/**
 * The findings table as CSV (`npm run crawl -- audit ID --out FILE.csv`) is written by the same
 * encoder as the URL export (csvLine of electron/service/data/csv.ts). It was written by csv-stringify
 * before; these tests hold it to what csv-stringify wrote, byte for byte, on tricky values.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'csv-stringify/sync';
import type { AuditFinding } from '../shared/model.js';
import { AUDIT_CSV_COLUMNS, findingsCsv } from '../electron/cli/audit-format.js';
import { csvLine } from '../electron/service/data/csv.js';

/** The findings CSV exactly as csv-stringify wrote it, with the options audit-format.ts gave it. */
function csvStringifyFindings(findings: AuditFinding[]): string {
  return stringify(
    findings.map((f) => [f.severity, f.code, f.title, f.subject, f.count, f.measured, f.explanation, f.notMeasuredReason ?? '']),
    { header: true, columns: [...AUDIT_CSV_COLUMNS], cast: { boolean: (b) => String(b) } },
  );
}

/** The same table through csv.ts's encoder. */
function csvLineFindings(findings: AuditFinding[]): string {
  let text = csvLine(AUDIT_CSV_COLUMNS);
  for (const f of findings) {
    text += csvLine([f.severity, f.code, f.title, f.subject, String(f.count), String(f.measured), f.explanation, f.notMeasuredReason ?? '']);
  }
  return text;
}

const PIECES = [
  'a',
  'Z',
  ' ',
  ',',
  '"',
  '""',
  '\n',
  '\r',
  '\r\n',
  '=',
  '+',
  '-',
  '@',
  '\t',
  'é',
  '✓',
  '𝄞',
  "'",
  ';',
  '|',
  '0',
  '1.5',
  'https://site.test/p?a=1&b=2',
];

function randomFindings(n: number, seed: number): AuditFinding[] {
  const rand = (k: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % k;
  const text = () => Array.from({ length: rand(6) }, () => PIECES[rand(PIECES.length)]).join('');
  const out: AuditFinding[] = [];
  for (let i = 0; i < n; i++) {
    const measured = rand(2) === 0;
    out.push({
      code: rand(4) ? `CODE_${i}` : text(),
      severity: (['critical', 'warning', 'notice'] as const)[rand(3)]!,
      title: text(),
      explanation: text(),
      subject: rand(2) ? 'url' : 'sitemap',
      count: [0, 1, 42, 1_000_000_007][rand(4)]!,
      measured,
      ...(measured || rand(3) === 0 ? {} : { notMeasuredReason: text() }),
    });
  }
  return out;
}

const TRICKY: AuditFinding[] = [
  {
    code: 'SITEMAP_URL_4XX',
    severity: 'critical',
    title: 'Listed URLs, "gone"',
    explanation: 'Remove them, or fix\nthe pages.',
    subject: 'url',
    count: 3,
    measured: true,
  },
  {
    code: 'X',
    severity: 'warning',
    title: '=HYPERLINK("http://evil.test")',
    explanation: '-5 °C, +1, @me',
    subject: 'sitemap',
    count: 0,
    measured: false,
    notMeasuredReason: '\tpages not fetched\r',
  },
  { code: '', severity: 'notice', title: '', explanation: '', subject: 'url', count: 0, measured: false },
  {
    code: 'CRLF',
    severity: 'notice',
    title: 'a\r\nb',
    explanation: '""',
    subject: 'url',
    count: 7,
    measured: true,
    notMeasuredReason: 'kept when measured',
  },
];

test("the findings CSV: csv.ts's encoder writes what csv-stringify wrote, byte for byte", () => {
  for (const findings of [[], TRICKY, randomFindings(3000, 11)]) {
    const theirs = csvStringifyFindings(findings);
    assert.equal(csvLineFindings(findings), theirs);
    assert.equal(findingsCsv(findings), theirs);
  }
  const text = findingsCsv(randomFindings(3000, 11));
  assert.ok(/"[^"]*""/.test(text) && text.includes('\r') && text.includes(',='), 'the cases that need quoting were there');
});

test('the findings CSV: LF line ends, a header even without findings, no formula guard on our own texts', () => {
  assert.equal(findingsCsv([]), 'severity,code,title,subject,count,measured,explanation,not_measured_reason\n');
  assert.equal(
    findingsCsv(TRICKY.slice(0, 2)).split('\n').slice(1).join('\n'),
    'critical,SITEMAP_URL_4XX,"Listed URLs, ""gone""",url,3,true,"Remove them, or fix\nthe pages.",\n' +
      'warning,X,"=HYPERLINK(""http://evil.test"")",sitemap,0,false,"-5 °C, +1, @me","\tpages not fetched\r"\n',
  );
});
