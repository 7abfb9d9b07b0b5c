/**
 * Two services on one state folder (the app and the CLI): each writes only its own changes into the
 * catalog, so what one wrote about a crawl is not undone by the other's older copy; a resume reads
 * the crawl as stored now, and a crawl loaded before another process ran it is read again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createCrawlService, ServiceError, type LocalCrawlService } from '../../electron/service/index.js';
import { FakeCrawler, sitemapPlan, type FakePlan } from './fake-crawler.js';
import { allRows, settled, tempDir } from './helpers.js';

const ORIGIN = 'http://shop.test';
const plan: FakePlan = { origin: ORIGIN, sitemaps: sitemapPlan(ORIGIN, 120, 3), fetchPages: true };
const open = (dir: string, p: FakePlan = plan): LocalCrawlService => createCrawlService({ stateDir: dir, crawlerFactory: (o) => new FakeCrawler(o, p) });

test('a crawl one service finished stays finished when another, opened before, writes the catalog', async () => {
  const dir = tempDir();
  const app = open(dir);
  const cli = open(dir);
  const id = cli.create({ name: 'From the CLI', settings: { startUrl: ORIGIN + '/' } }).id;
  const end = settled(cli, id);
  await cli.start(id);
  assert.equal((await end).status, 'finished');
  // The app knew nothing of it, and writes the catalog for a crawl of its own.
  const other = app.create({ name: 'From the app', settings: { startUrl: ORIGIN + '/' } }).id;
  app.rename(other, 'Renamed in the app');
  await app.close();
  await cli.close();

  const again = open(dir);
  const byId = new Map(again.list().map((c) => [c.id, c]));
  assert.equal(byId.get(id)?.status, 'finished');
  assert.equal(byId.get(other)?.name, 'Renamed in the app');
  assert.deepEqual(
    again.warnings().filter((w) => w.code === 'CRAWL_RESTORED'),
    [],
    'nothing had to be restored from a folder',
  );
  await again.close();
});

test('resume reads the crawl as stored now: one another service finished is not run again', async () => {
  const dir = tempDir();
  let pauseAt = 150;
  let svc: LocalCrawlService | null = null;
  let crawlId = '';
  const pausing: FakePlan = {
    ...plan,
    onYield: (events) => {
      if (events > pauseAt && svc) {
        pauseAt = Infinity;
        void svc.pause(crawlId);
      }
    },
  };
  const a = open(dir, pausing);
  svc = a;
  crawlId = a.create({ settings: { startUrl: ORIGIN + '/' } }).id;
  await a.start(crawlId);
  for (let i = 0; i < 500 && a.get(crawlId).status !== 'paused'; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(a.get(crawlId).status, 'paused');
  const done = (rows: { state: string }[]) => rows.filter((r) => r.state === 'done').length;
  const seen = done(allRows(a, crawlId)); // loaded in a

  const b = open(dir);
  const end = settled(b, crawlId);
  await b.resume(crawlId);
  assert.equal((await end).status, 'finished');
  const finished = allRows(b, crawlId);
  await b.close();
  assert.ok(done(finished) > seen);

  // a still holds the paused crawl it loaded: resuming it there is refused, the journal untouched.
  await assert.rejects(a.resume(crawlId), (e: unknown) => e instanceof ServiceError && e.code === 'BAD_STATE' && /finished/.test(e.message));
  await a.close();
  const c = open(dir);
  assert.equal(c.get(crawlId).status, 'finished');
  assert.deepEqual(allRows(c, crawlId), finished);
  await c.close();
});

test('a crawl loaded before another service ran it is read again before it runs here', async () => {
  const dir = tempDir();
  let stopAt = 100;
  let svc: LocalCrawlService | null = null;
  let crawlId = '';
  const pausing: FakePlan = {
    ...plan,
    onYield: (events) => {
      if (events > stopAt && svc) {
        stopAt = Infinity;
        void svc.pause(crawlId);
      }
    },
  };
  const a = open(dir);
  crawlId = a.create({ settings: { startUrl: ORIGIN + '/' } }).id;
  assert.deepEqual(allRows(a, crawlId), [], 'loaded in a, empty');
  // b runs it part way and pauses.
  const b = open(dir, pausing);
  svc = b;
  await b.start(crawlId);
  for (let i = 0; i < 500 && b.get(crawlId).status !== 'paused'; i++) await new Promise((r) => setTimeout(r, 10));
  const partial = allRows(b, crawlId).length;
  assert.ok(partial > 0);
  await b.close();
  const journal = path.join(dir, 'crawls', crawlId, 'journal.jsonl');
  const written = fs.readFileSync(journal);

  // a resumes it: it reads what b wrote instead of writing over it from its empty copy.
  const end = settled(a, crawlId);
  await a.start(crawlId); // a still has it as never started
  assert.equal((await end).status, 'finished');
  const rows = allRows(a, crawlId);
  await a.close();
  assert.ok(fs.readFileSync(journal).subarray(0, written.length).equals(written), 'what b journalled is kept, appended to');
  const c = open(dir);
  assert.deepEqual(allRows(c, crawlId), rows);
  assert.equal(new Set(rows.map((r) => r.url)).size, rows.length, 'each URL once');
  assert.deepEqual(
    c.warnings().filter((w) => /JOURNAL/.test(w.code ?? '')),
    [],
  );
  await c.close();
});
