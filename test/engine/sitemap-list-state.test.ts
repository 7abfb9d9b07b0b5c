/**
 * SitemapRequestList.getState() is what a crawl's checkpoint holds, and a checkpoint may be taken at
 * any turn of the event loop (the service writes one on a timer). Whenever it is taken, every
 * sitemap whose node has not ended must be in the state as the sitemap in progress or as a pending
 * one: a sitemap in neither is never read again after a resume, and its node stays 'fetching' for
 * good (a kill right after such a checkpoint left the resumed crawl's tree so).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { createHttpFetcher } from '../../electron/engine/http/http.js';
import type { SitemapNode } from '../../shared/model.js';
import { SitemapRequestList, type SitemapListCheckpoint, type SitemapRequestListState } from '../../electron/engine/sitemap/request-list.js';
import { startLocalServer } from '../fixtures/server.js';

const urlset = (origin: string, prefix: string, n: number) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
  Array.from({ length: n }, (_, i) => `<url><loc>${origin}/${prefix}/${i}</loc></url>`).join('\n') +
  `\n</urlset>\n`;

/** The sitemaps of `st` whose node has not ended and that it neither reads nor has pending. */
function lost(st: SitemapRequestListState): string[] {
  const held = new Set([...st.pending.map((p) => p.id), ...(st.current ? [st.current.id] : [])]);
  return st.nodes.filter((n) => (n.state === 'pending' || n.state === 'fetching') && !held.has(n.id)).map((n) => `${n.id} (${n.state})`);
}

test('a checkpoint at any turn of the event loop holds every sitemap not ended: read, pending or ended', async () => {
  /** Cuts the first download of /c.xml (set while it is under way). */
  let cut = null as (() => void) | null; // set by the server once the broken download starts (asserted: not narrowed to null)
  let brokeOnce = false;
  const server = await startLocalServer(({ res, path }, s) => {
    const o = s.origin;
    const send = (body: Buffer, type = 'application/xml') => {
      res.writeHead(200, { 'content-type': type, 'content-length': String(body.length) });
      res.end(body);
    };
    if (path === '/index.xml') {
      const kids = ['/a.xml', '/b.xml.gz', '/c.xml', '/d.xml'].map((k) => `<sitemap><loc>${o}${k}</loc></sitemap>`).join('\n');
      return send(Buffer.from(`<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${kids}\n</sitemapindex>\n`));
    }
    if (path === '/a.xml') return send(Buffer.from(urlset(o, 'a', 300)));
    if (path === '/b.xml.gz') return send(gzipSync(urlset(o, 'b', 300)), 'application/gzip');
    if (path === '/c.xml') {
      const body = Buffer.from(urlset(o, 'c', 3000));
      if (brokeOnce) return send(body);
      // The first download stops half way and breaks off once the list hands out its entries (so
      // while its spool is being read): it is fetched again, the entries read skipped (a retry).
      brokeOnce = true;
      res.writeHead(200, { 'content-type': 'application/xml', 'content-length': String(body.length) });
      res.write(body.subarray(0, body.length >> 1));
      cut = () => res.socket?.destroy();
      return;
    }
    if (path === '/d.xml') return send(Buffer.from(urlset(o, 'd', 5)));
    res.writeHead(404);
    res.end();
  });
  const list = new SitemapRequestList({
    sitemapUrls: [server.origin + '/index.xml'],
    fetcher: createHttpFetcher({
      userAgent: 'spinneret-test',
      timeoutMs: 5000,
      connectTimeoutMs: 2000,
      retries: 0,
      maxBodyBytes: 1 << 22,
      perHostConcurrency: 2,
      delayMs: 0,
    }),
    batchSize: 64,
    retryDelayMs: 1,
  });
  const problems: string[] = [];
  let turns = 0;
  let polling = true;
  const poll = () => {
    if (!polling) return;
    turns++;
    const gone = lost(list.getState());
    if (gone.length) problems.push(`turn ${turns}: ${gone.join(', ')}`);
    setImmediate(poll);
  };
  try {
    setImmediate(poll);
    let handed = 0;
    for (let batch = await list.fetchNextBatch(50); batch.length > 0; batch = await list.fetchNextBatch(50)) {
      handed += batch.length;
      if (cut && batch.some((init) => init.url.includes('/c/'))) {
        cut();
        cut = null;
      }
    }
    polling = false;
    assert.equal(handed, 300 + 300 + 3000 + 5);
    const states = Object.fromEntries(list.nodes().map((n) => [n.url.slice(server.origin.length), n.state]));
    assert.deepEqual(
      list.nodes().flatMap((n) => n.problems.map((p) => `${n.url.slice(server.origin.length)} ${p.code}`)),
      ['/c.xml SITEMAP_RETRIED'],
    );
    assert.deepEqual(states, { '/index.xml': 'done', '/a.xml': 'done', '/b.xml.gz': 'done', '/c.xml': 'done', '/d.xml': 'done' });
    assert.ok(brokeOnce, 'the broken download happened');
    assert.ok(turns > 20, `the state was looked at ${turns} times`);
    assert.deepEqual(problems, []);
  } finally {
    polling = false;
    await list.close();
    await server.close();
  }
});

test('a checkpoint state holds no tree; with the nodes told to onNode handed back it resumes as the whole state does', async () => {
  // An index of children: one listed twice, one redirecting to another child, one redirecting to a
  // sitemap of its own, one listing its own index (a cycle), with problems in the one read longest.
  const server = await startLocalServer(({ res, path }, s) => {
    const o = s.origin;
    const send = (body: string) => {
      res.writeHead(200, { 'content-type': 'application/xml', 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    };
    const index = (kids: string[]) =>
      `<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${kids.map((k) => `<sitemap><loc>${o}${k}</loc></sitemap>`).join('\n')}\n</sitemapindex>\n`;
    if (path === '/index.xml') return send(index(['/a.xml', '/b.xml', '/a.xml', '/to-b.xml', '/moved.xml', '/c.xml', '/loop.xml']));
    if (path === '/to-b.xml' || path === '/moved.xml') {
      res.writeHead(301, { location: path === '/to-b.xml' ? `${o}/b.xml` : `${o}/elsewhere.xml` });
      return res.end();
    }
    if (path === '/loop.xml') return send(index(['/index.xml', '/elsewhere.xml']));
    if (path === '/a.xml') return send(urlset(o, 'a', 700).replace('<url><loc>', '<url><priority>9</priority><loc>'));
    if (path === '/b.xml') return send(urlset(o, 'b', 300));
    if (path === '/elsewhere.xml') return send(urlset(o, 'e', 50));
    if (path === '/c.xml') return send(urlset(o, 'c', 400));
    res.writeHead(404);
    res.end();
  });
  const fetcher = () =>
    createHttpFetcher({
      userAgent: 'spinneret-test',
      timeoutMs: 5000,
      connectTimeoutMs: 2000,
      retries: 0,
      maxBodyBytes: 1 << 22,
      perHostConcurrency: 2,
      delayMs: 0,
    });
  /** Reads a list to its end: the URLs handed out, and its nodes as the last onNode told them. */
  async function readAll(list: SitemapRequestList, told: Map<string, SitemapNode>, after?: () => void) {
    const urls: string[] = [];
    for (let batch = await list.fetchNextBatch(64); batch.length > 0; batch = await list.fetchNextBatch(64)) {
      urls.push(...batch.map((b) => b.url.slice(server.origin.length)));
      after?.();
    }
    return { urls, nodes: [...told.values()].map((n) => JSON.stringify(n).replaceAll(server.origin, '')).sort() };
  }
  try {
    const told = new Map<string, SitemapNode>();
    const whole = new SitemapRequestList({ sitemapUrls: [server.origin + '/index.xml'], fetcher: fetcher(), batchSize: 64, onNode: (n) => told.set(n.id, n) });
    const points: { cp: SitemapListCheckpoint; nodes: SitemapNode[]; state: SitemapRequestListState; handed: number }[] = [];
    let handed = 0;
    const plain = await readAll(whole, told, () => {
      handed += 64;
      const cp = whole.checkpointState();
      // The checkpoint reported what had changed first: the nodes told so far are the tree as of it.
      points.push({ cp: JSON.parse(JSON.stringify(cp)), nodes: [...told.values()], state: whole.getState(), handed });
    });
    assert.ok(points.length > 10);
    for (const p of points) assert.equal((p.cp as unknown as { nodes?: unknown }).nodes, undefined, 'a checkpoint without the tree');
    for (const p of points) {
      const again = new Map<string, SitemapNode>(p.nodes.map((n) => [n.id, n]));
      const fromCp = await readAll(
        new SitemapRequestList({ sitemapUrls: [], fetcher: fetcher(), batchSize: 64, state: { ...p.cp, nodes: p.nodes }, onNode: (n) => again.set(n.id, n) }),
        again,
      );
      const wholeAgain = new Map<string, SitemapNode>(p.state.nodes.map((n) => [n.id, n]));
      const fromState = await readAll(
        new SitemapRequestList({ sitemapUrls: [], fetcher: fetcher(), batchSize: 64, state: p.state, onNode: (n) => wholeAgain.set(n.id, n) }),
        wholeAgain,
      );
      assert.deepEqual(fromCp, fromState, `resumed after ${p.handed} entries`);
      assert.deepEqual(fromCp.nodes, plain.nodes, `the tree resumed after ${p.handed} entries`);
      assert.deepEqual(new Set(fromCp.urls), new Set(plain.urls.slice(plain.urls.length - fromCp.urls.length)));
    }
  } finally {
    await server.close();
  }
});
