/**
 * CrawlService with the real engine against the local test site: a full crawl as the app shows it,
 * and pause → quit → reopen → resume ending with the URLs and CSV rows of an uninterrupted crawl.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_PAGE, type CrawlSettings } from '../../shared/model.js';
import { createCrawlService, type LocalCrawlService } from '../../electron/service/index.js';
import { startTestSite } from '../fixtures/site.js';
import type { TestSite } from '../fixtures/types.js';
import { allRows, csvByUrl, csvOf, fetchedAtLeast, settled, tempDir } from './helpers.js';

function settings(site: TestSite, over: Partial<CrawlSettings> = {}): Partial<CrawlSettings> & { startUrl: string } {
  return {
    startUrl: site.url('/'),
    userAgent: 'SpinneretTest/1.0',
    timeoutMs: 600,
    connectTimeoutMs: 500,
    retries: 1,
    maxBodyBytes: 2 * 1024 * 1024,
    concurrency: 8,
    perHostConcurrency: 8,
    ...over,
  };
}

async function crawlToEnd(service: LocalCrawlService, id: string, resume = false) {
  const end = settled(service, id);
  await (resume ? service.resume(id) : service.start(id));
  return end;
}

const paths = (site: TestSite, urls: Iterable<string>) => new Set([...urls].map((u) => (u.startsWith(site.origin) ? u.slice(site.origin.length) : u)));

test('a full crawl of the test site, as the service shows it', async () => {
  const site = await startTestSite({ scenario: 'full', slowMs: 2000 });
  const service = createCrawlService({ stateDir: tempDir() });
  try {
    const c = service.create({ settings: settings(site) });
    const s = await crawlToEnd(service, c.id);
    assert.equal(s.status, 'finished');
    const rows = allRows(service, c.id);
    const ex = site.expected;
    const found = paths(
      site,
      rows.map((r) => r.url),
    );
    for (const p of ex.discovered) assert.ok(found.has(p), `not discovered: ${p}`);
    const allowed = new Set([...ex.discovered, ...ex.mayDiscover]);
    for (const p of found) assert.ok(allowed.has(p), `discovered but should not be: ${p}`);
    const byPath = new Map(rows.map((r) => [r.url.startsWith(site.origin) ? r.url.slice(site.origin.length) : r.url, r]));
    for (const p of ex.blocked) assert.equal(byPath.get(p)?.state, 'blocked', p);
    assert.equal(s.counters.discovered, rows.length);
    assert.equal(s.counters.blocked, ex.blocked.length);

    // /page/7.html: in two sitemaps and linked from three pages.
    const seven = service.getUrl(c.id, byPath.get('/page/7.html')!.id);
    assert.equal(seven.discoveries.filter((d) => d.source === 'sitemap').length, 2);
    assert.equal(seven.discoveries.filter((d) => d.source === 'link').length, 3);
    assert.equal(seven.inSitemaps.length, 2);
    for (const [p, e] of Object.entries(ex.entries)) {
      const row = byPath.get(p);
      if (!row || e.lastmod === undefined) continue;
      assert.equal(row.lastmod, e.lastmod, `${p} lastmod`);
    }

    // The tree: every expected sitemap under its parent, with its state and count.
    const nodes = new Map<string, { state: string; urlCount: number }>();
    const walk = (parent: string | null) => {
      for (const n of service.sitemapTree(c.id, parent)) {
        nodes.set(n.url, n);
        walk(n.id);
      }
    };
    walk(null);
    for (const sm of ex.sitemaps) {
      const n = nodes.get(site.url(sm.path));
      assert.ok(n, `no node for ${sm.path}`);
      assert.equal(n.state, sm.state, `${sm.path} state`);
      assert.equal(n.urlCount, sm.urlCount, `${sm.path} urlCount`);
    }
    assert.ok(service.log(c.id, 0, 100).total > 0, 'the failures are in the log');
    const csv = await csvOf(service, c.id);
    assert.equal(csv.trimEnd().split('\n').length, rows.length + 1);
  } finally {
    await service.close();
    await site.close();
  }
});

test('pause → quit → reopen → resume ends with the URLs and CSV rows of an uninterrupted crawl, nothing fetched twice', async () => {
  const site = await startTestSite({ scenario: 'large', pages: 300, sitemapUrls: 500, perSitemap: 100, pageDelayMs: 4 });
  try {
    const over = { concurrency: 4, perHostConcurrency: 4 };
    // Uninterrupted.
    const plainService = createCrawlService({ stateDir: tempDir() });
    const plain = plainService.create({ settings: settings(site, over) });
    const expected = await crawlToEnd(plainService, plain.id);
    const expectedCsv = csvByUrl(await csvOf(plainService, plain.id));
    await plainService.close();
    assert.equal(expected.status, 'finished');

    // Interrupted: pause half way, quit, reopen, resume.
    site.hits.clear();
    const dir = tempDir();
    let service = createCrawlService({ stateDir: dir });
    const id = service.create({ settings: settings(site, over) }).id;
    const halfway = fetchedAtLeast(service, id, 120);
    await service.start(id);
    await halfway;
    const paused = await service.pause(id);
    assert.equal(paused.status, 'paused');
    assert.ok(paused.counters.fetched < expected.counters.fetched, 'paused before the end');
    await service.close();

    service = createCrawlService({ stateDir: dir });
    assert.equal(service.get(id).status, 'paused');
    const resumed = await crawlToEnd(service, id, true);
    assert.equal(resumed.status, 'finished');
    const got = csvByUrl(await csvOf(service, id));
    assert.deepEqual([...got.keys()].sort(), [...expectedCsv.keys()].sort(), 'the same URLs');
    for (const [url, row] of expectedCsv) assert.equal(got.get(url), row, url);
    const { bySource: _a, ...counters } = resumed.counters;
    const { bySource: _b, ...want } = expected.counters;
    assert.deepEqual(counters, want);

    const pages = [...site.hits].filter(([p]) => p.endsWith('.html') || p === '/');
    assert.ok(pages.length >= 500);
    assert.deepEqual(
      pages.filter(([, n]) => n !== 1),
      [],
      'no page fetched twice',
    );
    const docsTwice = [...site.hits].filter(([p, n]) => p.startsWith('/large/') && n > 1);
    assert.ok(docsTwice.length <= 1, `only the sitemap in progress may be read again: ${JSON.stringify(docsTwice)}`);
    await service.close();
  } finally {
    await site.close();
  }
});

test('the URL table shows the requests in flight as fetching, and only while they are', async () => {
  const site = await startTestSite({ scenario: 'large', pages: 120, sitemapUrls: 60, perSitemap: 30, pageDelayMs: 150 });
  const service = createCrawlService({ stateDir: tempDir() });
  try {
    const c = service.create({ settings: settings(site, { concurrency: 3, perHostConcurrency: 3 }) });
    const end = settled(service, c.id);
    await service.start(c.id);
    let seen = 0;
    for (let i = 0; i < 200 && seen === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const page = service.queryUrls(c.id, { offset: 0, limit: 50, states: ['fetching'] });
      seen = page.total;
      if (seen > 0) {
        assert.ok(page.total <= 3, `at most the concurrency in flight, got ${page.total}`);
        assert.ok(page.rows.every((r) => r.state === 'fetching'));
        const fetchingIds = new Set(page.rows.map((r) => r.id));
        const queued = service.queryUrls(c.id, { offset: 0, limit: MAX_PAGE, states: ['queued'] });
        assert.ok(
          queued.rows.every((r) => !fetchingIds.has(r.id)),
          'a URL in flight is not listed as queued',
        );
      }
    }
    assert.ok(seen > 0, 'some request was seen in flight');
    const s = await end;
    assert.equal(s.status, 'finished');
    assert.equal(service.queryUrls(c.id, { offset: 0, limit: 10, states: ['fetching'] }).total, 0);
  } finally {
    await service.close();
    await site.close();
  }
});
