/**
 * The page findings of the audit (issue 22): links to broken, redirecting and non-indexable URLs,
 * and the on-page fields of indexable pages; indexability(id) and pageFacts(id). Each finding in and
 * out, in any order of links and results, groups of duplicates following changed results.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuditEngine } from '../../electron/service/audit/engine.js';
import { indexabilityOf } from '../../electron/service/audit/indexability.js';
import { PAGE_FINDING_CODES, URL_FINDING_CODES } from '../../electron/service/audit/types.js';
import type { ResultFacts } from '../../electron/engine/index.js';
import type { RequestSource, UrlResult } from '../../shared/model.js';
import { Crawler } from '../../electron/engine/crawler/crawler.js';
import { startRealSite, type RealFindingCode } from '../fixtures/real-site/site.js';

const O = 'https://site.test';
const u = (p: string) => O + p;
const html: UrlResult = { status: 200, contentType: 'text/html; charset=utf-8', title: 'A title' };
const full: ResultFacts = { metaDescription: 'A description', metaDescriptionCount: 1, h1: 'A heading', h1Count: 1 };

type Event =
  | { kind: 'admit'; id: number; url: string; source: RequestSource; from?: string }
  | { kind: 'link'; id: number; from: string }
  | { kind: 'result'; id: number; state: 'done' | 'error' | 'blocked'; r: UrlResult; facts?: ResultFacts };

/** Events of a crawl: URLs admitted in first-seen order; a link or result of an unknown URL admits it first. */
class Script {
  readonly events: Event[] = [];
  readonly ids = new Map<string, number>();
  id(url: string, source: RequestSource = 'link', from?: string): number {
    let id = this.ids.get(url);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(url, id);
      this.events.push({ kind: 'admit', id, url, source, from });
    }
    return id;
  }
  start(path: string): void {
    this.id(u(path), 'start');
  }
  link(path: string, from = '/'): void {
    const known = this.ids.has(u(path));
    const id = this.id(u(path), 'link', u(from));
    if (known) this.events.push({ kind: 'link', id, from: u(from) });
  }
  listed(path: string): void {
    this.id(u(path), 'sitemap', u('/sitemap.xml'));
  }
  result(path: string, r: UrlResult, facts?: ResultFacts, state: 'done' | 'error' | 'blocked' = 'done'): void {
    this.events.push({ kind: 'result', id: this.id(u(path), 'sitemap', u('/sitemap.xml')), state, r, facts });
  }
}

function run(events: readonly Event[], opts: { pages?: boolean; links?: boolean } = {}): AuditEngine {
  const e = new AuditEngine({ crawlUrl: u('/'), pagesCrawled: opts.pages ?? true, linksFollowed: opts.links });
  // Admissions first keep ids valid whatever order the rest arrives in (as the frontier's ids are).
  for (const ev of events) if (ev.kind === 'admit') e.admitted(ev.id, ev.url, ev.source, undefined, ev.from);
  for (const ev of events) {
    if (ev.kind === 'link') e.discovered(ev.id, { source: 'link', from: ev.from });
    else if (ev.kind === 'result') e.result(ev.id, ev.state, ev.r, ev.facts);
  }
  return e;
}

/** A run where admissions come first and links/results in the order given (a shuffled copy of them). */
function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const out = [...xs];
  let x = seed;
  for (let i = out.length - 1; i > 0; i--) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Members of each page finding, as paths in urlsOf's order, and counts checked against them. */
function pageFindings(e: AuditEngine, s: Script): Record<string, string[]> {
  const paths = [...s.ids.keys()];
  const out: Record<string, string[]> = {};
  for (const code of PAGE_FINDING_CODES) {
    const f = e.finding(code);
    const ids = e.urlsOf(code) as number[];
    assert.equal(f.count, ids.length, `${code}: count = urlsOf`);
    for (const id of ids) assert.ok(e.has(code, id), `${code}: has(${id})`);
    if (ids.length > 0) out[code] = ids.map((id) => paths[id]!.slice(O.length));
  }
  return out;
}

function siteScript(): Script {
  const s = new Script();
  s.start('/');
  s.result('/', html, full);
  s.link('/gone');
  s.link('/gone', '/a'); // linked twice: one member
  s.result('/gone', { status: 404, contentType: 'text/html' });
  s.link('/down');
  s.result('/down', { status: 503 });
  s.link('/reset');
  s.result('/reset', { error: { code: 'ECONNRESET', message: 'reset' } }, undefined, 'error');
  s.listed('/unlinked-404'); // only listed: no page links to it
  s.result('/unlinked-404', { status: 404 });
  s.link('/moved');
  s.result('/moved', { status: 301, redirectTo: u('/a') });
  s.link('/a');
  s.result('/a', { ...html, title: 'Shared' }, { ...full, metaDescription: 'Same words' });
  s.link('/b');
  s.result('/b', { ...html, title: '  Shared  ' }, { ...full, metaDescription: 'Same words', h1Count: 2 });
  s.link('/noindex');
  s.result('/noindex', { ...html, title: undefined, metaRobots: 'noindex' }, { metaDescriptionCount: 0, h1Count: 0 });
  s.link('/canon');
  s.result('/canon', { ...html, title: 'Shared', canonical: u('/a') }, { ...full, metaDescription: 'Same words' });
  s.listed('/listed-noindex'); // non-indexable but not linked
  s.result('/listed-noindex', { ...html, metaRobots: 'noindex' }, full);
  s.link('/no-title');
  s.result('/no-title', { ...html, title: undefined }, { metaDescriptionCount: 0, h1Count: 0 });
  s.link('/empty');
  s.result('/empty', { ...html, title: '   ' }, { metaDescription: '', metaDescriptionCount: 1, h1: ' ', h1Count: 1 });
  s.link('/pdf');
  s.result('/pdf', { status: 200, contentType: 'application/pdf' });
  return s;
}

const EXPECTED: Record<string, string[]> = {
  BROKEN_INTERNAL_LINK: ['/gone', '/down', '/reset'],
  LINK_TO_REDIRECT: ['/moved'],
  LINKED_NON_INDEXABLE: ['/noindex', '/canon'],
  MISSING_TITLE: ['/no-title', '/empty'],
  DUPLICATE_TITLE: ['/a', '/b'],
  MISSING_META_DESCRIPTION: ['/no-title', '/empty'],
  DUPLICATE_META_DESCRIPTION: ['/a', '/b'],
  MISSING_H1: ['/no-title', '/empty'],
  MULTIPLE_H1: ['/b'],
};

test('each page finding holds exactly the planted URLs; noindex, canonicalised and non-HTML pages are not judged on their fields', () => {
  const s = siteScript();
  const e = run(s.events);
  assert.deepEqual(pageFindings(e, s), EXPECTED);
  for (const code of PAGE_FINDING_CODES) assert.equal(e.finding(code).measured, true, code);
  // MULTIPLE_H1 is the 32nd URL code: bit 31 of the mask (its sign bit).
  assert.equal(URL_FINDING_CODES.length, 32);
  assert.equal(URL_FINDING_CODES.indexOf('MULTIPLE_H1'), 31);
  const b = s.ids.get(u('/b'))!;
  assert.ok(e.codesOf(b).includes('MULTIPLE_H1'));
  assert.ok(e.has('MULTIPLE_H1', b));
});

test('order independence: a link before or after the result, results in any order, give the same findings', () => {
  const s = siteScript();
  const reference = pageFindings(run(s.events), s);
  for (let seed = 1; seed <= 30; seed++) assert.deepEqual(pageFindings(run(shuffled(s.events, seed)), s), reference, `seed ${seed}`);
});

test('rebuild equals live: a second engine fed the same events (in journal order by kind) ends with the same audit', () => {
  const s = siteScript();
  const live = run(s.events);
  // A replay reads admissions and discoveries, then results: links before every result.
  const byKind = [...s.events.filter((e) => e.kind !== 'result'), ...s.events.filter((e) => e.kind === 'result')];
  const rebuilt = run(byKind);
  const snap = (e: AuditEngine) => e.findings().map((f) => ({ ...f, urls: e.urlsOf(f.code) }));
  assert.deepEqual(snap(rebuilt), snap(live));
  for (let id = 0; id < s.ids.size; id++) {
    assert.deepEqual(rebuilt.indexability(id), live.indexability(id));
    assert.deepEqual(rebuilt.pageFacts(id), live.pageFacts(id));
  }
});

test('links only count when they are followed; a listing run measures no page finding', () => {
  const s = siteScript();
  const noLinks = run(s.events, { links: false });
  for (const code of ['BROKEN_INTERNAL_LINK', 'LINK_TO_REDIRECT', 'LINKED_NON_INDEXABLE']) {
    assert.equal(noLinks.finding(code).measured, false, code);
    assert.equal(noLinks.finding(code).count, 0, code);
  }
  assert.equal(noLinks.finding('MISSING_TITLE').count, 2);
  const listing = run(s.events, { pages: false });
  for (const code of PAGE_FINDING_CODES) {
    assert.equal(listing.finding(code).measured, false, code);
    assert.equal(listing.finding(code).count, 0, code);
    assert.deepEqual(listing.urlsOf(code), [], code);
  }
});

test('duplicate groups: urlsOf lists each group together, ids ascending, groups by first id; pages leave their old group', () => {
  const s = new Script();
  s.start('/');
  for (const p of ['/p0', '/p1', '/p2', '/p3', '/p4']) s.link(p);
  const e = run(s.events);
  const id = (p: string) => s.ids.get(u(p))!;
  const page = (p: string, title: string | undefined, desc = 'D ' + p) => e.result(id(p), 'done', { ...html, title }, { ...full, metaDescription: desc });
  page('/p4', 'Y');
  page('/p0', 'X');
  page('/p1', 'Y');
  page('/p3', 'X');
  page('/p2', 'X');
  // Groups: X = p0, p2, p3 (first id p0); Y = p1, p4.
  assert.deepEqual(e.urlsOf('DUPLICATE_TITLE'), [id('/p0'), id('/p2'), id('/p3'), id('/p1'), id('/p4')]);
  assert.equal(e.finding('DUPLICATE_TITLE').count, 5);
  assert.equal(e.finding('DUPLICATE_TITLE').groups, 2);
  // p1 changes its title (latest wins): Y leaves p4 alone; p1 joins X.
  page('/p1', 'X');
  assert.deepEqual(e.urlsOf('DUPLICATE_TITLE'), [id('/p0'), id('/p1'), id('/p2'), id('/p3')]);
  assert.equal(e.has('DUPLICATE_TITLE', id('/p4')), false);
  assert.equal(e.finding('DUPLICATE_TITLE').count, 4);
  assert.equal(e.finding('DUPLICATE_TITLE').groups, 1);
  // p0 and p2 become noindex (not judged), p3 loses its title: p1 is alone.
  e.result(id('/p0'), 'done', { ...html, title: 'X', metaRobots: 'noindex' }, full);
  e.result(id('/p2'), 'done', { ...html, title: 'X', canonical: u('/p1') }, full);
  page('/p3', '');
  assert.deepEqual(e.urlsOf('DUPLICATE_TITLE'), []);
  assert.equal(e.finding('DUPLICATE_TITLE').count, 0);
  assert.equal(e.finding('DUPLICATE_TITLE').groups, 0);
  assert.deepEqual(e.urlsOf('MISSING_TITLE'), [id('/p3')]);
  // The same result again leaves counts alone; a page re-joining its own text is counted once.
  page('/p4', 'X');
  page('/p4', 'X');
  assert.deepEqual(e.urlsOf('DUPLICATE_TITLE'), [id('/p1'), id('/p4')]);
  assert.equal(e.finding('DUPLICATE_TITLE').count, 2);
  // Meta descriptions: the same rule, text compared exactly (case matters, whitespace around does not).
  page('/p1', 'X', 'Same');
  page('/p4', 'X', ' Same ');
  page('/p3', '', 'same');
  assert.deepEqual(e.urlsOf('DUPLICATE_META_DESCRIPTION'), [id('/p1'), id('/p4')]);
  assert.equal(e.finding('DUPLICATE_META_DESCRIPTION').count, 2);
  // A page that becomes a 404 leaves its groups, and a linked 404 is a broken link.
  e.result(id('/p4'), 'done', { status: 404 });
  assert.deepEqual(e.urlsOf('DUPLICATE_TITLE'), []);
  assert.deepEqual(e.urlsOf('DUPLICATE_META_DESCRIPTION'), []);
  assert.deepEqual(e.urlsOf('BROKEN_INTERNAL_LINK'), [id('/p4')]);
  e.result(id('/p4'), 'done', { ...html, title: 'X' }, { ...full, metaDescription: 'Same' });
  assert.deepEqual(e.urlsOf('BROKEN_INTERNAL_LINK'), []);
  assert.deepEqual(e.urlsOf('DUPLICATE_TITLE'), [id('/p1'), id('/p4')]);
});

test('indexability(id) equals indexabilityOf for every kind of result; pageFacts only for fetched 2xx HTML pages', () => {
  const cases: Array<[string, 'done' | 'error' | 'blocked', UrlResult, ResultFacts | undefined]> = [
    ['/ok', 'done', html, full],
    ['/blocked', 'blocked', { blockedByRobots: true }, undefined],
    ['/err', 'error', { error: { code: 'TIMEOUT', message: 't' } }, undefined],
    ['/moved', 'done', { status: 301, redirectTo: u('/ok') }, undefined],
    ['/3xx', 'done', { status: 304 }, undefined],
    ['/404', 'done', { status: 404, contentType: 'text/html' }, { metaDescriptionCount: 0, h1Count: 0 }],
    ['/500', 'done', { status: 500 }, undefined],
    ['/999', 'done', { status: 999 }, undefined],
    ['/none', 'done', {}, undefined],
    ['/noindex', 'done', { ...html, metaRobots: 'NOINDEX, follow' }, full],
    ['/xrobots', 'done', { status: 200, contentType: 'application/pdf', xRobotsTag: 'googlebot: noindex' }, undefined],
    ['/pdf', 'done', { status: 200, contentType: 'application/pdf' }, undefined],
    ['/canon', 'done', { ...html, canonical: u('/ok') }, full],
    ['/self', 'done', { ...html, canonical: u('/self') }, { metaDescriptionCount: 2, h1Count: 0 }],
    ['/bad-canon', 'done', { ...html, canonical: 'http://[' }, { metaDescription: '  ', metaDescriptionCount: 1, h1: 'H', h1Count: 3 }],
  ];
  const e = new AuditEngine({ crawlUrl: u('/'), pagesCrawled: true });
  cases.forEach(([p], i) => e.admitted(i, u(p), 'link', undefined, u('/')));
  e.admitted(cases.length, u('/queued'), 'link', undefined, u('/'));
  assert.equal(e.indexability(cases.length), undefined, 'no result yet');
  assert.equal(e.pageFacts(cases.length), undefined);
  assert.equal(e.indexability(-1), undefined);
  assert.equal(e.indexability(10_000), undefined);
  const reasons = new Set<string>();
  cases.forEach(([p, state, r, facts], i) => {
    e.result(i, state, r, facts);
    const expected = indexabilityOf(state, r, u(p));
    assert.deepEqual(e.indexability(i), expected, p);
    reasons.add(expected.reason ?? 'indexable');
  });
  assert.equal(reasons.size, 9, 'every reason and indexable');
  const facts = (p: string) => e.pageFacts(cases.findIndex(([q]) => q === p));
  assert.deepEqual(facts('/ok'), { metaDescription: true, h1: true });
  assert.deepEqual(facts('/noindex'), { metaDescription: true, h1: true }, 'any indexability');
  assert.deepEqual(facts('/self'), { metaDescription: false, h1: false }, 'two empty descriptions, no H1');
  assert.deepEqual(facts('/bad-canon'), { metaDescription: false, h1: true }, 'blank description');
  for (const p of ['/404', '/pdf', '/moved', '/err', '/blocked', '/none']) assert.equal(facts(p), undefined, p);
  // A later result replaces the verdict.
  const ok = cases.findIndex(([q]) => q === '/ok');
  e.result(ok, 'done', { status: 410 });
  assert.deepEqual(e.indexability(ok), { indexability: 'non-indexable', reason: 'client-error' });
  assert.equal(e.pageFacts(ok), undefined);
});

test('on a crawl of the realistic site: indexability(id) = indexabilityOf on every URL (every reason appears), pageFacts and the page findings as expected', async () => {
  // The slow post answers after 1.5 s, over the 400 ms timeout: a fetch error; the feed is the non-HTML 200.
  const site = await startRealSite({ feed: true, slowMs: 1500 });
  try {
    const engine = new AuditEngine({ crawlUrl: site.url('/'), pagesCrawled: true });
    const urls: string[] = [];
    const keys: string[] = [];
    const latest: Array<{ state: 'done' | 'error' | 'blocked'; r: UrlResult; facts?: ResultFacts }> = [];
    const crawler = new Crawler({
      settings: {
        mode: 'spider',
        startUrl: site.url('/'),
        sitemapUrls: [],
        useSitemaps: true,
        fetchPages: true,
        followLinks: true,
        respectRobots: true,
        scope: 'host',
        include: [],
        exclude: [],
        maxDepth: null,
        maxUrls: null,
        concurrency: 6,
        perHostConcurrency: 6,
        delayMs: 0,
        userAgent: 'SpinneretAuditTest/1.0',
        timeoutMs: 400,
        idleTimeoutMs: 30_000,
        sitemapTimeoutMs: 600_000,
        connectTimeoutMs: 2000,
        retries: 0,
        maxBodyBytes: 4 * 1024 * 1024,
      },
      keepSitemap: (url) => url.startsWith(site.origin),
      hooks: {
        onAdmitted(req) {
          urls[req.id] = req.url;
          keys[req.id] = req.uniqueKey;
          engine.admitted(req.id, req.url, req.source, req.sitemapEntry, req.discoveredFrom, req.uniqueKey);
        },
        onDuplicate(id, d, init) {
          engine.discovered(id, d, init.sitemapEntry);
        },
        onResult(req, state, r, facts) {
          latest[req.id] = { state, r, facts };
          engine.result(req.id, state, r, facts);
        },
        onNode(node) {
          engine.node(node);
        },
      },
    });
    assert.equal(await crawler.run(), 'finished');
    const reasons = new Set<string>();
    const path = (u: string) => (u.startsWith(site.origin + '/') ? u.slice(site.origin.length) : u);
    for (let id = 0; id < urls.length; id++) {
      const l = latest[id];
      if (!l) {
        assert.equal(engine.indexability(id), undefined, urls[id]);
        continue;
      }
      const v = indexabilityOf(l.state, l.r, keys[id]!);
      assert.deepEqual(engine.indexability(id), v, urls[id]);
      reasons.add(v.reason ?? 'indexable');
      const f = site.expected.fields[path(urls[id]!)];
      const page = l.state === 'done' && v.reason !== 'not-html' && l.r.status! >= 200 && l.r.status! < 300;
      if (page && f) assert.deepEqual(engine.pageFacts(id), { metaDescription: !!f.metaDescription, h1: !!f.h1 }, urls[id]);
      else assert.equal(engine.pageFacts(id), undefined, urls[id]);
    }
    assert.deepEqual([...reasons].sort(), [
      'blocked-by-robots',
      'canonicalised',
      'client-error',
      'fetch-error',
      'indexable',
      'noindex',
      'not-html',
      'redirect',
      'server-error',
    ]);
    // The page findings but for the slow post (a fetch error here, which no page links to twice over: it is a broken link now).
    const slow = site.expected.slowPath;
    for (const code of PAGE_FINDING_CODES) {
      const got = (engine.urlsOf(code) as number[]).map((id) => path(urls[id]!)).sort();
      const want = site.expected.findings[code as RealFindingCode].filter((p) => p !== slow);
      if (code === 'BROKEN_INTERNAL_LINK') want.push(slow);
      assert.deepEqual(got, want.sort(), code);
      assert.equal(engine.finding(code).count, got.length, code);
    }
    // Six listings whose second page repeats the first's title; their descriptions too, and /de/shop/ shares /shop/'s.
    assert.equal(engine.finding('DUPLICATE_TITLE').groups, 6);
    assert.equal(engine.finding('DUPLICATE_META_DESCRIPTION').groups, 7);
  } finally {
    await site.close();
  }
});
