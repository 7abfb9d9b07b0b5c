import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawlLogEntry, CrawlSettings, SitemapNode, UrlResult } from '../../shared/model.js';
import { Crawler } from '../../electron/engine/crawler/crawler.js';
import { BUILTIN_DEFAULTS } from '../../electron/service/catalog/settings.js';
import type { Discovery, Request } from '../../electron/engine/types.js';
import { startTestSite, startConformanceServer } from '../fixtures/site.js';
import type { TestSite } from '../fixtures/types.js';

/** Settings a test crawl starts from: fast timeouts, local site. */
export function testSettings(startUrl: string, over: Partial<CrawlSettings> = {}): CrawlSettings {
  return {
    ...BUILTIN_DEFAULTS,
    startUrl,
    concurrency: 8,
    perHostConcurrency: 8,
    userAgent: 'SpinneretTest/1.0',
    timeoutMs: 600,
    connectTimeoutMs: 500,
    retries: 1,
    maxBodyBytes: 2 * 1024 * 1024,
    ...over,
  };
}

interface Recorded {
  admitted: Map<string, { req: Request; state: 'queued' | 'listed' }>;
  results: Map<string, { state: string; result: UrlResult }>;
  duplicates: { id: number; d: Discovery }[];
  nodes: Map<string, SitemapNode>;
  log: CrawlLogEntry[];
}

function record(): { rec: Recorded; hooks: ConstructorParameters<typeof Crawler>[0]['hooks'] } {
  const rec: Recorded = { admitted: new Map(), results: new Map(), duplicates: [], nodes: new Map(), log: [] };
  return {
    rec,
    hooks: {
      onAdmitted: (req, state) => {
        assert.ok(!rec.admitted.has(req.url), `admitted twice: ${req.url}`);
        rec.admitted.set(req.url, { req, state });
      },
      onDuplicate: (id, d) => rec.duplicates.push({ id, d }),
      onResult: (req, state, result) => {
        assert.ok(!rec.results.has(req.url), `result twice: ${req.url}`);
        rec.results.set(req.url, { state, result });
      },
      onNode: (n) => rec.nodes.set(n.url, n),
      onLog: (e) => rec.log.push(e),
    },
  };
}

async function crawl(site: TestSite, over: Partial<CrawlSettings> = {}) {
  const { rec, hooks } = record();
  const crawler = new Crawler({ settings: testSettings(site.url('/'), over), hooks });
  const outcome = await crawler.run();
  return { rec, outcome, crawler };
}

const paths = (site: TestSite, urls: Iterable<string>) => new Set([...urls].map((u) => (u.startsWith(site.origin) ? u.slice(site.origin.length) : u)));

describe('Crawler against the full test site', () => {
  it('finds exactly what the site holds, by sitemaps and links, in one deduplicating frontier', async () => {
    // A timeout well over a page's answer on a loaded machine (a page timed out is retried, so requested
    // twice), and /slow still slower than it.
    const site = await startTestSite({ scenario: 'full', slowMs: 6000 });
    try {
      const { rec, outcome } = await crawl(site, { timeoutMs: 3000 });
      const ex = site.expected;
      assert.equal(outcome, 'finished');
      const found = paths(site, rec.admitted.keys());
      for (const p of ex.discovered) assert.ok(found.has(p), `not discovered: ${p}`);
      const allowed = new Set([...ex.discovered, ...ex.mayDiscover]);
      for (const p of found) assert.ok(allowed.has(p), `discovered but should not be: ${p}`);
      for (const p of ex.notDiscovered) assert.ok(!found.has(p), `must not be discovered: ${p}`);

      for (const p of ex.blocked) {
        const r = rec.results.get(site.url(p));
        assert.equal(r?.state, 'blocked', p);
        assert.equal(r?.result.blockedByRobots, true, p);
      }
      for (const p of ex.neverRequested) assert.equal(site.hits.get(p), undefined, `requested: ${p}`);
      for (const p of ex.requestedOnce) assert.equal(site.hits.get(p), 1, `requested ${site.hits.get(p)} times: ${p}`);
      for (const u of ex.outOfScope) {
        assert.equal(rec.admitted.get(u)?.state, 'listed', `off-site URL must be listed, not fetched: ${u}`);
      }

      // Every handled URL was reported once, and every admitted URL that was queued got a result.
      for (const [url, a] of rec.admitted) {
        if (a.state === 'queued') assert.ok(rec.results.has(url), `no result for ${url}`);
      }

      // A URL in two sitemaps and linked from three pages shows all five discoveries.
      const seven = rec.admitted.get(site.url('/page/7.html'))!;
      const all = [seven.req, ...rec.duplicates.filter((x) => x.id === seven.req.id).map((x) => x.d)];
      const fromSitemaps = all.filter((d) => d.source === 'sitemap').length;
      const fromLinks = all.filter((d) => d.source === 'link').length;
      assert.equal(fromSitemaps, 2);
      assert.equal(fromLinks, 3);

      for (const [p, want] of Object.entries(ex.results)) {
        const got = rec.results.get(site.url(p));
        assert.ok(got, `no result for ${p}`);
        const r = got.result;
        if (want.status !== undefined) assert.equal(r.status, want.status, `${p} status`);
        if (want.contentType !== undefined) assert.equal(r.contentType, want.contentType, `${p} content type`);
        if (want.title !== undefined) assert.equal(r.title, want.title, `${p} title`);
        if (want.canonical !== undefined) assert.equal(r.canonical, site.url(want.canonical), `${p} canonical`);
        if (want.metaRobots !== undefined) assert.equal(r.metaRobots, want.metaRobots, `${p} meta robots`);
        if (want.xRobotsTag !== undefined) assert.equal(r.xRobotsTag, want.xRobotsTag, `${p} x-robots-tag`);
        if (want.redirectTo !== undefined) assert.equal(r.redirectTo, site.url(want.redirectTo), `${p} redirect`);
        if (want.redirectChain !== undefined) {
          assert.deepEqual(
            r.redirectChain,
            want.redirectChain.map((h) => ({ url: site.url(h.url), status: h.status })),
            `${p} chain`,
          );
        }
        if (want.hreflang !== undefined) {
          assert.deepEqual(
            r.hreflang,
            want.hreflang.map((h) => ({ lang: h.lang, href: site.url(h.href) })),
            `${p} hreflang`,
          );
        }
        if (want.error) {
          assert.equal(got.state, 'error', `${p} must be an error`);
          if (want.error.code) assert.equal(r.error?.code, want.error.code, `${p} error code`);
        }
      }

      // The sitemap tree: every document with its type, state, counts and failure.
      for (const sm of ex.sitemaps) {
        const node = rec.nodes.get(site.url(sm.path));
        assert.ok(node, `no node for ${sm.path}`);
        assert.equal(node.type, sm.type, `${sm.path} type`);
        assert.equal(node.state, sm.state, `${sm.path} state`);
        assert.equal(node.urlCount, sm.urlCount, `${sm.path} urlCount`);
        assert.equal(node.gzip, sm.gzip, `${sm.path} gzip`);
        if (sm.failure)
          assert.ok(
            node.problems.some((p) => p.code === sm.failure!.code),
            `${sm.path}: ${sm.failure.code}`,
          );
      }
      // Sitemap documents are fetched once each, cycles included.
      for (const sm of ex.sitemaps) assert.equal(site.hits.get(sm.path), 1, `sitemap fetched ${site.hits.get(sm.path)} times: ${sm.path}`);
      const robotsNode = [...rec.nodes.values()].find((n) => n.type === 'robots');
      assert.equal(robotsNode?.childCount, 2);
      // robots.txt announced the index: its sitemaps under /sitemaps/ may list any URL of the host.
      for (const n of rec.nodes.values()) {
        assert.ok(!n.problems.some((p) => p.code === 'URL_OUT_OF_SCOPE'), `${n.url}: ${JSON.stringify(n.problems)}`);
      }
    } finally {
      await site.close();
    }
  });

  it('lists sitemaps only when page fetching is off: robots.txt and sitemaps, no page', async () => {
    const site = await startTestSite({ scenario: 'full' });
    try {
      const { rec, outcome } = await crawl(site, { fetchPages: false });
      assert.equal(outcome, 'finished');
      const sitemapDocs = new Set(site.expected.sitemaps.map((s) => s.path));
      for (const entry of site.log) {
        // The one HEAD: where the start URL redirects (it does not here), asked before robots.txt is read.
        if (entry.method === 'HEAD' && entry.path === '/') continue;
        assert.ok(entry.path === '/robots.txt' || sitemapDocs.has(entry.path), `fetched in a listing run: ${entry.path}`);
      }
      const listed = [...rec.admitted.values()];
      assert.ok(listed.length > 20);
      assert.ok(listed.every((a) => a.state === 'listed'));
      assert.ok(listed.every((a) => a.req.source === 'sitemap'));
    } finally {
      await site.close();
    }
  });

  it('starts from a sitemap given directly without reading robots.txt for sitemaps', async () => {
    const site = await startTestSite({ scenario: 'full' });
    try {
      const { rec } = await crawl(site, { startUrl: '', sitemapUrls: [site.url('/sitemap.txt')], fetchPages: false });
      assert.ok(!rec.nodes.has(site.url('/sitemap_index.xml')), 'robots.txt sitemaps must not be followed');
      const node = rec.nodes.get(site.url('/sitemap.txt'));
      assert.equal(node?.type, 'text');
      assert.equal(node?.parentId, null);
      const sm = site.expected.sitemaps.find((s) => s.path === '/sitemap.txt')!;
      assert.equal(rec.admitted.size, sm.urlCount);
    } finally {
      await site.close();
    }
  });

  it('links only: reads no sitemap and no feed, still applies robots.txt rules', async () => {
    const site = await startTestSite({ scenario: 'full', slowMs: 1000 });
    try {
      const { rec, outcome } = await crawl(site, { useSitemaps: false, timeoutMs: 500 });
      assert.equal(outcome, 'finished');
      assert.ok([...rec.admitted.values()].every((a) => a.req.source !== 'sitemap'));
      assert.equal([...rec.nodes.values()].filter((n) => n.type !== 'robots').length, 0);
      for (const sm of site.expected.sitemaps) {
        if (sm.via !== 'link') assert.equal(site.hits.get(sm.path), undefined, `sitemap fetched: ${sm.path}`);
      }
      for (const p of site.expected.linkOnly) assert.ok(rec.admitted.has(site.url(p)), p);
      for (const p of site.expected.blocked) {
        if (rec.results.has(site.url(p))) assert.equal(rec.results.get(site.url(p))?.state, 'blocked', p);
      }
      assert.equal(site.hits.get('/private/secret.html'), undefined);
    } finally {
      await site.close();
    }
  });

  it('honours max URLs, max depth, include and exclude', async () => {
    const site = await startTestSite({ scenario: 'no-robots' });
    try {
      const limited = await crawl(site, { maxUrls: 5 });
      assert.equal(limited.rec.admitted.size, 5);
      const shallow = await crawl(site, { maxDepth: 1 });
      for (const [url, a] of shallow.rec.admitted) {
        if (a.req.depth > 1) assert.equal(a.state, 'listed', url);
      }
      assert.ok([...shallow.rec.admitted.values()].some((a) => a.req.depth === 2 && a.state === 'listed'));
      const filtered = await crawl(site, { exclude: ['/page/1\\.html$'] });
      assert.ok(!filtered.rec.admitted.has(site.url('/page/1.html')));
      assert.ok(filtered.rec.admitted.has(site.url('/page/2.html')));
    } finally {
      await site.close();
    }
  });
});

describe('Crawler on other sites', () => {
  it('discovers a site with no robots.txt and no sitemap by links alone, at the right depths', async () => {
    const site = await startTestSite({ scenario: 'no-robots' });
    try {
      const { rec, outcome } = await crawl(site);
      assert.equal(outcome, 'finished');
      const found = paths(site, rec.admitted.keys());
      for (const p of site.expected.discovered) assert.ok(found.has(p), p);
      for (const [p, depth] of Object.entries(site.expected.linkDepth)) {
        assert.equal(rec.admitted.get(site.url(p))?.req.depth, depth, `${p} depth`);
      }
      assert.ok(rec.log.some((e) => e.code === 'DEFAULT_SITEMAP_ABSENT'));
    } finally {
      await site.close();
    }
  });

  it('treats a robots.txt answering 500 as disallow-all and says so', async () => {
    const site = await startTestSite({ scenario: 'robots-500' });
    try {
      const { rec } = await crawl(site);
      assert.ok(rec.log.some((e) => e.code === 'ROBOTS_UNREACHABLE' && e.level === 'error'));
      for (const p of site.expected.neverRequested) assert.equal(site.hits.get(p), undefined, p);
      assert.equal(rec.results.get(site.url('/'))?.state, 'blocked');
    } finally {
      await site.close();
    }
  });

  it('finds /sitemap.xml at its default place when robots.txt names none', async () => {
    const site = await startTestSite({ scenario: 'sitemap-only-default' });
    try {
      const { rec } = await crawl(site);
      const found = paths(site, rec.admitted.keys());
      for (const p of site.expected.discovered) assert.ok(found.has(p), p);
      assert.equal(rec.nodes.get(site.url('/sitemap.xml'))?.state, 'done');
      assert.equal(rec.results.get(site.url('/private/hidden.html'))?.state, 'blocked');
    } finally {
      await site.close();
    }
  });

  it('fails with START_UNREACHABLE when nothing answers', async () => {
    const site = await startTestSite({ scenario: 'no-robots' });
    const origin = site.origin;
    await site.close();
    const { rec, hooks } = record();
    const crawler = new Crawler({ settings: testSettings(origin + '/', { retries: 0 }), hooks });
    assert.equal(await crawler.run(), 'failed');
    assert.equal(crawler.error()?.code, 'START_UNREACHABLE');
    assert.match(crawler.error()!.message, /did not answer/);
    assert.ok(rec.log.length > 0);
  });

  it('pauses with requests in flight finishing, then continues in-process without re-reading anything', async () => {
    const site = await startTestSite({ scenario: 'large', pages: 300, sitemapUrls: 300, perSitemap: 100, pageDelayMs: 5 });
    try {
      const { rec, hooks } = record();
      const crawler = new Crawler({ settings: testSettings(site.url('/'), { concurrency: 4 }), hooks });
      const run = crawler.run();
      while (rec.results.size < 30) await new Promise((r) => setTimeout(r, 5));
      await crawler.pause();
      assert.equal(await run, 'paused');
      assert.equal(crawler.inFlight(), 0);
      const frozen = rec.results.size;
      const hits = site.log.length;
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(rec.results.size, frozen, 'no result after pause');
      assert.equal(site.log.length, hits, 'no request after pause');
      assert.equal(await crawler.run(), 'finished');
      for (const p of site.expected.discovered) assert.ok(rec.admitted.has(site.url(p)), p);
      for (const [p, n] of site.hits) assert.equal(n, 1, `fetched twice: ${p}`);
    } finally {
      await site.close();
    }
  });
});

describe('Crawler on the conformance sitemaps', () => {
  it('lists every conformance sitemap served locally, fetching no outside address', async (t) => {
    const server = await startConformanceServer();
    if (!server) {
      t.skip('conformance data not present (../shared/conformance): skipped');
      return;
    }
    try {
      const { rec, hooks } = record();
      const local = new URL(server.origin).host;
      const crawler = new Crawler({
        settings: testSettings(server.url('/'), { fetchPages: false }),
        hooks,
        keepSitemap: (u) => new URL(u).host === local,
      });
      assert.equal(await crawler.run(), 'finished');
      // Every file the server lists became a node and nothing outside 127.0.0.1 was fetched.
      for (const p of server.paths) assert.ok(rec.nodes.has(server.url(p)), `no node for ${p}`);
      assert.ok(rec.admitted.size > 50);
      assert.ok([...rec.admitted.values()].every((a) => a.state === 'listed'));
    } finally {
      await server.close();
    }
  });
});
