/**
 * The parse worker (worker-stream.ts): the same results as parsing on this thread for every
 * conformance sitemap, bounded read-ahead when the consumer is slow, several readings at once, and
 * what happens when the worker is missing, cannot start, or dies mid-read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createReadStream, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { SitemapUrlEntry } from '../../shared/model.js';
import type { SitemapItem, SitemapSummary } from '../../electron/engine/types.js';
import { streamSitemap } from '../../electron/engine/sitemap/read/stream.js';
import { ownedChunk, ParseWorkerPool, parseWorkerUrl, streamSitemapInWorker } from '../../electron/engine/sitemap/worker/worker-stream.js';
import { tryUniqueKey } from '../../electron/engine/frontier/url.js';
import { encodeTail, entryExtra } from '../../electron/engine/sitemap/read/entry-codec.js';
import { AHEAD, fromWire, WireWriter, wireItem, wireText } from '../../electron/engine/sitemap/worker/worker-protocol.js';
import { CONFORMANCE_SITEMAPS_DIR as CONFORMANCE, hasConformanceData } from '../fixtures/conformance.js';

const WORKERS = new URL('../fixtures/workers/', import.meta.url);
const NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';

function urlset(n: number): string {
  let s = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset ${NS} xmlns:xhtml="http://www.w3.org/1999/xhtml">\n`;
  for (let i = 0; i < n; i++) {
    s += `  <url><loc>http://127.0.0.1/p${i}?a=1&amp;b=${i % 7}</loc><lastmod>2024-01-0${(i % 9) + 1}</lastmod><priority>0.${i % 10}</priority>`;
    if (i % 5 === 0) s += `<xhtml:link rel="alternate" hreflang="de" href="http://127.0.0.1/de/p${i}"/>`;
    s += '</url>\n';
  }
  return s + '</urlset>\n';
}

function chunked(bytes: Buffer, size: number) {
  const state = { pulled: 0, total: Math.ceil(bytes.length / size), closed: false };
  async function* gen(): AsyncGenerator<Buffer> {
    try {
      for (let at = 0; at < bytes.length; at += size) {
        state.pulled++;
        yield bytes.subarray(at, at + size);
      }
    } finally {
      state.closed = true;
    }
  }
  return { iterable: gen(), state };
}

/** What the journal writes of an entry after `[0,id,s,depth,from,`. */
function entryText(entry: SitemapUrlEntry): string {
  return JSON.stringify(entry.loc) + encodeTail(entry, entryExtra(entry));
}

type Stream = (body: AsyncIterable<Buffer>, opts: { url: string; batchSize?: number }) => AsyncGenerator<SitemapItem[], SitemapSummary, void>;

/**
 * Items and summary of one reading. The worker also hands out each URL's uniqueKey: it is checked
 * against tryUniqueKey and taken off, so the rest compares with what this thread reads.
 */
async function collect(stream: Stream, body: AsyncIterable<Buffer>, url: string, batchSize = 100) {
  const it = stream(body, { url, batchSize });
  const items: SitemapItem[] = [];
  let keyed = 0;
  for (;;) {
    const r = await it.next();
    if (r.done) return { items, summary: r.value, keyed };
    for (const item of r.value) {
      if (item.kind === 'url' && item.uniqueKey !== undefined) {
        assert.equal(item.uniqueKey, tryUniqueKey(item.entry.loc), item.entry.loc);
        if (item.uniqueKey === item.entry.loc) assert.deepEqual(item.wire, { entryJson: entryText(item.entry) }, 'the entry as the journal writes it');
        else assert.equal(item.wire, undefined);
        delete item.uniqueKey;
        delete item.wire;
        keyed++;
      }
      items.push(item);
    }
  }
}

/** The same, for readings on this thread and in the worker: equal items, and every URL keyed by the worker only. */
function assertSame(there: Awaited<ReturnType<typeof collect>>, here: Awaited<ReturnType<typeof collect>>, what?: string): void {
  assert.equal(here.keyed, 0, what);
  assert.equal(there.keyed, there.items.filter((i) => i.kind === 'url').length, what);
  assert.deepEqual({ ...there, keyed: 0 }, plain(here), what);
}

/** What survives the trip to the worker and back: JSON (undefined members dropped). */
function plain<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

test('the worker file sits beside the module in the sources and beside the bundle in a build', () => {
  assert.equal(parseWorkerUrl('file:///app/electron/engine/sitemap/worker/worker-stream.ts').pathname, '/app/electron/engine/sitemap/worker/parse-worker.ts');
  assert.equal(parseWorkerUrl('file:///app/dist/electron/main.js').pathname, '/app/dist/electron/parse-worker.js');
  assert.equal(parseWorkerUrl('file:///tmp/bench/run.mjs').pathname, '/tmp/bench/parse-worker.mjs');
});

test("the worker loads only what parsing needs: not the public-suffix list (the crawl's scope, scope.ts)", async () => {
  const { build } = await import('esbuild');
  const r = await build({
    entryPoints: [fileURLToPath(new URL('../../electron/engine/sitemap/worker/parse-worker.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(r.metafile.inputs);
  assert.ok(
    inputs.some((f) => f.endsWith('electron/engine/frontier/url.ts')),
    'the worker works out uniqueKeys',
  );
  assert.deepEqual(
    inputs.filter((f) => f.includes('tldts') || f.endsWith('engine/scope.ts')),
    [],
  );
});

test('every conformance sitemap gives the same items and summary in the worker as on this thread', async (t) => {
  if (!hasConformanceData(t)) return;
  const files = readdirSync(CONFORMANCE).filter((f) => !f.startsWith('.'));
  assert.ok(files.length >= 8);
  let compared = 0;
  for (const name of files) {
    const path = join(CONFORMANCE, name);
    if (!/\.(xml|txt|gz)$/.test(name)) continue;
    const url = `http://www.example.com/${name}`;
    const here = await collect(streamSitemap, createReadStream(path, { highWaterMark: 512 }), url, 7);
    const there = await collect(streamSitemapInWorker, createReadStream(path, { highWaterMark: 512 }), url, 7);
    assertSame(there, here, name);
    compared++;
  }
  assert.ok(compared >= 8, `compared ${compared} files`);
});

test('a large gzipped urlset and a truncated one read the same in the worker', async () => {
  const xml = Buffer.from(urlset(20_000));
  const zipped = gzipSync(xml);
  const url = 'http://127.0.0.1/sitemap.xml';
  const here = await collect(streamSitemap, chunked(zipped, 4096).iterable, url, 256);
  const there = await collect(streamSitemapInWorker, chunked(zipped, 4096).iterable, url, 256);
  assert.equal(there.summary.urlCount, 20_000);
  assertSame(there, here);

  // Truncated: how much of the inflated tail is read before gunzip's error surfaces depends on timing,
  // on either thread; what is kept must be the document's first entries, in order, then the error.
  const cut = zipped.subarray(0, Math.floor(zipped.length / 2));
  const whole = plain(here.items.filter((i) => i.kind === 'url'));
  for (const stream of [streamSitemap, streamSitemapInWorker] as Stream[]) {
    const r = await collect(stream, chunked(cut, 1000).iterable, url);
    assert.equal(r.summary.fatal?.code, 'GZIP_ERROR');
    const entries = plain(r.items.filter((i) => i.kind === 'url'));
    assert.ok(entries.length > 5_000 && entries.length < 20_000, `${entries.length} entries kept`);
    // The entry open at the cut is kept with what was complete of it (its loc at least).
    const n = entries.length;
    assert.deepEqual(entries.slice(0, n - 1), whole.slice(0, n - 1));
    assert.equal((entries[n - 1] as { entry: { loc: string } }).entry.loc, (whole[n - 1] as { entry: { loc: string } }).entry.loc);
    assert.deepEqual(r.items.at(-1), { kind: 'problem', problem: r.summary.fatal });
  }
});

test('feed titles and dates, mobile alternates and news problems read the same in the worker as on this thread', async () => {
  const docs: [string, string][] = [
    [
      'http://127.0.0.1/m.xml',
      `<urlset ${NS} xmlns:xhtml="http://www.w3.org/1999/xhtml" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">` +
        '<url><loc>http://127.0.0.1/a</loc><xhtml:link rel="alternate" media="only screen and (max-width: 640px)" href="http://m.127.0.0.1/a"/>' +
        '<xhtml:link rel="alternate" hreflang="de" href="http://127.0.0.1/de/a"/></url>' +
        '<url><loc>http://127.0.0.1/b</loc><lastmod>2024-01-02</lastmod><xhtml:link rel="alternate" media="handheld" href="http://m.127.0.0.1/b"/>' +
        '<news:news><news:publication><news:language>en</news:language></news:publication><news:title>T ✓</news:title></news:news></url></urlset>',
    ],
    [
      'http://127.0.0.1/rss.xml',
      '<rss version="2.0"><channel><title>C</title><item><title>Fish &amp; "chips" ✓</title><link>http://127.0.0.1/r1</link>' +
        '<pubDate>05 Jan 17 13:34:55</pubDate></item><item><title>Two</title><link>http://127.0.0.1/r2</link>' +
        '<pubDate>Thu, 05 Jan 2017 13:34:55 GMT</pubDate></item></channel></rss>',
    ],
    [
      'http://127.0.0.1/atom03.xml',
      '<feed version="0.3" xmlns="http://purl.org/atom/ns#"><entry><title>Old</title><link rel="alternate" href="http://127.0.0.1/o1"/>' +
        '<issued>2003-12-13T08:29:29-04:00</issued><created>2003-12-12T00:00:00Z</created></entry></feed>',
    ],
  ];
  for (const [url, doc] of docs) {
    const bytes = Buffer.from(doc);
    const here = await collect(streamSitemap, chunked(bytes, 37).iterable, url, 3);
    const there = await collect(streamSitemapInWorker, chunked(bytes, 37).iterable, url, 3);
    assert.ok(
      here.items.some((i) => i.kind === 'url' && (i.entry.title !== undefined || i.entry.mobile !== undefined)),
      url,
    );
    assertSame(there, here, url);
  }
});

test("chunks marked as the body's own are handed to the worker as they are; others are copied", async () => {
  const zipped = gzipSync(Buffer.from(urlset(10_000)));
  const url = 'http://127.0.0.1/sitemap.xml';
  const given: Buffer[] = [];
  async function* body(own: boolean): AsyncGenerator<Buffer> {
    for (let at = 0; at < zipped.length; at += 8192) {
      const chunk = Buffer.allocUnsafeSlow(Math.min(8192, zipped.length - at));
      zipped.copy(chunk, 0, at);
      given.push(chunk);
      yield own ? ownedChunk(chunk) : chunk;
    }
  }
  const here = await collect(streamSitemap, chunked(zipped, 8192).iterable, url, 256);
  const copied = await collect(streamSitemapInWorker, body(false), url, 256);
  assert.ok(
    given.every((c) => c.byteLength > 0),
    'unmarked chunks stay whole here',
  );
  given.length = 0;
  const moved = await collect(streamSitemapInWorker, body(true), url, 256);
  assert.ok(
    given.length > 3 && given.every((c) => c.buffer.byteLength === 0),
    `marked chunks were moved to the worker: ${given.map((c) => c.buffer.byteLength)}`,
  );
  assertSame(copied, here);
  assertSame(moved, here);
});

test('a slow consumer holds the worker back: it reads only a few chunks ahead', async () => {
  const src = chunked(Buffer.from(urlset(20_000)), 1024);
  const it = streamSitemapInWorker(src.iterable, { url: 'http://127.0.0.1/sitemap.xml', batchSize: 10 });
  assert.equal((await it.next()).done, false);
  await new Promise((r) => setTimeout(r, 300));
  // AHEAD batches of 10 entries (about 150 bytes each) lie within a few 1 KiB chunks, not the whole body.
  const bound = Math.ceil(((AHEAD + 2) * 10 * 200) / 1024) + 4;
  assert.ok(src.state.pulled <= bound, `pulled ${src.state.pulled} of ${src.state.total} chunks (bound ${bound})`);
  let n = 10;
  for (;;) {
    const r = await it.next();
    if (r.done) {
      assert.equal(r.value.urlCount, 20_000);
      break;
    }
    n += r.value.length;
  }
  assert.equal(n, 20_000);
  assert.ok(src.state.closed);
});

test('a slow consumer of a gzipped sitemap: the worker waits for it and then reads to the end', { timeout: 20_000 }, async () => {
  // gunzip reads the body on its own while the batch loop waits for the consumer: both must wake.
  const xml = Buffer.from(urlset(30_000));
  const src = chunked(gzipSync(xml), 4096);
  const it = streamSitemapInWorker(src.iterable, { url: 'http://127.0.0.1/sitemap.xml', batchSize: 64 });
  let n = 0;
  for (let i = 0; ; i++) {
    const r = await it.next();
    if (r.done) {
      assert.equal(r.value.urlCount, 30_000);
      break;
    }
    n += r.value.length;
    if (i % 50 === 0) await new Promise((res) => setTimeout(res, 20));
  }
  assert.equal(n, 30_000);
});

test('two readings at once in the one worker keep their items apart', async () => {
  const a = Buffer.from(urlset(3000));
  const b = Buffer.from(urlset(2000).replaceAll('127.0.0.1/p', '127.0.0.1/q'));
  const ia = streamSitemapInWorker(chunked(a, 2048).iterable, { url: 'http://127.0.0.1/a.xml', batchSize: 50 });
  const ib = streamSitemapInWorker(chunked(b, 2048).iterable, { url: 'http://127.0.0.1/b.xml', batchSize: 50 });
  const locs = { a: [] as string[], b: [] as string[] };
  let doneA = false;
  let doneB = false;
  while (!doneA || !doneB) {
    if (!doneA) {
      const r = await ia.next();
      if (r.done) doneA = true;
      else for (const i of r.value) if (i.kind === 'url') locs.a.push(i.entry.loc);
    }
    if (!doneB) {
      const r = await ib.next();
      if (r.done) doneB = true;
      else for (const i of r.value) if (i.kind === 'url') locs.b.push(i.entry.loc);
    }
  }
  assert.equal(locs.a.length, 3000);
  assert.equal(locs.b.length, 2000);
  assert.ok(locs.a.every((l) => l.includes('127.0.0.1/p')));
  assert.ok(locs.b.every((l) => l.includes('127.0.0.1/q')));
});

test('warm() starts the worker before the first sitemap, and the reading uses it; a missing file falls back as a reading would', async () => {
  const pool = new ParseWorkerPool();
  assert.equal(pool.running, false, 'started on first use');
  pool.warm();
  assert.equal(pool.running, true);
  pool.warm();
  const zipped = gzipSync(Buffer.from(urlset(500)));
  const there = await collect(pool.stream.bind(pool), chunked(zipped, 4096).iterable, 'http://127.0.0.1/sitemap.xml');
  assert.equal(there.summary.urlCount, 500);
  assert.equal(pool.fallbackReason, null);
  assert.equal(pool.running, true);

  const missing = new ParseWorkerPool(new URL('./no-such-worker.mjs', WORKERS));
  const warnings = await warningsDuring('SPINNERET_NO_PARSE_WORKER', async () => missing.warm());
  assert.equal(missing.running, false);
  assert.match(missing.fallbackReason ?? '', /missing/);
  assert.equal(warnings.length, 1, 'said once');
});

test('a worker with no sitemap to read is stopped after its idle time, and started again for the next one', { timeout: 30_000 }, async () => {
  const pool = new ParseWorkerPool(parseWorkerUrl(), 300);
  const until = async (what: () => boolean, ms: number) => {
    for (const end = Date.now() + ms; !what() && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
  };
  pool.warm();
  assert.equal(pool.running, true);
  await until(() => !pool.running, 10_000);
  assert.equal(pool.running, false, 'warmed and never used: stopped');
  assert.equal(pool.fallbackReason, null, 'stopping an idle worker is no failure');
  const quick = new ParseWorkerPool(parseWorkerUrl(), 1); // stopped before it can have loaded
  quick.warm();
  await until(() => !quick.running, 10_000);
  assert.equal(quick.running, false);
  assert.equal(quick.fallbackReason, null, 'not a failure even before it was ready');
  const inWorker = await collect(quick.stream.bind(quick), chunked(Buffer.from(urlset(50)), 4096).iterable, 'http://127.0.0.1/q.xml');
  assert.equal(inWorker.summary.urlCount, 50);
  assert.equal(quick.fallbackReason, null);

  // A reading longer than the idle time keeps it: it only counts while nothing is read.
  const slow = async function* (): AsyncGenerator<Buffer> {
    const xml = Buffer.from(urlset(300));
    const step = Math.ceil(xml.length / 12); // 12 chunks 60 ms apart: twice the idle time
    for (let i = 0; i < xml.length; i += step) {
      await new Promise((r) => setTimeout(r, 60));
      yield xml.subarray(i, i + step);
    }
  };
  const read = await collect(pool.stream.bind(pool), slow(), 'http://127.0.0.1/slow.xml');
  assert.equal(read.summary.urlCount, 300);
  assert.equal(pool.fallbackReason, null);
  assert.equal(pool.running, true, 'just read: still there');
  await until(() => !pool.running, 10_000);
  assert.equal(pool.running, false, 'idle again: stopped');
  const again = await collect(pool.stream.bind(pool), chunked(gzipSync(Buffer.from(urlset(200))), 4096).iterable, 'http://127.0.0.1/s.xml');
  assert.equal(again.summary.urlCount, 200);
  assert.equal(pool.fallbackReason, null);
});

test('a worker started ahead and never used does not keep the process alive', { timeout: 30_000 }, async () => {
  const module = new URL('../../electron/engine/sitemap/worker/worker-stream.ts', import.meta.url).href;
  const code = `const m = await import(${JSON.stringify(module)}); m.warmSitemapWorker(); console.log('warmed');`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  const exited = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => {
      child.kill();
      resolve(false);
    }, 15_000);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  assert.equal(out.trim(), 'warmed');
  assert.ok(exited, 'the process ended on its own once its work was done');
});

/** Runs `fn` and returns the process warnings with the given code that it emitted. */
async function warningsDuring(code: string, fn: () => Promise<void>): Promise<Error[]> {
  const seen: Error[] = [];
  const on = (w: Error & { code?: string }) => w.code === code && seen.push(w);
  process.on('warning', on);
  try {
    await fn();
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off('warning', on);
  }
  return seen;
}

test('a missing worker file: sitemaps are parsed on this thread, with the same results and one warning', async () => {
  const pool = new ParseWorkerPool(new URL('./no-such-worker.js', WORKERS));
  const xml = Buffer.from(urlset(500));
  const url = 'http://127.0.0.1/sitemap.xml';
  const expected = await collect(streamSitemap, chunked(xml, 999).iterable, url);
  let first: Awaited<ReturnType<typeof collect>> | undefined;
  let second: Awaited<ReturnType<typeof collect>> | undefined;
  const warnings = await warningsDuring('SPINNERET_NO_PARSE_WORKER', async () => {
    first = await collect(pool.stream.bind(pool), chunked(xml, 999).iterable, url);
    second = await collect(pool.stream.bind(pool), chunked(xml, 999).iterable, url);
  });
  assert.deepEqual(first, expected);
  assert.deepEqual(second, expected);
  assert.match(pool.fallbackReason ?? '', /no-such-worker\.js is missing/);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!.message, /parsed on the main thread/);
});

test('a worker that cannot start: the reading falls back to this thread without losing a byte', async () => {
  const pool = new ParseWorkerPool(new URL('./throws-at-start.mjs', WORKERS));
  const xml = Buffer.from(urlset(500));
  const url = 'http://127.0.0.1/sitemap.xml';
  const expected = await collect(streamSitemap, chunked(xml, 999).iterable, url);
  let got: Awaited<ReturnType<typeof collect>> | undefined;
  const warnings = await warningsDuring('SPINNERET_NO_PARSE_WORKER', async () => {
    got = await collect(pool.stream.bind(pool), chunked(xml, 999).iterable, url);
  });
  assert.deepEqual(got, expected);
  assert.match(pool.fallbackReason ?? '', /could not start/);
  assert.equal(warnings.length, 1);
});

test('a worker that dies mid-read ends that reading with SITEMAP_WORKER_FAILED after the items it handed out', async () => {
  const pool = new ParseWorkerPool(new URL('./dies-mid-read.mjs', WORKERS));
  const src = chunked(Buffer.from(urlset(5000)), 1024);
  const it = pool.stream(src.iterable, { url: 'http://127.0.0.1/sitemap.xml' });
  const first = await it.next();
  assert.equal(first.done, false);
  assert.deepEqual(first.value, [{ kind: 'url', entry: { loc: 'http://127.0.0.1/first' } }]);
  await assert.rejects(it.next(), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'SITEMAP_WORKER_FAILED');
    assert.match(err.message, /exited \(code 3\)/);
    assert.match(err.message, /entries read before were kept/);
    return true;
  });
  assert.ok(src.state.closed, 'the body is closed');
  assert.equal(pool.fallbackReason, null, 'a worker that ran is not given up on: the next reading starts a new one');
});

test('WireWriter: long strings (copied natively when plain ASCII) spell the same JSON as the escaping path', () => {
  const long = 'http://127.0.0.1/a-path-long-enough-to-be-copied-natively/';
  const odd = ['"quoted"', '\\back\\slash', 'tab\there', 'nl\n', 'del\u007f', 'ü', '✓', '\ud83d\ude00', 'lone\ud800', 'lone\udc00x', '\u0000', "'ap'", '<&>'];
  const entries: SitemapUrlEntry[] = [
    // On the uniqueKey fast path: written without any check.
    { loc: long + 'x?q=1&r=(2)', lastmod: '2024-01-02T03:04:05.123456+00:00', changefreq: 'a-changefreq-longer-than-thirty-two' },
    // Not on the fast path, plain ASCII: the regular expression lets it through.
    { loc: long.toUpperCase() + '%41', alternates: [{ lang: 'x-default-with-a-long-made-up-code-here', href: long + 'de/' }] },
  ];
  // Each odd character at the start, middle and end of a long string, in each field.
  for (const c of odd) {
    for (const v of [c + long, long + c + long, long + c]) {
      entries.push({ loc: v, lastmod: v, changefreq: v, alternates: [{ lang: v, href: v }], images: [{ loc: v, title: v }] });
    }
  }
  for (const entry of entries) {
    const item: SitemapItem = { kind: 'url', entry };
    const key = tryUniqueKey(entry.loc);
    const want = '[' + (key === null ? '0' : key === entry.loc ? '1' : JSON.stringify(key)) + ',' + entryText(entry) + ']';
    assert.equal(wireItem(item), want, JSON.stringify(entry.loc));
    assert.deepEqual(JSON.parse(wireItem(item)).slice(1, 4), [entry.loc, entry.lastmod ?? 0, entry.changefreq ?? 0], 'read back as written');
  }
});

test('WireWriter: images are written as JSON.stringify writes them, whatever their shape', () => {
  const loc = 'http://127.0.0.1/p';
  const shapes: unknown[][] = [
    [{ loc: 'http://127.0.0.1/i.jpg' }],
    [{ loc: 'http://127.0.0.1/i.jpg', title: 'T', caption: undefined, license: 'http://127.0.0.1/l' }],
    [
      { loc: 'http://127.0.0.1/a.jpg', title: 'A "quoted" \\ title ✓' },
      { geoLocation: 'Paris', loc: 'http://127.0.0.1/b.jpg' },
    ],
    [{ 'k"ey': 'v', 2: 'two', 1: 'one' }],
    [{ loc: 'http://127.0.0.1/i.jpg', width: 100 }], // not all strings: JSON.stringify's
    [Object.assign(Object.create(null) as object, { loc: 'x' })],
    [{ loc: 'x', nested: { a: 'b' } }],
  ];
  for (const images of shapes) {
    const entry = { loc, images } as unknown as SitemapUrlEntry;
    assert.equal(wireItem({ kind: 'url', entry }), '[1,' + entryText(entry) + ']', JSON.stringify(images));
    assert.deepEqual(JSON.parse(wireItem({ kind: 'url', entry }))[5].i, JSON.parse(JSON.stringify(images)));
  }
});

test('WireWriter cuts batches from the front: ends, ASCII flag and the items left over', () => {
  const entry = (i: number): SitemapUrlEntry =>
    i % 3 === 1
      ? { loc: `http://127.0.0.1/ü/${i}`, lastmod: '2024-01-02', changefreq: 'we\u00e9kly', alternates: [{ lang: 'de', href: `http://127.0.0.1/de/${i}` }] }
      : { loc: `http://127.0.0.1/p/${i}`, lastmod: '2024-01-02T03:04:05+00:00', priority: i / 10 };
  const writer = new WireWriter();
  const all: SitemapItem[] = [];
  const taken: SitemapItem[] = [];
  let next = 0;
  // Write a few items, take fewer, write more: what is left is carried to the next batch in order.
  for (const [write, take] of [
    [5, 3],
    [4, 2],
    [1, 5],
    [6, 6],
  ] as const) {
    for (let k = 0; k < write; k++) {
      const item: SitemapItem = { kind: 'url', entry: entry(next++) };
      all.push(item);
      writer.item(item);
    }
    const { bytes, ends, ascii } = writer.take(take);
    const text = wireText(bytes, ascii);
    const batch = all.slice(taken.length, taken.length + take);
    assert.equal(
      ascii,
      batch.every((item) => item.kind === 'url' && !/[^\x00-\x7f]/.test(wireItem(item))),
      'ascii tells whether the text is ASCII',
    );
    assert.equal(text, '[' + batch.map(wireItem).join(',') + ']');
    assert.equal(ends.length, take);
    batch.forEach((item, i) => assert.equal(text.slice(i === 0 ? 1 : ends[i - 1]! + 1, ends[i]), wireItem(item), 'ends[i] is just past item i'));
    taken.push(...fromWire(text, ends));
  }
  assert.equal(writer.size, 0);
  assert.deepEqual(
    taken.map((item) => item.kind === 'url' && item.entry),
    all.map((item) => item.kind === 'url' && item.entry),
  );
  assert.throws(() => writer.take(1), RangeError);
  // A batch's buffer given back is written into again when it is large enough, else left.
  writer.item(all[0]!);
  const first = writer.take(1);
  writer.recycle(first.bytes.buffer as ArrayBuffer);
  writer.item(all[1]!);
  const second = writer.take(1);
  assert.equal(second.bytes.buffer, first.bytes.buffer, 'the spare buffer is used again');
  assert.equal(wireText(second.bytes, second.ascii), '[' + wireItem(all[1]!) + ']');
  writer.recycle(new ArrayBuffer(4));
  writer.item(all[2]!);
  const third = writer.take(1);
  assert.ok(third.bytes.buffer.byteLength >= third.bytes.byteLength && third.bytes.buffer.byteLength > 4, 'a spare too small is not used');
  assert.equal(wireText(third.bytes, third.ascii), '[' + wireItem(all[2]!) + ']');
  // A long non-ASCII string grows the buffer past its first size.
  const long: SitemapItem = { kind: 'url', entry: { loc: 'http://127.0.0.1/' + 'é✓'.repeat(40_000) } };
  writer.item(long);
  const { bytes, ends, ascii } = writer.take(1);
  assert.deepEqual(fromWire(wireText(bytes, ascii), ends)[0], { ...long, uniqueKey: tryUniqueKey(long.entry.loc) });
});

test('items cross to the main thread as they are, a URL item as a row with its uniqueKey compact (1 for the loc itself, 0 for none)', () => {
  const entries: SitemapUrlEntry[] = [
    { loc: 'http://127.0.0.1/a' },
    { loc: 'http://127.0.0.1/a?b="c"&d=\\e\u0001\n', lastmod: '2024-01-02', changefreq: 'Daily\t', priority: 0.35 },
    { loc: 'http://127.0.0.1/ünï/✓/\ud83d\ude00', lastmod: '2024-01-02T03:04:05+00:00', changefreq: 'weekly', priority: 1 },
    { loc: 'http://127.0.0.1/lone-surrogate-\ud800', priority: 0 },
    { loc: 'http://127.0.0.1/p', changefreq: 'daily' },
    { loc: 'http://127.0.0.1/p', priority: 0.1 + 0.2 },
    { loc: 'http://127.0.0.1/p', priority: 1e-7 },
    {
      loc: 'HTTP://Example.COM:80/a#x',
      alternates: [{ lang: 'de', href: 'http://example.com/de/"a"' }],
      images: [{ loc: 'http://example.com/i.jpg', title: 'A "title"' }],
      videos: [{ thumbnailLoc: 'http://example.com/t.jpg', title: 't', description: 'd', contentLoc: 'http://example.com/v.mp4' }],
      news: { publicationName: 'P', publicationLanguage: 'en', title: 'T', publicationDate: '2024-01-02' },
    },
    { loc: 'http://127.0.0.1/n', lastmod: '2024-01-02', news: { title: 'only news' } },
    { loc: 'http://127.0.0.1/feed', lastmod: '05 Jan 17 13:34:55', title: 'A "feed" item ✓' },
    { loc: 'http://127.0.0.1/plain-title', title: 'Plain' },
    {
      loc: 'http://127.0.0.1/m',
      alternates: [{ lang: 'de', href: 'http://127.0.0.1/de/m' }],
      mobile: [{ href: 'http://m.127.0.0.1/m', media: 'only screen and (max-width: 640px)' }],
    },
    { loc: 'http://127.0.0.1/m2', mobile: [{ href: 'http://m.127.0.0.1/m2', media: 'handheld' }], news: { publicationLanguage: 'en' } },
    { loc: 'http://[bad' },
  ];
  for (let i = 0; i <= 10; i++) entries.push({ loc: `http://127.0.0.1/p${i}`, priority: i / 10 });
  const items: SitemapItem[] = entries.map((entry) => ({ kind: 'url', entry }));
  items.push(
    { kind: 'problem', problem: { code: 'X', message: 'a "quoted" message' } },
    { kind: 'sitemap', loc: 'http://127.0.0.1/s.xml', lastmod: '2024-01-02' },
  );
  const writer = new WireWriter();
  for (const item of items) writer.item(item);
  const { bytes, ends, ascii } = writer.take(items.length);
  assert.equal(ascii, false, 'the batch has non-ASCII text');
  assert.equal(writer.size, 0);
  const json = wireText(bytes, ascii);
  assert.equal(json, '[' + items.map(wireItem).join(',') + ']', "the batch is its items' texts");
  const back = fromWire(json, ends);
  assert.equal(back.length, items.length);
  assert.ok(
    fromWire(json).every((item) => item.kind !== 'url' || item.wire === undefined),
    'no wire form without the ends',
  );
  items.forEach((item, i) => {
    const key = item.kind === 'url' ? tryUniqueKey(item.entry.loc) : null;
    const want =
      item.kind !== 'url'
        ? item
        : key === item.entry.loc
          ? { ...item, uniqueKey: key, wire: { entryJson: entryText(item.entry) } }
          : { ...item, uniqueKey: key };
    assert.deepEqual(back[i], want, JSON.stringify(item));
    if (item.kind === 'url')
      assert.deepEqual(Object.keys((back[i] as typeof want & { entry: object }).entry), Object.keys(item.entry), "fields in the parser's order");
  });
  // Escapes written out by hand: control characters and lone surrogates as JSON.stringify writes them.
  assert.equal(
    wireItem({ kind: 'url', entry: { loc: 'http://127.0.0.1/\ud800x', lastmod: '2024\u0001\ud83d\ude00\udc00', changefreq: 'd\u001f\t"\\' } }),
    '["http://127.0.0.1/%EF%BF%BDx","http://127.0.0.1/\\ud800x","2024\\u0001\ud83d\ude00\\udc00","d\\u001f\\t\\"\\\\"]',
  );
  assert.equal(wireItem(items[0]!), '[1,"http://127.0.0.1/a"]', 'the loc as its own key is written 1');
  assert.equal(wireItem({ kind: 'url', entry: { loc: 'http://[bad' } }), '[0,"http://[bad"]', 'no key is written 0');
});
