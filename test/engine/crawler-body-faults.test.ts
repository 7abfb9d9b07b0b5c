/**
 * A page body that fails before anyone reads it, or after it was refused unread, ends as that URL's
 * error: never an uncaught exception that takes the crawl (and the app) down.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { UrlResult } from '../../shared/model.js';
import { Crawler } from '../../electron/engine/crawler/crawler.js';
import { BUILTIN_DEFAULTS } from '../../electron/service/catalog/settings.js';

const LINKS = '<a href="/zstd">z</a> <a href="/declared-big">big</a> <a href="/late-reset">reset</a> <a href="/ok">ok</a>';

async function serve(): Promise<{ origin: string; close(): Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const html = { 'content-type': 'text/html; charset=utf-8' };
    switch (req.url) {
      case '/':
        return res.writeHead(200, html).end(`<!doctype html><title>home</title>${LINKS}`);
      case '/ok':
        return res.writeHead(200, html).end('<!doctype html><title>ok</title>');
      case '/zstd':
        // A coding the fetcher cannot undo: its body fails before the crawler looks at it.
        return res.writeHead(200, { ...html, 'content-encoding': 'zstd' }).end(Buffer.alloc(64, 1));
      case '/declared-big':
        // Says it is larger than a page may be, sends a start, then resets: refused unread, then failing.
        res.writeHead(200, { ...html, 'content-length': String(50 * 1024 * 1024) });
        res.write('<!doctype html><title>big</title>' + 'x'.repeat(4096));
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      case '/late-reset':
        // Classified as HTML from its start, then the connection drops while it is read.
        res.writeHead(200, html);
        res.write('<!doctype html><title>reset</title>' + 'y'.repeat(4096));
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      default:
        return res.writeHead(404, html).end('<title>404</title>');
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

test('bodies that fail before or after classification end as their URL errors, and the crawl finishes', async () => {
  const site = await serve();
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  process.on('uncaughtException', onUncaught);
  try {
    const results = new Map<string, { state: string; result: UrlResult }>();
    const crawler = new Crawler({
      settings: {
        ...BUILTIN_DEFAULTS,
        startUrl: site.origin + '/',
        useSitemaps: false,
        concurrency: 4,
        perHostConcurrency: 4,
        timeoutMs: 3000,
        retries: 0,
        maxBodyBytes: 1024 * 1024,
        userAgent: 'SpinneretTest/1.0',
      },
      hooks: { onResult: (req, state, result) => results.set(req.url.slice(site.origin.length), { state, result }) },
    });
    assert.equal(await crawler.run(), 'finished');
    // Errors emitted after a body was given up are due on later ticks: wait past them.
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(uncaught, [], 'no body error went uncaught');

    assert.equal(results.get('/ok')?.result.status, 200);
    const zstd = results.get('/zstd');
    assert.equal(zstd?.state, 'error');
    assert.equal(zstd.result.error?.code, 'UNSUPPORTED_ENCODING');
    assert.match(zstd.result.error.message, /zstd/);
    const big = results.get('/declared-big');
    assert.equal(big?.state, 'error');
    assert.equal(big.result.error?.code, 'EBODY_TOO_LARGE');
    const reset = results.get('/late-reset');
    assert.equal(reset?.state, 'error');
    assert.equal(reset.result.status, 200, 'the status it answered with is kept');
  } finally {
    process.off('uncaughtException', onUncaught);
    await site.close();
  }
});
