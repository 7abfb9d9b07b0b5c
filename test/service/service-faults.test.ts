/**
 * Faults: a corrupt or missing catalog is rebuilt from the crawl folders with a warning; a journal
 * that cannot be written pauses the crawl with the error and loses nothing already written; a crawl
 * folder missing its journal is reported damaged, never crashed on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createCrawlService, ServiceError, type LocalCrawlService } from '../../electron/service/index.js';
import type { CrawlLogEntry } from '../../shared/model.js';
import { FakeCrawler, sitemapPlan, type FakePlan } from './fake-crawler.js';
import { allRows, settled, sleep, snapshotDir, tempDir } from './helpers.js';

const ORIGIN = 'http://shop.test';
const plan = (extra: Partial<FakePlan> = {}): FakePlan => ({ origin: ORIGIN, sitemaps: sitemapPlan(ORIGIN, 200, 4), fetchPages: true, ...extra });

function open(dir: string, p: FakePlan, extra: Parameters<typeof createCrawlService>[0] extends infer O ? Partial<O> : never = {}): LocalCrawlService {
  return createCrawlService({ stateDir: dir, crawlerFactory: (o) => new FakeCrawler(o, p), ...extra });
}

async function crawled(dir: string, name = 'Shop') {
  const s = open(dir, plan());
  const id = s.create({ name, settings: { startUrl: ORIGIN + '/' } }).id;
  const end = settled(s, id);
  await s.start(id);
  await end;
  const rows = allRows(s, id);
  const counters = s.get(id).counters;
  await s.close();
  return { id, rows, counters };
}

async function waitFor(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (cond()) return;
    await sleep(10);
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('a corrupt catalog is moved aside and rebuilt from the crawl folders, with a warning', async () => {
  const dir = tempDir();
  const { id, rows, counters } = await crawled(dir, 'My shop');
  fs.writeFileSync(path.join(dir, 'catalog.json'), '{"crawls": {"oops" ');
  const s = open(dir, plan());
  const heard: CrawlLogEntry[] = [];
  s.on('warning', (w) => heard.push(w));
  await sleep(5);
  assert.ok(
    s.warnings().some((w) => w.code === 'CATALOG_CORRUPT'),
    JSON.stringify(s.warnings()),
  );
  assert.ok(
    heard.some((w) => w.code === 'CATALOG_CORRUPT'),
    'listeners attached after opening hear it too',
  );
  assert.ok(
    fs.readdirSync(dir).some((f) => /^catalog\.corrupt-\d+\.json$/.test(f)),
    'the bad file is kept aside',
  );
  const listed = s.list();
  assert.deepEqual(
    listed.map((c) => [c.id, c.name, c.status]),
    [[id, 'My shop', 'finished']],
  );
  assert.deepEqual(listed[0]!.counters, counters);
  assert.deepEqual(allRows(s, id), rows, 'its data is all there');
  await s.close();

  // The rebuilt catalog is written back: the next start is quiet.
  const again = open(dir, plan());
  assert.deepEqual(again.warnings(), []);
  assert.equal(again.list().length, 1);
  await again.close();
});

test('a catalog without a crawl that has a folder gets it back; an injected store in a bad shape is rebuilt', async () => {
  const dir = tempDir();
  const { id } = await crawled(dir);
  fs.rmSync(path.join(dir, 'catalog.json'));
  const s = open(dir, plan());
  assert.ok(s.warnings().some((w) => w.code === 'CRAWL_RESTORED'));
  assert.deepEqual(
    s.list().map((c) => c.id),
    [id],
  );
  await s.close();

  const map = new Map<string, unknown>([['crawls', 'garbage']]);
  const store = {
    get: (k: string) => map.get(k) as never,
    set: (k: string, v: unknown) => void map.set(k, v),
    delete: (k: string) => void map.delete(k),
    has: (k: string) => map.has(k),
  };
  const s2 = open(dir, plan(), { store });
  assert.ok(s2.warnings().some((w) => w.code === 'CATALOG_CORRUPT'));
  assert.deepEqual(
    s2.list().map((c) => c.id),
    [id],
  );
  assert.equal(typeof (map.get('crawls') as Record<string, unknown>)[id], 'object', 'written back to the store');
  await s2.close();
});

test('a journal that cannot be written pauses the crawl with the error; nothing written is lost; resume completes it', async () => {
  const expected = await crawled(tempDir());
  const dir = tempDir();
  let full = false;
  let writes = 0;
  const faults = {
    beforeWrite: () => {
      writes++;
      if (full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    },
  };
  let events = 0;
  const s = open(
    dir,
    plan({
      step: 5,
      yieldMs: 1,
      onYield: () => {
        if (++events === 60) full = true;
      },
    }),
    { faults },
  );
  const id = s.create({ settings: { startUrl: ORIGIN + '/' } }).id;
  await s.start(id);
  await waitFor(() => s.get(id).status === 'paused', 'the crawl to pause itself');
  const paused = s.get(id);
  assert.equal(paused.error?.code, 'JOURNAL_WRITE_FAILED');
  assert.match(paused.error!.message, /disk is full/);
  assert.ok(writes > 1);

  // What is on disk now is intact and replays: every URL and result whose batch was written.
  const disk = snapshotDir(dir);
  const reader = open(disk, plan());
  const onDisk = allRows(reader, id);
  const fetched = onDisk.filter((r) => r.state === 'done').length;
  assert.ok(fetched > 0 && fetched < expected.rows.length, `${fetched} results on disk`);
  for (const [i, row] of onDisk.entries()) {
    const want = expected.rows[i]!;
    assert.deepEqual(row, row.state === 'done' ? want : unfetched(want), `row ${i}`);
  }
  await reader.close();

  // Space is back: resume writes what was held in memory and carries on to the same end.
  full = false;
  const end = settled(s, id);
  const resumed = await s.resume(id);
  assert.equal(resumed.status, 'running');
  assert.equal(resumed.error, undefined);
  await end;
  assert.deepEqual(allRows(s, id), expected.rows);
  assert.deepEqual(s.get(id).counters, expected.counters);
  await s.close();
});

/** A finished row as it looked before its URL was fetched. */
function unfetched<T extends { state: string; status?: number; contentType?: string; title?: string; indexability?: string; indexabilityReason?: string }>(
  r: T,
): T {
  const { status: _s, contentType: _c, title: _t, indexability: _i, indexabilityReason: _r, ...rest } = r;
  return { ...rest, state: 'queued' } as T;
}

test('a journal that cannot even be opened leaves the crawl as it was, with the reason', async () => {
  const dir = tempDir();
  let denied = true;
  const faults = {
    beforeOpen: () => {
      if (denied) throw Object.assign(new Error('EACCES: permission denied, open'), { code: 'EACCES' });
    },
  };
  const s = open(dir, plan(), { faults });
  const id = s.create({ settings: { startUrl: ORIGIN + '/' } }).id;
  const r = await s.start(id);
  assert.equal(r.status, 'created');
  assert.equal(r.error?.code, 'JOURNAL_WRITE_FAILED');
  assert.match(r.error!.message, /journal\.jsonl: permission denied/);
  denied = false;
  const end = settled(s, id);
  await s.start(id);
  assert.equal((await end).status, 'finished');
  await s.close();
});

test('a crawl folder missing its journal (or missing altogether) is listed as damaged, not crashed on', async () => {
  const dir = tempDir();
  const a = await crawled(dir, 'A');
  const b = await crawled(dir, 'B');
  fs.rmSync(path.join(dir, 'crawls', a.id, 'journal.jsonl'));
  fs.rmSync(path.join(dir, 'crawls', b.id), { recursive: true });
  const s = open(dir, plan());
  const byId = new Map(s.list().map((c) => [c.id, c]));
  assert.equal(byId.get(a.id)?.damaged, true);
  assert.equal(byId.get(b.id)?.damaged, true);
  assert.throws(
    () => s.queryUrls(a.id, { offset: 0, limit: 10 }),
    (e: unknown) => e instanceof ServiceError && e.code === 'DAMAGED' && /journal/.test(e.message),
  );
  assert.throws(
    () => s.sitemapTree(b.id, null),
    (e: unknown) => e instanceof ServiceError && e.code === 'DAMAGED',
  );
  await s.delete(a.id);
  await s.delete(b.id);
  assert.deepEqual(s.list(), []);
  await s.close();
});

test('a journal that cannot be replayed is damaged; unreadable lines inside it are skipped with a warning', async () => {
  const dir = tempDir();
  const { id, rows } = await crawled(dir);
  const journal = path.join(dir, 'crawls', id, 'journal.jsonl');
  const text = fs.readFileSync(journal, 'utf8');
  // A garbled log line in the middle: skipped, reported.
  fs.writeFileSync(journal, text.replace('[4,{', '[4,{garbage'));
  const s = open(dir, plan());
  assert.deepEqual(allRows(s, id), rows);
  assert.ok(s.warnings().some((w) => w.code === 'JOURNAL_DAMAGED_LINES'));
  await s.close();
  // Two admissions of one URL cannot rebuild the frontier (journal-salvage.test.ts has what can): damaged, with the reason.
  const second = /^\[0,2,2,0,-2,"([^"]+)"/m.exec(text)!;
  const first = /^\[0,1,2,0,-2,"([^"]+)"/m.exec(text)!;
  fs.writeFileSync(journal, text.replace(second[0], second[0].replace(second[1]!, first[1]!)));
  const s2 = open(dir, plan());
  assert.throws(
    () => s2.queryUrls(id, { offset: 0, limit: 1 }),
    (e: unknown) => e instanceof ServiceError && e.code === 'DAMAGED' && /duplicate/.test(e.message),
  );
  assert.equal(s2.get(id).damaged, true);
  await s2.close();
});
