/**
 * Self-test of the local test site (test/fixtures): each special path answers as documented, and the
 * served content agrees with `expected`, so a failing crawl test is never the fixture's fault.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestSite, startConformanceServer, type TestSite } from './fixtures/site.js';
import { CONFORMANCE_SITEMAPS_DIR } from './fixtures/conformance.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** GET without following redirects or decoding: the bytes as sent. */
function rawGet(url: string, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Raw> {
  return new Promise((ok, fail) => {
    const req = request(url, { headers, signal, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
}

const isGzip = (b: Buffer) => b.length > 2 && b[0] === 0x1f && b[1] === 0x8b;
const locs = (xml: string) => [...xml.matchAll(/<loc>\s*([^<]*?)\s*<\/loc>/g)].map((m) => m[1].replace(/&amp;/g, '&'));
const hrefsOf = (html: string) => [...html.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));

describe('full scenario', () => {
  let site: TestSite;
  before(async () => {
    site = await startTestSite({ slowMs: 60_000 });
  });
  after(() => site.close());

  test('robots.txt: two Sitemap lines (absolute and relative), groups for * and another agent', async () => {
    const r = await rawGet(site.url('/robots.txt'));
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/plain/);
    const body = r.body.toString();
    const lines = body.split('\n').filter((l) => l.startsWith('Sitemap:'));
    assert.deepEqual(lines, [`Sitemap: ${site.origin}/sitemap_index.xml`, 'Sitemap: /sitemap.txt']);
    assert.match(body, /User-agent: OtherBot\nDisallow: \/\n/);
    assert.match(body, /User-agent: \*\nDisallow: \/private\/\nAllow: \/private\/ok.html\n/);
    assert.deepEqual(site.expected.robots.sitemaps, [site.url('/sitemap_index.xml'), site.url('/sitemap.txt')]);
  });

  test('sitemap index lists its children, itself, and a sub-index that cycles back', async () => {
    const idx = (await rawGet(site.url('/sitemap_index.xml'))).body.toString();
    assert.match(idx, /<sitemapindex /);
    const kids = locs(idx);
    assert.equal(kids.length, 8);
    assert.ok(kids.includes(site.url('/sitemap_index.xml')), 'self-reference');
    for (const p of ['pages.xml.gz', 'posts.xml', 'missing.xml', 'broken.xml', 'truncated.xml', 'bomb.xml', 'sub-index.xml'])
      assert.ok(kids.includes(site.url(`/sitemaps/${p}`)), p);
    const sub = locs((await rawGet(site.url('/sitemaps/sub-index.xml'))).body.toString());
    assert.deepEqual(sub, [site.url('/sitemap_index.xml'), site.url('/sitemaps/news.xml')]);
  });

  test('pages.xml.gz is a gzip file sent as application/gzip without Content-Encoding', async () => {
    const r = await rawGet(site.url('/sitemaps/pages.xml.gz'), { 'accept-encoding': 'gzip' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/gzip');
    assert.equal(r.headers['content-encoding'], undefined);
    assert.ok(isGzip(r.body), 'gzip magic bytes');
    const xml = gunzipSync(r.body).toString();
    assert.match(xml, /<urlset /);
    assert.match(xml, /<xhtml:link rel="alternate" hreflang="de"/);
    assert.match(xml, /<image:loc>/);
  });

  test('posts.xml is sent with Content-Encoding: gzip', async () => {
    const r = await rawGet(site.url('/sitemaps/posts.xml'));
    assert.equal(r.headers['content-encoding'], 'gzip');
    assert.match(String(r.headers['content-type']), /^application\/xml/);
    assert.ok(isGzip(r.body));
    const xml = gunzipSync(r.body).toString();
    assert.match(xml, /<loc>\n\s+http:\/\/127\.0\.0\.1:\d+\/posts\/5\.html\s+\n\s*<\/loc>/, 'padded loc');
  });

  test('damaged sitemaps: 404, malformed after 3 urls, truncated mid-tag, entity bomb', async () => {
    assert.equal((await rawGet(site.url('/sitemaps/missing.xml'))).status, 404);
    const broken = (await rawGet(site.url('/sitemaps/broken.xml'))).body.toString();
    assert.equal(locs(broken).length, 3);
    assert.match(broken, /<\/url>\n<\/ur1>\n<url <</);
    const cut = (await rawGet(site.url('/sitemaps/truncated.xml'))).body.toString();
    assert.equal(locs(cut).length, 2);
    assert.ok(cut.endsWith('<url>\n    <lo'), 'ends mid-tag');
    assert.ok(!cut.includes('</urlset>'));
    const bomb = (await rawGet(site.url('/sitemaps/bomb.xml'))).body.toString();
    assert.match(bomb, /<!DOCTYPE urlset \[/);
    assert.equal((bomb.match(/<!ENTITY/g) ?? []).length, 10);
    assert.match(bomb, /&lol9;/);
  });

  test('sitemap.txt has blank lines, a junk line and a space-padded URL', async () => {
    const r = await rawGet(site.url('/sitemap.txt'));
    assert.match(String(r.headers['content-type']), /^text\/plain/);
    const lines = r.body.toString().split('\n');
    assert.ok(lines.filter((l) => l.trim() === '').length >= 3);
    assert.ok(lines.includes('# not a URL, just a remark'));
    assert.ok(lines.includes(`   ${site.url('/text-only/1.html')}   `));
  });

  test('every sitemap body lists exactly the URLs expected of it', async () => {
    for (const sm of site.expected.sitemaps) {
      const r = await rawGet(site.url(sm.path));
      assert.equal(r.status, sm.httpStatus, sm.path);
      assert.equal(isGzip(r.body), sm.gzip || sm.contentEncodingGzip, `${sm.path} gzip`);
      if (sm.httpStatus !== 200) continue;
      const text = (isGzip(r.body) ? gunzipSync(r.body) : r.body).toString();
      let listed: string[];
      if (sm.type === 'text')
        listed = text
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l.startsWith('http'));
      else if (sm.type === 'rss') listed = [...text.matchAll(/<item>.*?<link>\s*([^<]*?)\s*<\/link>/g)].map((m) => m[1]);
      else if (sm.type === 'atom') listed = [...text.matchAll(/<entry>[\s\S]*?<link href="([^"]*)"/g)].map((m) => m[1]);
      else if (sm.failure?.kind === 'doctype') listed = [];
      else listed = sm.type === 'sitemapindex' ? [] : locs(text);
      assert.deepEqual(
        listed,
        sm.urls.map((p) => site.url(p)),
        sm.path,
      );
      if (sm.type === 'sitemapindex')
        assert.deepEqual(
          locs(text),
          sm.listedChildren.map((p) => site.url(p)),
          sm.path,
        );
    }
  });

  test('redirects: 301 then 302 to /page/2.html; a two-step loop', async () => {
    const a = await rawGet(site.url('/redirect/a'));
    assert.equal(a.status, 301);
    assert.equal(a.headers.location, '/redirect/b');
    const b = await rawGet(site.url('/redirect/b'));
    assert.equal(b.status, 302);
    assert.equal(b.headers.location, site.url('/page/2.html'));
    const la = await rawGet(site.url('/loop/a'));
    const lb = await rawGet(site.url('/loop/b'));
    assert.deepEqual([la.status, la.headers.location, lb.status, lb.headers.location], [302, '/loop/b', 302, 'a']);
    // Each hop is a URL of its own with its own 3xx and Location (resolved); a loop keeps its 3xx.
    assert.deepEqual(site.expected.results['/redirect/a'], { status: 301, redirectTo: '/redirect/b' });
    assert.deepEqual(site.expected.results['/redirect/b'], { status: 302, redirectTo: '/page/2.html' });
    assert.deepEqual(site.expected.results['/loop/a'], { status: 302, redirectTo: '/loop/b' });
    assert.deepEqual(site.expected.results['/loop/b'], { status: 302, redirectTo: '/loop/a' });
  });

  test('/rate-limited: 429 with Retry-After: 1 the first time, then 200', async () => {
    const first = await rawGet(site.url('/rate-limited'));
    assert.equal(first.status, 429);
    assert.equal(first.headers['retry-after'], '1');
    const second = await rawGet(site.url('/rate-limited'));
    assert.equal(second.status, 200);
    assert.ok(hrefsOf(second.body.toString()).includes('/after-retry.html'));
    assert.equal(site.hits.get('/rate-limited'), 2);
  });

  test('/server-error answers 500 every time', async () => {
    assert.equal((await rawGet(site.url('/server-error'))).status, 500);
    assert.equal((await rawGet(site.url('/server-error'))).status, 500);
  });

  test('/slow does not answer before its delay; an aborted request leaves no work behind', async () => {
    const ac = new AbortController();
    const pending = rawGet(site.url('/slow'), {}, ac.signal);
    // slowMs is 60 s here: whatever the machine's load, no answer can come within this wait.
    await new Promise((r) => setTimeout(r, 150));
    ac.abort();
    await assert.rejects(pending, { name: 'AbortError' });
  });

  test('/latin1.html is windows-1252 bytes with the charset in Content-Type', async () => {
    const r = await rawGet(site.url('/latin1.html'));
    assert.equal(r.headers['content-type'], 'text/html; charset=windows-1252');
    // "Café crème – 5 €" in windows-1252, byte by byte (–: 0x96, €: 0x80; neither exists in ISO-8859-1).
    const title = Buffer.from([
      ...Buffer.from('<title>Caf'),
      0xe9,
      ...Buffer.from(' cr'),
      0xe8,
      ...Buffer.from('me '),
      0x96,
      ...Buffer.from(' 5 '),
      0x80,
      ...Buffer.from('</title>'),
    ]);
    assert.ok(r.body.includes(title), 'title bytes');
    assert.ok(!r.body.includes(Buffer.from('é')), 'no UTF-8 sequences');
    assert.equal(site.expected.results['/latin1.html'].title, 'Café crème – 5 €');
  });

  test('/big.html is chunked (no Content-Length) and larger than the default 2 MiB max body', async () => {
    const r = await rawGet(site.url('/big.html'));
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-length'], undefined);
    assert.equal(r.headers['transfer-encoding'], 'chunked');
    assert.ok(r.body.length > 2 * 1024 * 1024, `${r.body.length} bytes`);
    assert.ok(r.body.toString('latin1').endsWith('</body></html>\n'));
  });

  test('SEO pages: base href, canonical, hreflang, meta robots, X-Robots-Tag, a PDF', async () => {
    const base = (await rawGet(site.url('/base/index.html'))).body.toString();
    assert.match(base, /<base href="\/docs\/">/);
    assert.deepEqual(site.expected.linksFrom['/base/index.html'], ['/docs/a.html', '/page/3.html', '/page/4.html']);
    assert.ok(site.expected.notDiscovered.includes('/base/a.html'));
    assert.match((await rawGet(site.url('/seo/canonical.html'))).body.toString(), /<link rel="canonical" href="\.\.\/page\/1\.html">/);
    assert.equal(site.expected.results['/seo/canonical.html'].canonical, '/page/1.html');
    assert.match((await rawGet(site.url('/seo/hreflang.html'))).body.toString(), /hreflang="x-default"/);
    assert.match((await rawGet(site.url('/seo/noindex-meta.html'))).body.toString(), /<meta name="robots" content="noindex, follow">/);
    assert.equal((await rawGet(site.url('/seo/noindex-header.html'))).headers['x-robots-tag'], 'noindex');
    const pdf = await rawGet(site.url('/files/report.pdf'));
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.equal(pdf.body.subarray(0, 5).toString(), '%PDF-');
  });

  test('feeds linked with <a>: RSS 2.0 and Atom', async () => {
    assert.deepEqual(hrefsOf((await rawGet(site.url('/feeds.html'))).body.toString()).slice(-2), ['/feed.xml', '/atom.xml']);
    const rss = await rawGet(site.url('/feed.xml'));
    assert.match(String(rss.headers['content-type']), /^application\/rss\+xml/);
    assert.match(rss.body.toString(), /<rss version="2.0">/);
    const atom = await rawGet(site.url('/atom.xml'));
    assert.match(String(atom.headers['content-type']), /^application\/atom\+xml/);
    assert.match(atom.body.toString(), /<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/);
    const viaLink = site.expected.sitemaps.filter((s) => s.via === 'link').map((s) => [s.path, s.type, s.from]);
    assert.deepEqual(viaLink, [
      ['/feed.xml', 'rss', '/feeds.html'],
      ['/atom.xml', 'atom', '/feeds.html'],
    ]);
  });

  test('home links off-site and to mailto:/javascript:; none of those is an on-site link', async () => {
    const hrefs = hrefsOf((await rawGet(site.url('/'))).body.toString());
    for (const h of ['http://outside.invalid/', 'mailto:webmaster@outside.invalid', 'javascript:void(0)', '/private/secret.html'])
      assert.ok(hrefs.includes(h), h);
    assert.deepEqual(site.expected.outOfScope, ['http://outside.invalid/', 'https://outside.invalid/deep/page.html']);
    assert.ok(site.expected.linksFrom['/'].every((p) => p.startsWith('/')));
  });

  test('served links agree with expected.linksFrom for every page', async () => {
    for (const [path, expected] of Object.entries(site.expected.linksFrom)) {
      const html = (await rawGet(site.url(path))).body.toString('latin1');
      const base = html.match(/<base href="([^"]*)">/)?.[1];
      const baseUrl = new URL(base ?? '', site.url(path));
      const got = new Set<string>();
      for (const h of hrefsOf(html)) {
        const u = new URL(h, baseUrl);
        if (u.origin === site.origin) got.add(u.pathname + u.search);
      }
      assert.deepEqual([...got], expected, path);
    }
  });

  test('every expected status and Content-Type is what the server sends', async () => {
    for (const [path, r] of Object.entries(site.expected.results)) {
      if (r.status === undefined || r.redirectChain || path === '/rate-limited') continue;
      const got = await rawGet(site.url(path));
      assert.equal(got.status, r.status, path);
      if (r.contentType) assert.equal(got.headers['content-type'], r.contentType, path);
      if (r.title) assert.ok(got.body.toString('latin1').includes('<title>'), path);
    }
  });

  test('the expectations hold together', () => {
    const e = site.expected;
    const discovered = new Set(e.discovered);
    assert.ok(e.blocked.every((p) => discovered.has(p)));
    assert.deepEqual(new Set(e.blocked), new Set(['/private/secret.html', '/private/listed.html']));
    assert.ok(discovered.has('/private/ok.html') && !e.blocked.includes('/private/ok.html'), 'Allow: beats Disallow: by length');
    assert.ok(e.notDiscovered.every((p) => !discovered.has(p)));
    assert.ok(e.mayDiscover.every((p) => !discovered.has(p)));
    assert.deepEqual(e.fromSitemaps['/page/7.html'], ['/sitemaps/pages.xml.gz', '/sitemaps/posts.xml']);
    const linkersOf7 = Object.entries(e.linksFrom)
      .filter(([, ls]) => ls.includes('/page/7.html'))
      .map(([p]) => p);
    assert.deepEqual(linkersOf7, ['/', '/page/6.html', '/page/8.html']);
    assert.equal(e.discovered.filter((p) => /^\/page\/\d+\.html$/.test(p)).length, 40);
    const failed = Object.fromEntries(e.sitemaps.filter((s) => s.failure).map((s) => [s.path, s.failure]));
    assert.deepEqual(failed, {
      '/sitemaps/missing.xml': { kind: 'http-status', code: 'HTTP_404' },
      '/sitemaps/broken.xml': { kind: 'malformed', code: 'MALFORMED_XML' },
      '/sitemaps/truncated.xml': { kind: 'truncated', code: 'MALFORMED_XML' },
      '/sitemaps/bomb.xml': { kind: 'doctype', code: 'DOCTYPE_REFUSED' },
    });
    assert.equal(e.sitemaps.filter((s) => s.path === '/sitemap_index.xml').length, 1, 'a cycle makes no second node');
    assert.deepEqual(e.entries['/page/1.html'].images, ['/img/page-1.jpg']);
    assert.ok(e.requestedOnce.includes('/sitemap_index.xml'));
    // Redirects are not followed inside a fetch: each hop, and the target, is requested once.
    for (const p of ['/page/2.html', '/redirect/a', '/redirect/b', '/loop/a', '/loop/b']) assert.ok(e.requestedOnce.includes(p), p);
  });

  test('hits and the log record path+query and the user agent', async () => {
    const before = site.hits.get('/search?q=spinneret&page=2') ?? 0;
    await rawGet(site.url('/search?q=spinneret&page=2'), { 'user-agent': 'SpinneretFixtureTest/1.0' });
    assert.equal(site.hits.get('/search?q=spinneret&page=2'), before + 1);
    const last = site.log.at(-1)!;
    assert.equal(last.path, '/search?q=spinneret&page=2');
    assert.equal(last.userAgent, 'SpinneretFixtureTest/1.0');
    assert.equal(typeof last.at, 'number');
  });
});

test('options: a small slowMs answers; a small maxBodyBytes shrinks /big.html; close() ends pending work', async () => {
  const site = await startTestSite({ slowMs: 20, maxBodyBytes: 10_000 });
  try {
    assert.equal((await rawGet(site.url('/slow'))).status, 200);
    const big = await rawGet(site.url('/big.html'));
    assert.ok(big.body.length > 10_000 && big.body.length < 1024 * 1024, `${big.body.length}`);
  } finally {
    await site.close();
  }
  const slow = await startTestSite({ slowMs: 60_000 });
  const pending = rawGet(slow.url('/slow')).catch((e: Error) => e);
  while (!slow.hits.get('/slow')) await new Promise((r) => setTimeout(r, 5));
  await slow.close(); // must not wait for the 60 s answer
  assert.ok((await pending) instanceof Error, 'the pending request was cut');
});

test('no-robots: robots.txt and /sitemap.xml are 404; pages form a link tree', async () => {
  const site = await startTestSite({ scenario: 'no-robots' });
  try {
    assert.equal((await rawGet(site.url('/robots.txt'))).status, 404);
    assert.equal((await rawGet(site.url('/sitemap.xml'))).status, 404);
    const e = site.expected;
    assert.equal(e.robots.outcome, 'allow-all');
    assert.equal(e.discovered.length, 21);
    assert.deepEqual(e.sitemaps, []);
    assert.equal(e.linkDepth['/page/20.html'], 4);
    assert.deepEqual(hrefsOf((await rawGet(site.url('/page/9.html'))).body.toString()), ['/', '/page/4.html', '/page/19.html', '/page/20.html']);
  } finally {
    await site.close();
  }
});

test('robots-500: robots.txt answers 500 and the crawl must block everything', async () => {
  const site = await startTestSite({ scenario: 'robots-500' });
  try {
    assert.equal((await rawGet(site.url('/robots.txt'))).status, 500);
    assert.equal((await rawGet(site.url('/page/1.html'))).status, 200, 'pages exist, to catch a crawler that fetches them');
    const e = site.expected;
    assert.deepEqual(e.robots, { status: 500, outcome: 'disallow-all', sitemaps: [], problemCode: 'ROBOTS_UNREACHABLE' });
    assert.deepEqual(e.discovered, ['/']);
    assert.deepEqual(e.blocked, ['/']);
    assert.ok(e.neverRequested.includes('/page/5.html'));
  } finally {
    await site.close();
  }
});

test('sitemap-only-default: no Sitemap: line, /sitemap.xml at its default place', async () => {
  const site = await startTestSite({ scenario: 'sitemap-only-default' });
  try {
    const robots = (await rawGet(site.url('/robots.txt'))).body.toString();
    assert.ok(!/sitemap:/i.test(robots));
    const sm = await rawGet(site.url('/sitemap.xml'));
    assert.equal(sm.status, 200);
    assert.equal(locs(sm.body.toString()).length, 7);
    assert.deepEqual(
      site.expected.sitemaps.map((s) => [s.path, s.via, s.urlCount]),
      [['/sitemap.xml', 'default-location', 7]],
    );
    assert.ok(site.expected.sitemapOnly.includes('/sitemap-only/1.html'));
    assert.deepEqual(site.expected.blocked, ['/private/hidden.html']);
  } finally {
    await site.close();
  }
});

test('large: sitemaps and a link tree over thousands of URLs', async () => {
  const site = await startTestSite({ scenario: 'large', pages: 3000, sitemapUrls: 2500, perSitemap: 1000 });
  try {
    const e = site.expected;
    assert.equal(e.discovered.length, 3001);
    assert.deepEqual(e.robots.sitemaps, [site.url('/large/index.xml')]);
    const kids = locs((await rawGet(site.url('/large/index.xml'))).body.toString());
    assert.deepEqual(
      kids,
      ['/large/sitemap-0.xml', '/large/sitemap-1.xml.gz', '/large/sitemap-2.xml'].map((p) => site.url(p)),
    );
    let total = 0;
    for (const k of kids) {
      const body = (await rawGet(k)).body;
      total += locs((isGzip(body) ? gunzipSync(body) : body).toString()).length;
    }
    assert.equal(total, 2500);
    assert.equal(
      e.sitemaps.reduce((n, s) => n + s.urlCount, 0),
      2500,
    );
    assert.equal(e.linkDepth['/l/2999.html'], 4);
    assert.equal((await rawGet(site.url('/l/2999.html'))).status, 200);
    assert.equal((await rawGet(site.url('/l/3000.html'))).status, 404);
  } finally {
    await site.close();
  }
});

test('pageDelayMs delays pages but not robots.txt', async () => {
  const site = await startTestSite({ scenario: 'no-robots', pageDelayMs: 60_000 });
  try {
    assert.equal((await rawGet(site.url('/robots.txt'))).status, 404);
    const ac = new AbortController();
    const pending = rawGet(site.url('/'), {}, ac.signal);
    await new Promise((r) => setTimeout(r, 100));
    ac.abort();
    await assert.rejects(pending, { name: 'AbortError' });
  } finally {
    await site.close();
  }
});

test('conformance server serves ../shared/conformance/sitemaps in place', async (t) => {
  const repo = fileURLToPath(new URL('..', import.meta.url));
  assert.equal(resolve(CONFORMANCE_SITEMAPS_DIR), resolve(repo, '..', 'shared', 'conformance', 'sitemaps'));
  const server = await startConformanceServer();
  if (!server) {
    t.skip(`conformance data absent at ${CONFORMANCE_SITEMAPS_DIR} (a fresh clone): nothing to serve`);
    return;
  }
  try {
    const robots = (await rawGet(server.url('/robots.txt'))).body.toString();
    const lines = robots.split('\n').filter((l) => l.startsWith('Sitemap: '));
    assert.deepEqual(
      lines,
      server.paths.map((p) => `Sitemap: ${server.url(p)}`),
    );
    assert.ok(server.paths.includes('/sitemap.txt.gz'));
    assert.ok(server.paths.includes('/extension/sitemap-news.xml'));
    for (const p of server.paths) {
      const r = await rawGet(server.url(p));
      assert.equal(r.status, 200, p);
      assert.ok(r.body.equals(readFileSync(resolve(server.dir, p.slice(1)))), `${p}: bytes as on disk`);
    }
    assert.equal((await rawGet(server.url('/sitemap.txt.gz'))).headers['content-type'], 'application/gzip');
    assert.equal((await rawGet(server.url('/nope.xml'))).status, 404);
  } finally {
    await server.close();
  }
});
