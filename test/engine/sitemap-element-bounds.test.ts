/**
 * Hostile sitemaps against the bounds of one element (limits.ts): a start tag with millions of
 * attributes, attributes of megabytes, a tag that never ends, nesting without end, an entry with
 * thousands of alternates; each is refused or cut with a problem, reading only the first chunks.
 * Every case runs on this thread and in the parse worker. Then a parse worker that runs out of
 * memory: that sitemap fails with its own code, the list goes on, and a resume does not read it again.
 */
import { test as nodeTest, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import type { Problem, SitemapUrlEntry } from '../../shared/model.js';
import type { SitemapItem, SitemapSummary } from '../../electron/engine/types.js';
import { createHttpFetcher } from '../../electron/engine/http/http.js';
import { createSitemapParser } from '../../electron/engine/sitemap/read/parser.js';
import { SitemapRequestList } from '../../electron/engine/sitemap/request-list.js';
import { streamSitemap as inProcess } from '../../electron/engine/sitemap/read/stream.js';
import { ParseWorkerPool, streamSitemapInWorker, useParseWorkerPool } from '../../electron/engine/sitemap/worker/worker-stream.js';
import { startLocalServer } from '../fixtures/server.js';

const NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml"';
const HEAD = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset ${NS}>\n`;
const WORKERS = new URL('../fixtures/workers/', import.meta.url);

/**
 * A body made on demand in chunks of about `chunk` bytes: `head`, `count` pieces `piece(i)`, `tail`
 * (nothing is built before it is asked for). Records the chunks pulled and whether it was closed.
 */
function generated(head: string, piece: (i: number) => string, count: number, tail: string, chunk = 64 * 1024) {
  const state = { pulled: 0, closed: false };
  async function* gen(): AsyncGenerator<Buffer> {
    try {
      let s = head;
      for (let i = 0; i < count; i++) {
        s += piece(i);
        if (s.length >= chunk) {
          state.pulled++;
          yield Buffer.from(s);
          s = '';
        }
      }
      state.pulled++;
      yield Buffer.from(s + tail);
    } finally {
      state.closed = true;
    }
  }
  return { iterable: gen(), state };
}

/** A whole body in chunks of `size` bytes. */
function chunked(bytes: Buffer, size = 64 * 1024) {
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

const urls = (n: number, prefix = 'p') => Array.from({ length: n }, (_, i) => `<url><loc>http://127.0.0.1/${prefix}${i}</loc></url>\n`).join('');
const link = (i: number) => `<xhtml:link rel="alternate" hreflang="l${i}" href="http://127.0.0.1/a/l${i}"/>\n`;

interface Read {
  summary: SitemapSummary;
  items: SitemapItem[];
  urls: SitemapUrlEntry[];
  problems: Problem[];
  codes: string[];
}

function summarise(items: SitemapItem[], summary: SitemapSummary): Read {
  const problems = items.flatMap((i) => (i.kind === 'problem' ? [i.problem] : []));
  return { summary, items, urls: items.flatMap((i) => (i.kind === 'url' ? [i.entry] : [])), problems, codes: problems.map((p) => p.code) };
}

const IMPLS = [
  ['this thread', inProcess],
  ['parse worker', streamSitemapInWorker],
] as const;

for (const [where, stream] of IMPLS) {
  const test = (name: string, fn: (t: TestContext) => void | Promise<void>) => nodeTest(`${name} (${where})`, fn);

  async function read(body: AsyncIterable<Buffer>): Promise<Read> {
    const it = stream(body, { url: 'http://127.0.0.1/sitemap.xml' });
    const items: SitemapItem[] = [];
    for (;;) {
      const r = await it.next();
      if (r.done) return summarise(items, r.value);
      items.push(...r.value);
    }
  }

  test('a <urlset> start tag with 12 million attributes is refused after its first 1,000, in the first chunks', async () => {
    const body = generated(
      '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"',
      (i) => ` a${i}=""`,
      12_000_000,
      `>\n${urls(5)}</urlset>\n`,
    );
    const r = await read(body.iterable);
    assert.equal(r.summary.fatal?.code, 'ELEMENT_TOO_LARGE');
    assert.match(r.summary.fatal!.message, /<urlset> at line 2, column 1 has more than 1,000 attributes/);
    assert.deepEqual(r.codes, ['ELEMENT_TOO_LARGE']);
    assert.equal(r.summary.urlCount, 0);
    assert.ok(body.state.pulled <= 3, `${body.state.pulled} chunks of 64 KB read`);
    assert.ok(body.state.closed, 'the body is closed');
  });

  test('gzipped: 200,000 attributes on the root are ELEMENT_TOO_LARGE, reading stops', async () => {
    let tag = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';
    for (let i = 0; i < 200_000; i++) tag += ` a${i}="${i}"`;
    const zipped = gzipSync(Buffer.from(`${tag}>\n${urls(5)}</urlset>\n`));
    const body = chunked(zipped, 4096);
    const r = await read(body.iterable);
    assert.equal(r.summary.fatal?.code, 'ELEMENT_TOO_LARGE');
    assert.equal(r.summary.gzip, true);
    assert.ok(body.state.pulled < body.state.total, `${body.state.pulled} of ${body.state.total} chunks read`);
  });

  test('attributes of more than 256 KiB in one start tag are refused; the entries before are kept', async () => {
    let attrs = '';
    for (let i = 0; i < 100; i++) attrs += ` data-${i}="${'v'.repeat(4000)}"`;
    const doc = `${HEAD}${urls(3)}<url><loc>http://127.0.0.1/x</loc><xhtml:link rel="alternate" hreflang="de" href="http://127.0.0.1/de"${attrs}/></url>\n${urls(3, 'q')}</urlset>\n`;
    const r = await read(chunked(Buffer.from(doc), 8192).iterable);
    assert.equal(r.summary.fatal?.code, 'ELEMENT_TOO_LARGE');
    assert.match(r.summary.fatal!.message, /<xhtml:link> at line 6, column 35 has attributes of more than 256 KiB in all/);
    assert.match(r.summary.fatal!.message, /The 4 entries read before it were kept/, 'the open one too: its <loc> is complete');
    assert.deepEqual(
      r.urls.map((u) => u.loc),
      ['http://127.0.0.1/p0', 'http://127.0.0.1/p1', 'http://127.0.0.1/p2', 'http://127.0.0.1/x'],
    );
  });

  test('a start tag longer than 1 MiB (whitespace between its attributes) is refused before its end', async () => {
    const body = generated(`${HEAD}${urls(2)}<url><loc>http://127.0.0.1/x</loc><foo a="1"`, () => ' '.repeat(1000), 8_000, ` b="2"/></url>\n</urlset>\n`);
    const r = await read(body.iterable);
    assert.equal(r.summary.fatal?.code, 'ELEMENT_TOO_LARGE');
    assert.match(r.summary.fatal!.message, /<foo> at line 5, column \d+ runs over 1 MiB/);
    assert.ok(body.state.pulled <= 20, `${body.state.pulled} chunks of 64 KB read (of 123)`);
  });

  test('elements nested more than 100 deep are NESTING_TOO_DEEP; 100 deep is read', async () => {
    const nest = (n: number) => '<a>'.repeat(n) + '</a>'.repeat(n);
    const ok = await read(chunked(Buffer.from(`${HEAD}<url><loc>http://127.0.0.1/x</loc>${nest(98)}</url></urlset>`)).iterable);
    assert.equal(ok.summary.fatal, undefined, 'urlset, url and 98 more: 100 open at once');
    assert.equal(ok.summary.urlCount, 1);
    const body = generated(`${HEAD}${urls(2)}<url><loc>http://127.0.0.1/x</loc>`, () => '<a>', 10_000_000, '');
    const r = await read(body.iterable);
    assert.equal(r.summary.fatal?.code, 'NESTING_TOO_DEEP');
    assert.match(r.summary.fatal!.message, /<a> at line 5, column \d+ is nested more than 100 elements deep/);
    assert.equal(r.summary.urlCount, 3, 'the entries before and the open one, whose <loc> is complete');
    assert.ok(body.state.pulled <= 2, `${body.state.pulled} chunks read`);
  });

  test('an entry with 6,000 hreflang alternates keeps 5,000 and says ENTRY_TOO_LARGE; the next entry is read', async () => {
    let doc = `${HEAD}<url><loc>http://127.0.0.1/x</loc>\n`;
    for (let i = 0; i < 6000; i++) doc += link(i);
    doc += `</url>\n${urls(2)}</urlset>\n`;
    const r = await read(chunked(Buffer.from(doc), 16 * 1024).iterable);
    assert.equal(r.summary.fatal, undefined);
    assert.deepEqual(
      r.urls.map((u) => u.loc),
      ['http://127.0.0.1/x', 'http://127.0.0.1/p0', 'http://127.0.0.1/p1'],
    );
    assert.equal(r.urls[0]!.alternates?.length, 5000);
    assert.deepEqual(r.urls[0]!.alternates?.at(-1), { lang: 'l4999', href: 'http://127.0.0.1/a/l4999' });
    assert.deepEqual(r.problems, [
      {
        code: 'ENTRY_TOO_LARGE',
        message:
          'The entry holds more than 5,000 alternates, images, videos and links, or more than 1 MiB of their text; the rest were left out. (entry http://127.0.0.1/x)',
        url: 'http://127.0.0.1/x',
      },
    ]);
  });
}

nodeTest('in one chunk, an entry past its bounds is left to the usual reading, which cuts it the same way', () => {
  let doc = `${HEAD}<url><loc>http://127.0.0.1/x</loc>\n`;
  for (let i = 0; i < 6000; i++) doc += link(i);
  doc += `</url>\n${urls(2)}</urlset>\n`;
  const items: SitemapItem[] = [];
  const p = createSitemapParser({ url: 'http://127.0.0.1/sitemap.xml', onItem: (i) => items.push(i) });
  p.write(Buffer.from(doc));
  p.end();
  const r = summarise(items, p.summary());
  assert.equal(r.urls.length, 3);
  assert.equal(r.urls[0]!.alternates?.length, 5000);
  assert.deepEqual(r.codes, ['ENTRY_TOO_LARGE']);
});

// ------------------------------------------------------------------ a parse worker out of memory

/** A pool whose worker runs out of a 16 MB heap on a sitemap whose URL holds "hostile" (fixtures/workers). */
const oomPool = () => new ParseWorkerPool(new URL('./oom-on-hostile.mjs', WORKERS), 60_000, { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 });

nodeTest('a worker out of memory ends that reading with SITEMAP_WORKER_OUT_OF_MEMORY after the items it handed out', async () => {
  const pool = oomPool();
  const body = chunked(Buffer.from(HEAD + urls(5000) + '</urlset>'), 1024);
  const it = pool.stream(body.iterable, { url: 'http://127.0.0.1/hostile.xml' });
  const first = await it.next();
  assert.deepEqual(first.value, [{ kind: 'url', entry: { loc: 'http://127.0.0.1/first' } }]);
  await assert.rejects(it.next(), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'SITEMAP_WORKER_OUT_OF_MEMORY');
    assert.match(err.message, /ran out of memory \(its limit is 16 MB\) on this sitemap/);
    return true;
  });
  assert.ok(body.state.closed, 'the body is closed');
  // The next sitemap gets a new worker.
  const next = pool.stream(chunked(Buffer.from(HEAD + urls(3) + '</urlset>')).iterable, { url: 'http://127.0.0.1/ok.xml' });
  let r = await next.next();
  const locs: string[] = [];
  for (; !r.done; r = await next.next()) for (const i of r.value) if (i.kind === 'url') locs.push(i.entry.loc);
  assert.equal(locs.length, 3);
  assert.equal(pool.fallbackReason, null);
});

nodeTest('a list: the sitemap whose worker ran out of memory is final "error", the rest is read, and a resume does not read it again', async (t) => {
  const before = useParseWorkerPool(oomPool());
  t.after(() => void useParseWorkerPool(before));
  const server = await startLocalServer(({ res, path }, s) => {
    const body =
      path === '/hostile.xml'
        ? HEAD + urls(5000).replaceAll('http://127.0.0.1', s.origin) + '</urlset>'
        : path === '/ok.xml'
          ? HEAD + urls(3, 'ok').replaceAll('http://127.0.0.1', s.origin) + '</urlset>'
          : null;
    if (body === null) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/xml' }).end(body);
  });
  t.after(() => server.close());
  const fetcher = createHttpFetcher({
    userAgent: 'spinneret-test',
    timeoutMs: 5000,
    connectTimeoutMs: 2000,
    retries: 0,
    maxBodyBytes: 1 << 20,
    perHostConcurrency: 4,
    delayMs: 0,
  });
  const open = (state?: ReturnType<SitemapRequestList['getState']>) =>
    new SitemapRequestList({
      sitemapUrls: [`${server.origin}/hostile.xml`, `${server.origin}/ok.xml`],
      fetcher,
      parseInWorker: true,
      ...(state ? { state } : {}),
    });
  const drain = async (list: SitemapRequestList) => {
    const out: string[] = [];
    for (let r = await list.fetchNext(); r; r = await list.fetchNext()) out.push(r.url.replace(server.origin, ''));
    return out;
  };

  const list = open();
  const first = await list.fetchNext();
  assert.equal(first?.url, `${server.origin}/first`);
  // A checkpoint taken now holds the sitemap in progress: a resume from it reads it once more.
  const midway = list.getState();
  assert.equal(midway.current?.url, `${server.origin}/hostile.xml`);
  assert.deepEqual(await drain(list), ['/ok0', '/ok1', '/ok2'], 'the crawl goes on');
  const hostile = list.nodes().find((n) => n.url.endsWith('/hostile.xml'))!;
  assert.equal(hostile.state, 'error');
  assert.deepEqual(
    hostile.problems.map((p) => p.code),
    ['SITEMAP_WORKER_OUT_OF_MEMORY'],
  );
  assert.match(hostile.problems[0]!.message, /ran out of memory/);
  const final = list.getState();
  assert.equal(final.current, null, 'nothing in progress');
  assert.equal(final.nodes.find((n) => n.url.endsWith('/hostile.xml'))?.state, 'error');

  assert.deepEqual(await drain(open(final)), [], 'a resume after it reads nothing again');
  assert.equal(server.hits.get('/hostile.xml'), 1);

  const again = open(midway);
  assert.deepEqual(await drain(again), ['/ok0', '/ok1', '/ok2'], 'from the checkpoint taken midway: the entry handed out is skipped');
  assert.equal(again.getState().current, null);
  assert.equal(again.nodes().find((n) => n.url.endsWith('/hostile.xml'))?.state, 'error', 'and it is final after that one more try');
  assert.equal(server.hits.get('/hostile.xml'), 2);
});
