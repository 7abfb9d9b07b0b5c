/** StringIndex: interning to dense ids, lookups through table growth and reservation, shared prefixes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StringIndex } from '../../electron/engine/compact/string-index.js';

test('StringIndex: interns, finds and survives rehashing', () => {
  const idx = new StringIndex();
  for (let i = 0; i < 5000; i++) assert.equal(idx.intern(`k${i}`), i);
  assert.equal(idx.added, true);
  assert.equal(idx.intern('k42'), 42);
  assert.equal(idx.added, false);
  assert.equal(idx.find('k4999'), 4999);
  assert.equal(idx.find('k5000'), -1);
  assert.equal(idx.get(123), 'k123');
  // A failed find must not leave bytes behind that a later intern would read.
  idx.find('zzzzzzzz');
  assert.equal(idx.get(idx.intern('zz')), 'zz');
});

test('StringIndex: shares directory prefixes, and past their cap still finds every string it interned', () => {
  const idx = new StringIndex({ sharePrefixes: true });
  const urls: string[] = [];
  for (let i = 0; i < 6000; i++) urls.push(`https://h.test/d${i}/page`); // more unique directories than the cap
  for (let i = 0; i < 3000; i++) urls.push(`https://h.test/shared/dir/item-${i}?back=/a/b`);
  for (let i = 0; i < 100; i++) urls.push(`https://h.test/root-${i}`);
  urls.push('https://h.test/a/', 'not a url', 'https://other.test/d9999/x', 'https://h.test/shared/dir/');
  urls.forEach((u, i) => assert.equal(idx.intern(u), i, u));
  urls.forEach((u, i) => {
    assert.equal(idx.find(u), i, u);
    assert.equal(idx.get(i), u);
    assert.equal(idx.intern(u), i);
    assert.equal(idx.added, false, u);
  });
  assert.equal(idx.find('https://h.test/d7000/page'), -1);
  assert.equal(idx.find('https://h.test/shared/dir/item-x'), -1);
  assert.equal(idx.find('https://new.test/a/b'), -1);
  assert.equal(idx.find('https://h.test/d1/other'), -1);
});

test('StringIndex: prepare readies a batch: the same ids, and every string found again unprepared', () => {
  // Two indexes take the same strings; one is told each batch ahead (prepare), with what a real batch
  // holds: keys repeated within it and from earlier batches, keys it then skips (filtered out) or takes
  // out of turn, no key (undefined), new directories (no prefix yet when prepared), non-ASCII text,
  // non-URLs, and batches over PREPARE_MAX, through the table's growths and a reservation.
  const key = (i: number): string => {
    if (i % 97 === 5) return `https://shop.example/c${i % 3}/café-${i}`;
    if (i % 89 === 7) return `not a url ${i}`;
    return `https://shop.example/c${i % 13}/${i % 500 === 0 ? `d${i}/` : ''}p-${i}${i % 7 === 0 ? '?v=1' : ''}`;
  };
  const plain = new StringIndex({ sharePrefixes: true });
  const ready = new StringIndex({ sharePrefixes: true });
  let next = 0;
  let batchNo = 0;
  while (next < 120_000) {
    const size = batchNo % 10 === 3 ? 1500 : 1 + ((batchNo * 37) % 300);
    const batch: (string | undefined)[] = [];
    for (let j = 0; j < size; j++) {
      const r = (next * 31 + j) % 50;
      if (r === 0) batch.push(undefined);
      else if (r === 1 && next > 0)
        batch.push(key((next * 7) % next)); // seen before
      else if (r === 2 && batch.length > 0)
        batch.push(batch[batch.length - 1]); // twice in a row
      else batch.push(key(next++));
    }
    if (batchNo === 40) {
      plain.reserve(200_000);
      ready.reserve(200_000);
    }
    ready.prepare(batch, batch.length);
    const order = batch.map((_, j) => j);
    if (batchNo % 5 === 1 && order.length > 3) [order[1], order[2]] = [order[2]!, order[1]!]; // out of turn
    for (const j of order) {
      const s = batch[j];
      if (s === undefined || (j * 13 + batchNo) % 41 === 0) continue; // skipped after being prepared
      const id = plain.intern(s);
      assert.equal(ready.intern(s), id, s);
      assert.equal(ready.added, plain.added, s);
    }
    batchNo++;
  }
  assert.equal(ready.size, plain.size);
  for (let id = 0; id < plain.size; id++) {
    const s = plain.get(id);
    assert.equal(ready.get(id), s);
    assert.equal(ready.find(s), id, s);
  }
  for (let i = next; i < next + 1000; i++) assert.equal(ready.find(key(i)), -1);
});

test('StringIndex: tells strings apart by the hash tags in its slots at every table size', () => {
  // Through eight rehashes (1,024 to 524,288 slots; the tag shrinks from 22 to 13 bits), URL-like keys
  // sharing prefixes, and as many absent ones shaped alike.
  const idx = new StringIndex({ sharePrefixes: true });
  const n = 300_000;
  const key = (i: number): string => `https://www.example.com/c${i % 97}/item-${i}`;
  for (let i = 0; i < n; i++) {
    assert.equal(idx.intern(key(i)), i);
    if ((i & (i - 1)) === 0) for (let j = 0; j <= i; j += 1 + (i >>> 6)) assert.equal(idx.find(key(j)), j, `after ${i + 1}: ${key(j)}`);
  }
  for (let i = 0; i < n; i++) {
    assert.equal(idx.find(key(i)), i);
    assert.equal(idx.find(key(i + n)), -1);
    assert.equal(idx.find(`${key(i)}x`), -1);
  }
  for (let i = 0; i < n; i += 7) {
    assert.equal(idx.intern(key(i)), i);
    assert.equal(idx.added, false);
  }
  assert.equal(idx.size, n);
});

test('StringIndex: finds every string while its table grows a few strings at a time', () => {
  // The table before a growth stays until every id is moved: between, lookups must see both tables,
  // and a string already interned (moved or not) must never get a second id.
  const idx = new StringIndex({ sharePrefixes: true });
  const key = (i: number): string => `https://shop.example/c${i % 13}/p-${i}${i % 7 === 0 ? '?v=1' : ''}`;
  const n = 200_000;
  for (let i = 0; i < n; i++) {
    assert.equal(idx.intern(key(i)), i);
    assert.equal(idx.added, true);
    const a = i >>> 1;
    const b = Math.max(0, i - 3);
    assert.equal(idx.find(key(a)), a);
    assert.equal(idx.intern(key(b)), b);
    assert.equal(idx.added, false);
    assert.equal(idx.find(key(i + 1)), -1);
  }
  assert.equal(idx.size, n);
  for (let i = 0; i < n; i += 3) assert.equal(idx.get(i), key(i));
});

test('StringIndex: reserve grows the table many times over at once and loses nothing', () => {
  // Reserved at several sizes and moments: empty, a few strings in, with strings displaced from their
  // home slot (moved by their hash) and at home (moved by the bits of their tag), and while a growth
  // is under way (then it takes effect once that one is done); lookups right after, during the move
  // and after it.
  const key = (i: number): string => `https://shop.example/c${i % 11}/p-${i}${i % 5 === 0 ? '?v=1' : ''}`;
  const tableBytes = (idx: StringIndex): number => (idx as unknown as { table: Uint32Array }).table.byteLength;
  for (const [at, reserveFor] of [
    [0, 50_000],
    [700, 120_000],
    [5_000, 1_000_000], // the table is growing from 8,192 to 16,384 slots at 5,000 strings
    [3_100, 400_000],
    [30_000, 40_000], // no more than the table holds: no growth
  ] as const) {
    const idx = new StringIndex({ sharePrefixes: true });
    const n = 60_000;
    for (let i = 0; i < n; i++) {
      if (i === at) {
        idx.reserve(reserveFor);
        for (let j = 0; j < i; j += 1 + (i >>> 8)) assert.equal(idx.find(key(j)), j, `right after reserve at ${i}: ${key(j)}`);
      }
      assert.equal(idx.intern(key(i)), i);
      assert.equal(idx.added, true);
      const b = i >>> 1;
      assert.equal(idx.intern(key(b)), b);
      assert.equal(idx.added, false);
      assert.equal(idx.find(key(i + 1)), -1);
    }
    for (let i = 0; i < n; i++) assert.equal(idx.find(key(i)), i);
    assert.equal(idx.find(key(n)), -1);
    assert.equal(idx.size, n);
    const slots = Math.max(1 << Math.ceil(Math.log2(reserveFor / 0.6)), 1 << Math.ceil(Math.log2(n / 0.6)));
    assert.equal(tableBytes(idx), slots * 4, `reserve(${reserveFor}) at ${at}: a table of ${slots} slots`);
  }
});
