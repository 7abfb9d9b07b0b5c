// The Issues view's logic: grouping by severity, the tab's count and colour, tree badges, and the
// URL table's finding filter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditFinding } from '../../shared/model.js';
import { badgeSummary, countNoun, groupFindings, issueSummary } from '../../renderer/src/logic/issues.js';
import { describeFilter, emptyFilter, filterToQuery, isFiltered } from '../../renderer/src/logic/url-query.js';

const f = (code: string, severity: AuditFinding['severity'], count: number, measured = true, subject: AuditFinding['subject'] = 'url'): AuditFinding => ({
  code,
  severity,
  title: code,
  explanation: '',
  subject,
  count,
  measured,
});

test('findings group by severity, those with problems first (most affected first); unmeasured ones apart', () => {
  const list = [f('A', 'critical', 0), f('B', 'critical', 3), f('C', 'warning', 1), f('D', 'critical', 9), f('E', 'notice', 0, false), f('F', 'notice', 2)];
  const { groups, notMeasured } = groupFindings(list);
  assert.deepEqual(
    groups.map((g) => [g.severity, g.findings.map((x) => x.code), g.withProblems]),
    [
      ['critical', ['D', 'B', 'A'], 2],
      ['warning', ['C'], 1],
      ['notice', ['F'], 1],
    ],
  );
  assert.deepEqual(
    notMeasured.map((x) => x.code),
    ['E'],
  );
});

test('the Issues tab counts findings with problems and takes the worst severity among them', () => {
  assert.deepEqual(issueSummary(null), { count: 0, worst: null });
  assert.deepEqual(issueSummary([f('A', 'critical', 0), f('B', 'notice', 4), f('C', 'warning', 1)]), { count: 2, worst: 'warning' });
  assert.deepEqual(issueSummary([f('A', 'critical', 5, false), f('B', 'notice', 1)]), { count: 1, worst: 'notice' }, 'unmeasured ones never count');
});

test('a tree badge sums its findings and takes the colour of the worst', () => {
  assert.equal(badgeSummary(undefined), null);
  assert.equal(badgeSummary([]), null);
  assert.deepEqual(
    badgeSummary([
      { code: 'DUPLICATE_IN_SITEMAP', severity: 'notice', count: 50_000 },
      { code: 'SITEMAP_TOO_MANY_URLS', severity: 'critical', count: 1 },
    ]),
    { total: 50_001, worst: 'critical' },
  );
  assert.equal(countNoun({ subject: 'sitemap', count: 1 }), 'sitemap');
  assert.equal(countNoun({ subject: 'url', count: 3 }), 'URLs');
});

test('the finding filter maps to the query, counts as a filter, and reads as the finding title', () => {
  const filter = { ...emptyFilter(), finding: 'SITEMAP_URL_4XX', findingTitle: 'Sitemap URLs answering 4xx' };
  assert.deepEqual(filterToQuery(filter), { finding: 'SITEMAP_URL_4XX' });
  assert.equal(isFiltered(filter), true);
  assert.equal(describeFilter(filter), 'issue: Sitemap URLs answering 4xx');
  assert.equal(filterToQuery(emptyFilter()).finding, undefined);
});
