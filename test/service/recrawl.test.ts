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
import { SPECIAL, startRealSite, type RealSite, type RealSiteEvent } from '../fixtures/real-site/site.js';
import { CHANGES, changedRealSite } from '../fixtures/real-site/changed.js';
import type { RealSiteSpec } from '../fixtures/real-site/spec.js';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { allRows, settled, sleep, tempDir } from './helpers.js';

const TIMEOUT = { timeout: 120_000 };
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = path.join(ROOT, 'test/fixtures/real-site/crawl-child.ts');

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

/** The page paths the server answered (pages, redirects and anything else, not robots.txt or sitemaps). */
function pagesAnswered(log: Map<string, number[]>, sitemapPaths: Set<string>): string[] {
  return [...log.keys()].filter((p) => p !== '/robots.txt' && !sitemapPaths.has(p)).sort();
}

/** Every sitemap node of a crawl by URL: its state, entries and whether it was carried over. */
function treeOf(svc: LocalCrawlService, id: string): Map<string, { urlCount: number; carriedOver?: boolean; state: string }> {
  const out = new Map<string, { urlCount: number; carriedOver?: boolean; state: string }>();
  const walk = (parent: string | null) => {
    for (const n of svc.sitemapTree(id, parent)) {
      out.set(n.url, { urlCount: n.urlCount, state: n.state, ...(n.carriedOver ? { carriedOver: true } : {}) });
      walk(n.id);
    }
  };
  walk(null);
  return out;
}

/** The realistic spec with one page's status changed. */
function withStatus(spec: RealSiteSpec, path: string, status: number): RealSiteSpec {
  const s = structuredClone(spec);
  const p = s.pages.find((x) => x.path === path);
  if (!p) throw new Error(`no page ${path}`);
  p.status = status;
  return s;
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

  test('a recrawl paused then stopped ends, with its comparison and recrawlFinished', TIMEOUT, async () => {
    const r = await svc.recrawl(base.id);
    await svc.pause(r.id);
    assert.equal(svc.get(r.id).status, 'paused');
    const finished = new Promise<{ crawl: CrawlSummary; worse: string[] }>((resolve) => {
      const off = svc.on('recrawlFinished', (e) => {
        if (e.crawl.id !== r.id) return;
        off();
        resolve(e);
      });
    });
    const stopped = await svc.stop(r.id);
    assert.equal(stopped.status, 'finished');
    const e = await finished;
    assert.equal(e.crawl.status, 'finished');
    assert.ok(Array.isArray(e.worse));
  });
});

describe('recrawl of the realistic site changed between the crawls', () => {
  let site: RealSite;
  let svc: LocalCrawlService;
  let original: RealSiteSpec;
  let base: CrawlSummary;
  let baseRows: UrlRow[];
  let fresh: UrlRow[];
  let sitemapPaths: Set<string>;

  before(async () => {
    site = await startRealSite({ conditional: 'honour' });
    original = site.spec;
    svc = createCrawlService({ stateDir: tempDir(), scheduler: false });
    base = await crawl(svc, site);
    baseRows = allRows(svc, base.id);
    const changed = changedRealSite(original);
    // The product that failed in the base (500) is fixed now.
    const fixed = withStatus(changed, SPECIAL.brokenProduct, 200);
    site.serve(fixed);
    sitemapPaths = new Set([...original.sitemaps, ...fixed.sitemaps].map((x) => x.path));
    fresh = allRows(svc, (await crawl(svc, site)).id);
  });
  after(async () => {
    await svc.close();
    await site.close();
  });

  test('a changed page and a changed sitemap are fetched and read again; the recrawl ends as a fresh crawl does', TIMEOUT, async () => {
    const seen = answers(site);
    const { summary } = await recrawl(svc, base.id);
    seen.stop();
    const rows = allRows(svc, summary.id);
    assert.deepEqual(sorted(answersOf(site, rows)), sorted(answersOf(site, fresh)));
    const byPath = new Map(rows.map((r) => [pathOf(site, r.url), r]));
    const titles = (list: UrlRow[]) => list.map((r) => `${pathOf(site, r.url)} ${r.title ?? ''} ${r.canonical ?? ''}`).sort();
    assert.deepEqual(titles(rows), titles(fresh));
    // Changed pages answered 200 and are no carried-over rows; an unchanged one is.
    for (const p of [CHANGES.retitled, CHANGES.contentChanged, CHANGES.recanonicalised, '/shop/']) {
      assert.deepEqual(seen.log.get(p), [200], p);
      assert.equal(byPath.get(p)!.carriedOver, undefined, p);
    }
    assert.equal(byPath.get(CHANGES.retitled)!.title, CHANGES.newTitle);
    assert.deepEqual(seen.log.get('/blog/'), [304]);
    assert.equal(byPath.get('/blog/')!.carriedOver, true);
    // Failed in the base (500), fixed now: fetched, 200.
    assert.equal(byPath.get(SPECIAL.brokenProduct)!.status, 200);
    assert.equal(byPath.get(SPECIAL.brokenProduct)!.carriedOver, undefined);
    // The sitemaps: changed ones read again, the others carried over.
    const tree = treeOf(svc, summary.id);
    const carriedSitemaps = [...tree].filter(([, n]) => n.carriedOver).map(([u]) => pathOf(site, u));
    assert.ok(!carriedSitemaps.includes('/sitemaps/products-1.xml.gz'), 'products-1 changed its lastmods');
    assert.ok(!carriedSitemaps.includes('/sitemap_index.xml'), 'the index lists extras.xml now');
    assert.ok(!carriedSitemaps.includes(CHANGES.addedSitemap));
    assert.ok(carriedSitemaps.length > 0, 'some sitemaps did not change');
    for (const p of carriedSitemaps) assert.deepEqual(seen.log.get(p), [304], p);
    // The audit of a recrawl weighs lastmods against the base's (its base index's PreviousFacts).
    await svc.auditReady(summary.id);
    const finding = (code: string) => svc.getFindings(summary.id).find((f) => f.code === code)!;
    const members = (code: string) =>
      svc
        .findingUrls(summary.id, code, 0, 1000)
        .urls.map((u) => pathOf(site, u))
        .sort();
    assert.equal(finding('LASTMOD_FAKE_FRESH').measured, true);
    assert.deepEqual(members('LASTMOD_FAKE_FRESH'), [...CHANGES.lastmodChanged].sort());
    assert.equal(finding('LASTMOD_STALE').measured, true);
    // The one page whose content changed (/privacy/) is listed without a lastmod: nothing is stale.
    assert.deepEqual(members('LASTMOD_STALE'), []);
    const freshTree = treeOf(svc, [...svc.list()].find((c) => !c.baseId && c.id !== base.id)!.id);
    assert.deepEqual([...tree].map(([u, n]) => `${u} ${n.urlCount}`).sort(), [...freshTree].map(([u, n]) => `${u} ${n.urlCount}`).sort());
  });

  test('changed-only fetches exactly what is new, whose lastmod moved, or that failed in the base', TIMEOUT, async () => {
    const seen = answers(site);
    const { summary } = await recrawl(svc, base.id, true);
    seen.stop();
    const rows = allRows(svc, summary.id);
    const baseBy = new Map(baseRows.map((r) => [pathOf(site, r.url), r]));
    // What must be fetched, from the rows: new URLs, a lastmod that moved, a failure in the base.
    const expected = rows
      .filter((r) => r.state !== 'listed' && r.state !== 'blocked')
      .map((r) => [pathOf(site, r.url), r] as const)
      .filter(([p, r]) => {
        const b = baseBy.get(p);
        if (!b) return true;
        if (b.state === 'error' || b.state === 'queued' || (b.status ?? 0) >= 500 || b.status === undefined) return true;
        return (b.inSitemaps.length > 0 || r.inSitemaps.length > 0) && b.lastmod !== r.lastmod;
      })
      .map(([p]) => p)
      .sort();
    for (const p of [...CHANGES.lastmodChanged, CHANGES.addedPage, SPECIAL.brokenProduct]) assert.ok(expected.includes(p), p);
    assert.deepEqual(pagesAnswered(seen.log, sitemapPaths), expected);
    // Everything else kept its base answer without a request, marked carried over (not "not modified").
    for (const r of rows) {
      const p = pathOf(site, r.url);
      if (expected.includes(p) || r.state === 'listed' || r.state === 'blocked') continue;
      assert.equal(r.carriedOver, true, p);
      assert.equal(svc.getUrl(summary.id, r.id).result?.notModified, undefined, p);
    }
    assert.equal(rows.find((r) => pathOf(site, r.url) === SPECIAL.brokenProduct)!.status, 200);
  });
});

describe('recrawl against a server that ignores validators, and interrupted', () => {
  let site: RealSite;
  let svc: LocalCrawlService;
  let stateDir: string;
  let base: CrawlSummary;
  let baseRows: UrlRow[];

  before(async () => {
    site = await startRealSite({ conditional: 'ignore' });
    stateDir = tempDir();
    svc = createCrawlService({ stateDir, scheduler: false });
    base = await crawl(svc, site);
    baseRows = allRows(svc, base.id);
  });
  after(async () => {
    await svc.close();
    await site.close();
  });

  test('a server that answers 200 to conditional requests is read as usual', TIMEOUT, async () => {
    const seen = answers(site);
    const { summary } = await recrawl(svc, base.id);
    seen.stop();
    const rows = allRows(svc, summary.id);
    assert.deepEqual(sorted(answersOf(site, rows)), sorted(answersOf(site, baseRows)));
    assert.equal(rows.filter((r) => r.carriedOver).length, 0);
    assert.ok(![...seen.log.values()].some((st) => st.includes(304)));
    assert.ok(![...treeOf(svc, summary.id).values()].some((n) => n.carriedOver));
  });

  test('a recrawl SIGKILLed while it fetches pages, resumed: the same URLs, answers and carried-over rows', TIMEOUT, async () => {
    site.setConditional('honour');
    const slow = structuredClone(site.spec);
    slow.options.pageDelayMs = 30;
    site.serve(slow);
    let answered = 0;
    let kill: () => void = () => {};
    site.setOnEvent((e) => {
      if (e.type === 'answered' && e.kind === 'page' && ++answered === 40) kill();
    });
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, stateDir, 'recrawl', base.id], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let id = '';
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (l) => {
      const m = JSON.parse(l) as { type: string; id: string };
      if (m.type === 'created') id = m.id;
    });
    kill = () => child.kill('SIGKILL');
    const exit = await new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, sig) => resolve(sig ?? code)));
    site.setOnEvent(null);
    assert.equal(exit, 'SIGKILL', 'killed before it finished');
    assert.ok(id, 'the recrawl was created');
    const svc2 = createCrawlService({ stateDir, scheduler: false });
    try {
      const killed = svc2.get(id);
      assert.equal(killed.baseId, base.id);
      assert.notEqual(killed.status, 'finished');
      const done = settled(svc2, id);
      await svc2.resume(id);
      assert.equal((await done).status, 'finished');
      const rows = allRows(svc2, id);
      assert.deepEqual(sorted(answersOf(site, rows)), sorted(answersOf(site, baseRows)));
      const carried = rows.filter((x) => x.carriedOver).map((x) => pathOf(site, x.url));
      const baseOk = baseRows.filter((x) => x.status === 200 && x.etag !== undefined).map((x) => pathOf(site, x.url));
      assert.deepEqual(carried.sort(), baseOk.sort());
      assert.ok(
        [...treeOf(svc2, id).entries()].every(([u, n]) => u.endsWith('/robots.txt') || n.carriedOver),
        'every sitemap carried over',
      );
    } finally {
      await svc2.close();
    }
  });

  test('a recrawl paused, its service closed and reopened, resumed: the same URLs and answers; a base deleted meanwhile is BASE_MISSING', TIMEOUT, async () => {
    site.setConditional('honour');
    const slow = structuredClone(site.spec);
    slow.options.pageDelayMs = 30;
    site.serve(slow);
    const r = await svc.recrawl(base.id);
    // A running crawl is no base yet; an unknown one is not found.
    await assert.rejects(svc.recrawl(r.id), { code: 'NOT_READY' });
    await assert.rejects(svc.recrawl('no-such-crawl'), { code: 'NOT_FOUND' });
    const never = svc.create({ settings: settings(site) });
    await assert.rejects(svc.recrawl(never.id), { code: 'BAD_STATE' });
    // Paused part way through its pages.
    for (let i = 0; i < 400 && svc.get(r.id).counters.fetched < 20; i++) await sleep(10);
    await svc.pause(r.id);
    const part = svc.get(r.id);
    assert.equal(part.status, 'paused');
    assert.ok(part.counters.fetched < baseRows.length, 'paused before the end');
    await svc.close();
    svc = createCrawlService({ stateDir, scheduler: false });
    assert.equal(svc.get(r.id).baseId, base.id, 'the base id survives a restart');
    const done = settled(svc, r.id);
    await svc.resume(r.id);
    assert.equal((await done).status, 'finished');
    const rows = allRows(svc, r.id);
    assert.deepEqual(sorted(answersOf(site, rows)), sorted(answersOf(site, baseRows)));
    const carried = rows.filter((x) => x.carriedOver).map((x) => pathOf(site, x.url));
    const baseOk = baseRows.filter((x) => x.status === 200 && x.etag !== undefined).map((x) => pathOf(site, x.url));
    assert.deepEqual(carried.sort(), baseOk.sort());

    // Its base's journal unreadable when the recrawl is reopened to be viewed: said once, not a crash.
    await svc.close();
    const baseJournal = `${stateDir}/crawls/${base.id}/journal.jsonl`;
    fs.renameSync(baseJournal, `${baseJournal}.aside`);
    fs.mkdirSync(baseJournal);
    svc = createCrawlService({ stateDir, scheduler: false });
    try {
      svc.getFindings(r.id);
      await svc.auditReady(r.id);
      const told = svc.warnings().filter((w) => w.code === 'BASE_UNREADABLE');
      assert.equal(
        told.length,
        1,
        svc
          .warnings()
          .map((w) => w.code)
          .join(' '),
      );
      assert.match(told[0]!.message, new RegExp(`base crawl ${base.id} cannot be read`));
    } finally {
      await svc.close();
      fs.rmdirSync(baseJournal);
      fs.renameSync(`${baseJournal}.aside`, baseJournal);
    }
    svc = createCrawlService({ stateDir, scheduler: false });

    // Again, with the base deleted while the recrawl is paused: it goes on without validators.
    const r2 = await svc.recrawl(base.id);
    for (let i = 0; i < 400 && svc.get(r2.id).counters.fetched < 20; i++) await sleep(10);
    await svc.pause(r2.id);
    await svc.close();
    svc = createCrawlService({ stateDir, scheduler: false });
    const seen = answers(site);
    await svc.delete(base.id);
    assert.ok(!fs.existsSync(`${stateDir}/crawls/${base.id}`));
    const done2 = settled(svc, r2.id);
    await svc.resume(r2.id);
    assert.equal((await done2).status, 'finished');
    seen.stop();
    const log = svc.log(r2.id, 0, 1000).rows;
    assert.ok(
      log.some((e) => e.code === 'BASE_MISSING'),
      log.map((e) => e.code).join(' '),
    );
    assert.ok(![...seen.log.values()].some((st) => st.includes(304)), 'no validators sent after the base is gone');
    assert.deepEqual(sorted(answersOf(site, allRows(svc, r2.id))), sorted(answersOf(site, baseRows)));
  });
});
