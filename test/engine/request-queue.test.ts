import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryRequestQueue } from '../../electron/engine/frontier/request-queue.js';
import { EngineError, type Discovery, type Request, type RequestInit } from '../../electron/engine/types.js';
import { StringIndex } from '../../electron/engine/compact/string-index.js';
import { RunRing } from '../../electron/engine/compact/int-ring.js';
import { ByteArena } from '../../electron/engine/compact/byte-arena.js';
import { toUniqueKey } from '../../electron/engine/frontier/url.js';

const U = (p: string) => `http://127.0.0.1:8000${p}`;

test('admits new URLs with dense ids and counts duplicates by uniqueKey', () => {
  const q = new MemoryRequestQueue();
  const a = q.addRequest({ url: U('/a'), source: 'start', depth: 0 });
  const b = q.addRequest({ url: U('/b'), source: 'link', depth: 1, discoveredFrom: U('/a') });
  // Same resource spelled differently: host case, default port, fragment.
  const a2 = q.addRequest({ url: 'HTTP://127.0.0.1:8000/a#top', source: 'link', depth: 1, discoveredFrom: U('/b') });
  assert.deepEqual([a.id, b.id], [0, 1]);
  assert.equal(a.wasAlreadyPresent, false);
  assert.equal(a2.wasAlreadyPresent, true);
  assert.equal(a2.id, 0);
  assert.equal(a2.uniqueKey, U('/a'));
  assert.equal(q.totalCount(), 2);
  assert.equal(q.duplicateCount(), 1);
  assert.equal(q.pendingCount(), 2);
  assert.ok(q.has(U('/a')));
  assert.ok(!q.has(U('/c')));
  assert.equal(q.idOf(U('/b')), 1);
  assert.equal(q.idOf(U('/c')), undefined);
});

test('keeps query order, trailing slash and path case as different URLs', () => {
  const q = new MemoryRequestQueue();
  for (const p of ['/p?a=1&b=2', '/p?b=2&a=1', '/p/', '/p', '/P']) q.addRequest({ url: U(p), source: 'link', depth: 1 });
  assert.equal(q.totalCount(), 5);
  assert.equal(q.duplicateCount(), 0);
});

test('hands requests out in FIFO order with their fields, and tracks states', () => {
  const q = new MemoryRequestQueue();
  const entry = { loc: U('/s'), lastmod: '2024-01-01' };
  q.addRequest({ url: U('/s'), source: 'sitemap', depth: 0, discoveredFrom: U('/sitemap.xml'), label: 'page', userData: { k: 1 }, sitemapEntry: entry });
  q.addRequest({ url: 'http://127.0.0.1:8000/x#frag', source: 'link', depth: 3, discoveredFrom: U('/s') });
  const r0 = q.fetchNextRequest()!;
  assert.deepEqual(r0, {
    id: 0,
    url: U('/s'),
    uniqueKey: U('/s'),
    source: 'sitemap',
    depth: 0,
    discoveredFrom: U('/sitemap.xml'),
    label: 'page',
    userData: { k: 1 },
    retryCount: 0,
  });
  const r1 = q.fetchNextRequest()!;
  // The URL is returned as given; only the key is normalised.
  assert.equal(r1.url, 'http://127.0.0.1:8000/x#frag');
  assert.equal(r1.uniqueKey, U('/x'));
  assert.equal(r1.depth, 3);
  assert.equal(r1.discoveredFrom, U('/s'));
  assert.equal(r1.label, undefined);
  assert.equal(q.fetchNextRequest(), null);
  assert.equal(q.isEmpty(), true);
  assert.equal(q.isFinished(), false);
  assert.equal(q.inProgressCount(), 2);
  q.markRequestHandled(r0);
  q.markRequestHandled(r0); // idempotent
  assert.equal(q.isHandled(0), true);
  assert.equal(q.isHandled(1), false);
  q.markRequestHandled(r1);
  assert.equal(q.handledCount(), 2);
  assert.equal(q.isFinished(), true);
  const again = q.addRequest({ url: U('/s'), source: 'link', depth: 1 });
  assert.equal(again.wasAlreadyHandled, true);
});

test('records every discovery, first one first', () => {
  const q = new MemoryRequestQueue();
  const key = U('/page');
  q.addRequest({ url: key, source: 'sitemap', depth: 0, discoveredFrom: U('/sitemap-1.xml') });
  q.addRequest({ url: key, source: 'sitemap', depth: 0, discoveredFrom: U('/sitemap-2.xml') });
  // The linking pages are admitted URLs themselves: their text is shared, not copied.
  for (const p of ['/a', '/b', '/c']) q.addRequest({ url: U(p), source: 'link', depth: 1 });
  for (const p of ['/a', '/b', '/c']) q.addRequest({ url: key + '#x', source: 'link', depth: 2, discoveredFrom: U(p) });
  assert.deepEqual(q.discoveriesOf(key), [
    { source: 'sitemap', from: U('/sitemap-1.xml') },
    { source: 'sitemap', from: U('/sitemap-2.xml') },
    { source: 'link', from: U('/a') },
    { source: 'link', from: U('/b') },
    { source: 'link', from: U('/c') },
  ]);
  assert.deepEqual(q.discoveriesOf(U('/a')), [{ source: 'link' }]);
  assert.deepEqual(q.discoveriesOf(U('/unknown')), []);
  assert.equal(q.duplicateCount(), 4);
});

test('a page linking twice to one URL is counted twice but listed once', () => {
  const q = new MemoryRequestQueue();
  q.addRequest({ url: U('/a'), source: 'start', depth: 0 });
  q.addRequest({ url: U('/t'), source: 'link', depth: 1, discoveredFrom: U('/a') });
  q.addRequest({ url: U('/t'), source: 'link', depth: 1, discoveredFrom: U('/a') });
  q.addRequest({ url: U('/t'), source: 'link', depth: 1, discoveredFrom: U('/b') });
  q.addRequest({ url: U('/t'), source: 'link', depth: 1, discoveredFrom: U('/a') });
  assert.equal(q.duplicateCount(), 3);
  assert.deepEqual(
    q.discoveriesOf(U('/t')).map((d) => d.from),
    [U('/a'), U('/b'), U('/a')],
  );
});

test('hooks: onAdmitted gets the full request with sitemapEntry; the queue drops the entry afterwards', () => {
  const admitted: [Request, string][] = [];
  const dups: [number, Discovery, RequestInit][] = [];
  const q = new MemoryRequestQueue({
    onAdmitted: (r, s) => admitted.push([r, s]),
    onDuplicate: (id, d, init) => dups.push([id, d, init]),
  });
  const entry = { loc: U('/s'), priority: 0.5 };
  q.addRequest({ url: U('/s'), source: 'sitemap', depth: 0, discoveredFrom: U('/sm.xml'), sitemapEntry: entry });
  q.addRequest({ url: U('/l'), source: 'link', depth: 1 }, { handled: true });
  const init: RequestInit = { url: U('/s'), source: 'link', depth: 1, discoveredFrom: U('/l') };
  q.addRequest(init);
  assert.equal(admitted.length, 2);
  assert.deepEqual(admitted[0]![0].sitemapEntry, entry);
  assert.equal(admitted[0]![0].id, 0);
  assert.equal(admitted[0]![1], 'queued');
  assert.equal(admitted[1]![1], 'listed');
  assert.deepEqual(dups, [[0, { source: 'link', from: U('/l') }, init]]);
  assert.equal(q.get(0)!.sitemapEntry, undefined);
  assert.equal(q.fetchNextRequest()!.sitemapEntry, undefined);
});

test('listed requests are admitted as handled and never handed out', () => {
  const q = new MemoryRequestQueue();
  q.addRequest({ url: U('/listed'), source: 'sitemap', depth: 0 }, { handled: true });
  q.addRequest({ url: U('/queued'), source: 'sitemap', depth: 0 });
  assert.equal(q.pendingCount(), 1);
  assert.equal(q.handledCount(), 1);
  assert.equal(q.fetchNextRequest()!.url, U('/queued'));
  assert.equal(q.fetchNextRequest(), null);
});

test('a pending request marked handled is skipped when handing out', () => {
  const q = new MemoryRequestQueue();
  q.addRequest({ url: U('/1'), source: 'link', depth: 0 });
  q.addRequest({ url: U('/2'), source: 'link', depth: 0 });
  q.markRequestHandled(q.get(0)!);
  assert.equal(q.pendingCount(), 1);
  assert.equal(q.fetchNextRequest()!.id, 1);
  assert.equal(q.fetchNextRequest(), null);
});

test('reclaim puts a request back at the front or the end, counting the retry', () => {
  const q = new MemoryRequestQueue();
  for (const p of ['/1', '/2', '/3']) q.addRequest({ url: U(p), source: 'link', depth: 0 });
  const r1 = q.fetchNextRequest()!;
  q.reclaimRequest(r1, { forefront: true });
  const again = q.fetchNextRequest()!;
  assert.equal(again.id, r1.id);
  assert.equal(again.retryCount, 1);
  q.reclaimRequest(again);
  assert.deepEqual([q.fetchNextRequest()!.id, q.fetchNextRequest()!.id], [1, 2]);
  const last = q.fetchNextRequest()!;
  assert.equal(last.id, 0);
  assert.equal(last.retryCount, 2);
  q.addRequest({ url: U('/4'), source: 'link', depth: 0 });
  assert.throws(
    () => q.reclaimRequest(q.get(3)!), // pending, never handed out
    (e: unknown) => e instanceof EngineError && e.code === 'NOT_IN_PROGRESS',
  );
  q.markRequestHandled(last);
  assert.throws(() => q.reclaimRequest(last), (e: unknown) => e instanceof EngineError && e.code === 'NOT_IN_PROGRESS');
});

test('an invalid URL throws INVALID_URL and leaves the queue unchanged', () => {
  const q = new MemoryRequestQueue();
  for (const bad of ['not a url', 'ftp://127.0.0.1/x', 'mailto:a@b.c']) {
    assert.throws(
      () => q.addRequest({ url: bad, source: 'link', depth: 1 }),
      (e: unknown) => e instanceof EngineError && e.code === 'INVALID_URL',
    );
  }
  assert.throws(
    () => q.addRequest({ url: U('/x'), source: 'bogus' as never, depth: 1 }),
    (e: unknown) => e instanceof EngineError && e.code === 'INVALID_REQUEST',
  );
  assert.throws(
    () => q.addRequest({ url: U('/x'), source: 'link', depth: -1 }),
    (e: unknown) => e instanceof EngineError && e.code === 'INVALID_REQUEST',
  );
  assert.equal(q.totalCount(), 0);
  assert.throws(() => q.markRequestHandled({ id: 5 } as Request), (e: unknown) => e instanceof EngineError && e.code === 'UNKNOWN_REQUEST');
});

test('a given uniqueKey is used as is', () => {
  const q = new MemoryRequestQueue();
  q.addRequest({ url: U('/a?x'), uniqueKey: 'custom-key', source: 'link', depth: 0 });
  assert.ok(q.has('custom-key'));
  assert.equal(q.addRequest({ url: U('/b'), uniqueKey: 'custom-key', source: 'link', depth: 0 }).wasAlreadyPresent, true);
  assert.equal(q.get(0)!.url, U('/a?x'));
});

test('restore rebuilds the same ids, states and discoveries without calling hooks', () => {
  let hookCalls = 0;
  const hooks = { onAdmitted: () => hookCalls++, onDuplicate: () => hookCalls++ };
  const q = new MemoryRequestQueue(hooks);
  q.restore({ id: 0, url: U('/a'), uniqueKey: U('/a'), source: 'start', depth: 0 }, true);
  q.restore({ id: 1, url: U('/b#f'), uniqueKey: U('/b'), source: 'link', depth: 1, discoveredFrom: U('/a'), label: 'page', userData: { n: 2 } }, false);
  q.restore({ id: 2, url: U('/c'), uniqueKey: U('/c'), source: 'sitemap', depth: 0, discoveredFrom: U('/sm.xml'), sitemapEntry: { loc: U('/c') } }, false);
  q.restoreDiscovery(1, { source: 'sitemap', from: U('/sm.xml') });
  assert.equal(hookCalls, 0);
  assert.equal(q.totalCount(), 3);
  assert.equal(q.handledCount(), 1);
  assert.equal(q.pendingCount(), 2);
  assert.equal(q.duplicateCount(), 1);
  assert.deepEqual(q.discoveriesOf(U('/b')), [{ source: 'link', from: U('/a') }, { source: 'sitemap', from: U('/sm.xml') }]);
  assert.deepEqual(q.fetchNextRequest(), {
    id: 1, url: U('/b#f'), uniqueKey: U('/b'), source: 'link', depth: 1, discoveredFrom: U('/a'), label: 'page', userData: { n: 2 }, retryCount: 0,
  });
  assert.equal(q.fetchNextRequest()!.id, 2);
  // After a restore the next admission continues the id sequence, and fires hooks again.
  assert.equal(q.addRequest({ url: U('/d'), source: 'link', depth: 1 }).id, 3);
  assert.equal(q.addRequest({ url: U('/a'), source: 'link', depth: 1 }).wasAlreadyHandled, true);
  assert.equal(hookCalls, 2);
  assert.throws(
    () => q.restore({ id: 9, url: U('/z'), uniqueKey: U('/z'), source: 'link', depth: 1 }, false),
    (e: unknown) => e instanceof EngineError && e.code === 'RESTORE_OUT_OF_ORDER',
  );
  assert.throws(
    () => q.restore({ id: 4, url: U('/a'), uniqueKey: U('/a'), source: 'link', depth: 1 }, false),
    (e: unknown) => e instanceof EngineError && e.code === 'RESTORE_DUPLICATE',
  );
  assert.throws(() => q.restoreDiscovery(42, { source: 'link' }), (e: unknown) => e instanceof EngineError && e.code === 'UNKNOWN_REQUEST');
});

test('setHooks replaces the hooks of a restored queue', () => {
  const q = new MemoryRequestQueue();
  q.restore({ id: 0, url: U('/a'), uniqueKey: U('/a'), source: 'start', depth: 0 }, false);
  const seen: number[] = [];
  q.setHooks({ onAdmitted: (r) => seen.push(r.id), onDuplicate: (id) => seen.push(-1 - id) });
  q.addRequest({ url: U('/b'), source: 'link', depth: 1 });
  q.addRequest({ url: U('/a'), source: 'link', depth: 1 });
  assert.deepEqual(seen, [1, -1]);
});

test('non-ASCII and long URLs round-trip exactly', () => {
  const q = new MemoryRequestQueue();
  const weird = [U('/caf%C3%A9'), U('/ünïcödé?q=日本'), U('/' + 'x'.repeat(100_000)), U('/emoji/😀')];
  const ids = weird.map((u) => q.addRequest({ url: u, source: 'link', depth: 1, discoveredFrom: U('/ß') }).id);
  ids.forEach((id, i) => {
    const r = q.get(id)!;
    assert.equal(r.url, weird[i]);
    assert.equal(r.discoveredFrom, U('/ß'));
    assert.ok(q.has(r.uniqueKey));
  });
  assert.equal(q.addRequest({ url: weird[2]!, source: 'link', depth: 1 }).wasAlreadyPresent, true);
});

test('holds many URLs across arena chunks and table growth without losing any', () => {
  const q = new MemoryRequestQueue();
  const n = 60_000;
  for (let i = 0; i < n; i++) q.addRequest({ url: U(`/p/${i}/${'y'.repeat(i % 97)}`), source: 'sitemap', depth: 0, discoveredFrom: U(`/sm-${i % 7}.xml`) });
  for (let i = 0; i < n; i += 7) q.addRequest({ url: U(`/p/${i}/${'y'.repeat(i % 97)}`), source: 'link', depth: 1 });
  assert.equal(q.totalCount(), n);
  assert.equal(q.duplicateCount(), Math.ceil(n / 7));
  for (let i = 0; i < n; i += 997) {
    const r = q.get(i)!;
    assert.equal(r.url, U(`/p/${i}/${'y'.repeat(i % 97)}`));
    assert.equal(r.discoveredFrom, U(`/sm-${i % 7}.xml`));
  }
  let count = 0;
  for (let r = q.fetchNextRequest(); r; r = q.fetchNextRequest()) {
    assert.equal(r.id, count++);
  }
  assert.equal(count, n);
});

test('URLs that differ from their key read back alike while rare and once common (offsets Map, then column)', () => {
  const q = new MemoryRequestQueue();
  const expect: string[] = [];
  // Canonical sitemap URLs with a few fragment links among them, then a run of fragment links: the
  // offsets move from the Map to a column part-way; every URL must read back as given.
  for (let i = 0; i < 6000; i++) {
    const url = i % 500 === 7 || i >= 4000 ? U(`/p/${i}#frag`) : U(`/p/${i}`);
    assert.equal(q.addRequest({ url, source: i % 2 ? 'link' : 'sitemap', depth: 0 }).id, i);
    expect.push(url);
  }
  for (let i = 0; i < expect.length; i++) {
    assert.equal(q.get(i)!.url, expect[i]);
    assert.equal(q.get(i)!.uniqueKey, U(`/p/${i}`));
  }
  assert.equal(q.fetchNextRequest()!.url, expect[0]);
});

test('compact: StringIndex shares directory prefixes, and past their cap still finds every string it interned', () => {
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

test('compact: StringIndex interns, finds and survives rehashing; ring works at both ends', () => {
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

  const ring = new RunRing();
  for (let i = 0; i < 3000; i++) ring.pushBack(i);
  ring.pushFront(5000);
  assert.equal(ring.length, 3001);
  assert.equal(ring.shift(), 5000);
  for (let i = 0; i < 3000; i++) assert.equal(ring.shift(), i);
  assert.equal(ring.shift(), -1);
  assert.equal(ring.length, 0);

  const arena = new ByteArena();
  const off = arena.append('hello');
  arena.stage('ignored');
  const off2 = arena.append('world');
  assert.equal(arena.read(off, 5), 'hello');
  assert.equal(arena.read(off2, 5), 'world');

  // stageFrom copies ASCII text itself and hands other text to the encoder: either way its hash is
  // the one the table is rebuilt with (hashAt over the stored bytes), and the bytes are the UTF-8.
  for (const [text, from] of [['https://a.example/x/item-1?q=2', 17], ['https://a.example/x/café-ü', 17], ['naïve', 0], ['abc€', 3], ['', 0], ['xy', 2]] as const) {
    for (const seed of [0, 7]) {
      const h = arena.stageFrom(text, from, seed);
      const rest = text.slice(from);
      assert.equal(arena.stagedLength, Buffer.byteLength(rest), text);
      assert.equal(h, arena.hashAt(arena.stagedOffset, arena.stagedLength, seed), text);
      arena.commit();
      assert.equal(arena.read(arena.stagedOffset, arena.stagedLength), rest, text);
      arena.stage(rest);
      assert.equal(arena.hashStaged(seed), h, text);
      // hashOf: the same hash without staging, for ASCII text (-1 otherwise); stageAscii: its bytes.
      const ascii = !/[^\x00-\x7f]/.test(rest);
      assert.equal(arena.hashOf(text, from, seed), ascii ? h : -1, text);
      if (ascii) {
        arena.stageAscii(text, from);
        assert.equal(arena.stagedLength, rest.length, text);
        assert.equal(arena.hashStaged(seed), h, text);
        arena.commit();
        assert.equal(arena.read(arena.stagedOffset, arena.stagedLength), rest, text);
      }
    }
  }
});

test('compact: StringIndex.prepare readies a batch: the same ids, and every string found again unprepared', () => {
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
      else if (r === 1 && next > 0) batch.push(key((next * 7) % next)); // seen before
      else if (r === 2 && batch.length > 0) batch.push(batch[batch.length - 1]); // twice in a row
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

test('compact: StringIndex tells strings apart by the hash tags in its slots at every table size', () => {
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

test('compact: StringIndex finds every string while its table grows a few strings at a time', () => {
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

test('compact: StringIndex.reserve grows the table many times over at once and loses nothing', () => {
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

test('compact: RunRing keeps the exact order of pushes at both ends, as runs of consecutive values', () => {
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

test('later discoveries are kept exactly whether few URLs are found again (a map) or many (a column)', () => {
  const q = new MemoryRequestQueue();
  const n = 20_000;
  for (let i = 0; i < n; i++) q.addRequest({ url: U(`/p${i}`), source: 'sitemap', depth: 0, discoveredFrom: U('/sitemap.xml') });
  const sparse = q.allocatedBytes();
  // A few found again (a sitemap crawl): no per-URL column for them.
  for (let i = 0; i < 100; i++) q.addRequest({ url: U(`/p${i * 7}`), source: 'link', depth: 1, discoveredFrom: U('/p1') });
  assert.ok(q.allocatedBytes() - sparse < n * 4, 'a hundred rediscoveries do not cost a column');
  assert.deepEqual(q.discoveriesOf(toUniqueKey(U('/p7'))), [
    { source: 'sitemap', from: U('/sitemap.xml') },
    { source: 'link', from: U('/p1') },
  ]);
  // Then most found again from two pages each (a link crawl): the map becomes a column.
  for (let i = 0; i < n; i += 2) {
    q.addRequest({ url: U(`/p${i}`), source: 'link', depth: 1, discoveredFrom: U('/p2') });
    q.addRequest({ url: U(`/p${i}`), source: 'link', depth: 1, discoveredFrom: U('/p3') });
  }
  assert.deepEqual(q.discoveriesOf(toUniqueKey(U('/p14'))), [
    { source: 'sitemap', from: U('/sitemap.xml') },
    { source: 'link', from: U('/p1') },
    { source: 'link', from: U('/p2') },
    { source: 'link', from: U('/p3') },
  ]);
  assert.deepEqual(q.discoveriesOf(toUniqueKey(U('/p1'))), [{ source: 'sitemap', from: U('/sitemap.xml') }]);
  // New URLs after the switch still start with no later discovery.
  q.addRequest({ url: U('/new'), source: 'link', depth: 2, discoveredFrom: U('/p2') });
  assert.deepEqual(q.discoveriesOf(toUniqueKey(U('/new'))), [{ source: 'link', from: U('/p2') }]);
  assert.equal(q.duplicateCount(), 100 + n);
});

test('first discoveries: 16-bit refs for a sitemap crawl, widened once a page past id 32,767 links to a URL', () => {
  const q = new MemoryRequestQueue();
  const n = 40_000;
  for (let i = 0; i < n; i++) q.addRequest({ url: U(`/p${i}`), source: 'sitemap', depth: 0, discoveredFrom: U(`/sitemap-${i % 3}.xml`) });
  // Linked from early pages (ids below 32,768), from the sitemap side table, and from no page at all.
  q.addRequest({ url: U('/a'), source: 'link', depth: 1, discoveredFrom: U('/p5') });
  q.addRequest({ url: U('/b'), source: 'link', depth: 1, discoveredFrom: U('/elsewhere') });
  q.addRequest({ url: U('/c'), source: 'start', depth: 0 });
  const narrow = q.allocatedBytes();
  // A page with id 39,999 links to a new URL: the column widens (2 more bytes per URL), every ref read back as it was.
  q.addRequest({ url: U('/d'), source: 'link', depth: 1, discoveredFrom: U(`/p${n - 1}`) });
  const grown = q.allocatedBytes() - narrow;
  assert.ok(grown >= n * 2 && grown < n * 3, `widened from 16 to 32 bits: ${grown} bytes more`);
  for (const i of [0, 1, 2, 32_767, 32_768, n - 1]) {
    assert.deepEqual(q.discoveriesOf(toUniqueKey(U(`/p${i}`))), [{ source: 'sitemap', from: U(`/sitemap-${i % 3}.xml`) }], `p${i}`);
  }
  assert.deepEqual(q.discoveriesOf(toUniqueKey(U('/a'))), [{ source: 'link', from: U('/p5') }]);
  assert.deepEqual(q.discoveriesOf(toUniqueKey(U('/b'))), [{ source: 'link', from: U('/elsewhere') }]);
  assert.deepEqual(q.discoveriesOf(toUniqueKey(U('/c'))), [{ source: 'start' }]);
  assert.deepEqual(q.discoveriesOf(toUniqueKey(U('/d'))), [{ source: 'link', from: U(`/p${n - 1}`) }]);
});

test('labels: none kept until the first, then each URL its own, past 255 distinct ones too', () => {
  const q = new MemoryRequestQueue();
  for (let i = 0; i < 3000; i++) q.addRequest({ url: U(`/n${i}`), source: 'sitemap', depth: 0 });
  const unlabelled = q.allocatedBytes();
  q.addRequest({ url: U('/l0'), source: 'link', depth: 1, label: 'page' });
  assert.ok(q.allocatedBytes() >= unlabelled + 3000, 'a label column once a URL has a label');
  for (let i = 1; i < 300; i++) q.addRequest({ url: U(`/l${i}`), source: 'link', depth: 1, label: `label-${i}` });
  q.addRequest({ url: U('/after'), source: 'link', depth: 1 });
  assert.equal(q.get(0)!.label, undefined);
  assert.equal(q.get(2999)!.label, undefined);
  assert.equal(q.get(3000)!.label, 'page');
  assert.equal(q.get(3000 + 299)!.label, 'label-299');
  assert.equal(q.get(3300)!.label, undefined);
});

test('compact: SparseColumn keeps every value as a map and, past 1 id in 16, as a column', async () => {
  const { SparseColumn } = await import('../../electron/engine/compact/sparse-column.js');
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
