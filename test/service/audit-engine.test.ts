/**
 * AuditEngine driven by hand-written event sequences: each finding's exact count and members,
 * what is measured in a listing run, order independence and replay equivalence.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuditEngine } from '../../electron/service/audit/engine.js';
import { FINDING_DEFINITIONS } from '../../electron/service/audit/definitions.js';
import { PAGE_FINDING_CODES } from '../../electron/service/audit/types.js';
import { isValidHreflang, TABLE_SIZES } from '../../electron/service/audit/hreflang-codes.js';
import { lastmodVerdict } from '../../electron/service/audit/entry-checks.js';
import { hashKey } from '../../electron/service/audit/key-hash.js';
import type { HreflangAlternate, RequestSource, SitemapNode, SitemapUrlEntry, UrlResult } from '../../shared/model.js';

const O = 'https://www.shop.test';
const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const SM = `${O}/sitemap.xml`;
const SM2 = `${O}/sitemap-2.xml`;
const SM3 = `${O}/sitemap-3.xml`;

type Event =
  | { kind: 'admit'; id: number; url: string; source: RequestSource; entry?: SitemapUrlEntry; from?: string }
  | { kind: 'dup'; id: number; source: RequestSource; from?: string; entry?: SitemapUrlEntry }
  | { kind: 'result'; id: number; state: 'done' | 'error' | 'blocked'; r: UrlResult }
  | { kind: 'node'; node: SitemapNode };

/** Builds event sequences with ids handed out in admission order, the way the queue does. */
class Script {
  readonly events: Event[] = [];
  private readonly ids = new Map<string, number>();

  /** A sitemap listing of `url` by `sitemap` (admission the first time, a duplicate after). */
  list(url: string, sitemap = SM, extra: Omit<SitemapUrlEntry, 'loc'> = {}): number {
    return this.discover(url, 'sitemap', sitemap, { loc: url, ...extra });
  }

  link(url: string, from = `${O}/`): number {
    return this.discover(url, 'link', from);
  }

  start(url: string): number {
    return this.discover(url, 'start');
  }

  result(url: string, r: UrlResult, state: 'done' | 'error' | 'blocked' = 'done'): void {
    this.events.push({ kind: 'result', id: this.idOf(url), state, r });
  }

  node(node: Partial<SitemapNode> & { url: string }): void {
    this.events.push({ kind: 'node', node: makeNode(node) });
  }

  idOf(url: string): number {
    const id = this.ids.get(url);
    if (id === undefined) throw new Error(`not admitted: ${url}`);
    return id;
  }

  private discover(url: string, source: RequestSource, from?: string, entry?: SitemapUrlEntry): number {
    const known = this.ids.get(url);
    if (known !== undefined) {
      this.events.push({ kind: 'dup', id: known, source, from, entry });
      return known;
    }
    const id = this.ids.size;
    this.ids.set(url, id);
    this.events.push({ kind: 'admit', id, url, source, entry, from });
    return id;
  }
}

function makeNode(n: Partial<SitemapNode> & { url: string }): SitemapNode {
  return {
    id: n.id ?? n.url,
    parentId: null,
    type: 'urlset',
    state: 'done',
    httpStatus: 200,
    bytes: 100,
    uncompressedBytes: 100,
    gzip: false,
    urlCount: 1,
    childCount: 0,
    problems: [],
    ...n,
  };
}

function feed(engine: AuditEngine, events: readonly Event[]): AuditEngine {
  for (const e of events) {
    if (e.kind === 'admit') engine.admitted(e.id, e.url, e.source, e.entry, e.from);
    else if (e.kind === 'dup') engine.discovered(e.id, { source: e.source, ...(e.from ? { from: e.from } : {}) }, e.entry);
    else if (e.kind === 'result') engine.result(e.id, e.state, e.r);
    else engine.node(e.node);
  }
  return engine;
}

function run(events: readonly Event[], opts: { pages?: boolean; links?: boolean } = {}): AuditEngine {
  const engine = new AuditEngine({
    crawlUrl: `${O}/`,
    pagesCrawled: opts.pages ?? true,
    ...(opts.links !== undefined ? { linksFollowed: opts.links } : {}),
    now: () => NOW,
  });
  return feed(engine, events);
}

/** code → count for every finding with a non-zero count. */
/** The scripts here plant sitemap findings; the page findings have tests of their own (audit-pages.test.ts). */
const PAGE_CODES = new Set<string>(PAGE_FINDING_CODES);

function counts(engine: AuditEngine): Record<string, number> {
  return Object.fromEntries(
    engine
      .findings()
      .filter((f) => f.count > 0 && !PAGE_CODES.has(f.code))
      .map((f) => [f.code, f.count]),
  );
}

function ids(s: Script, urls: string[]): number[] {
  return urls.map((u) => s.idOf(u)).sort((a, b) => a - b);
}

const html: UrlResult = { status: 200, contentType: 'text/html; charset=utf-8' };

/** A sitemap's badges of the findings judged per listing (the per-URL ones have a test of their own). */
const LISTING_CODES = new Set([
  'DUPLICATE_IN_SITEMAP',
  'SITEMAP_URL_OUT_OF_SCOPE',
  'SITEMAP_HOST_VARIANT',
  'SITEMAP_INVALID_LASTMOD',
  'SITEMAP_FUTURE_LASTMOD',
  'HREFLANG_INVALID_CODE',
]);
function listingBadges(e: AuditEngine, sitemap: string) {
  return e.sitemapBadges(sitemap).filter((b) => LISTING_CODES.has(b.code));
}
const u = (path: string) => O + path;

// ---------------------------------------------------------------- result-based URL findings

test('result-based findings count each listed URL by its final result, unlisted and unknown ones not at all', () => {
  const s = new Script();
  s.start(u('/'));
  s.list(u('/'));
  const listed: [string, UrlResult, ('done' | 'error' | 'blocked')?][] = [
    ['/ok', html],
    ['/gone', { status: 404 }],
    ['/gone-410', { status: 410 }],
    ['/boom', { status: 503 }],
    ['/moved', { status: 200, redirectTo: u('/ok'), redirectChain: [{ url: u('/moved'), status: 301 }] }],
    ['/moved-to-404', { status: 404, redirectTo: u('/gone'), redirectChain: [{ url: u('/moved-to-404'), status: 302 }] }],
    ['/not-modified', { status: 304 }],
    ['/slow', { error: { code: 'TIMEOUT', message: 'timed out' } }, 'error'],
    ['/reset', { error: { code: 'CONNECTION_RESET', message: 'reset' } }, 'error'],
    ['/noindex-meta', { ...html, metaRobots: 'noindex, follow' }],
    ['/noindex-header', { ...html, xRobotsTag: 'googlebot: noindex' }],
    ['/none', { ...html, metaRobots: 'NONE' }],
    ['/canon-other', { ...html, canonical: u('/ok') }],
    ['/canon-self', { ...html, canonical: 'HTTPS://WWW.SHOP.TEST:443/canon-self#top' }],
    ['/canon-bad', { ...html, canonical: 'http://[bad' }],
    ['/private', { blockedByRobots: true }, 'blocked'],
  ];
  for (const [path] of listed) s.list(u(path));
  s.list(u('/never-fetched'));
  for (const [path, r, state] of listed) s.result(u(path), r, state);
  s.link(u('/unlisted-404'));
  s.result(u('/unlisted-404'), { status: 404 });

  const e = run(s.events);
  const expect: Record<string, string[]> = {
    SITEMAP_URL_4XX: ['/gone', '/gone-410'],
    SITEMAP_URL_5XX: ['/boom'],
    SITEMAP_URL_REDIRECT: ['/moved', '/moved-to-404', '/not-modified'],
    SITEMAP_URL_TIMEOUT: ['/slow'],
    SITEMAP_URL_ERROR: ['/reset'],
    SITEMAP_URL_NOINDEX: ['/noindex-meta', '/noindex-header', '/none'],
    SITEMAP_URL_CANONICALISED: ['/canon-other'],
    SITEMAP_URL_BLOCKED: ['/private'],
  };
  for (const [code, paths] of Object.entries(expect)) {
    assert.deepEqual(e.urlsOf(code), ids(s, paths.map(u)), code);
    assert.equal(e.finding(code).count, paths.length, code);
    assert.equal(e.finding(code).measured, true, code);
    for (const p of paths) assert.equal(e.has(code, s.idOf(u(p))), true, `${code} has ${p}`);
  }
  assert.equal(e.has('SITEMAP_URL_4XX', s.idOf(u('/unlisted-404'))), false);
  assert.equal(e.redirectTarget(s.idOf(u('/moved'))), u('/ok'));
  assert.equal(e.redirectTarget(s.idOf(u('/moved-to-404'))), u('/gone'));
  assert.deepEqual(e.codesOf(s.idOf(u('/never-fetched'))), ['SITEMAP_ORPHAN']);
  assert.deepEqual(e.codesOf(s.idOf(u('/gone'))), ['SITEMAP_URL_4XX', 'SITEMAP_ORPHAN']);
});

test('a later result replaces the earlier one (a retried URL is counted once, by its latest answer)', () => {
  const s = new Script();
  s.list(u('/flaky'));
  s.result(u('/flaky'), { status: 503 });
  const e = run(s.events);
  assert.equal(e.finding('SITEMAP_URL_5XX').count, 1);
  e.result(s.idOf(u('/flaky')), 'done', { ...html, metaRobots: 'noindex' });
  assert.equal(e.finding('SITEMAP_URL_5XX').count, 0);
  assert.deepEqual(e.urlsOf('SITEMAP_URL_NOINDEX'), [s.idOf(u('/flaky'))]);
  e.result(s.idOf(u('/flaky')), 'done', html);
  assert.equal(e.finding('SITEMAP_URL_NOINDEX').count, 0);
});

// ---------------------------------------------------------------- indexable, orphans

test('INDEXABLE_NOT_IN_SITEMAP: 2xx HTML pages, not noindex, canonical absent or self, in no sitemap', () => {
  const s = new Script();
  s.start(u('/'));
  s.result(u('/'), html);
  const pages: [string, UrlResult][] = [
    ['/a', html],
    ['/b', { ...html, canonical: u('/b') }],
    ['/xhtml', { status: 200, contentType: 'application/xhtml+xml' }],
    ['/noindex', { ...html, xRobotsTag: 'noindex' }],
    ['/canon', { ...html, canonical: u('/a') }],
    ['/pdf', { status: 200, contentType: 'application/pdf' }],
    ['/404', { ...html, status: 404 }],
    ['/redirect', { ...html, redirectTo: u('/a') }],
    ['/later-listed', html],
  ];
  for (const [p, r] of pages) {
    s.link(u(p));
    s.result(u(p), r);
  }
  s.list(u('/later-listed')); // the sitemap is read after the page was fetched
  s.link(u('/not-fetched-yet'));

  const e = run(s.events);
  assert.deepEqual(e.urlsOf('INDEXABLE_NOT_IN_SITEMAP'), ids(s, ['/', '/a', '/b', '/xhtml'].map(u)));
  assert.equal(e.finding('INDEXABLE_NOT_IN_SITEMAP').count, 4);
  assert.deepEqual(run(s.events, { pages: false }).finding('INDEXABLE_NOT_IN_SITEMAP'), {
    ...e.finding('INDEXABLE_NOT_IN_SITEMAP'),
    count: 0,
    measured: false,
  });
});

test('SITEMAP_ORPHAN: listed, never the start URL nor the target of a link; measured only with links followed', () => {
  const s = new Script();
  s.start(u('/'));
  s.list(u('/')); // the home page is reached as the start URL
  s.list(u('/linked'));
  s.link(u('/linked'), u('/'));
  s.link(u('/linked-first'), u('/'));
  s.list(u('/linked-first'));
  s.list(u('/orphan-1'));
  s.list(u('/orphan-2'), SM2);
  s.list(u('/orphan-1'), SM2);

  const e = run(s.events);
  assert.deepEqual(e.urlsOf('SITEMAP_ORPHAN'), ids(s, [u('/orphan-1'), u('/orphan-2')]));
  assert.equal(e.finding('SITEMAP_ORPHAN').count, 2);
  const noLinks = run(s.events, { links: false }).finding('SITEMAP_ORPHAN');
  assert.equal(noLinks.measured, false);
  assert.equal(noLinks.count, 0);
  assert.equal(run(s.events, { pages: false }).finding('SITEMAP_ORPHAN').measured, false);
});

// ---------------------------------------------------------------- listings

test('URL_IN_MULTIPLE_SITEMAPS and DUPLICATE_IN_SITEMAP tell other sitemaps from the same one again', () => {
  const s = new Script();
  s.list(u('/two'), SM);
  s.list(u('/two'), SM2);
  s.list(u('/twice'), SM);
  s.list(u('/twice'), SM);
  s.list(u('/aba'), SM);
  s.list(u('/aba'), SM2);
  s.list(u('/aba'), SM); // back to the first: a duplicate too
  s.list(u('/abcc'), SM);
  s.list(u('/abcc'), SM2);
  s.list(u('/abcc'), SM3);
  s.list(u('/abcc'), SM3); // third distinct sitemap, repeated
  s.list(u('/abcb'), SM);
  s.list(u('/abcb'), SM2);
  s.list(u('/abcb'), SM3);
  s.list(u('/once'), SM);
  s.link(u('/once'));
  s.list(u('/spelled'), SM);
  s.list(u('/spelled'), 'HTTPS://WWW.SHOP.TEST/sitemap-2.xml'); // another spelling of SM2: a second sitemap

  const e = run(s.events);
  assert.deepEqual(e.urlsOf('URL_IN_MULTIPLE_SITEMAPS'), ids(s, ['/two', '/aba', '/abcc', '/abcb', '/spelled'].map(u)));
  assert.deepEqual(e.urlsOf('DUPLICATE_IN_SITEMAP'), ids(s, ['/twice', '/aba', '/abcc'].map(u)));
  assert.deepEqual(listingBadges(e, SM3), [{ code: 'DUPLICATE_IN_SITEMAP', count: 1 }]);
  assert.deepEqual(listingBadges(e, SM), [{ code: 'DUPLICATE_IN_SITEMAP', count: 2 }]);
});

test('SITEMAP_URL_OUT_OF_SCOPE: outside the sitemap’s scheme, host and folder, judged by its final URL too', () => {
  const blog = `${O}/blog/sitemap.xml`;
  const s = new Script();
  s.list(u('/blog/post'), blog);
  s.list(u('/blog/deep/post'), blog);
  s.list(u('/about'), blog); // outside /blog/
  s.list('https://other.test/blog/x', blog); // another host
  s.list('http://www.shop.test/blog/y', blog); // another scheme
  s.list(u('/about'), SM); // in scope of the root sitemap: the URL still has one bad listing
  // A sitemap announced on http that redirects to https: its https entries are in scope after all.
  const moved = 'http://www.shop.test/moved-sitemap.xml';
  s.list(u('/m1'), moved);
  s.list(u('/m2'), moved);
  s.list('https://other.test/m3', moved);
  s.node({ url: moved, state: 'done', finalUrl: `${O}/moved-sitemap.xml` });

  const expected = ids(s, [u('/about'), 'https://other.test/blog/x', 'http://www.shop.test/blog/y', 'https://other.test/m3']);
  const e = run(s.events);
  assert.deepEqual(e.urlsOf('SITEMAP_URL_OUT_OF_SCOPE'), expected);
  assert.equal(e.finding('SITEMAP_URL_OUT_OF_SCOPE').count, 4);
  assert.deepEqual(listingBadges(e, moved), [{ code: 'SITEMAP_URL_OUT_OF_SCOPE', count: 1 }]);

  // Replayed with the node first (the journal order may differ): the same verdict.
  const nodeFirst = [...s.events.filter((x) => x.kind === 'node'), ...s.events.filter((x) => x.kind !== 'node')];
  assert.deepEqual(run(nodeFirst).urlsOf('SITEMAP_URL_OUT_OF_SCOPE'), expected);
});

test('SITEMAP_HOST_VARIANT: http/https and www/apex variants of the crawled host, not other hosts', () => {
  const s = new Script();
  const variants = ['http://www.shop.test/a', 'https://shop.test/b', 'http://shop.test/c', 'https://shop.test:8443/d'];
  const fine = [u('/same'), 'HTTPS://WWW.SHOP.TEST/upper', 'https://other.test/x', 'https://www.www.shop.test/y', 'https://shop.test.evil/z'];
  for (const url of [...variants, ...fine]) s.list(url);
  const e = run(s.events);
  assert.deepEqual(e.urlsOf('SITEMAP_HOST_VARIANT'), ids(s, variants));
  assert.equal(e.finding('SITEMAP_HOST_VARIANT').count, 4);
});

test('lastmod: invalid W3C datetimes and dates more than a day ahead', () => {
  const s = new Script();
  const iso = (ms: number) => new Date(ms).toISOString();
  const cases: [string, string, 'ok' | 'invalid' | 'future'][] = [
    ['/l1', '2024-05-31', 'ok'],
    ['/l2', '2024-05-31T10:00:00+02:00', 'ok'],
    ['/l3', '2002-09-07T09:42:31.000Z', 'ok'],
    ['/l4', iso(NOW + 2 * 3600_000), 'ok'], // within the day of slack
    ['/l5', '2024-13-01', 'invalid'],
    ['/l6', 'yesterday', 'invalid'],
    ['/l7', '2024-05-31T10:00', 'invalid'], // a time needs a zone
    ['/l8', '2999-01-01', 'future'],
    ['/l9', iso(NOW + 3 * 86400_000), 'future'],
  ];
  for (const [p, lastmod] of cases) s.list(u(p), SM, { lastmod });
  s.list(u('/l5'), SM2, { lastmod: '2024-01-01' }); // one bad listing is enough
  const e = run(s.events);
  const pick = (v: string) =>
    ids(
      s,
      cases.filter((c) => c[2] === v).map((c) => u(c[0])),
    );
  assert.deepEqual(e.urlsOf('SITEMAP_INVALID_LASTMOD'), pick('invalid'));
  assert.deepEqual(e.urlsOf('SITEMAP_FUTURE_LASTMOD'), pick('future'));
  assert.deepEqual(listingBadges(e, SM), [
    { code: 'SITEMAP_INVALID_LASTMOD', count: 3 },
    { code: 'SITEMAP_FUTURE_LASTMOD', count: 2 },
  ]);
});

test('lastmod: a date is judged by the clock as it reads at the listing, moved on or set back', () => {
  const DAY = 86400_000;
  let clock = NOW;
  let reads = 0;
  const e = new AuditEngine({ crawlUrl: `${O}/`, pagesCrawled: false, now: () => (reads++, clock) });
  const s = new Script();
  const iso = (ms: number) => new Date(ms).toISOString();
  const list = (path: string, lastmod: string): number => {
    const before = s.events.length;
    const id = s.list(u(path), SM, { lastmod });
    feed(e, s.events.slice(before));
    return id;
  };
  for (let i = 0; i < 1000; i++) list(`/past-${i}`, '2024-05-31');
  assert.ok(reads >= 1, 'the clock is read for a verdict');
  const ahead = list('/ahead', iso(NOW + 3 * DAY));
  assert.deepEqual(e.urlsOf('SITEMAP_FUTURE_LASTMOD'), [ahead]);
  // Within the day of slack of the clock as last read: never in the future, whatever the clock says later.
  const soon = list('/soon', iso(NOW + 12 * 3600_000));
  // The clock moves on: a date ahead of its last reading is judged by a new one.
  clock = NOW + 10 * DAY;
  const later = list('/later', iso(NOW + 5 * DAY));
  // Set back: the next verdict reads the clock again.
  clock = NOW - 30 * DAY;
  const back = list('/back', iso(NOW - 20 * DAY));
  const future = e.urlsOf('SITEMAP_FUTURE_LASTMOD') as number[];
  assert.ok(future.includes(ahead) && future.includes(back), 'a date ahead of the clock is found');
  assert.ok(!future.includes(soon) && !future.includes(later));
});

// ---------------------------------------------------------------- hreflang

function alt(lang: string, path: string): HreflangAlternate {
  return { lang, href: u(path) };
}

/** en ↔ de reciprocal; en → fr not answered; es → en not answered, with en-UK; jp invalid; it → a 404. */
function hreflangScript(): Script {
  const s = new Script();
  s.list(u('/en/'), SM, { alternates: [alt('en', '/en/'), alt('de', '/de/'), alt('fr', '/fr/'), alt('x-default', '/en/')] });
  s.list(u('/de/'), SM, { alternates: [alt('de', '/de/'), alt('en', '/en/')] });
  s.list(u('/fr/'), SM, { alternates: [alt('fr', '/fr/')] });
  s.list(u('/es/'), SM, { alternates: [alt('es', '/es/'), alt('en-UK', '/en/')] });
  s.list(u('/jp/'), SM, { alternates: [alt('jp', '/jp/')] });
  s.list(u('/it/'), SM, { alternates: [alt('it', '/it/'), alt('zh-Hant-TW', '/zh/')] });
  s.list(u('/zh/'), SM, { alternates: [alt('zh-Hant-TW', '/zh/'), alt('it', '/it/'), alt('en', '/gone-lang')] });
  s.link(u('/gone-lang'));
  s.result(u('/gone-lang'), { status: 404 });
  for (const p of ['/en/', '/de/', '/fr/', '/es/', '/jp/', '/it/', '/zh/']) s.result(u(p), html);
  return s;
}

test('hreflang: reciprocity, targets not 200 and invalid codes, from sitemap alternates', () => {
  const s = hreflangScript();
  const e = run(s.events);
  assert.deepEqual(e.urlsOf('HREFLANG_NOT_RECIPROCAL'), ids(s, ['/en/', '/es/', '/zh/'].map(u)));
  assert.deepEqual(e.urlsOf('HREFLANG_INVALID_CODE'), ids(s, ['/es/', '/jp/'].map(u)));
  assert.deepEqual(e.urlsOf('HREFLANG_TARGET_NOT_200'), ids(s, [u('/zh/')]));

  const listing = run(s.events, { pages: false });
  assert.deepEqual(listing.urlsOf('HREFLANG_NOT_RECIPROCAL'), e.urlsOf('HREFLANG_NOT_RECIPROCAL'));
  assert.deepEqual(listing.finding('HREFLANG_TARGET_NOT_200'), { ...e.finding('HREFLANG_TARGET_NOT_200'), count: 0, measured: false });
});

test('hreflang: a target admitted before it is named, and a return link arriving later, are both seen', () => {
  const s = new Script();
  s.link(u('/target')); // admitted long before any sitemap names it
  s.result(u('/target'), { ...html, redirectTo: u('/t2') });
  s.list(u('/a'), SM, { alternates: [alt('en', '/a'), alt('fr', '/target')] });
  const e = run(s.events);
  assert.deepEqual(e.urlsOf('HREFLANG_TARGET_NOT_200'), [s.idOf(u('/a'))]);
  assert.deepEqual(e.urlsOf('HREFLANG_NOT_RECIPROCAL'), [s.idOf(u('/a'))]);
  e.discovered(s.idOf(u('/target')), { source: 'sitemap', from: SM2 }, { loc: u('/target'), alternates: [alt('en', '/a')] });
  assert.deepEqual(e.urlsOf('HREFLANG_NOT_RECIPROCAL'), []);
  e.result(s.idOf(u('/target')), 'done', html);
  assert.deepEqual(e.urlsOf('HREFLANG_TARGET_NOT_200'), []);
});

/** A fetched HTML page declaring `alternates` with `<link rel="alternate" hreflang>`. */
const page = (...alternates: HreflangAlternate[]): UrlResult => ({ ...html, hreflang: alternates });

/**
 * Pages only, none listed: /en/ ↔ /de/ in their HTML; /fr/ names /en/, which does not name it back;
 * /pt/ names /gone/ (a 404) with the code pt-PT and en-UK for itself; /nl/ is answered by the sitemap
 * entry of /nl-be/; a 404 page and a PDF declaring alternates declare nothing the audit reads.
 */
function pageHreflangScript(): Script {
  const s = new Script();
  s.start(u('/'));
  for (const p of ['/en/', '/de/', '/fr/', '/pt/', '/nl/', '/missing/', '/doc.pdf']) s.link(u(p));
  s.list(u('/nl-be/'), SM, { alternates: [alt('nl-BE', '/nl-be/'), alt('nl', '/nl/')] });
  s.link(u('/gone/'));
  s.result(u('/en/'), page(alt('en', '/en/'), alt('de', '/de/'), alt('x-default', '/en/')));
  s.result(u('/de/'), page(alt('de', '/de/'), alt('en', '/en/')));
  s.result(u('/fr/'), page(alt('fr', '/fr/'), alt('en', '/en/')));
  s.result(u('/pt/'), page(alt('en-UK', '/pt/'), alt('pt-PT', '/gone/')));
  s.result(u('/gone/'), { status: 404 });
  s.result(u('/nl/'), page(alt('nl', '/nl/'), alt('nl-BE', '/nl-be/')));
  s.result(u('/nl-be/'), html);
  s.result(u('/missing/'), { status: 404, contentType: 'text/html', hreflang: [alt('de', '/de/'), alt('jp', '/missing/')] });
  s.result(u('/doc.pdf'), { status: 200, contentType: 'application/pdf', hreflang: [alt('de', '/de/'), alt('jp', '/doc.pdf')] });
  return s;
}

test('hreflang in pages: the same three findings, with return links from pages or sitemap entries', () => {
  const s = pageHreflangScript();
  const e = run(s.events);
  // /fr/ is not named back by /en/; /pt/ names /gone/, which names nothing (and answers 404).
  assert.deepEqual(e.urlsOf('HREFLANG_NOT_RECIPROCAL'), ids(s, ['/fr/', '/pt/'].map(u)));
  assert.deepEqual(e.urlsOf('HREFLANG_TARGET_NOT_200'), ids(s, [u('/pt/')]));
  assert.deepEqual(e.urlsOf('HREFLANG_INVALID_CODE'), ids(s, [u('/pt/')]));
  // Unlisted pages: their sitemap findings stay empty.
  assert.deepEqual(e.urlsOf('SITEMAP_ORPHAN'), [s.idOf(u('/nl-be/'))]);
  for (let seed = 1; seed <= 25; seed++) assert.deepEqual(snapshot(run(shuffled(s.events, seed))), snapshot(e), `seed ${seed}`);

  // /en/ naming /fr/ in a later answer clears /fr/.
  e.result(s.idOf(u('/en/')), 'done', page(alt('en', '/en/'), alt('de', '/de/'), alt('fr', '/fr/')));
  assert.deepEqual(e.urlsOf('HREFLANG_NOT_RECIPROCAL'), ids(s, [u('/pt/')]));
});

test('hreflang in pages: a sitemap entry naming a page is answered by the page, and the reverse', () => {
  const s = new Script();
  s.list(u('/a/'), SM, { alternates: [alt('en', '/a/'), alt('de', '/b/')] });
  s.link(u('/b/'));
  s.list(u('/c/'));
  s.result(u('/a/'), html);
  s.result(u('/b/'), page(alt('de', '/b/'), alt('en', '/a/'), alt('fr', '/c/')));
  s.result(u('/c/'), page(alt('fr', '/c/')));
  const e = run(s.events);
  // /a/'s entry is answered by /b/'s page, and /b/'s page by /a/'s entry; /c/ names no one back.
  assert.deepEqual(e.urlsOf('HREFLANG_NOT_RECIPROCAL'), ids(s, [u('/b/')]));
  // Replayed as the service replays a journal: discoveries first, then results.
  const byKind = [...s.events.filter((x) => x.kind === 'admit' || x.kind === 'dup'), ...s.events.filter((x) => x.kind === 'result')];
  assert.deepEqual(snapshot(run(byKind)), snapshot(e));
});

test('HREFLANG_TARGET_NOT_INDEXABLE: an alternate that answers 2xx but is noindex or canonicalised elsewhere', () => {
  const s = new Script();
  s.list(u('/a/'), SM, { alternates: [alt('en', '/a/'), alt('de', '/noindex/')] });
  s.list(u('/b/'), SM, { alternates: [alt('en', '/b/'), alt('de', '/canon/')] });
  s.list(u('/c/'), SM, { alternates: [alt('en', '/c/'), alt('de', '/self-canon/'), alt('fr', '/gone/')] });
  for (const p of ['/noindex/', '/canon/', '/self-canon/', '/gone/']) s.link(u(p));
  s.result(u('/noindex/'), { ...html, xRobotsTag: 'noindex' });
  s.result(u('/canon/'), { ...html, canonical: u('/b/') });
  s.result(u('/self-canon/'), { ...html, canonical: u('/self-canon/') });
  s.result(u('/gone/'), { status: 410, contentType: 'text/html', metaRobots: 'noindex' }); // not 200: the other finding
  for (const p of ['/a/', '/b/', '/c/']) s.result(u(p), html);
  const e = run(s.events);
  assert.deepEqual(e.urlsOf('HREFLANG_TARGET_NOT_INDEXABLE'), ids(s, ['/a/', '/b/'].map(u)));
  assert.deepEqual(e.urlsOf('HREFLANG_TARGET_NOT_200'), ids(s, [u('/c/')]));
  for (let seed = 1; seed <= 25; seed++) assert.deepEqual(snapshot(run(shuffled(s.events, seed))), snapshot(e), `seed ${seed}`);
  // The latest answer decides: /noindex/ is indexable now, so /a/ is clear of it.
  e.result(s.idOf(u('/noindex/')), 'done', html);
  assert.deepEqual(e.urlsOf('HREFLANG_TARGET_NOT_INDEXABLE'), ids(s, [u('/b/')]));
  assert.deepEqual(run(s.events, { pages: false }).finding('HREFLANG_TARGET_NOT_INDEXABLE').measured, false);
});

test('HREFLANG_NO_SELF: a URL with alternates, none of them itself, in any listing or its page', () => {
  const s = new Script();
  s.list(u('/a/'), SM, { alternates: [alt('de', '/b/')] }); // no self in its entry, but its page has one
  s.list(u('/b/'), SM, { alternates: [alt('en', '/a/')] }); // none anywhere
  s.link(u('/c/'));
  s.list(u('/d/'), SM, { alternates: [alt('en', '/d/')] }); // itself only
  s.list(u('/d/'), SM2, { alternates: [alt('fr', '/c/')] }); // listed again without itself: the first names it
  s.result(u('/a/'), page(alt('en', '/a/'), alt('de', '/b/')));
  s.result(u('/b/'), html);
  s.result(u('/c/'), page(alt('fr', '/c/#top'), alt('en', '/d/'))); // the fragment is dropped: itself
  s.result(u('/d/'), { status: 404, hreflang: [alt('de', '/b/')] });
  const e = run(s.events);
  assert.deepEqual(e.urlsOf('HREFLANG_NO_SELF'), ids(s, [u('/b/')]));
  for (let seed = 1; seed <= 25; seed++) assert.deepEqual(snapshot(run(shuffled(s.events, seed))), snapshot(e), `seed ${seed}`);
  assert.equal(run(s.events, { pages: false }).finding('HREFLANG_NO_SELF').measured, true, 'sitemaps alone measure it');
});

test('hreflang codes: ISO 639-1 language, optional script and ISO 3166-1 region, or x-default', () => {
  assert.deepEqual(TABLE_SIZES, { languages: 184, regions: 249 });
  for (const ok of ['en', 'EN-gb', 'de-AT', 'zh-Hant', 'zh-hans-cn', 'x-default', 'X-Default', 'pt-BR', ' fr ']) {
    assert.equal(isValidHreflang(ok), true, ok);
  }
  for (const bad of ['en-UK', 'jp', 'eng', 'en_GB', 'iw', 'es-419', '', 'en-GB-x', 'zh-CN-Hant', 'x-default-us', 'en-']) {
    assert.equal(isValidHreflang(bad), false, bad);
  }
});

// ---------------------------------------------------------------- sitemap nodes

const ROBOTS = `${O}/robots.txt`;

function treeScript(): Script {
  const s = new Script();
  const under = (url: string, extra: Partial<SitemapNode> = {}) => s.node({ url, parentId: ROBOTS, ...extra });
  s.node({ url: ROBOTS, type: 'robots', childCount: 10, urlCount: 0 });
  under(`${O}/pending.xml`, { state: 'pending', httpStatus: undefined, type: 'unknown', urlCount: 0 });
  under(`${O}/missing.xml`, { state: 'error', httpStatus: 404, type: 'unknown', urlCount: 0, problems: [{ code: 'HTTP_404', message: '' }] });
  under(`${O}/unreachable.xml`, {
    state: 'error',
    httpStatus: undefined,
    type: 'unknown',
    urlCount: 0,
    problems: [{ code: 'CONNECTION_REFUSED', message: '' }],
  });
  under(`${O}/page.xml`, { state: 'error', type: 'unknown', urlCount: 0, problems: [{ code: 'NOT_A_SITEMAP', message: '' }] });
  under(`${O}/broken.xml`, { state: 'error', type: 'urlset', urlCount: 3, problems: [{ code: 'MALFORMED_XML', message: '' }] });
  under(`${O}/empty.xml`, { urlCount: 0 });
  under(`${O}/blank.txt`, { type: 'text', urlCount: 0, problems: [{ code: 'EMPTY_SITEMAP', message: '' }] });
  under(`${O}/many.xml`, { urlCount: 50_001, problems: [{ code: 'TOO_MANY_URLS', message: '' }] });
  under(`${O}/huge.xml.gz`, { gzip: true, uncompressedBytes: 60_000_000, problems: [{ code: 'SITEMAP_TOO_LARGE', message: '' }] });
  under(`${O}/index.xml`, { type: 'sitemapindex', urlCount: 0, childCount: 2 });
  s.node({ url: `${O}/child.xml`, parentId: `${O}/index.xml` });
  s.node({ url: `${O}/nested.xml`, parentId: `${O}/index.xml`, type: 'sitemapindex', urlCount: 0, childCount: 1 });
  s.node({ url: `${O}/grandchild.xml`, parentId: `${O}/nested.xml` });
  s.node({
    url: `${O}/skipped.xml`,
    parentId: `${O}/index.xml`,
    state: 'skipped',
    httpStatus: undefined,
    type: 'unknown',
    problems: [{ code: 'ROBOTS_DISALLOWED', message: '' }],
  });
  s.node({ url: `${O}/linked-sitemap.xml`, parentId: null }); // found through a page link
  return s;
}

test('sitemap findings from the tree: status, readability, emptiness, size, nesting, robots.txt', () => {
  const e = run(treeScript().events);
  const expect: Record<string, string[]> = {
    SITEMAP_NOT_200: ['/missing.xml', '/unreachable.xml'],
    NOT_A_SITEMAP: ['/page.xml', '/broken.xml'],
    SITEMAP_EMPTY: ['/empty.xml', '/blank.txt'],
    SITEMAP_TOO_MANY_URLS: ['/many.xml'],
    SITEMAP_TOO_LARGE: ['/huge.xml.gz'],
    NESTED_INDEX: ['/nested.xml'],
    SITEMAP_NOT_IN_ROBOTS: ['/linked-sitemap.xml'],
  };
  for (const [code, paths] of Object.entries(expect)) {
    assert.deepEqual([...(e.urlsOf(code) as string[])].sort(), paths.map(u).sort(), code);
    assert.equal(e.finding(code).count, paths.length, code);
    assert.equal(e.finding(code).subject, 'sitemap');
  }
  assert.deepEqual(e.sitemapBadges(`${O}/nested.xml`), [{ code: 'NESTED_INDEX', count: 1 }]);
});

test('SITEMAP_NOT_IN_ROBOTS: default-location sitemaps are not announced; unmeasured without robots.txt', () => {
  const s = new Script();
  s.node({ url: `${O}/sitemap.xml`, parentId: ROBOTS }); // a child before its parent: judged again later
  s.node({ url: ROBOTS, type: 'robots', childCount: 0, urlCount: 0 });
  s.node({ url: `${O}/sitemap_index.xml`, parentId: ROBOTS, type: 'sitemapindex', childCount: 1, urlCount: 0 });
  s.node({ url: `${O}/child.xml`, parentId: `${O}/sitemap_index.xml` });
  const e = run(s.events);
  assert.deepEqual([...(e.urlsOf('SITEMAP_NOT_IN_ROBOTS') as string[])].sort(), [`${O}/child.xml`, `${O}/sitemap.xml`, `${O}/sitemap_index.xml`]);

  // robots.txt later found to list sitemaps (a resumed crawl's node, say): all announced.
  e.node(makeNode({ url: ROBOTS, type: 'robots', childCount: 2, urlCount: 0 }));
  assert.equal(e.finding('SITEMAP_NOT_IN_ROBOTS').count, 0);

  const explicit = run([{ kind: 'node', node: makeNode({ url: `${O}/given.xml` }) }]);
  assert.deepEqual(explicit.finding('SITEMAP_NOT_IN_ROBOTS'), { ...explicit.finding('SITEMAP_NOT_IN_ROBOTS'), count: 0, measured: false });
});

test('a node changing state is judged by its latest version only', () => {
  const e = run([]);
  const url = `${O}/late.xml`;
  e.node(makeNode({ url, state: 'fetching', httpStatus: undefined, type: 'unknown', urlCount: 0 }));
  assert.equal(e.finding('SITEMAP_NOT_200').count, 0);
  assert.equal(e.finding('SITEMAP_EMPTY').count, 0);
  e.node(makeNode({ url, state: 'done', urlCount: 0 }));
  assert.equal(e.finding('SITEMAP_EMPTY').count, 1);
  e.node(makeNode({ url, state: 'done', urlCount: 12 }));
  assert.equal(e.finding('SITEMAP_EMPTY').count, 0);
});

// ---------------------------------------------------------------- runs, order, replay

test('a listing run measures only what needs no page fetch; the rest reads "not measured", count 0', () => {
  const e = run(hreflangScript().events, { pages: false });
  const unmeasured = e
    .findings()
    .filter((f) => !f.measured)
    .map((f) => f.code)
    .sort();
  const needPages = FINDING_DEFINITIONS.filter((d) => d.needs === 'pages' || d.needs === 'links' || d.needs === 'robots' || d.needs === 'previous')
    .map((d) => d.code)
    .sort();
  assert.deepEqual(unmeasured, needPages);
  for (const f of e.findings()) if (!f.measured) assert.equal(f.count, 0, f.code);
  assert.equal(e.findings().length, 43);
});

/** A crawl's worth of events touching every URL finding. */
function mixedScript(): Script {
  const s = hreflangScript();
  s.start(u('/'));
  s.list(u('/'));
  s.result(u('/'), html);
  s.list(u('/gone'), SM, { lastmod: '2024-99-01' });
  s.list(u('/gone'), SM2);
  s.result(u('/gone'), { status: 404 });
  s.link(u('/unlisted'));
  s.result(u('/unlisted'), html);
  s.list(u('/unlisted'), SM2); // listed after its result
  s.link(u('/unlisted-2'));
  s.result(u('/unlisted-2'), html);
  s.list('http://shop.test/variant', SM, { lastmod: '2999-12-31' });
  s.list(u('/dup'), SM);
  s.link(u('/dup'));
  s.list(u('/dup'), SM);
  s.result(u('/dup'), { ...html, canonical: u('/') });
  s.list(u('/nx'), SM3);
  s.result(u('/nx'), { ...html, metaRobots: 'noindex' });
  s.list(u('/blocked'), SM3);
  s.result(u('/blocked'), { blockedByRobots: true }, 'blocked');
  return s;
}

/** Shuffles events while keeping each URL's admission first (a discovery cannot precede it). */
function shuffled(events: readonly Event[], seed: number): Event[] {
  let x = seed;
  const rnd = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const admits = events.filter((e) => e.kind === 'admit');
  const rest = events.filter((e) => e.kind !== 'admit');
  for (let i = rest.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [rest[i], rest[j]] = [rest[j]!, rest[i]!];
  }
  return [...admits, ...rest];
}

function snapshot(e: AuditEngine): unknown {
  return e.findings().map((f) => ({ ...f, urls: f.measured ? [...e.urlsOf(f.code)].map(String).sort() : [] }));
}

test('order independence: results before or after duplicate discoveries, nodes before or after entries', () => {
  const s = mixedScript();
  const reference = snapshot(run(s.events));
  assert.deepEqual(counts(run(s.events)), {
    SITEMAP_URL_4XX: 1,
    SITEMAP_URL_NOINDEX: 1,
    SITEMAP_URL_BLOCKED: 1,
    SITEMAP_URL_CANONICALISED: 1,
    INDEXABLE_NOT_IN_SITEMAP: 1,
    SITEMAP_HOST_VARIANT: 1,
    SITEMAP_URL_OUT_OF_SCOPE: 1,
    SITEMAP_INVALID_LASTMOD: 1,
    HREFLANG_NOT_RECIPROCAL: 3,
    HREFLANG_TARGET_NOT_200: 1,
    HREFLANG_INVALID_CODE: 2,
    SITEMAP_ORPHAN: 11,
    URL_IN_MULTIPLE_SITEMAPS: 1,
    DUPLICATE_IN_SITEMAP: 1,
    SITEMAP_FUTURE_LASTMOD: 1,
  });
  for (let seed = 1; seed <= 25; seed++) assert.deepEqual(snapshot(run(shuffled(s.events, seed))), reference, `seed ${seed}`);
});

test('replay equivalence: journals replayed by kind after a pause, then live events, end where one run ends', () => {
  const s = mixedScript();
  s.node({ url: SM, urlCount: 14 });
  s.node({ url: SM2, urlCount: 2 });
  const whole = snapshot(run(s.events));
  for (const cut of [0, 7, Math.floor(s.events.length / 2), s.events.length - 1, s.events.length]) {
    const journal = s.events.slice(0, cut);
    // The service replays its journals one after another: requests and discoveries, results, then nodes.
    const replay = [
      ...journal.filter((e) => e.kind === 'admit' || e.kind === 'dup'),
      ...journal.filter((e) => e.kind === 'result'),
      ...journal.filter((e) => e.kind === 'node'),
    ];
    const resumed = feed(run(replay), s.events.slice(cut));
    assert.deepEqual(snapshot(resumed), whole, `cut at ${cut}`);
  }
});

// ---------------------------------------------------------------- API edges and memory

test('unknown codes and ids fail loudly or answer empty', () => {
  const e = run(mixedScript().events);
  assert.throws(() => e.urlsOf('NOPE'), { code: 'UNKNOWN_FINDING' });
  assert.throws(() => e.finding('NOPE'), { code: 'UNKNOWN_FINDING' });
  assert.throws(() => e.has('NOPE', 0), { code: 'UNKNOWN_FINDING' });
  assert.equal(e.has('SITEMAP_NOT_200', 0), false);
  assert.equal(e.has('SITEMAP_URL_4XX', 1e9), false);
  assert.deepEqual(e.codesOf(-1), []);
  assert.deepEqual(e.sitemapBadges('https://nowhere.test/s.xml'), []);
  assert.throws(() => e.result(-1, 'done', html), { code: 'INVALID_URL_ID' });
  assert.throws(() => new AuditEngine({ crawlUrl: 'not a url', pagesCrawled: true }), { code: 'INVALID_URL' });
});

test('every finding is defined once, with a one-line explanation', () => {
  const codes = FINDING_DEFINITIONS.map((d) => d.code);
  assert.equal(new Set(codes).size, codes.length);
  for (const d of FINDING_DEFINITIONS) {
    assert.match(d.code, /^[A-Z0-9_]+$/);
    assert.ok(d.explanation.length > 20 && !d.explanation.includes('\n'), d.code);
  }
});

test('per-URL state stays compact: typed columns under 12 bytes per URL (growth slack included) at 200,000 URLs', () => {
  const e = new AuditEngine({ crawlUrl: `${O}/`, pagesCrawled: true, now: () => NOW });
  const n = 200_000;
  for (let id = 0; id < n; id++) {
    e.admitted(id, `${O}/p/${id}`, id % 2 ? 'link' : 'sitemap', id % 2 ? undefined : { loc: `${O}/p/${id}` }, id % 2 ? `${O}/` : SM);
    e.result(id, 'done', id % 10 === 0 ? { status: 404 } : html);
  }
  assert.ok(e.allocatedBytes() / n < 12, `${(e.allocatedBytes() / n).toFixed(1)} bytes per URL`);
  assert.equal(e.finding('SITEMAP_URL_4XX').count, n / 10);
  assert.equal(e.finding('INDEXABLE_NOT_IN_SITEMAP').count, n / 2);
  assert.notEqual(hashKey(`${O}/p/1`), hashKey(`${O}/p/2`));
});

test("with the crawl's keys injected, URLs are found through them: canonicals, and alternates admitted before they are named", () => {
  const ids = new Map<string, number>();
  const keyOf: string[] = [];
  let lookups = 0;
  const admit = (e: AuditEngine, id: number, url: string, entry?: { loc: string; alternates?: { lang: string; href: string }[] }) => {
    ids.set(url, id);
    keyOf[id] = url;
    e.admitted(id, url, 'sitemap', entry ?? { loc: url }, SM, url);
  };
  const e = new AuditEngine({
    crawlUrl: `${O}/`,
    pagesCrawled: true,
    now: () => NOW,
    keys: { idOf: (k) => (lookups++, ids.get(k)), keyOf: (id) => keyOf[id] },
  });
  admit(e, 0, `${O}/de/`);
  e.result(0, 'done', { status: 404 });
  admit(e, 1, `${O}/en/`, { loc: `${O}/en/`, alternates: [{ lang: 'de', href: `${O}/de/` }] });
  assert.ok(lookups > 0, 'the target was looked up through the injected keys');
  assert.deepEqual(e.urlsOf('HREFLANG_TARGET_NOT_200'), [1], 'the target admitted before it was named is bound to its id');
  assert.deepEqual(e.urlsOf('HREFLANG_NOT_RECIPROCAL'), [1]);
  admit(e, 2, `${O}/a`);
  e.result(2, 'done', { ...html, canonical: `${O}/a` });
  admit(e, 3, `${O}/b`);
  e.result(3, 'done', { ...html, canonical: `${O}/a` });
  assert.deepEqual(e.urlsOf('SITEMAP_URL_CANONICALISED'), [3], 'canonical compared with the key the crawl holds');
});

test('lastmod verdicts: the string fast path for past dates agrees with parsing near the bound', () => {
  const now = Date.UTC(2025, 0, 15, 12, 0, 0);
  for (const [lastmod, want] of [
    ['2024', 'ok'],
    ['2025-01', 'ok'],
    ['2025-01-12T23:59:59-23:59', 'ok'],
    ['2025-01-13', 'ok'],
    ['2025-01-16T11:00:00Z', 'ok'],
    ['2025-01-16T13:00:00Z', 'future'],
    ['2025-01-15T20:00:00-14:00', 'ok'],
    ['2025-01-16T00:00:00-14:00', 'future'],
    ['2025-01-17', 'future'],
    ['2026', 'future'],
    ['2024-13-01', 'invalid'],
    ['2024-02-30', 'invalid'],
  ] as const) {
    assert.equal(lastmodVerdict(lastmod, now), want, lastmod);
  }
  // The bound is recomputed when the clock goes back or a day passes.
  assert.equal(lastmodVerdict('2025-01-10', Date.UTC(2025, 0, 11)), 'ok');
  assert.equal(lastmodVerdict('2025-01-10', Date.UTC(2025, 0, 8)), 'future');
});

test('sitemap slots widen past 65,535 sitemaps: a URL listed by the first and the 65,540th, then again by it', () => {
  const e = new AuditEngine({ crawlUrl: `${O}/`, pagesCrawled: false, now: () => NOW });
  const sm = (i: number) => `${O}/s/${i}.xml`;
  e.admitted(0, `${O}/x`, 'sitemap', { loc: `${O}/x` }, sm(0));
  for (let i = 1; i < 65_540; i++) e.admitted(i, `${O}/p/${i}`, 'sitemap', { loc: `${O}/p/${i}` }, sm(i));
  e.discovered(0, { source: 'sitemap', from: sm(65_539) }, { loc: `${O}/x` });
  assert.deepEqual(e.urlsOf('URL_IN_MULTIPLE_SITEMAPS'), [0]);
  assert.deepEqual(e.urlsOf('DUPLICATE_IN_SITEMAP'), []);
  e.discovered(0, { source: 'sitemap', from: sm(65_539) }, { loc: `${O}/x` });
  assert.deepEqual(e.urlsOf('DUPLICATE_IN_SITEMAP'), [0], 'listed twice by the 65,540th sitemap (not stored as 65,540 mod 65,536)');
  e.discovered(1, { source: 'sitemap', from: sm(65_539) }, { loc: `${O}/p/1` });
  assert.deepEqual(e.urlsOf('DUPLICATE_IN_SITEMAP'), [0]);
  assert.deepEqual(e.urlsOf('URL_IN_MULTIPLE_SITEMAPS'), [0, 1]);
});

test('second sitemaps are told apart the same way for a few URLs (a map) and for most (a column)', () => {
  const s = new Script();
  const n = 4000;
  for (let i = 0; i < n; i++) s.list(u(`/p${i}`), SM);
  // First a few in a second sitemap, then nearly all: the map becomes a column on the way.
  for (let i = 0; i < n; i += 2) s.list(u(`/p${i}`), SM2);
  for (let i = 0; i < n; i += 2) s.list(u(`/p${i}`), i % 4 === 0 ? SM2 : SM3); // again in SM2 (a duplicate), or a third
  for (let i = 1; i < n; i += 6) s.list(u(`/p${i}`), SM); // odd ones again in their only sitemap (a duplicate)
  const e = run(s.events);
  const multi = new Set(e.urlsOf('URL_IN_MULTIPLE_SITEMAPS') as number[]);
  const dup = new Set(e.urlsOf('DUPLICATE_IN_SITEMAP') as number[]);
  for (let i = 0; i < n; i++) {
    const id = s.idOf(u(`/p${i}`));
    assert.equal(multi.has(id), i % 2 === 0, `/p${i} in more than one sitemap`);
    assert.equal(dup.has(id), i % 4 === 0 || (i % 2 === 1 && (i - 1) % 6 === 0), `/p${i} listed twice by one sitemap`);
  }
  assert.deepEqual(listingBadges(e, SM2), [{ code: 'DUPLICATE_IN_SITEMAP', count: n / 4 }]);
});

// ---------------------------------------------------------------- reached, orphans and redirect walks

/** A discovery of another kind than the Script's shorthands (redirect, canonical, hreflang, reference). */
function found(s: Script, url: string, source: RequestSource, from: string): number {
  return (s as unknown as { discover(u: string, src: RequestSource, f?: string): number }).discover(url, source, from);
}

test('orphans: only an <a> of another page, the start URL or a redirect from a reached URL reaches a URL', () => {
  const s = new Script();
  s.start(u('/'));
  s.list(u('/'));
  s.result(u('/'), html);
  // Listed and linked from home: not an orphan.
  s.list(u('/linked'));
  s.link(u('/linked'));
  // Listed, and found only through its own canonical, hreflang links and a rel=next of another page.
  s.list(u('/self-canonical'));
  found(s, u('/self-canonical'), 'canonical', u('/self-canonical'));
  found(s, u('/self-canonical'), 'hreflang', u('/linked'));
  found(s, u('/self-canonical'), 'reference', u('/linked'));
  // Listed; linked only through a redirect from a linked URL (found before the redirect is fetched).
  s.list(u('/new'));
  s.link(u('/old'));
  s.result(u('/old'), { status: 301, redirectTo: u('/new') });
  found(s, u('/new'), 'redirect', u('/old'));
  // Listed; the URL redirecting to it is itself only listed (never reached): an orphan, as is its source.
  s.list(u('/listed-old'));
  s.list(u('/listed-new'));
  found(s, u('/listed-new'), 'redirect', u('/listed-old'));
  s.result(u('/listed-old'), { status: 302, redirectTo: u('/listed-new') });
  // Reached later: the redirect was fetched (and its target found) before any page linked to it.
  s.list(u('/late-old'));
  s.list(u('/late-new'));
  s.result(u('/late-old'), { status: 308, redirectTo: u('/late-new') });
  found(s, u('/late-new'), 'redirect', u('/late-old'));
  s.link(u('/late-old'), u('/linked'));
  const orphans = ids(s, ['/self-canonical', '/listed-old', '/listed-new'].map(u));
  for (const order of [s.events, [...s.events].reverse().sort((a, b) => (a.kind === 'admit' ? -1 : 0) - (b.kind === 'admit' ? -1 : 0))]) {
    const e = run(order);
    assert.deepEqual(e.urlsOf('SITEMAP_ORPHAN'), orphans);
  }
});

test('redirect walks: chains of 2+ hops from a listed or linked URL, loops on and into a cycle', () => {
  const s = new Script();
  s.start(u('/'));
  s.result(u('/'), html);
  // /promo → /promo-2024/ → /offers/ → /offers/summer/ (200), linked from home.
  s.link(u('/promo'));
  s.result(u('/promo'), { status: 301, redirectTo: u('/promo-2024/') });
  found(s, u('/promo-2024/'), 'redirect', u('/promo'));
  s.result(u('/promo-2024/'), { status: 301, redirectTo: u('/offers/') });
  found(s, u('/offers/'), 'redirect', u('/promo-2024/'));
  s.result(u('/offers/'), { status: 302, redirectTo: u('/offers/summer/') });
  found(s, u('/offers/summer/'), 'redirect', u('/offers/'));
  s.result(u('/offers/summer/'), html);
  // One hop only: no chain.
  s.list(u('/moved'));
  s.result(u('/moved'), { status: 301, redirectTo: u('/') });
  // A loop, and a listed URL that leads into it.
  s.link(u('/loop-a'));
  s.result(u('/loop-a'), { status: 301, redirectTo: u('/loop-b') });
  found(s, u('/loop-b'), 'redirect', u('/loop-a'));
  s.result(u('/loop-b'), { status: 301, redirectTo: u('/loop-a') });
  found(s, u('/loop-a'), 'redirect', u('/loop-b'));
  s.list(u('/into-loop'));
  s.result(u('/into-loop'), { status: 301, redirectTo: u('/loop-a') });
  found(s, u('/loop-a'), 'redirect', u('/into-loop'));
  // A URL that redirects to itself.
  s.list(u('/self'));
  s.result(u('/self'), { status: 302, redirectTo: u('/self') });
  const e = run(s.events);
  assert.deepEqual(e.urlsOf('REDIRECT_CHAIN'), ids(s, [u('/promo')]));
  assert.deepEqual(e.urlsOf('REDIRECT_LOOP'), ids(s, ['/loop-a', '/loop-b', '/into-loop', '/self'].map(u)));
  assert.equal(e.finding('REDIRECT_CHAIN').count, 1);
  assert.equal(e.finding('REDIRECT_LOOP').count, 4);
  assert.ok(e.has('REDIRECT_LOOP', s.idOf(u('/loop-b'))));
  assert.ok(!e.has('REDIRECT_LOOP', s.idOf(u('/promo'))));
  assert.ok(e.codesOf(s.idOf(u('/promo'))).includes('REDIRECT_CHAIN'));
  // Each hop keeps its own 3xx: SITEMAP_URL_REDIRECT counts listed 3xx URLs.
  assert.deepEqual(e.urlsOf('SITEMAP_URL_REDIRECT'), ids(s, ['/moved', '/into-loop', '/self'].map(u)));

  // The loop is mended (loop-b now answers 200): the walks change with it.
  const mended = new Script();
  for (const ev of s.events) mended.events.push(ev);
  mended.events.push({ kind: 'result', id: s.idOf(u('/loop-b')), state: 'done', r: html });
  const m = run(mended.events);
  assert.deepEqual(m.urlsOf('REDIRECT_LOOP'), ids(s, [u('/self')]));
  assert.deepEqual(m.urlsOf('REDIRECT_CHAIN'), ids(s, ['/promo', '/into-loop'].map(u)));
  // A listing run measures none of it.
  assert.equal(run(s.events, { pages: false }).finding('REDIRECT_LOOP').count, 0);
});

test('SITEMAP_URL_OUT_OF_SCOPE: a robots-announced sitemap read back with its entries before its node gives the live verdict', () => {
  // Live, the node comes first; a replay may read a sitemap's first entries before its node (the
  // journal writes nodes at the next flush). Announced by robots.txt, its entries may be anywhere on the host.
  const announced = `${O}/sitemaps/pages.xml`;
  const s = new Script();
  s.node({ url: ROBOTS, type: 'robots', childCount: 1, urlCount: 0 });
  const listings = () => {
    s.list(u('/page/1'), announced);
    s.list(u('/page/2'), announced);
    s.list('https://other.test/x', announced); // another host: out of scope whatever announced it
  };
  const node = () => s.node({ url: announced, parentId: `${O}/robots.txt`, state: 'done' });
  node();
  listings();
  const live = run(s.events);
  const expected = ids(s, ['https://other.test/x']);
  assert.deepEqual(live.urlsOf('SITEMAP_URL_OUT_OF_SCOPE'), expected);
  // Entries first, then the node (as done) and its robots parent already known.
  const [robots, n, ...entries] = s.events;
  const entriesFirst = [robots!, ...entries, n!];
  assert.deepEqual(run(entriesFirst).urlsOf('SITEMAP_URL_OUT_OF_SCOPE'), expected);
  assert.deepEqual(listingBadges(run(entriesFirst), announced), [{ code: 'SITEMAP_URL_OUT_OF_SCOPE', count: 1 }]);
});

test('tree badges count the URLs a sitemap lists with each finding of their own, and follow them as they change', () => {
  const s = new Script();
  s.start(u('/'));
  s.result(u('/'), html);
  s.list(u('/gone'), SM);
  s.result(u('/gone'), { status: 404 });
  s.list(u('/ok'), SM);
  s.result(u('/ok'), html);
  s.list(u('/ok'), SM2); // in two sitemaps: each counts it
  s.list(u('/moved'), SM2);
  s.result(u('/moved'), { status: 301, redirectTo: u('/mid') });
  found(s, u('/mid'), 'redirect', u('/moved'));
  s.result(u('/mid'), { status: 302, redirectTo: u('/ok') });
  s.list(u('/dup'), SM);
  s.list(u('/dup'), SM); // a listing finding: counted per listing, as before
  const e = run(s.events);
  const badges = (sm: string) =>
    Object.fromEntries(
      e
        .sitemapBadges(sm)
        .filter((b) => !PAGE_CODES.has(b.code))
        .map((b) => [b.code, b.count]),
    );
  assert.deepEqual(badges(SM), { SITEMAP_URL_4XX: 1, SITEMAP_ORPHAN: 3, URL_IN_MULTIPLE_SITEMAPS: 1, DUPLICATE_IN_SITEMAP: 1 });
  assert.deepEqual(badges(SM2), { SITEMAP_URL_REDIRECT: 1, REDIRECT_CHAIN: 1, SITEMAP_ORPHAN: 2, URL_IN_MULTIPLE_SITEMAPS: 1 });
  // A link reaches /ok and the 404 is mended: both sitemaps' badges follow.
  e.discovered(s.idOf(u('/ok')), { source: 'link', from: u('/') });
  e.result(s.idOf(u('/gone')), 'done', html);
  assert.deepEqual(badges(SM), { SITEMAP_ORPHAN: 2, URL_IN_MULTIPLE_SITEMAPS: 1, DUPLICATE_IN_SITEMAP: 1 });
  assert.deepEqual(badges(SM2), { SITEMAP_URL_REDIRECT: 1, REDIRECT_CHAIN: 1, SITEMAP_ORPHAN: 1, URL_IN_MULTIPLE_SITEMAPS: 1 });
  // The same events in another order (results before listings) give the same badges.
  const resultsFirst = [
    ...s.events.filter((x) => x.kind === 'admit'),
    ...s.events.filter((x) => x.kind === 'result'),
    ...s.events.filter((x) => x.kind !== 'admit' && x.kind !== 'result'),
  ];
  const r = run(resultsFirst);
  assert.deepEqual(
    Object.fromEntries(
      r
        .sitemapBadges(SM)
        .filter((b) => !PAGE_CODES.has(b.code))
        .map((b) => [b.code, b.count]),
    ),
    {
      SITEMAP_URL_4XX: 1,
      SITEMAP_ORPHAN: 3,
      URL_IN_MULTIPLE_SITEMAPS: 1,
      DUPLICATE_IN_SITEMAP: 1,
    },
  );
});

test('sitemap findings read the codes a node only counts (past the problems it stores) too', () => {
  const e = new AuditEngine({ crawlUrl: `${O}/`, pagesCrawled: true, now: () => NOW });
  // 100 problems stored, then a size limit the node only counted.
  const problems = Array.from({ length: 100 }, () => ({ code: 'INVALID_PRIORITY', message: '' }));
  e.node(makeNode({ url: `${O}/full.xml`, state: 'error', problems, problemCounts: { INVALID_PRIORITY: 300, INFLATE_LIMIT: 1 } }));
  assert.deepEqual(e.urlsOf('SITEMAP_TOO_LARGE'), [`${O}/full.xml`]);
});

// ---------------------------------------------------------------- repeated listings

/** Everything an audit answers: each finding's count and members, each sitemap's badges, each URL's codes. */
function answers(e: AuditEngine, sitemaps: string[], urls: number): unknown {
  return {
    findings: e.findings().map((f) => [f.code, f.measured, f.count, e.urlsOf(f.code)]),
    badges: sitemaps.map((sm) => [sm, e.sitemapBadges(sm)]),
    codes: Array.from({ length: urls }, (_, id) => e.codesOf(id)),
  };
}

test('a listing repeated n times in a row counts as n listings, given one by one or as one count', () => {
  const blog = `${O}/blog/sitemap.xml`;
  const moved = 'http://www.shop.test/moved-sitemap.xml';
  const bad = { lastmod: 'yesterday', alternates: [{ lang: 'xx-invalid-code', href: u('/de/p') }] };
  const repeats: [url: string, sitemap: string, entry: Omit<SitemapUrlEntry, 'loc'>, n: number][] = [
    [u('/blog/post'), blog, {}, 5], // in scope, listed again and again
    [u('/about'), blog, bad, 4], // out of scope of /blog/, a bad lastmod, a bad hreflang code
    ['https://other.test/x', blog, {}, 300], // another host: past the 255 the URL's own count holds
    ['http://shop.test/variant', SM, {}, 3], // a host variant
    [u('/blog/post'), SM2, {}, 3], // a second sitemap: its first listing is no duplicate, the rest are
    [u('/m1'), moved, {}, 6], // out of scope until the node's final URL (https) is known
    ['https://other.test/m2', moved, {}, 7], // out of scope whatever the final URL
  ];
  const sitemaps = [SM, SM2, blog, moved];
  const one = new Script();
  const counted: Event[] = [];
  // The same listings one by one (`one`), and as the first of each run then the rest as one count (`counted`).
  for (const [url, sitemap, extra, n] of repeats) {
    const first = one.events.length;
    for (let i = 0; i < n; i++) one.list(url, sitemap, extra);
    const head = one.events[first]!;
    const again = one.events[first + 1] as Extract<Event, { kind: 'dup' }>;
    counted.push(head, { ...again, times: n - 1 } as Event);
  }
  const node = makeNode({ url: moved, state: 'done', finalUrl: `${O}/moved-sitemap.xml` });
  one.events.push({ kind: 'node', node });
  counted.push({ kind: 'node', node });

  const feedCounted = (engine: AuditEngine) => {
    for (const e of counted as (Event & { times?: number })[]) {
      if (e.kind === 'dup' && e.times !== undefined) {
        if (e.times > 0) engine.discovered(e.id, { source: e.source, from: e.from! }, e.entry, e.times);
      } else feed(engine, [e]);
    }
    return engine;
  };
  const mk = () => new AuditEngine({ crawlUrl: `${O}/`, pagesCrawled: true, now: () => NOW });
  const single = feed(mk(), one.events);
  const many = feedCounted(mk());
  assert.deepEqual(answers(many, sitemaps, 6), answers(single, sitemaps, 6));
  const badges = (e: AuditEngine, sm: string) => Object.fromEntries(listingBadges(e, sm).map((b) => [b.code, b.count]));
  assert.deepEqual(badges(many, blog), {
    DUPLICATE_IN_SITEMAP: 4 + 3 + 299,
    SITEMAP_URL_OUT_OF_SCOPE: 4 + 300,
    SITEMAP_INVALID_LASTMOD: 4,
    HREFLANG_INVALID_CODE: 4,
  });
  assert.deepEqual(badges(many, moved), { DUPLICATE_IN_SITEMAP: 5 + 6, SITEMAP_URL_OUT_OF_SCOPE: 7 });
  assert.deepEqual(badges(many, SM2), { DUPLICATE_IN_SITEMAP: 2 });
  assert.equal(many.finding('DUPLICATE_IN_SITEMAP').count, 6);
  assert.throws(() => many.discovered(0, { source: 'sitemap', from: SM }, { loc: u('/blog/post') }, 0), /INVALID_COUNT|count/);
});

test('a sitemap still being read that lists one URL out of scope 100,000 times holds one entry for them, not 100,000', () => {
  const e = new AuditEngine({ crawlUrl: `${O}/`, pagesCrawled: false, now: () => NOW });
  const sm = `${O}/blog/sitemap.xml`;
  e.node(makeNode({ url: sm, state: 'fetching' }));
  e.admitted(0, 'https://other.test/x', 'sitemap', { loc: 'https://other.test/x' }, sm);
  for (let i = 1; i < 100_000; i++) e.discovered(0, { source: 'sitemap', from: sm }, { loc: 'https://other.test/x' });
  // Fragments are no part of scope (nor of the URL's key): a sitemap varying them holds no more.
  for (let i = 0; i < 1000; i++) e.discovered(0, { source: 'sitemap', from: sm }, { loc: `https://other.test/x#${i}` });
  // Another URL out of scope, and one that is in scope once the final URL is known.
  e.admitted(1, u('/about'), 'sitemap', { loc: u('/about') }, sm);
  for (let i = 0; i < 1000; i++) e.discovered(1, { source: 'sitemap', from: sm }, { loc: u('/about') });
  assert.equal(e.heldListings(), 2);
  assert.deepEqual(listingBadges(e, sm), [
    { code: 'SITEMAP_URL_OUT_OF_SCOPE', count: 101_000 + 1001 },
    { code: 'DUPLICATE_IN_SITEMAP', count: 100_999 + 1000 },
  ]);
  // The sitemap answered from the root after a redirect: /about is in its scope after all.
  e.node(makeNode({ url: sm, state: 'done', finalUrl: `${O}/sitemap.xml` }));
  assert.equal(e.heldListings(), 0);
  assert.deepEqual(listingBadges(e, sm), [
    { code: 'SITEMAP_URL_OUT_OF_SCOPE', count: 101_000 },
    { code: 'DUPLICATE_IN_SITEMAP', count: 100_999 + 1000 },
  ]);
  assert.deepEqual(e.urlsOf('SITEMAP_URL_OUT_OF_SCOPE'), [0]);
});
