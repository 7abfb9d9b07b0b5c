/**
 * Self-test of the realistic test site (test/fixtures/real-site): every page, redirect, sitemap and
 * robots.txt answers as its spec says, and a walk over HTTP that applies the crawl rules to what is
 * served finds exactly the URLs, statuses and reach `expected` was computed from the spec. So a
 * failing test/service/realistic-crawl.test.ts is never the fixture's fault.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { startRealSite, SPECIAL, type RealSite, type RealSiteEvent, type RealUrlExpectation } from './fixtures/real-site/site.js';
import { CATEGORIES, COLOURS, isDisallowed, SPECIAL_FIELDS } from './fixtures/real-site/spec.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  ms: number;
}

/** GET without following redirects or decoding: the bytes as sent. */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  const t0 = Date.now();
  return new Promise((ok, fail) => {
    const req = request(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ms: Date.now() - t0 }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
}

const unesc = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const isGzip = (b: Buffer) => b.length > 2 && b[0] === 0x1f && b[1] === 0x8b;
const locs = (xml: string) => [...xml.matchAll(/<loc>\s*([^<]*?)\s*<\/loc>/g)].map((m) => unesc(m[1]!));
const anchorsIn = (html: string) => [...html.matchAll(/<a href="([^"]*)"/g)].map((m) => unesc(m[1]!));
const linkTag = (html: string, rel: string) =>
  [...html.matchAll(new RegExp(`<link rel="${rel}"(?: hreflang="([^"]*)")? href="([^"]*)">`, 'g'))].map((m) =>
    m[1] ? `${m[1]} ${unesc(m[2]!)}` : unesc(m[2]!),
  );

describe('the realistic site serves its spec', () => {
  let site: RealSite;
  const path = (url: string) => (url.startsWith(site.origin + '/') ? url.slice(site.origin.length) : url);
  before(async () => {
    site = await startRealSite();
  });
  after(() => site.close());

  test('robots.txt: Disallow /cart/ and /checkout/, two absolute Sitemap lines (the index first)', async () => {
    const r = await rawGet(site.url('/robots.txt'));
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/plain/);
    const lines = r.body.toString().split('\n');
    assert.deepEqual(
      lines.filter((l) => l.startsWith('Disallow:')),
      ['Disallow: /cart/', 'Disallow: /checkout/'],
    );
    assert.deepEqual(
      lines.filter((l) => l.startsWith('Sitemap:')),
      [`Sitemap: ${site.url('/sitemap_index.xml')}`, `Sitemap: ${site.url('/sitemaps/campaigns.xml')}`],
    );
    assert.deepEqual(site.expected.robots.sitemaps, [site.url('/sitemap_index.xml'), site.url('/sitemaps/campaigns.xml')]);
  });

  test('every sitemap: its encoding, and exactly its URLs (duplicates included) or children, in order', async () => {
    assert.deepEqual(
      site.expected.sitemaps.map((s) => [s.path, s.kind, s.via, s.parent, s.gzipFile]),
      [
        ['/sitemap_index.xml', 'sitemapindex', 'robots', '/robots.txt', false],
        ['/sitemaps/campaigns.xml', 'urlset', 'robots', '/robots.txt', false],
        ['/sitemaps/products-1.xml.gz', 'urlset', 'index', '/sitemap_index.xml', true],
        ['/sitemaps/products-2.xml.gz', 'urlset', 'index', '/sitemap_index.xml', true],
        ['/sitemaps/pages.xml', 'urlset', 'index', '/sitemap_index.xml', false],
        ['/sitemaps/blog.xml', 'urlset', 'index', '/sitemap_index.xml', false],
      ],
    );
    for (const sm of site.expected.sitemaps) {
      const r = await rawGet(site.url(sm.path), { 'accept-encoding': 'gzip' });
      assert.equal(r.status, 200, sm.path);
      assert.equal(r.headers['content-encoding'], undefined, `${sm.path}: no Content-Encoding`);
      if (sm.gzipFile) {
        assert.equal(r.headers['content-type'], 'application/gzip', sm.path);
        assert.ok(isGzip(r.body), `${sm.path}: gzip magic bytes`);
      } else {
        assert.match(String(r.headers['content-type']), /^application\/xml/, sm.path);
        assert.ok(!isGzip(r.body), `${sm.path}: plain XML`);
      }
      const xml = (sm.gzipFile ? gunzipSync(r.body) : r.body).toString();
      assert.match(xml, sm.kind === 'sitemapindex' ? /<sitemapindex / : /<urlset /, sm.path);
      if (sm.kind === 'sitemapindex')
        assert.deepEqual(
          locs(xml),
          sm.children.map((c) => site.url(c)),
          sm.path,
        );
      else
        assert.deepEqual(
          locs(xml),
          sm.urls.map((u) => site.url(u)),
          sm.path,
        );
    }
    const products1 = site.expected.sitemaps.find((s) => s.path === '/sitemaps/products-1.xml.gz')!;
    assert.equal(products1.urls.filter((u) => u === SPECIAL.duplicateListed).length, 2, 'a real duplicate in one sitemap');
    const inSitemaps = site.expected.sitemaps.filter((s) => s.urls.includes(SPECIAL.inTwoSitemaps)).map((s) => s.path);
    assert.deepEqual(inSitemaps, ['/sitemaps/products-1.xml.gz', '/sitemaps/products-2.xml.gz']);
  });

  test('every page: status, headers, canonical, hreflang, prev/next and its <a> links in document order', async () => {
    for (const p of site.spec.pages) {
      const r = await rawGet(site.url(p.path));
      assert.equal(r.status, p.status, p.path);
      assert.equal(r.headers['content-type'], 'text/html; charset=utf-8', p.path);
      assert.equal(r.headers['x-robots-tag'], p.xRobotsTag, `${p.path} X-Robots-Tag`);
      const html = r.body.toString();
      assert.deepEqual(linkTag(html, 'canonical'), p.canonical === undefined ? [] : [p.canonical], `${p.path} canonical`);
      assert.deepEqual(
        linkTag(html, 'alternate'),
        p.hreflang.map((h) => `${h.lang} ${h.href}`),
        `${p.path} hreflang`,
      );
      assert.deepEqual(linkTag(html, 'prev'), p.prev ? [p.prev] : [], `${p.path} rel=prev`);
      assert.deepEqual(linkTag(html, 'next'), p.next ? [p.next] : [], `${p.path} rel=next`);
      assert.deepEqual(
        anchorsIn(html),
        p.anchors.map((x) => x.href),
        `${p.path} <a> links`,
      );
      const meta = /<meta name="robots" content="([^"]*)">/.exec(html)?.[1];
      assert.equal(meta, p.metaRobots, `${p.path} meta robots`);
      // The template: a footer naming the main sections, a navigation, breadcrumbs below the top level.
      const footer = html.slice(html.indexOf('<footer'));
      for (const s of ['/', '/shop/', '/blog/', '/about/', '/contact/', ...CATEGORIES.map((c) => `/shop/${c.slug}/`)])
        assert.ok(anchorsIn(footer).includes(s), `${p.path}: footer links ${s}`);
      assert.ok(html.includes('<header class="site-header">'), `${p.path}: header`);
      if (p.lang === 'en') assert.ok(html.includes('<nav aria-label="Main">'), `${p.path}: navigation`);
      if (p.anchors.some((x) => x.region === 'breadcrumb')) assert.match(html, /<nav aria-label="Breadcrumb">[\s\S]*aria-current="page"/, p.path);
    }
  });

  test('on-page fields: every page its meta descriptions, H1s, <html lang>, Last-Modified and ETag as specified', async () => {
    const decode = (h: string) =>
      unesc(
        h
          .replace(/&#x([0-9a-f]+);/gi, (_, x: string) => String.fromCodePoint(parseInt(x, 16)))
          .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d))),
      )
        .replace(/&auml;/g, 'ä')
        .replace(/&ouml;/g, 'ö')
        .replace(/&uuml;/g, 'ü')
        .replace(/&Uuml;/g, 'Ü');
    for (const p of site.spec.pages) {
      const r = await rawGet(site.url(p.path));
      const html = r.body.toString();
      const descriptions = [...html.matchAll(/<meta name="description" content="([^"]*)">/g)].map((m) => decode(m[1]!));
      assert.deepEqual(descriptions, p.descriptions, `${p.path} meta descriptions`);
      assert.deepEqual(
        [...html.matchAll(/<h1[^>]*>([^<]*)<\/h1>/g)].map((m) => decode(m[1]!)),
        p.h1s,
        `${p.path} H1s`,
      );
      assert.equal(/<html(?: lang="([^"]*)")?>/.exec(html)?.[1], p.htmlLang === undefined ? p.lang : (p.htmlLang ?? undefined), `${p.path} <html lang>`);
      if (p.entities)
        assert.ok(
          /&#x1F331;|&Uuml;|&#8212;/.test(html) && !/[^\x00-\x7f]/.test(html.slice(html.indexOf('<meta name="description"'), html.indexOf('</head>'))),
          `${p.path}: references, no raw non-ASCII`,
        );
      assert.equal(r.headers['last-modified'], p.lastModified, `${p.path} Last-Modified`);
      assert.equal(r.headers.etag, p.etag, `${p.path} ETag`);
    }
    // Each oddity is there (and the expectations say what a crawler records of it).
    const e = (path: string) => site.expected.fields[path]!;
    assert.deepEqual([e(SPECIAL_FIELDS.noH1).h1, e(SPECIAL_FIELDS.noH1).h1Count], [undefined, 0]);
    assert.deepEqual(
      [e(SPECIAL_FIELDS.noDescription).metaDescription, e(SPECIAL_FIELDS.noDescription).metaDescriptionCount, e(SPECIAL_FIELDS.noDescription).lang],
      [undefined, 0, undefined],
    );
    assert.deepEqual([e(SPECIAL_FIELDS.emptyFields).metaDescription, e(SPECIAL_FIELDS.emptyFields).h1, e(SPECIAL_FIELDS.emptyFields).lang], ['', '', '']);
    const rep = e(SPECIAL_FIELDS.repeated);
    assert.deepEqual(
      [rep.metaDescription, rep.metaDescriptionCount, rep.h1, rep.h1Count, rep.lang],
      ['Questions and answers: delivery, returns, care.', 2, 'FAQ', 2, 'en-GB'],
    );
    assert.equal(e(SPECIAL_FIELDS.longDescription).metaDescription!.length <= 1024, true);
    assert.ok(site.spec.pages.find((p) => p.path === SPECIAL_FIELDS.longDescription)!.descriptions[0]!.length > 1024);
    assert.equal(e(SPECIAL_FIELDS.entities).metaDescription, 'Über uns: Gärten, Küchen & Werkzeug seit 1998 🌱');
    assert.equal(e(SPECIAL_FIELDS.rawUtf8).metaDescription, 'Gartengeräte, Küche & Licht 🌱 — Hearth & Acre');
    assert.ok(site.spec.pages.filter((p) => p.etag?.startsWith('W/')).length > 0 && site.spec.pages.filter((p) => p.lastModified).length > 0);
  });

  test('200 pages are self-canonical except the colour variants, sort orders and the tracked landing', () => {
    const other = site.spec.pages.filter((p) => p.status === 200 && p.canonical !== site.url(p.path)).map((p) => p.path);
    assert.ok(other.length > 0);
    for (const p of other) assert.match(p, /\?colour=|\?sort=price$|\?utm_source=home$/, p);
    assert.equal(other.length, 2 * COLOURS.length * CATEGORIES.length + CATEGORIES.length + 1);
    const variant = site.spec.pages.find((p) => p.path === '/shop/garden/classic-hose/?colour=red')!;
    assert.equal(variant.canonical, site.url('/shop/garden/classic-hose/'));
    for (const p of site.spec.pages) if (p.canonical !== undefined) assert.ok(p.canonical.startsWith(site.origin + '/'), `${p.path}: absolute canonical`);
  });

  test('pagination: rel=prev/next <link>s and visible <a> links, on the blog and in categories', async () => {
    const blog2 = (await rawGet(site.url('/blog/page/2/'))).body.toString();
    assert.deepEqual(linkTag(blog2, 'prev'), [site.url('/blog/')]);
    assert.deepEqual(linkTag(blog2, 'next'), [site.url('/blog/page/3/')]);
    assert.match(blog2, /<a href="\/blog\/" rel="prev">/);
    assert.match(blog2, /<a href="\/blog\/page\/3\/" rel="next">/);
    assert.match(blog2, /<a href="\/blog\/page\/5\/">5<\/a>/);
    const last = (await rawGet(site.url('/blog/page/5/'))).body.toString();
    assert.deepEqual(linkTag(last, 'next'), []);
    const garden2 = (await rawGet(site.url('/shop/garden/?page=2'))).body.toString();
    assert.deepEqual(linkTag(garden2, 'prev'), [site.url('/shop/garden/')]);
    assert.match(garden2, /<a href="\.\/" rel="prev">/, 'page 1 written relative');
    const garden1 = (await rawGet(site.url('/shop/garden/'))).body.toString();
    assert.deepEqual(linkTag(garden1, 'next'), [site.url('/shop/garden/?page=2')]);
    assert.match(garden1, /<a href="\?page=2" rel="next">/);
  });

  test('redirects: the promo chain, the loop and its entry, the listed old product URL, a relative Location', async () => {
    const hops: [string, number, string][] = [];
    for (const p of ['/promo', '/promo-2024/', '/offers/', '/loop-a', '/loop-b', '/deals', '/products/garden-hose.html', '/shop/sale']) {
      const r = await rawGet(site.url(p));
      hops.push([p, r.status, String(r.headers.location)]);
    }
    assert.deepEqual(hops, [
      ['/promo', 301, '/promo-2024/'],
      ['/promo-2024/', 301, site.url('/offers/')],
      ['/offers/', 302, 'summer/'],
      ['/loop-a', 301, '/loop-b'],
      ['/loop-b', 301, site.url('/loop-a')],
      ['/deals', 301, '/loop-a'],
      ['/products/garden-hose.html', 301, site.url('/shop/garden/classic-hose/')],
      ['/shop/sale', 301, 'clearance/'],
    ]);
    assert.equal((await rawGet(site.url('/offers/summer/'))).status, 200);
    assert.equal((await rawGet(site.url('/shop/clearance/'))).status, 200);
    const e = site.expected.urls;
    assert.deepEqual(
      ['/promo', '/promo-2024/', '/offers/', '/offers/summer/', '/loop-a', '/loop-b', '/shop/sale'].map((p) => [p, e[p]]),
      [
        ['/promo', { state: 'done', status: 301, redirectTo: '/promo-2024/' }],
        ['/promo-2024/', { state: 'done', status: 301, redirectTo: '/offers/' }],
        ['/offers/', { state: 'done', status: 302, redirectTo: '/offers/summer/' }],
        ['/offers/summer/', { state: 'done', status: 200, canonical: site.url('/offers/summer/') }],
        ['/loop-a', { state: 'done', status: 301, redirectTo: '/loop-b' }],
        ['/loop-b', { state: 'done', status: 301, redirectTo: '/loop-a' }],
        ['/shop/sale', { state: 'done', status: 301, redirectTo: '/shop/clearance/' }],
      ],
    );
    // A walk starts where a URL was found otherwise than as a redirect's target: /promo, not /promo-2024/.
    assert.deepEqual(site.expected.findings.REDIRECT_CHAIN, ['/promo']);
    assert.deepEqual(site.expected.findings.REDIRECT_LOOP, ['/deals', '/loop-a', '/loop-b']);
    assert.deepEqual(site.expected.redirectTargetsOnly, ['/loop-b', '/offers/', '/promo-2024/']);
  });

  test('error pages: the footer 404 on every page, a 410, a 500; unknown paths 404', async () => {
    assert.equal((await rawGet(site.url('/old-terms/'))).status, 404);
    assert.equal((await rawGet(site.url(SPECIAL.discontinuedProduct))).status, 410);
    assert.equal((await rawGet(site.url(SPECIAL.brokenProduct))).status, 500);
    assert.equal((await rawGet(site.url('/no/such/page/'))).status, 404);
    const linking = site.spec.pages.filter((p) => p.anchors.some((x) => x.href === '/old-terms/'));
    assert.equal(linking.length, site.spec.pages.length, 'every page links /old-terms/');
    assert.equal(
      site.spec.pages.filter((p) => p.anchors.some((x) => x.href === '/cart/')).length,
      site.spec.pages.length - 3,
      'every page but the German ones links /cart/',
    );
  });

  test('noindex: by meta robots on the tag archives, by X-Robots-Tag on the sign-in page', async () => {
    const tag = await rawGet(site.url('/blog/tag/garden/'));
    assert.match(tag.body.toString(), /<meta name="robots" content="noindex, follow">/);
    const login = await rawGet(site.url('/account/login/'));
    assert.equal(login.headers['x-robots-tag'], 'noindex');
    assert.deepEqual(site.expected.findings.SITEMAP_URL_NOINDEX, ['/account/login/', '/blog/tag/diy/', '/blog/tag/garden/']);
  });

  test('orphans: listed, linked by nothing but themselves, self-canonical; a 200 one and a 404 one', async () => {
    const orphans = site.expected.findings.SITEMAP_ORPHAN;
    assert.ok(orphans.includes(SPECIAL.orphan200) && orphans.includes(SPECIAL.orphan404));
    for (const o of orphans) {
      assert.ok(site.expected.listed.includes(o), `${o} is listed`);
      const page = site.spec.pages.find((p) => p.path === o);
      if (!page) continue; // a redirect or a disallowed path
      if (o !== '/checkout/') {
        assert.ok(
          page.anchors.some((x) => new URL(x.href, site.url(o)).href === site.url(o)),
          `${o} links to itself`,
        );
        assert.equal(page.canonical, site.url(o), `${o} is self-canonical`);
      }
      // Pages robots.txt keeps the crawler from (the basket links the checkout) do not count.
      const linkers = site.spec.pages.filter(
        (p) => p.path !== o && !isDisallowed(site.spec, p.path) && p.anchors.some((x) => new URL(x.href, site.url(p.path)).href === site.url(o)),
      );
      assert.deepEqual(
        linkers.map((p) => p.path),
        [],
        `nothing else links ${o}`,
      );
    }
    assert.equal((await rawGet(site.url(SPECIAL.orphan200))).status, 200);
    assert.equal((await rawGet(site.url(SPECIAL.orphan404))).status, 404);
    // The spring sale is named by a canonical only, the German pages by hreflang only.
    assert.equal(site.spec.pages.find((p) => p.path === SPECIAL.trackedLanding)!.canonical, site.url(SPECIAL.orphan200));
    for (const de of ['/de/', '/de/shop/', '/de/ueber-uns/']) assert.ok(orphans.includes(de), de);
  });

  test('a walk over HTTP under the crawl rules finds exactly the URLs, answers and reach of `expected`', async () => {
    const robots = (await rawGet(site.url('/robots.txt'))).body.toString();
    const disallow = [...robots.matchAll(/^Disallow: (.+)$/gm)].map((m) => m[1]!);
    const queue = [...robots.matchAll(/^Sitemap: (.+)$/gm)].map((m) => m[1]!);
    const listed: string[] = [];
    while (queue.length) {
      const r = await rawGet(queue.shift()!);
      const xml = (isGzip(r.body) ? gunzipSync(r.body) : r.body).toString();
      if (xml.includes('<sitemapindex')) queue.push(...locs(xml));
      else listed.push(...locs(xml));
    }
    const found = new Map<string, RealUrlExpectation>();
    const reached = new Set([site.url('/')]);
    const redirectsTo = new Map<string, string>();
    const work = [site.url('/'), ...listed];
    const resolve = (href: string, base: string) => {
      const u = new URL(href, base);
      u.hash = '';
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
    };
    while (work.length) {
      const url = work.shift()!;
      if (found.has(path(url))) continue;
      const u = new URL(url);
      if (u.origin !== site.origin) {
        found.set(url, { state: 'listed' });
        continue;
      }
      if (disallow.some((d) => (u.pathname + u.search).startsWith(d))) {
        found.set(path(url), { state: 'blocked' });
        continue;
      }
      const r = await rawGet(url);
      const e: RealUrlExpectation = { state: 'done', status: r.status };
      if (r.status >= 300 && r.status < 400) {
        const to = resolve(String(r.headers.location), url)!;
        e.redirectTo = path(to);
        redirectsTo.set(url, to);
        work.push(to);
      } else if (r.status >= 200 && r.status < 300) {
        const html = r.body.toString();
        const canonical = linkTag(html, 'canonical')[0];
        if (canonical !== undefined) e.canonical = canonical;
        for (const href of anchorsIn(html)) {
          const t = resolve(href, url);
          if (t === null) continue;
          if (t !== url) reached.add(t);
          work.push(t);
        }
      }
      found.set(path(url), e);
    }
    for (let grew = true; grew;) {
      grew = false;
      for (const r of [...reached]) {
        const to = redirectsTo.get(r);
        if (to && !reached.has(to)) {
          reached.add(to);
          grew = true;
        }
      }
    }
    assert.deepEqual(Object.fromEntries([...found].sort()), Object.fromEntries(Object.entries(site.expected.urls).sort()));
    assert.deepEqual([...new Set(listed.map(path))].sort(), site.expected.listed);
    assert.deepEqual([...reached].map(path).sort(), site.expected.reached);
    assert.ok(Object.keys(site.expected.urls).length >= 200, 'a few hundred URLs');
  });
});

describe('the realistic site: options', () => {
  test('slowMs delays the slow post (default under a 2 s timeout); pageDelayMs every page, not robots.txt or sitemaps', async () => {
    const plain = await startRealSite();
    try {
      assert.ok(plain.spec.options.slowMs < 2000 && plain.spec.options.slowMs > 0);
    } finally {
      await plain.close();
    }
    const site = await startRealSite({ slowMs: 400, pageDelayMs: 150 });
    try {
      const slow = await rawGet(site.url(site.expected.slowPath));
      assert.equal(slow.status, 200);
      assert.ok(slow.ms >= 530, `the slow post answered after ${slow.ms} ms`);
      const page = await rawGet(site.url('/about/'));
      assert.ok(page.ms >= 140, `a page answered after ${page.ms} ms`);
      const notFound = await rawGet(site.url('/old-terms/'));
      assert.ok(notFound.ms >= 140, `an error page is a page too: ${notFound.ms} ms`);
      const robots = await rawGet(site.url('/robots.txt'));
      const sitemap = await rawGet(site.url('/sitemaps/pages.xml'));
      const redirect = await rawGet(site.url('/promo'));
      assert.ok(Math.max(robots.ms, sitemap.ms, redirect.ms) < 140, 'robots.txt, sitemaps and redirects are not delayed');
      assert.equal(site.hits.get('/about/'), 1);
      assert.equal(site.hits.get(site.expected.slowPath), 1);
      await rawGet(site.url('/about/'));
      assert.equal(site.hits.get('/about/'), 2, 'hits counts requests per path');
    } finally {
      await site.close();
    }
  });

  test('sitemapDelayMs and sitemapChunkMs: a sitemap arrives late and in parts, each part reported', async () => {
    const events: RealSiteEvent[] = [];
    const site = await startRealSite({ sitemapDelayMs: 100, sitemapChunkMs: 30, sitemapChunks: 5, onEvent: (e) => events.push(e) });
    try {
      const r = await rawGet(site.url('/sitemaps/products-1.xml.gz'));
      assert.ok(r.ms >= 100 + 4 * 30 - 10, `answered whole after ${r.ms} ms`);
      assert.ok(isGzip(r.body));
      assert.deepEqual(
        locs(gunzipSync(r.body).toString()),
        site.expected.sitemaps.find((s) => s.path === '/sitemaps/products-1.xml.gz')!.urls.map((u) => site.url(u)),
      );
      await new Promise((res) => setTimeout(res, 20));
      const mine = events
        .filter((e) => e.path === '/sitemaps/products-1.xml.gz')
        .map((e) => (e.type === 'sitemap-chunk' ? `chunk ${e.chunk}/${e.of}` : e.type));
      assert.deepEqual(mine, ['request', 'chunk 1/5', 'chunk 2/5', 'chunk 3/5', 'chunk 4/5', 'chunk 5/5', 'answered']);
      const page = await rawGet(site.url('/'));
      assert.ok(page.ms < 100, 'pages are not delayed by the sitemap options');
      site.setOnEvent(null);
      await rawGet(site.url('/robots.txt'));
      assert.ok(!events.some((e) => e.path === '/robots.txt'), 'the listener was removed');
    } finally {
      await site.close();
    }
  });
});
