/**
 * Scheduled recrawls (electron/service/schedule.ts and CrawlService.setSchedule): the schedule kept in
 * the catalog, the period arithmetic, the scheduler over a fake host (one run per due time, never two
 * at once, the previous run awaited, a failed start reported), and the service's own timer with an
 * injected recrawl and clock, including a time missed while the service was closed.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawlStatus, CrawlSummary } from '../../shared/model.js';
import { CrawlSummarySchema } from '../../shared/contract.js';
import { createCrawlService, type LocalCrawlService } from '../../electron/service/index.js';
import { DAY_MS, Scheduler, firstRunAt, nextRunAt, type ScheduleHost } from '../../electron/service/schedule.js';
import type { CatalogEntry } from '../../electron/service/catalog/catalog.js';
import type { RecrawlOptions } from '../../electron/service/types.js';
import { startRealSite } from '../fixtures/real-site/site.js';
import { changedRealSite } from '../fixtures/real-site/changed.js';
import { settled, sleep, tempDir } from './helpers.js';

const T0 = Date.UTC(2026, 0, 5, 6, 0);

async function until(what: string, ok: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

describe('schedule periods', () => {
  test('the first run is one period away; a run moves on by whole periods past now', () => {
    assert.equal(firstRunAt('daily', T0), T0 + DAY_MS);
    assert.equal(firstRunAt('weekly', T0), T0 + 7 * DAY_MS);
    assert.equal(nextRunAt({ every: 'daily', nextAt: T0 }, T0), T0 + DAY_MS);
    assert.equal(nextRunAt({ every: 'daily', nextAt: T0 }, T0 + 3.5 * DAY_MS), T0 + 4 * DAY_MS, 'days missed are not run one by one');
    assert.equal(nextRunAt({ every: 'daily', nextAt: T0 }, T0 + 4 * DAY_MS), T0 + 5 * DAY_MS, 'after now, not at it');
    assert.equal(nextRunAt({ every: 'weekly', nextAt: T0 }, T0 + 1), T0 + 7 * DAY_MS);
  });
});

/** A catalog in memory with a recrawl that records its calls. */
function fakeHost(entries: CatalogEntry[], recrawl?: (id: string, o: RecrawlOptions) => Promise<CrawlSummary>) {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const calls: [string, RecrawlOptions][] = [];
  const warnings: string[] = [];
  let clock = T0;
  let made = 0;
  const host: ScheduleHost & { clock: number } = {
    get clock() {
      return clock;
    },
    set clock(v: number) {
      clock = v;
    },
    entries: () => [...byId.values()],
    refresh: (id) => byId.get(id),
    put: (e) => void byId.set(e.id, e),
    status: (id) => byId.get(id)?.status,
    recrawl: async (id, o) => {
      calls.push([id, o]);
      if (recrawl) return recrawl(id, o);
      const id2 = `run-${++made}`;
      byId.set(id2, entry(id2, 'running'));
      return { id: id2 } as CrawlSummary;
    },
    warn: (m) => void warnings.push(m),
    now: () => clock,
  };
  return { host, byId, calls, warnings };
}

function entry(id: string, status: CrawlStatus, schedule?: CatalogEntry['schedule']): CatalogEntry {
  const e = { id, name: id, status, createdAt: T0, updatedAt: T0 } as CatalogEntry;
  if (schedule) e.schedule = schedule;
  return e;
}

describe('the scheduler', () => {
  test('a due schedule recrawls once, moves on a period and remembers the crawl it made', async () => {
    const { host, byId, calls } = fakeHost([entry('a', 'finished', { every: 'daily', nextAt: T0, changedOnly: true })]);
    const s = new Scheduler(host);
    host.clock = T0 - 1;
    await s.tick();
    assert.equal(calls.length, 0, 'not due yet');
    host.clock = T0 + 10;
    await s.tick();
    assert.deepEqual(calls, [['a', { changedOnly: true, scheduled: true }]]);
    assert.deepEqual(byId.get('a')!.schedule, { every: 'daily', nextAt: T0 + DAY_MS, changedOnly: true, lastRunId: 'run-1' });
    await s.tick();
    assert.equal(calls.length, 1, 'not due again the same day');
    // Due again while run-1 still crawls: it waits, nextAt stays, and goes once run-1 ended.
    host.clock = T0 + DAY_MS + 10;
    await s.tick();
    assert.equal(calls.length, 1, 'the previous run is still running');
    assert.equal(byId.get('a')!.schedule!.nextAt, T0 + DAY_MS);
    byId.set('run-1', { ...byId.get('run-1')!, status: 'finished' });
    await s.tick();
    assert.deepEqual(calls[1], ['run-1', { changedOnly: true, scheduled: true }], 'the last run is recrawled in turn');
    assert.deepEqual(byId.get('a')!.schedule, { every: 'daily', nextAt: T0 + 2 * DAY_MS, changedOnly: true, lastRunId: 'run-2' });
  });

  test('never two at once: a tick while a recrawl is starting does not start another', async () => {
    let release!: (s: CrawlSummary) => void;
    const pending = new Promise<CrawlSummary>((r) => (release = r));
    const { host, byId, calls } = fakeHost([entry('a', 'finished', { every: 'weekly', nextAt: T0, changedOnly: false })], () => pending);
    const s = new Scheduler(host);
    host.clock = T0;
    const first = s.tick();
    const second = s.tick();
    // Another scheduler over the same catalog (another process): nextAt already moved on, so it is not due.
    const other = new Scheduler(host);
    await sleep(5);
    await other.tick();
    assert.equal(calls.length, 1);
    release({ id: 'b' } as CrawlSummary);
    await Promise.all([first, second]);
    assert.equal(byId.get('a')!.schedule!.lastRunId, 'b');
    assert.equal(byId.get('a')!.schedule!.nextAt, T0 + 7 * DAY_MS);
  });

  test('a deleted last run falls back to the scheduled crawl; a failed start is reported and waits for the next time', async () => {
    const { host, byId, calls, warnings } = fakeHost(
      [entry('a', 'finished', { every: 'daily', nextAt: T0, changedOnly: false, lastRunId: 'gone' })],
      async () => {
        throw Object.assign(new Error('Crawl "a" is damaged.'), { code: 'DAMAGED' });
      },
    );
    const s = new Scheduler(host);
    host.clock = T0 + 1;
    await s.tick();
    assert.deepEqual(calls, [['a', { changedOnly: false, scheduled: true }]]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /scheduled recrawl of crawl a .* did not start: DAMAGED: Crawl "a" is damaged\./);
    assert.deepEqual(byId.get('a')!.schedule, { every: 'daily', nextAt: T0 + DAY_MS, changedOnly: false, lastRunId: 'gone' });
  });
});

describe('setSchedule and the service timer', () => {
  function open(dir: string, clock: { t: number }, calls: [string, RecrawlOptions][], startDelayMs = 10): LocalCrawlService {
    const service: LocalCrawlService = createCrawlService({
      stateDir: dir,
      now: () => clock.t,
      scheduler: {
        startDelayMs,
        intervalMs: 20,
        recrawl: async (id, o) => {
          calls.push([id, o]);
          return service.create({ name: `recrawl of ${id}`, settings: { startUrl: 'http://127.0.0.1:9/' } });
        },
      },
    });
    return service;
  }

  test('stored in the catalog and the summary; null removes it; bad input refused', async () => {
    const dir = tempDir('spinneret-schedule-');
    const clock = { t: T0 };
    const service = open(dir, clock, [], 60_000);
    const c = service.create({ settings: { startUrl: 'http://127.0.0.1:9/' } });
    const s = CrawlSummarySchema.parse(service.setSchedule(c.id, 'weekly', true));
    assert.deepEqual(s.schedule, { every: 'weekly', nextAt: T0 + 7 * DAY_MS, changedOnly: true });
    clock.t = T0 + 1000;
    assert.equal(service.setSchedule(c.id, 'weekly').schedule!.nextAt, T0 + 7 * DAY_MS, 'same period: the next run keeps its time');
    assert.equal(service.get(c.id).schedule!.changedOnly, true, 'changedOnly kept when not given');
    assert.deepEqual(service.setSchedule(c.id, 'daily', false).schedule, { every: 'daily', nextAt: T0 + 1000 + DAY_MS, changedOnly: false });
    await service.close();
    const again = open(dir, clock, [], 60_000);
    assert.deepEqual(again.get(c.id).schedule, { every: 'daily', nextAt: T0 + 1000 + DAY_MS, changedOnly: false }, 'kept across restarts');
    assert.equal(again.setSchedule(c.id, null).schedule, undefined);
    assert.equal(again.get(c.id).schedule, undefined);
    assert.throws(() => again.setSchedule(c.id, 'hourly' as 'daily'), { code: 'BAD_SETTINGS' });
    assert.throws(() => again.setSchedule('nope', 'daily'), { code: 'NOT_FOUND' });
    await again.close();
  });

  test('the timer starts the recrawl when due, and a time missed while closed runs soon after start-up', async () => {
    const dir = tempDir('spinneret-schedule-');
    const clock = { t: T0 };
    const calls: [string, RecrawlOptions][] = [];
    const service = open(dir, clock, calls);
    const c = service.create({ settings: { startUrl: 'http://127.0.0.1:9/' } });
    service.setSchedule(c.id, 'daily', true);
    await sleep(60);
    assert.equal(calls.length, 0, 'not due for a day');
    clock.t = T0 + DAY_MS;
    await until('the scheduled recrawl', () => calls.length === 1);
    assert.deepEqual(calls[0], [c.id, { changedOnly: true, scheduled: true }]);
    await until('the schedule moved on', () => service.get(c.id).schedule?.lastRunId !== undefined);
    const run1 = service.get(c.id).schedule!.lastRunId!;
    assert.deepEqual(service.get(c.id).schedule, { every: 'daily', nextAt: T0 + 2 * DAY_MS, changedOnly: true, lastRunId: run1 });
    await sleep(60);
    assert.equal(calls.length, 1, 'once per due time');
    await service.close();

    // Closed for three days and a half: one run soon after start-up, of the crawl the last run made.
    clock.t = T0 + 4.5 * DAY_MS;
    const reopened = open(dir, clock, calls);
    await until('the missed recrawl', () => calls.length === 2);
    assert.deepEqual(calls[1], [run1, { changedOnly: true, scheduled: true }]);
    await until('the schedule moved on', () => reopened.get(c.id).schedule?.lastRunId !== run1);
    assert.equal(reopened.get(c.id).schedule!.nextAt, T0 + 5 * DAY_MS);
    await sleep(60);
    assert.equal(calls.length, 2);
    await reopened.close();
  });
});

describe('a scheduled recrawl, end to end', () => {
  test('the due schedule recrawls the realistic site and ends with its comparison (recrawlFinished, scheduled)', { timeout: 120_000 }, async () => {
    const site = await startRealSite();
    const clock = { t: Date.now() };
    const service = createCrawlService({ stateDir: tempDir('spinneret-schedule-e2e-'), now: () => clock.t, scheduler: { startDelayMs: 10, intervalMs: 20 } });
    try {
      const c = service.create({ settings: { startUrl: site.url('/'), timeoutMs: 15_000, retries: 0, concurrency: 8, perHostConcurrency: 8 } });
      const done = settled(service, c.id);
      await service.start(c.id);
      assert.equal((await done).status, 'finished');
      const finished = new Promise<{ crawl: CrawlSummary; baseId: string; scheduled: boolean; worse: string[] }>((r) => service.on('recrawlFinished', r));
      service.setSchedule(c.id, 'daily', false);
      site.serve(changedRealSite(site.spec));
      clock.t += DAY_MS;
      const ev = await finished;
      assert.deepEqual([ev.baseId, ev.scheduled, ev.crawl.baseId], [c.id, true, c.id]);
      assert.equal(service.get(c.id).schedule!.lastRunId, ev.crawl.id);
      const summary = await service.compare(c.id, ev.crawl.id);
      assert.deepEqual(ev.worse, summary.worse);
      assert.ok(summary.worse.includes('SITEMAP_URL_CANONICALISED'), 'the changed site canonicalised /contact/');
      assert.deepEqual([summary.urls.added, summary.urls.removed], [2, 2]);
    } finally {
      await service.close();
      await site.close();
    }
  });
});
