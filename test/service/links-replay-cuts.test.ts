/**
 * The link store replayed from a journal cut at a batch boundary (what a kill at that instant leaves)
 * equals a brute-force count over the same records: inlinks, unique inlinks, outlinks and click depth
 * of every URL, for some 40 cuts of a concurrent crawl of the fixture site. Replay applies pages in
 * the order they were fetched, so a depth that drops later must have been relaxed through the links
 * already recorded, read back from the journal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_SETTINGS, type CrawlSettings } from '../../shared/model.js';
import { createCrawlService } from '../../electron/service/index.js';
import { createAudit } from '../../electron/service/audit/crawl-audit.js';
import { JOURNAL_FILE } from '../../electron/service/catalog/catalog.js';
import { CrawlData } from '../../electron/service/data/crawl-data.js';
import { RecordReader, replayJournalSync } from '../../electron/service/journal/reader.js';
import { tryUniqueKey } from '../../electron/engine/index.js';
import { startTestSite } from '../fixtures/site.js';
import type { TestSite } from '../fixtures/types.js';
import { settled, tempDir } from './helpers.js';

function settings(site: TestSite, concurrency: number): Partial<CrawlSettings> & { startUrl: string } {
  return {
    startUrl: site.url('/'),
    userAgent: 'SpinneretLinks/1.0',
    timeoutMs: 600,
    connectTimeoutMs: 500,
    retries: 1,
    maxBodyBytes: 2 * 1024 * 1024,
    concurrency,
    perHostConcurrency: concurrency,
  };
}

/** The link figures of the records of a journal, counted by brute force (every path, BFS at the end). */
function bruteForce(lines: unknown[][]) {
  const key: string[] = [];
  const idOf = new Map<string, number>();
  const starts = new Set<number>();
  const linksOf = new Map<number, unknown[][]>();
  const redirects = new Map<number, string>();
  for (const r of lines) {
    if (r[0] === 0) {
      const id = r[1] as number;
      const k = (r[9] as { k?: string } | undefined)?.k ?? (r[5] as string);
      key[id] = k;
      idOf.set(k, id);
      if (((r[2] as number) & 3) === 0 && (r[2] as number) < 8) starts.add(id);
    } else if (r[0] === 2) {
      const to = (r[3] as { redirectTo?: string } | undefined)?.redirectTo;
      if (to !== undefined) redirects.set(r[1] as number, to);
      else redirects.delete(r[1] as number);
    } else if (r[0] === 9 && !linksOf.has(r[1] as number)) linksOf.set(r[1] as number, r[2] as unknown[][]);
  }
  const n = key.length;
  const inl = new Array<number>(n).fill(0);
  const uniq = new Array<number>(n).fill(0);
  const out = new Map<number, [number, number]>();
  const adj = new Map<number, number[]>();
  for (const [page, links] of linksOf) {
    let i = 0;
    let e = 0;
    const seen = new Set<number>();
    const next: number[] = [];
    for (const t of links) {
      const flags = (t[2] as number | undefined) ?? 0;
      if (flags & 2) e++;
      else i++;
      const to = t[0];
      if (typeof to !== 'number' || to === page) continue;
      inl[to]!++;
      if (!seen.has(to)) uniq[to]!++;
      seen.add(to);
      if ((flags & 1) === 0) next.push(to); // nofollow is not followed; an off-site target ends its path
    }
    out.set(page, [i, e]);
    adj.set(page, next);
  }
  for (const [from, url] of redirects) {
    const to = idOf.get(tryUniqueKey(url) ?? url);
    if (to !== undefined && to !== from) adj.set(from, [...(adj.get(from) ?? []), to]);
  }
  const depth = new Map<number, number>();
  const q = [...starts];
  for (const s of starts) depth.set(s, 0);
  for (let i = 0; i < q.length; i++) {
    for (const t of adj.get(q[i]!) ?? []) {
      if (depth.has(t)) continue;
      depth.set(t, depth.get(q[i]!)! + 1);
      q.push(t);
    }
  }
  return { n, inl, uniq, out, depth };
}

test('a journal cut at any batch boundary replays to the links its records say', { timeout: 120_000 }, async () => {
  const site = await startTestSite({ scenario: 'full', slowMs: 1500 });
  const dir = tempDir();
  const service = createCrawlService({ stateDir: dir });
  let journal: Buffer;
  try {
    const c = service.create({ settings: settings(site, 8) });
    const end = settled(service, c.id);
    await service.start(c.id);
    assert.equal((await end).status, 'finished');
    journal = fs.readFileSync(path.join(dir, 'crawls', c.id, JOURNAL_FILE));
  } finally {
    await service.close();
    await site.close();
  }
  // Batch ends: after each END or CHECKPOINT line.
  const text = journal.toString('utf8');
  const rawLines = text.split('\n').slice(0, -1);
  const cuts: number[] = [];
  const parsed: unknown[][] = [];
  for (const line of rawLines) {
    const r = JSON.parse(line) as unknown[];
    parsed.push(r);
    if (r[0] === 7 || r[0] === 6) cuts.push(parsed.length);
  }
  assert.ok(
    parsed.some((r) => r[0] === 9),
    'the journal has LINKS records',
  );
  const tmp = tempDir();
  const step = Math.max(1, Math.floor(cuts.length / 40));
  let checked = 0;
  for (let c = 0; c < cuts.length; c += step) {
    const upto = cuts[c]!;
    const file = path.join(tmp, `j${c}.jsonl`);
    fs.writeFileSync(file, rawLines.slice(0, upto).join('\n') + '\n');
    const data = new CrawlData((keys) => createAudit({ ...DEFAULT_SETTINGS, startUrl: 'http://127.0.0.1/' }, () => 0, keys));
    const reader = new RecordReader(file);
    data.links.read = (off) => reader.read(off);
    replayJournalSync(file, (r, o) => data.apply(r, o));
    reader.close();
    const b = bruteForce(parsed.slice(0, upto));
    assert.equal(data.store.count, b.n, `cut ${c}: URLs`);
    for (let id = 0; id < b.n; id++) {
      assert.equal(data.links.inlinks(id), b.inl[id], `cut ${c}: inlinks of ${id}`);
      assert.equal(data.links.uniqueInlinks(id), b.uniq[id], `cut ${c}: unique inlinks of ${id}`);
      assert.equal(data.links.outlinksInternal(id), b.out.get(id)?.[0], `cut ${c}: outlinks internal of ${id}`);
      assert.equal(data.links.outlinksExternal(id), b.out.get(id)?.[1], `cut ${c}: outlinks external of ${id}`);
      assert.equal(data.links.clickDepth(id), b.depth.get(id), `cut ${c}: click depth of ${id}`);
    }
    assert.equal(data.links.pagesWithLinks, b.out.size, `cut ${c}: pages with links`);
    checked++;
  }
  assert.ok(checked >= Math.min(10, cuts.length), `${checked} cuts checked`);
});
