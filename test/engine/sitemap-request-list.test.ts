import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import type { Problem, SitemapNode } from '../../shared/model.js';
import { createHttpFetcher } from '../../electron/engine/http/http.js';
import { Crawler } from '../../electron/engine/crawler/crawler.js';
import { DEFAULT_SETTINGS } from '../../shared/model.js';
import { SitemapRequestList, type SitemapRequestListOptions, type SitemapRequestListState } from '../../electron/engine/sitemap/request-list.js';
import type { FetchResponse, KeyValueStore, ListingWire, RequestInit } from '../../electron/engine/types.js';
import { startLocalServer, type LocalServer } from '../fixtures/server.js';

// ------------------------------------------------------------------ helpers

type Route = { status?: number; type?: string; body: string | Buffer; headers?: Record<string, string> };

/** A server answering from a path → route map (404 elsewhere); `routes` may change between requests. */
async function serve(routes: Record<string, Route | ((origin: string) => Route)>): Promise<LocalServer> {
  return startLocalServer(({ res, path }, server) => {
    const r = routes[path];
    if (!r) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    const route = typeof r === 'function' ? r(server.origin) : r;
    const body = typeof route.body === 'string' ? Buffer.from(route.body.replaceAll('{o}', server.origin)) : route.body;
    res.writeHead(route.status ?? 200, { 'content-type': route.type ?? 'application/xml', 'content-length': String(body.length), ...route.headers });
    res.end(body);
  });
}

const urlset = (paths: string[], lastmod?: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
  paths.map((p) => `<url><loc>{o}${p}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>`).join('\n') +
  `\n</urlset>\n`;

const index = (children: { path: string; lastmod?: string }[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
  children.map((c) => `<sitemap><loc>{o}${c.path}</loc>${c.lastmod ? `<lastmod>${c.lastmod}</lastmod>` : ''}</sitemap>`).join('\n') +
  `\n</sitemapindex>\n`;

const fetcher = () =>
  createHttpFetcher({
    userAgent: 'spinneret-test',
    timeoutMs: 5000,
    connectTimeoutMs: 2000,
    retries: 0,
    maxBodyBytes: 1 << 20,
    perHostConcurrency: 4,
    delayMs: 0,
  });

interface Harness {
  list: SitemapRequestList;
  events: SitemapNode[];
  problems: [string, Problem][];
  node(path: string): SitemapNode;
}

function makeList(server: LocalServer, roots: string[], extra: Partial<SitemapRequestListOptions> = {}): Harness {
  const events: SitemapNode[] = [];
  const problems: [string, Problem][] = [];
  const list = new SitemapRequestList({
    sitemapUrls: roots.map((p) => server.origin + p),
    fetcher: fetcher(),
    onNode: (n) => events.push(n),
    onProblem: (id, p) => problems.push([id, p]),
    ...extra,
  });
  const node = (path: string) => {
    const n = list.nodes().find((x) => x.id === server.origin + path);
    assert.ok(n, `no node for ${path}`);
    return n;
  };
  return { list, events, problems, node };
}

async function drain(list: SitemapRequestList): Promise<RequestInit[]> {
  const out: RequestInit[] = [];
  for (let r = await list.fetchNext(); r; r = await list.fetchNext()) out.push(r);
  return out;
}

/**
 * Spool files of `dir` held open by this process, from /proc (null where there is none). The spool
 * file is unlinked as soon as it is opened, so a directory listing cannot tell.
 */
function openSpools(dir: string): number | null {
  let fds: string[];
  try {
    fds = readdirSync('/proc/self/fd');
  } catch {
    return null;
  }
  return fds.filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
    } catch {
      return false;
    }
  }).length;
}

const paths = (inits: RequestInit[], origin: string) => inits.map((r) => r.url.slice(origin.length));
const range = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

// ------------------------------------------------------------------ tests

test('reads an index and its urlsets (gzip file included) into RequestInits, breadth-first', async () => {
  const server = await serve({
    '/index.xml': { body: index([{ path: '/a.xml', lastmod: '2024-05-01' }, { path: '/b.xml.gz' }]) },
    '/a.xml': { body: urlset(['/a1', '/a2'], '2024-04-30') },
    '/b.xml.gz': (o) => ({ type: 'application/octet-stream', body: gzipSync(urlset(['/b1']).replaceAll('{o}', o)) }),
  });
  try {
    const o = server.origin;
    const { list, node } = makeList(server, ['/index.xml'], { parentId: 'robots', label: 'page', userData: { from: 'sm' } });
    const wires: (ListingWire | undefined)[] = [];
    const [first, ...more] = await list.fetchNextBatch(1, wires);
    assert.equal(more.length, 0);
    // The entry as the journal writes it, written by the parse worker, beside the request.
    assert.deepEqual(wires, [{ entryJson: `"${o}/a1","2024-04-30"` }]);
    assert.deepEqual(first, {
      url: `${o}/a1`,
      // worked out by the parse worker, so the frontier's thread does not canonicalise it again
      uniqueKey: `${o}/a1`,
      source: 'sitemap',
      depth: 0,
      discoveredFrom: `${o}/a.xml`,
      sitemapEntry: { loc: `${o}/a1`, lastmod: '2024-04-30' },
      label: 'page',
      userData: { from: 'sm' },
    });
    const rest = await drain(list);
    assert.deepEqual(paths(rest, o), ['/a2', '/b1']);
    assert.equal(rest[1]!.discoveredFrom, `${o}/b.xml.gz`);
    assert.equal(list.processedCount(), 3);
    assert.equal(await list.isFinished(), true);

    const root = node('/index.xml');
    assert.equal(root.parentId, 'robots');
    assert.equal(root.type, 'sitemapindex');
    assert.equal(root.state, 'done');
    assert.equal(root.httpStatus, 200);
    assert.equal(root.childCount, 2);
    assert.ok(root.bytes > 0);
    const a = node('/a.xml');
    assert.deepEqual([a.parentId, a.type, a.state, a.urlCount, a.lastmod, a.gzip], [`${o}/index.xml`, 'urlset', 'done', 2, '2024-05-01', false]);
    const b = node('/b.xml.gz');
    assert.equal(b.gzip, true);
    assert.equal(b.urlCount, 1);
    assert.ok(b.uncompressedBytes > b.bytes, 'inflated size is larger than the wire size');
    assert.equal(server.hits.get('/a.xml'), 1);
  } finally {
    await server.close();
  }
});

test('parsed on this thread (parseInWorker false, or SPINNERET_PARSE_WORKER=0): the same entries, keys left to the frontier', async () => {
  const server = await serve({
    '/index.xml': { body: index([{ path: '/a.xml' }, { path: '/b.xml.gz' }]) },
    '/a.xml': { body: urlset(['/a1', '/a2'], '2024-04-30') },
    '/b.xml.gz': (o) => ({ type: 'application/octet-stream', body: gzipSync(urlset(['/b1']).replaceAll('{o}', o)) }),
  });
  const saved = process.env.SPINNERET_PARSE_WORKER;
  try {
    const inWorker = await drain(makeList(server, ['/index.xml']).list);
    assert.ok(inWorker.every((r) => r.uniqueKey === r.url));
    const expected = inWorker.map(({ uniqueKey: _key, ...rest }) => rest);
    assert.equal(expected.length, 3);
    // Only the worker writes an entry's wire form.
    const wires: (ListingWire | undefined)[] = [];
    const here = makeList(server, ['/index.xml'], { parseInWorker: false }).list;
    assert.equal((await here.fetchNextBatch(10, wires)).length, 2);
    assert.deepEqual(wires, [undefined, undefined]);
    await drain(here);

    assert.deepEqual(await drain(makeList(server, ['/index.xml'], { parseInWorker: false }).list), expected);
    process.env.SPINNERET_PARSE_WORKER = '0';
    assert.deepEqual(await drain(makeList(server, ['/index.xml']).list), expected);
    // The option wins over the environment.
    assert.deepEqual(await drain(makeList(server, ['/index.xml'], { parseInWorker: true }).list), inWorker);
  } finally {
    if (saved === undefined) delete process.env.SPINNERET_PARSE_WORKER;
    else process.env.SPINNERET_PARSE_WORKER = saved;
    await server.close();
  }
});

test('emits each node as pending, fetching, then done', async () => {
  const server = await serve({ '/s.xml': { body: urlset(['/x']) } });
  try {
    const { list, events } = makeList(server, ['/s.xml']);
    await drain(list);
    assert.deepEqual(
      events.map((e) => e.state),
      ['pending', 'fetching', 'done'],
    );
    assert.equal(events[2]!.urlCount, 1);
  } finally {
    await server.close();
  }
});

test('is lazy: a sitemap is read only when the entries before it are used up, and fetched one ahead at most', async () => {
  const server = await serve({
    '/index.xml': { body: index([{ path: '/big.xml' }, { path: '/next.xml' }, { path: '/third.xml' }]) },
    '/big.xml': { body: urlset(range('/p', 3000)) },
    '/next.xml': { body: urlset(['/n']) },
    '/third.xml': { body: urlset(['/t']) },
  });
  try {
    const { list, node } = makeList(server, ['/index.xml'], { batchSize: 50 });
    assert.equal(server.hits.get('/index.xml'), undefined, 'nothing is fetched before it is asked for');
    for (let i = 0; i < 10; i++) await list.fetchNext();
    assert.equal(list.processedCount(), 10);
    // Once big.xml is in, the next sitemap is fetched ahead (not read); never the one after it.
    for (let i = 0; i < 100 && server.hits.get('/next.xml') === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(server.hits.get('/next.xml'), 1, 'the next sitemap is fetched while this one is read');
    assert.equal(node('/next.xml').state, 'pending', 'fetched ahead, not read');
    assert.equal(node('/next.xml').urlCount, 0);
    assert.equal(server.hits.get('/third.xml'), undefined, 'one sitemap ahead at most');
    const rest = await drain(list);
    assert.equal(rest.length, 2992);
    assert.deepEqual(paths(rest.slice(-2), server.origin), ['/n', '/t']);
    assert.equal(server.hits.get('/next.xml'), 1, 'the response fetched ahead is the one read');
    assert.equal(server.hits.get('/third.xml'), 1);
  } finally {
    await server.close();
  }
});

test('a sitemap seen before is not fetched again: cycles and duplicates are problems on the lister', async () => {
  const server = await serve({
    // The root lists itself and two children; child-index lists the root back and shared.xml again.
    '/root.xml': { body: index([{ path: '/root.xml' }, { path: '/child-index.xml' }, { path: '/shared.xml' }]) },
    '/child-index.xml': { body: index([{ path: '/root.xml' }, { path: '/shared.xml' }, { path: '/own.xml' }]) },
    '/shared.xml': { body: urlset(['/s']) },
    '/own.xml': { body: urlset(['/o']) },
  });
  try {
    const { list, node } = makeList(server, ['/root.xml']);
    const out = await drain(list);
    assert.deepEqual(paths(out, server.origin).sort(), ['/o', '/s']);
    for (const p of ['/root.xml', '/child-index.xml', '/shared.xml', '/own.xml']) assert.equal(server.hits.get(p), 1, p);
    const rootCodes = node('/root.xml').problems.map((p) => p.code);
    assert.deepEqual(rootCodes, ['SITEMAP_CYCLE']);
    const childProblems = node('/child-index.xml').problems;
    assert.deepEqual(
      childProblems.map((p) => [p.code, p.url]),
      [
        ['SITEMAP_CYCLE', `${server.origin}/root.xml`],
        ['DUPLICATE_SITEMAP', `${server.origin}/shared.xml`],
      ],
    );
    assert.equal(node('/shared.xml').parentId, `${server.origin}/root.xml`);
  } finally {
    await server.close();
  }
});

test('robots.txt, the node the tree hangs from, listed by an index or redirected to, is a cycle: never read as a text sitemap', async () => {
  const server = await serve({
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\nSitemap: {o}/index.xml\n' },
    '/index.xml': { body: index([{ path: '/robots.txt' }, { path: '/a.xml' }, { path: '/moved.xml' }]) },
    '/a.xml': { body: urlset(['/a1']) },
    '/moved.xml': { status: 301, body: '', headers: { location: '/robots.txt' } },
  });
  try {
    const o = server.origin;
    const robotsId = `${o}/robots.txt`;
    // As the crawler seeds it: robots.txt's node is its own (id: the uniqueKey of its URL), the list's roots hang from it.
    const { list, node, events } = makeList(server, []);
    list.addSitemap(`${o}/index.xml`, { parentId: robotsId, scope: `${o}/` });
    const out = await drain(list);
    assert.deepEqual(paths(out, o), ['/a1'], 'no line of robots.txt is a URL entry');
    assert.equal(server.hits.get('/robots.txt'), 1, 'fetched only through the redirect, never read');
    assert.ok(!list.nodes().some((n) => n.id === robotsId) && !events.some((n) => n.id === robotsId), 'the list makes no node of robots.txt');
    assert.deepEqual(
      node('/index.xml').problems.map((p) => [p.code, p.url]),
      [['SITEMAP_CYCLE', robotsId]],
    );
    assert.match(node('/index.xml').problems[0]!.message, /robots\.txt/);
    const moved = node('/moved.xml');
    assert.deepEqual([moved.state, moved.problems.map((p) => p.code)], ['skipped', ['SITEMAP_CYCLE']]);

    // Resumed, from this state or one saved before robots.txt was remembered: still a cycle.
    const state = list.getState();
    for (const saved of [state, { ...state, seen: state.seen.filter(([k]) => k !== robotsId) }]) {
      const again = makeList(server, [], { state: structuredClone(saved) });
      again.list.addSitemap(`${o}/robots.txt`, { parentId: `${o}/index.xml` });
      assert.deepEqual(
        again.node('/index.xml').problems.map((p) => p.code),
        ['SITEMAP_CYCLE', 'SITEMAP_CYCLE'],
      );
      assert.equal(await again.list.fetchNext(), null);
    }
    // robots.txt announcing itself: a cycle told to onProblem (its node is not the list's to change).
    const self = makeList(server, []);
    self.list.addSitemap(`${o}/robots.txt`, { parentId: robotsId });
    assert.deepEqual(
      self.problems.map(([id, p]) => [id, p.code]),
      [[robotsId, 'SITEMAP_CYCLE']],
    );
    assert.deepEqual(self.list.nodes(), []);
  } finally {
    await server.close();
  }
});

test('a crawl whose sitemap index lists robots.txt keeps robots.txt as the root node of its tree', async () => {
  const server = await serve({
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nAllow: /\nSitemap: {o}/index.xml\n' },
    '/index.xml': { body: index([{ path: '/robots.txt' }, { path: '/a.xml' }]) },
    '/a.xml': { body: urlset(['/a1']) },
  });
  try {
    const o = server.origin;
    const crawler = new Crawler({
      settings: { ...DEFAULT_SETTINGS, startUrl: `${o}/`, fetchPages: false, userAgent: 'spinneret-test', timeoutMs: 5000, connectTimeoutMs: 2000, retries: 0 },
      hooks: {},
    });
    assert.equal(await crawler.run(), 'finished');
    const nodes = crawler.nodes();
    const robots = nodes.find((n) => n.id === `${o}/robots.txt`);
    assert.deepEqual([robots?.parentId, robots?.type, robots?.state], [null, 'robots', 'done']);
    const idx = nodes.find((n) => n.id === `${o}/index.xml`);
    assert.equal(idx?.parentId, `${o}/robots.txt`);
    assert.deepEqual(
      idx?.problems.map((p) => p.code),
      ['SITEMAP_CYCLE'],
    );
    assert.deepEqual(
      nodes.filter((n) => n.parentId === null).map((n) => n.id),
      [`${o}/robots.txt`],
      'one root, and no cycle',
    );
    assert.equal(server.hits.get('/robots.txt'), 1);
  } finally {
    await server.close();
  }
});

test('a redirect back to a sitemap already read is not read again', async () => {
  const server = await serve({
    '/index.xml': { body: index([{ path: '/moved.xml' }, { path: '/ok.xml' }]) },
    '/moved.xml': { status: 301, body: '', headers: { location: '/index.xml' } },
    '/ok.xml': { body: urlset(['/k']) },
  });
  try {
    const { list, node } = makeList(server, ['/index.xml']);
    const out = await drain(list);
    assert.deepEqual(paths(out, server.origin), ['/k']);
    assert.equal(server.hits.get('/index.xml'), 2, 'fetched once directly, once through the redirect');
    const moved = node('/moved.xml');
    assert.equal(moved.state, 'skipped');
    assert.equal(moved.finalUrl, `${server.origin}/index.xml`);
    assert.deepEqual(
      moved.problems.map((p) => p.code),
      ['SITEMAP_CYCLE'],
    );
    assert.equal(node('/index.xml').childCount, 2);
  } finally {
    await server.close();
  }
});

test('HTTP errors, network errors and fatal parse problems end on the node; earlier entries are kept', async () => {
  // A host that hangs up on every connection: a network error, offline. (A port closed after use
  // would do too, until another test's server is given it.)
  const dead = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
  const deadOrigin = `http://127.0.0.1:${(dead.address() as net.AddressInfo).port}`;
  const server = await serve({
    '/index.xml': () => ({
      body: index([{ path: '/gone.xml' }, { path: '/broken.xml' }, { path: '/fine.xml' }]).replace(
        '</sitemapindex>',
        `<sitemap><loc>${deadOrigin}/dead.xml</loc></sitemap></sitemapindex>`,
      ),
    }),
    '/broken.xml': { body: urlset(['/before1', '/before2']).replace('</urlset>', '<url><loc>{o}/cut') },
    '/fine.xml': { body: urlset(['/fine']) },
  });
  try {
    const { list, node, events } = makeList(server, ['/index.xml']);
    const out = await drain(list);
    assert.deepEqual(paths(out, server.origin), ['/before1', '/before2', '/fine']);
    const gone = node('/gone.xml');
    assert.equal(gone.state, 'error');
    assert.equal(gone.httpStatus, 404);
    assert.equal(gone.problems[0]!.code, 'HTTP_404');
    assert.match(gone.problems[0]!.message, /404/);
    const broken = node('/broken.xml');
    assert.equal(broken.state, 'error');
    // The parser yields its fatal problem as an item and in the summary: recorded once.
    assert.deepEqual(
      broken.problems.map((p) => p.code),
      ['MALFORMED_XML'],
    );
    assert.equal(broken.urlCount, 2);
    const deadNode = list.nodes().find((n) => n.url === `${deadOrigin}/dead.xml`)!;
    assert.equal(deadNode.state, 'error');
    assert.match(deadNode.problems[0]!.code, /^[A-Z_]+$/);
    assert.notEqual(deadNode.problems[0]!.code, 'HTTP_404');
    assert.ok(events.some((e) => e.id === deadNode.id && e.state === 'error'));
    assert.equal(node('/fine.xml').state, 'done');
  } finally {
    await server.close();
    await new Promise((resolve) => dead.close(resolve));
  }
});

test('keepSitemap and isAllowed skip sitemaps without fetching them', async () => {
  const server = await serve({
    '/index.xml': {
      body: index([{ path: '/private/s.xml' }, { path: '/s.xml' }]).replace(
        '</sitemapindex>',
        '<sitemap><loc>http://outside.invalid/s.xml</loc></sitemap></sitemapindex>',
      ),
    },
    '/private/s.xml': { body: urlset(['/secret']) },
    '/s.xml': { body: urlset(['/public']) },
  });
  try {
    const { list, node } = makeList(server, ['/index.xml'], {
      keepSitemap: (u) => u.startsWith(server.origin),
      isAllowed: (u) => !u.includes('/private/'),
    });
    const out = await drain(list);
    assert.deepEqual(paths(out, server.origin), ['/public']);
    assert.equal(server.hits.get('/private/s.xml'), undefined);
    const priv = node('/private/s.xml');
    assert.deepEqual([priv.state, priv.problems[0]!.code], ['skipped', 'ROBOTS_DISALLOWED']);
    const outside = list.nodes().find((n) => n.url === 'http://outside.invalid/s.xml')!;
    assert.deepEqual([outside.state, outside.problems[0]!.code], ['skipped', 'SITEMAP_FILTERED']);
  } finally {
    await server.close();
  }
});

test('limit: hands out that many entries, then skips what is left', async () => {
  const server = await serve({
    '/index.xml': { body: index([{ path: '/a.xml' }, { path: '/b.xml' }]) },
    '/a.xml': { body: urlset(range('/a', 10)) },
    '/b.xml': { body: urlset(['/b']) },
  });
  try {
    const { list, node } = makeList(server, ['/index.xml'], { limit: 3 });
    const out = await drain(list);
    assert.equal(out.length, 3);
    assert.equal(list.processedCount(), 3);
    assert.equal(await list.isFinished(), true);
    assert.equal(server.hits.get('/b.xml'), undefined);
    assert.equal(node('/b.xml').state, 'skipped');
    assert.equal(node('/b.xml').problems[0]!.code, 'URL_LIMIT_REACHED');
    assert.ok(node('/a.xml').problems.some((p) => p.code === 'URL_LIMIT_REACHED'));
  } finally {
    await server.close();
  }
});

test('limit: a sitemap handed in with its response past the limit has its body freed at once', async () => {
  const server = await serve({ '/a.xml': { body: urlset(range('/a', 5)) } });
  try {
    const { list, node } = makeList(server, ['/a.xml'], { limit: 2 });
    assert.equal((await drain(list)).length, 2);
    // A page that turned out to be XML, its body still arriving (a held-open connection).
    const body = new PassThrough();
    body.write('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    const response: FetchResponse = {
      url: server.origin + '/late.xml',
      finalUrl: server.origin + '/late.xml',
      status: 200,
      headers: { 'content-type': 'application/xml' },
      redirectChain: [],
      body,
      wireBytes: () => 0,
      elapsedMs: () => 0,
    };
    list.addSitemap(response.url, { response });
    assert.equal(body.destroyed, true, 'nobody will read it: not left to its timeout');
    assert.equal(node('/late.xml').state, 'skipped');
    assert.equal(node('/late.xml').problems[0]!.code, 'URL_LIMIT_REACHED');
  } finally {
    await server.close();
  }
});

test('resumes from getState: finished sitemaps are not fetched again, the one in progress skips what was handed out', async () => {
  const server = await serve({
    '/index.xml': { body: index([{ path: '/a.xml' }, { path: '/b.xml' }, { path: '/c.xml' }]) },
    '/a.xml': { body: urlset(range('/a', 3)) },
    '/b.xml': { body: urlset(range('/b', 40)) },
    '/c.xml': { body: urlset(range('/c', 2)) },
  });
  const spoolDir = mkdtempSync(join(tmpdir(), 'spinneret-spool-test-'));
  try {
    const o = server.origin;
    const first = makeList(server, ['/index.xml'], { batchSize: 8, spoolDir });
    const before: RequestInit[] = [];
    for (let i = 0; i < 10; i++) before.push((await first.list.fetchNext())!);
    await first.list.close();
    const state = JSON.parse(JSON.stringify(first.list.getState())) as SitemapRequestListState;
    assert.equal(state.processedCount, 10);
    assert.equal(state.current?.url, `${o}/b.xml`);
    assert.deepEqual(
      state.pending.map((p) => p.url),
      [`${o}/c.xml`],
    );

    // Through a key-value store, as the service checkpoints it.
    const map = new Map<string, unknown>();
    const store: KeyValueStore = {
      get: <T>(k: string) => map.get(k) as T | undefined,
      set: (k, v) => void map.set(k, JSON.parse(JSON.stringify(v))),
      delete: (k) => void map.delete(k),
      has: (k) => map.has(k),
    };
    first.list.persist(store, 'sm');
    const events: SitemapNode[] = [];
    const resumed = await SitemapRequestList.open({
      sitemapUrls: [`${o}/index.xml`],
      fetcher: fetcher(),
      store,
      persistStateKey: 'sm',
      spoolDir,
      onNode: (n) => events.push(n),
    });
    assert.equal(resumed.processedCount(), 10);
    assert.equal(resumed.nodes().find((n) => n.url === `${o}/a.xml`)!.state, 'done');
    const after = await drain(resumed);
    const all = paths([...before, ...after], o);
    assert.deepEqual(all, [...range('/a', 3), ...range('/b', 40), ...range('/c', 2)]);
    assert.equal(server.hits.get('/index.xml'), 1);
    assert.equal(server.hits.get('/a.xml'), 1);
    assert.equal(server.hits.get('/b.xml'), 2, 'the sitemap in progress is read again');
    // The first list may have fetched c.xml ahead while reading b.xml: close() let that go.
    assert.ok((server.hits.get('/c.xml') ?? 0) <= 2, `c.xml fetched ${server.hits.get('/c.xml')} times`);
    assert.equal(resumed.processedCount(), 45);
    assert.ok(
      events.every((e) => e.url !== `${o}/a.xml`),
      'finished nodes are not re-emitted',
    );
    assert.deepEqual(readdirSync(spoolDir), [], 'spool files are gone');
    const open = openSpools(spoolDir);
    if (open !== null) assert.equal(open, 0, 'spool files are closed');
  } finally {
    await server.close();
    rmSync(spoolDir, { recursive: true, force: true });
  }
});

test('open() without a stored state starts afresh; a bad state is refused with a code', async () => {
  const server = await serve({ '/s.xml': { body: urlset(['/x']) } });
  try {
    const store: KeyValueStore = { get: () => undefined, set: () => undefined, delete: () => undefined, has: () => false };
    const list = await SitemapRequestList.open({ sitemapUrls: [`${server.origin}/s.xml`], fetcher: fetcher(), store, persistStateKey: 'k' });
    assert.equal((await drain(list)).length, 1);
    assert.throws(
      () => new SitemapRequestList({ sitemapUrls: [], fetcher: fetcher(), state: { version: 9 } as never }),
      (e: unknown) => (e as { code?: string }).code === 'BAD_SITEMAP_STATE',
    );
  } finally {
    await server.close();
  }
});

test('addSitemap reuses a response already fetched, and ignores a known sitemap', async () => {
  const server = await serve({ '/page': { body: urlset(['/from-page']) }, '/s.xml': { body: urlset(['/s']) } });
  try {
    const o = server.origin;
    const f = fetcher();
    const res = await f.fetch(`${o}/page`);
    const { list, node } = makeList(server, ['/s.xml']);
    list.addSitemap(`${o}/page`, { response: res });
    const out = await drain(list);
    // The handed-in response jumps the queue: its socket is not left waiting.
    assert.deepEqual(paths(out, o), ['/from-page', '/s']);
    assert.equal(server.hits.get('/page'), 1, 'not fetched a second time');
    assert.equal(node('/page').parentId, null);
    assert.equal(node('/page').state, 'done');

    const destroyed: boolean[] = [];
    const body = new Readable({ read() {} });
    body.on('close', () => destroyed.push(true));
    list.addSitemap(`${o}/s.xml`, { response: { body } as unknown as FetchResponse, parentId: null });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(destroyed, [true], 'the body of a known sitemap is released');
    assert.equal(await list.fetchNext(), null);
  } finally {
    await server.close();
  }
});

test('a handed-in response is drained to its spool at once, before the list is asked for anything', async () => {
  const big = urlset(Array.from({ length: 3000 }, (_, i) => `/p/${i}`));
  const server = await serve({ '/feed.xml': { body: big }, '/s.xml': { body: urlset(['/s']) } });
  try {
    const o = server.origin;
    const res = await fetcher().fetch(`${o}/feed.xml`);
    const { list } = makeList(server, ['/s.xml']);
    list.addSitemap(`${o}/feed.xml`, { response: res });
    // Nobody reads the list yet: the body must still be consumed (its socket is never left waiting).
    await new Promise<void>((resolve, reject) => {
      res.body.once('end', resolve);
      res.body.once('error', reject);
      res.body.once('close', resolve);
    });
    assert.equal(res.body.readableEnded || res.body.destroyed, true);
    const out = await drain(list);
    assert.equal(paths(out, o).filter((p) => p.startsWith('/p/')).length, 3000);
  } finally {
    await server.close();
  }
});

test('state can be taken at any time and a list rebuilt from it mid-way yields every entry once', async () => {
  const server = await serve({
    '/index.xml': { body: index([{ path: '/a.xml' }, { path: '/b.xml' }]) },
    '/a.xml': { body: urlset(range('/a', 7)) },
    '/b.xml': { body: urlset(range('/b', 5)) },
  });
  try {
    const o = server.origin;
    const expected = [...range('/a', 7), ...range('/b', 5)];
    // Stop after k entries, resume, repeat: every split point gives the same sequence.
    for (const k of [0, 1, 6, 7, 8, 12]) {
      const a = makeList(server, ['/index.xml'], { batchSize: 3 });
      const got: RequestInit[] = [];
      for (let i = 0; i < k; i++) got.push((await a.list.fetchNext())!);
      await a.list.close();
      const b = new SitemapRequestList({ sitemapUrls: [], fetcher: fetcher(), state: JSON.parse(JSON.stringify(a.list.getState())) });
      got.push(...(await drain(b)));
      assert.deepEqual(paths(got, o), expected, `split at ${k}`);
    }
  } finally {
    await server.close();
  }
});

test('close() releases the sitemap in progress and its spool; fetching again continues where it stopped', async () => {
  const server = await serve({ '/a.xml': { body: urlset(range('/a', 7)) } });
  const spoolDir = mkdtempSync(join(tmpdir(), 'spinneret-spool-test-'));
  try {
    const { list } = makeList(server, ['/a.xml'], { batchSize: 3, spoolDir });
    const got: RequestInit[] = [];
    for (let i = 0; i < 4; i++) got.push((await list.fetchNext())!);
    const reading = openSpools(spoolDir);
    if (reading !== null) assert.equal(reading, 1, 'one spool open while reading');
    await list.close();
    assert.deepEqual(readdirSync(spoolDir), []);
    const closed = openSpools(spoolDir);
    if (closed !== null) assert.equal(closed, 0, 'closed by close()');
    assert.equal(list.getState().current?.consumed, 4);
    got.push(...(await drain(list)));
    assert.deepEqual(paths(got, server.origin), range('/a', 7));
    assert.equal(server.hits.get('/a.xml'), 2);
  } finally {
    await server.close();
    rmSync(spoolDir, { recursive: true, force: true });
  }
});

test('read-ahead: close() lets go of the sitemap fetched ahead (spool closed and deleted); it is fetched again in its turn', async () => {
  const server = await serve({
    '/index.xml': { body: index([{ path: '/a.xml' }, { path: '/b.xml' }]) },
    '/a.xml': { body: urlset(range('/a', 40)) },
    '/b.xml': { body: urlset(range('/b', 3)) },
  });
  const spoolDir = mkdtempSync(join(tmpdir(), 'spinneret-spool-test-'));
  try {
    const { list, node } = makeList(server, ['/index.xml'], { batchSize: 4, spoolDir });
    const got: RequestInit[] = [];
    for (let i = 0; i < 5; i++) got.push((await list.fetchNext())!);
    for (let i = 0; i < 100 && server.hits.get('/b.xml') === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(server.hits.get('/b.xml'), 1, 'b.xml fetched ahead while a.xml is read');
    await new Promise((r) => setTimeout(r, 50)); // its body spooled
    const both = openSpools(spoolDir);
    if (both !== null) assert.equal(both, 2, "a.xml's spool and b.xml's");
    await list.close();
    assert.deepEqual(readdirSync(spoolDir), []);
    const closed = openSpools(spoolDir);
    if (closed !== null) assert.equal(closed, 0, 'both closed by close()');
    assert.deepEqual(
      list.getState().pending.map((p) => p.url),
      [`${server.origin}/b.xml`],
    );
    assert.equal(node('/b.xml').state, 'pending');
    got.push(...(await drain(list)));
    assert.deepEqual(paths(got, server.origin), [...range('/a', 40), ...range('/b', 3)]);
    assert.equal(server.hits.get('/b.xml'), 2, 'fetched again in its turn');
    assert.equal(node('/b.xml').state, 'done');
  } finally {
    await server.close();
    rmSync(spoolDir, { recursive: true, force: true });
  }
});

test('read-ahead: a fetch that fails ahead is reported on its node in its turn; robots.txt is asked before fetching ahead', async () => {
  const server = await serve({
    '/index.xml': {
      body: index([{ path: '/a.xml' }, { path: '/private/p.xml' }, { path: '/b.xml' }]).replace(
        '</sitemapindex>',
        '<sitemap><loc>http://127.0.0.1:1/down.xml</loc></sitemap>\n<sitemap><loc>{o}/c.xml</loc></sitemap>\n</sitemapindex>',
      ),
    },
    '/a.xml': { body: urlset(range('/a', 30)) },
    '/private/p.xml': { body: urlset(['/secret']) },
    '/b.xml': { body: urlset(range('/b', 30)) },
    '/c.xml': { body: urlset(['/c']) },
  });
  try {
    const real = fetcher();
    const calls: [string, number][] = [];
    const h = makeList(server, ['/index.xml'], {
      batchSize: 4,
      isAllowed: (u) => !u.includes('/private/'),
      fetcher: { fetch: (url, o) => (calls.push([url, h.list.processedCount()]), real.fetch(url, o)), close: () => real.close() },
    });
    const { list, node } = h;
    const got = await drain(list);
    const downCalls = calls.filter(([u]) => u.endsWith('/down.xml'));
    assert.equal(downCalls.length, 1, 'fetched once');
    assert.ok(downCalls[0]![1] < 60, `fetched ahead, while b.xml was read (after ${downCalls[0]![1]} entries)`);
    assert.deepEqual(paths(got, server.origin), [...range('/a', 30), ...range('/b', 30), '/c']);
    assert.equal(server.hits.get('/private/p.xml'), undefined, 'not fetched ahead: robots.txt disallows it');
    assert.deepEqual([node('/private/p.xml').state, node('/private/p.xml').problems[0]!.code], ['skipped', 'ROBOTS_DISALLOWED']);
    const down = list.nodes().find((n) => n.url === 'http://127.0.0.1:1/down.xml')!;
    assert.equal(down.state, 'error');
    assert.equal(down.problems.length, 1);
    assert.match(down.problems[0]!.message, /127\.0\.0\.1:1\/down\.xml/);
    assert.equal(server.hits.get('/c.xml'), 1);
  } finally {
    await server.close();
  }
});

test('an invalid sitemap URL becomes an error node, not a silent drop', async () => {
  const list = new SitemapRequestList({ sitemapUrls: ['not a url'], fetcher: fetcher() });
  const [node] = list.nodes();
  assert.equal(node!.state, 'error');
  assert.equal(node!.problems[0]!.code, 'INVALID_SITEMAP_URL');
  assert.equal(await list.fetchNext(), null);
});

test('a handed-in sitemap closed mid-read is fetched again and continued, not read from its old spool', async () => {
  const server = await serve({ '/s.xml': { body: urlset(range('/p', 3000)) } });
  const f = fetcher();
  try {
    const list = new SitemapRequestList({ sitemapUrls: [], fetcher: f, batchSize: 100 });
    list.addSitemap(`${server.origin}/s.xml`, { response: await f.fetch(`${server.origin}/s.xml`) });
    const got: RequestInit[] = [];
    for (let i = 0; i < 10; i++) got.push((await list.fetchNext())!);
    await list.close();
    got.push(...(await drain(list)));
    assert.deepEqual(paths(got, server.origin), range('/p', 3000));
    assert.equal(server.hits.get('/s.xml'), 2);
    assert.equal(list.nodes()[0]!.state, 'done');
  } finally {
    f.close();
    await server.close();
  }
});
