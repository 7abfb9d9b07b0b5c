import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ST_DONE, UrlStore } from '../../electron/service/data/url-store.js';

test('UrlStore keeps journal offsets past 4 GiB exactly, the first sitemap entry and the latest result', () => {
  const s = new UrlStore();
  const big = 5 * 2 ** 32 + 12_345; // a journal past 20 GiB
  s.admit(0, 'sitemap', true, 0, 0, big, '2024-01-02');
  s.admit(1, 'link', false, 1, -1, -1, undefined);
  s.admit(2, 'sitemap', true, 0, 0, 0, undefined); // a record at offset 0 is a real one
  assert.equal(s.entryOffset(0), big);
  assert.equal(s.entryOffset(1), -1);
  assert.equal(s.entryOffset(2), 0);
  assert.equal(s.resultOffset(0), -1);

  s.listing(0, 1, 77, '2020-01-01'); // listed again: the first entry stays
  assert.equal(s.entryOffset(0), big);
  assert.equal(s.lastmodOf(0), Date.UTC(2024, 0, 2) / 1000);
  assert.equal(s.lastmodOf(1), 0, 'no lastmod');

  s.result(1, ST_DONE, 200, 'A', 2 ** 32 - 1);
  assert.equal(s.resultOffset(1), 2 ** 32 - 1);
  s.result(1, ST_DONE, 200, 'A', 2 ** 33);
  assert.equal(s.resultOffset(1), 2 ** 33);
  s.result(1, ST_DONE, 200, 'A', 5); // below 4 GiB again: the high byte is cleared
  assert.equal(s.resultOffset(1), 5);
  assert.throws(() => s.result(2, ST_DONE, 200, undefined, 2 ** 40), /past 1 TiB/);
});

test('UrlStore reads each lastmod, any spelling; a URL listed again shows the entry with the latest', () => {
  const s = new UrlStore();
  s.admit(0, 'sitemap', true, 0, 0, 10, '2024-01-02T00:00:07Z');
  s.admit(1, 'sitemap', true, 0, 0, 20, '2024-01-02');
  s.admit(2, 'sitemap', true, 0, 0, 30, 'Tue, 02 Jan 2024 10:00:00 GMT'); // no W3C Datetime: Date.parse
  s.admit(3, 'sitemap', true, 0, 0, 40, 'someday');
  s.admit(4, 'sitemap', true, 0, 0, 50, undefined);
  assert.equal(s.lastmodOf(0), Date.UTC(2024, 0, 2, 0, 0, 7) / 1000);
  assert.equal(s.lastmodOf(1), Date.UTC(2024, 0, 2) / 1000);
  assert.equal(s.lastmodOf(2), Date.UTC(2024, 0, 2, 10) / 1000);
  assert.equal(s.lastmodOf(3), 0);
  assert.equal(s.lastmodOf(4), 0);
  s.admit(5, 'link', false, 1, -1, -1, undefined);
  s.listing(5, 1, 60, '2024-03-04');
  assert.equal(s.lastmodOf(5), Date.UTC(2024, 2, 4) / 1000, 'a later listing gives its first entry');
  assert.equal(s.entryOffset(5), 60);
  s.listing(5, 2, 70, '2025-01-01');
  assert.deepEqual([s.lastmodOf(5), s.entryOffset(5)], [Date.UTC(2025, 0, 1) / 1000, 70], 'a later lastmod: its entry is the one shown');
  s.listing(5, 3, 80, '2024-12-31');
  s.listing(5, 3, 90, undefined);
  s.listing(5, 3, 100, 'someday');
  assert.deepEqual([s.lastmodOf(5), s.entryOffset(5)], [Date.UTC(2025, 0, 1) / 1000, 70], 'an earlier, missing or unreadable one does not replace it');
  // Written first without a lastmod, then with one: the one with the date is shown (the audit judges it).
  s.admit(6, 'sitemap', true, 0, 0, 110, undefined);
  s.listing(6, 0, 120, '2024-06-18');
  assert.deepEqual([s.lastmodOf(6), s.entryOffset(6)], [Date.UTC(2024, 5, 18) / 1000, 120]);
});

test('UrlStore grows its result columns only as results come, and reads no result as none', () => {
  const s = new UrlStore();
  for (let id = 0; id < 5000; id++) s.admit(id, 'sitemap', false, 0, 0, id * 10, undefined);
  const listedOnly = s.allocatedBytes();
  assert.equal(s.statusOf(4999), 0);
  assert.equal(s.resultOffset(4999), -1);
  s.result(4999, ST_DONE, 404, undefined, 123);
  assert.ok(s.allocatedBytes() >= listedOnly + 5000 * 6, 'status and result offsets now cover the ids');
  const before4GiB = s.allocatedBytes();
  s.result(10, ST_DONE, 200, undefined, 2 ** 32 + 5); // a journal past 4 GiB: the high bytes appear
  assert.ok(s.allocatedBytes() >= before4GiB + 5000, 'a high-byte column for the result offsets');
  assert.equal(s.resultOffset(10), 2 ** 32 + 5);
  assert.equal(s.resultOffset(4999), 123, 'earlier offsets read the same');
  assert.equal(s.statusOf(4999), 404);
  assert.equal(s.resultOffset(4999), 123);
  assert.equal(s.statusOf(4998), 0);
  assert.equal(s.resultOffset(4998), -1);
  assert.equal(s.counters(0).byStatusClass['4xx'], 1);
});

test('lastmodSeconds keeps whole seconds, clamps the far past and future, and maps no date to 0', async () => {
  const { lastmodSeconds } = await import('../../electron/service/data/url-store.js');
  assert.equal(lastmodSeconds(Date.UTC(2024, 0, 2, 3, 4, 5, 999)), Date.UTC(2024, 0, 2, 3, 4, 5) / 1000);
  assert.equal(lastmodSeconds(NaN), 0);
  assert.equal(lastmodSeconds(Date.UTC(1969, 0, 1)), 1);
  assert.equal(lastmodSeconds(Date.UTC(2200, 0, 1)), 0xffff_ffff);
});

test('UrlStore: no depth column while every URL has depth 0; sitemap slots widen past 65,535 sitemaps', () => {
  const s = new UrlStore();
  for (let id = 0; id < 5000; id++) s.admit(id, 'sitemap', true, 0, id % 3, id, undefined);
  const flat = s.allocatedBytes();
  assert.deepEqual([...s.depthColumn().subarray(0, 3)], [0, 0, 0]);
  s.admit(5000, 'link', false, 70_000, -1, -1, undefined); // deeper than a Uint16
  s.admit(5001, 'link', false, 3, -1, -1, undefined);
  assert.ok(s.allocatedBytes() >= flat + 5000 * 2, 'the depth column appears with the first URL deeper than 0');
  const depth = s.depthColumn();
  assert.deepEqual([depth[4999], depth[5000], depth[5001]], [0, 0xffff, 3]);

  s.listing(4999, 70_000, 1, undefined); // a second sitemap past the 16-bit range: widened, values kept
  s.admit(5002, 'sitemap', true, 0, 65_535, 2, undefined);
  assert.deepEqual(s.sitemapsOf(4999), [4999 % 3, 70_000]);
  assert.deepEqual(s.sitemapsOf(5002), [65_535]);
  assert.deepEqual(s.sitemapsOf(1), [1]);
  assert.deepEqual(s.sitemapsOf(5000), []);
  for (let id = 5003; id < 6000; id++) s.admit(id, 'sitemap', true, 0, 100_000 + id, id, undefined);
  assert.deepEqual(s.sitemapsOf(5999), [105_999]);
});
