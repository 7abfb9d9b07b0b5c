import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryRequestQueue } from '../../electron/engine/frontier/request-queue.js';
import { EngineError, type Discovery, type Request, type RequestInit } from '../../electron/engine/types.js';
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
  assert.throws(
    () => q.reclaimRequest(last),
    (e: unknown) => e instanceof EngineError && e.code === 'NOT_IN_PROGRESS',
  );
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
  assert.throws(
    () => q.markRequestHandled({ id: 5 } as Request),
    (e: unknown) => e instanceof EngineError && e.code === 'UNKNOWN_REQUEST',
  );
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
  assert.deepEqual(q.discoveriesOf(U('/b')), [
    { source: 'link', from: U('/a') },
    { source: 'sitemap', from: U('/sm.xml') },
  ]);
  assert.deepEqual(q.fetchNextRequest(), {
    id: 1,
    url: U('/b#f'),
    uniqueKey: U('/b'),
    source: 'link',
    depth: 1,
    discoveredFrom: U('/a'),
    label: 'page',
    userData: { n: 2 },
    retryCount: 0,
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
  assert.throws(
    () => q.restoreDiscovery(42, { source: 'link' }),
    (e: unknown) => e instanceof EngineError && e.code === 'UNKNOWN_REQUEST',
  );
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
