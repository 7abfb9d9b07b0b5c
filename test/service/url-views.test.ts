/**
 * UrlViews over a UrlStore: the exact status filter (404 is not 410) and how it joins the status
 * classes, sorting by the columns the store holds and by any other field of a row, and how long a
 * slow view of a running crawl is reused. Then the page filters and sorts (indexability, link
 * counts, click depth, meta description and H1) over given verdicts and counts; the same over a real
 * crawl of the fixture site is in service-pages.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { UrlQuery, UrlRow, UrlSortKey } from '../../shared/model.js';
import { ServiceError } from '../../electron/service/errors.js';
import { ST_DONE, ST_ERROR, UrlStore } from '../../electron/service/data/url-store.js';
import { UrlViews, type LinkCounts, type PageVerdicts, type ViewContext, type ViewFilter } from '../../electron/service/data/url-views.js';

/** id → [status (0: none), content type, sitemaps listing it]. */
const PLAN: [number, string | undefined, number][] = [
  [200, 'text/html', 1], // 0
  [404, 'text/html', 2], // 1
  [410, 'text/plain', 0], // 2
  [0, undefined, 1], // 3: never fetched
  [503, 'text/html', 3], // 4
  [404, undefined, 1], // 5
  [301, 'application/pdf', 0], // 6
];

function build(extra: Partial<ViewContext> = {}) {
  const store = new UrlStore();
  const rows: UrlRow[] = [];
  PLAN.forEach(([status, contentType, sitemaps], id) => {
    store.admit(id, sitemaps ? 'sitemap' : 'link', false, 0, sitemaps ? 0 : -1, sitemaps ? 100 + id : -1, undefined);
    for (let k = 1; k < sitemaps; k++) store.listing(id, k, 100 + id, undefined);
    if (status) store.result(id, ST_DONE, status, undefined, 1000 + id);
    else store.result(id, ST_ERROR, undefined, undefined, 1000 + id);
    const row: UrlRow = { id, url: `http://a.test/${id}`, state: status ? 'done' : 'error', source: 'sitemap', depth: 0, inSitemaps: [] };
    if (status) row.status = status;
    if (contentType) row.contentType = contentType;
    rows.push(row);
  });
  const ctx: ViewContext = {
    store,
    urlOf: (id) => rows[id]!.url,
    row: (id) => rows[id]!,
    sitemapRefs: () => undefined,
    running: () => false,
    now: () => 0,
    ...extra,
  };
  return { store, rows, views: new UrlViews(ctx) };
}

const ids = (views: UrlViews, q: Omit<UrlQuery, 'offset' | 'limit'>) => views.page({ offset: 0, limit: 100, ...q }).ids;

test('an exact status matches that status only: 404 is not 410, and an unfetched URL matches none', () => {
  const { views } = build();
  assert.deepEqual(ids(views, { statuses: [404] }), [1, 5]);
  assert.deepEqual(ids(views, { statuses: [410] }), [2]);
  assert.deepEqual(ids(views, { statuses: [404, 410] }), [1, 2, 5]);
  assert.deepEqual(ids(views, { statuses: [418] }), []);
  assert.deepEqual(ids(views, { statusClasses: ['4xx'] }), [1, 2, 5], 'the class still takes both');
});

test('exact statuses and status classes are one dimension (either matches); other filters still narrow', () => {
  const { views } = build();
  assert.deepEqual(ids(views, { statusClasses: ['5xx'], statuses: [404] }), [1, 4, 5]);
  assert.deepEqual(ids(views, { statusClasses: ['none'], statuses: [301] }), [3, 6]);
  assert.deepEqual(ids(views, { statuses: [404], inSitemap: true, sources: ['sitemap'] }), [1, 5]);
  assert.deepEqual(ids(views, { statuses: [404], states: ['error'] }), []);
  assert.deepEqual(ids(views, { statuses: [404], sort: { key: 'id', dir: 'desc' } }), [5, 1]);
});

test('sorting by how many sitemaps list a URL, from the store', () => {
  const { views } = build({ row: undefined });
  assert.deepEqual(ids(views, { sort: { key: 'inSitemaps', dir: 'asc' } }), [2, 6, 0, 3, 5, 1, 4]);
  assert.deepEqual(ids(views, { sort: { key: 'inSitemaps', dir: 'desc' } }), [4, 1, 5, 3, 0, 6, 2]);
});

test('a field the store does not hold sorts through the rows: rows without it last both ways, ties by id', () => {
  const { views } = build();
  assert.deepEqual(ids(views, { sort: { key: 'contentType', dir: 'asc' } }), [6, 0, 1, 4, 2, 3, 5]);
  assert.deepEqual(ids(views, { sort: { key: 'contentType', dir: 'desc' } }), [2, 4, 1, 0, 6, 3, 5], 'last in both directions');
  assert.deepEqual(ids(views, { statuses: [404, 410], sort: { key: 'contentType', dir: 'asc' } }), [1, 2, 5]);
  const noRows = build({ row: undefined }).views;
  assert.throws(
    () => ids(noRows, { sort: { key: 'contentType', dir: 'asc' } }),
    (e: unknown) => e instanceof ServiceError && e.code === 'BAD_QUERY' && /contentType/.test(e.message),
  );
});

test('a running crawl reuses a slow view for ten times its build time, a fast one for a second', () => {
  let now = 0;
  let running = true;
  // Reading a row takes 50 ms on this clock: the contentType view takes 350 ms to build.
  const ctx = build({ now: () => now, running: () => running });
  const rowOf = (id: number) => {
    now += 50;
    return ctx.rows[id]!;
  };
  const { store } = ctx;
  const views = new UrlViews({ store, urlOf: (id) => ctx.rows[id]!.url, row: rowOf, sitemapRefs: () => undefined, running: () => running, now: () => now });
  const byType = () => ids(views, { sort: { key: 'contentType', dir: 'asc' } });
  const exact404 = () => ids(views, { statuses: [404] });
  assert.deepEqual(byType(), [6, 0, 1, 4, 2, 3, 5]);
  assert.deepEqual(exact404(), [1, 5]);
  // URL 2 answers again with another type and status: the store changed.
  ctx.rows[2] = { ...ctx.rows[2]!, contentType: 'application/atom+xml', status: 404 };
  store.result(2, ST_DONE, 404, undefined, 2000);
  now += 1200;
  assert.deepEqual(exact404(), [1, 2, 5], 'a fast view is rebuilt after a second');
  assert.deepEqual(byType(), [6, 0, 1, 4, 2, 3, 5], 'the slow one is kept (built 1.2 s ago, in 0.35 s)');
  now += 2400;
  assert.deepEqual(byType(), [2, 6, 0, 1, 4, 3, 5], 'and rebuilt after 3.5 s');
  running = false;
  store.result(2, ST_DONE, 404, undefined, 2001);
  ctx.rows[2] = { ...ctx.rows[2]!, contentType: 'text/zzz' };
  assert.deepEqual(byType(), [6, 0, 1, 4, 2, 3, 5], 'an idle crawl never serves a stale view');
});

test('status sorts with unfetched URLs last in both directions', () => {
  const { views } = build({ row: undefined });
  assert.deepEqual(ids(views, { sort: { key: 'status', dir: 'asc' } }), [0, 6, 1, 5, 2, 4, 3]);
  assert.deepEqual(ids(views, { sort: { key: 'status', dir: 'desc' } }), [4, 2, 5, 1, 6, 0, 3]);
});

// ---------------------------------------------------------------- page filters and sorts

type Verdict = ReturnType<PageVerdicts['indexability']>;
/** id → status (0: queued), verdict, page facts, [inlinks, unique, outInternal, outExternal], click depth. */
const PAGES: [number, Verdict, ReturnType<PageVerdicts['pageFacts']>, [number, number, number?, number?], number?][] = [
  [200, { indexability: 'indexable' }, { metaDescription: true, h1: true }, [9, 4, 5, 1], 0], // 0
  [200, { indexability: 'indexable' }, { metaDescription: false, h1: true }, [3, 3, 2, 0], 1], // 1
  [200, { indexability: 'non-indexable', reason: 'noindex' }, { metaDescription: true, h1: false }, [3, 2, 0, 2], 2], // 2
  [200, { indexability: 'non-indexable', reason: 'canonicalised' }, { metaDescription: false, h1: false }, [1, 1, 1, 0], 1], // 3
  [404, { indexability: 'non-indexable', reason: 'client-error' }, undefined, [4, 4], 2], // 4
  [301, { indexability: 'non-indexable', reason: 'redirect' }, undefined, [0, 0]], // 5: in a sitemap only
  [200, { indexability: 'non-indexable', reason: 'not-html' }, undefined, [2, 1], 3], // 6: a PDF
  [0, undefined, undefined, [0, 0]], // 7: queued
];

function pages(extra: Partial<ViewContext> = {}, pagesWithLinks = 4) {
  const store = new UrlStore();
  PAGES.forEach(([status], id) => {
    store.admit(id, 'link', false, 1, -1, -1, undefined);
    if (status) store.result(id, ST_DONE, status, undefined, 1000 + id);
  });
  const verdicts: PageVerdicts = { indexability: (id) => PAGES[id]![1], pageFacts: (id) => PAGES[id]![2] };
  const links: LinkCounts = {
    inlinks: (id) => PAGES[id]![3][0],
    uniqueInlinks: (id) => PAGES[id]![3][1],
    outlinksInternal: (id) => PAGES[id]![3][2],
    outlinksExternal: (id) => PAGES[id]![3][3],
    clickDepth: (id) => PAGES[id]![4],
    pagesWithLinks,
  };
  const ctx: ViewContext = {
    store,
    urlOf: (id) => `http://a.test/${id}`,
    // The page columns sort and filter without reading a row (that is a journal read).
    row: () => assert.fail('a row was read'),
    sitemapRefs: () => undefined,
    running: () => false,
    now: () => 0,
    verdicts,
    links,
    ...extra,
  };
  return new UrlViews(ctx);
}

test('indexability and its reasons filter from the verdicts; a URL without a result matches neither', () => {
  const views = pages();
  assert.deepEqual(ids(views, { indexability: 'indexable' }), [0, 1]);
  assert.deepEqual(ids(views, { indexability: 'non-indexable' }), [2, 3, 4, 5, 6]);
  assert.deepEqual(ids(views, { indexabilityReasons: ['client-error', 'redirect'] }), [4, 5], 'reasons are one dimension: either');
  assert.deepEqual(ids(views, { indexabilityReasons: ['noindex'] }), [2]);
  assert.deepEqual(ids(views, { indexabilityReasons: ['blocked-by-robots'] }), []);
  assert.deepEqual(ids(views, { indexability: 'non-indexable', indexabilityReasons: ['not-html'] }), [6]);
  assert.deepEqual(ids(views, { indexability: 'indexable', indexabilityReasons: ['noindex'] }), [], 'and with indexability by AND');
});

test('click depth and inlinks ranges are inclusive, open at either end; no click depth never matches', () => {
  const views = pages();
  assert.deepEqual(ids(views, { clickDepth: { min: 1, max: 2 } }), [1, 2, 3, 4]);
  assert.deepEqual(ids(views, { clickDepth: { min: 2 } }), [2, 4, 6]);
  assert.deepEqual(ids(views, { clickDepth: { max: 0 } }), [0]);
  assert.deepEqual(ids(views, { clickDepth: {} }), [0, 1, 2, 3, 4, 6], 'any click depth: the sitemap-only and queued URLs are out');
  assert.deepEqual(ids(views, { inlinks: { min: 3 } }), [0, 1, 2, 4]);
  assert.deepEqual(ids(views, { inlinks: { max: 0 } }), [5, 7]);
  assert.deepEqual(ids(views, { inlinks: { min: 2, max: 3 } }), [1, 2, 6]);
  assert.deepEqual(ids(views, { inlinks: { min: 3, max: 3 } }), [1, 2]);
  for (const q of [{ clickDepth: { min: 3, max: 1 } }, { inlinks: { min: 10, max: 2 } }]) {
    assert.throws(
      () => ids(views, q),
      (e: unknown) => e instanceof ServiceError && e.code === 'BAD_QUERY' && /min \(\d+\) is above max/.test(e.message),
    );
  }
});

test('no click depth: the URLs no chain of links reaches, or those it reaches; never with a range', () => {
  const views = pages();
  assert.deepEqual(ids(views, { noClickDepth: true }), [5, 7], 'the sitemap-only and the queued URL');
  assert.deepEqual(ids(views, { noClickDepth: false }), [0, 1, 2, 3, 4, 6]);
  assert.deepEqual(ids(views, { noClickDepth: false, clickDepth: { min: 2 } }), [2, 4, 6], 'false with a range: the range');
  assert.deepEqual(ids(views, { noClickDepth: true, statuses: [301] }), [5], 'with the other filters by AND');
  assert.deepEqual(ids(views, { noClickDepth: true, sort: { key: 'id', dir: 'desc' } }), [7, 5], 'a filter, not the plain view');
  for (const clickDepth of [{ min: 0 }, { max: 3 }, {}]) {
    assert.throws(
      () => ids(views, { noClickDepth: true, clickDepth }),
      (e: unknown) => e instanceof ServiceError && e.code === 'BAD_QUERY' && /never both match: give one of them/.test(e.message),
      JSON.stringify(clickDepth),
    );
  }
  // A crawl without link data (pages not fetched): no URL is reached by links, so every URL has none.
  const bare = pages({ links: undefined, row: undefined });
  assert.deepEqual(ids(bare, { noClickDepth: true }), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(ids(bare, { noClickDepth: false }), []);
});

test('has / misses a meta description or an H1: fetched 2xx HTML pages only', () => {
  const views = pages();
  assert.deepEqual(ids(views, { metaDescription: 'has' }), [0, 2]);
  assert.deepEqual(ids(views, { metaDescription: 'missing' }), [1, 3], 'the 404, the PDF and the queued URL are neither');
  assert.deepEqual(ids(views, { h1: 'has' }), [0, 1]);
  assert.deepEqual(ids(views, { h1: 'missing' }), [2, 3]);
  assert.deepEqual(ids(views, { metaDescription: 'missing', h1: 'missing' }), [3]);
});

test('the page filters combine with each other and with the older ones by AND', () => {
  const views = pages();
  assert.deepEqual(ids(views, { statuses: [200], inlinks: { min: 3 }, h1: 'has' }), [0, 1]);
  assert.deepEqual(ids(views, { statusClasses: ['2xx'], indexability: 'non-indexable', clickDepth: { min: 2 } }), [2, 6]);
  assert.deepEqual(ids(views, { indexabilityReasons: ['noindex', 'canonicalised'], metaDescription: 'has', inlinks: { min: 1 } }), [2]);
  assert.deepEqual(ids(views, { states: ['queued'], indexability: 'indexable' }), []);
  assert.deepEqual(ids(views, { clickDepth: { max: 2 }, sort: { key: 'inlinks', dir: 'desc' } }), [0, 4, 2, 1, 3]);
  // Each filter is part of the cached view's key: one view does not answer for another.
  assert.deepEqual(ids(views, { h1: 'missing' }), [2, 3]);
  assert.deepEqual(ids(views, { h1: 'has' }), [0, 1]);
});

test('what the crawl cannot measure matches nothing, and the query does not throw', () => {
  const bare = pages({ verdicts: undefined, links: undefined, row: undefined });
  const unmeasurable: ViewFilter[] = [
    { indexability: 'indexable' },
    { indexabilityReasons: ['redirect'] },
    { clickDepth: { min: 0 } },
    { inlinks: { max: 0 } },
    { metaDescription: 'missing' },
    { h1: 'has' },
  ];
  for (const q of unmeasurable) {
    assert.deepEqual(ids(bare, q), [], JSON.stringify(q));
  }
  // Pages not fetched: every inlink count would read 0, but none was measured.
  const noLinks = pages({}, 0);
  assert.deepEqual(ids(noLinks, { inlinks: { max: 0 } }), []);
  assert.deepEqual(ids(noLinks, { sort: { key: 'inlinks', dir: 'desc' } }), [0, 1, 2, 3, 4, 5, 6, 7], 'sorting by what no URL has keeps id order');
});

test('sorting by each link count, click depth and indexability: from the columns, absent last both ways', () => {
  const views = pages();
  const sorted = (key: UrlSortKey) => [ids(views, { sort: { key, dir: 'asc' } }), ids(views, { sort: { key, dir: 'desc' } })];
  assert.deepEqual(sorted('inlinks'), [
    [5, 7, 3, 6, 1, 2, 4, 0],
    [0, 4, 2, 1, 6, 3, 7, 5],
  ]);
  assert.deepEqual(sorted('uniqueInlinks'), [
    [5, 7, 3, 6, 2, 1, 0, 4],
    [4, 0, 1, 2, 6, 3, 7, 5],
  ]);
  assert.deepEqual(sorted('outlinksInternal'), [
    [2, 3, 1, 0, 4, 5, 6, 7],
    [0, 1, 3, 2, 4, 5, 6, 7],
  ]);
  assert.deepEqual(sorted('outlinksExternal'), [
    [1, 3, 0, 2, 4, 5, 6, 7],
    [2, 0, 3, 1, 4, 5, 6, 7],
  ]);
  assert.deepEqual(sorted('clickDepth'), [
    [0, 1, 3, 2, 4, 6, 5, 7],
    [6, 4, 2, 3, 1, 0, 5, 7],
  ]);
  assert.deepEqual(sorted('indexability'), [
    [0, 1, 2, 3, 4, 5, 6, 7],
    [6, 5, 4, 3, 2, 1, 0, 7],
  ]);
  // Reasons by name, as their text sorts: canonicalised, client-error, noindex, not-html, redirect.
  assert.deepEqual(sorted('indexabilityReason'), [
    [3, 4, 2, 6, 5, 0, 1, 7],
    [5, 6, 2, 4, 3, 0, 1, 7],
  ]);
});

test('without the columns, the page fields sort through the rows, in the same order', () => {
  const rows: UrlRow[] = PAGES.map(([, verdict, , counts, clickDepth], id) => {
    const row: UrlRow = { id, url: `http://a.test/${id}`, state: 'done', source: 'link', depth: 1, inSitemaps: [], inlinks: counts[0] };
    if (counts[2] !== undefined) row.outlinksInternal = counts[2];
    if (clickDepth !== undefined) row.clickDepth = clickDepth;
    if (verdict) row.indexability = verdict.indexability;
    if (verdict?.reason) row.indexabilityReason = verdict.reason;
    return row;
  });
  const byRows = pages({ verdicts: undefined, links: undefined, row: (id) => rows[id]! });
  const byColumns = pages();
  for (const key of ['inlinks', 'outlinksInternal', 'clickDepth', 'indexability', 'indexabilityReason'] as const) {
    for (const dir of ['asc', 'desc'] as const) {
      assert.deepEqual(ids(byRows, { sort: { key, dir } }), ids(byColumns, { sort: { key, dir } }), `${key} ${dir}`);
    }
  }
});
