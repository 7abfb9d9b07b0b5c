/**
 * Recrawl through the real CrawlService on the realistic site (test/fixtures/real-site), served with
 * validators: unchanged pages and sitemaps answer 304 and keep the base's answers (marked carried
 * over), a server that ignores the validators is read as usual, the changed site (changed.ts) is
 * fetched where it changed, changed-only mode fetches exactly what moved, a recrawl paused and
 * resumed ends as one never interrupted, and a base deleted meanwhile is BASE_MISSING.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawlSettings, CrawlSummary, UrlRow } from '../../shared/model.js';
import { UrlRowSchema } from '../../shared/contract.js';
import { createCrawlService, type LocalCrawlService } from '../../electron/service/index.js';
import { startRealSite, type RealSite, type RealSiteEvent } from '../fixtures/real-site/site.js';
import { allRows, settled, tempDir } from './helpers.js';

const TIMEOUT = { timeout: 120_000 };

function settings(site: RealSite): Partial<CrawlSettings> & { startUrl: string } {
  return {
    startUrl: site.url('/'),
    userAgent: 'SpinneretRecrawl/1.0',
    concurrency: 8,
    perHostConcurrency: 8,
    timeoutMs: 2000,
    connectTimeoutMs: 2000,
    retries: 0,
  };
}

/** What the server answered, per path: the statuses in order. */
function answers(site: RealSite): { log: Map<string, number[]>; stop(): void } {
  const log = new Map<string, number[]>();
  site.setOnEvent((e: RealSiteEvent) => {
    if (e.type !== 'answered') return;
    const list = log.get(e.path);
    if (list) list.push(e.status);
    else log.set(e.path, [e.status]);
  });
  return { log, stop: () => site.setOnEvent(null) };
}

async function crawl(svc: LocalCrawlService, site: RealSite): Promise<CrawlSummary> {
  const c = svc.create({ settings: settings(site) });
  const done = settled(svc, c.id);
  await svc.start(c.id);
  const s = await done;
  assert.equal(s.status, 'finished');
  return s;
}

async function recrawl(svc: LocalCrawlService, baseId: string, changedOnly = false): Promise<{ summary: CrawlSummary; worse: string[] }> {
  const finished = new Promise<{ crawl: CrawlSummary; worse: string[] }>((resolve) => {
    const off = svc.on('recrawlFinished', (e) => {
      if (e.baseId !== baseId) return;
      off();
      resolve(e);
    });
  });
  const r = await svc.recrawl(baseId, { changedOnly });
  assert.equal(r.baseId, baseId);
  assert.equal(r.changedOnly, changedOnly);
  const e = await finished;
  assert.equal(e.crawl.id, r.id);
  assert.equal(e.crawl.status, 'finished');
  return { summary: e.crawl, worse: e.worse };
}

const pathOf = (site: RealSite, url: string) => (url.startsWith(site.origin) ? url.slice(site.origin.length) : url);

/** path → "state status redirect", the crawl's answers. */
function answersOf(site: RealSite, rows: UrlRow[]): Map<string, string> {
  return new Map(rows.map((r) => [pathOf(site, r.url), `${r.state} ${r.status ?? '-'} ${r.redirectTo ? pathOf(site, r.redirectTo) : ''}`]));
}

function sorted(m: Map<string, string>): string[] {
  return [...m].map(([k, v]) => `${k} ${v}`).sort();
}

describe('recrawl on the realistic site', () => {
  let site: RealSite;
  let svc: LocalCrawlService;
  let base: CrawlSummary;
  let baseRows: UrlRow[];

  before(async () => {
    site = await startRealSite({ conditional: 'honour' });
    svc = createCrawlService({ stateDir: tempDir(), scheduler: false });
    base = await crawl(svc, site);
    baseRows = allRows(svc, base.id);
  });
  after(async () => {
    await svc.close();
    await site.close();
  });

  test('an unchanged site answers 304 to every page and sitemap: everything is carried over', TIMEOUT, async () => {
    const seen = answers(site);
    const { summary } = await recrawl(svc, base.id);
    seen.stop();
    const rows = allRows(svc, summary.id);
    for (const r of rows) UrlRowSchema.parse(r);
    assert.deepEqual(sorted(answersOf(site, rows)), sorted(answersOf(site, baseRows)));
    // Every page and sitemap that answered 200 in the base answered 304 now.
    const ok = [...seen.log].filter(([p, st]) => p !== '/robots.txt' && st.includes(200)).map(([p]) => p);
    assert.deepEqual(ok, [], 'answered 200 in the recrawl');
    const carried = rows.filter((r) => r.carriedOver).map((r) => pathOf(site, r.url));
    const baseOk = baseRows.filter((r) => r.status === 200 && r.etag !== undefined).map((r) => pathOf(site, r.url));
    assert.deepEqual(carried.sort(), baseOk.sort());
    assert.equal(svc.queryUrls(summary.id, { offset: 0, limit: 0, carriedOver: true }).total, carried.length);
    assert.equal(svc.queryUrls(summary.id, { offset: 0, limit: 0, carriedOver: false }).total, rows.length - carried.length);
    const detail = svc.getUrl(summary.id, rows.find((r) => r.carriedOver)!.id);
    assert.equal(detail.result?.carriedOver, true);
    assert.equal(detail.result?.notModified, true);
    // The tree: every sitemap carried over, with the base's counts.
    const nodes = (id: string) => {
      const out = new Map<string, { urlCount: number; carriedOver?: boolean; state: string }>();
      const walk = (parent: string | null) => {
        for (const n of svc.sitemapTree(id, parent)) {
          out.set(n.url, { urlCount: n.urlCount, state: n.state, ...(n.carriedOver ? { carriedOver: true } : {}) });
          walk(n.id);
        }
      };
      walk(null);
      return out;
    };
    const before = nodes(base.id);
    const now = nodes(summary.id);
    assert.deepEqual([...now.keys()].sort(), [...before.keys()].sort());
    for (const [url, n] of now) {
      if (url.endsWith('/robots.txt')) continue;
      assert.equal(n.urlCount, before.get(url)!.urlCount, url);
      if (before.get(url)!.state === 'done') assert.equal(n.carriedOver, true, url);
    }
  });
});
