/** Recrawl words and rules (renderer/src/logic/recrawl.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { baseOf, canRecrawl, formatUntil, scheduleText } from '../../renderer/src/logic/recrawl.js';
import type { CrawlSummary } from '../../shared/model.js';

test('only a crawl that ran, is not running and is whole can be crawled again', () => {
  assert.deepEqual(canRecrawl({ status: 'finished' }), { ok: true });
  assert.deepEqual(canRecrawl({ status: 'paused' }), { ok: true });
  assert.deepEqual(canRecrawl({ status: 'failed' }), { ok: true });
  assert.equal(canRecrawl({ status: 'running' }).ok, false);
  assert.equal(canRecrawl({ status: 'created' }).ok, false);
  const damaged = canRecrawl({ status: 'finished', damaged: true });
  assert.equal(damaged.ok, false);
  assert.match(!damaged.ok ? damaged.why : '', /damaged/);
});

test('a schedule in words, and when its next run is', () => {
  assert.equal(scheduleText({ every: 'daily', changedOnly: false }), 'Recrawls daily');
  assert.equal(scheduleText({ every: 'weekly', changedOnly: true }), 'Recrawls weekly, changed URLs only');
  const now = 1_000_000_000;
  assert.equal(formatUntil(now - 5, now), 'now');
  assert.equal(formatUntil(now + 30_000, now), 'in 30s');
  assert.equal(formatUntil(now + 5 * 60_000, now), 'in 5 min');
  assert.equal(formatUntil(now + 23 * 3_600_000, now), 'in 23 h');
  assert.equal(formatUntil(now + 7 * 86_400_000, now), 'in 7 days');
});

test('a recrawl’s base is found in the list, when it is still there', () => {
  const a = { id: 'a' } as CrawlSummary;
  assert.equal(baseOf([a], { baseId: 'a' }), a);
  assert.equal(baseOf([a], { baseId: 'gone' }), undefined);
  assert.equal(baseOf([a], {}), undefined);
});
