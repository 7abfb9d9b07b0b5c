import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  clearedPageFilters,
  depthDrill,
  describeFilter,
  drillDown,
  emptyFilter,
  filterChips,
  filterKey,
  filterToQuery,
  indexabilityDrill,
  isFiltered,
  nextSort,
  pageFilterCount,
  pageQuery,
  parseRange,
  parseStatusCodes,
  rangeText,
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

// ---------------------------------------------------------------- page-data filters (issue 22)

test('page-data filters map to the contract keys; reasons imply non-indexable; open range ends are left out', () => {
  const f: UrlFilter = {
    ...emptyFilter(),
    indexabilityReasons: ['noindex', 'redirect'],
    clickDepth: { min: 2, max: 4 },
    inlinks: { max: 0 },
    metaDescription: 'missing',
    h1: 'has',
  };
  assert.deepEqual(filterToQuery(f), {
    indexability: 'non-indexable',
    indexabilityReasons: ['noindex', 'redirect'],
    clickDepth: { min: 2, max: 4 },
    inlinks: { max: 0 },
    metaDescription: 'missing',
    h1: 'has',
  });
  assert.deepEqual(filterToQuery({ ...emptyFilter(), indexability: 'indexable' }), { indexability: 'indexable' });
  assert.deepEqual(filterToQuery({ ...emptyFilter(), clickDepth: {}, inlinks: null }), {}, 'a range open on both ends is no filter');
  assert.equal(isFiltered({ ...emptyFilter(), h1: 'missing' }), true);
  assert.equal(isFiltered({ ...emptyFilter(), clickDepth: {} }), false);
  assert.notEqual(filterKey({ ...emptyFilter(), inlinks: { min: 1 } }), filterKey({ ...emptyFilter(), inlinks: { max: 1 } }));
});

test('page-data chips say plainly what is applied, and each × removes only its own kind', () => {
  const f: UrlFilter = {
    ...emptyFilter(),
    finding: 'MISSING_H1',
    findingTitle: 'Missing H1',
    indexabilityReasons: ['noindex'],
    indexability: 'non-indexable',
    clickDepth: { min: 3, max: 3 },
    inlinks: { min: 10 },
    metaDescription: 'missing',
    h1: 'has',
  };
  const chips = filterChips(f);
  assert.deepEqual(
    chips.map((c) => `${c.label}: ${c.value}`),
    ['Issue: Missing H1', 'Indexability: Non-indexable (noindex)', 'Click depth: 3', 'Inlinks: at least 10', 'Meta description: Missing', 'H1: Has one'],
  );
  assert.equal(filterChips({ ...emptyFilter(), indexability: 'indexable' })[0]!.value, 'Indexable');
  assert.equal(filterChips({ ...emptyFilter(), indexability: 'non-indexable' })[0]!.value, 'Non-indexable');
  assert.equal(filterChips({ ...emptyFilter(), clickDepth: { max: 2 } })[0]!.value, 'at most 2');
  assert.equal(filterChips({ ...emptyFilter(), inlinks: { min: 1, max: 5 } })[0]!.value, '1 to 5');
  const noIdx = removeChip(f, 'indexability');
  assert.equal(noIdx.indexability, null);
  assert.deepEqual(noIdx.indexabilityReasons, []);
  assert.deepEqual(noIdx.clickDepth, { min: 3, max: 3 }, 'the other page filters stay');
  assert.equal(noIdx.finding, 'MISSING_H1');
  assert.equal(removeChip(f, 'clickDepth').clickDepth, null);
  assert.equal(removeChip(f, 'inlinks').inlinks, null);
  assert.equal(removeChip(f, 'metaDescription').metaDescription, 'any');
  assert.equal(removeChip(f, 'h1').h1, 'any');
  // The empty-table hint asks "without this one" for each chip: removing any chip drops exactly its query key.
  for (const c of chips) {
    const before = Object.keys(filterToQuery(f));
    const after = Object.keys(filterToQuery(removeChip(f, c.kind)));
    assert.ok(after.length < before.length, `removing ${c.kind} narrows the query less`);
  }
  assert.match(
    describeFilter(f),
    /issue: Missing H1 · non-indexable \(noindex\) · click depth 3 · inlinks at least 10 · missing a meta description · with an H1/,
  );
});

test('a finding from the Issues view clears the page filters; a tree node keeps them', () => {
  const f: UrlFilter = { ...emptyFilter(), indexability: 'indexable', h1: 'missing' };
  const fromIssues = drillDown(f, { finding: { code: 'BROKEN_INTERNAL_LINK', title: 'Broken internal links' } }, false);
  assert.equal(fromIssues.indexability, null);
  assert.equal(fromIssues.h1, 'any');
  assert.deepEqual(
    filterChips(fromIssues).map((c) => c.kind),
    ['finding'],
  );
  const fromTree = drillDown(f, { sitemap: { id: 's1', url: 'https://a.com/s.xml' } }, true);
  assert.deepEqual(
    filterChips(fromTree).map((c) => c.kind),
    ['sitemap', 'indexability', 'h1'],
  );
});

test('the Overview drills into one indexability reason, in place of every other filter', () => {
  const f: UrlFilter = { ...emptyFilter(), states: ['error'], clickDepth: { min: 1 }, sort: { key: 'url', dir: 'desc' } };
  const r = indexabilityDrill(f, 'canonicalised');
  assert.deepEqual(filterToQuery(r), { sort: { key: 'url', dir: 'desc' }, indexability: 'non-indexable', indexabilityReasons: ['canonicalised'] });
  assert.deepEqual(filterToQuery(indexabilityDrill(f, 'indexable')), { sort: { key: 'url', dir: 'desc' }, indexability: 'indexable' });
});

test('no click depth: its query key, chip, words and count; a range never goes with it', () => {
  assert.equal(emptyFilter().noClickDepth, false);
  assert.deepEqual(filterToQuery(emptyFilter()), {}, 'off: no key at all');
  const none: UrlFilter = { ...emptyFilter(), noClickDepth: true };
  assert.deepEqual(filterToQuery(none), { noClickDepth: true });
  assert.deepEqual(pageQuery(none, 0, 50), { offset: 0, limit: 50, noClickDepth: true });
  assert.deepEqual(filterToQuery({ ...none, clickDepth: { min: 2 } }), { noClickDepth: true }, 'never both (the service refuses the pair)');
  assert.equal(isFiltered(none), true);
  assert.notEqual(filterKey(none), filterKey(emptyFilter()));
  assert.notEqual(filterKey(none), filterKey({ ...emptyFilter(), clickDepth: { min: 0 } }));
  assert.equal(pageFilterCount(emptyFilter()), 0);
  assert.equal(pageFilterCount(none), 1);
  assert.equal(pageFilterCount({ ...none, h1: 'missing' }), 2);
  assert.equal(pageFilterCount({ ...emptyFilter(), clickDepth: { max: 1 } }), 1);

  const f: UrlFilter = { ...none, inSitemap: 'yes', h1: 'missing' };
  const chips = filterChips(f);
  assert.deepEqual(
    chips.map((c) => `${c.label}: ${c.value}`),
    ['In sitemap: Yes', 'Click depth: none', 'H1: Missing'],
  );
  assert.match(chips.find((c) => c.kind === 'clickDepth')!.title, /no chain of links from the start URL reaches them/);
  const removed = removeChip(f, 'clickDepth');
  assert.equal(removed.noClickDepth, false);
  assert.equal(removed.clickDepth, null);
  assert.deepEqual(filterToQuery(removed), { inSitemap: true, h1: 'missing' }, 'the others stay');
  assert.equal(describeFilter(f), 'in a sitemap · no click depth · missing an H1');
  assert.equal(describeFilter(none), 'no click depth');
});

test("the Overview's click-depth bars drill into one depth or into none, in place of every other filter", () => {
  const f: UrlFilter = { ...emptyFilter(), states: ['error'], h1: 'has', noClickDepth: true, sort: { key: 'url', dir: 'desc' } };
  assert.deepEqual(filterToQuery(depthDrill(f, 2)), { sort: { key: 'url', dir: 'desc' }, clickDepth: { min: 2, max: 2 } }, 'a depth replaces none');
  const none = depthDrill({ ...emptyFilter(), clickDepth: { min: 1, max: 1 }, inlinks: { min: 3 } }, null);
  assert.deepEqual(filterToQuery(none), { noClickDepth: true }, 'none replaces a depth and the rest');
  assert.equal(none.clickDepth, null);
  assert.deepEqual(
    filterChips(depthDrill(f, null)).map((c) => `${c.label}: ${c.value}`),
    ['Click depth: none'],
  );
  assert.deepEqual(filterChips(depthDrill(f, 0))[0]!.value, '0');
});

test('ranges read as typed: open ends, bounds in order, errors that say which end', () => {
  assert.deepEqual(parseRange('', ''), { range: null });
  assert.deepEqual(parseRange(' 2 ', ''), { range: { min: 2 } });
  assert.deepEqual(parseRange('', '0'), { range: { max: 0 } });
  assert.deepEqual(parseRange('1', '1'), { range: { min: 1, max: 1 } });
  assert.match((parseRange('5', '2') as { error: string }).error, /minimum \(5\) is above the maximum \(2\)/);
  assert.match((parseRange('-1', '') as { error: string }).error, /minimum "-1" is not a whole number/);
  assert.match((parseRange('', '2.5') as { error: string }).error, /maximum "2\.5" is not a whole number/);
  assert.match((parseRange('99999999999', '') as { error: string }).error, /too large/);
  assert.equal(rangeText({ min: 0, max: 0 }), '0');
  assert.equal(rangeText(null), null);
  assert.equal(rangeText({}), null);
});

test('the carried-over filter (recrawls): its query key, chip and words', () => {
  const yes = { ...emptyFilter(), carriedOver: 'yes' as const };
  assert.deepEqual(filterToQuery(yes), { carriedOver: true });
  assert.deepEqual(filterToQuery({ ...emptyFilter(), carriedOver: 'no' }), { carriedOver: false });
  assert.equal(isFiltered(yes), true);
  const chip = filterChips(yes).find((c) => c.kind === 'carriedOver')!;
  assert.equal(`${chip.label}: ${chip.value}`, 'Carried over: Yes');
  assert.match(describeFilter(yes), /carried over/);
  assert.equal(isFiltered(removeChip(yes, 'carriedOver')), false);
});

test('"Clear these" clears every page filter and nothing else', () => {
  const f = {
    ...emptyFilter(),
    search: 'shoes',
    statuses: [404],
    indexability: 'non-indexable' as const,
    indexabilityReasons: ['noindex' as const],
    clickDepth: { min: 2 },
    noClickDepth: true,
    inlinks: { max: 0 },
    metaDescription: 'missing' as const,
    h1: 'has' as const,
  };
  assert.equal(pageFilterCount(f), 5);
  const cleared = { ...f, ...clearedPageFilters() };
  assert.equal(pageFilterCount(cleared), 0);
  assert.deepEqual(cleared, { ...emptyFilter(), search: 'shoes', statuses: [404] });
});
