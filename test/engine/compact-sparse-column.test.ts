/** SparseColumn: per-id values in a Map while few ids have one, in a column once many do. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SparseColumn } from '../../electron/engine/compact/sparse-column.js';

test('SparseColumn: keeps every value as a map and, past 1 id in 16, as a column', () => {
  const col = new SparseColumn();
  const ids = 100_000;
  for (let i = 0; i < 1000; i++) col.set(i * 97, i + 1, ids, ids);
  assert.equal(col.isDense, false);
  assert.ok(col.bytes() < ids, 'a thousand values cost no column');
  for (let i = 0; i < 6000; i++) col.set(i * 13 + 5, 0xffff_ffff - i, ids, ids);
  assert.equal(col.isDense, true);
  col.grow(ids + 10);
  col.set(ids + 5, 42, ids + 6, ids + 10);
  for (let i = 0; i < 1000; i++) {
    const id = i * 97;
    const later = (id - 5) % 13 === 0 && (id - 5) / 13 < 6000 ? 0xffff_ffff - (id - 5) / 13 : i + 1;
    assert.equal(col.get(id), later, `id ${id}`);
  }
  assert.equal(col.get(5999 * 13 + 5), 0xffff_ffff - 5999);
  assert.equal(col.get(ids + 5), 42);
  assert.equal(col.get(1), 0);
});
