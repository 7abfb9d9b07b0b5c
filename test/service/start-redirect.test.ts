/**
 * A start URL that redirects to another host, as most sites do (http://example.com/ →
 * https://www.example.com/): the crawl is of the site it leads to. Here 127.0.0.1 redirects every
 * path to localhost on the same port. Its robots.txt and sitemap are read from localhost, its pages
 * are crawled, links back to the old host are internal (and redirects), the sitemap audit judges
 * host variants against localhost, and a crawl paused, closed and resumed ends the same.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CrawlSettings } from '../../shared/model.js';
import { createCrawlService, type LocalCrawlService } from '../../electron/service/index.js';
import { allRows, csvByUrl, csvOf, fetchedAtLeast, settled, tempDir } from './helpers.js';

interface Site {
  /** http://127.0.0.1:port: the address typed. */
  typed: string;
  /** http://localhost:port: where it redirects. */
  real: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

const PAGES = 40;

async function startSite(pageDelayMs = 0): Promise<Site> {
  const hits = new Map<string, number>();
  let port = 0;
  const server = http.createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const path = req.url ?? '/';
    hits.set(`${host}${path}`, (hits.get(`${host}${path}`) ?? 0) + 1);
    if (host === '127.0.0.1') {
      res.writeHead(301, { location: `http://localhost:${port}${path}` });
      return res.end();
    }
    const real = `http://localhost:${port}`;
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(`User-agent: *\nDisallow: /private/\nSitemap: ${real}/sitemap.xml\n`);
    }
    if (path === '/sitemap.xml') {
      const locs = [`${real}/`, `${real}/a`, `${real}/b`, `https://localhost:${port}/b`];
      for (let i = 0; i < PAGES; i++) locs.push(`${real}/p/${i}`);
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((l) => `<url><loc>${l}</loc></url>`).join('')}</urlset>`,
      );
    }
    const page = (body: string) =>
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><html><head><title>${path}</title><link rel="canonical" href="${real}${path}"></head><body>${body}</body></html>`);
      }, pageDelayMs);
    if (path === '/') return page(`<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a> <a href="/private/x">private</a>`);
    if (path === '/a') return page(`<a href="http://127.0.0.1:${port}/b">b on the old host</a> <a href="/">home</a>`);
    if (path === '/b' || path === '/c') return page(`<a href="/">home</a> <a href="/p/0">first</a>`);
    const m = /^\/p\/(\d+)$/.exec(path);
    if (m && Number(m[1]) < PAGES) {
      const n = Number(m[1]);
      return page(`<a href="/">home</a>${n + 1 < PAGES ? ` <a href="/p/${n + 1}">next</a>` : ''}`);
    }
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<title>Not found</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    typed: `http://127.0.0.1:${port}`,
    real: `http://localhost:${port}`,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function settings(site: Site, over: Partial<CrawlSettings> = {}): Partial<CrawlSettings> & { startUrl: string } {
  return {
    startUrl: site.typed + '/',
    userAgent: 'SpinneretTest/1.0',
    timeoutMs: 2000,
    connectTimeoutMs: 500,
    retries: 0,
    concurrency: 4,
    perHostConcurrency: 4,
    ...over,
  };
}

async function crawlToEnd(service: LocalCrawlService, id: string, resume = false) {
  const end = settled(service, id);
  await (resume ? service.resume(id) : service.start(id));
  return end;
}

test('a start URL redirecting to another host: that site is crawled, with its robots.txt and sitemap', async () => {
  const site = await startSite();
  const service = createCrawlService({ stateDir: tempDir() });
  try {
    const { id } = service.create({ settings: settings(site) });
    const s = await crawlToEnd(service, id);
    assert.equal(s.status, 'finished');
    const rows = new Map(allRows(service, id).map((r) => [r.url, r]));

    // The typed URL keeps its own 301; the site it leads to is crawled.
    const start = rows.get(site.typed + '/')!;
    assert.equal(start.status, 301);
    assert.equal(start.redirectTo, site.real + '/');
    for (const p of ['/', '/a', '/b', '/c', `/p/${PAGES - 1}`]) {
      const r = rows.get(site.real + p);
      assert.ok(r, `not discovered: ${p}`);
      assert.equal(r.state, 'done', p);
      assert.equal(r.status, 200, p);
    }
    assert.equal(rows.get(site.real + '/c')!.source, 'link', '/c is reached only by a link');
    assert.equal(rows.get(site.real + '/private/x')!.state, 'blocked', "the site's own robots.txt applies");
    // A link back to the old host is internal: fetched, a redirect.
    const old = rows.get(site.typed + '/b')!;
    assert.equal(old.state, 'done');
    assert.equal(old.status, 301);

    // robots.txt and the sitemap came from localhost.
    const roots = service.sitemapTree(id, null);
    assert.deepEqual(
      roots.map((n) => n.url),
      [site.real + '/robots.txt'],
    );
    const [sitemap] = service.sitemapTree(id, roots[0]!.id);
    assert.equal(sitemap!.url, site.real + '/sitemap.xml');
    assert.equal(sitemap!.state, 'done');
    assert.equal(sitemap!.urlCount, PAGES + 4);
    assert.equal(site.hits.get('127.0.0.1/sitemap.xml') ?? 0, 0, "the typed host's sitemap locations are not tried");
    assert.ok(rows.get(site.real + '/a')!.inSitemaps.length === 1);

    assert.equal(service.get(id).siteUrl, site.real + '/', 'the summary names the site crawled');
    const log = service.log(id, 0, 100).rows;
    const redirected = log.filter((e) => e.code === 'START_REDIRECTED');
    assert.equal(redirected.length, 1);
    assert.equal(redirected[0]!.url, site.real + '/');
    assert.match(redirected[0]!.message, /the hosts 127\.0\.0\.1 and localhost\./);

    // The audit: the https listing is a variant of the site crawled (not of the host typed), and the
    // link from /a to the old host is a link to a redirect.
    await service.auditReady(id);
    const findings = new Map(service.getFindings(id).map((f) => [f.code, f]));
    assert.equal(findings.get('SITEMAP_HOST_VARIANT')?.count, 1);
    const variant = service.findingUrls(id, 'SITEMAP_HOST_VARIANT', 0, 10);
    assert.deepEqual(variant.urls, [`https://localhost:${new URL(site.real).port}/b`]);
    assert.ok((findings.get('LINK_TO_REDIRECT')?.count ?? 0) >= 1, 'the link to the old host is a link to a redirect');
  } finally {
    await service.close();
    await site.close();
  }
});

test('a start URL redirecting to another host: paused, closed and resumed, it ends as the uninterrupted crawl', async () => {
  const site = await startSite(15);
  try {
    const plainService = createCrawlService({ stateDir: tempDir() });
    const plain = plainService.create({ settings: settings(site) });
    const expected = await crawlToEnd(plainService, plain.id);
    const expectedCsv = csvByUrl(await csvOf(plainService, plain.id));
    await plainService.auditReady(plain.id);
    const expectedFindings = plainService.getFindings(plain.id).map((f) => [f.code, f.count]);
    await plainService.close();
    assert.equal(expected.status, 'finished');

    const dir = tempDir();
    let service = createCrawlService({ stateDir: dir });
    const id = service.create({ settings: settings(site) }).id;
    const halfway = fetchedAtLeast(service, id, 15);
    await service.start(id);
    await halfway;
    const paused = await service.pause(id);
    assert.equal(paused.status, 'paused');
    assert.ok(paused.counters.fetched < expected.counters.fetched, 'paused before the end');
    await service.close();

    // Closed for a while: that time is no running time of the crawl.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    site.hits.clear();
    service = createCrawlService({ stateDir: dir });
    const resumed = await crawlToEnd(service, id, true);
    assert.equal(resumed.status, 'finished');
    const wall = resumed.finishedAt! - resumed.startedAt!;
    assert.ok(resumed.activeMs !== undefined && resumed.activeMs > 0, 'the runs are timed');
    assert.ok(resumed.activeMs <= wall - 1400, `running ${resumed.activeMs} ms of ${wall} ms: the time closed is not counted`);
    assert.equal(resumed.runningSince, undefined);
    assert.equal(site.hits.get('127.0.0.1/') ?? 0, 0, 'the start URL is not probed again on resume');
    const got = csvByUrl(await csvOf(service, id));
    assert.deepEqual([...got.keys()].sort(), [...expectedCsv.keys()].sort(), 'the same URLs');
    for (const [url, row] of expectedCsv) assert.equal(got.get(url), row, url);
    await service.close();

    // Reopened once more: the audit rebuilt from the journal judges variants against the same site.
    service = createCrawlService({ stateDir: dir });
    assert.equal(service.get(id).siteUrl, site.real + '/', 'in the summary before the crawl is loaded');
    await service.auditReady(id);
    assert.deepEqual(
      service.getFindings(id).map((f) => [f.code, f.count]),
      expectedFindings,
    );
    assert.equal(service.getFindings(id).find((f) => f.code === 'SITEMAP_HOST_VARIANT')?.count, 1);
    assert.equal(service.get(id).siteUrl, site.real + '/', 'stored with the crawl');
    await service.close();
  } finally {
    await site.close();
  }
});
