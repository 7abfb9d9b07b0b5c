/**
 * UrlViews over a UrlStore: the exact status filter (404 is not 410) and how it joins the status
 * classes, sorting by the columns the store holds and by any other field of a row, and how long a
 * slow view of a running crawl is reused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { UrlQuery, UrlRow } from '../../shared/model.js';
import { ServiceError } from '../../electron/service/errors.js';
import { ST_DONE, ST_ERROR, UrlStore } from '../../electron/service/data/url-store.js';
import { UrlViews, type ViewContext } from '../../electron/service/data/url-views.js';

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

test('a field the store does not hold sorts through the rows: rows without it last, ties by id', () => {
  const { views } = build();
  assert.deepEqual(ids(views, { sort: { key: 'contentType', dir: 'asc' } }), [6, 0, 1, 4, 2, 3, 5]);
  assert.deepEqual(ids(views, { sort: { key: 'contentType', dir: 'desc' } }), [5, 3, 2, 4, 1, 0, 6]);
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
