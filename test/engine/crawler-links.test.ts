/**
 * onPageLinks: every `<a>`/`<area>` of a fetched HTML page in document order (repeats included),
 * with anchor, nofollow and external, reported in the same synchronous step as its onResult and after
 * the admission of its targets; reported also when links are not followed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CrawlSettings } from '../../shared/model.js';
import { Crawler } from '../../electron/engine/crawler/crawler.js';
import type { RecordedLink, Request } from '../../electron/engine/types.js';
import { BUILTIN_DEFAULTS } from '../../electron/service/catalog/settings.js';

function testSettings(startUrl: string, over: Partial<CrawlSettings>): CrawlSettings {
  return { ...BUILTIN_DEFAULTS, startUrl, concurrency: 4, perHostConcurrency: 4, timeoutMs: 2000, retries: 0, userAgent: 'SpinneretTest/1.0', ...over };
}

const PAGES: Record<string, { body: string; headers?: Record<string, string> }> = {
  '/': {
    body:
      '<a href="/a">First</a> <a href="/a#again">Again</a> <a href="/b"><img src="b.png" alt="Bee picture"></a>' +
      '<a href="/c" rel="nofollow">C</a> <a href="http://outside.invalid/x">Out</a> <a href="#top">Top</a>' +
      '<a href="mailto:x@example.org">Mail</a> <a href="/e" aria-label="Label E"></a>' +
      '<map name="m"><area href="/d" alt="Dee"></map> <link rel="next" href="/n"> <iframe src="/f"></iframe>',
  },
  '/a': { body: '<a href="/">home</a>' },
  '/b': { body: '<meta name="robots" content="nofollow"><a href="/z">Zed</a>' },
  '/d': { body: '<a href="/y">Why</a>', headers: { 'x-robots-tag': 'nofollow' } },
  '/e': { body: '' },
  '/f': { body: '' },
  '/n': { body: '' },
};

async function serve(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const p = req.url ?? '/';
    const page = PAGES[p];
    if (!page) return res.writeHead(404, { 'content-type': 'text/html' }).end('<title>404</title>');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...page.headers }).end(`<!doctype html><title>${p}</title>${page.body}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise((r) => server.close(() => r())) };
}

interface Seen {
  links: Map<string, RecordedLink[]>;
  admitted: Set<string>;
  order: string[];
}

async function crawl(origin: string, over: Partial<CrawlSettings> = {}): Promise<Seen> {
  const seen: Seen = { links: new Map(), admitted: new Set(), order: [] };
  let resultOf: string | null = null;
  let microtaskRan = false;
  const crawler = new Crawler({
    settings: testSettings(origin + '/', { useSitemaps: false, ...over }),
    hooks: {
      onAdmitted: (req) => {
        seen.admitted.add(req.url);
      },
      onResult: (req) => {
        resultOf = req.url;
        microtaskRan = false;
        queueMicrotask(() => (microtaskRan = true));
      },
      onPageLinks: (page: Request, links: RecordedLink[]) => {
        assert.equal(resultOf, page.url, 'onPageLinks follows the page own onResult');
        assert.equal(microtaskRan, false, `${page.url}: its links come in the same synchronous step as its result`);
        assert.ok(!seen.links.has(page.url), `${page.url} reported twice`);
        // Admission came first: every followed in-scope target is known by then.
        for (const l of links)
          if (!l.nofollow && !l.external && l.uniqueKey !== null && over.followLinks !== false)
            assert.ok(seen.admitted.has(l.url.split('#')[0]!), `${l.url} admitted before the links were reported`);
        seen.links.set(page.url, links);
        seen.order.push(page.url);
      },
    },
  });
  assert.equal(await crawler.run(), 'finished');
  return seen;
}

test('a page reports its <a>/<area> links in document order, with anchors, nofollow and external', { timeout: 20_000 }, async () => {
  const site = await serve();
  try {
    const seen = await crawl(site.origin);
    const o = site.origin;
    const home = seen.links.get(o + '/');
    assert.ok(home, 'the start page reported its links');
    assert.deepEqual(
      home.map((l) => [l.url, l.anchor, l.nofollow, l.external]),
      [
        [o + '/a', 'First', false, false],
        [o + '/a#again', 'Again', false, false],
        [o + '/b', 'Bee picture', false, false],
        [o + '/c', 'C', true, false],
        ['http://outside.invalid/x', 'Out', false, true],
        [o + '/#top', 'Top', false, false],
        [o + '/e', 'Label E', false, false],
        [o + '/d', 'Dee', false, false],
      ],
    );
    // A repeated link keeps its own anchor and the uniqueKey of its URL (fragment dropped).
    assert.equal(home[1]!.uniqueKey, home[0]!.uniqueKey);
    assert.equal(home[5]!.uniqueKey, o + '/');
    // <link> and <iframe> are no links; the nofollow /c was not admitted, /n (a <link rel=next>) was.
    assert.ok(!seen.admitted.has(o + '/c'));
    // Meta robots nofollow: its link is reported as nofollow, and not followed.
    assert.deepEqual(
      seen.links.get(o + '/b')!.map((l) => [l.url, l.nofollow]),
      [[o + '/z', true]],
    );
    assert.ok(!seen.admitted.has(o + '/z'), 'a nofollow page links to nothing the crawl follows');
    // X-Robots-Tag nofollow: the same.
    assert.deepEqual(
      seen.links.get(o + '/d')!.map((l) => [l.url, l.anchor, l.nofollow]),
      [[o + '/y', 'Why', true]],
    );
    assert.ok(!seen.admitted.has(o + '/y'));
    // A page without links reports an empty list; a 404 reports nothing.
    assert.deepEqual(seen.links.get(o + '/e'), []);
    assert.equal(seen.links.has(o + '/c'), false);
  } finally {
    await site.close();
  }
});

test('links are reported when they are not followed (followLinks off)', { timeout: 20_000 }, async () => {
  const site = await serve();
  try {
    const seen = await crawl(site.origin, { followLinks: false });
    assert.deepEqual(seen.order, [site.origin + '/'], 'only the start page is fetched');
    assert.equal(seen.links.get(site.origin + '/')!.length, 8);
    assert.deepEqual([...seen.admitted], [site.origin + '/']);
  } finally {
    await site.close();
  }
});
