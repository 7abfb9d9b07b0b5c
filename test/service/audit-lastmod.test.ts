/**
 * "Is lastmod true?" (issue 23) in AuditEngine, driven by hand-written event sequences: the date
 * comparison (time zones, date-only lastmods, unparseable dates), LASTMOD_AFTER_LAST_MODIFIED,
 * LASTMOD_FAKE_FRESH and LASTMOD_STALE against a previous crawl's facts, SITEMAP_UNIFORM_LASTMOD,
 * each sitemap's lastmodTrust, and the same answers in any order of the events.
 */
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { AuditEngine, UNIFORM_LASTMOD_MIN, laterLastmod } from '../../electron/service/audit/engine.js';
import { httpDateMs } from '../../electron/service/audit/entry-checks.js';
import { withBadges, findingsOf } from '../../electron/service/audit/crawl-audit.js';
import type { PreviousCrawlLookup, PreviousUrlFacts } from '../../electron/service/audit/types.js';
import { PreviousFacts } from '../../electron/service/audit/previous-facts.js';
import { mainTextHash } from '../../electron/engine/links/links.js';
import type { ResultFacts } from '../../electron/engine/types.js';
import type { CrawlSettings, RequestSource, SitemapNode, SitemapUrlEntry, UrlResult } from '../../shared/model.js';

const O = 'https://www.shop.test';
const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const SM = `${O}/sitemap.xml`;
const SM2 = `${O}/sitemap-2.xml`;
const HTML: UrlResult = { status: 200, contentType: 'text/html; charset=utf-8', title: 'T' };
const H1 = 'A'.repeat(43);
const H2 = 'B'.repeat(43);
const CODES = ['LASTMOD_AFTER_LAST_MODIFIED', 'LASTMOD_FAKE_FRESH', 'LASTMOD_STALE', 'SITEMAP_UNIFORM_LASTMOD'] as const;

type Event =
  | { kind: 'admit'; id: number; url: string; source: RequestSource; entry?: SitemapUrlEntry; from?: string }
  | { kind: 'dup'; id: number; source: RequestSource; from?: string; entry?: SitemapUrlEntry; times?: number }
  | { kind: 'result'; id: number; state: 'done' | 'error' | 'blocked'; r: UrlResult; facts?: ResultFacts }
  | { kind: 'node'; node: SitemapNode };

class Script {
  readonly events: Event[] = [];
  readonly ids = new Map<string, number>();
  list(path: string, sitemap: string, lastmod?: string, times = 1): number {
    const url = O + path;
    const entry: SitemapUrlEntry = lastmod === undefined ? { loc: url } : { loc: url, lastmod };
    const known = this.ids.get(url);
    if (known !== undefined) {
      this.events.push({ kind: 'dup', id: known, source: 'sitemap', from: sitemap, entry, times });
      return known;
    }
    const id = this.ids.size;
    this.ids.set(url, id);
    this.events.push({ kind: 'admit', id, url, source: 'sitemap', entry, from: sitemap });
    if (times > 1) this.events.push({ kind: 'dup', id, source: 'sitemap', from: sitemap, entry, times: times - 1 });
    return id;
  }
  result(path: string, facts?: ResultFacts, r: UrlResult = HTML, state: 'done' | 'error' | 'blocked' = 'done'): void {
    this.events.push({ kind: 'result', id: this.ids.get(O + path)!, state, r, facts });
  }
  node(url: string, urlCount: number): void {
    this.events.push({ kind: 'node', node: node(url, urlCount) });
  }
}

function node(url: string, urlCount = 1): SitemapNode {
  return {
    id: url,
    url,
    parentId: null,
    type: 'urlset',
    state: 'done',
    httpStatus: 200,
    bytes: 100,
    uncompressedBytes: 100,
    gzip: false,
    urlCount,
    childCount: 0,
    problems: [],
  };
}

function feed(events: readonly Event[], previous?: PreviousCrawlLookup, pages = true): AuditEngine {
  const e = new AuditEngine({ crawlUrl: `${O}/`, pagesCrawled: pages, now: () => NOW, previous });
  for (const ev of events) {
    if (ev.kind === 'admit') e.admitted(ev.id, ev.url, ev.source, ev.entry, ev.from);
    else if (ev.kind === 'dup') e.discovered(ev.id, { source: ev.source, from: ev.from }, ev.entry, ev.times);
    else if (ev.kind === 'result') e.result(ev.id, ev.state, ev.r, ev.facts);
    else e.node(ev.node);
  }
  return e;
}

/** What the lastmod audit says: each code's count and members (paths), each sitemap's trust and lastmod badges. */
function verdicts(e: AuditEngine, urls: Map<string, number>, sitemaps: string[]) {
  const pathOf = new Map([...urls].map(([u, id]) => [id, u.slice(O.length)]));
  const out: Record<string, unknown> = {};
  for (const code of CODES) {
    const f = e.finding(code);
    const members = e.urlsOf(code);
    out[code] = { measured: f.measured, count: f.count, members: f.subject === 'url' ? (members as number[]).map((id) => pathOf.get(id)) : members };
  }
  for (const s of sitemaps) {
    out[s] = { trust: e.lastmodTrust(s), badges: e.sitemapBadges(s).filter((b) => (CODES as readonly string[]).includes(b.code)) };
  }
  for (const [u, id] of urls) out[u] = e.codesOf(id).filter((c) => (CODES as readonly string[]).includes(c));
  return out;
}

/** A random order of the events in which each URL's admission still comes first (a seeded shuffle). */
function shuffled(events: readonly Event[], seed: number): Event[] {
  let x = seed;
  const rand = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const rest = events.filter((e) => e.kind !== 'admit');
  for (let i = rest.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [rest[i], rest[j]] = [rest[j]!, rest[i]!];
  }
  const out: Event[] = [];
  const admitted = new Set<number>();
  const admits = new Map(events.filter((e) => e.kind === 'admit').map((e) => [(e as { id: number }).id, e]));
  for (const e of rest) {
    if (e.kind !== 'node' && !admitted.has(e.id)) {
      admitted.add(e.id);
      out.push(admits.get(e.id)!);
    }
    out.push(e);
  }
  for (const [id, a] of admits) if (!admitted.has(id)) out.push(a);
  return out;
}

function assertAnyOrder(events: readonly Event[], urls: Map<string, number>, sitemaps: string[], previous?: PreviousCrawlLookup): void {
  const expected = verdicts(feed(events, previous), urls, sitemaps);
  for (let seed = 1; seed <= 25; seed++) {
    assert.deepEqual(verdicts(feed(shuffled(events, seed), previous), urls, sitemaps), expected, `order ${seed}`);
  }
  // Replayed twice over (a second pass of the same events changes nothing).
  assert.deepEqual(verdicts(feed([...events, ...events.filter((e) => e.kind === 'result' || e.kind === 'node')], previous), urls, sitemaps), expected);
}

describe('HTTP dates (Last-Modified)', () => {
  it('reads IMF-fixdate and the two obsolete forms as the same instant', () => {
    const t = Date.UTC(1994, 10, 6, 8, 49, 37);
    assert.equal(httpDateMs('Sun, 06 Nov 1994 08:49:37 GMT'), t);
    assert.equal(httpDateMs('Sunday, 06-Nov-94 08:49:37 GMT', NOW), t);
    assert.equal(httpDateMs('Sun Nov  6 08:49:37 1994'), t);
    assert.equal(httpDateMs('Thu, 29 Feb 2024 23:59:59 GMT'), Date.UTC(2024, 1, 29, 23, 59, 59));
  });
  it('a two-digit year more than 50 years ahead is the century before', () => {
    assert.equal(httpDateMs('Friday, 01-Mar-24 00:00:00 GMT', NOW), Date.UTC(2024, 2, 1));
    assert.equal(httpDateMs('Tuesday, 01-Mar-77 00:00:00 GMT', NOW), Date.UTC(1977, 2, 1));
  });
  it('anything else is NaN: other zones and formats, wrong weekday, impossible dates, joined repeats', () => {
    for (const bad of [
      'yesterday',
      '2024-03-01T00:00:00Z',
      'Fri, 01 Mar 2024 00:00:00 +0000',
      'Fri, 01 Mar 2024 00:00:00 UTC',
      'Mon, 01 Mar 2024 00:00:00 GMT', // 1 March 2024 was a Friday
      'Sat, 31 Feb 2024 00:00:00 GMT',
      'Fri, 01 Mar 2024 24:00:00 GMT',
      'fri, 01 mar 2024 00:00:00 GMT',
      'Fri, 1 Mar 2024 00:00:00 GMT',
      'Fri, 01 Mar 2024 00:00:00 GMT, Sat, 02 Mar 2024 00:00:00 GMT',
      '',
    ]) {
      assert.ok(Number.isNaN(httpDateMs(bad, NOW)), bad);
    }
  });
  it('laterLastmod keeps the latest valid lastmod, as written', () => {
    assert.equal(laterLastmod('2024-01-01', '2024-03-01T00:00:00+01:00'), '2024-03-01T00:00:00+01:00');
    assert.equal(laterLastmod('2024-03-02', '2024-03-01T23:00:00-05:00'), '2024-03-01T23:00:00-05:00', 'later once in UTC');
    assert.equal(laterLastmod('2024-03-01', 'soon'), '2024-03-01');
    assert.equal(laterLastmod(undefined, '2024-03-01'), '2024-03-01');
    assert.equal(laterLastmod(undefined, undefined), undefined);
  });
});

/** The single-crawl script: lastmods against Last-Modified headers. */
function headerScript(): Script {
  const s = new Script();
  const lm = (path: string, lastmod: string, header?: string) => {
    s.list(path, SM, lastmod);
    s.result(path, header === undefined ? { wordCount: 3 } : { lastModified: header });
  };
  lm('/a', '2024-03-05', 'Fri, 01 Mar 2024 00:00:00 GMT'); // 4 days after: in
  lm('/b', '2024-03-02T10:00:00+00:00', 'Fri, 01 Mar 2024 12:00:00 GMT'); // 22 h: agrees
  lm('/tz', '2024-03-03T00:30:00+02:00', 'Fri, 01 Mar 2024 23:00:00 GMT'); // 23.5 h in UTC (25.5 read naively): agrees
  lm('/tz2', '2024-03-01T20:00:00-05:00', 'Fri, 01 Mar 2024 00:00:00 GMT'); // 25 h in UTC (20 read naively): in
  lm('/day', '2024-03-03', 'Sat, 02 Mar 2024 00:00:00 GMT'); // date-only = midnight UTC: exactly 24 h, not more
  lm('/day2', '2024-03-03', 'Fri, 01 Mar 2024 23:59:59 GMT'); // 24 h 1 s: in
  lm('/before', '2024-01-01', 'Sat, 01 Jun 2024 00:00:00 GMT'); // earlier: agrees
  lm('/rfc850', '2024-03-05', 'Friday, 01-Mar-24 00:00:00 GMT'); // in
  lm('/asctime', '2024-03-05', 'Fri Mar  1 00:00:00 2024'); // in
  lm('/bad-header', '2024-03-05', 'yesterday'); // no evidence
  lm('/weekday', '2024-03-05', 'Mon, 01 Mar 2024 00:00:00 GMT'); // no evidence
  lm('/bad-lastmod', '2024-13-05', 'Fri, 01 Mar 2024 00:00:00 GMT'); // no lastmod to judge
  lm('/no-header', '2024-03-05'); // no evidence
  s.list('/no-lastmod', SM);
  s.result('/no-lastmod', { lastModified: 'Fri, 01 Mar 2024 00:00:00 GMT' });
  s.list('/gone', SM, '2024-03-05');
  s.result('/gone', { lastModified: 'Fri, 01 Mar 2024 00:00:00 GMT' }, { status: 404, contentType: 'text/html' }); // not the page's content
  // Two sitemaps: the latest lastmod of its listings counts, and it counts in both.
  s.list('/twice', SM, '2024-03-01');
  s.list('/twice', SM2, '2024-03-05');
  s.result('/twice', { lastModified: 'Fri, 01 Mar 2024 00:00:00 GMT' });
  s.list('/agree-2', SM2, '2024-02-01');
  s.result('/agree-2', { lastModified: 'Thu, 01 Feb 2024 00:00:00 GMT' });
  s.node(SM, 16);
  s.node(SM2, 2);
  return s;
}

test('LASTMOD_AFTER_LAST_MODIFIED: more than 24 h after Last-Modified, both read with their zones; no verdict without evidence', () => {
  const s = headerScript();
  const e = feed(s.events);
  const v = verdicts(e, s.ids, [SM, SM2]);
  assert.deepEqual(v.LASTMOD_AFTER_LAST_MODIFIED, {
    measured: true,
    count: 6,
    members: ['/a', '/tz2', '/day2', '/rfc850', '/asctime', '/twice'].concat([]).sort((x, y) => s.ids.get(O + x)! - s.ids.get(O + y)!),
  });
  // judged: a b tz tz2 day day2 before rfc850 asctime twice = 10, of which 6 disagree.
  assert.deepEqual(v[SM], { trust: { agree: 4, judged: 10 }, badges: [{ code: 'LASTMOD_AFTER_LAST_MODIFIED', count: 6 }] });
  assert.deepEqual(v[SM2], { trust: { agree: 1, judged: 2 }, badges: [{ code: 'LASTMOD_AFTER_LAST_MODIFIED', count: 1 }] });
  assert.deepEqual(v[O + '/a'], ['LASTMOD_AFTER_LAST_MODIFIED']);
  assert.deepEqual(v[O + '/b'], []);
  assert.ok(e.has('LASTMOD_AFTER_LAST_MODIFIED', s.ids.get(O + '/tz2')!));
  assert.ok(!e.has('LASTMOD_AFTER_LAST_MODIFIED', s.ids.get(O + '/tz')!));
  // Without a previous crawl the two cross-crawl findings are not measured, with the reason.
  assert.deepEqual(v.LASTMOD_FAKE_FRESH, { measured: false, count: 0, members: [] });
  assert.deepEqual(v.LASTMOD_STALE, { measured: false, count: 0, members: [] });
  const reasons = new Map(findingsOf(e, { fetchPages: true, sitemapUrls: [] } as unknown as CrawlSettings).map((f) => [f.code, f.notMeasuredReason]));
  assert.match(reasons.get('LASTMOD_FAKE_FRESH')!, /needs a previous crawl: use Crawl again/i);
  assert.match(reasons.get('LASTMOD_STALE')!, /needs a previous crawl: use Crawl again/i);
  // The service's tree node carries the trust figure; a node judged by nothing has none.
  assert.deepEqual(withBadges(e, node(SM, 16)).lastmodTrust, { agree: 4, judged: 10 });
  assert.equal(withBadges(e, { ...node(`${O}/other.xml`), lastmodTrust: { agree: 1, judged: 1 } }).lastmodTrust, undefined);
});

test('the members and count above are those of the list written out (not derived from the engine)', () => {
  const s = headerScript();
  const e = feed(s.events);
  const paths = (e.urlsOf('LASTMOD_AFTER_LAST_MODIFIED') as number[]).map((id) => [...s.ids].find(([, i]) => i === id)![0].slice(O.length)).sort();
  assert.deepEqual(paths, ['/a', '/asctime', '/day2', '/rfc850', '/twice', '/tz2']);
  assert.equal(e.finding('LASTMOD_AFTER_LAST_MODIFIED').count, 6);
});

test('LASTMOD_AFTER_LAST_MODIFIED in any order of listings, results and nodes, and the latest result wins', () => {
  const s = headerScript();
  assertAnyOrder(s.events, s.ids, [SM, SM2]);
  // A later result without the header takes the evidence away; one with a later header makes it agree.
  s.result('/a', { wordCount: 1 });
  s.result('/tz2', { lastModified: 'Sat, 02 Mar 2024 12:00:00 GMT' });
  const e = feed(s.events);
  assert.equal(e.finding('LASTMOD_AFTER_LAST_MODIFIED').count, 4);
  // /a is no longer judged, /tz2 agrees now: 9 judged, 4 disagreeing.
  assert.deepEqual(e.lastmodTrust(SM), { agree: 5, judged: 9 });
});

test('a listing run (no pages) measures no lastmod evidence and gives no trust figure', () => {
  const s = headerScript();
  const e = feed(s.events, undefined, false);
  assert.equal(e.finding('LASTMOD_AFTER_LAST_MODIFIED').measured, false);
  assert.equal(e.lastmodTrust(SM), undefined);
});

/** Two crawls: the previous one's facts, and this crawl's listings and results. */
function recrawlScript(): { s: Script; previous: Map<string, PreviousUrlFacts> } {
  const s = new Script();
  const previous = new Map<string, PreviousUrlFacts>();
  const page = (path: string, before: PreviousUrlFacts | undefined, lastmod: string | undefined, hash: string | undefined, sitemap = SM) => {
    if (before) previous.set(O + path, before);
    s.list(path, sitemap, lastmod);
    s.result(path, hash === undefined ? { wordCount: 1 } : { contentHash: hash });
  };
  page('/fresh', { lastmod: '2024-01-01', contentHash: H1 }, '2024-06-01', H1); // moved, same content: fake fresh
  page('/stale', { lastmod: '2024-01-01', contentHash: H1 }, '2024-01-01T00:00:00Z', H2); // same instant, new content: stale
  page('/changed', { lastmod: '2024-01-01', contentHash: H1 }, '2024-06-01', H2); // agrees
  page('/same', { lastmod: '2024-01-01', contentHash: H1 }, '2024-01-01', H1); // agrees
  page('/new', undefined, '2024-06-01', H1); // not in the previous crawl
  page('/prev-bad', { lastmod: 'soon', contentHash: H1 }, '2024-06-01', H1); // no previous lastmod to compare
  page('/prev-none', { contentHash: H1 }, '2024-06-01', H1);
  page('/no-hash', { lastmod: '2024-01-01', contentHash: H1 }, '2024-06-01', undefined); // no content hash now
  page('/prev-no-hash', { lastmod: '2024-01-01' }, '2024-01-01', H2);
  page('/no-lastmod', { lastmod: '2024-01-01', contentHash: H1 }, undefined, H2);
  // Listed twice: the latest of its lastmods is weighed (the earlier listing equals the previous one).
  page('/twice', { lastmod: '2024-06-01', contentHash: H1 }, '2024-01-01', H2, SM2);
  s.list('/twice', SM2, '2024-06-01');
  s.node(SM, 10);
  s.node(SM2, 2);
  return { s, previous };
}

test('LASTMOD_FAKE_FRESH and LASTMOD_STALE against the previous crawl, with the trust figure', () => {
  const { s, previous } = recrawlScript();
  const lookup = (key: string) => previous.get(key);
  const e = feed(s.events, lookup);
  const v = verdicts(e, s.ids, [SM, SM2]);
  assert.deepEqual(v.LASTMOD_FAKE_FRESH, { measured: true, count: 1, members: ['/fresh'] });
  assert.deepEqual(v.LASTMOD_STALE, { measured: true, count: 2, members: ['/stale', '/twice'] });
  assert.deepEqual(v[SM], {
    trust: { agree: 2, judged: 4 },
    badges: [
      { code: 'LASTMOD_FAKE_FRESH', count: 1 },
      { code: 'LASTMOD_STALE', count: 1 },
    ],
  });
  assert.deepEqual(v[SM2], { trust: { agree: 0, judged: 1 }, badges: [{ code: 'LASTMOD_STALE', count: 1 }] });
  assert.deepEqual(v[O + '/stale'], ['LASTMOD_STALE']);
  assert.deepEqual(v[O + '/changed'], []);
  assert.deepEqual(v[O + '/fresh'], ['LASTMOD_FAKE_FRESH']);
  assertAnyOrder(s.events, s.ids, [SM, SM2], lookup);
});

test('a newer result moves a URL in or out of the cross-crawl findings; the counts follow', () => {
  const { s, previous } = recrawlScript();
  s.result('/stale', { contentHash: H1 }); // fetched again: the content is the previous one after all
  s.result('/same', { contentHash: H2 }); // now changed without lastmod moving
  const e = feed(s.events, (k) => previous.get(k));
  assert.deepEqual(
    (e.urlsOf('LASTMOD_STALE') as number[]).map((id) => [...s.ids].find(([, i]) => i === id)![0].slice(O.length)),
    ['/same', '/twice'],
  );
  assert.deepEqual(e.lastmodTrust(SM), { agree: 2, judged: 4 });
  // An error result has no content: the URL is no longer judged.
  s.result('/fresh', undefined, { error: { code: 'ECONNRESET', message: 'reset' } }, 'error');
  const e2 = feed(s.events, (k) => previous.get(k));
  assert.equal(e2.finding('LASTMOD_FAKE_FRESH').count, 0);
  assert.deepEqual(e2.lastmodTrust(SM), { agree: 2, judged: 3 });
});

test('SITEMAP_UNIFORM_LASTMOD: every entry (at least five) with one instant, in any order', () => {
  const s = new Script();
  const U1 = `${O}/uniform.xml`;
  const U2 = `${O}/one-missing.xml`;
  const U3 = `${O}/four.xml`;
  const U4 = `${O}/one-differs.xml`;
  for (let i = 0; i < 6; i++) s.list(`/u/${i}`, U1, i === 3 ? '2024-06-01' : '2024-06-01T00:00:00Z'); // one instant, two spellings
  for (let i = 0; i < 5; i++) s.list(`/m/${i}`, U2, i === 4 ? undefined : '2024-06-01');
  for (let i = 0; i < UNIFORM_LASTMOD_MIN - 1; i++) s.list(`/f/${i}`, U3, '2024-06-01');
  for (let i = 0; i < 5; i++) s.list(`/d/${i}`, U4, i === 0 ? '2024-06-02' : '2024-06-01');
  for (const [u, n] of [
    [U1, 6],
    [U2, 5],
    [U3, 4],
    [U4, 5],
  ] as const)
    s.node(u, n);
  const e = feed(s.events);
  assert.deepEqual(e.urlsOf('SITEMAP_UNIFORM_LASTMOD'), [U1]);
  assert.equal(e.finding('SITEMAP_UNIFORM_LASTMOD').count, 1);
  assert.ok(e.sitemapBadges(U1).some((b) => b.code === 'SITEMAP_UNIFORM_LASTMOD'));
  assertAnyOrder(s.events, s.ids, [U1, U2, U3, U4]);
  // A listing with another lastmod, read later, ends it.
  s.list('/u/extra', U1, '2023-01-01');
  assert.equal(feed(s.events).finding('SITEMAP_UNIFORM_LASTMOD').count, 0);
  // Repeats count as entries (a DUPS record of n listings counts n).
  const r = new Script();
  for (let i = 0; i < 3; i++) r.list(`/r/${i}`, U1, '2024-06-01', i === 0 ? 3 : 1);
  assert.equal(feed(r.events).finding('SITEMAP_UNIFORM_LASTMOD').count, 1);
});

describe('PreviousFacts: the base crawl as the audit looks it up', () => {
  const keys = ['https://www.shop.test/a', 'https://www.shop.test/b', 'https://www.shop.test/c', 'https://www.shop.test/d'];
  const ids = new Map(keys.map((k, i) => [k, i]));
  it('keeps the latest valid lastmod of the listings in any order, and the hash of the latest 2xx result', () => {
    const make = (order: number[]) => {
      const f = new PreviousFacts((k) => ids.get(k));
      const listings: [number, string | undefined][] = [
        [0, '2024-01-01'],
        [0, '2024-03-01T00:00:00+01:00'],
        [0, 'soon'],
        [1, undefined],
        [2, '2024-02-01'],
      ];
      for (const i of order) f.listing(...listings[i]!);
      f.result(0, 'done', 200, H1);
      f.result(1, 'done', 200, H1);
      f.result(1, 'done', 404, H2); // latest: not the page's content
      f.result(2, 'error', undefined, undefined);
      f.result(3, 'done', 200, 'not-a-hash');
      return f;
    };
    for (const order of [
      [0, 1, 2, 3, 4],
      [4, 2, 1, 0, 3],
      [2, 1, 4, 3, 0],
    ]) {
      const f = make(order);
      assert.deepEqual(f.lookup(keys[0]!), { lastmodMs: Date.UTC(2024, 1, 29, 23), contentHash: H1 });
      assert.equal(f.lookup(keys[1]!), undefined);
      assert.deepEqual(f.lookup(keys[2]!), { lastmodMs: Date.UTC(2024, 1, 1) });
      assert.equal(f.lookup(keys[3]!), undefined);
      assert.equal(f.lookup('https://www.shop.test/unknown'), undefined);
    }
    // A real SHA-256 round-trips through its 32 bytes.
    const f = new PreviousFacts((k) => ids.get(k));
    const hash = mainTextHash('Tomatoes need sun.');
    f.result(2, 'done', 200, hash);
    assert.equal(f.lookup(keys[2]!)!.contentHash, hash);
    assert.ok(f.allocatedBytes() >= 41 * 4);
  });

  it('is what the audit takes as its previous crawl: lastmodMs compared as an instant', () => {
    const s = new Script();
    s.list('/x', SM, '2024-03-01T00:00:00+01:00');
    s.result('/x', { contentHash: H1 });
    s.list('/y', SM, '2024-06-01');
    s.result('/y', { contentHash: H1 });
    const f = new PreviousFacts((k) => (k === `${O}/x` ? 0 : k === `${O}/y` ? 1 : undefined));
    f.listing(0, '2024-02-29T23:00:00Z');
    f.result(0, 'done', 200, H2);
    f.listing(1, '2024-01-01');
    f.result(1, 'done', 200, H1);
    const e = feed(s.events, f.lookup);
    assert.deepEqual(e.urlsOf('LASTMOD_STALE'), [s.ids.get(`${O}/x`)]);
    assert.deepEqual(e.urlsOf('LASTMOD_FAKE_FRESH'), [s.ids.get(`${O}/y`)]);
  });
});

test('memory: one byte per URL of lastmod facts; the two Float64 columns only once lastmods and headers are seen', () => {
  const n = 20_000;
  const build = (withDates: boolean) => {
    const e = new AuditEngine({ crawlUrl: `${O}/`, pagesCrawled: true, now: () => NOW });
    for (let id = 0; id < n; id++) {
      const url = `${O}/p/${id}`;
      e.admitted(id, url, 'sitemap', withDates ? { loc: url, lastmod: '2024-03-05' } : { loc: url }, SM);
      e.result(id, 'done', HTML, withDates ? { lastModified: 'Fri, 01 Mar 2024 00:00:00 GMT' } : {});
    }
    return e;
  };
  const plain = build(false);
  const dated = build(true);
  const extra = dated.allocatedBytes() - plain.allocatedBytes();
  assert.ok(extra >= 16 * n && extra <= 16 * n * 1.25 + 16 * 1024, `${extra} B for ${n} URLs with dates`);
  assert.equal(dated.finding('LASTMOD_AFTER_LAST_MODIFIED').count, n);
  assert.deepEqual(dated.lastmodTrust(SM), { agree: 0, judged: n });
  assert.equal(plain.lastmodTrust(SM), undefined);
});
