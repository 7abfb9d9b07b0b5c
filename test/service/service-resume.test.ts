/**
 * Durability with a deterministic crawler: pause → close → reopen → resume, and kills at every
 * batch boundary (the state dir copied as it is on disk at that instant), with and without a torn
 * last write. Every resume must end with exactly the rows, counters and tree of a crawl that was
 * never interrupted — ids, duplicates and sitemap listings included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createCrawlService, type LocalCrawlService } from '../../electron/service/index.js';
import { FakeCrawler, sitemapPlan, type FakePlan } from './fake-crawler.js';
import { allRows, csvOf, settled, snapshotDir, tempDir } from './helpers.js';

const ORIGIN = 'http://shop.test';

function plan(extra: Partial<FakePlan> = {}): FakePlan {
  const sitemaps = sitemapPlan(ORIGIN, 120, 3);
  // A URL in two sitemaps, and one listed twice in the same sitemap.
  sitemaps[1]!.entries.push({ ...sitemaps[0]!.entries[4]!, lastmod: '2023-12-01' });
  sitemaps[2]!.entries.push({ ...sitemaps[2]!.entries[0]! });
  return {
    origin: ORIGIN,
    sitemaps,
    fetchPages: true,
    links: (url) => {
      const m = /item-(\d+)/.exec(url);
      const i = m ? Number(m[1]) : 0;
      return [`${ORIGIN}/product/item-${(i * 7) % 130}.html`, `${ORIGIN}/page/${i % 17}`, `${ORIGIN}/`];
    },
    ...extra,
  };
}

function open(dir: string, p: FakePlan): LocalCrawlService {
  return createCrawlService({ stateDir: dir, crawlerFactory: (o) => new FakeCrawler(o, p) });
}

/** Everything a finished crawl shows, for comparison. */
async function finalState(service: LocalCrawlService, id: string) {
  const s = service.get(id);
  const tree = service.sitemapTree(id, null).flatMap((root) => [root, ...service.sitemapTree(id, root.id)]);
  return {
    status: s.status,
    counters: s.counters,
    rows: allRows(service, id),
    tree: tree.map((n) => [n.id, n.state, n.urlCount]),
    csv: await csvOf(service, id),
  };
}

async function baseline() {
  const dir = tempDir();
  const service = open(dir, plan());
  const c = service.create({ settings: { startUrl: ORIGIN + '/' } });
  const end = settled(service, c.id);
  await service.start(c.id);
  await end;
  const state = await finalState(service, c.id);
  await service.close();
  return state;
}

test('pause → close → reopen → resume ends exactly as a crawl never interrupted', async () => {
  const expected = await baseline();
  assert.equal(expected.status, 'finished');
  assert.ok(expected.counters.duplicates > 100, 'the plan has duplicates to get right');

  const dir = tempDir();
  let paused: Promise<unknown> | null = null;
  let service = open(
    dir,
    plan({
      onYield: (n) => {
        if (n === 161 && !paused) paused = service.pause(id);
      },
    }),
  );
  const id = service.create({ settings: { startUrl: ORIGIN + '/' } }).id;
  await service.start(id);
  while (!paused) await new Promise((r) => setTimeout(r, 5));
  await paused;
  const mid = service.get(id);
  assert.equal(mid.status, 'paused');
  assert.ok(mid.counters.discovered > 0 && mid.counters.fetched < expected.counters.fetched, 'paused half way');
  await service.close();

  service = open(dir, plan());
  assert.equal(service.get(id).status, 'paused');
  assert.deepEqual(service.get(id).counters, mid.counters, 'counters survive the restart');
  const end = settled(service, id);
  await service.resume(id);
  await end;
  assert.deepEqual(await finalState(service, id), expected);
  await service.close();
});

test('in one process, pause then resume continues the same crawler (nothing handed out again)', async () => {
  const expected = await baseline();
  const dir = tempDir();
  const crawlers: FakeCrawler[] = [];
  let service: LocalCrawlService;
  let paused: Promise<unknown> | null = null;
  const p = plan({
    onYield: (n) => {
      if (n === 70 && !paused) paused = service.pause(id);
    },
  });
  service = createCrawlService({
    stateDir: dir,
    crawlerFactory: (o) => {
      const c = new FakeCrawler(o, p);
      crawlers.push(c);
      return c;
    },
  });
  const id = service.create({ settings: { startUrl: ORIGIN + '/' } }).id;
  await service.start(id);
  while (!paused) await new Promise((r) => setTimeout(r, 5));
  await paused;
  const end = settled(service, id);
  await service.resume(id);
  await end;
  assert.equal(crawlers.length, 1, 'the paused crawler was continued, not rebuilt from the journal');
  assert.deepEqual(await finalState(service, id), expected);
  await service.close();
});

test('a kill at any batch boundary, or in the middle of a write, resumes to the same crawl', async () => {
  const expected = await baseline();
  const dir = tempDir();
  const snapshots: string[] = [];
  // Slow enough that checkpoints land in the middle of the sitemaps and of the pages too.
  const service = open(
    dir,
    plan({
      yieldMs: 25,
      onYield: () => {
        snapshots.push(snapshotDir(dir));
      },
    }),
  );
  const id = service.create({ settings: { startUrl: ORIGIN + '/' } }).id;
  const end = settled(service, id);
  await service.start(id);
  await end;
  await service.close();
  assert.ok(snapshots.length >= 30, `${snapshots.length} kill points`);

  const cpsSeen = new Set<number>();
  let torn = 0;
  let reread = 0;
  for (const [i, snap] of snapshots.entries()) {
    const journal = path.join(snap, 'crawls', id, 'journal.jsonl');
    const lines = fs.readFileSync(journal, 'utf8').split('\n');
    cpsSeen.add(lines.filter((l) => l.startsWith('[6,')).length);
    // Sitemap entries journalled after the last checkpoint: the resumed list hands them out again.
    const afterCp = lines.slice(lines.findLastIndex((l) => l.startsWith('[6,')) + 1);
    if (afterCp.some((l) => /^\[0,\d+,[26],/.test(l) || /^\[1,\d+,2,/.test(l))) reread++;
    if (i % 2 === 1) {
      // A write torn part way: cut the journal inside its last batch.
      const size = fs.statSync(journal).size;
      const text = fs.readFileSync(journal, 'utf8');
      const lastEnd = text.lastIndexOf('\n', text.length - 2);
      const cut = Math.max(0, lastEnd - 1 - ((i * 37) % 400));
      if (cut < size) {
        fs.truncateSync(journal, cut);
        torn++;
      }
    }
    const resumed = open(snap, plan());
    const s = resumed.get(id);
    assert.equal(s.status, 'paused', `snapshot ${i}: an interrupted crawl is paused`);
    assert.equal(s.error?.code, 'INTERRUPTED');
    const done = settled(resumed, id);
    await resumed.resume(id);
    await done;
    assert.deepEqual(await finalState(resumed, id), expected, `snapshot ${i}`);
    await resumed.close();
  }
  assert.ok(torn >= 5);
  assert.ok(reread >= 3, `${reread} resumes re-read sitemap entries already journalled`);
  assert.ok(cpsSeen.size >= 4, `snapshots taken at different checkpoint counts: ${[...cpsSeen]}`);
});
