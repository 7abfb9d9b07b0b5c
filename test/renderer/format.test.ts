import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatAgeShort,
  formatAgo,
  formatBytes,
  formatCompact,
  formatCount,
  formatDuration,
  formatPercent,
  formatRate,
  lastSegment,
  pathOf,
  stripScheme,
} from '../../renderer/src/logic/format.js';

test('counts get thousands separators and a dash for missing values', () => {
  assert.equal(formatCount(1234567), '1,234,567');
  assert.equal(formatCount(0), '0');
  assert.equal(formatCount(undefined), '—');
  assert.equal(formatCount(Number.NaN), '—');
});

test('compact numbers switch units at 10k, 1M and 1B', () => {
  assert.equal(formatCompact(9999), '9,999');
  assert.equal(formatCompact(12_345), '12.3k');
  assert.equal(formatCompact(1_250_000), '1.3M');
  assert.equal(formatCompact(2_000_000_000), '2B');
});

test('bytes use binary units', () => {
  assert.equal(formatBytes(980), '980 B');
  assert.equal(formatBytes(1024), '1 KB');
  assert.equal(formatBytes(1536), '1.5 KB');
  assert.equal(formatBytes(5 * 1024 * 1024), '5 MB');
  assert.equal(formatBytes(200 * 1024), '200 KB');
});

test('durations read as the largest two units', () => {
  assert.equal(formatDuration(45), '45s');
  assert.equal(formatDuration(723), '12m 03s');
  assert.equal(formatDuration(3 * 3600 + 4 * 60), '3h 04m');
  assert.equal(formatDuration(2 * 86400 + 5 * 3600), '2d 5h');
  assert.equal(formatDuration(null), '—');
  assert.equal(formatDuration(-1), '—');
});

test('rates and percentages', () => {
  assert.equal(formatRate(0), '0/s');
  assert.equal(formatRate(3.44), '3.4/s');
  assert.equal(formatRate(120.4), '120/s');
  assert.equal(formatPercent(1, 3), '33%');
  assert.equal(formatPercent(1, 200), '0.5%');
  assert.equal(formatPercent(5, 0), '0%');
});

test('URL helpers: scheme stripping, path and last segment', () => {
  assert.equal(stripScheme('https://a.com/x'), 'a.com/x');
  assert.equal(pathOf('https://a.com/x/y?q=1'), '/x/y?q=1');
  assert.equal(pathOf('not a url'), 'not a url');
  assert.equal(lastSegment('https://a.com/maps/sitemap-1.xml.gz'), 'sitemap-1.xml.gz');
  assert.equal(lastSegment('https://a.com/'), 'a.com');
  assert.equal(lastSegment('https://a.com/s%C3%A9/map.xml?p=2'), 'map.xml?p=2');
});

test('ages: a sentence for tooltips, a short form for the sidebar', () => {
  const now = 10_000_000_000;
  assert.equal(formatAgo(now - 3_000, now), 'just now');
  assert.equal(formatAgo(now - 5 * 60_000, now), '5 min ago');
  assert.equal(formatAgo(now - 3 * 86_400_000, now), '3 days ago');
  assert.equal(formatAgeShort(now - 30_000, now), 'now');
  assert.equal(formatAgeShort(now - 5 * 60_000, now), '5m');
  assert.equal(formatAgeShort(now - 3 * 3_600_000, now), '3h');
  assert.equal(formatAgeShort(now - 3 * 86_400_000, now), '3d');
  assert.equal(formatAgeShort(undefined, now), '—');
});
