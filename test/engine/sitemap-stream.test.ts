/**
 * streamSitemap: gzip by magic bytes, bodies already decoded by HTTP, the inflate cap, corrupt
 * gzip, failing downloads, batching, and closing the body when reading stops. Every case runs twice:
 * on this thread (streamSitemap) and in the parse worker (streamSitemapInWorker, which the crawler
 * uses), which must give the same items, summaries and body handling.
 */
import { test as nodeTest, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { SitemapItem, SitemapLimits, SitemapSummary } from '../../electron/engine/types.js';
import { EngineError } from '../../electron/engine/types.js';
import { streamMapped, streamSitemap as inProcess } from '../../electron/engine/sitemap/read/stream.js';
import { streamSitemapInWorker } from '../../electron/engine/sitemap/worker/worker-stream.js';

const NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';

function urlset(n: number): string {
  let s = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset ${NS}>\n`;
  for (let i = 0; i < n; i++) s += `  <url><loc>http://127.0.0.1/p${i}</loc><lastmod>2024-01-01</lastmod></url>\n`;
  return s + '</urlset>\n';
}

/** A body yielding the given bytes in chunks, recording how far it was read and whether it was closed. */
function body(bytes: Buffer, chunkSize: number | ((i: number) => number), fail?: { afterChunks: number; error: Error }) {
  const state = { pulled: 0, closed: false, total: 0 };
  const chunks: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = Math.max(1, typeof chunkSize === 'number' ? chunkSize : chunkSize(i));
    chunks.push(bytes.subarray(at, at + n));
    at += n;
  }
  state.total = chunks.length;
  async function* gen(): AsyncGenerator<Buffer> {
    try {
      for (const c of chunks) {
        if (fail && state.pulled === fail.afterChunks) throw fail.error;
        state.pulled++;
        yield c;
      }
    } finally {
      state.closed = true;
    }
  }
  return { iterable: gen(), state };
}

const IMPLS = [
  ['this thread', inProcess],
  ['parse worker', streamSitemapInWorker],
] as const;

for (const [where, streamSitemap] of IMPLS) {
  const test = (name: string, fn: (t: TestContext) => void | Promise<void>) => nodeTest(`${name} (${where})`, fn);

  interface Collected {
    summary: SitemapSummary;
    batches: number[];
    items: SitemapItem[];
    locs: string[];
    codes: string[];
  }

  async function collect(
    source: AsyncIterable<Buffer>,
    opts: { url?: string; limits?: Partial<SitemapLimits>; batchSize?: number; contentType?: string } = {},
  ): Promise<Collected> {
    const it = streamSitemap(source, { url: opts.url ?? 'http://127.0.0.1/sitemap.xml', ...opts });
    const batches: number[] = [];
    const items: SitemapItem[] = [];
    for (;;) {
      const r = await it.next();
      if (r.done) {
        return {
          summary: r.value,
          batches,
          items,
          locs: items.flatMap((i) => (i.kind === 'url' ? [i.entry.loc] : [])),
          codes: items.flatMap((i) => (i.kind === 'problem' ? [i.problem.code] : [])),
        };
      }
      batches.push(r.value.length);
      items.push(...r.value);
    }
  }

  test('gzip is recognised by its magic bytes, whatever the name', async () => {
    const xml = Buffer.from(urlset(20));
    const plain = await collect(body(xml, 100).iterable, { url: 'http://127.0.0.1/sitemap.xml' });
    const zipped = await collect(body(gzipSync(xml), 7).iterable, { url: 'http://127.0.0.1/sitemap.xml', contentType: 'application/xml' });
    assert.equal(plain.summary.gzip, false);
    assert.equal(zipped.summary.gzip, true);
    assert.equal(zipped.summary.type, 'urlset');
    assert.deepEqual(zipped.items, plain.items);
    assert.equal(zipped.summary.uncompressedBytes, xml.length);
    assert.equal(zipped.summary.urlCount, 20);
  });

  test('concatenated gzip members are read as one document', async () => {
    const xml = urlset(4);
    const cut = xml.indexOf('  <url><loc>http://127.0.0.1/p2');
    const zipped = Buffer.concat([gzipSync(xml.slice(0, cut)), gzipSync(xml.slice(cut))]);
    const r = await collect(body(zipped, 16).iterable);
    assert.equal(r.summary.urlCount, 4);
    assert.equal(r.summary.fatal, undefined);
  });

  test('over HTTP: a Content-Encoding: gzip body arrives decoded (plain XML), a .gz file arrives gzipped', async (t) => {
    const xml = Buffer.from(urlset(30));
    const server = createServer((req, res) => {
      if (req.url === '/encoded.xml') {
        res.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' });
        res.end(gzipSync(xml));
      } else {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(gzipSync(xml));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => server.close());
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    // fetch decodes Content-Encoding, as the engine's HTTP layer does: the parser must not inflate again.
    const encoded = await fetch(`${base}/encoded.xml`);
    const a = await collect(Readable.fromWeb(encoded.body as unknown as WebReadableStream<Uint8Array>), { url: `${base}/encoded.xml` });
    assert.equal(a.summary.gzip, false);
    assert.equal(a.summary.type, 'urlset');
    assert.equal(a.summary.urlCount, 30);
    assert.equal(a.summary.fatal, undefined);

    const file = await fetch(`${base}/sitemap.xml.gz`);
    const b = await collect(Readable.fromWeb(file.body as unknown as WebReadableStream<Uint8Array>), { url: `${base}/sitemap.xml.gz` });
    assert.equal(b.summary.gzip, true);
    assert.equal(b.summary.urlCount, 30);
    assert.deepEqual(b.locs, a.locs);
  });

  /** A urlset whose paths are pseudo-random, so that it compresses poorly (a long gzipped body). */
  function noisyUrlset(n: number): string {
    let s = `<urlset ${NS}>\n`;
    let x = 12345;
    for (let i = 0; i < n; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      s += `<url><loc>http://127.0.0.1/p${i}-${x.toString(36)}${(x ^ 0x5bd1e995).toString(36)}</loc></url>\n`;
    }
    return s + '</urlset>\n';
  }

  test('inflating past the cap stops with INFLATE_LIMIT, keeps what was read, and stops reading the body', async () => {
    const xml = Buffer.from(noisyUrlset(15000));
    const zipped = gzipSync(xml);
    assert.ok(zipped.length > 100_000, `a body much longer than the stream read-ahead (${zipped.length})`);
    const src = body(zipped, 1024);
    const r = await collect(src.iterable, { limits: { maxUncompressedBytes: 20_000 } });
    assert.equal(r.summary.gzip, true);
    assert.equal(r.summary.fatal?.code, 'INFLATE_LIMIT');
    assert.equal(r.summary.uncompressedBytes, 20_000);
    assert.ok(r.locs.length > 100 && r.locs.length < 15000, `kept the URLs inflated before the cap (${r.locs.length})`);
    assert.deepEqual(
      r.locs.map((l) => l.replace(/-.*/, '')),
      r.locs.map((_, i) => `http://127.0.0.1/p${i}`),
    );
    assert.equal(r.codes.at(-1), 'INFLATE_LIMIT');
    assert.ok(src.state.closed, 'the body was closed');
    assert.ok(src.state.pulled < src.state.total, `the rest of the body was not read (${src.state.pulled}/${src.state.total} chunks)`);
  });

  test('a gzip bomb (megabytes of whitespace in a few KB) is cut at the cap', async () => {
    const bomb = gzipSync(Buffer.concat([Buffer.from(`<urlset ${NS}>`), Buffer.alloc(8 * 1024 * 1024, 0x20), Buffer.from('</urlset>')]));
    assert.ok(bomb.length < 20_000);
    const r = await collect(body(bomb, 1024).iterable, { limits: { maxUncompressedBytes: 256 * 1024 } });
    assert.equal(r.summary.fatal?.code, 'INFLATE_LIMIT');
    assert.equal(r.summary.uncompressedBytes, 256 * 1024);
  });

  test('the 50 MiB protocol limit is a SITEMAP_TOO_LARGE problem, not a stop', async () => {
    // 51 MiB of whitespace inside the root inflates from ~50 KB; reading goes on to the URL after it.
    const xml = Buffer.concat([
      Buffer.from(`<urlset ${NS}>`),
      Buffer.alloc(51 * 1024 * 1024, 0x20),
      Buffer.from('<url><loc>http://127.0.0.1/after</loc></url></urlset>'),
    ]);
    const r = await collect(body(gzipSync(xml), 64 * 1024).iterable);
    assert.deepEqual(r.codes, ['SITEMAP_TOO_LARGE']);
    assert.deepEqual(r.locs, ['http://127.0.0.1/after']);
    assert.equal(r.summary.fatal, undefined);
  });

  test('a truncated gzip stream keeps what was read and reports GZIP_ERROR', async () => {
    const zipped = gzipSync(Buffer.from(urlset(2000)));
    const r = await collect(body(zipped.subarray(0, Math.floor(zipped.length * 0.6)), 100).iterable);
    assert.equal(r.summary.gzip, true);
    assert.equal(r.summary.fatal?.code, 'GZIP_ERROR');
    assert.ok(r.locs.length > 100 && r.locs.length < 2000, `kept ${r.locs.length}`);
    assert.deepEqual(r.codes, ['GZIP_ERROR'], 'the truncation is reported once, as GZIP_ERROR, not also as MALFORMED_XML');
  });

  test('corrupt gzip data reports GZIP_ERROR', async () => {
    const zipped = Buffer.from(gzipSync(Buffer.from(urlset(50))));
    for (let i = 20; i < 60; i++) zipped[i] = zipped[i]! ^ 0x5a;
    const r = await collect(body(zipped, 32).iterable);
    assert.equal(r.summary.fatal?.code, 'GZIP_ERROR');
  });

  test('a download that fails mid-body keeps the URLs read and reports the error code', async () => {
    const xml = Buffer.from(urlset(100));
    const error = new EngineError('EBODY_TOO_LARGE', 'The body is larger than 1 MB.');
    const plain = await collect(body(xml, 1000, { afterChunks: 3, error }).iterable);
    assert.equal(plain.summary.fatal?.code, 'EBODY_TOO_LARGE');
    assert.match(plain.summary.fatal!.message, /failed after 3,000 bytes/);
    assert.ok(plain.locs.length > 20 && plain.locs.length < 100);

    const zipped = await collect(body(gzipSync(xml), 50, { afterChunks: 2, error: new Error('socket hang up') }).iterable);
    assert.equal(zipped.summary.fatal?.code, 'BODY_ERROR');
    assert.match(zipped.summary.fatal!.message, /socket hang up/);

    const atOnce = await collect(body(xml, 1000, { afterChunks: 0, error }).iterable);
    assert.equal(atOnce.summary.fatal?.code, 'EBODY_TOO_LARGE');
    assert.equal(atOnce.items.length, 1);
  });

  test('items come in batches of batchSize, problems in document order', async () => {
    const xml = urlset(5).replace('http://127.0.0.1/p2', '/relative');
    const r = await collect(body(Buffer.from(xml), 10).iterable, { batchSize: 2 });
    assert.deepEqual(r.batches, [2, 2, 1]);
    assert.deepEqual(
      r.items.map((i) => (i.kind === 'url' ? i.entry.loc : i.kind === 'problem' ? i.problem.code : i.loc)),
      ['http://127.0.0.1/p0', 'http://127.0.0.1/p1', 'INVALID_URL', 'http://127.0.0.1/p3', 'http://127.0.0.1/p4'],
    );
  });

  test('stopping the iteration early closes the body', async () => {
    const src = body(Buffer.from(urlset(2000)), 256);
    const it = streamSitemap(src.iterable, { url: 'http://127.0.0.1/sitemap.xml', batchSize: 10 });
    const first = await it.next();
    assert.equal(first.done, false);
    await it.return(undefined as never);
    assert.ok(src.state.closed);
    assert.ok(src.state.pulled < src.state.total);
  });

  test('stopping the iteration early closes a gzipped body before return() settles', async () => {
    const zipped = gzipSync(Buffer.from(noisyUrlset(15000)));
    const src = body(zipped, 1024);
    const it = streamSitemap(src.iterable, { url: 'http://127.0.0.1/sitemap.xml', batchSize: 10 });
    assert.equal((await it.next()).done, false);
    await it.return(undefined as never);
    assert.ok(src.state.closed);
    assert.ok(src.state.pulled < src.state.total);
  });

  test('a refused document stops reading the body at once', async () => {
    const doc = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]>${urlset(2000)}`;
    const src = body(Buffer.from(doc), 64);
    const r = await collect(src.iterable);
    assert.equal(r.summary.fatal?.code, 'DOCTYPE_REFUSED');
    assert.equal(r.summary.urlCount, 0);
    assert.ok(src.state.closed);
    assert.ok(src.state.pulled <= 2, `read ${src.state.pulled} chunks of 64 bytes`);
  });

  test('the same gzipped document in random chunk sizes gives the same items', async () => {
    const xml = Buffer.from(urlset(300).replace('p7<', 'p7?a=1&amp;b=\u00fc<'));
    const zipped = gzipSync(xml);
    const whole = await collect(body(zipped, zipped.length).iterable);
    let seed = 99;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return 1 + (seed % 37);
    };
    const chunked = await collect(body(zipped, rnd).iterable);
    const oneByte = await collect(body(zipped, 1).iterable);
    assert.deepEqual(chunked.items, whole.items);
    assert.deepEqual(oneByte.items, whole.items);
    assert.equal(whole.locs[7], 'http://127.0.0.1/p7?a=1&b=ü');
  });

  test('an empty body is reported, not thrown', async () => {
    const r = await collect(body(Buffer.alloc(0), 1).iterable);
    assert.equal(r.summary.type, 'unknown');
    assert.deepEqual(r.codes, ['EMPTY_SITEMAP']);
    assert.equal(r.summary.uncompressedBytes, 0);
  });
}

nodeTest('streamMapped tells of each body chunk once read (inflated, or decoded): wiping it then changes nothing read', async () => {
  const xml = Buffer.from(urlset(20_000));
  const zipped = gzipSync(xml);
  const url = 'http://127.0.0.1/sitemap.xml';
  const read = async (consumed?: (chunk: Buffer) => void): Promise<{ locs: string[]; fatal: unknown }> => {
    // Copies, so wiping one touches nothing else.
    const src = body(Buffer.from(zipped), (i) => 700 + ((i * 397) % 5000));
    const locs: string[] = [];
    const gen = streamMapped(src.iterable, { url, batchSize: 500 }, (item) => (item.kind === 'url' ? item.entry.loc : ''), consumed);
    for (;;) {
      const r = await gen.next();
      if (r.done) return { locs, fatal: r.value.fatal };
      locs.push(...r.value);
    }
  };
  const told: Buffer[] = [];
  const wiped = await read((chunk) => {
    told.push(chunk);
    chunk.fill(0); // as if its memory had gone back to the main thread
  });
  assert.ok(told.length > 10, `${told.length} chunks told`);
  assert.equal(new Set(told).size, told.length, 'each chunk once');
  assert.equal(
    told.reduce((n, c) => n + c.length, 0),
    zipped.length,
    'every byte of the body',
  );
  assert.deepEqual(wiped, await read());
  assert.equal(wiped.locs.length, 20_000);
  assert.equal(wiped.fatal, undefined);

  // A plain body's chunks are told of once decoded, but for the first ones, which the parser holds
  // until it knows their encoding (up to the end of the XML declaration here).
  const readPlain = async (consumed?: (chunk: Buffer) => void): Promise<string[]> => {
    const locs: string[] = [];
    const chunkSize = (i: number): number => (i < 10 ? 10 : 4096); // the declaration's '>' is in the 4th
    const gen = streamMapped(
      body(Buffer.from(xml), chunkSize).iterable,
      { url, batchSize: 500 },
      (item) => (item.kind === 'url' ? item.entry.loc : ''),
      consumed,
    );
    for (let r = await gen.next(); !r.done; r = await gen.next()) locs.push(...r.value);
    return locs;
  };
  let plainBytes = 0;
  const plainLocs = await readPlain((chunk) => {
    plainBytes += chunk.length;
    chunk.fill(0);
  });
  assert.equal(plainBytes, xml.length - 30, 'all but the three chunks held before the end of the declaration');
  assert.deepEqual(plainLocs, await readPlain());
  assert.equal(plainLocs.length, 20_000);
});
