/** The Compare view's logic (renderer/src/logic/compare.ts): default pairs, the table's filter, words. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compareChips,
  compareFilterOf,
  compareQuery,
  changedFields,
  defaultPair,
  drillCompare,
  emptyCompareFilter,
  fieldsText,
  isCompareFiltered,
  pickerGroups,
  removeCompareChip,
  sideValue,
  signed,
  siteKey,
  sortFindings,
  trustText,
  trustTone,
} from '../../renderer/src/logic/compare.js';
import { emptyCounters, type CompareFinding, type CompareSide, type CrawlSummary } from '../../shared/model.js';

function crawl(id: string, createdAt: number, extra: Partial<CrawlSummary> = {}, startUrl = 'https://www.shop.example/'): CrawlSummary {
  return {
    id,
    name: id,
    startUrl,
    settings: { startUrl, sitemapUrls: [] } as unknown as CrawlSummary['settings'],
    status: 'finished',
    counters: emptyCounters(),
    createdAt,
    updatedAt: createdAt,
    rate: 0,
    ...extra,
  };
}

test('a recrawl compares with its base, even when a newer crawl of the site sits between them', () => {
  const crawls = [crawl('a', 1), crawl('b', 2), crawl('r', 3, { baseId: 'a' })];
  assert.deepEqual(defaultPair(crawls, 'r'), { oldId: 'a', newId: 'r' });
});

test('otherwise the previous crawl of the same site, never another site or a running crawl', () => {
  const crawls = [crawl('old', 1), crawl('other-site', 2, {}, 'https://blog.example/'), crawl('running', 3, { status: 'running' }), crawl('new', 4)];
  assert.deepEqual(defaultPair(crawls, 'new'), { oldId: 'old', newId: 'new' });
  // The oldest crawl of a site is the side before: with its recrawl first, else the next crawl.
  assert.deepEqual(defaultPair(crawls, 'old'), { oldId: 'old', newId: 'new' });
  const withRecrawl = [...crawls, crawl('rec', 5, { baseId: 'old' })];
  assert.deepEqual(defaultPair(withRecrawl, 'old'), { oldId: 'old', newId: 'rec' });
  assert.equal(defaultPair(crawls, 'other-site'), null, 'no other crawl of that site');
  // A base deleted since: back to the previous crawl of the site.
  assert.deepEqual(defaultPair([crawl('x', 1), crawl('y', 2, { baseId: 'gone' })], 'y'), { oldId: 'x', newId: 'y' });
});

test('the site of a crawl is its start host, else its first sitemap’s, in lower case', () => {
  assert.equal(siteKey(crawl('a', 1, {}, 'https://WWW.Shop.example/x')), 'www.shop.example');
  const sm = { startUrl: '', settings: { sitemapUrls: ['https://cdn.example/sitemap.xml'] } as unknown as CrawlSummary['settings'] };
  assert.equal(siteKey(sm), 'cdn.example');
});

test('the pickers offer the same site first, newest first, then the others; running crawls left out', () => {
  const crawls = [crawl('a', 1), crawl('b', 3), crawl('z', 2, {}, 'https://blog.example/'), crawl('run', 4, { status: 'running' })];
  const g = pickerGroups(crawls, 'a');
  assert.deepEqual(
    g.sameSite.map((c) => c.id),
    ['b', 'a'],
  );
  assert.deepEqual(
    g.others.map((c) => c.id),
    ['z'],
  );
});

test('the table filter maps to the contract query; empty parts are left out', () => {
  assert.deepEqual(compareQuery(emptyCompareFilter(), 0, 100), { offset: 0, limit: 100 });
  assert.equal(isCompareFiltered(emptyCompareFilter()), false);
  const f = {
    ...emptyCompareFilter(),
    change: 'changed' as const,
    field: 'title' as const,
    sources: ['sitemap' as const],
    sitemap: 'https://a.example/s.xml',
    finding: { code: 'SITEMAP_URL_4XX', moved: 'entered' as const, title: 'Sitemap URLs answering 4xx' },
    search: '  /shop ',
  };
  assert.deepEqual(compareFilterOf(f), {
    change: 'changed',
    field: 'title',
    sources: ['sitemap'],
    sitemap: 'https://a.example/s.xml',
    finding: { code: 'SITEMAP_URL_4XX', moved: 'entered' },
    search: '/shop',
  });
  assert.deepEqual(
    compareChips(f).map((c) => `${c.label}: ${c.value}`),
    ['Change: Changed', 'Field: Title', 'Source: Sitemap', 'Sitemap gained or lost: s.xml', 'Entered: Sitemap URLs answering 4xx', 'Search: "/shop"'],
  );
  for (const c of compareChips(f)) {
    const left = removeCompareChip(f, c.kind);
    assert.equal(
      compareChips(left).some((x) => x.kind === c.kind),
      false,
      c.kind,
    );
    assert.equal(compareChips(left).length, 5, c.kind);
  }
});

test('a figure clicked replaces the earlier one, keeps the search; a field implies changed rows', () => {
  const f = { ...emptyCompareFilter(), change: 'removed' as const, sources: ['link' as const], search: 'blog' };
  assert.deepEqual(compareFilterOf(drillCompare(f, { field: 'canonical' })), { change: 'changed', field: 'canonical', search: 'blog' });
  assert.deepEqual(compareFilterOf(drillCompare(f, { sitemap: 'https://a.example/s.xml' })), { sitemap: 'https://a.example/s.xml', search: 'blog' });
  const finding = { code: 'X', moved: 'left' as const, title: 'X' };
  assert.deepEqual(compareFilterOf(drillCompare(f, { finding })), { finding: { code: 'X', moved: 'left' }, search: 'blog' });
});

test('a side’s values in words; lists one a line', () => {
  const side: CompareSide = {
    id: 3,
    state: 'done',
    source: 'sitemap',
    status: 301,
    redirectTo: 'https://a.example/new',
    indexability: 'non-indexable',
    inSitemaps: ['https://a.example/a.xml', 'https://a.example/b.xml'],
    hreflang: [{ lang: 'de', href: 'https://a.example/de/' }],
  };
  assert.equal(sideValue(side, 'state'), 'Fetched');
  assert.equal(sideValue(side, 'status'), '301');
  assert.equal(sideValue(side, 'indexability'), 'Non-indexable');
  assert.equal(sideValue(side, 'redirectTo'), 'https://a.example/new');
  assert.equal(sideValue(side, 'title'), '');
  assert.equal(sideValue(side, 'inSitemaps'), 'https://a.example/a.xml\nhttps://a.example/b.xml');
  assert.equal(sideValue(side, 'hreflang'), 'de https://a.example/de/');
  assert.equal(sideValue(undefined, 'title'), '');
  assert.equal(fieldsText(['title', 'canonical', 'lastmod', 'h1', 'content']), 'Title, Canonical, Lastmod +2');
  assert.equal(fieldsText([]), '');
});

test('lastmod trust: a share and its counts, toned; nothing judged is no figure', () => {
  assert.equal(trustText({ agree: 120, judged: 138 }), '87% (120/138)');
  assert.equal(trustText({ agree: 1234, judged: 1234 }), '100% (1,234/1,234)');
  assert.equal(trustText({ agree: 0, judged: 0 }), null);
  assert.equal(trustText(undefined), null);
  assert.equal(trustTone({ agree: 95, judged: 100 }), 'ok');
  assert.equal(trustTone({ agree: 60, judged: 100 }), 'warn');
  assert.equal(trustTone({ agree: 10, judged: 100 }), 'error');
});

test('findings: worse ones first, then those that moved most, unchanged ones, unmeasured last', () => {
  const f = (code: string, before: number, after: number, entered = 0, left = 0, measured = true): CompareFinding => ({
    code,
    severity: 'warning',
    title: code,
    subject: 'url',
    before,
    after,
    entered,
    left,
    measured,
  });
  const findings = [f('SAME', 3, 3), f('UNMEASURED', 0, 0, 0, 0, false), f('BETTER', 9, 2, 0, 7), f('WORSE', 1, 2, 1, 0), f('SWAPPED', 2, 2, 1, 1)];
  assert.deepEqual(
    sortFindings({ findings, worse: ['WORSE'] }).map((x) => x.code),
    ['WORSE', 'BETTER', 'SWAPPED', 'SAME', 'UNMEASURED'],
  );
  assert.deepEqual(
    changedFields({
      fields: [
        { field: 'title', changed: 2 },
        { field: 'status', changed: 0 },
        { field: 'lastmod', changed: 5 },
        { field: 'canonical', changed: 2 },
      ],
    }).map((x) => x.field),
    ['lastmod', 'canonical', 'title'], // ties in the detail's field order
  );
  assert.equal(signed(3), '+3');
  assert.equal(signed(-1200), '−1,200');
  assert.equal(signed(0), '0');
});

test('a crawl opened from a file keeps its creation time: it compares with the crawl it was saved from, as the later side', () => {
  const original = crawl('orig', 5);
  const copy = crawl('copy', 5, { imported: { at: 99, file: 'shop.spinneret' } });
  assert.deepEqual(defaultPair([copy, original], 'copy'), { oldId: 'orig', newId: 'copy' });
  assert.deepEqual(defaultPair([copy, original], 'orig'), { oldId: 'orig', newId: 'copy' });
});
