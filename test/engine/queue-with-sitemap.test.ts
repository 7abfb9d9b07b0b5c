import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHttpFetcher } from '../../electron/engine/http/http.js';
import { RequestQueueWithSitemap } from '../../electron/engine/frontier/queue-with-sitemap.js';
import { MemoryRequestQueue } from '../../electron/engine/frontier/request-queue.js';
import { SitemapRequestList } from '../../electron/engine/sitemap/request-list.js';
import type { ListingWire, Request, RequestInit, RequestQueue } from '../../electron/engine/types.js';
import { startLocalServer, type LocalServer } from '../fixtures/server.js';

const urlset = (origin: string, paths: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
  paths.map((p) => `<url><loc>${origin}${p}</loc></url>`).join('\n') +
  `\n</urlset>\n`;

const range = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** Serves sitemaps by path (a function of the origin) and 404 elsewhere. */
async function serve(docs: Record<string, (origin: string) => string>): Promise<LocalServer> {
  return startLocalServer(({ res, path }, server) => {
    const doc = docs[path] as ((origin: string) => string) | undefined;
    const body = doc ? doc(server.origin) : 'not found';
    res.writeHead(doc ? 200 : 404, { 'content-type': doc ? 'application/xml' : 'text/plain', 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  });
}

function listOf(server: LocalServer, roots: string[]): SitemapRequestList {
  const fetcher = createHttpFetcher({
    userAgent: 't',
    timeoutMs: 5000,
    connectTimeoutMs: 2000,
    retries: 0,
    maxBodyBytes: 1 << 20,
    perHostConcurrency: 2,
    delayMs: 0,
  });
  return new SitemapRequestList({ sitemapUrls: roots.map((p) => server.origin + p), fetcher });
}

/** A list handing out the given inits, counting how many were taken. */
function fakeList(inits: RequestInit[]) {
  let i = 0;
  const list = {
    taken: () => i,
    fetchNext: async () => (i < inits.length ? inits[i++]! : null),
    fetchNextBatch: async (max: number) => {
      const out = inits.slice(i, i + max);
      i += out.length;
      return out;
    },
    isFinished: async () => i >= inits.length,
    isEmpty: async () => i >= inits.length,
    readCount: () => 0,
    expectedUrls: () => 0,
  };
  return list as typeof list & SitemapRequestList;
}

const entry = (url: string): RequestInit => ({
  url,
  source: 'sitemap',
  depth: 0,
  discoveredFrom: 'http://127.0.0.1:1/sitemap.xml',
  sitemapEntry: { loc: url },
});

test('start URLs, links and sitemap entries converge on one queue and are deduplicated', async () => {
  const server = await serve({ '/sitemap.xml': (o) => urlset(o, ['/', '/a', '/b']) });
  try {
    const o = server.origin;
    const admitted: Request[] = [];
    const queue = new MemoryRequestQueue({ onAdmitted: (r) => admitted.push(r) });
    const q = new RequestQueueWithSitemap({ queue, list: listOf(server, ['/sitemap.xml']) });
    q.addRequest({ url: `${o}/`, source: 'start', depth: 0 });
    const handed: Request[] = [];
    for (let r = await q.fetchNextRequest(); r; r = await q.fetchNextRequest()) {
      handed.push(r);
      if (r.url === `${o}/`) {
        // The start page links to /a (also in the sitemap) and /c (only linked).
        q.addRequest({ url: `${o}/a#top`, source: 'link', depth: 1, discoveredFrom: `${o}/` });
        q.addRequest({ url: `${o}/c`, source: 'link', depth: 1, discoveredFrom: `${o}/` });
      }
      q.markRequestHandled(r);
    }
    assert.deepEqual(handed.map((r) => r.url.slice(o.length)).sort(), ['/', '/a', '/b', '/c']);
    assert.equal(queue.totalCount(), 4);
    assert.equal(queue.duplicateCount(), 2, 'the sitemap\'s "/" and the link to /a');
    assert.deepEqual(queue.discoveriesOf(`${o}/`), [{ source: 'start' }, { source: 'sitemap', from: `${o}/sitemap.xml` }]);
    assert.deepEqual(
      queue
        .discoveriesOf(`${o}/a`)
        .map((d) => d.source)
        .sort(),
      ['link', 'sitemap'],
    );
    const b = admitted.find((r) => r.url === `${o}/b`)!;
    assert.ok(b.sitemapEntry, 'sitemap entries reach onAdmitted whole');
    // A sitemap entry's request is its init made into the Request: id, key and retry count set on it.
    const handedB = handed.find((r) => r.url === `${o}/b`)!;
    assert.equal(b.id, handedB.id);
    assert.equal(b.id, queue.idOf(`${o}/b`));
    assert.equal(b.uniqueKey, `${o}/b`);
    assert.equal(b.retryCount, 0);
    assert.equal(b.source, 'sitemap');
    assert.equal(b.discoveredFrom, `${o}/sitemap.xml`);
    assert.deepEqual(new Set(admitted.map((r) => r.id)), new Set([0, 1, 2, 3]), 'every admitted request has its own id');
    assert.equal(await q.isFinished(), true);
  } finally {
    await server.close();
  }
});

test('moves entries in batches as the queue runs low, never draining the list ahead of need', async () => {
  const inits = range('http://127.0.0.1:1/p', 25).map(entry);
  const list = fakeList(inits);
  const queue = new MemoryRequestQueue();
  const q = new RequestQueueWithSitemap({ queue, list, batchSize: 10 });
  const first = await q.fetchNextRequest();
  assert.equal(first!.url, 'http://127.0.0.1:1/p0');
  assert.equal(list.taken(), 10);
  assert.equal(queue.totalCount(), 10);
  // With 9 pending (below 10) the next call tops the queue up by one, no more.
  await q.fetchNextRequest();
  assert.equal(list.taken(), 11);
  const urls = [first!.url];
  for (let r = await q.fetchNextRequest(); r; r = await q.fetchNextRequest()) urls.push(r.url);
  assert.equal(urls.length, 24, 'first + 23 more (one was taken by the second call)');
  assert.equal(list.taken(), 25);
  assert.equal(await q.isFinished(), false, 'requests are still in progress');
  assert.equal(await q.isEmpty(), true);
});

test('an entry already in the queue is counted as a duplicate, not scheduled again', async () => {
  const list = fakeList([entry('http://127.0.0.1:1/dup'), entry('http://127.0.0.1:1/new')]);
  const queue = new MemoryRequestQueue();
  const q = new RequestQueueWithSitemap({ queue, list, batchSize: 5 });
  q.addRequest({ url: 'http://127.0.0.1:1/dup', source: 'link', depth: 2, discoveredFrom: 'http://127.0.0.1:1/' });
  const got: string[] = [];
  for (let r = await q.fetchNextRequest(); r; r = await q.fetchNextRequest()) {
    got.push(r.url);
    q.markRequestHandled(r);
  }
  assert.deepEqual(got, ['http://127.0.0.1:1/dup', 'http://127.0.0.1:1/new']);
  assert.equal(queue.duplicateCount(), 1);
  assert.equal(await q.isFinished(), true);
});

test("a listing's wire form goes beside its request to onAdmitted, for new URLs only, and works with any RequestQueue", async () => {
  const inits = ['/a', '/dup', '/b'].map((p) => entry('http://127.0.0.1:1' + p));
  const wire = (i: number): ListingWire | undefined => (i === 2 ? undefined : { entryJson: `"${inits[i]!.url}"` });
  const list = fakeList(inits);
  list.fetchNextBatch = async (max: number, wires?: (ListingWire | undefined)[]) => {
    const out: RequestInit[] = [];
    while (out.length < max && list.taken() < inits.length) {
      const i = list.taken();
      if (wires) wires[out.length] = wire(i);
      out.push((await list.fetchNext())!);
    }
    return out;
  };
  const got: [string, ListingWire | undefined][] = [];
  const inner = new MemoryRequestQueue({ onAdmitted: (r, _state, w) => got.push([r.url, w]) });
  inner.addRequest({ url: 'http://127.0.0.1:1/dup', source: 'link', depth: 1 });
  // Only the RequestQueue interface: no reserve or prepareKeys.
  const queue: RequestQueue = {
    addRequest: (init, options) => inner.addRequest(init, options),
    fetchNextRequest: () => inner.fetchNextRequest(),
    markRequestHandled: (r) => inner.markRequestHandled(r),
    reclaimRequest: (r, o) => inner.reclaimRequest(r, o),
    isEmpty: () => inner.isEmpty(),
    isFinished: () => inner.isFinished(),
    pendingCount: () => inner.pendingCount(),
    inProgressCount: () => inner.inProgressCount(),
    handledCount: () => inner.handledCount(),
    totalCount: () => inner.totalCount(),
    duplicateCount: () => inner.duplicateCount(),
    discoveriesOf: (k) => inner.discoveriesOf(k),
    has: (k) => inner.has(k),
  };
  const q = new RequestQueueWithSitemap({ queue, list, batchSize: 10 });
  for (let r = await q.fetchNextRequest(); r; r = await q.fetchNextRequest()) q.markRequestHandled(r);
  assert.deepEqual(got, [
    ['http://127.0.0.1:1/dup', undefined],
    ['http://127.0.0.1:1/a', { entryJson: '"http://127.0.0.1:1/a"' }],
    ['http://127.0.0.1:1/b', undefined],
  ]);
  assert.equal(inner.duplicateCount(), 1);
  assert.equal(await q.isFinished(), true);
});

test('filter: listed entries are recorded as handled, skipped ones are dropped, invalid ones reported', async () => {
  const inits = [entry('http://127.0.0.1:1/keep'), entry('http://127.0.0.1:1/list'), entry('http://127.0.0.1:1/skip'), entry('not a url')];
  const seenByFilter: RequestInit[] = [];
  const invalid: RequestInit[] = [];
  const states: string[] = [];
  const queue = new MemoryRequestQueue({ onAdmitted: (r, s) => states.push(`${r.url}:${s}`) });
  const q = new RequestQueueWithSitemap({
    queue,
    list: fakeList(inits),
    filter: (init) => {
      seenByFilter.push(init);
      return init.url.endsWith('/list') ? 'listed' : init.url.endsWith('/skip') ? 'skip' : 'queued';
    },
    onInvalid: (init) => invalid.push(init),
  });
  const r = await q.fetchNextRequest();
  assert.equal(r!.url, 'http://127.0.0.1:1/keep');
  assert.equal(await q.fetchNextRequest(), null);
  assert.equal(seenByFilter[0]!.uniqueKey, 'http://127.0.0.1:1/keep', 'the filter sees the uniqueKey');
  assert.deepEqual(states, ['http://127.0.0.1:1/keep:queued', 'http://127.0.0.1:1/list:listed']);
  assert.equal(queue.isHandled(queue.idOf('http://127.0.0.1:1/list')!), true);
  assert.equal(queue.has('http://127.0.0.1:1/skip'), false);
  assert.equal(q.skippedCount(), 1);
  assert.equal(q.invalidCount(), 1);
  assert.equal(invalid[0]!.url, 'not a url');
  // addRequest with 'listed' records a start URL or link without scheduling it.
  q.addRequest({ url: 'http://127.0.0.1:1/out-of-scope', source: 'link', depth: 1 }, 'listed');
  assert.equal(queue.pendingCount(), 0);
  assert.equal(queue.handledCount(), 2);
});

test('reclaimRequest puts a request back; concurrent callers share one refill', async () => {
  const list = fakeList(range('http://127.0.0.1:1/r', 6).map(entry));
  const queue = new MemoryRequestQueue();
  const q = new RequestQueueWithSitemap({ queue, list, batchSize: 3 });
  const [a, b] = await Promise.all([q.fetchNextRequest(), q.fetchNextRequest()]);
  assert.notEqual(a!.id, b!.id);
  assert.ok(list.taken() <= 5, `took ${list.taken()}`);
  q.reclaimRequest(a!, { forefront: true });
  const again = await q.fetchNextRequest();
  assert.equal(again!.id, a!.id);
  assert.equal(again!.retryCount, 1);
});

test('after each sitemap read, the frontier is readied for what the waiting sitemaps are likely to list', async () => {
  // An index of six children of 300 URLs each: after the first, five more of about 300 are expected.
  const per = 300;
  const docs: Record<string, (origin: string) => string> = {
    '/index.xml': (o) =>
      `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
      range('/s', 6)
        .map((p) => `<sitemap><loc>${o}${p}.xml</loc></sitemap>`)
        .join('') +
      `</sitemapindex>\n`,
  };
  for (let k = 0; k < 6; k++) docs[`/s${k}.xml`] = (o) => urlset(o, range(`/s${k}/p`, per));
  const server = await serve(docs);
  try {
    const queue = new MemoryRequestQueue();
    const reserved: [held: number, n: number][] = [];
    const reserve = queue.reserve.bind(queue);
    queue.reserve = (n: number) => {
      reserved.push([queue.totalCount(), n]);
      reserve(n);
    };
    const list = listOf(server, ['/index.xml']);
    const q = new RequestQueueWithSitemap({ queue, list, batchSize: 100 });
    let handed = 0;
    for (let r = await q.fetchNextRequest(); r; r = await q.fetchNextRequest()) {
      handed++;
      q.markRequestHandled(r);
    }
    assert.equal(handed, 6 * per);
    assert.equal(list.readCount(), 7, 'the index and its six children');
    assert.equal(list.expectedUrls(), 0, 'nothing left to read');
    // The index lists no URLs: no guess after it. After child k (k = 1..5 read), 6 - k wait, ~300 each.
    assert.ok(reserved.length >= 1 && reserved.length <= 5, `readied after some children (${JSON.stringify(reserved)})`);
    const [held, n] = reserved[0]!;
    assert.ok(held >= per && held < 2 * per, `first readied once the first child was read (${held} held)`);
    // The children not yet opened: four or five (the second may be open already), 300 URLs each.
    assert.ok(n === held + 5 * per || n === held + 4 * per, `readied for the children waiting, 300 each (${n} with ${held} held)`);
    for (const [h, m] of reserved) assert.ok(m <= h + 16 * Math.max(h, 10_000), 'never past the cap');
  } finally {
    await server.close();
  }
});

test('the frontier is readied at most sixteen times its size ahead, whatever the sitemaps suggest', async () => {
  const queue = new MemoryRequestQueue();
  const reserved: number[] = [];
  queue.reserve = (n: number) => void reserved.push(n);
  const inits = range('http://127.0.0.1:1/p', 30_000).map(entry);
  const list = fakeList(inits);
  let reads = 0;
  list.readCount = () => (list.taken() >= 20_000 ? ++reads : reads);
  list.expectedUrls = () => 50_000_000;
  const q = new RequestQueueWithSitemap({ queue, list, batchSize: 1000 });
  for (let r = await q.fetchNextRequest(); r; r = await q.fetchNextRequest()) q.markRequestHandled(r);
  assert.ok(reserved.length > 0);
  for (const n of reserved) assert.ok(n <= 17 * 30_000 && n >= 20_000 + 16 * 20_000, `readied for ${n}`);
});
