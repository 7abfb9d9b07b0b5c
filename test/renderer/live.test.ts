import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyCounters, type CrawlSummary, type ProgressEvent } from '../../shared/model.js';
import { actionsFor, toggleAction } from '../../renderer/src/logic/actions.js';
import { applyProgress, displayName, removeCrawl, upsertCrawl } from '../../renderer/src/logic/crawls.js';
import { appendPoint, MAX_POINTS, thin } from '../../renderer/src/logic/history.js';
import { etaSeconds, fetchProgress, overallProgress, sitemapProgress } from '../../renderer/src/logic/progress.js';
import { arcPath, areaPath, countAxis, donutSegments, linePath, timeLabel } from '../../renderer/src/logic/chart.js';

function crawl(id: string, extra: Partial<CrawlSummary> = {}): CrawlSummary {
  return {
    id,
    name: '',
    startUrl: `https://${id}.com/`,
    settings: { startUrl: `https://${id}.com/`, sitemapUrls: [], fetchPages: true } as unknown as CrawlSummary['settings'],
    status: 'created',
    counters: emptyCounters(),
    createdAt: 1,
    updatedAt: 1,
    rate: 0,
    ...extra,
  };
}

function progress(crawlId: string, at: number, patch: Partial<ProgressEvent> = {}): ProgressEvent {
  return { crawlId, status: 'running', counters: emptyCounters(), rate: 0, nodes: [], log: [], at, ...patch };
}

test('toolbar actions follow the crawl state', () => {
  const on = (s: CrawlSummary['status'], discovered = 10) => actionsFor(crawl('a', { status: s, counters: { ...emptyCounters(), discovered } }), false);
  assert.deepEqual(on('created', 0), { start: true, pause: false, resume: false, stop: false, export: false });
  assert.deepEqual(on('running'), { start: false, pause: true, resume: false, stop: true, export: true });
  assert.deepEqual(on('paused'), { start: false, pause: false, resume: true, stop: true, export: true });
  assert.deepEqual(on('finished'), { start: false, pause: false, resume: false, stop: false, export: true });
  assert.deepEqual(on('failed', 0), { start: false, pause: false, resume: false, stop: false, export: false });
  assert.deepEqual(
    actionsFor(crawl('a', { status: 'running' }), true),
    { start: false, pause: false, resume: false, stop: false, export: false },
    'busy: all off',
  );
  assert.equal(actionsFor(crawl('a', { status: 'paused', damaged: true, counters: { ...emptyCounters(), discovered: 3 } }), false).resume, false);
  assert.equal(toggleAction(on('running')), 'pause');
  assert.equal(toggleAction(on('paused')), 'resume');
  assert.equal(toggleAction(on('created')), 'start');
  assert.equal(toggleAction(on('finished')), null);
});

test('progress events update status, counters and rate of the crawl they name', () => {
  const list = [crawl('a'), crawl('b')];
  const counters = { ...emptyCounters(), discovered: 42 };
  const next = applyProgress(list, progress('b', 100, { counters, rate: 7 }));
  assert.equal(next[1]!.counters.discovered, 42);
  assert.equal(next[1]!.status, 'running');
  assert.equal(next[1]!.rate, 7);
  assert.equal(next[0], list[0], 'other crawls untouched');
  assert.equal(applyProgress(list, progress('zzz', 100)), list, 'unknown crawl: no change');
  const paused = [crawl('a', { status: 'paused', updatedAt: 500 })];
  assert.equal(applyProgress(paused, progress('a', 400))[0]!.status, 'paused', 'an event older than the pause answer is ignored');
});

test('the crawl list: upsert keeps position, new crawls go first, removal', () => {
  const list = [crawl('a', { createdAt: 2 }), crawl('b', { createdAt: 1 })];
  const renamed = upsertCrawl(list, { ...list[1]!, name: 'B' });
  assert.deepEqual(
    renamed.map((c) => c.name),
    ['', 'B'],
  );
  const added = upsertCrawl(list, crawl('c', { createdAt: 3 }));
  assert.deepEqual(
    added.map((c) => c.id),
    ['c', 'a', 'b'],
  );
  assert.deepEqual(
    removeCrawl(added, 'a').map((c) => c.id),
    ['c', 'b'],
  );
  assert.equal(displayName(crawl('x')), 'x.com');
  assert.equal(displayName({ ...crawl('x'), name: 'Shop' }), 'Shop');
});

test('progress ratios and ETA', () => {
  const c = { ...emptyCounters(), fetched: 30, errors: 5, blocked: 5, queued: 50, fetching: 10, sitemaps: { total: 4, done: 2, failed: 1 } };
  assert.deepEqual(fetchProgress(c), { done: 40, total: 100, value: 0.4 });
  assert.deepEqual(sitemapProgress(c), { done: 3, total: 4, value: 0.75 });
  assert.equal(etaSeconds({ status: 'running', rate: 20, counters: c }), 3);
  assert.equal(etaSeconds({ status: 'running', rate: 0, counters: c }), null);
  assert.equal(etaSeconds({ status: 'paused', rate: 20, counters: c }), null);
  assert.equal(overallProgress({ status: 'finished', counters: c, settings: { fetchPages: true } as never }).value, 1);
  assert.equal(
    overallProgress({ status: 'finished', stopped: true, counters: c, settings: { fetchPages: true } as never }).value,
    0.4,
    'stopped: as far as it got',
  );
  assert.equal(overallProgress({ status: 'running', counters: c, settings: { fetchPages: false } as never }).value, 0.75, 'sitemap listing: sitemap progress');
  assert.equal(fetchProgress(emptyCounters()).value, 0);
});

test('discovery history keeps order and stays bounded', () => {
  let s = appendPoint([], progress('a', 1000, { counters: { ...emptyCounters(), discovered: 5, fetched: 1, errors: 1 } }));
  assert.deepEqual(s, [{ at: 1000, discovered: 5, handled: 2 }]);
  s = appendPoint(s, progress('a', 1000, { counters: { ...emptyCounters(), discovered: 6 } }));
  assert.equal(s.length, 1, 'same instant replaces');
  assert.equal(appendPoint(s, progress('a', 500)).length, 1, 'out of order is ignored');
  for (let i = 1; i <= MAX_POINTS * 3; i++) s = appendPoint(s, progress('a', 1000 + i, { counters: { ...emptyCounters(), discovered: i } }));
  assert.ok(s.length <= MAX_POINTS, `${s.length} points`);
  assert.equal(s[0]!.at, 1000, 'first point kept');
  assert.equal(s[s.length - 1]!.discovered, MAX_POINTS * 3, 'last point kept');
  assert.deepEqual(
    thin([1, 2, 3, 4, 5].map((at) => ({ at, discovered: 0, handled: 0 }))).map((p) => p.at),
    [1, 3, 5],
  );
});

test('chart scales and paths', () => {
  assert.deepEqual(countAxis(3700, 4), { top: 4000, ticks: [0, 1000, 2000, 3000, 4000] });
  assert.deepEqual(countAxis(9000, 4), { top: 10_000, ticks: [0, 2500, 5000, 7500, 10_000] });
  // Small counts: whole steps, never a label twice (0.5 and 1 both read "1" before).
  assert.deepEqual(countAxis(0, 4), { top: 1, ticks: [0, 1] });
  assert.deepEqual(countAxis(1, 4), { top: 1, ticks: [0, 1] });
  assert.deepEqual(countAxis(3, 4), { top: 3, ticks: [0, 1, 2, 3] });
  assert.deepEqual(countAxis(7, 4), { top: 8, ticks: [0, 2, 4, 6, 8] });
  assert.deepEqual(countAxis(11, 4), { top: 15, ticks: [0, 5, 10, 15] });
  for (let max = 0; max <= 100_000; max += max < 200 ? 1 : 997) {
    const { top, ticks } = countAxis(max, 4);
    assert.ok(top >= max && ticks[ticks.length - 1] === top, `${max}: top ${top}`);
    assert.ok(ticks.every((t) => Number.isInteger(t)) && ticks.length >= 2 && ticks.length <= 6, `${max}: ${ticks}`);
  }
  const box = { width: 100, height: 50 };
  assert.equal(
    linePath(
      [
        { x: 0, y: 0 },
        { x: 10, y: 10 },
      ],
      { x0: 0, x1: 10, y1: 10 },
      box,
    ),
    'M0,50 L100,0',
  );
  assert.equal(
    areaPath(
      [
        { x: 0, y: 0 },
        { x: 10, y: 10 },
      ],
      { x0: 0, x1: 10, y1: 10 },
      box,
    ),
    'M0,50 L100,0 L100,50 L0,50 Z',
  );
  assert.equal(linePath([], { x0: 0, x1: 1, y1: 1 }, box), '');
  const segs = donutSegments([1, 1, 2]);
  assert.equal(segs[0]!.start, 0);
  assert.ok(Math.abs(segs[2]!.end - Math.PI * 2) < 1e-9);
  assert.ok(Math.abs(segs[1]!.end - Math.PI) < 1e-9);
});

test('donut arcs: a part is one ring segment, a whole ring is drawn as two closed circles', () => {
  const quarter = arcPath(0, Math.PI / 2, 100, 10);
  assert.equal((quarter.match(/A/g) ?? []).length, 2);
  assert.match(quarter, /^M50,0 A50,50 0 0 1 100,50 L90,50 A40,40 0 0 0 50,10 Z$/);
  const full = arcPath(0, Math.PI * 2, 100, 10);
  assert.equal((full.match(/A/g) ?? []).length, 4);
  assert.equal((full.match(/Z/g) ?? []).length, 2, 'outer and inner circles, so the middle stays empty');
  assert.match(full, /A50,50 0 1 1 50,100 A50,50 0 1 1 50,0 Z/);
});

test('time axis: seconds since the start for short series, clock time for long ones', () => {
  const clock = (ms: number) => `clock ${ms}`;
  assert.equal(timeLabel(1000, 1000, 3000, clock), '0s');
  assert.equal(timeLabel(1800, 1000, 3000, clock), '0.8s');
  assert.equal(timeLabel(46_000, 1000, 50_000, clock), '45s');
  assert.equal(timeLabel(61_000, 1000, 61_000, clock), 'clock 61000');
});
