/**
 * A resumed crawl's audit equals an uninterrupted crawl's, wherever the interruption fell.
 *
 * The realistic site, larger (200 products per category: some 1,300 sitemap entries, so the
 * product sitemaps are read a batch at a time while pages are crawled, as on a real shop) and with
 * the blog's feed named in every page's head (read as a sitemap found by a page). The uninterrupted
 * crawl runs first. Its journal is written in whole batches, synchronously, so each batch boundary
 * is exactly what a SIGKILL at that instant leaves on disk; the moments are chosen from the journal
 * itself, deterministically:
 * - mid-sitemap, the deepest into a sitemap where a resume has entries to read again (those handed
 *   out since the last checkpoint): the resumed list skips hundreds of items it read before, which
 *   must be the same items (a skip that lands elsewhere re-reads entries the ledger no longer holds:
 *   each then counts as listed twice by its sitemap, DUPLICATE_IN_SITEMAP);
 * - the feed found by a page after the last checkpoint (in the list's tree only via reconcileCheckpoint);
 * - killed again after the resumed crawl checkpointed while it still expected those entries (the
 *   checkpoint's ledger count);
 * plus the service closed (the app quitting) the moment the feed is asked for, reopened and resumed.
 * Each interrupted copy is resumed in this process by a fresh service, right after reopening (so its
 * audit is rebuilt while the crawl journals), and must end with the same URLs and answers, the same
 * whole audit (every finding: measured, count, members), the same sitemap tree (every node with its
 * problems and its badges) and no RESUME_DIVERGED in its log.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { MAX_PAGE, type CrawlSettings, type SitemapNode } from '../../shared/model.js';
import { createCrawlService, type LocalCrawlService } from '../../electron/service/index.js';
import { JOURNAL_FILE } from '../../electron/service/catalog/catalog.js';
import { REC_ADMIT, REC_CHECKPOINT, REC_DUP, REC_DUPS, REC_END, REC_NODE, sourceOf } from '../../electron/service/journal/format.js';
import type { SitemapListCheckpoint } from '../../electron/engine/sitemap/request-list.js';
import { startRealSite, type RealSite } from '../fixtures/real-site/site.js';
import { FEED_PATH } from '../fixtures/real-site/spec.js';
import { allRows, settled, tempDir } from './helpers.js';

const TIMEOUT = { timeout: 120_000 };
const SITE_OPTIONS = { products: 200, feed: true };

function settings(site: RealSite): Partial<CrawlSettings> & { startUrl: string } {
  return {
    startUrl: site.url('/'),
    userAgent: 'SpinneretResume/1.0',
    concurrency: 8,
    perHostConcurrency: 8,
    timeoutMs: 5000,
    connectTimeoutMs: 5000,
    retries: 0,
  };
}

// ---------------------------------------------------------------- what a crawl ended with

interface Seen {
  status: string;
  /** path → "state status → redirect_to". */
  urls: Map<string, string>;
  /** code → "measured count: members". */
  findings: Map<string, string>;
  /** node path → the node as the service answers it (badges included), as JSON. */
  tree: Map<string, string>;
  /** Log entries saying the resumed reading diverged from the journal. */
  diverged: string[];
}

async function observe(service: LocalCrawlService, id: string, site: RealSite): Promise<Seen> {
  await service.auditReady(id);
  const rel = (u: string) => (u.startsWith(site.origin + '/') ? u.slice(site.origin.length) : u);
  const urls = new Map(allRows(service, id).map((r) => [rel(r.url), `${r.state} ${r.status ?? ''} → ${r.redirectTo ? rel(r.redirectTo) : ''}`]));
  const findings = new Map<string, string>();
  for (const f of service.getFindings(id)) {
    const members: string[] = [];
    for (let offset = 0; ; offset += 1000) {
      const page = service.findingUrls(id, f.code, offset, 1000);
      members.push(...page.urls.map(rel));
      if (offset + 1000 >= page.total) break;
    }
    findings.set(f.code, `${f.measured ? 'measured' : 'not measured'} ${f.count}: ${members.sort().join(' ')}`);
  }
  const tree = new Map<string, string>();
  const walk = (parent: string | null) => {
    for (const n of service.sitemapTree(id, parent)) {
      tree.set(
        rel(n.url),
        JSON.stringify(n, (k, v) => (typeof v === 'string' ? v.replaceAll(site.origin, '') : v)),
      );
      walk(n.id);
    }
  };
  walk(null);
  const log = service.log(id, 0, MAX_PAGE).rows;
  return { status: service.get(id).status, urls, findings, tree, diverged: log.filter((l) => l.code === 'RESUME_DIVERGED').map((l) => l.message) };
}

/** The keys whose values differ, each with both values. */
function differences(got: Map<string, string>, want: Map<string, string>): string[] {
  return [...new Set([...got.keys(), ...want.keys()])]
    .sort()
    .filter((k) => got.get(k) !== want.get(k))
    .map((k) => `${k}\n    resumed:       ${got.get(k) ?? '(none)'}\n    uninterrupted: ${want.get(k) ?? '(none)'}`);
}

async function assertSameAsPlain(t: TestContext, got: Seen): Promise<void> {
  await t.test('finished', () => assert.equal(got.status, 'finished'));
  await t.test('the resumed reading never diverged from the journal', () => assert.deepEqual(got.diverged, []));
  await t.test('the same URLs, states, statuses and redirect_to', () => assert.deepEqual(differences(got.urls, plain.seen.urls), []));
  await t.test('the same whole audit (every finding: measured, count, members)', () => assert.deepEqual(differences(got.findings, plain.seen.findings), []));
  await t.test('the same sitemap tree: every node, its problems and its badges', () => assert.deepEqual(differences(got.tree, plain.seen.tree), []));
}

// ---------------------------------------------------------------- crawls and their kill points

interface Run {
  id: string;
  seen: Seen;
  /** The state dir's catalog.json while the run was running (what a kill leaves). */
  catalog: string;
  /** The crawl folder relative to the state dir. */
  crawlDir: string;
  meta: string;
  journal: Buffer;
}

/** Runs a crawl to its end: a new one (`from` absent), or the resumption of a kill's copy. */
async function runToEnd(site: RealSite, from?: { dir: string; id: string }): Promise<Run> {
  const dir = from?.dir ?? tempDir();
  const service = createCrawlService({ stateDir: dir });
  try {
    const id = from?.id ?? service.create({ settings: settings(site) }).id;
    const end = settled(service, id);
    if (from) await service.resume(id);
    else await service.start(id);
    const catalog = fs.readFileSync(path.join(dir, 'catalog.json'), 'utf8');
    await end;
    const seen = await observe(service, id, site);
    const crawlDir = path.relative(dir, path.dirname(journalOf(dir, id)));
    return { id, seen, catalog, crawlDir, meta: fs.readFileSync(path.join(dir, crawlDir, 'meta.json'), 'utf8'), journal: fs.readFileSync(journalOf(dir, id)) };
  } finally {
    await service.close();
  }
}

/** A crawl's journal: <stateDir>/crawls/<id>/journal.jsonl (Catalog.dirOf). */
function journalOf(dir: string, id: string): string {
  return path.join(dir, 'crawls', id, JOURNAL_FILE);
}

/** A state dir holding what a SIGKILL leaves once the journal is `bytes` long: no lock, the catalog saying running. */
function killedCopy(run: Run, bytes: number): string {
  const dir = tempDir('spinneret-killed-');
  fs.writeFileSync(path.join(dir, 'catalog.json'), run.catalog);
  fs.mkdirSync(path.join(dir, run.crawlDir), { recursive: true });
  fs.writeFileSync(path.join(dir, run.crawlDir, 'meta.json'), run.meta);
  fs.writeFileSync(path.join(dir, run.crawlDir, JOURNAL_FILE), run.journal.subarray(0, bytes));
  return dir;
}

/** What a replay of the journal up to one batch boundary resumes from. */
interface KillPoint {
  /** Journal bytes: the end of a batch. */
  bytes: number;
  /** Sitemap discoveries a resume reports again (the ResumeLedger's entries). */
  reread: number;
  /** Where the last checkpoint is, and its ledger count (CHECKPOINT's third element). */
  checkpointAt: number;
  checkpointRemaining: number;
  /** The sitemap the last checkpoint was reading, and how many of its items it had consumed. */
  current: { url: string; consumed: number } | null;
  /** The feed is in the tree but not in the last checkpoint's list (handed back by reconcileCheckpoint). */
  feedAfterCheckpoint: boolean;
}

/** Every batch boundary of a journal, with what a resume from there would do (mirrors CrawlData's replay). */
function killPoints(journal: Buffer, feedUrl: string): KillPoint[] {
  const out: KillPoint[] = [];
  let reread = 0;
  let checkpointAt = -1;
  let checkpointRemaining = 0;
  let list: SitemapListCheckpoint | undefined;
  let feedNode = false;
  /** The feed's node was journalled before the last checkpoint: its list's tree (which the journal holds) knows it. */
  let feedKnown = false;
  let at = 0;
  for (const line of journal.toString('utf8').split('\n')) {
    if (line === '') break;
    const start = at;
    at += Buffer.byteLength(line) + 1;
    const r = JSON.parse(line) as unknown[];
    switch (r[0]) {
      case REC_ADMIT:
        if (sourceOf(r[2] as number) === 'sitemap' && (r[4] as number) <= -2) reread++;
        break;
      case REC_DUP:
      case REC_DUPS:
        if (sourceOf(r[2] as number) === 'sitemap' && (r[3] as number) <= -2) reread += r[0] === REC_DUPS ? (r[4] as number) : 1;
        break;
      case REC_NODE:
        if ((r[1] as SitemapNode).url === feedUrl) feedNode = true;
        break;
      case REC_CHECKPOINT:
        checkpointRemaining = typeof r[2] === 'number' ? r[2] : 0;
        reread = Math.min(reread, checkpointRemaining);
        checkpointAt = start;
        list = (r[1] as { sitemapList?: SitemapListCheckpoint }).sitemapList;
        feedKnown = feedNode;
        break;
    }
    if (r[0] !== REC_CHECKPOINT && r[0] !== REC_END) continue;
    const known = !!list && feedKnown;
    out.push({
      bytes: at,
      reread,
      checkpointAt,
      checkpointRemaining,
      current: list?.current ? { url: list.current.url, consumed: list.current.consumed } : null,
      feedAfterCheckpoint: feedNode && !known,
    });
  }
  return out;
}

const most = (points: KillPoint[]) => points.reduce<KillPoint | undefined>((best, p) => (!best || p.reread > best.reread ? p : best), undefined);

/** The kill point deepest into a sitemap (most items consumed) that leaves entries to read again. */
const deepest = (points: KillPoint[]) =>
  points
    .filter((p) => p.reread > 0 && p.current)
    .reduce<KillPoint | undefined>(
      (best, p) =>
        !best || p.current!.consumed > best.current!.consumed || (p.current!.consumed === best.current!.consumed && p.reread > best.reread) ? p : best,
      undefined,
    );

// ---------------------------------------------------------------- the uninterrupted crawl

let site: RealSite;
let plain: Run;
let points: KillPoint[];

before(async () => {
  site = await startRealSite(SITE_OPTIONS);
  const t0 = Date.now();
  plain = await runToEnd(site);
  points = killPoints(plain.journal, site.url(FEED_PATH));
  process.stderr.write(`# uninterrupted crawl: ${Date.now() - t0} ms, ${plain.seen.urls.size} URLs, ${points.length} batches\n`);
});
after(() => site?.close());

describe('a crawl of the larger realistic site, with its feed, never interrupted', () => {
  test('finishes with the feed read as a sitemap and no divergence', () => {
    assert.equal(plain.seen.status, 'finished');
    assert.ok(plain.seen.tree.has(FEED_PATH), 'the feed is a node of the tree');
    assert.deepEqual(plain.seen.diverged, []);
  });

  test('records what the site spec says: every URL and every finding the spec describes', () => {
    const rel = (e: { state: string; status?: number; redirectTo?: string }) => `${e.state} ${e.status ?? ''} → ${e.redirectTo ?? ''}`;
    assert.deepEqual(differences(plain.seen.urls, new Map(Object.entries(site.expected.urls).map(([p, e]) => [p, rel(e)]))), []);
    for (const [code, members] of Object.entries(site.expected.findings)) {
      assert.equal(plain.seen.findings.get(code), `measured ${members.length}: ${members.join(' ')}`, code);
    }
  });

  test('reads the product sitemaps while it crawls: kills leave entries to read again', () => {
    assert.ok(
      points.some((p) => p.reread > 0),
      'no batch boundary leaves a sitemap entry after its checkpoint',
    );
  });
});

// ---------------------------------------------------------------- interrupted, resumed

describe('killed at a chosen batch boundary, resumed by a new service: the same URLs, audit and tree', () => {
  let midSitemap: { point: KillPoint; run: Run } | undefined;

  test('mid-sitemap, deep into it, with entries to read again', TIMEOUT, async (t) => {
    const p = deepest(points);
    assert.ok(p, 'no kill point mid-sitemap leaves entries to read again');
    t.diagnostic(`killed at ${p.bytes} bytes: ${p.current!.url.slice(site.origin.length)} at item ${p.current!.consumed}, ${p.reread} entries to read again`);
    const run = await runToEnd(site, { dir: killedCopy(plain, p.bytes), id: plain.id });
    midSitemap = { point: p, run };
    await assertSameAsPlain(t, run.seen);
  });

  test('killed mid-sitemap, then again once the resumed crawl checkpointed while it expected those entries', TIMEOUT, async (t) => {
    assert.ok(midSitemap, 'the mid-sitemap resume ran first');
    const { point: first, run: resumed } = midSitemap;
    const later = killPoints(resumed.journal, site.url(FEED_PATH)).filter((x) => x.bytes > first.bytes);
    // A checkpoint of the resumed crawl taken while its ledger still expected entries: a replay keeps them.
    const expecting = later.filter((x) => x.checkpointAt >= first.bytes && x.checkpointRemaining > 0);
    const second = expecting.at(-1) ?? most(later)!;
    t.diagnostic(
      `killed at ${first.bytes} bytes (${first.reread} to read again), then at ${second.bytes} ` +
        `(checkpoint at ${second.checkpointAt} expecting ${second.checkpointRemaining}; ${second.reread} to read again)` +
        (expecting.length ? '' : ': the resumed crawl wrote no checkpoint before reading them again'),
    );
    const run = await runToEnd(site, { dir: killedCopy(resumed, second.bytes), id: plain.id });
    await assertSameAsPlain(t, run.seen);
  });

  test('the feed found by a page after the last checkpoint (handed back to the list on resume)', TIMEOUT, async (t) => {
    const p = points.find((x) => x.feedAfterCheckpoint);
    assert.ok(p, 'the journal has no batch with the feed node before a checkpoint that knows it');
    t.diagnostic(`killed at ${p.bytes} bytes (checkpoint at ${p.checkpointAt}); ${p.reread} entries to read again`);
    const run = await runToEnd(site, { dir: killedCopy(plain, p.bytes), id: plain.id });
    await assertSameAsPlain(t, run.seen);
  });
});

describe('the app quits mid-crawl (the service closes, pausing), reopens and resumes', () => {
  test('closed the moment the feed is asked for', TIMEOUT, async (t) => {
    const dir = tempDir();
    const first = createCrawlService({ stateDir: dir });
    let closing: Promise<void> | null = null;
    let id = '';
    try {
      id = first.create({ settings: settings(site) }).id;
      site.setOnEvent((e) => {
        if (e.type === 'request' && e.path === FEED_PATH && !closing) closing = first.close();
      });
      await first.start(id);
      while (!closing) await new Promise((r) => setTimeout(r, 5));
    } finally {
      site.setOnEvent(null);
      await (closing ?? first.close());
    }
    const run = await runToEnd(site, { dir, id });
    await assertSameAsPlain(t, run.seen);
  });
});
