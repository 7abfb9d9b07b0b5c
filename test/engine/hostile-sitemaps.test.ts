/**
 * Hostile sitemap answers from local servers: a sitemap larger than the page cap found without
 * robots.txt, one reached by a page's link, one with hundreds of problems and a fatal end, and
 * bodies that arrive slowly, stall or break (read again from the start, nothing handed out twice).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import type { CrawlLogEntry, CrawlSettings, Problem, SitemapNode, UrlResult } from '../../shared/model.js';
import { Crawler } from '../../electron/engine/crawler/crawler.js';
import { createHttpFetcher } from '../../electron/engine/http/http.js';
import { SitemapRequestList } from '../../electron/engine/sitemap/request-list.js';
import type { Request, RequestInit } from '../../electron/engine/types.js';
import { BUILTIN_DEFAULTS } from '../../electron/service/catalog/settings.js';
import { startLocalServer, type LocalServer } from '../fixtures/server.js';

const MIB = 1024 * 1024;
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n';

/** `<url>` elements for `${origin}${prefix}${i}`, i in [from, to). */
function entries(origin: string, prefix: string, from: number, to: number): string {
  let s = '';
  for (let i = from; i < to; i++) s += `<url><loc>${origin}${prefix}${i}</loc></url>\n`;
  return s;
}

const urlset = (origin: string, prefix: string, n: number) => XML_HEAD + entries(origin, prefix, 0, n) + '</urlset>\n';

function settings(startUrl: string, over: Partial<CrawlSettings> = {}): CrawlSettings {
  return {
    ...BUILTIN_DEFAULTS,
    startUrl,
    userAgent: 'SpinneretTest/1.0',
    concurrency: 4,
    perHostConcurrency: 4,
    timeoutMs: 5000,
    connectTimeoutMs: 1000,
    retries: 1,
    ...over,
  };
}

interface Run {
  outcome: string;
  admitted: Map<string, Request>;
  duplicates: number;
  results: Map<string, { state: string; result: UrlResult }>;
  nodes: Map<string, SitemapNode>;
  log: CrawlLogEntry[];
}

async function crawl(s: CrawlSettings, watch?: (run: Run) => void): Promise<Run> {
  const run: Run = { outcome: '', admitted: new Map(), duplicates: 0, results: new Map(), nodes: new Map(), log: [] };
  watch?.(run);
  const crawler = new Crawler({
    settings: s,
    hooks: {
      onAdmitted: (req) => {
        assert.ok(!run.admitted.has(req.url), `admitted twice: ${req.url}`);
        run.admitted.set(req.url, req);
      },
      onDuplicate: () => void run.duplicates++,
      onResult: (req, state, result) => run.results.set(req.url, { state, result }),
      onNode: (n) => run.nodes.set(n.url, n),
      onLog: (e) => run.log.push(e),
    },
  });
  run.outcome = await crawler.run();
  return run;
}

function answer(res: ServerResponse, status: number, type: string, body: string, declareLength = true): void {
  const buf = Buffer.from(body);
  res.writeHead(status, { 'content-type': type, ...(declareLength ? { 'content-length': String(buf.length) } : {}) });
  // In pieces, so an undeclared body comes chunked over several reads.
  for (let i = 0; i < buf.length; i += 256 * 1024) res.write(buf.subarray(i, i + 256 * 1024));
  res.end();
}

// ------------------------------------------------------------------ limits, however a sitemap is found

describe('A sitemap larger than the page cap', () => {
  const N = 50_000; // about 2.4 MB: past the 1 MiB page cap of these crawls, far under a sitemap's

  it('found at /sitemap.xml (robots.txt lists none) is read whole', async () => {
    const site = await startLocalServer(({ res, path }, server) => {
      if (path === '/robots.txt') return answer(res, 200, 'text/plain', 'User-agent: *\nAllow: /\n');
      if (path === '/sitemap.xml') return answer(res, 200, 'application/xml', urlset(server.origin, '/p/', N));
      if (path === '/') return answer(res, 200, 'text/html', '<html><body>home</body></html>');
      answer(res, 404, 'text/plain', 'not found');
    });
    try {
      const o = site.origin;
      const run = await crawl(settings(o + '/', { maxBodyBytes: MIB, exclude: ['/p/\\d'] }));
      assert.equal(run.outcome, 'finished');
      const node = run.nodes.get(`${o}/sitemap.xml`)!;
      assert.deepEqual(node.problems, []);
      assert.equal(node.state, 'done');
      assert.equal(node.urlCount, N);
      assert.ok(node.bytes > 2 * MIB, `bytes ${node.bytes}`);
    } finally {
      await site.close();
    }
  });

  it('reached by a page link is read whole, with or without a Content-Length; pages keep their cap', async () => {
    const site = await startLocalServer(({ res, path }, server) => {
      const o = server.origin;
      if (path === '/robots.txt') return answer(res, 200, 'text/plain', 'User-agent: *\nAllow: /\n');
      if (path === '/') {
        return answer(
          res,
          200,
          'text/html',
          '<html><body><a href="/declared.xml">a</a><a href="/chunked.xml">b</a><a href="/big.html">c</a><a href="/huge.html">d</a></body></html>',
        );
      }
      if (path === '/declared.xml') return answer(res, 200, 'application/xml', urlset(o, '/a/', N), true);
      if (path === '/chunked.xml') return answer(res, 200, 'application/xml', urlset(o, '/b/', N), false);
      // Pages past the page cap: one that says so up front, one that does not.
      const page = '<html><body>' + 'x'.repeat(MIB + 1000) + '</body></html>';
      if (path === '/big.html') return answer(res, 200, 'text/html', page, false);
      if (path === '/huge.html') return answer(res, 200, 'text/html', page, true);
      answer(res, 404, 'text/plain', 'not found');
    });
    try {
      const o = site.origin;
      const run = await crawl(settings(o + '/', { maxBodyBytes: MIB, exclude: ['/[ab]/\\d'] }));
      assert.equal(run.outcome, 'finished');
      for (const path of ['/declared.xml', '/chunked.xml']) {
        const node = run.nodes.get(o + path);
        assert.ok(node, `${path} is a sitemap node`);
        assert.deepEqual(node.problems, [], path);
        assert.equal(node.state, 'done', path);
        assert.equal(node.urlCount, N, path);
        assert.equal(run.results.get(o + path)?.state, 'done', path);
      }
      for (const path of ['/big.html', '/huge.html']) {
        assert.equal(run.results.get(o + path)?.state, 'error', path);
        assert.equal(run.results.get(o + path)?.result.error?.code, 'EBODY_TOO_LARGE', path);
      }
    } finally {
      await site.close();
    }
  });
});

// ------------------------------------------------------------------ problems past a node's cap

/** 150 entries with a bad lastmod, 150 with a bad priority, then the document breaks off. */
function troubled(origin: string): string {
  let s = XML_HEAD;
  for (let i = 0; i < 150; i++) s += `<url><loc>${origin}/l/${i}</loc><lastmod>someday</lastmod></url>\n`;
  for (let i = 0; i < 150; i++) s += `<url><loc>${origin}/q/${i}</loc><priority>7</priority></url>\n`;
  return s + `<url><loc>${origin}/last`;
}

describe('A sitemap with more problems than its node holds', () => {
  it('keeps its fatal problem and a count per code; the crawl log has the rest', async () => {
    const site = await startLocalServer(({ res, path }, server) => {
      if (path === '/robots.txt') return answer(res, 200, 'text/plain', `User-agent: *\nAllow: /\nSitemap: ${server.origin}/bad.xml\n`);
      if (path === '/bad.xml') return answer(res, 200, 'application/xml', troubled(server.origin));
      answer(res, 404, 'text/plain', 'not found');
    });
    try {
      const o = site.origin;
      const run = await crawl(settings(o + '/', { fetchPages: false }));
      const node = run.nodes.get(`${o}/bad.xml`)!;
      assert.equal(node.state, 'error');
      // The fatal problem is on the node, last, whatever came before it.
      assert.equal(node.problems.at(-1)?.code, 'MALFORMED_XML');
      assert.ok(node.problems.some((p) => p.code === 'TOO_MANY_PROBLEMS'));
      assert.deepEqual(node.problemCounts, { INVALID_LASTMOD: 150, INVALID_PRIORITY: 150, MALFORMED_XML: 1 });
      // The crawl log says why the sitemap failed, and holds the problems the node could not.
      const fatal = run.log.find((e) => e.level === 'error' && e.url === `${o}/bad.xml`);
      assert.equal(fatal?.code, 'MALFORMED_XML');
      const stored = node.problems.filter((p) => p.code === 'INVALID_PRIORITY').length;
      const logged = run.log.filter((e) => e.code === 'INVALID_PRIORITY');
      // The parser lists 100 of a code and sums up the rest in one; the node keeps what fits.
      assert.equal(stored + logged.length, 101);
      assert.ok(logged.length > 0);
      assert.ok(logged.every((e) => e.level === 'warning' && e.url === `${o}/bad.xml`));
    } finally {
      await site.close();
    }
  });

  it('keeps a body error that ends it after hundreds of problems (the list, no retry)', async () => {
    const site = await startLocalServer(({ res, path }, server) => {
      if (path !== '/bad.xml') return answer(res, 404, 'text/plain', 'not found');
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.write(troubled(server.origin).slice(0, -`<url><loc>${server.origin}/last`.length));
      setTimeout(() => res.destroy(), 50);
    });
    const problems: [string, Problem, boolean][] = [];
    const list = new SitemapRequestList({
      sitemapUrls: [`${site.origin}/bad.xml`],
      fetcher: createHttpFetcher({ userAgent: 't', timeoutMs: 5000, connectTimeoutMs: 1000, retries: 0, maxBodyBytes: MIB, perHostConcurrency: 2, delayMs: 0 }),
      onProblem: (id, p, kept) => problems.push([id, p, kept]),
      retries: 0,
    });
    try {
      const got: RequestInit[] = [];
      for (let r = await list.fetchNext(); r; r = await list.fetchNext()) got.push(r);
      assert.equal(got.length, 300);
      const node = list.nodes()[0]!;
      assert.equal(node.state, 'error');
      assert.equal(node.problems.at(-1)?.code, 'CONNECTION_RESET');
      assert.equal(node.problemCounts?.CONNECTION_RESET, 1);
      assert.equal(node.problemCounts?.INVALID_LASTMOD, 150);
      // onProblem says which problems the node did not keep: the fatal one came past the cap and
      // was stored once it turned out to end the sitemap.
      const kept = problems.filter(([, , k]) => k).length;
      assert.equal(kept + 1, node.problems.filter((p) => p.code !== 'TOO_MANY_PROBLEMS').length);
      assert.equal(problems.length, 101 + 101 + 1); // 100 of each code and its summary, and the reset
    } finally {
      await list.close();
      await site.close();
    }
  });
});

// ------------------------------------------------------------------ slow, stalled and broken bodies

type Mode = 'slow' | 'break' | 'stall' | 'always-break';

/**
 * robots.txt → /s.xml of `n` entries. 'slow': sent in 40 pieces over about 2.4 s. 'break': the first
 * answer sends half, waits, then cuts the connection; 'stall': the first answer sends half and then
 * nothing; 'always-break': every answer breaks off after the first 2,000 entries.
 */
async function sitemapSite(mode: Mode, n: number, onRetry?: () => void, foundBy: 'robots' | 'link' = 'robots'): Promise<LocalServer> {
  return startLocalServer(({ res, path, hit }, server) => {
    const o = server.origin;
    if (path === '/robots.txt') {
      return answer(res, 200, 'text/plain', `User-agent: *\nAllow: /\n` + (foundBy === 'robots' ? `Sitemap: ${o}/s.xml\n` : ''));
    }
    if (path === '/' && foundBy === 'link') return answer(res, 200, 'text/html', '<html><body><a href="/s.xml">sitemap</a></body></html>');
    if (path !== '/s.xml') return answer(res, 404, 'text/plain', 'not found');
    if (hit > 1) onRetry?.();
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.write(XML_HEAD);
    if (mode === 'slow') {
      const pieces = 40;
      let k = 0;
      const next = () => {
        if (res.destroyed) return;
        const from = Math.floor((k * n) / pieces);
        const to = Math.floor(((k + 1) * n) / pieces);
        res.write(entries(o, '/p/', from, to));
        if (++k < pieces) server.defer({ res } as never, 60, next);
        else res.end('</urlset>\n');
      };
      next();
      return;
    }
    const cut = mode === 'always-break' ? 2000 : n / 2;
    if (hit > 1 && mode !== 'always-break') return void res.end(entries(o, '/p/', 0, n) + '</urlset>\n');
    res.write(entries(o, '/p/', 0, cut));
    if (mode !== 'stall') server.defer({ res } as never, 300, () => res.destroy());
  });
}

const timeouts = { timeoutMs: 600, idleTimeoutMs: 500, sitemapTimeoutMs: 20_000 };

describe('A sitemap body that is slow, stalls or breaks', () => {
  for (const foundBy of ['robots', 'link'] as const) {
    it(`arriving slower than the page timeout is read whole (found by ${foundBy === 'robots' ? 'robots.txt' : 'a page link'})`, async () => {
      const N = 40_000; // about 2 MB over about 2.4 s
      const site = await sitemapSite('slow', N, undefined, foundBy);
      try {
        // Found by a link, the sitemap is fetched as a page (its timeout) and then given a sitemap's.
        const over = foundBy === 'robots' ? { fetchPages: false } : { exclude: ['/p/\\d'] };
        const run = await crawl(settings(site.origin + '/', { ...over, ...timeouts }));
        const node = run.nodes.get(`${site.origin}/s.xml`)!;
        assert.deepEqual(node.problems, []);
        assert.equal(node.state, 'done');
        assert.equal(node.urlCount, N);
        assert.equal(site.hits.get('/s.xml'), 1);
      } finally {
        await site.close();
      }
    });
  }

  for (const mode of ['break', 'stall'] as const) {
    it(`that ${mode === 'break' ? 'breaks off' : 'stalls past the idle timeout'} is fetched again, nothing handed out twice`, async () => {
      const N = 20_000;
      let handedOutBefore = -1;
      let run: Run | undefined;
      const site = await sitemapSite(mode, N, () => (handedOutBefore = run!.admitted.size));
      try {
        await crawl(settings(site.origin + '/', { fetchPages: false, ...timeouts }), (r) => (run = r));
        const node = run!.nodes.get(`${site.origin}/s.xml`)!;
        assert.equal(site.hits.get('/s.xml'), 2);
        assert.equal(node.state, 'done');
        assert.deepEqual(
          node.problems.map((p) => p.code),
          ['SITEMAP_RETRIED'],
        );
        assert.match(node.problems[0]!.message, mode === 'break' ? /CONNECTION_RESET/ : /sent nothing for 500 ms/);
        assert.equal(node.urlCount, N);
        // Entries were handed out before the retry, and none of them twice after it.
        assert.ok(handedOutBefore > 0, `handed out before the retry: ${handedOutBefore}`);
        assert.equal(run!.admitted.size, N);
        assert.equal(run!.duplicates, 0);
      } finally {
        await site.close();
      }
    });
  }

  it('that breaks every time is tried 1 + retries times, then fails with the body error', async () => {
    const site = await sitemapSite('always-break', 20_000);
    try {
      const run = await crawl(settings(site.origin + '/', { fetchPages: false, ...timeouts, retries: 2 }));
      const node = run.nodes.get(`${site.origin}/s.xml`)!;
      assert.equal(site.hits.get('/s.xml'), 3);
      assert.equal(node.state, 'error');
      assert.deepEqual(
        node.problems.map((p) => p.code),
        ['SITEMAP_RETRIED', 'SITEMAP_RETRIED', 'CONNECTION_RESET'],
      );
      assert.equal(run.admitted.size, 2000);
      assert.equal(run.duplicates, 0);
    } finally {
      await site.close();
    }
  });
});
