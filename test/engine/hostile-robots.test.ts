/**
 * Hostile robots.txt answers from a local server: one far larger than the read limit (with and
 * without a Content-Length), and one that redirects more than the fetcher follows.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawlLogEntry, SitemapNode, UrlResult } from '../../shared/model.js';
import { Crawler } from '../../electron/engine/crawler/crawler.js';
import { BUILTIN_DEFAULTS } from '../../electron/service/catalog/settings.js';
import { startLocalServer, type LocalServer } from '../fixtures/server.js';

const KIB = 1024;

/** A robots.txt of about `size` bytes: rules and a Sitemap line first, comment padding, then late rules past 512 KiB. */
function bigRobots(origin: string, size: number): Buffer {
  const head = `User-agent: *\nDisallow: /private/\nSitemap: ${origin}/from-robots.xml\n`;
  const pad = '# ' + 'x'.repeat(97) + '\n'; // 100 bytes a line
  const lines = Math.ceil((size - head.length) / pad.length);
  const middle = pad.repeat(lines);
  // Past the first 512 KiB: not read, so not applied.
  return Buffer.from(head + middle + `Disallow: /late/\nSitemap: ${origin}/late.xml\n`);
}

async function robotsSite(opts: { declareLength: boolean; size: number }): Promise<LocalServer> {
  return startLocalServer(({ res, path }, server) => {
    const o = server.origin;
    if (path === '/robots.txt') {
      const body = bigRobots(o, opts.size);
      res.writeHead(200, { 'content-type': 'text/plain', ...(opts.declareLength ? { 'content-length': String(body.length) } : {}) });
      // In pieces, so an undeclared body arrives as several chunks.
      for (let i = 0; i < body.length; i += 64 * KIB) res.write(body.subarray(i, i + 64 * KIB));
      res.end();
      return;
    }
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><body><a href="/private/secret.html">s</a><a href="/public.html">p</a><a href="/late/page.html">l</a></body></html>`);
      return;
    }
    if (path === '/from-robots.xml') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/listed.html</loc></url></urlset>`);
      return;
    }
    if (path.endsWith('.html')) {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>page</body></html>');
      return;
    }
    res.writeHead(404);
    res.end();
  });
}

function settings(startUrl: string) {
  return {
    ...BUILTIN_DEFAULTS,
    startUrl,
    userAgent: 'SpinneretTest/1.0',
    timeoutMs: 5000,
    connectTimeoutMs: 1000,
    retries: 0,
  };
}

async function crawl(startUrl: string) {
  const results = new Map<string, { state: string; result: UrlResult }>();
  const nodes = new Map<string, SitemapNode>();
  const log: CrawlLogEntry[] = [];
  const crawler = new Crawler({
    settings: settings(startUrl),
    hooks: {
      onResult: (req, state, result) => results.set(req.url, { state, result }),
      onNode: (n) => nodes.set(n.url, n),
      onLog: (e) => log.push(e),
    },
  });
  const outcome = await crawler.run();
  return { outcome, results, nodes, log, crawler };
}

describe('A robots.txt larger than the read limit', () => {
  it('is read up to 512 KiB and applied, with a Content-Length or without', async () => {
    for (const declareLength of [true, false]) {
      const how = declareLength ? 'with a Content-Length' : 'without';
      const site = await robotsSite({ declareLength, size: 900 * KIB });
      try {
        const o = site.origin;
        const { outcome, results, nodes, log } = await crawl(o + '/');
        assert.equal(outcome, 'finished', how);
        // The rule at the top applies: the page under it is blocked, never requested.
        assert.equal(results.get(`${o}/private/secret.html`)?.state, 'blocked', how);
        assert.equal(site.hits.get('/private/secret.html'), undefined, how);
        assert.equal(results.get(`${o}/public.html`)?.state, 'done', how);
        // The Sitemap line at the top is read; the one past 512 KiB is not, nor the rule there.
        assert.equal(nodes.get(`${o}/from-robots.xml`)?.state, 'done', how);
        assert.equal(results.get(`${o}/listed.html`)?.state, 'done', how);
        assert.equal(nodes.has(`${o}/late.xml`), false, how);
        assert.equal(results.get(`${o}/late/page.html`)?.state, 'done', how);
        const robots = nodes.get(`${o}/robots.txt`)!;
        assert.equal(robots.childCount, 1, how);
        const truncated = log.find((e) => e.code === 'ROBOTS_TRUNCATED');
        assert.ok(truncated, `the truncation is logged (${how})`);
        assert.match(truncated.message, /first 512 KiB were read/);
        assert.deepEqual(
          robots.problems.map((p) => p.code),
          ['ROBOTS_TRUNCATED'],
          how,
        );
        // About 512 KiB were read, not the whole file (nor nothing).
        assert.ok(robots.bytes > 500 * KIB && robots.bytes <= 512 * KIB, `robots.txt body kept: ${robots.bytes} bytes (${how})`);
      } finally {
        await site.close();
      }
    }
  });
});

describe('A robots.txt that redirects too often', () => {
  it('says TOO_MANY_REDIRECTS, not "did not answer", and is taken as unavailable (allow all)', async () => {
    const site = await startLocalServer(({ res, path }) => {
      const hop = /^\/(?:robots\.txt|r(\d+))$/.exec(path);
      if (hop) {
        const n = hop[1] === undefined ? 0 : Number(hop[1]);
        res.writeHead(301, { location: `/r${n + 1}` });
        res.end();
        return;
      }
      if (path === '/' || path === '/page.html') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body><a href="/page.html">p</a></body></html>');
        return;
      }
      res.writeHead(404);
      res.end();
    });
    try {
      const o = site.origin;
      const { outcome, results, nodes, log, crawler } = await crawl(o + '/');
      assert.equal(crawler.error(), null);
      assert.equal(outcome, 'finished');
      // Eleven redirects were answered (robots.txt, /r1 … /r10); the 11th is not followed.
      assert.equal(site.hits.get('/r10'), 1);
      assert.equal(site.hits.get('/r11'), undefined);
      const entry = log.find((e) => e.code === 'TOO_MANY_REDIRECTS');
      assert.ok(entry, `logged: ${log.map((e) => e.code).join(', ')}`);
      assert.match(entry.message, /redirects more than 10 times/);
      assert.doesNotMatch(entry.message, /did not answer/);
      const robots = nodes.get(`${o}/robots.txt`)!;
      assert.deepEqual(
        robots.problems.map((p) => p.code),
        ['TOO_MANY_REDIRECTS'],
      );
      // RFC 9309 2.3.1.2: past the redirects it follows, a crawler may take robots.txt as unavailable.
      assert.equal(results.get(`${o}/page.html`)?.state, 'done');
    } finally {
      await site.close();
    }
  });
});
