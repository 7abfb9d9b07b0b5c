/**
 * Gzip bodies read as gunzip reads them: bytes after a complete member (a proxy's trailer, padding)
 * lose none of its entries and are reported as GZIP_TRAILING_BYTES; a second member is read on;
 * a damaged member after a good one is GZIP_ERROR with the entries before it kept. Every case runs
 * on this thread and in the parse worker, in chunks of several sizes (1 byte too).
 */
import { test as nodeTest, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import type { SitemapItem, SitemapSummary } from '../../electron/engine/types.js';
import { streamMapped, streamSitemap as inProcess } from '../../electron/engine/sitemap/read/stream.js';
import { streamSitemapInWorker } from '../../electron/engine/sitemap/worker/worker-stream.js';

const NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';

function urlset(n: number): string {
  let s = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset ${NS}>\n`;
  for (let i = 0; i < n; i++) s += `  <url><loc>http://127.0.0.1/p${i}</loc><lastmod>2024-01-${String((i % 28) + 1).padStart(2, '0')}</lastmod></url>\n`;
  return s + '</urlset>\n';
}

function chunks(bytes: Buffer, size: number) {
  const state = { closed: false };
  async function* gen(): AsyncGenerator<Buffer> {
    try {
      for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
    } finally {
      state.closed = true;
    }
  }
  return { iterable: gen(), state };
}

/** A chunked HTTP body's end, as a proxy that forgot to strip it appends it. */
const TRAILER = Buffer.from('\r\n0\r\n\r\n');

const IMPLS = [
  ['this thread', inProcess],
  ['parse worker', streamSitemapInWorker],
] as const;

for (const [where, stream] of IMPLS) {
  const test = (name: string, fn: (t: TestContext) => void | Promise<void>) => nodeTest(`${name} (${where})`, fn);

  async function read(bytes: Buffer, size: number) {
    const body = chunks(bytes, size);
    const it = stream(body.iterable, { url: 'http://127.0.0.1/sitemap.xml.gz' });
    const items: SitemapItem[] = [];
    let summary: SitemapSummary;
    for (;;) {
      const r = await it.next();
      if (r.done) {
        summary = r.value;
        break;
      }
      items.push(...r.value);
    }
    const problems = items.flatMap((i) => (i.kind === 'problem' ? [i.problem] : []));
    return { summary, closed: body.state.closed, locs: items.flatMap((i) => (i.kind === 'url' ? [i.entry.loc] : [])), problems };
  }

  test('a proxy trailer after a small gzip file: its 5 entries are kept, the trailer is GZIP_TRAILING_BYTES', async () => {
    const zipped = gzipSync(urlset(5));
    for (const size of [1, 7, 64 * 1024]) {
      const r = await read(Buffer.concat([zipped, TRAILER]), size);
      assert.equal(r.locs.length, 5, `chunks of ${size}`);
      assert.equal(r.summary.fatal, undefined);
      assert.equal(r.summary.urlCount, 5);
      assert.deepEqual(r.problems, [
        {
          code: 'GZIP_TRAILING_BYTES',
          message: `The gzip data ends after ${zipped.length} bytes of the file, and 7 more bytes follow that are not gzip (a proxy's or server's trailer, or a damaged file); they were ignored. Everything before them was read.`,
        },
      ]);
      assert.ok(r.closed);
    }
  });

  test('bytes after a large gzip file lose none of its 20,000 entries', async () => {
    const zipped = gzipSync(urlset(20_000));
    for (const size of [4096, 64 * 1024]) {
      const r = await read(Buffer.concat([zipped, Buffer.from('garbage')]), size);
      assert.equal(r.locs.length, 20_000, `chunks of ${size}`);
      assert.equal(r.locs.at(-1), 'http://127.0.0.1/p19999');
      assert.equal(r.summary.fatal, undefined);
      assert.deepEqual(
        r.problems.map((p) => p.code),
        ['GZIP_TRAILING_BYTES'],
      );
    }
  });

  test('zero bytes after the data are padding, said as such; two members are one document, as gunzip reads them', async () => {
    const padded = await read(Buffer.concat([gzipSync(urlset(5)), Buffer.alloc(512)]), 100);
    assert.equal(padded.locs.length, 5);
    assert.match(padded.problems[0]?.message ?? '', /and 512 more zero bytes follow \(padding\)/);

    const xml = urlset(600);
    const cut = xml.indexOf('<url>', xml.length / 3);
    const cut2 = xml.indexOf('<url>', (xml.length * 2) / 3);
    const members = Buffer.concat([gzipSync(xml.slice(0, cut)), gzipSync(xml.slice(cut, cut2)), gzipSync(xml.slice(cut2)), TRAILER]);
    for (const size of [3, 333, 64 * 1024]) {
      const r = await read(members, size);
      assert.equal(r.locs.length, 600, `chunks of ${size}`);
      assert.deepEqual(
        r.problems.map((p) => p.code),
        ['GZIP_TRAILING_BYTES'],
      );
    }
  });

  test("a damaged member after a good one is GZIP_ERROR; the first member's entries are kept", async () => {
    const xml = urlset(2000);
    const cut = xml.indexOf('<url>', xml.length / 2);
    const second = gzipSync(xml.slice(cut));
    for (let i = 12; i < 40; i++) second[i] = second[i]! ^ 0x5a;
    const r = await read(Buffer.concat([gzipSync(xml.slice(0, cut)), second]), 1000);
    assert.equal(r.summary.fatal?.code, 'GZIP_ERROR');
    assert.ok(r.locs.length >= 1000, `${r.locs.length} kept`);
    const bad = gzipSync(urlset(50));
    bad.writeUInt32LE(bad.readUInt32LE(bad.length - 8) ^ 1, bad.length - 8); // the CRC-32
    const crc = await read(bad, 64);
    assert.equal(crc.summary.fatal?.code, 'GZIP_ERROR');
    assert.match(crc.summary.fatal!.message, /incorrect data check/);
    assert.equal(crc.locs.length, 50, 'what was read stays');
  });
}

nodeTest('streamMapped tells of each chunk of a gzip body with a trailer and several members once it is read', async () => {
  const xml = urlset(5000);
  const cut = xml.indexOf('<url>', xml.length / 2);
  const zipped = Buffer.concat([gzipSync(xml.slice(0, cut)), gzipSync(xml.slice(cut)), TRAILER]);
  const told: Buffer[] = [];
  const locs: string[] = [];
  const body = chunks(Buffer.from(zipped), 999);
  const gen = streamMapped(
    body.iterable,
    { url: 'http://127.0.0.1/s.xml.gz' },
    (i) => (i.kind === 'url' ? i.entry.loc : ''),
    (c) => {
      told.push(c);
      c.fill(0); // as if its memory had gone back to the main thread
    },
  );
  for (let r = await gen.next(); !r.done; r = await gen.next()) locs.push(...r.value.filter((l) => l !== ''));
  assert.equal(locs.length, 5000);
  assert.equal(new Set(told).size, told.length, 'each chunk once');
  assert.equal(
    told.reduce((n, c) => n + c.length, 0),
    zipped.length,
    'every byte of the body',
  );
});

nodeTest('a urlset cut into random gzip members, with and without header fields and trailers, in random chunks, is read whole', async () => {
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let round = 0; round < 40; round++) {
    const n = 1 + rand(300);
    const xml = Buffer.from(urlset(n));
    // Cut anywhere, even inside a tag or a character: the members' concatenation is the document.
    const cuts = [0, ...Array.from({ length: rand(4) }, () => rand(xml.length)).sort((a, b) => a - b), xml.length];
    const parts: Buffer[] = [];
    for (let k = 0; k + 1 < cuts.length; k++) {
      let z = gzipSync(xml.subarray(cuts[k], cuts[k + 1]), { level: rand(10) });
      if (rand(3) === 0) {
        // A name and a comment in the header (FNAME | FCOMMENT), as gzip -N writes them.
        z = Buffer.concat([z.subarray(0, 3), Buffer.from([z[3]! | 0x18]), z.subarray(4, 10), Buffer.from('name.xml\0a comment\0'), z.subarray(10)]);
      }
      parts.push(z);
    }
    const tail = [Buffer.alloc(0), TRAILER, Buffer.alloc(1 + rand(100)), Buffer.from('x')][rand(4)]!;
    const body = Buffer.concat([...parts, tail]);
    const size = [1, 5, 64, 999, 65536][rand(5)]!;
    const it = inProcess(chunks(body, size).iterable, { url: 'http://127.0.0.1/sitemap.xml.gz' });
    const items: SitemapItem[] = [];
    let r = await it.next();
    for (; !r.done; r = await it.next()) items.push(...r.value);
    const what = `round ${round}: ${parts.length} members, ${tail.length} bytes after, chunks of ${size}`;
    assert.equal(r.value.fatal, undefined, what);
    assert.equal(items.filter((i) => i.kind === 'url').length, n, what);
    const problems = items.flatMap((i) => (i.kind === 'problem' ? [i.problem] : []));
    if (tail.length === 0) assert.deepEqual(problems, [], what);
    else {
      assert.deepEqual(
        problems.map((p) => p.code),
        ['GZIP_TRAILING_BYTES'],
        what,
      );
      assert.match(
        problems[0]!.message,
        new RegExp(`ends after ${(body.length - tail.length).toLocaleString('en-US')} bytes of the file, and ${tail.length} more`),
        what,
      );
    }
  }
});
