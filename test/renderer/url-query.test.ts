import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  describeFilter,
  drillDown,
  emptyFilter,
  filterChips,
  filterKey,
  filterToQuery,
  isFiltered,
  nextSort,
  pageQuery,
  parseStatusCodes,
  removeChip,
  toggle,
  type UrlFilter,
} from '../../renderer/src/logic/url-query.js';

test('an empty filter asks for nothing but the page', () => {
  assert.deepEqual(pageQuery(emptyFilter(), 200, 100), { offset: 200, limit: 100 });
  assert.equal(isFiltered(emptyFilter()), false);
});

test('each filter maps to its query key; any/blank ones are left out', () => {
  const f = {
    ...emptyFilter(),
    search: '  blog ',
    states: ['error' as const],
    sources: ['sitemap' as const, 'link' as const],
    statusClasses: ['4xx' as const],
    statuses: [503],
    inSitemap: 'no' as const,
    blocked: 'yes' as const,
    sitemapId: 'https://a.com/s.xml',
    sitemapUrl: 'https://a.com/s.xml',
    sort: { key: 'status' as const, dir: 'desc' as const },
  };
  assert.deepEqual(filterToQuery(f), {
    search: 'blog',
    states: ['error'],
    sources: ['sitemap', 'link'],
    statusClasses: ['4xx'],
    statuses: [503],
    inSitemap: false,
    blocked: true,
    sitemapId: 'https://a.com/s.xml',
    sort: { key: 'status', dir: 'desc' },
  });
  assert.equal(isFiltered(f), true);
  assert.match(
    describeFilter(f),
    /state error · source sitemap, link · status 4xx, 503 · in no sitemap · blocked · listed by https:\/\/a\.com\/s\.xml · matching "blog"/,
  );
});

test('sorting alone is not a filter but changes the cache key', () => {
  const sorted = { ...emptyFilter(), sort: { key: 'url' as const, dir: 'asc' as const } };
  assert.equal(isFiltered(sorted), false);
  assert.notEqual(filterKey(sorted), filterKey(emptyFilter()));
  assert.equal(filterKey({ ...emptyFilter(), search: '  ' }), filterKey(emptyFilter()), 'blank search is no search');
});

test('header clicks flip the direction of the same key, and start others ascending', () => {
  assert.deepEqual(nextSort({ key: 'id', dir: 'asc' }, 'id'), { key: 'id', dir: 'desc' });
  assert.deepEqual(nextSort({ key: 'id', dir: 'desc' }, 'id'), { key: 'id', dir: 'asc' });
  assert.deepEqual(nextSort({ key: 'id', dir: 'desc' }, 'title'), { key: 'title', dir: 'asc' });
});

test('toggle adds and removes one value', () => {
  assert.deepEqual(toggle(['a', 'b'], 'a'), ['b']);
  assert.deepEqual(toggle(['b'], 'a'), ['b', 'a']);
});

test('exact statuses as typed: commas or spaces, sorted, no repeats; anything else is said', () => {
  assert.deepEqual(parseStatusCodes(''), { codes: [] });
  assert.deepEqual(parseStatusCodes(' 410, 404 404;301  '), { codes: [301, 404, 410] });
  assert.deepEqual(parseStatusCodes('999,100'), { codes: [100, 999] });
  for (const bad of ['4xx', '40', '4040', '099', '-404', '404.0', 'abc']) {
    const r = parseStatusCodes(`200, ${bad}`);
    assert.ok('error' in r && r.error.includes(`"${bad}"`), `${bad}: ${JSON.stringify(r)}`);
  }
  const many = Array.from({ length: 101 }, (_, i) => 200 + i).join(',');
  assert.ok('error' in parseStatusCodes(many));
  assert.equal(isFiltered({ ...emptyFilter(), statuses: [404] }), true);
  assert.deepEqual(filterToQuery({ ...emptyFilter(), statuses: [404, 410] }), { statuses: [404, 410] });
});

test('a chip for each filter applied, in plain words; removing one leaves the others and the sort', () => {
  const f: UrlFilter = {
    ...emptyFilter(),
    finding: 'SITEMAP_URL_4XX',
    findingTitle: 'Sitemap URLs answering 4xx',
    sitemapId: 'https://a.com/s.xml',
    sitemapUrl: 'https://a.com/maps/s.xml',
    search: ' blog ',
    states: ['error', 'blocked'],
    sources: ['link'],
    statusClasses: ['5xx'],
    statuses: [404, 410],
    inSitemap: 'no',
    blocked: 'yes',
    sort: { key: 'url', dir: 'desc' },
  };
  assert.deepEqual(
    filterChips(f).map((c) => `${c.label}: ${c.value}`),
    [
      'Issue: Sitemap URLs answering 4xx',
      'Listed by: s.xml',
      'Search: "blog"',
      'State: Error or Blocked',
      'Source: Link',
      'Status: 5xx or 404 or 410',
      'In sitemap: No',
      'Blocked: Yes',
    ],
  );
  assert.equal(filterChips(f)[0]!.code, 'SITEMAP_URL_4XX');
  assert.match(filterChips(f)[1]!.title, /https:\/\/a\.com\/maps\/s\.xml/);
  assert.deepEqual(filterChips(emptyFilter()), []);
  assert.deepEqual(filterChips({ ...emptyFilter(), search: '   ' }), [], 'a blank search is no filter');
  let g = f;
  for (const chip of filterChips(f)) {
    const before = filterChips(g).length;
    g = removeChip(g, chip.kind);
    assert.equal(filterChips(g).length, before - 1, chip.kind);
    assert.ok(!filterChips(g).some((c) => c.kind === chip.kind), chip.kind);
  }
  assert.deepEqual(g, { ...emptyFilter(), sort: f.sort }, 'every chip removed: no filter, the sort kept');
});

test("a finding or a tree node replaces the other's filter: they never stack unseen", () => {
  const mine: UrlFilter = { ...emptyFilter(), search: 'blog', statuses: [404], sort: { key: 'status', dir: 'asc' } };
  const finding = { code: 'SITEMAP_URL_4XX', title: '4xx in sitemaps' };
  const sitemap = { id: 'https://a.com/s.xml', url: 'https://a.com/s.xml' };
  // A finding from the Issues view: the table shows its URLs, the sort stays.
  const f1 = drillDown(mine, { finding }, false);
  assert.deepEqual(f1, { ...emptyFilter(), finding: finding.code, findingTitle: finding.title, sort: mine.sort });
  // Then a tree node: its filter in place of the finding's, the table's own filters kept.
  const f2 = drillDown({ ...f1, search: 'x' }, { sitemap }, true);
  assert.deepEqual(
    filterChips(f2).map((c) => c.kind),
    ['sitemap', 'search'],
  );
  assert.equal(f2.finding, null);
  // And a finding again: the node's filter goes.
  assert.deepEqual(
    filterChips(drillDown(f2, { finding }, false)).map((c) => c.kind),
    ['finding'],
  );
  // A node's own finding (a badge of the tree): both at once, on purpose.
  assert.deepEqual(
    filterChips(drillDown(mine, { finding, sitemap }, false)).map((c) => c.kind),
    ['finding', 'sitemap'],
  );
});
