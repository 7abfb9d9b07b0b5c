import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crawlRunningMs } from '../../shared/model.js';

test('crawlRunningMs adds up the runs, the current one to now, and not the time paused', () => {
  const base = { status: 'paused' as const, startedAt: 1_000, updatedAt: 90_000 };
  assert.equal(crawlRunningMs({ ...base, activeMs: 4_000 }, 100_000), 4_000, 'paused: the runs that ended');
  assert.equal(crawlRunningMs({ ...base, status: 'running', activeMs: 4_000, runningSince: 95_000 }, 100_000), 9_000);
  assert.equal(crawlRunningMs({ ...base, status: 'running', runningSince: 95_000 }, 100_000), 5_000, 'the first run');
  assert.equal(crawlRunningMs({ ...base, status: 'running', runningSince: 105_000 }, 100_000), 0, 'a clock behind the start counts 0');
  assert.equal(crawlRunningMs({ status: 'created', updatedAt: 5 }, 100_000), null, 'never ran');
  // Recorded before runs were timed: start to end, or to the last update.
  assert.equal(crawlRunningMs({ ...base, status: 'finished', finishedAt: 31_000 }, 100_000), 30_000);
  assert.equal(crawlRunningMs(base, 100_000), 89_000);
});
