/**
 * The audit end to end: the real Crawler crawls the local audit site, its hooks feed AuditEngine live,
 * and every finding's count and members must equal what the site's data says — for a full crawl and
 * for a sitemap-listing run, where the findings that need page fetches are "not measured".
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawlSettings, RequestSource, SitemapNode, SitemapUrlEntry, UrlResult } from '../../shared/model.js';
import { Crawler } from '../../electron/engine/crawler/crawler.js';
import type { ResultFacts } from '../../electron/engine/types.js';
import { AuditEngine } from '../../electron/service/audit/engine.js';
import { PreviousFacts } from '../../electron/service/audit/previous-facts.js';
import {
  expectedAudit,
  expectedLastmodTrust,
  expectedUrlBadges,
  startAuditSite,
  type AuditCrawl,
  type AuditRun,
  type AuditSite,
} from '../fixtures/audit-site.js';
import { PAGE_FINDING_CODES, type PreviousCrawlLookup } from '../../electron/service/audit/types.js';

/** The audit site plants sitemap findings; the page findings are asserted on the realistic site (realistic-crawl.test.ts). */
const PAGE_CODES = new Set<string>(PAGE_FINDING_CODES);
/** Measured only in a recrawl (against the previous crawl). */
const CROSS_CRAWL = new Set(['LASTMOD_FAKE_FRESH', 'LASTMOD_STALE']);

function settings(startUrl: string, run: AuditRun): CrawlSettings {
  return {
    mode: 'spider',
    startUrl,
    sitemapUrls: [],
    useSitemaps: true,
    fetchPages: run === 'full',
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
    timeoutMs: 2000, // well under the site's SLOW_MS, well over what a local page needs on a busy machine
    idleTimeoutMs: 30_000,
    sitemapTimeoutMs: 600_000,
    connectTimeoutMs: 2000,
    retries: 0,
    maxBodyBytes: 4 * 1024 * 1024,
  };
}

type Recorded =
  | { kind: 'admit'; id: number; url: string; source: RequestSource; entry?: SitemapUrlEntry; from?: string }
  | { kind: 'dup'; id: number; d: { source: RequestSource; from?: string }; entry?: SitemapUrlEntry }
  | { kind: 'result'; id: number; state: 'done' | 'error' | 'blocked'; r: UrlResult; facts?: ResultFacts }
  | { kind: 'node'; node: SitemapNode };

interface AuditedCrawl {
  engine: AuditEngine;
  outcome: string;
  /** URL by id, as admitted. */
  urls: string[];
  events: Recorded[];
  /** uniqueKey by id, as admitted. */
  keys: string[];
  previous?: PreviousCrawlLookup;
}

async function auditCrawl(site: AuditSite, run: AuditRun, previous?: PreviousCrawlLookup): Promise<AuditedCrawl> {
  const engine = new AuditEngine({ crawlUrl: site.url('/'), pagesCrawled: run === 'full', previous });
  const urls: string[] = [];
  const keys: string[] = [];
  const events: Recorded[] = [];
  const crawler = new Crawler({
    settings: settings(site.url('/'), run),
    keepSitemap: (url) => url.startsWith(site.origin),
    hooks: {
      onAdmitted(req) {
        urls[req.id] = req.url;
        keys[req.id] = req.uniqueKey;
        engine.admitted(req.id, req.url, req.source, req.sitemapEntry, req.discoveredFrom, req.uniqueKey);
        events.push({ kind: 'admit', id: req.id, url: req.url, source: req.source, entry: req.sitemapEntry, from: req.discoveredFrom });
      },
      onDuplicate(id, d, init) {
        engine.discovered(id, d, init.sitemapEntry);
        events.push({ kind: 'dup', id, d, entry: init.sitemapEntry });
      },
      onResult(req, state, r, facts) {
        engine.result(req.id, state, r, facts);
        events.push({ kind: 'result', id: req.id, state, r, facts });
      },
      onNode(node) {
        engine.node(node);
        events.push({ kind: 'node', node });
      },
    },
  });
  const outcome = await crawler.run();
  return { engine, outcome, urls, events, keys, previous };
}

/**
 * What a recrawl's base index gives the audit, built from a crawl's events as the base index reads
 * its journal: PreviousFacts fed every listing and result, looked up by the first crawl's uniqueKeys.
 */
function previousOf(c: AuditedCrawl): PreviousCrawlLookup {
  const ids = new Map(c.keys.map((k, id) => [k, id]));
  const facts = new PreviousFacts((key) => ids.get(key));
  for (const e of c.events) {
    if (e.kind === 'admit' || e.kind === 'dup') facts.listing(e.id, e.entry?.lastmod);
    else if (e.kind === 'result') facts.result(e.id, e.state, e.r.status, e.facts?.contentHash);
  }
  return facts.lookup;
}

/** Each finding as { measured, count, urls } with URLs sorted, from the engine. */
function found(c: AuditedCrawl): Record<string, { measured: boolean; count: number; urls: string[] }> {
  const out: Record<string, { measured: boolean; count: number; urls: string[] }> = {};
  for (const f of c.engine.findings()) {
    const members = c.engine.urlsOf(f.code);
    const urls = f.subject === 'url' ? (members as number[]).map((id) => c.urls[id]!) : (members as string[]);
    out[f.code] = { measured: f.measured, count: f.count, urls: f.measured ? [...urls].sort() : [] };
  }
  return out;
}

function assertMatches(c: AuditedCrawl, site: AuditSite, run: AuditRun, crawl: AuditCrawl = 'first'): void {
  const expected = expectedAudit(site.origin, run, crawl);
  const actual = found(c);
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), 'the same finding codes');
  for (const [code, ex] of Object.entries(expected)) {
    const got = actual[code]!;
    assert.equal(got.measured, ex.measured, `${code}: measured`);
    assert.deepEqual(got.urls, ex.urls, `${code}: members`);
    assert.equal(got.count, ex.urls.length, `${code}: count`);
  }
  // Each sitemap's lastmod trust figure.
  const trust: Record<string, unknown> = {};
  for (const n of c.events) if (n.kind === 'node' && c.engine.lastmodTrust(n.node.id)) trust[n.node.url] = c.engine.lastmodTrust(n.node.id);
  assert.deepEqual(trust, expectedLastmodTrust(site.origin, run, crawl), 'lastmod trust per sitemap');
}

function replay(c: AuditedCrawl, run: AuditRun, origin: string): AuditEngine {
  const engine = new AuditEngine({ crawlUrl: origin + '/', pagesCrawled: run === 'full', previous: c.previous });
  for (const e of c.events) {
    if (e.kind === 'admit') engine.admitted(e.id, e.url, e.source, e.entry, e.from);
    else if (e.kind === 'dup') engine.discovered(e.id, e.d, e.entry);
    else if (e.kind === 'result') engine.result(e.id, e.state, e.r, e.facts);
    else engine.node(e.node);
  }
  return engine;
}

describe('audit of a crawl of the audit site', () => {
  let site: AuditSite;
  before(async () => {
    site = await startAuditSite();
  });
  after(async () => {
    await site.close();
  });

  it('full crawl: every finding, measured, with exactly the URLs and sitemaps the site data says', async () => {
    const c = await auditCrawl(site, 'full');
    assert.equal(c.outcome, 'finished');
    assertMatches(c, site, 'full');
    for (const f of c.engine.findings()) {
      if (PAGE_CODES.has(f.code)) continue;
      if (CROSS_CRAWL.has(f.code)) assert.ok(!f.measured && f.count === 0, `${f.code} needs a previous crawl`);
      else assert.ok(f.measured && f.count > 0, `${f.code} is triggered at least once`);
    }
    assert.deepEqual((c.engine.urlsOf('LASTMOD_AFTER_LAST_MODIFIED') as number[]).map((id) => c.urls[id]).sort(), [
      site.url('/lastmod/after.html'),
      site.url('/lastmod/zone.html'),
    ]);
    assert.deepEqual(c.engine.urlsOf('SITEMAP_UNIFORM_LASTMOD'), [site.url('/sitemap-uniform.xml')]);
    assert.deepEqual(c.engine.lastmodTrust(site.url('/sitemap-lastmod.xml')), { agree: 2, judged: 4 });

    const moved = c.urls.indexOf(site.url('/moved.html'));
    assert.equal(c.engine.redirectTarget(moved), site.url('/ok-1.html'));
    // A node's badges: its listings' per-listing findings, and how many of its URLs have each finding of their own.
    const badges = (path: string) => Object.fromEntries(c.engine.sitemapBadges(site.url(path)).map((b) => [b.code, b.count]));
    assert.deepEqual(badges('/sitemap-main.xml'), {
      SITEMAP_URL_OUT_OF_SCOPE: 1,
      SITEMAP_HOST_VARIANT: 1,
      SITEMAP_INVALID_LASTMOD: 1,
      DUPLICATE_IN_SITEMAP: 1,
      SITEMAP_FUTURE_LASTMOD: 1,
      ...expectedUrlBadges(site.origin, 'full', '/sitemap-main.xml'),
    });
    assert.ok(badges('/sitemap-main.xml').SITEMAP_URL_4XX! >= 1 && badges('/sitemap-main.xml').REDIRECT_CHAIN === 1);
    assert.deepEqual(badges('/sitemap-b.xml'), { HREFLANG_INVALID_CODE: 2, ...expectedUrlBadges(site.origin, 'full', '/sitemap-b.xml') });
    const many = badges('/sitemap-many.txt.gz');
    assert.equal(many.SITEMAP_TOO_MANY_URLS, 1);
    assert.equal(many.DUPLICATE_IN_SITEMAP, 50_000);

    // The events replayed into a new engine (as after a resume) give the same audit.
    const again = replay(c, 'full', site.origin);
    assert.deepEqual(found({ ...c, engine: again }), found(c));
  });

  it('a second crawl of the changed site, the first as previous: fake-fresh and stale lastmods, exact, and the trust figures', async () => {
    const first = await auditCrawl(site, 'full');
    assert.equal(first.outcome, 'finished');
    site.setVersion(2);
    try {
      const second = await auditCrawl(site, 'full', previousOf(first));
      assert.equal(second.outcome, 'finished');
      assertMatches(second, site, 'full', 'second');
      // Written out: the footer date changed on every lastmod page, which is no content change.
      const members = (code: string) => (second.engine.urlsOf(code) as number[]).map((id) => second.urls[id]).sort();
      assert.deepEqual(members('LASTMOD_FAKE_FRESH'), [site.url('/lastmod/fake-fresh.html')]);
      assert.deepEqual(members('LASTMOD_STALE'), [site.url('/lastmod/stale.html')]);
      // All nine pages are judged now (bad-header.html too: by the previous crawl); four disagree.
      assert.deepEqual(second.engine.lastmodTrust(site.url('/sitemap-lastmod.xml')), { agree: 5, judged: 9 });
      assert.deepEqual(second.engine.lastmodTrust(site.url('/sitemap-uniform.xml')), { agree: 5, judged: 5 });
      const badges = Object.fromEntries(second.engine.sitemapBadges(site.url('/sitemap-lastmod.xml')).map((b) => [b.code, b.count]));
      assert.deepEqual(badges, {
        LASTMOD_AFTER_LAST_MODIFIED: 2,
        LASTMOD_FAKE_FRESH: 1,
        LASTMOD_STALE: 1,
        ...expectedUrlBadges(site.origin, 'full', '/sitemap-lastmod.xml', 'second'),
      });
      // Replayed (a resumed recrawl rebuilding its audit), the same.
      assert.deepEqual(found({ ...second, engine: replay(second, 'full', site.origin) }), found(second));
    } finally {
      site.setVersion(1);
    }
  });

  it('sitemap-listing run: sitemap findings exact, page-dependent ones "not measured" with count 0', async () => {
    const c = await auditCrawl(site, 'listing');
    assert.equal(c.outcome, 'finished');
    assertMatches(c, site, 'listing');
    const unmeasured = c.engine.findings().filter((f) => !f.measured && !PAGE_CODES.has(f.code));
    assert.deepEqual(unmeasured.map((f) => f.code).sort(), [
      'HREFLANG_TARGET_NOT_200',
      'HREFLANG_TARGET_NOT_INDEXABLE',
      'INDEXABLE_NOT_IN_SITEMAP',
      'LASTMOD_AFTER_LAST_MODIFIED',
      'LASTMOD_FAKE_FRESH',
      'LASTMOD_STALE',
      'REDIRECT_CHAIN',
      'REDIRECT_LOOP',
      'SITEMAP_ORPHAN',
      'SITEMAP_URL_4XX',
      'SITEMAP_URL_5XX',
      'SITEMAP_URL_BLOCKED',
      'SITEMAP_URL_CANONICALISED',
      'SITEMAP_URL_ERROR',
      'SITEMAP_URL_NOINDEX',
      'SITEMAP_URL_REDIRECT',
      'SITEMAP_URL_TIMEOUT',
    ]);
    for (const f of unmeasured) assert.equal(f.count, 0, f.code);
    assert.equal(
      c.events.some((e) => e.kind === 'result'),
      false,
      'no page was fetched',
    );
  });
});
