/**
 * A checkpoint holds where the sitemap list is, not the sitemap tree: the tree is in the journal
 * (NODE records) and a resume takes it from there. A local server announces an index of a few
 * thousand small sitemaps; while they are read, the checkpoint the catalog keeps (and each one the
 * journal carries) shrinks with the sitemaps still to read instead of growing with those read, and
 * holds no node. A crawl killed at a batch boundary (early, in the middle, late) and resumed ends
 * with the same URLs, audit and tree as one never interrupted, and so does one whose checkpoints
 * were written the old way, the whole tree in each.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { CrawlSettings } from '../../shared/model.js';
import { Crawler } from '../../electron/engine/crawler/crawler.js';
import type { SitemapRequestList } from '../../electron/engine/sitemap/request-list.js';
import { createCrawlService, type LocalCrawlService } from '../../electron/service/index.js';
import { JOURNAL_FILE } from '../../electron/service/catalog/catalog.js';
import { REC_CHECKPOINT, REC_END } from '../../electron/service/journal/format.js';
import { startLocalServer, type LocalServer } from '../fixtures/server.js';
import { allRows, settled, tempDir } from './helpers.js';

/** Child sitemaps of the index, and the URLs each lists (one of them also listed by the next one). */
const SITEMAPS = 2500;
const TIMEOUT = { timeout: 300_000 };

async function startSite(): Promise<LocalServer> {
  return startLocalServer(({ res, path: p }, server) => {
    const o = server.origin;
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    };
    const xml = (root: string, items: string) =>
      `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${items}</${root}>\n`;
    if (p === '/robots.txt') return send(200, 'text/plain', `User-agent: *\nAllow: /\nSitemap: ${o}/sitemap-index.xml\n`);
    if (p === '/sitemap-index.xml') {
      let items = '';
      for (let i = 0; i < SITEMAPS; i++) items += `<sitemap><loc>${o}/sitemaps/part-${i}.xml</loc><lastmod>2024-05-01</lastmod></sitemap>\n`;
      // One listed twice, and one that does not exist: problems on nodes, findings of the audit.
      items += `<sitemap><loc>${o}/sitemaps/part-7.xml</loc></sitemap>\n<sitemap><loc>${o}/sitemaps/missing.xml</loc></sitemap>\n`;
      return send(200, 'application/xml', xml('sitemapindex', items));
    }
    const m = /^\/sitemaps\/part-(\d+)\.xml$/.exec(p);
    if (m) {
      const i = Number(m[1]);
      return send(200, 'application/xml', xml('urlset', `<url><loc>${o}/p/${i}</loc></url>\n<url><loc>${o}/p/${i + 1}</loc></url>\n`));
    }
    // No body: the node's bytes of an error answer are what had arrived with its headers (timing).
    send(404, 'text/plain', '');
  });
}

function settings(site: LocalServer): Partial<CrawlSettings> & { startUrl: string } {
  return {
    startUrl: site.origin + '/',
    fetchPages: false,
    userAgent: 'SpinneretCheckpoints/1.0',
    concurrency: 4,
    perHostConcurrency: 4,
    timeoutMs: 5000,
    connectTimeoutMs: 5000,
    retries: 0,
  };
}

// ---------------------------------------------------------------- what a crawl ended with

interface Seen {
  status: string;
  urls: Map<string, string>;
  findings: Map<string, string>;
  tree: Map<string, string>;
  diverged: string[];
}

async function observe(service: LocalCrawlService, id: string, site: LocalServer): Promise<Seen> {
  await service.auditReady(id);
  const rel = (u: string) => u.replaceAll(site.origin, '');
  const urls = new Map(allRows(service, id).map((r) => [rel(r.url), `${r.state} ${r.status ?? ''} ${r.inSitemaps.map(rel).join(' ')} ${r.lastmod ?? ''}`]));
  const findings = new Map<string, string>();
  for (const f of service.getFindings(id)) {
    const members: string[] = [];
    for (let offset = 0; ; offset += 500) {
      const page = service.findingUrls(id, f.code, offset, 500);
      members.push(...page.urls.map(rel));
      if (offset + 500 >= page.total) break;
    }
    findings.set(f.code, `${f.measured} ${f.count}: ${members.sort().join(' ')}`);
  }
  const tree = new Map<string, string>();
  const walk = (parent: string | null) => {
    for (const n of service.sitemapTree(id, parent)) {
      tree.set(
        rel(n.url),
        JSON.stringify(n, (k, v) => (typeof v === 'string' ? rel(v) : v)),
      );
      walk(n.id);
    }
  };
  walk(null);
  const log = service.log(id, 0, 1000).rows;
  return { status: service.get(id).status, urls, findings, tree, diverged: log.filter((l) => l.code === 'RESUME_DIVERGED').map((l) => l.message) };
}

function differences(got: Map<string, string>, want: Map<string, string>): string[] {
  return [...new Set([...got.keys(), ...want.keys()])]
    .sort()
    .filter((k) => got.get(k) !== want.get(k))
    .slice(0, 10)
    .map((k) => `${k}\n    resumed:       ${got.get(k) ?? '(none)'}\n    uninterrupted: ${want.get(k) ?? '(none)'}`);
}

async function assertSame(t: TestContext, got: Seen, want: Seen): Promise<void> {
  await t.test('finished, never diverged from the journal', () => {
    assert.equal(got.status, 'finished');
    assert.deepEqual(got.diverged, []);
  });
  await t.test('the same URLs', () => assert.deepEqual(differences(got.urls, want.urls), []));
  await t.test('the same audit', () => assert.deepEqual(differences(got.findings, want.findings), []));
  await t.test('the same tree: every node, its problems and badges', () => assert.deepEqual(differences(got.tree, want.tree), []));
}

// ---------------------------------------------------------------- crawls

interface StoredCp {
  /** Bytes of the catalog entry's checkpoint, as JSON. */
  bytes: number;
  /** Sitemaps read to their end when it was stored, and sitemaps pending in it. */
  done: number;
  pending: number;
  nodes: boolean;
}

interface Run {
  id: string;
  seen: Seen;
  catalog: string;
  meta: string;
  journal: Buffer;
  stored: StoredCp[];
}

/** Whole-tree checkpoints, as Spinneret wrote them before the tree moved to the journal. */
function oldStyleCrawler(o: ConstructorParameters<typeof Crawler>[0]): Crawler {
  const c = new Crawler(o);
  const list = (c as unknown as { list: SitemapRequestList }).list;
  const checkpoint = c.checkpoint.bind(c);
  c.checkpoint = () => ({ ...checkpoint(), sitemapList: list.getState() });
  return c;
}

async function runToEnd(site: LocalServer, opts: { from?: { dir: string; id: string }; oldStyle?: boolean } = {}): Promise<Run> {
  const dir = opts.from?.dir ?? tempDir();
  const stored: StoredCp[] = [];
  let id = opts.from?.id ?? '';
  const service = createCrawlService({
    stateDir: dir,
    checkpointIntervalMs: 150,
    ...(opts.oldStyle ? { crawlerFactory: oldStyleCrawler } : {}),
    onCheckpoint: (crawlId) => {
      const entry = (
        JSON.parse(fs.readFileSync(path.join(dir, 'catalog.json'), 'utf8')) as {
          crawls: Record<string, { checkpoint?: { crawler: { sitemapList: { pending: unknown[]; nodes?: unknown[] } } } }>;
        }
      ).crawls[crawlId];
      const cp = entry?.checkpoint;
      if (!cp) return;
      stored.push({
        bytes: JSON.stringify(cp).length,
        done: service.get(crawlId).counters.sitemaps.done,
        pending: cp.crawler.sitemapList.pending.length,
        nodes: cp.crawler.sitemapList.nodes !== undefined,
      });
    },
  });
  try {
    id ||= service.create({ settings: settings(site) }).id;
    const end = settled(service, id);
    if (opts.from) await service.resume(id);
    else await service.start(id);
    const catalog = fs.readFileSync(path.join(dir, 'catalog.json'), 'utf8');
    await end;
    const seen = await observe(service, id, site);
    const crawlDir = path.join(dir, 'crawls', id);
    return {
      id,
      seen,
      catalog,
      meta: fs.readFileSync(path.join(crawlDir, 'meta.json'), 'utf8'),
      journal: fs.readFileSync(path.join(crawlDir, JOURNAL_FILE)),
      stored,
    };
  } finally {
    await service.close();
  }
}

/** Every CHECKPOINT line of a journal: its bytes, its sitemaps pending, the one being read, and the batch boundary it ends. */
function checkpoints(journal: Buffer): { bytes: number; pending: number; current: string; end: number }[] {
  const out: { bytes: number; pending: number; current: string; end: number }[] = [];
  let at = 0;
  for (const line of journal.toString('utf8').split('\n')) {
    if (line === '') break;
    at += Buffer.byteLength(line) + 1;
    const r = JSON.parse(line) as unknown[];
    if (r[0] !== REC_CHECKPOINT) continue;
    const st = (r[1] as { sitemapList: { pending: unknown[]; current: { url: string } | null } }).sitemapList;
    out.push({ bytes: Buffer.byteLength(line), pending: st.pending.length, current: st.current?.url ?? '', end: at });
  }
  return out;
}

/** Batch boundaries (END or CHECKPOINT) of a journal. */
function boundaries(journal: Buffer): number[] {
  const out: number[] = [];
  let at = 0;
  for (const line of journal.toString('utf8').split('\n')) {
    if (line === '') break;
    at += Buffer.byteLength(line) + 1;
    const kind = (JSON.parse(line) as unknown[])[0];
    if (kind === REC_END || kind === REC_CHECKPOINT) out.push(at);
  }
  return out;
}

function killedCopy(run: Run, bytes: number): string {
  const dir = tempDir('spinneret-killed-');
  fs.writeFileSync(path.join(dir, 'catalog.json'), run.catalog);
  const crawlDir = path.join(dir, 'crawls', run.id);
  fs.mkdirSync(crawlDir, { recursive: true });
  fs.writeFileSync(path.join(crawlDir, 'meta.json'), run.meta);
  fs.writeFileSync(path.join(crawlDir, JOURNAL_FILE), run.journal.subarray(0, bytes));
  return dir;
}

/** The boundaries a fraction of the way into the index's sitemaps (by the checkpoints' pending counts). */
function killAt(run: Run, fractions: number[]): { fraction: number; bytes: number }[] {
  const cps = checkpoints(run.journal).filter((c) => c.current.includes('/sitemaps/part-') && c.pending > 0);
  const ends = boundaries(run.journal);
  return fractions.map((fraction) => {
    const cp = cps.find((c) => c.pending <= SITEMAPS * (1 - fraction)) ?? cps.at(-1)!;
    // A few batches past that checkpoint: entries after it are read again on resume.
    const i = ends.indexOf(cp.end);
    return { fraction, bytes: ends[Math.min(ends.length - 1, i + 3)]! };
  });
}

// ---------------------------------------------------------------- tests

let site: LocalServer;
let plain: Run;

before(async () => {
  site = await startSite();
  const t0 = Date.now();
  plain = await runToEnd(site);
  process.stderr.write(
    `# uninterrupted crawl: ${Date.now() - t0} ms, ${plain.seen.urls.size} URLs, ${plain.seen.tree.size} nodes, journal ${plain.journal.length} bytes\n`,
  );
});
after(() => site?.close());

describe(`a crawl of an index of ${SITEMAPS.toLocaleString('en-US')} sitemaps`, () => {
  test('reads them all', () => {
    assert.equal(plain.seen.status, 'finished');
    assert.equal(plain.seen.tree.size, SITEMAPS + 3); // robots.txt, the index, the missing one
    assert.equal(plain.seen.urls.size, SITEMAPS + 1);
  });

  test('the catalog’s checkpoint holds no node and shrinks with the sitemaps pending, whatever were read', (t) => {
    const reading = plain.stored.filter((s) => s.done > 1 && s.done < SITEMAPS);
    t.diagnostic(`${plain.stored.length} checkpoints stored: ${plain.stored.map((s) => `${s.done} read/${s.pending} pending: ${s.bytes} B`).join(', ')}`);
    assert.ok(reading.length >= 3, `only ${reading.length} checkpoints stored while the sitemaps were read`);
    for (const s of plain.stored) {
      assert.equal(s.nodes, false, 'a checkpoint with the tree in it');
      // A pending sitemap costs its id and a scope number; the rest (robots.txt, the position) is small.
      assert.ok(s.bytes <= 4096 + 80 * s.pending, `${s.bytes} bytes with ${s.pending} sitemaps pending (${s.done} read)`);
    }
    const late = plain.stored.filter((s) => s.done >= SITEMAPS / 2);
    const early = plain.stored.filter((s) => s.done > 0 && s.done < SITEMAPS / 2);
    if (late.length && early.length) assert.ok(Math.max(...late.map((s) => s.bytes)) <= Math.max(...early.map((s) => s.bytes)));
  });

  test('so does each checkpoint the journal carries', (t) => {
    const cps = checkpoints(plain.journal);
    const total = cps.reduce((n, c) => n + c.bytes, 0);
    // Most are the catalog's, asked for every 150 ms here (every 5 s by default).
    t.diagnostic(`${cps.length} checkpoints, ${total} bytes of ${plain.journal.length}; the largest ${Math.max(...cps.map((c) => c.bytes))} bytes`);
    for (const c of cps) assert.ok(c.bytes <= 4096 + 80 * c.pending, `${c.bytes} bytes with ${c.pending} pending`);
  });
});

describe('killed at a batch boundary and resumed by a new service: the same URLs, audit and tree', () => {
  for (const fraction of [0.05, 0.5, 0.95]) {
    test(`${fraction * 100}% of the way into the sitemaps`, TIMEOUT, async (t) => {
      const [p] = killAt(plain, [fraction]);
      t.diagnostic(`killed at ${p!.bytes} of ${plain.journal.length} bytes`);
      const run = await runToEnd(site, { from: { dir: killedCopy(plain, p!.bytes), id: plain.id } });
      await assertSame(t, run.seen, plain.seen);
    });
  }
});

describe('a crawl whose checkpoints hold the whole tree (written before it moved to the journal)', () => {
  let old: Run;
  before(async () => {
    old = await runToEnd(site, { oldStyle: true });
  });

  test('its checkpoints hold the tree', () => {
    assert.ok(
      old.stored.some((s) => s.nodes),
      'no stored checkpoint holds nodes',
    );
  });

  test('killed in the middle and resumed: the same as a crawl never interrupted', TIMEOUT, async (t) => {
    const [p] = killAt(old, [0.5]);
    assert.ok(p!.bytes > old.journal.length / 4, 'killed past the index');
    t.diagnostic(`killed at ${p!.bytes} of ${old.journal.length} bytes`);
    const run = await runToEnd(site, { from: { dir: killedCopy(old, p!.bytes), id: old.id } });
    await assertSame(t, run.seen, plain.seen);
    // From then on, its checkpoints are the new kind.
    assert.ok(run.stored.length > 0 && run.stored.every((s) => !s.nodes));
  });
});
