/**
 * The service's test double keeps the real Crawler's lifecycle: the same run states, terminal states
 * answered at once, and a loop that throws ending the crawl 'failed' with its error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryRequestQueue } from '../../electron/engine/frontier/request-queue.js';
import { isTerminalState, type CrawlerOptions } from '../../electron/engine/crawler/crawler.js';
import { createCrawlService } from '../../electron/service/index.js';
import { FakeCrawler, sitemapPlan, type FakePlan } from './fake-crawler.js';
import { settled, tempDir } from './helpers.js';

const ORIGIN = 'http://shop.test';

function fake(plan: Partial<FakePlan> = {}): FakeCrawler {
  const opts = { hooks: {}, queue: new MemoryRequestQueue() } as unknown as CrawlerOptions;
  return new FakeCrawler(opts, { origin: ORIGIN, sitemaps: sitemapPlan(ORIGIN, 30, 2), fetchPages: false, ...plan });
}

test('terminal run states are finished, stopped and failed, and no other', () => {
  const all = ['idle', 'running', 'pausing', 'paused', 'stopping', 'stopped', 'finished', 'failed'] as const;
  assert.deepEqual(all.filter(isTerminalState), ['stopped', 'finished', 'failed']);
});

test('the fake runs, pauses, resumes and finishes; run() after the end answers at once', async () => {
  let paused = false;
  const c = fake({
    onYield: (_n, crawler) => {
      if (!paused) {
        paused = true;
        void crawler.pause();
      }
    },
  });
  assert.equal(c.state, 'idle');
  assert.equal(await c.run(), 'paused');
  assert.equal(c.state, 'paused');
  assert.equal(await c.run(), 'finished');
  assert.equal(c.state, 'finished');
  const before = c.queue.totalCount();
  assert.equal(await c.run(), 'finished');
  assert.equal(c.queue.totalCount(), before);
  assert.equal(c.error(), null);
});

test('a fake whose loop throws ends failed, with the error, and stays failed', async () => {
  const c = fake({ failAt: { event: 5, code: 'DISK_GONE', message: 'The disk went away.' } });
  assert.equal(await c.run(), 'failed');
  assert.equal(c.state, 'failed');
  assert.deepEqual({ code: c.error()?.code, message: c.error()?.message }, { code: 'DISK_GONE', message: 'The disk went away.' });
  const admitted = c.queue.totalCount();
  assert.ok(admitted > 0 && admitted < 30, `${admitted} admitted before the failure`);
  assert.equal(await c.run(), 'failed', 'a failed crawler does not run again');
  assert.equal(c.queue.totalCount(), admitted);
  await c.stop();
  assert.equal(c.state, 'failed', 'stopping a failed crawler leaves it failed');
});

test('through the service, a failing crawler makes a failed crawl that shows its error', async () => {
  const plan: FakePlan = {
    origin: ORIGIN,
    sitemaps: sitemapPlan(ORIGIN, 30, 2),
    fetchPages: false,
    failAt: { event: 9, code: 'DISK_GONE', message: 'The disk went away.' },
  };
  const s = createCrawlService({ stateDir: tempDir(), crawlerFactory: (o) => new FakeCrawler(o, plan) });
  try {
    const c = s.create({ name: 'Shop', settings: { startUrl: ORIGIN + '/' } });
    const end = settled(s, c.id);
    await s.start(c.id);
    const summary = await end;
    assert.equal(summary.status, 'failed');
    assert.equal(summary.error?.code, 'DISK_GONE');
    assert.equal(summary.error?.message, 'The disk went away.');
  } finally {
    await s.close();
  }
});
