import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PageCache } from '../../renderer/src/logic/page-cache.js';

const rows = (p: number, n = 10) => Array.from({ length: n }, (_, i) => p * n + i);

test('asks only for the pages covering the visible rows, within the total', () => {
  const c = new PageCache<number>(10);
  assert.deepEqual(c.pagesToFetch(15, 34, 1000), [1, 2, 3]);
  assert.deepEqual(c.pagesToFetch(0, 50, 25), [0, 1, 2], 'rows past the total are not asked for');
  assert.deepEqual(c.pagesToFetch(0, 9, 0), [], 'an empty list needs no page');
});

test('a page being fetched is not asked for twice; a fetched one serves its rows', () => {
  const c = new PageCache<number>(10);
  const g = c.begin(1);
  assert.deepEqual(c.pagesToFetch(10, 19, 100), []);
  assert.equal(c.get(12), undefined);
  c.put(1, rows(1), g);
  assert.equal(c.get(12), 12);
  assert.deepEqual(c.pagesToFetch(10, 19, 100), []);
});

test('a failed fetch is asked for again', () => {
  const c = new PageCache<number>(10);
  const g = c.begin(0);
  c.fail(0, g);
  assert.deepEqual(c.pagesToFetch(0, 5, 100), [0]);
});

test('invalidate keeps rows visible but refetches them; an old answer never overwrites a newer one', () => {
  const c = new PageCache<number>(10);
  const g0 = c.begin(0);
  c.put(0, rows(0), g0);
  c.invalidate();
  assert.equal(c.get(3), 3, 'stale rows stay on screen');
  assert.deepEqual(c.pagesToFetch(0, 9, 100), [0]);
  const g1 = c.begin(0);
  c.put(
    0,
    rows(0).map((x) => x + 1000),
    g1,
  );
  c.put(0, rows(0), g0); // a slow answer from before the refresh
  assert.equal(c.get(3), 1003);
});

test('clear drops every row (a new filter must not show the old rows)', () => {
  const c = new PageCache<number>(10);
  c.put(0, rows(0), c.begin(0));
  c.clear();
  assert.equal(c.get(0), undefined);
  assert.equal(c.size(), 0);
});

test('memory stays bounded: the least recently read pages are evicted', () => {
  const c = new PageCache<number>(10, 3);
  for (const p of [0, 1, 2]) c.put(p, rows(p), c.begin(p));
  c.get(0); // page 0 read recently; page 1 is now the oldest
  c.put(3, rows(3), c.begin(3));
  assert.equal(c.size(), 3);
  assert.equal(c.get(5), 5);
  assert.equal(c.get(15), undefined, 'page 1 was evicted');
  assert.equal(c.get(35), 35);
});
