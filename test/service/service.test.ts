/**
 * CrawlService with a deterministic crawler: settings and defaults, lifecycle errors, the URL table
 * (paging, sorting, filters), the detail pane, the tree, the log, CSV export, and event batching.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCrawlService, ServiceError, type LocalCrawlService } from '../../electron/service/index.js';
import { FakeCrawler, sitemapPlan, type FakePlan } from './fake-crawler.js';
import { allRows, csvOf, settled, tempDir } from './helpers.js';
import { MAX_PAGE, type ProgressEvent } from '../../shared/model.js';
import { CSV_COLUMNS } from '../../electron/service/data/csv.js';

const ORIGIN = 'http://shop.test';

function service(p: FakePlan, dir = tempDir()): LocalCrawlService {
  return createCrawlService({ stateDir: dir, crawlerFactory: (o) => new FakeCrawler(o, p) });
}

function rejectsWith(code: string, re?: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof ServiceError, `a ServiceError, got ${String(e)}`);
    assert.equal(e.code, code);
    if (re) assert.match(e.message, re);
    return true;
  };
}

async function finishedCrawl(p: FakePlan, settings: Record<string, unknown> = {}) {
  const s = service(p);
  const c = s.create({ name: 'Shop', settings: { startUrl: ORIGIN + '/', ...settings } });
  const end = settled(s, c.id);
  await s.start(c.id);
  await end;
  return { s, id: c.id };
}

test('settings are validated with messages naming the field; defaults fill the rest', async () => {
  const s = service({ origin: ORIGIN, sitemaps: [], fetchPages: false });
  assert.throws(() => s.create({ settings: { startUrl: '' } }), rejectsWith('BAD_SETTINGS', /startUrl/));
  assert.throws(() => s.create({ settings: { startUrl: 'ftp://x.test/' } }), rejectsWith('BAD_SETTINGS', /"startUrl".*http/));
  assert.throws(() => s.create({ settings: { startUrl: ORIGIN, concurrency: 0 } }), rejectsWith('BAD_SETTINGS', /"concurrency" must be at least 1/));
  assert.throws(() => s.create({ settings: { startUrl: ORIGIN, scope: 'planet' as never } }), rejectsWith('BAD_SETTINGS', /"scope"/));
  assert.throws(() => s.create({ settings: { startUrl: ORIGIN, include: ['(['] } }), rejectsWith('BAD_SETTINGS', /"include.0".*regular expression/));
  assert.throws(() => s.create({ settings: { startUrl: ORIGIN, colour: 'red' } as never }), rejectsWith('BAD_SETTINGS', /colour/));

  const c = s.create({ settings: { startUrl: ORIGIN + '/' } });
  assert.equal(c.status, 'created');
  assert.equal(c.name, 'shop.test');
  assert.match(c.settings.userAgent, /^Spinneret\//);
  assert.equal(c.settings.concurrency, 8);
  assert.equal(c.settings.perHostConcurrency, 4);
  assert.equal(c.settings.scope, 'host');
  assert.equal(c.settings.timeoutMs, 15000);
  assert.equal(c.settings.retries, 2);
  assert.equal(c.settings.maxBodyBytes, 10 * 1024 * 1024);

  assert.throws(() => s.setDefaults({ concurrency: -1 }), rejectsWith('BAD_SETTINGS', /concurrency/));
  const d = s.setDefaults({ concurrency: 3, userAgent: 'MyBot/1.0' });
  assert.equal(d.concurrency, 3);
  assert.equal(d.startUrl, '', 'a start URL is never a default');
  assert.equal(s.getDefaults().userAgent, 'MyBot/1.0');
  const c2 = s.create({ settings: { startUrl: ORIGIN + '/', userAgent: 'Other/2' } });
  assert.equal(c2.settings.concurrency, 3);
  assert.equal(c2.settings.userAgent, 'Other/2');
  await s.close();
});

test('lifecycle: NOT_FOUND, BAD_STATE, rename, stop, delete', async () => {
  const { s, id } = await finishedCrawl({ origin: ORIGIN, sitemaps: sitemapPlan(ORIGIN, 10, 1), fetchPages: false });
  assert.throws(() => s.get('nope'), rejectsWith('NOT_FOUND'));
  await assert.rejects(s.resume(id), rejectsWith('BAD_STATE', /finished/));
  await assert.rejects(s.start(id), rejectsWith('BAD_STATE'));
  await assert.rejects(s.pause(id), rejectsWith('BAD_STATE'));
  assert.equal(s.rename(id, '  Shop crawl ').name, 'Shop crawl');
  assert.throws(() => s.rename(id, ' '), rejectsWith('BAD_SETTINGS'));

  assert.equal(s.get(id).stopped, undefined, 'a crawl that did its work was not stopped');
  const other = s.create({ settings: { startUrl: ORIGIN + '/' } });
  const stopped = await s.stop(other.id);
  assert.equal(stopped.status, 'finished', 'stopping a crawl never started ends it');
  assert.equal(stopped.stopped, true, 'ended by Stop, with its work not done');
  assert.equal(s.list().find((c) => c.id === other.id)!.stopped, true);
  assert.equal(s.list().length, 2);
  await s.delete(other.id);
  assert.deepEqual(
    s.list().map((c) => c.id),
    [id],
  );
  assert.throws(() => s.get(other.id), rejectsWith('NOT_FOUND'));
  await s.close();
  assert.throws(() => s.create({ settings: { startUrl: ORIGIN } }), rejectsWith('CLOSED'));
});

test('the URL table pages, sorts and filters; the detail pane and the tree show the sitemap data', async () => {
  const sitemaps = sitemapPlan(ORIGIN, 40, 2);
  sitemaps[1]!.entries.push({ ...sitemaps[0]!.entries[2]!, lastmod: '2020-01-01' }); // item-4, listed by both sitemaps
  const { s, id } = await finishedCrawl({
    origin: ORIGIN,
    sitemaps,
    fetchPages: true,
    links: (url) => (url.endsWith('item-3.html') ? [`${ORIGIN}/about`, `${ORIGIN}/product/item-5.html`] : []),
    title: (url) => (url.endsWith('/about') ? 'About us' : `Item ${url.split('-').pop()}`),
  });
  const summary = s.get(id);
  assert.equal(summary.status, 'finished');
  assert.deepEqual(
    { discovered: summary.counters.discovered, fetched: summary.counters.fetched, duplicates: summary.counters.duplicates },
    { discovered: 42, fetched: 42, duplicates: 2 },
  );
  assert.deepEqual(summary.counters.bySource, { start: 1, robots: 0, sitemap: 40, link: 1, redirect: 0, canonical: 0, hreflang: 0, reference: 0 });
  assert.equal(summary.counters.byStatusClass['2xx'], 42);
  assert.deepEqual(summary.counters.sitemaps, { total: 2, done: 2, failed: 0 });

  const page = s.queryUrls(id, { offset: 10, limit: 5 });
  assert.equal(page.total, 42);
  assert.deepEqual(
    page.rows.map((r) => r.id),
    [10, 11, 12, 13, 14],
  );
  assert.deepEqual(
    s.queryUrls(id, { offset: 0, limit: 2, sort: { key: 'id', dir: 'desc' } }).rows.map((r) => r.id),
    [41, 40],
  );

  const row = allRows(s, id).find((r) => r.url.endsWith('/item-4.html'))!;
  assert.deepEqual(row.inSitemaps, [`${ORIGIN}/sitemap-0.xml`, `${ORIGIN}/sitemap-1.xml`]);
  assert.equal(row.lastmod, '2024-05-14T10:00:00+00:00', 'the first listing gives the row its entry');
  assert.equal(row.changefreq, 'daily');
  assert.equal(row.priority, 0.4);
  assert.equal(row.status, 200);
  assert.equal(row.state, 'done');

  const byUrl = s.queryUrls(id, { offset: 0, limit: 3, sort: { key: 'url', dir: 'asc' } }).rows.map((r) => r.url);
  assert.deepEqual(byUrl, [`${ORIGIN}/`, `${ORIGIN}/about`, `${ORIGIN}/product/item-0.html`]);
  const byLastmod = s.queryUrls(id, { offset: 0, limit: 50, sort: { key: 'lastmod', dir: 'asc' } }).rows;
  const stamps = byLastmod.filter((r) => r.lastmod).map((r) => Date.parse(r.lastmod!));
  assert.deepEqual(
    stamps,
    [...stamps].sort((a, b) => a - b),
  );
  assert.equal(byLastmod.at(-1)!.lastmod, undefined, 'URLs without a lastmod sort last');
  const byTitle = s.queryUrls(id, { offset: 0, limit: 1, sort: { key: 'title', dir: 'asc' } }).rows;
  assert.equal(byTitle[0]!.title, 'About us');

  assert.equal(s.queryUrls(id, { offset: 0, limit: 0, inSitemap: false }).total, 2);
  assert.deepEqual(
    s.queryUrls(id, { offset: 0, limit: 5, sources: ['link'] }).rows.map((r) => r.url),
    [`${ORIGIN}/about`],
  );
  assert.equal(s.queryUrls(id, { offset: 0, limit: 0, search: 'ITEM-1' }).total, 11, 'search ignores case (item-1, item-10…19)');
  assert.deepEqual(
    s.queryUrls(id, { offset: 0, limit: 5, search: 'about us' }).rows.map((r) => r.url),
    [`${ORIGIN}/about`],
    'search looks at titles',
  );
  assert.equal(s.queryUrls(id, { offset: 0, limit: 0, sitemapId: `${ORIGIN}/sitemap-1.xml` }).total, 21);
  // A node that lists sitemaps (robots.txt here, an index elsewhere) stands for what they list.
  const [root] = s.sitemapTree(id, null);
  assert.equal(root!.type, 'robots');
  assert.ok(s.sitemapTree(id, root!.id).length >= 2, 'robots.txt names two sitemaps or more');
  const underRoot = s.queryUrls(id, { offset: 0, limit: 0, sitemapId: root!.id }).total;
  assert.equal(underRoot, s.queryUrls(id, { offset: 0, limit: 0, inSitemap: true }).total);
  assert.ok(underRoot > 21);
  assert.equal(s.queryUrls(id, { offset: 0, limit: 0, statusClasses: ['2xx'] }).total, 42);
  assert.equal(s.queryUrls(id, { offset: 0, limit: 0, statusClasses: ['4xx', 'none'] }).total, 0);
  assert.equal(s.queryUrls(id, { offset: 0, limit: 0, states: ['done'], blocked: false }).total, 42);
  assert.throws(() => s.queryUrls(id, { offset: -1, limit: 5 }), rejectsWith('BAD_QUERY'));
  // The service pages as the contract does: at most MAX_PAGE rows, whoever calls.
  assert.equal(s.queryUrls(id, { offset: 0, limit: MAX_PAGE }).rows.length, 42);
  assert.throws(() => s.queryUrls(id, { offset: 0, limit: MAX_PAGE + 1 }), rejectsWith('BAD_QUERY', new RegExp(`between 0 and ${MAX_PAGE}`)));
  assert.throws(() => s.log(id, 0, MAX_PAGE + 1), rejectsWith('BAD_QUERY'));
  assert.throws(() => s.findingUrls(id, 'SITEMAP_URL_4XX', 0, MAX_PAGE + 1), rejectsWith('BAD_QUERY'));
  assert.throws(() => s.queryUrls(id, { offset: 0, limit: 5, sitemapId: 'http://x.test/none.xml' }), rejectsWith('NOT_FOUND'));

  const detail = s.getUrl(id, row.id);
  assert.deepEqual(detail.discoveries, [
    { source: 'sitemap', from: `${ORIGIN}/sitemap-0.xml` },
    { source: 'sitemap', from: `${ORIGIN}/sitemap-1.xml` },
  ]);
  assert.equal(detail.sitemapEntry?.loc, row.url);
  assert.equal(detail.result?.title, 'Item 4.html');
  assert.throws(() => s.getUrl(id, 42), rejectsWith('NOT_FOUND'));

  const roots = s.sitemapTree(id, null);
  assert.deepEqual(
    roots.map((n) => n.type),
    ['robots'],
  );
  assert.deepEqual(
    s.sitemapTree(id, roots[0]!.id).map((n) => [n.url, n.state, n.urlCount]),
    [
      [`${ORIGIN}/sitemap-0.xml`, 'done', 20],
      [`${ORIGIN}/sitemap-1.xml`, 'done', 21],
    ],
  );
  const log = s.log(id, 0, 10);
  assert.equal(log.total, 1);
  assert.equal(log.rows[0]!.code, 'FAKE_DONE');
  await s.close();
});

test('CSV export: the header, one row per URL, and filters', async () => {
  const { s, id } = await finishedCrawl({ origin: ORIGIN, sitemaps: sitemapPlan(ORIGIN, 25, 2), fetchPages: false });
  const csv = await csvOf(s, id);
  const lines = csv.trimEnd().split('\n');
  assert.equal(lines[0], CSV_COLUMNS.join(','));
  assert.equal(lines.length, 26);
  // Listed only: no answer, so none of the page data appended after `error` either (nor link data:
  // no page was fetched).
  const afterError = CSV_COLUMNS.length - 1 - CSV_COLUMNS.indexOf('error');
  assert.equal(
    lines[1],
    `${ORIGIN}/product/item-0.html,sitemap,0,${ORIGIN}/sitemap-0.xml,${ORIGIN}/sitemap-0.xml,2024-01-10T10:00:00+00:00,weekly,0,,,,,,,,,,false,${','.repeat(afterError)}`,
  );
  const filtered = await csvOf(s, id, { sitemapId: `${ORIGIN}/sitemap-1.xml`, sort: { key: 'url', dir: 'desc' } });
  assert.equal(filtered.trimEnd().split('\n').length, 1 + 12);
  assert.match(filtered.split('\n')[1]!, /item-9\.html/);
  await s.close();
});

test('progress events: at most 5 per second per crawl over a crawl of thousands of URLs, then finished', async () => {
  const p: FakePlan = { origin: ORIGIN, sitemaps: sitemapPlan(ORIGIN, 6000, 6), fetchPages: true, step: 10, yieldMs: 1 };
  const s = service(p);
  const c = s.create({ settings: { startUrl: ORIGIN + '/' } });
  const events: { t: number; e: ProgressEvent }[] = [];
  s.on('progress', (e) => events.push({ t: performance.now(), e }));
  const end = settled(s, c.id);
  const t0 = performance.now();
  await s.start(c.id);
  const final = await end;
  await new Promise((r) => setTimeout(r, 250)); // the last event follows the status change
  const took = performance.now() - t0;
  assert.ok(took > 1500, `the crawl must last long enough to measure (${Math.round(took)} ms)`);
  // No window of one second holds more than 5 events.
  for (let i = 0; i < events.length; i++) {
    const inWindow = events.filter((x) => x.t >= events[i]!.t && x.t < events[i]!.t + 1000).length;
    assert.ok(inWindow <= 5, `${inWindow} events within one second from event ${i}`);
  }
  assert.ok(events.length >= Math.floor(took / 1000) * 3, `${events.length} events over ${Math.round(took)} ms: the timer keeps them coming`);
  const discovered = events.map((x) => x.e.counters.discovered);
  assert.deepEqual(
    discovered,
    [...discovered].sort((a, b) => a - b),
    'counters only grow',
  );
  const last = events.at(-1)!.e;
  assert.equal(last.status, 'finished');
  assert.deepEqual(last.counters, final.counters);
  assert.equal(final.counters.discovered, 6001);
  const nodes = events.flatMap((x) => x.e.nodes.map((n) => n.id));
  assert.ok(nodes.includes(`${ORIGIN}/sitemap-5.xml`), 'changed nodes ride along');
  assert.ok(
    events.some((x) => x.e.rate > 0),
    'a rate is reported while running',
  );
  assert.equal(last.log.length + events.slice(0, -1).reduce((n, x) => n + x.e.log.length, 0), 1, 'each log entry once');
  await s.close();
});
