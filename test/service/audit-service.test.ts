/**
 * The sitemap audit through the REAL CrawlService and engine against the local audit site: every
 * finding's count and members exactly as the site's data says, for a full crawl and for a
 * sitemap-listing run; the URL table's finding filter, CSV export of a finding, the detail pane's
 * codes and the tree's badges; and the same findings after pause → close → reopen → resume.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawlSettings } from '../../shared/model.js';
import { createCrawlService, ServiceError, type LocalCrawlService } from '../../electron/service/index.js';
import { expectedAudit, expectedLastmodTrust, expectedUrlBadges, startAuditSite, type AuditRun, type AuditSite } from '../fixtures/audit-site.js';
import { PAGE_FINDING_CODES } from '../../electron/service/audit/types.js';

/** The audit site plants sitemap findings; the page findings are asserted on the realistic site (realistic-crawl.test.ts). */
const PAGE_CODES = new Set<string>(PAGE_FINDING_CODES);
import { csvOf, fetchedAtLeast, parseCsv, settled, tempDir } from './helpers.js';

function settings(site: AuditSite, run: AuditRun): Partial<CrawlSettings> & { startUrl: string } {
  return {
    startUrl: site.url('/'),
    fetchPages: run === 'full',
    followLinks: true,
    respectRobots: true,
    scope: 'host',
    concurrency: 6,
    perHostConcurrency: 6,
    delayMs: 0,
    userAgent: 'SpinneretAuditTest/1.0',
    // Full: well under the site's SLOW_MS, well over what a local page needs on a busy machine.
    // Listing: no page is fetched, so nothing to time out but a sitemap on a busy machine.
    timeoutMs: run === 'full' ? 2000 : 10_000,
    connectTimeoutMs: 2000,
    retries: 0,
    maxBodyBytes: 4 * 1024 * 1024,
  };
}

type Audit = Record<string, { measured: boolean; count: number; urls: string[] }>;

/** Every finding with its members (all pages of findingUrls), sorted. */
function auditOf(service: LocalCrawlService, id: string): Audit {
  const out: Audit = {};
  for (const f of service.getFindings(id)) {
    const urls: string[] = [];
    for (let offset = 0; ; offset += 1000) {
      const page = service.findingUrls(id, f.code, offset, 1000);
      urls.push(...page.urls);
      assert.equal(page.total, f.count, `${f.code}: findingUrls total = count`);
      if (offset + 1000 >= page.total) break;
    }
    out[f.code] = { measured: f.measured, count: f.count, urls: urls.sort() };
  }
  return out;
}

function assertExpected(actual: Audit, site: AuditSite, run: AuditRun): void {
  const expected = expectedAudit(site.origin, run);
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), 'the same finding codes');
  for (const [code, ex] of Object.entries(expected)) {
    const got = actual[code]!;
    assert.equal(got.measured, ex.measured, `${code}: measured`);
    assert.deepEqual(got.urls, ex.urls, `${code}: members`);
    assert.equal(got.count, ex.urls.length, `${code}: count`);
  }
}

/** URLs of the URL table under a finding filter (every page). */
function filteredUrls(service: LocalCrawlService, id: string, finding: string): string[] {
  const urls: string[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = service.queryUrls(id, { offset, limit: 1000, finding });
    urls.push(...page.rows.map((r) => r.url));
    if (offset + 1000 >= page.total) return urls.sort();
  }
}

async function crawl(service: LocalCrawlService, site: AuditSite, run: AuditRun): Promise<string> {
  const c = service.create({ name: `audit ${run}`, settings: settings(site, run) });
  const end = settled(service, c.id);
  await service.start(c.id);
  const s = await end;
  assert.equal(s.status, 'finished');
  return c.id;
}

describe('the sitemap audit through CrawlService', () => {
  let site: AuditSite;
  before(async () => {
    site = await startAuditSite();
  });
  after(async () => {
    await site.close();
  });

  it('full crawl: counts and members exact; the URL filter, CSV export, detail codes and tree badges agree', async () => {
    const service = createCrawlService({ stateDir: tempDir() });
    try {
      const id = await crawl(service, site, 'full');
      const audit = auditOf(service, id);
      assertExpected(audit, site, 'full');
      const findings = service.getFindings(id);
      assert.equal(findings.length, 43);
      assert.deepEqual(
        findings.map((f) => f.severity),
        [...findings.map((f) => f.severity)].sort((a, b) => ['critical', 'warning', 'notice'].indexOf(a) - ['critical', 'warning', 'notice'].indexOf(b)),
        'critical first, then warnings, then notices',
      );
      for (const f of findings) {
        if (f.code === 'LASTMOD_FAKE_FRESH' || f.code === 'LASTMOD_STALE') {
          // Measured in a recrawl only: a first crawl says why not.
          assert.ok(!f.measured && f.count === 0, f.code);
          assert.match(f.notMeasuredReason ?? '', /^Needs a previous crawl: use Crawl again/, f.code);
          continue;
        }
        assert.ok(f.measured && (f.count > 0 || PAGE_CODES.has(f.code)), `${f.code} is triggered`);
        assert.equal(f.notMeasuredReason, undefined);
      }

      // The URL table filtered by each URL finding holds exactly its URLs; a sitemap finding gives what those sitemaps listed.
      for (const f of findings.filter((x) => x.subject === 'url')) {
        assert.deepEqual(filteredUrls(service, id, f.code), audit[f.code]!.urls, `${f.code}: filtered table`);
      }
      assert.deepEqual(filteredUrls(service, id, 'SITEMAP_TOO_MANY_URLS'), [site.url('/many.html')]);
      assert.deepEqual(filteredUrls(service, id, 'SITEMAP_TOO_LARGE'), [site.url('/huge-listed.html')]);
      assert.deepEqual(filteredUrls(service, id, 'SITEMAP_NOT_IN_ROBOTS'), [site.url('/from-hidden.html')]);
      assert.deepEqual(filteredUrls(service, id, 'SITEMAP_NOT_200'), [], 'a sitemap that did not answer lists nothing');
      // Combined with another filter, and sorted.
      const page = service.queryUrls(id, { offset: 0, limit: 10, finding: 'SITEMAP_URL_4XX', sort: { key: 'url', dir: 'desc' }, statusClasses: ['4xx'] });
      assert.deepEqual(
        page.rows.map((r) => r.url),
        [...audit.SITEMAP_URL_4XX!.urls].reverse(),
      );

      // CSV export of a finding: the same columns as any export, the finding's URLs as rows.
      const [header, ...rows] = parseCsv(await csvOf(service, id, { finding: 'SITEMAP_URL_REDIRECT' }));
      assert.equal(header![0], 'url');
      assert.deepEqual(rows.map((r) => r[0]).sort(), audit.SITEMAP_URL_REDIRECT!.urls);
      assert.equal(rows[0]![header!.indexOf('redirect_to')], site.url('/ok-1.html'));

      // The detail pane names the findings of one URL.
      const gone = service.queryUrls(id, { offset: 0, limit: 1, search: '/gone.html' }).rows[0]!;
      assert.deepEqual(
        service.getUrl(id, gone.id).findings!.filter((c) => !PAGE_CODES.has(c)),
        ['SITEMAP_URL_4XX'],
      );
      const dup = service.queryUrls(id, { offset: 0, limit: 1, search: '/dup.html' }).rows[0]!;
      assert.deepEqual(
        service.getUrl(id, dup.id).findings!.filter((c) => !PAGE_CODES.has(c)),
        ['DUPLICATE_IN_SITEMAP'],
      );

      // Tree badges: robots.txt → sitemaps, each with its own findings and its listings'.
      const [robots] = service.sitemapTree(id, null).filter((n) => n.type === 'robots');
      assert.ok(robots, 'a robots.txt node');
      assert.equal(robots.findings, undefined, 'robots.txt carries no badge');
      const children = service.sitemapTree(id, robots.id);
      const main = children.find((n) => n.url === site.url('/sitemap-main.xml'))!;
      assert.deepEqual(Object.fromEntries(main.findings!.map((b) => [b.code, b.count])), {
        SITEMAP_URL_OUT_OF_SCOPE: 1,
        SITEMAP_HOST_VARIANT: 1,
        SITEMAP_INVALID_LASTMOD: 1,
        DUPLICATE_IN_SITEMAP: 1,
        SITEMAP_FUTURE_LASTMOD: 1,
        ...expectedUrlBadges(site.origin, 'full', '/sitemap-main.xml'),
      });
      assert.equal(main.findings!.find((b) => b.code === 'SITEMAP_URL_4XX')?.severity, 'critical');
      const missing = children.find((n) => n.url === site.url('/sitemap-missing.xml'))!;
      assert.deepEqual(missing.findings, [{ code: 'SITEMAP_NOT_200', severity: 'critical', count: 1 }]);
      // The lastmod trust figure rides on the node too (computed by the audit, never journalled).
      const trust = Object.fromEntries(children.filter((n) => n.lastmodTrust).map((n) => [n.url, n.lastmodTrust]));
      assert.deepEqual(trust, expectedLastmodTrust(site.origin, 'full'));
      assert.deepEqual(trust[site.url('/sitemap-lastmod.xml')], { agree: 2, judged: 4 });
      const uniform = children.find((n) => n.url === site.url('/sitemap-uniform.xml'))!;
      assert.deepEqual(
        uniform.findings!.find((b) => b.code === 'SITEMAP_UNIFORM_LASTMOD'),
        { code: 'SITEMAP_UNIFORM_LASTMOD', severity: 'warning', count: 1 },
      );

      // An unknown code is refused with the list of known ones.
      const badQuery = (e: unknown) => e instanceof ServiceError && e.code === 'BAD_QUERY' && /SITEMAP_URL_4XX/.test(e.message);
      assert.throws(() => service.queryUrls(id, { offset: 0, limit: 10, finding: 'NOPE' }), badQuery);
      assert.throws(() => service.findingUrls(id, 'NOPE', 0, 10), badQuery);
      await assert.rejects(csvOf(service, id, { finding: 'NOPE' }), badQuery);
      assert.throws(
        () => service.getFindings('no-such-crawl'),
        (e: unknown) => e instanceof ServiceError && e.code === 'NOT_FOUND',
      );
    } finally {
      await service.close();
    }
  });

  it('sitemap-listing run: the sitemap findings exact, the page-dependent ones "not measured" with the reason', async () => {
    const service = createCrawlService({ stateDir: tempDir() });
    try {
      const id = await crawl(service, site, 'listing');
      assertExpected(auditOf(service, id), site, 'listing');
      const unmeasured = service.getFindings(id).filter((f) => !f.measured);
      assert.equal(unmeasured.length, 17 + PAGE_CODES.size); // 14, and the three lastmod findings weighed against pages
      for (const f of unmeasured) {
        assert.equal(f.count, 0);
        assert.match(f.notMeasuredReason ?? '', /not fetched/, f.code);
        assert.deepEqual(filteredUrls(service, id, f.code), [], `${f.code}: an unmeasured finding filters to nothing`);
      }
    } finally {
      await service.close();
    }
  });

  it('pause → close → reopen → resume: the reopened crawl shows the findings it had, and ends with the full audit', async () => {
    const dir = tempDir();
    let service = createCrawlService({ stateDir: dir });
    const c = service.create({ settings: settings(site, 'full') });
    // Pause once a few pages are in: /slow.html holds the crawl for the whole 2 s timeout.
    const paused = fetchedAtLeast(service, c.id, 4);
    await service.start(c.id);
    await paused;
    const s = await service.pause(c.id);
    assert.equal(s.status, 'paused', 'paused before the end (the slow page holds it)');
    const before = auditOf(service, c.id);
    assert.ok(
      Object.values(before).some((f) => f.count > 0),
      'some findings before the pause',
    );
    await service.close();

    service = createCrawlService({ stateDir: dir });
    try {
      // The audit is rebuilt after the crawl is loaded: until then the findings say so.
      assert.ok(
        service.getFindings(c.id).every((f) => f.computing === true),
        'computing right after the reopen',
      );
      await service.auditReady(c.id);
      assert.ok(
        service.getFindings(c.id).every((f) => f.computing === undefined),
        'complete once ready',
      );
      assert.deepEqual(auditOf(service, c.id), before, 'rebuilt from the journal: the same findings');
      const end = settled(service, c.id);
      await service.resume(c.id);
      assert.equal((await end).status, 'finished');
      assertExpected(auditOf(service, c.id), site, 'full');
    } finally {
      await service.close();
    }
    // And a third opening, after the crawl finished, rebuilds the same full audit.
    const again = createCrawlService({ stateDir: dir });
    try {
      await again.auditReady(c.id);
      assertExpected(auditOf(again, c.id), site, 'full');
    } finally {
      await again.close();
    }
  });

  it('resumed before its audit is rebuilt: the rebuild reads what the running crawl journals and ends exact', async () => {
    const dir = tempDir();
    let service = createCrawlService({ stateDir: dir });
    const c = service.create({ settings: settings(site, 'full') });
    const paused = fetchedAtLeast(service, c.id, 2);
    await service.start(c.id);
    await paused;
    assert.equal((await service.pause(c.id)).status, 'paused');
    await service.close();

    service = createCrawlService({ stateDir: dir });
    try {
      const end = settled(service, c.id);
      await service.resume(c.id);
      assert.ok(
        service.getFindings(c.id).some((f) => f.computing === true),
        'still rebuilding while the crawl runs',
      );
      assert.equal((await end).status, 'finished');
      await service.auditReady(c.id);
      assertExpected(auditOf(service, c.id), site, 'full');
    } finally {
      await service.close();
    }
  });
});
