/** Typed-array columns that grow in place on a resizable ArrayBuffer, or by copying where they cannot. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { column, ensureCapacity, growsInPlace, nextCapacity } from '../../electron/engine/compact/typed-growth.js';

test('a column grows in place: the same array, its values kept, new slots zero, at most an eighth of slack', () => {
  const col = column(Uint32Array);
  assert.equal(col.length, 0);
  assert.equal(growsInPlace(col), true, 'Node 20 gives resizable ArrayBuffers');
  let same = col;
  for (let i = 0; i < 300_000; i++) {
    same = ensureCapacity(same, i + 1);
    same[i] = i * 7;
  }
  assert.equal(same, col, 'no copy was made');
  assert.ok(col.length >= 300_000 && col.length <= 300_000 * 1.125 + 1024, `capacity ${col.length}`);
  for (const i of [0, 1, 1023, 1024, 65_535, 299_999]) assert.equal(col[i], i * 7);
  assert.equal(col[300_000] ?? 0, 0);
});

test('each column type grows in place; a column past its reservation is copied into a larger one', () => {
  for (const ctor of [Uint8Array, Uint16Array, Int32Array, Float64Array] as const) {
    const col = column(ctor as Uint8ArrayConstructor);
    assert.equal(ensureCapacity(col, 5000), col);
    col[4999] = 9;
    assert.equal(col[4999], 9);
  }
  const small = column(Int32Array, 2048);
  const a = ensureCapacity(small, 2000);
  assert.equal(a, small);
  a[1999] = -5;
  const b = ensureCapacity(a, 10_000);
  assert.notEqual(b, a, 'past 2048 entries the reservation is outgrown');
  assert.ok(b.length >= 10_000);
  assert.equal(b[1999], -5);
  assert.equal(growsInPlace(b), true, 'the copy grows in place again');
  assert.equal(ensureCapacity(b, b.length + 1), b);
});

test('a plain typed array still grows by copying, by half again', () => {
  const plain = new Uint16Array(10);
  plain[3] = 42;
  const grown = ensureCapacity(plain, 11);
  assert.notEqual(grown, plain);
  assert.equal(grown.length, 1024);
  assert.equal(grown[3], 42);
  assert.equal(nextCapacity(1024, 1025), 1536);
});
