import { test } from 'node:test';
import assert from 'node:assert/strict';
import { depthBars, labelStep } from '../../renderer/src/logic/chart.js';

test('the click-depth histogram: a bar per depth, empty depths kept, "none" last and only when some URLs have none', () => {
  assert.deepEqual(depthBars([1, 0, 7], 4), [
    { depth: 0, label: '0', value: 1 },
    { depth: 1, label: '1', value: 0 },
    { depth: 2, label: '2', value: 7 },
    { depth: null, label: 'none', value: 4 },
  ]);
  assert.deepEqual(depthBars([3], 0), [{ depth: 0, label: '0', value: 3 }]);
  assert.deepEqual(depthBars([], 5), [{ depth: null, label: 'none', value: 5 }], 'a sitemap-only crawl: every URL without a click depth');
  assert.deepEqual(depthBars([], 0), []);
});

test('axis labels are thinned so that each has room', () => {
  assert.equal(labelStep(10, 600), 1);
  assert.equal(labelStep(60, 600), 3, '60 bars in 600 px: every third label');
  assert.equal(labelStep(0, 600), 1);
  assert.equal(labelStep(5, 0), 1);
});
