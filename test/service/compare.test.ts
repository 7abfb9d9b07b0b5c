/**
 * Comparing two crawls (electron/service/compare/): the realistic site crawled, changed as
 * test/fixtures/real-site/changed.ts plants it (a redirect introduced, pages added and removed, a
 * sitemap dropped and one added, title, canonical, hreflang, content and lastmods changed), crawled
 * again on the same origin, and compared. What each finding's members must be comes from the two
 * specs' reference crawls (computeRealExpected), so entered and left are their differences; the rows
 * are the planted changes, exactly.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { MAX_PAGE, type CompareFilter, type CompareQuery, type CompareRow, type CompareSummary, type CrawlSettings } from '../../shared/model.js';
import { CompareSummarySchema, ComparePageSchema } from '../../shared/contract.js';
import { createCrawlService, type LocalCrawlService } from '../../electron/service/index.js';
import { COMPARE_CSV_COLUMNS } from '../../electron/service/compare/comparisons.js';
import { differences, fieldsOf, type SideValues } from '../../electron/service/compare/side.js';
import { REAL_FINDING_CODES, startRealSite, type RealExpected, type RealSite } from '../fixtures/real-site/site.js';
import { CHANGES, changedRealSite } from '../fixtures/real-site/changed.js';
import { FEED_ITEMS, FEED_PATH, buildRealSite } from '../fixtures/real-site/spec.js';
import { startTestSite } from '../fixtures/site.js';
import { parseCsv, settled, tempDir } from './helpers.js';

const TIMEOUT = { timeout: 120_000 };

function settings(site: RealSite): Partial<CrawlSettings> & { startUrl: string } {
  return {
    startUrl: site.url('/'),
    userAgent: 'SpinneretCompare/1.0',
    concurrency: 8,
    perHostConcurrency: 8,
    timeoutMs: 15_000, // far over the slow post's 600 ms, also on a busy machine
    connectTimeoutMs: 15_000,
    retries: 0,
  };
}

async function crawl(service: LocalCrawlService, name: string, s: Partial<CrawlSettings> & { startUrl: string }): Promise<string> {
  const c = service.create({ name, settings: s });
  const done = settled(service, c.id);
  await service.start(c.id);
  const end = await done;
  assert.equal(end.status, 'finished', `${name}: ${JSON.stringify(end.error)}`);
  return c.id;
}

function sink(): { out: Writable; text(): string } {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk);
      cb();
    },
  });
  return { out, text: () => Buffer.concat(chunks).toString('utf8') };
}

async function codeOf(p: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    return (err as { code?: string }).code ?? 'no code';
  }
  return 'no error';
}

describe('compare two crawls of the realistic site, changed between them', TIMEOUT, () => {
  let site: RealSite;
  let service: LocalCrawlService;
  let stateDir: string;
  let oldId: string;
  let newId: string;
  let was: RealExpected;
  let now: RealExpected;
  let summary: CompareSummary;
  const p = (url: string) => (url.startsWith(site.origin) ? url.slice(site.origin.length) : url);
  const all = async (q: Omit<CompareQuery, 'offset' | 'limit'> = {}): Promise<CompareRow[]> => {
    const rows: CompareRow[] = [];
    for (let offset = 0; ; offset += 500) {
      const page = ComparePageSchema.parse(await service.compareRows(oldId, newId, { ...q, offset, limit: 500 }));
      rows.push(...page.rows);
      if (offset + 500 >= page.total) return rows;
    }
  };
  const paths = async (q: Omit<CompareQuery, 'offset' | 'limit'>) => (await all(q)).map((r) => p(r.url));

  before(async () => {
    site = await startRealSite();
    stateDir = tempDir('spinneret-compare-');
    service = createCrawlService({ stateDir, scheduler: false });
    was = site.expected;
    oldId = await crawl(service, 'before', settings(site));
    site.serve(changedRealSite(site.spec));
    now = site.expected;
    newId = await crawl(service, 'after', settings(site));
    summary = CompareSummarySchema.parse(await service.compare(oldId, newId));
  });
  after(async () => {
    await service?.close();
    await site?.close();
  });

  test('URLs added, removed and changed, per field and per source', () => {
    const before = Object.keys(was.urls);
    const afterUrls = Object.keys(now.urls);
    assert.deepEqual(summary.urls, { before: before.length, after: afterUrls.length, added: 2, removed: 2, changed: 10, unchanged: before.length - 2 - 10 });
    assert.equal(summary.oldName, 'before');
    assert.equal(summary.newName, 'after');
    assert.deepEqual(Object.fromEntries(summary.fields.map((f) => [f.field, f.changed])), {
      state: 0,
      status: 1, // /shipping/ 200 → 301
      redirectTo: 1,
      indexability: 2, // /shipping/, /contact/
      canonical: 2,
      title: 2, // /about/, and /shipping/ (a redirect has none)
      metaRobots: 0,
      metaDescription: 0, // /shipping/ had none, its redirect has none
      h1: 1,
      lastmod: 3,
      inSitemaps: 2, // /landing/spring-sale/ moved to extras.xml, /promo lost campaigns.xml
      hreflang: 1,
      content: 2, // /shop/ (a link more in its main text), /privacy/
    });
    const src = Object.fromEntries(summary.bySource.map((s) => [s.source, s]));
    assert.equal(src.sitemap!.removed, 2, 'the two URLs listed only by campaigns.xml');
    assert.equal(src.redirect!.added, 1, '/delivery/, known only as a redirect target');
    assert.equal(
      summary.bySource.reduce((n, s) => n + s.added, 0),
      2,
    );
    assert.equal(
      summary.bySource.reduce((n, s) => n + s.before, 0),
      before.length,
    );
  });

  test('per sitemap: one dropped, one added, two changed, URLs gained and lost', () => {
    assert.deepEqual(summary.sitemapCounts, { added: 1, removed: 1, changed: 2, unchanged: 3 });
    const by = new Map(summary.sitemaps.map((s) => [p(s.url), s]));
    const extras = by.get(CHANGES.addedSitemap)!;
    assert.equal(extras.change, 'added');
    assert.equal(extras.before, undefined);
    assert.deepEqual([extras.after?.type, extras.after?.urlCount, extras.urlsAdded, extras.urlsRemoved], ['urlset', 2, 2, 0]);
    const campaigns = by.get(CHANGES.droppedSitemap)!;
    assert.equal(campaigns.change, 'removed');
    assert.deepEqual([campaigns.before?.urlCount, campaigns.urlsAdded, campaigns.urlsRemoved], [4, 0, 4]);
    assert.equal(by.get('/sitemap_index.xml')!.change, 'changed', 'it lists one child more');
    const products1 = by.get('/sitemaps/products-1.xml.gz')!;
    assert.equal(products1.change, 'changed', 'three lastmods moved: other bytes');
    assert.deepEqual([products1.urlsAdded, products1.urlsRemoved], [0, 0]);
    assert.notEqual(products1.before!.bytes, products1.after!.bytes);
    // Its lastmod trust as the audit judges it: three lastmods now later than their pages' Last-Modified.
    const trust = [products1.before!.lastmodTrust, products1.after!.lastmodTrust];
    assert.ok(trust[0] && trust[1] && trust[0].judged > 0 && trust[1].judged === trust[0].judged, JSON.stringify(trust));
    assert.ok(trust[1]!.agree < trust[0]!.agree, JSON.stringify(trust));
    for (const same of ['/sitemaps/products-2.xml.gz', '/sitemaps/pages.xml', '/sitemaps/blog.xml']) assert.equal(by.get(same)!.change, 'unchanged', same);
    // Changed ones first, unchanged last.
    assert.deepEqual(
      summary.sitemaps.map((s) => s.change === 'unchanged'),
      [false, false, false, false, true, true, true],
    );
  });

  test('per finding: counts then and now, entered and left as the two reference crawls say', async () => {
    const by = new Map(summary.findings.map((f) => [f.code, f]));
    for (const code of REAL_FINDING_CODES) {
      const a = new Set(was.findings[code]);
      const b = new Set(now.findings[code]);
      const f = by.get(code)!;
      const entered = [...b].filter((x) => !a.has(x)).sort();
      const left = [...a].filter((x) => !b.has(x)).sort();
      assert.deepEqual([f.measured, f.before, f.after, f.entered, f.left], [true, a.size, b.size, entered.length, left.length], code);
      if (entered.length) assert.deepEqual((await paths({ finding: { code, moved: 'entered' } })).sort(), entered, `${code} entered`);
      if (left.length) assert.deepEqual((await paths({ finding: { code, moved: 'left' } })).sort(), left, `${code} left`);
    }
    assert.deepEqual(
      summary.worse,
      summary.findings.filter((f) => f.measured && f.after > f.before).map((f) => f.code),
    );
    for (const code of ['SITEMAP_URL_CANONICALISED', 'INDEXABLE_NOT_IN_SITEMAP', 'LINK_TO_REDIRECT', 'LINKED_NON_INDEXABLE'])
      assert.ok(summary.worse.includes(code), code);
    for (const code of ['SITEMAP_URL_4XX', 'SITEMAP_ORPHAN', 'MISSING_H1', 'MISSING_META_DESCRIPTION', 'SITEMAP_URL_REDIRECT'])
      assert.ok(!summary.worse.includes(code), code);
    // Left: URLs both crawls hold first (new id order), then the removed ones.
    assert.deepEqual(await paths({ finding: { code: 'SITEMAP_URL_REDIRECT', moved: 'left' } }), ['/promo', '/deals']);
    const [contact] = await all({ finding: { code: 'MISSING_H1', moved: 'left' } });
    assert.deepEqual([p(contact!.url), contact!.change, contact!.fields], [CHANGES.recanonicalised, 'changed', ['indexability', 'canonical']]);
  });

  test('the rows are the planted changes, exactly, in id order', async () => {
    const rows = await all();
    const seen = rows.map((r) => `${r.change} ${p(r.url)} ${r.fields.join(',')}`).sort();
    assert.deepEqual(
      seen,
      [
        `added ${CHANGES.addedPage} `,
        `added ${CHANGES.redirectTarget} `,
        `changed ${CHANGES.contentChanged} content`,
        `changed ${CHANGES.recanonicalised} indexability,canonical`,
        `changed ${CHANGES.redirected} status,redirectTo,indexability,canonical,title,h1`,
        `changed ${CHANGES.retitled} title`,
        `changed ${CHANGES.hreflangChanged} hreflang,content`,
        `changed ${CHANGES.movedListing} inSitemaps`,
        `changed /promo inSitemaps`,
        ...CHANGES.lastmodChanged.map((x) => `changed ${x} lastmod`),
        ...CHANGES.removed.map((x) => `removed ${x} `),
      ].sort(),
    );
    const held = rows.filter((r) => r.change !== 'removed').map((r) => r.after!.id);
    assert.deepEqual(
      held,
      [...held].sort((a, b) => a - b),
    );
    assert.ok(rows.slice(-2).every((r) => r.change === 'removed' && r.after === undefined && r.before !== undefined));

    const shipping = rows.find((r) => p(r.url) === CHANGES.redirected)!;
    assert.deepEqual(
      [shipping.before!.status, shipping.before!.indexability, p(shipping.before!.canonical!), shipping.before!.title],
      [200, 'indexable', CHANGES.redirected, 'Shipping'],
    );
    assert.deepEqual(
      [shipping.after!.status, p(shipping.after!.redirectTo!), shipping.after!.indexability, shipping.after!.canonical, shipping.after!.title],
      [301, CHANGES.redirectTarget, 'non-indexable', undefined, undefined],
    );
    const shop = rows.find((r) => p(r.url) === CHANGES.hreflangChanged)!;
    assert.deepEqual(
      shop.after!.hreflang.map((h) => `${h.lang}=${p(h.href)}`),
      ['de=/de/shop/', 'en-UK=/shop/', 'x-default=/shop/'],
    );
    assert.deepEqual(
      shop.before!.hreflang.map((h) => h.lang),
      ['de', 'en-UK'],
    );
    const hose = rows.find((r) => p(r.url) === CHANGES.lastmodChanged[0])!;
    const listed = was.sitemaps.find((s) => s.path === '/sitemaps/products-1.xml.gz');
    assert.ok(listed);
    assert.equal(hose.after!.lastmod, CHANGES.newLastmod);
    assert.notEqual(hose.before!.lastmod, CHANGES.newLastmod);
    const moved = rows.find((r) => p(r.url) === CHANGES.movedListing)!;
    assert.deepEqual([moved.before!.inSitemaps.map(p), moved.after!.inSitemaps.map(p)], [[CHANGES.droppedSitemap], [CHANGES.addedSitemap]]);
  });

  test('paging and filters', async () => {
    const rows = await all();
    const paged: CompareRow[] = [];
    for (let offset = 0; offset < rows.length; offset += 3) {
      const page = await service.compareRows(oldId, newId, { offset, limit: 3 });
      assert.equal(page.total, 14);
      paged.push(...page.rows);
    }
    assert.deepEqual(paged, rows);
    assert.deepEqual((await service.compareRows(oldId, newId, { offset: 14, limit: 10 })).rows, []);
    assert.deepEqual((await paths({ change: 'added' })).sort(), [CHANGES.redirectTarget, CHANGES.addedPage].sort());
    assert.deepEqual((await paths({ change: 'removed' })).sort(), [...CHANGES.removed].sort());
    assert.deepEqual((await paths({ field: 'lastmod' })).sort(), [...CHANGES.lastmodChanged].sort());
    assert.deepEqual((await paths({ change: 'changed', field: 'inSitemaps' })).sort(), ['/promo', CHANGES.movedListing].sort());
    assert.deepEqual(await paths({ change: 'added', field: 'title' }), [], 'added rows have no fields');
    assert.deepEqual(await paths({ sources: ['redirect'] }), [CHANGES.redirectTarget]);
    assert.deepEqual((await paths({ search: 'HOSE' })).sort(), ['/shop/garden/classic-hose/', '/shop/garden/compact-hose/']);
    assert.deepEqual((await paths({ sitemap: site.url(CHANGES.addedSitemap) })).sort(), [CHANGES.movedListing, CHANGES.addedPage].sort());
    assert.deepEqual((await paths({ sitemap: site.url(CHANGES.droppedSitemap) })).sort(), [...CHANGES.removed, '/promo', CHANGES.movedListing].sort());
    assert.deepEqual(await paths({ sitemap: site.url('/sitemaps/products-1.xml.gz') }), [], 'a lastmod moved, no URL gained or lost');
    assert.deepEqual(await paths({ finding: { code: 'SITEMAP_URL_REDIRECT', moved: 'left' }, change: 'removed' }), ['/deals']);
  });

  test('the CSV: one row per changed URL, before and after columns', async () => {
    const s = sink();
    const { rows } = await service.exportCompare(oldId, newId, s.out);
    assert.equal(rows, 14);
    const text = s.text();
    assert.equal(text.split('\n')[0], COMPARE_CSV_COLUMNS.join(','));
    assert.equal(
      text.split('\n')[0],
      'url,change,fields,state_before,state_after,status_before,status_after,redirect_to_before,redirect_to_after,indexability_before,indexability_after,canonical_before,canonical_after,title_before,title_after,meta_robots_before,meta_robots_after,meta_description_before,meta_description_after,h1_before,h1_after,lastmod_before,lastmod_after,in_sitemaps_before,in_sitemaps_after,hreflang_before,hreflang_after,content_before,content_after',
    );
    const table = parseCsv(text);
    assert.equal(table.length, 15);
    const byUrl = new Map(table.slice(1).map((r) => [p(r[0]!), r]));
    const about = byUrl.get(CHANGES.retitled)!;
    const o = site.origin;
    assert.deepEqual(about.slice(0, -2), [
      o + '/about/',
      'changed',
      'title',
      'done',
      'done',
      '200',
      '200',
      '',
      '',
      'indexable',
      'indexable',
      o + '/about/',
      o + '/about/',
      'About us',
      CHANGES.newTitle,
      '',
      '',
      'Hearth & Acre — About us.',
      'Hearth & Acre — About us.',
      'About us',
      'About us',
      '',
      '',
      o + '/sitemaps/pages.xml',
      o + '/sitemaps/pages.xml',
      `de=${o}/de/ueber-uns/ | en=${o}/about/`,
      `de=${o}/de/ueber-uns/ | en=${o}/about/`,
    ]);
    // The SHA-256 in base64url; one starting with '-' carries the CSV's formula guard, as every cell does.
    assert.match(about.at(-1)!, /^'?[A-Za-z0-9_-]{43}$/, 'the content hash');
    assert.equal(about.at(-2), about.at(-1), 'same main text');
    assert.deepEqual(byUrl.get('/deals'), [
      o + '/deals',
      'removed',
      '',
      'done',
      '',
      '301',
      '',
      o + '/loop-a',
      '',
      'non-indexable',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      o + CHANGES.droppedSitemap,
      '',
      '',
      '',
      '',
      '',
    ]);
    const lastmods = sink();
    assert.deepEqual(await service.exportCompare(oldId, newId, lastmods.out, { field: 'lastmod' } satisfies CompareFilter), { rows: 3 });
    const lm = parseCsv(lastmods.text());
    assert.deepEqual(
      lm
        .slice(1)
        .map((r) => [p(r[0]!), r[2], r[COMPARE_CSV_COLUMNS.indexOf('lastmod_after')]])
        .sort(),
      CHANGES.lastmodChanged.map((x) => [x, 'lastmod', CHANGES.newLastmod]).sort(),
    );
  });

  test('kept beside the new crawl, read back, recomputed when a crawl changed', async () => {
    const json = path.join(stateDir, 'crawls', newId, `compare-${oldId}.json`);
    assert.ok(fs.existsSync(json));
    assert.ok(fs.existsSync(path.join(stateDir, 'crawls', newId, `compare-${oldId}.items`)));
    assert.equal((await service.compare(oldId, newId)).computedAt, summary.computedAt, 'the same comparison, not a new one');
    // Another process (a fresh service) reads what is stored: plant a figure to see it is read, not computed.
    await service.close();
    const stored = JSON.parse(fs.readFileSync(json, 'utf8')) as { summary: CompareSummary };
    stored.summary.urls.unchanged = 4242;
    fs.writeFileSync(json, JSON.stringify(stored));
    service = createCrawlService({ stateDir, scheduler: false });
    assert.equal((await service.compare(oldId, newId)).urls.unchanged, 4242);
    assert.equal((await service.compareRows(oldId, newId, { offset: 0, limit: 100 })).total, 14, 'rows from the stored items');
    // A journal that changed since (resumed, salvaged, rewritten): its stamp differs, the comparison is computed again.
    await service.close();
    const journal = path.join(stateDir, 'crawls', oldId, 'journal.jsonl');
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(journal, later, later);
    service = createCrawlService({ stateDir, scheduler: false });
    const again = await service.compare(oldId, newId);
    assert.equal(again.urls.unchanged, summary.urls.unchanged);
    assert.ok(again.computedAt > summary.computedAt);
    const { computedAt: _a, ...rest } = again;
    const { computedAt: _b, ...first } = summary;
    assert.deepEqual(rest, first, 'the same figures');
  });

  test('errors: unknown crawls, bad queries, a crawl that runs or never ran', async () => {
    assert.equal(await codeOf(service.compare('nope', newId)), 'NOT_FOUND');
    assert.equal(await codeOf(service.compare(oldId, 'nope')), 'NOT_FOUND');
    assert.equal(await codeOf(service.compareRows('nope', newId, { offset: 0, limit: 1 })), 'NOT_FOUND');
    assert.equal(await codeOf(() => service.compare(oldId, oldId)), 'BAD_QUERY');
    const bad: unknown[] = [
      { offset: 0, limit: MAX_PAGE + 1 },
      { offset: -1, limit: 10 },
      { offset: 0, limit: 10, change: 'moved' },
      { offset: 0, limit: 10, field: 'colour' },
      { offset: 0, limit: 10, sources: ['email'] },
      { offset: 0, limit: 10, finding: { code: 'NOT_A_FINDING', moved: 'entered' } },
      { offset: 0, limit: 10, finding: { code: 'SITEMAP_URL_4XX', moved: 'sideways' } },
      { offset: 0, limit: 10, finding: { code: 'SITEMAP_NOT_200', moved: 'entered' }, field: 'title' },
    ];
    for (const q of bad) assert.equal(await codeOf(service.compareRows(oldId, newId, q as CompareQuery)), 'BAD_QUERY', JSON.stringify(q));
    assert.equal(await codeOf(service.exportCompare(oldId, newId, sink().out, { change: 'x' } as unknown as CompareFilter)), 'BAD_QUERY');

    const fresh = service.create({ name: 'never run', settings: settings(site) });
    assert.equal(await codeOf(service.compare(oldId, fresh.id)), 'BAD_STATE');
    site.setOnEvent(null);
    const slow = await startRealSite({ pageDelayMs: 200 });
    try {
      const running = service.create({ name: 'running', settings: settings(slow) });
      const done = settled(service, running.id);
      await service.start(running.id);
      assert.equal(await codeOf(service.compare(running.id, newId)), 'BAD_STATE');
      await service.stop(running.id);
      await done;
      assert.deepEqual([service.get(running.id).status, service.get(running.id).stopped], ['finished', true], 'Stop ended it: a partial crawl');
    } finally {
      await slow.close();
    }
  });

  test('two crawls of different sites compare, with a warning', async () => {
    const other = await startTestSite({ scenario: 'no-robots' });
    try {
      const id = await crawl(service, 'another site', { startUrl: other.url('/'), timeoutMs: 2000, retries: 0 });
      const warnings: string[] = [];
      const off = service.on('warning', (w) => w.code === 'COMPARE' && warnings.push(w.message));
      const s = await service.compare(oldId, id);
      off();
      assert.equal(s.urls.added, s.urls.after, 'no URL in common');
      assert.equal(s.urls.removed, s.urls.before);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, /different hosts/);
    } finally {
      await other.close();
    }
  });
});

describe('a sitemap finding across two crawls: its rows are sitemaps', TIMEOUT, () => {
  test('the blog feed read now enters SITEMAP_NOT_IN_ROBOTS; its rows and CSV name the sitemap', async () => {
    const site = await startRealSite();
    const service = createCrawlService({ stateDir: tempDir('spinneret-compare-sm-'), scheduler: false });
    try {
      const oldId = await crawl(service, 'before', settings(site));
      // Every page names the blog's RSS feed now, which robots.txt does not announce.
      site.serve(buildRealSite(site.origin, { feed: true }));
      const newId = await crawl(service, 'after', settings(site));
      const feed = site.url(FEED_PATH);
      const s = await service.compare(oldId, newId);
      const f = s.findings.find((x) => x.code === 'SITEMAP_NOT_IN_ROBOTS')!;
      assert.deepEqual([f.subject, f.measured, f.before, f.after, f.entered, f.left], ['sitemap', true, 0, 1, 1, 0]);
      assert.ok(s.worse.includes('SITEMAP_NOT_IN_ROBOTS'));
      const node = s.sitemaps.find((x) => x.url === feed)!;
      assert.deepEqual([node.change, node.after?.type, node.urlsAdded, node.urlsRemoved], ['added', 'rss', FEED_ITEMS, 0]);
      const entered = { code: 'SITEMAP_NOT_IN_ROBOTS', moved: 'entered' } as const;
      assert.deepEqual(await service.compareRows(oldId, newId, { offset: 0, limit: 10, finding: entered }), {
        total: 1,
        rows: [{ url: feed, change: 'added', fields: [] }],
      });
      assert.deepEqual(await service.compareRows(oldId, newId, { offset: 0, limit: 10, finding: { ...entered, moved: 'left' } }), { total: 0, rows: [] });
      assert.equal((await service.compareRows(oldId, newId, { offset: 0, limit: 10, finding: entered, change: 'removed' })).total, 0);
      assert.equal((await service.compareRows(oldId, newId, { offset: 0, limit: 10, finding: entered, search: 'FEED.xml' })).total, 1);
      const out = sink();
      assert.deepEqual(await service.exportCompare(oldId, newId, out.out, { finding: entered }), { rows: 1 });
      assert.deepEqual(parseCsv(out.text())[1], [feed, 'added', ...new Array<string>(COMPARE_CSV_COLUMNS.length - 2).fill('')]);
      // The posts it lists gained it.
      const gained = await service.compareRows(oldId, newId, { offset: 0, limit: 100, sitemap: feed });
      assert.equal(gained.total, FEED_ITEMS);
      assert.ok(gained.rows.every((r) => r.after!.inSitemaps.includes(feed) && !(r.before?.inSitemaps ?? []).includes(feed)));
    } finally {
      await service.close();
      await site.close();
    }
  });
});

test('lastmods compare as instants: a date and its midnight UTC are one, another zone or time is a change', () => {
  const side = (lastmod?: string): SideValues => ({ id: 0, state: 'done', source: 'sitemap', inSitemaps: [], hreflang: [], ...(lastmod ? { lastmod } : {}) });
  const changed = (a?: string, b?: string) => fieldsOf(differences(side(a), side(b)));
  assert.deepEqual(changed('2024-01-01', '2024-01-01T00:00:00Z'), []);
  assert.deepEqual(changed('2024-01-01T10:00:00+02:00', '2024-01-01T08:00:00Z'), []);
  assert.deepEqual(changed('2024-01-01', '2024-01-01T00:00:00+01:00'), ['lastmod']);
  assert.deepEqual(changed('2024-01-01', '2024-01-02'), ['lastmod']);
  assert.deepEqual(changed('2024-01-01', undefined), ['lastmod']);
  assert.deepEqual(changed('yesterday', 'yesterday'), [], 'text that is no date: as written');
  assert.deepEqual(changed('yesterday', 'Yesterday'), ['lastmod']);
});
