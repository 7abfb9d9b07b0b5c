/** RunRing: a FIFO of ints kept as runs, usable from both ends. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunRing } from '../../electron/engine/compact/int-ring.js';

test('RunRing: shifts what was pushed at both ends, then -1 when empty', () => {
  const ring = new RunRing();
  for (let i = 0; i < 3000; i++) ring.pushBack(i);
  ring.pushFront(5000);
  assert.equal(ring.length, 3001);
  assert.equal(ring.shift(), 5000);
  for (let i = 0; i < 3000; i++) assert.equal(ring.shift(), i);
  assert.equal(ring.shift(), -1);
  assert.equal(ring.length, 0);
});

test('RunRing: keeps the exact order of pushes at both ends, as runs of consecutive values', () => {
  const ring = new RunRing();
  const model: number[] = [];
  let next = 0;
  // A frontier's pattern: admissions in id order, retries put back at either end, shifts between.
  let seed = 7;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let step = 0; step < 200_000; step++) {
    const r = rand();
    if (r < 0.6) {
      ring.pushBack(next);
      model.push(next++);
    } else if (r < 0.63 && model.length > 0) {
      const v = Math.floor(rand() * next);
      ring.pushBack(v);
      model.push(v);
    } else if (r < 0.65) {
      const v = Math.floor(rand() * next);
      ring.pushFront(v);
      model.unshift(v);
    } else {
      assert.equal(ring.shift(), model.length > 0 ? model.shift() : -1);
    }
    assert.equal(ring.length, model.length);
  }
  while (model.length > 0) assert.equal(ring.shift(), model.shift());
  assert.equal(ring.shift(), -1);

  const big = new RunRing();
  for (let i = 0; i < 1_000_000; i++) big.pushBack(i);
  assert.equal(big.length, 1_000_000);
  assert.ok(big.allocatedBytes() < 1024, `a million ids in order take one run (${big.allocatedBytes()} B)`);
  big.pushFront(999); // a retry at the front
  big.pushFront(998); // extends that run
  assert.deepEqual([big.shift(), big.shift(), big.shift(), big.shift()], [998, 999, 0, 1]);
});
