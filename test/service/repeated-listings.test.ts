/**
 * A hostile gzip sitemap listing one URL tens of thousands of times, in scope of the crawl and out of
 * it, served by a local server. A repeat is journalled as a count (a DUPS record), not a line each,
 * while the audit still counts every listing (DUPLICATE_IN_SITEMAP, SITEMAP_URL_OUT_OF_SCOPE: the
 * sitemap's badges) and the crawl's duplicates counter still counts every repeat; a reopened crawl
 * (replay, audit rebuilt from the journal) and one killed in the middle of the repeats and resumed
 * answer exactly the same.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { CrawlSettings, SitemapNode } from '../../shared/model.js';
import { Crawler } from '../../electron/engine/crawler/crawler.js';
import type { MemoryRequestQueue } from '../../electron/engine/frontier/request-queue.js';
import { createCrawlService, type LocalCrawlService } from '../../electron/service/index.js';
import { JOURNAL_FILE } from '../../electron/service/catalog/catalog.js';
import { REC_CHECKPOINT, REC_DUP, REC_DUPS, REC_END } from '../../electron/service/journal/format.js';
import { startLocalServer, type LocalServer } from '../fixtures/server.js';
import { allRows, settled, tempDir } from './helpers.js';

/** Listings of the one URL: enough that a line or an object per repeat shows, few enough to be quick. */
const N = 30_000;
const TIMEOUT = { timeout: 120_000 };
/** The sitemap arrives in this many parts, this far apart. */
const PARTS = 8;
const PART_GAP_MS = 120;

type Case = 'in scope' | 'out of scope';

/** robots.txt announces /repeat.xml.gz, a gzip urlset listing `target` N times (and nothing else). */
async function startSite(target: (origin: string) => string): Promise<LocalServer> {
  let gz: Buffer | null = null;
  return startLocalServer((ctx, server) => {
    const { res, path: p } = ctx;
    const o = server.origin;
    const send = (status: number, type: string, body: Buffer | string) => {
      const buf = typeof body === 'string' ? Buffer.from(body) : body;
      res.writeHead(status, { 'content-type': type, 'content-length': String(buf.length) });
      res.end(buf);
    };
    if (p === '/robots.txt') return send(200, 'text/plain', `User-agent: *\nAllow: /\nSitemap: ${o}/repeat.xml.gz\n`);
    if (p === '/repeat.xml.gz') {
      gz ??= gzipSync(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
          `<url><loc>${target(o)}</loc><lastmod>2024-05-01</lastmod></url>\n`.repeat(N) +
          '</urlset>\n',
      );
      // In parts, a little apart: the crawl checkpoints as it reads (every 250 ms at the most), so on
      // any machine some checkpoint falls mid-sitemap with repeats after it (read all at once, a fast
      // machine can finish the file between two checkpoints).
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': String(gz.length) });
      const body = gz;
      const size = Math.ceil(body.length / PARTS);
      const part = (i: number) => {
        if (i === PARTS) return void res.end();
        res.write(body.subarray(i * size, (i + 1) * size));
        server.defer(ctx, PART_GAP_MS, () => part(i + 1));
      };
      return part(0);
    }
    if (p === '/' || p === '/page') return send(200, 'text/html', '<html><head><title>x</title></head><body>x</body></html>');
    send(404, 'text/plain', 'not found');
  });
}

function settings(site: LocalServer): Partial<CrawlSettings> & { startUrl: string } {
  return {
    startUrl: site.origin + '/',
    userAgent: 'SpinneretRepeats/1.0',
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
  counters: { discovered: number; duplicates: number };
  urls: string[];
  findings: string[];
  /** The sitemap's node as the service answers it: urlCount and badges. */
  sitemap: { urlCount: number; badges: Record<string, number> };
}

async function observe(service: LocalCrawlService, id: string, site: LocalServer): Promise<Seen> {
  await service.auditReady(id);
  const rel = (u: string) => u.replaceAll(site.origin, '');
  const c = service.get(id).counters;
  const findings = service
    .getFindings(id)
    .filter((f) => f.count > 0)
    .map((f) => `${f.code} ${f.count}: ${service.findingUrls(id, f.code, 0, 100).urls.map(rel).sort().join(' ')}`);
  const robots = service.sitemapTree(id, null)[0]!;
  const node = service.sitemapTree(id, robots.id).find((n) => n.url.endsWith('/repeat.xml.gz')) as SitemapNode & {
    findings?: { code: string; count: number }[];
  };
  assert.ok(node, 'the repeating sitemap is in the tree');
  return {
    status: service.get(id).status,
    counters: { discovered: c.discovered, duplicates: c.duplicates },
    urls: allRows(service, id)
      .map((r) => `${rel(r.url)} ${r.state} ${r.status ?? ''}`)
      .sort(),
    findings,
    sitemap: { urlCount: node.urlCount, badges: Object.fromEntries((node.findings ?? []).map((b) => [b.code, b.count])) },
  };
}

interface Run {
  dir: string;
  id: string;
  seen: Seen;
  catalog: string;
  meta: string;
  journal: Buffer;
  /** The crawl's frontier (the engine's), as the crawler had it at the end. */
  queue: MemoryRequestQueue;
}

async function runToEnd(site: LocalServer, from?: { dir: string; id: string }): Promise<Run> {
  const dir = from?.dir ?? tempDir();
  let queue: MemoryRequestQueue | undefined;
  const service = createCrawlService({
    stateDir: dir,
    crawlerFactory: (o) => {
      const c = new Crawler(o);
      queue = c.queue;
      return c;
    },
  });
  try {
    const id = from?.id ?? service.create({ settings: settings(site) }).id;
    const end = settled(service, id);
    if (from) await service.resume(id);
    else await service.start(id);
    const catalog = fs.readFileSync(path.join(dir, 'catalog.json'), 'utf8');
    await end;
    const seen = await observe(service, id, site);
    const crawlDir = path.join(dir, 'crawls', id);
    return {
      dir,
      id,
      seen,
      catalog,
      meta: fs.readFileSync(path.join(crawlDir, 'meta.json'), 'utf8'),
      journal: fs.readFileSync(path.join(crawlDir, JOURNAL_FILE)),
      queue: queue!,
    };
  } finally {
    await service.close();
  }
}

/** The journal's records, parsed, each with where it ends. */
function records(journal: Buffer): { r: unknown[]; end: number }[] {
  const out: { r: unknown[]; end: number }[] = [];
  let at = 0;
  for (const line of journal.toString('utf8').split('\n')) {
    if (line === '') break;
    at += Buffer.byteLength(line) + 1;
    out.push({ r: JSON.parse(line) as unknown[], end: at });
  }
  return out;
}

const listings = (r: unknown[]) => (r[0] === REC_DUPS ? (r[4] as number) : r[0] === REC_DUP ? 1 : 0);

/** A state dir holding what a SIGKILL leaves once the journal is `bytes` long. */
function killedCopy(run: Run, bytes: number): string {
  const dir = tempDir('spinneret-killed-');
  fs.writeFileSync(path.join(dir, 'catalog.json'), run.catalog);
  const crawlDir = path.join(dir, 'crawls', run.id);
  fs.mkdirSync(crawlDir, { recursive: true });
  fs.writeFileSync(path.join(crawlDir, 'meta.json'), run.meta);
  fs.writeFileSync(path.join(crawlDir, JOURNAL_FILE), run.journal.subarray(0, bytes));
  return dir;
}

/**
 * The batch boundary with the most repeats journalled after the last checkpoint while it was reading
 * the sitemap: a resume reads those again (the ledger absorbs them), then the rest anew.
 */
function midRepeats(journal: Buffer): { bytes: number; reread: number; consumed: number } | undefined {
  let best: { bytes: number; reread: number; consumed: number } | undefined;
  let reread = 0;
  let consumed = -1;
  for (const { r, end } of records(journal)) {
    reread += listings(r);
    if (r[0] === REC_CHECKPOINT) {
      const current = (r[1] as { sitemapList?: { current?: { url: string; consumed: number } | null } }).sitemapList?.current;
      consumed = current?.url.endsWith('/repeat.xml.gz') ? current.consumed : -1;
      reread = 0;
    }
    if ((r[0] === REC_END || r[0] === REC_CHECKPOINT) && consumed > 0 && reread > 0 && (!best || reread > best.reread)) best = { bytes: end, reread, consumed };
  }
  return best;
}

// ---------------------------------------------------------------- the cases

for (const kind of ['in scope', 'out of scope'] as Case[]) {
  describe(`a gzip sitemap listing one URL ${kind} ${N.toLocaleString('en-US')} times`, () => {
    let site: LocalServer;
    let plain: Run;
    const target = (o: string) => (kind === 'in scope' ? `${o}/page` : 'http://elsewhere.invalid/page');
    const rel = kind === 'in scope' ? '/page' : 'http://elsewhere.invalid/page';

    before(async () => {
      site = await startSite(target);
      plain = await runToEnd(site);
    });
    after(() => site?.close());

    test('every repeat is counted: the audit, the sitemap’s badges and the duplicates counter', () => {
      const s = plain.seen;
      assert.equal(s.status, 'finished');
      assert.deepEqual(s.counters, { discovered: 2, duplicates: N - 1 });
      assert.equal(s.sitemap.urlCount, N);
      assert.equal(s.sitemap.badges.DUPLICATE_IN_SITEMAP, N - 1);
      assert.ok(s.findings.includes(`DUPLICATE_IN_SITEMAP 1: ${rel}`), s.findings.join('\n'));
      if (kind === 'out of scope') {
        assert.equal(s.sitemap.badges.SITEMAP_URL_OUT_OF_SCOPE, N);
        assert.ok(s.findings.includes(`SITEMAP_URL_OUT_OF_SCOPE 1: ${rel}`), s.findings.join('\n'));
        assert.ok(s.urls.includes(`${rel} listed `), s.urls.join('\n'));
      } else {
        assert.equal(s.sitemap.badges.SITEMAP_URL_OUT_OF_SCOPE, undefined);
        assert.ok(s.urls.includes(`${rel} done 200`), s.urls.join('\n'));
      }
    });

    test('the repeats are journalled as counts: a few records, not one per repeat', () => {
      const recs = records(plain.journal)
        .map((x) => x.r)
        .filter((r) => r[0] === REC_DUP || r[0] === REC_DUPS);
      const bytes = recs.reduce((n, r) => n + JSON.stringify(r).length + 1, 0);
      assert.equal(
        recs.reduce((n, r) => n + listings(r), 0),
        N - 1,
        'the records stand for every repeat',
      );
      assert.ok(recs.length <= 200, `${recs.length} DUP/DUPS records for ${N - 1} repeats`);
      assert.ok(bytes < 10_000, `${bytes} bytes of DUP/DUPS records for ${N - 1} repeats`);
      // The frontier keeps the URL's discoveries, not one per repeat.
      const id = plain.queue.idOf(kind === 'in scope' ? `${site.origin}/page` : 'http://elsewhere.invalid/page')!;
      assert.ok(plain.queue.discoveriesOfId(id).length <= 2, `${plain.queue.discoveriesOfId(id).length} discoveries kept`);
    });

    test('reopened (the journal replayed, the audit rebuilt from it): the same', TIMEOUT, async () => {
      const service = createCrawlService({ stateDir: plain.dir });
      try {
        assert.deepEqual(await observe(service, plain.id, site), plain.seen);
      } finally {
        await service.close();
      }
    });

    test('killed in the middle of the repeats and resumed: the same', TIMEOUT, async (t) => {
      const p = midRepeats(plain.journal);
      assert.ok(p, 'no batch boundary leaves repeats after a checkpoint taken mid-sitemap');
      t.diagnostic(`killed at ${p.bytes} bytes: item ${p.consumed} of the sitemap checkpointed, ${p.reread} repeats journalled since`);
      const resumed = await runToEnd(site, { dir: killedCopy(plain, p.bytes), id: plain.id });
      assert.deepEqual(resumed.seen, plain.seen);
    });
  });
}
