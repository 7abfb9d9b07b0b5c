import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ST_DONE, UrlStore } from '../../electron/service/url-store.js';

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
  assert.equal(s.lastmod[0], Date.UTC(2024, 0, 2));

  s.result(1, ST_DONE, 200, 'A', 2 ** 32 - 1);
  assert.equal(s.resultOffset(1), 2 ** 32 - 1);
  s.result(1, ST_DONE, 200, 'A', 2 ** 33);
  assert.equal(s.resultOffset(1), 2 ** 33);
  assert.throws(() => s.result(2, ST_DONE, 200, undefined, 2 ** 40), /past 1 TiB/);
});
