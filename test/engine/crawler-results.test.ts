/**
 * What onResult hands over beside each UrlResult (issue 22's per-URL data): response time, bytes
 * on the wire and decoded, Last-Modified and ETag, and a page's on-page fields; crawled from a
 * local server on 127.0.0.1. The UrlResult itself stays the contract's (strict) shape.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';
import type { UrlResult } from '../../shared/model.js';
import { UrlResultSchema } from '../../shared/contract.js';
import { Crawler } from '../../electron/engine/crawler/crawler.js';
import { extractPageInfo } from '../../electron/engine/links/links.js';
import type { ResultFacts } from '../../electron/engine/types.js';
import { BUILTIN_DEFAULTS } from '../../electron/service/catalog/settings.js';
import { startLocalServer, type LocalServer } from '../fixtures/server.js';

const LAST_MODIFIED = 'Wed, 21 Oct 2015 07:28:00 GMT';
const ETAG = 'W/"home-42"';
const TIMEOUT_MS = 4000;

const home = Buffer.from(
  `<!doctype html><html lang="en"><head><title>Home</title>
  <meta name="description" content="The home page &amp; more"></head>
  <body><h1>Welcome <b>home</b></h1><p>Four words of text.</p>
  <a href="/gzip">Gzip</a> <a href="/chunked">Chunked</a> <a href="/slow">Slow</a> <a href="/moved">Moved</a>
  <a href="/gone">Gone</a> <a href="/doc.pdf">PDF</a> <a href="/big.bin">Big</a> <a href="/feed.xml">Feed</a>
  <a href="/private/page">Private</a></body></html>`,
);
const gzipPage = Buffer.from(`<!doctype html><html><body><h1>Zipped</h1><p>${'many words '.repeat(2000)}</p></body></html>`);
const gzipped = zlib.gzipSync(gzipPage);
const chunks = ['<!doctype html><html><body><h1>Chunked</h1>', '<p>second part</p>', '<p>third part</p></body></html>'];
const redirectBody = '<a href="/gzip">moved</a>';
const notFound = '<!doctype html><title>Not found</title><h1>Not found</h1>';
const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(3000, 'p')]);
const big = Buffer.alloc(2 * 1024 * 1024, 'b');
const feed =
  '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
  '<!-- more than the 2 KB read to tell what the body is -->'.repeat(60) +
  '</urlset>';
const CHUNK_GAP_MS = 80;
const SLOW_HEADERS_MS = 150;
const SLOW_BODY_MS = 150;

function site(): Promise<LocalServer> {
  return startLocalServer((ctx) => {
    const { res, path } = ctx;
    switch (path) {
      case '/robots.txt':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('User-agent: *\nDisallow: /private/\n');
        return;
      case '/':
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-length': home.length,
          'last-modified': LAST_MODIFIED,
          etag: ETAG,
        });
        res.end(home);
        return;
      case '/gzip':
        res.writeHead(200, {
          'content-type': 'text/html',
          'content-encoding': 'gzip',
          'content-length': gzipped.length,
        });
        res.end(gzipped);
        return;
      case '/chunked':
        res.writeHead(200, { 'content-type': 'text/html' }); // no Content-Length: chunked
        res.write(chunks[0]);
        setTimeout(() => res.write(chunks[1]), CHUNK_GAP_MS);
        setTimeout(() => res.end(chunks[2]), 2 * CHUNK_GAP_MS);
        return;
      case '/slow':
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.write('<!doctype html><html><body><h1>Slow</h1>');
          setTimeout(() => res.end('<p>at last</p></body></html>'), SLOW_BODY_MS);
        }, SLOW_HEADERS_MS);
        return;
      case '/moved':
        res.writeHead(301, { location: '/gzip', 'content-type': 'text/html', etag: '"moved"' });
        res.end(redirectBody);
        return;
      case '/doc.pdf':
        res.writeHead(200, { 'content-type': 'application/pdf', 'last-modified': LAST_MODIFIED });
        res.end(pdf);
        return;
      case '/big.bin':
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(big);
        return;
      case '/feed.xml':
        // The rest of the sitemap comes after it is recognised as one: the sitemap reader's to read.
        res.writeHead(200, { 'content-type': 'application/xml', etag: '"feed"' });
        res.write(feed.slice(0, -'</urlset>'.length));
        setTimeout(() => res.end('</urlset>'), 100);
        return;
      default:
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end(notFound);
    }
  });
}

describe('onResult facts: response time, sizes, validators and page fields', () => {
  let server: LocalServer;
  const results = new Map<string, { state: string; result: UrlResult; facts?: ResultFacts }>();
  let crawlMs = 0;

  before(async () => {
    server = await site();
    const crawler = new Crawler({
      settings: {
        ...BUILTIN_DEFAULTS,
        startUrl: server.origin + '/',
        userAgent: 'SpinneretTest/1.0',
        // One request at a time to the host: a body left half-read would hold it until the timeout.
        concurrency: 2,
        perHostConcurrency: 1,
        timeoutMs: TIMEOUT_MS,
        connectTimeoutMs: 1000,
        retries: 0,
      },
      hooks: {
        onResult: (req, state, result, facts) => results.set(req.url.slice(server.origin.length), { state, result, facts }),
      },
    });
    const t0 = performance.now();
    assert.equal(await crawler.run(), 'finished');
    crawlMs = performance.now() - t0;
  });
  after(() => server.close());

  const facts = (path: string) => {
    const r = results.get(path);
    assert.ok(r, `no result for ${path}`);
    return r.facts;
  };

  it('a page: validators as sent, its time and sizes, its on-page fields, all beside the UrlResult', () => {
    const f = facts('/')!;
    assert.equal(f.lastModified, LAST_MODIFIED);
    assert.equal(f.etag, ETAG);
    assert.equal(typeof f.responseTimeMs, 'number');
    assert.ok(Number.isInteger(f.responseTimeMs) && f.responseTimeMs! >= 0);
    assert.equal(f.wireBytes, home.length);
    assert.equal(f.bodyBytes, home.length);
    assert.equal(f.bodyBytes, results.get('/')!.result.bytes);
    assert.equal(f.metaDescription, 'The home page & more');
    assert.equal(f.metaDescriptionCount, 1);
    assert.equal(f.h1, 'Welcome home');
    assert.equal(f.h1Count, 1);
    assert.equal(f.lang, 'en');
    assert.equal(f.wordCount, 2 + 4 + 9);
    assert.equal(f.contentHash, extractPageInfo(home.toString('utf8'), server.origin + '/').contentHash);
    assert.match(f.contentHash!, /^[A-Za-z0-9_-]{43}$/);
    // Beside the UrlResult, not in it: every result keeps the contract's strict shape, as journalled.
    assert.ok(results.size >= 10, `${results.size} results`);
    for (const [path, { result }] of results) {
      const parsed = UrlResultSchema.safeParse(result);
      assert.ok(parsed.success, `${path}: ${parsed.success ? '' : parsed.error.message}`);
    }
  });

  it('gzip: fewer bytes on the wire than in the body; no validators when none are sent', () => {
    const f = facts('/gzip')!;
    assert.equal(f.wireBytes, gzipped.length);
    assert.equal(f.bodyBytes, gzipPage.length);
    assert.ok(f.wireBytes! < f.bodyBytes!);
    assert.ok(!('lastModified' in f) && !('etag' in f), JSON.stringify(f));
    assert.equal(f.h1, 'Zipped');
    assert.equal(f.lang, undefined);
  });

  it('chunked: the payload without framing, timed to the last chunk', () => {
    const f = facts('/chunked')!;
    const payload = Buffer.byteLength(chunks.join(''));
    assert.equal(f.wireBytes, payload);
    assert.equal(f.bodyBytes, payload);
    assert.ok(f.responseTimeMs! >= 2 * CHUNK_GAP_MS - 1, `responseTimeMs ${f.responseTimeMs}`);
  });

  it('a slow page: the time covers the wait for the headers and for the rest of the body', () => {
    const f = facts('/slow')!;
    assert.ok(f.responseTimeMs! >= SLOW_HEADERS_MS + SLOW_BODY_MS - 1, `responseTimeMs ${f.responseTimeMs}`);
    assert.ok(f.responseTimeMs! < TIMEOUT_MS);
  });

  it('a redirect and an error page are read to their end: time, sizes and validators, no page fields', () => {
    const moved = facts('/moved')!;
    assert.equal(results.get('/moved')!.result.status, 301);
    assert.equal(typeof moved.responseTimeMs, 'number');
    assert.equal(moved.bodyBytes, redirectBody.length);
    assert.equal(moved.etag, '"moved"');
    assert.equal(moved.h1Count, undefined);
    const gone = facts('/gone')!;
    assert.equal(results.get('/gone')!.result.status, 404);
    assert.equal(typeof gone.responseTimeMs, 'number');
    assert.equal(gone.bodyBytes, notFound.length);
    assert.equal(gone.h1, undefined, 'an error page is not read as a page');
  });

  it('a small file is measured; a large one is cut unmeasured without holding its host', () => {
    const doc = facts('/doc.pdf')!;
    assert.equal(typeof doc.responseTimeMs, 'number');
    assert.equal(doc.bodyBytes, pdf.length);
    assert.equal(doc.lastModified, LAST_MODIFIED);
    const file = facts('/big.bin')!;
    assert.equal(results.get('/big.bin')!.result.status, 200);
    assert.deepEqual(file, {}, 'no time or size for a body not read to its end');
    // With one request at a time to the host, a half-read body holding it would last until the timeout.
    assert.ok(crawlMs < TIMEOUT_MS, `the crawl took ${crawlMs} ms`);
  });

  it('a page that is a sitemap gives its validators only; a URL with no response gives no facts', () => {
    assert.deepEqual(facts('/feed.xml'), { etag: '"feed"' });
    const blocked = results.get('/private/page')!;
    assert.equal(blocked.state, 'blocked');
    assert.equal(blocked.facts, undefined);
  });
});
