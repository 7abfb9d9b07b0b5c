/**
 * The link store through CrawlRuntime: inlinks, unique inlinks, outlinks and click depth on the
 * fixture site (raw links counted, repeats included) for an uninterrupted crawl, a paused, closed,
 * reopened one and a SIGKILLed one; links() in and out (anchors, alt text, nofollow, external,
 * target status, paging), eachLink() once per link, live and after replay; click depth that drops
 * when a short path is found after a long one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { DEFAULT_SETTINGS, type CrawlSettings, type PageLinkRow, type UrlRow } from '../../shared/model.js';
import { Crawler } from '../../electron/engine/index.js';
import { createAudit } from '../../electron/service/audit/crawl-audit.js';
import { CrawlRuntime } from '../../electron/service/crawl-runtime.js';
import { CrawlData } from '../../electron/service/data/crawl-data.js';
import { MAX_TEXT_LINKS } from '../../electron/service/data/links.js';
import { createCrawlService } from '../../electron/service/index.js';
import { replayJournal } from '../../electron/service/journal/reader.js';
import { buildSpec, startTestSite } from '../fixtures/site.js';
import type { TestSite } from '../fixtures/types.js';
import { allRows, settled, tempDir } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Want {
  inlinks: Map<string, number>;
  unique: Map<string, number>;
  outInt: Map<string, number>;
  outExt: Map<string, number>;
  depth: Map<string, number>;
}

/** What the fetched pages' raw hrefs imply (repeats counted; linksFrom is deduplicated), path by path. */
function want(site: TestSite): Want {
  const spec = buildSpec('full', site.origin);
  const ex = site.expected;
  const w: Want = { inlinks: new Map(), unique: new Map(), outInt: new Map(), outExt: new Map(), depth: new Map() };
  const next = new Map<string, string[]>();
  for (const page of spec.pages) {
    if (!(page.path in ex.linksFrom)) continue;
    const base = new URL(page.baseHref ?? page.path, site.origin + page.path).href;
    let internal = 0;
    let external = 0;
    const distinct: string[] = [];
    for (const h of page.hrefs) {
      let u: URL;
      try {
        u = new URL(h, base);
      } catch {
        continue;
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') continue;
      if (u.origin !== site.origin) {
        external++;
        continue;
      }
      internal++;
      const p = u.pathname + u.search;
      if (p === page.path) continue; // a link to itself (#top) is no inlink
      w.inlinks.set(p, (w.inlinks.get(p) ?? 0) + 1);
      if (!distinct.includes(p)) distinct.push(p);
    }
    assert.deepEqual(
      distinct,
      ex.linksFrom[page.path]!.filter((p) => p !== page.path),
      `${page.path}: the fixture's own links`,
    );
    for (const p of distinct) w.unique.set(p, (w.unique.get(p) ?? 0) + 1);
    w.outInt.set(page.path, internal);
    w.outExt.set(page.path, external);
    next.set(page.path, distinct);
  }
  // A redirect is one click to its target.
  for (const [p, r] of Object.entries(ex.results)) if (r.redirectTo?.startsWith('/')) next.set(p, [...(next.get(p) ?? []), r.redirectTo]);
  w.depth.set('/', 0);
  const q = ['/'];
  for (let i = 0; i < q.length; i++) {
    for (const t of next.get(q[i]!) ?? []) {
      if (w.depth.has(t)) continue;
      w.depth.set(t, w.depth.get(q[i]!)! + 1);
      q.push(t);
    }
  }
  // Without redirects this is the fixture's linkDepth.
  for (const [p, d] of Object.entries(ex.linkDepth)) assert.ok(w.depth.get(p)! <= d, `${p}: ${w.depth.get(p)} > linkDepth ${d}`);
  return w;
}

function check(site: TestSite, rows: UrlRow[], w: Want, label: string): void {
  const byPath = new Map(rows.map((r) => [r.url.startsWith(site.origin) ? r.url.slice(site.origin.length) : r.url, r]));
  for (const [p, n] of w.outInt) {
    const r = byPath.get(p);
    assert.ok(r, `${label}: ${p} crawled`);
    assert.equal(r.outlinksInternal, n, `${label}: ${p} outlinks internal`);
    assert.equal(r.outlinksExternal, w.outExt.get(p), `${label}: ${p} outlinks external`);
  }
  let deep = 0;
  for (const [p, r] of byPath) {
    if (!p.startsWith('/')) continue;
    assert.equal(r.inlinks, w.inlinks.get(p) ?? 0, `${label}: ${p} inlinks`);
    assert.equal(r.uniqueInlinks, w.unique.get(p) ?? 0, `${label}: ${p} unique inlinks`);
    assert.equal(r.clickDepth, w.depth.get(p), `${label}: ${p} click depth`);
    if (site.expected.linkDepth[p] !== undefined && !Object.values(site.expected.results).some((x) => x.redirectTo !== undefined && p === x.redirectTo)) {
      assert.equal(r.clickDepth, site.expected.linkDepth[p], `${label}: ${p} linkDepth`);
    }
    if ((r.clickDepth ?? 0) >= 2) deep++;
    // A page that failed (timeout, too large) has no links; a child crawl with longer limits may read it whole: it links to nothing.
    if (!w.outInt.has(p)) {
      const failed = site.expected.results[p]?.error !== undefined;
      assert.ok(r.outlinksInternal === undefined || (failed && r.outlinksInternal === 0), `${label}: ${p} has no links recorded`);
    }
  }
  assert.ok(deep > 3, `${label}: pages two clicks away or more (${deep})`);
  const onlySitemaps = site.expected.sitemapOnly.filter((p) => !w.depth.has(p));
  assert.ok(onlySitemaps.length > 0, 'the site has URLs found through sitemaps only');
  for (const p of onlySitemaps) assert.equal(byPath.get(p)?.clickDepth, undefined, `${label}: ${p} is reached through sitemaps only`);
}

function settingsOf(site: TestSite, concurrency: number): Partial<CrawlSettings> & { startUrl: string } {
  return {
    startUrl: site.url('/'),
    userAgent: 'SpinneretLinksTest/1.0',
    timeoutMs: 600,
    connectTimeoutMs: 500,
    retries: 1,
    maxBodyBytes: 2 * 1024 * 1024,
    concurrency,
    perHostConcurrency: concurrency,
  };
}

test('the full site: inlinks, outlinks and click depth from the raw links, at concurrency 8', { timeout: 90_000 }, async () => {
  const site = await startTestSite({ scenario: 'full', slowMs: 1500 });
  const service = createCrawlService({ stateDir: tempDir() });
  try {
    const c = service.create({ settings: settingsOf(site, 8) });
    const end = settled(service, c.id);
    await service.start(c.id);
    assert.equal((await end).status, 'finished');
    check(site, allRows(service, c.id), want(site), 'uninterrupted');
  } finally {
    await service.close();
    await site.close();
  }
});

test('paused, closed and reopened mid-crawl: the same counts and depths', { timeout: 90_000 }, async () => {
  const site = await startTestSite({ scenario: 'full', slowMs: 1500, pageDelayMs: 25 });
  const dir = tempDir();
  let service = createCrawlService({ stateDir: dir });
  try {
    const c = service.create({ settings: settingsOf(site, 3) });
    await service.start(c.id);
    for (let i = 0; i < 500 && service.get(c.id).counters.fetched < 10; i++) await new Promise((r) => setTimeout(r, 10));
    await service.pause(c.id);
    assert.ok(
      allRows(service, c.id).some((r) => r.outlinksInternal !== undefined),
      'links recorded before the pause',
    );
    await service.close();
    service = createCrawlService({ stateDir: dir });
    const end = settled(service, c.id);
    await service.resume(c.id);
    assert.equal((await end).status, 'finished');
    check(site, allRows(service, c.id), want(site), 'resumed');
  } finally {
    await service.close();
    await site.close();
  }
});

test('killed mid-crawl (SIGKILL) and resumed: the same counts and depths', { timeout: 120_000 }, async () => {
  const site = await startTestSite({ scenario: 'full', slowMs: 1500, pageDelayMs: 30 });
  const dir = tempDir();
  const child = (args: string[], killAt?: number) =>
    new Promise<{ id: string | undefined; signal: NodeJS.Signals | null; code: number | null }>((resolve) => {
      const p = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/service/kill-child.ts'), dir, ...args], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let id: string | undefined;
      createInterface({ input: p.stdout! }).on('line', (text) => {
        const l = JSON.parse(text) as { type: string; id: string; counters?: { fetched: number } };
        id ??= l.id;
        if (killAt !== undefined && l.type === 'progress' && (l.counters?.fetched ?? 0) >= killAt) p.kill('SIGKILL');
      });
      p.on('exit', (code, signal) => resolve({ id, code, signal }));
    });
  try {
    const first = await child(['start', site.url('/')], 12);
    assert.equal(first.signal, 'SIGKILL', 'the crawl was killed before it ended');
    const second = await child(['resume', first.id!]);
    assert.equal(second.code, 0);
    const service = createCrawlService({ stateDir: dir });
    try {
      check(site, allRows(service, first.id!), want(site), 'killed');
    } finally {
      await service.close();
    }
  } finally {
    await site.close();
  }
});

// ---------------------------------------------------------------- links() and eachLink()

const PAGES: Record<string, string> = {
  '/':
    '<a href="/a">Alpha</a> <a href="/a">Alpha again</a> <a href="/b"><img src="/b.png" alt="Bee image"></a>' +
    '<a href="/missing">Gone</a> <a href="/c" rel="nofollow">See</a> <a href="http://outside.invalid/">Out</a>' +
    '<a href="/">Home</a> <a href="/r">Moved</a>',
  '/a': '<a href="/">Home</a> <a href="/b">B</a>',
  '/b': '<a href="/a">A</a>',
};

async function smallSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const p = req.url ?? '/';
    if (p === '/r') return res.writeHead(301, { location: '/b' }).end();
    const body = PAGES[p];
    if (body === undefined) return res.writeHead(404, { 'content-type': 'text/html' }).end('<title>404</title>');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>${p}</title>${body}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

function runtimeOptions(dir: string, origin: string) {
  return {
    id: 'links',
    dir,
    settings: { ...DEFAULT_SETTINGS, startUrl: origin + '/', useSitemaps: false, concurrency: 2, perHostConcurrency: 2, timeoutMs: 3000, retries: 0 },
    now: () => Date.now(),
    crawlerFactory: (o: ConstructorParameters<typeof Crawler>[0]) => new Crawler(o),
    onWriteFailure: (err: Error) => {
      throw err;
    },
  };
}

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const brief = (rows: PageLinkRow[], o: string) =>
  rows.map((r) => {
    const x: Record<string, unknown> = { from: r.fromUrl.slice(o.length), to: r.toUrl.startsWith(o) ? r.toUrl.slice(o.length) : r.toUrl, anchor: r.anchor };
    if (r.nofollow) x.nofollow = true;
    if (r.external) x.external = true;
    if (r.toState !== undefined) x.state = r.toState;
    if (r.toStatus !== undefined) x.status = r.toStatus;
    return x;
  });

test('links() out and in, with anchors, alt text, nofollow, external and target status; eachLink() once each', { timeout: 30_000 }, async () => {
  const site = await smallSite();
  const o = site.origin;
  const dir = tempDir();
  let rt = await CrawlRuntime.load(runtimeOptions(dir, o));
  try {
    assert.equal(await rt.run(), 'finished');
    const idOf = (p: string) => rt.data.queue.idOf(o + p)!;
    const look = async (label: string) => {
      const out = await rt.links(idOf('/'), 'out', 0, 100);
      assert.equal(out.total, 8, label);
      assert.deepEqual(
        brief(out.rows, o),
        [
          { from: '/', to: '/a', anchor: 'Alpha', state: 'done', status: 200 },
          { from: '/', to: '/a', anchor: 'Alpha again', state: 'done', status: 200 },
          { from: '/', to: '/b', anchor: 'Bee image', state: 'done', status: 200 },
          { from: '/', to: '/missing', anchor: 'Gone', state: 'done', status: 404 },
          { from: '/', to: '/c', anchor: 'See', nofollow: true },
          { from: '/', to: 'http://outside.invalid/', anchor: 'Out', external: true, state: 'listed' },
          { from: '/', to: '/', anchor: 'Home', state: 'done', status: 200 },
          { from: '/', to: '/r', anchor: 'Moved', state: 'done', status: 301 },
        ],
        label,
      );
      // Paging.
      assert.deepEqual(
        brief((await rt.links(idOf('/'), 'out', 2, 2)).rows, o).map((x) => x.anchor),
        ['Bee image', 'Gone'],
        label,
      );
      const inA = await rt.links(idOf('/a'), 'in', 0, 100);
      assert.equal(inA.total, 3, label);
      assert.deepEqual(
        brief(inA.rows, o).map((x) => [x.from, x.anchor]),
        [
          ['/', 'Alpha'],
          ['/', 'Alpha again'],
          ['/b', 'A'],
        ].sort((x, y) => (x[0]! < y[0]! ? -1 : 1)),
        label,
      );
      const page2 = await rt.links(idOf('/a'), 'in', 1, 1);
      assert.equal(page2.total, 3);
      assert.equal(page2.rows.length, 1);
      // The page's own link to itself is no inlink.
      assert.deepEqual(
        brief((await rt.links(idOf('/'), 'in', 0, 100)).rows, o).map((x) => x.from),
        ['/a'],
        label,
      );
      // A redirect is no inlink of its target; its row says 301.
      assert.equal((await rt.links(idOf('/b'), 'in', 0, 100)).total, 2, label);
      assert.deepEqual(await rt.links(idOf('/missing'), 'out', 0, 10), { total: 0, rows: [] });
      const row = (p: string) => rt.rows.row(idOf(p));
      assert.deepEqual(
        ['/', '/a', '/b', '/missing', '/r'].map((p) => [
          p,
          row(p).inlinks,
          row(p).uniqueInlinks,
          row(p).outlinksInternal,
          row(p).outlinksExternal,
          row(p).clickDepth,
        ]),
        [
          ['/', 1, 1, 7, 1, 0],
          ['/a', 3, 2, 2, 0, 1],
          ['/b', 2, 2, 1, 0, 1],
          ['/missing', 1, 1, undefined, undefined, 1],
          ['/r', 1, 1, undefined, undefined, 1],
        ],
        label,
      );
      assert.equal(rt.data.queue.idOf(o + '/c'), undefined, `${label}: a nofollow link is not followed`);
      assert.equal(rt.data.links.pagesWithLinks, 3, label);
      const every = await all(rt.eachLink());
      assert.equal(every.length, 8 + 2 + 1, `${label}: every link once`);
      assert.deepEqual(
        every.filter((r) => r.fromUrl === o + '/').map((r) => r.anchor),
        out.rows.map((r) => r.anchor),
      );
    };
    await look('live');
    rt.close();
    rt = await CrawlRuntime.load(runtimeOptions(dir, o));
    await look('replayed');
    await assert.rejects(rt.links(10_000, 'in', 0, 10), (e: Error & { code?: string }) => e.code === 'NOT_FOUND');
    await assert.rejects(rt.links(0, 'out', -1, 10), (e: Error & { code?: string }) => e.code === 'BAD_QUERY');
  } finally {
    rt.close();
    await site.close();
  }
});

test('click depth drops when a short path is found after a long one, through links already recorded', { timeout: 30_000 }, async () => {
  // `/` → `/slow` (answers late) → `/t`; `/` → `/x1` → `/x2` → `/x3` → `/t` → `/u` → `/v`.
  const chain: Record<string, string[]> = {
    '/': ['/slow', '/x1'],
    '/x1': ['/x2'],
    '/x2': ['/x3'],
    '/x3': ['/t'],
    '/t': ['/u'],
    '/u': ['/v'],
    '/v': [],
    '/slow': ['/t'],
  };
  const fetched: string[] = [];
  let beforeSlow: string[] = [];
  const server = http.createServer((req, res) => {
    const p = req.url ?? '/';
    const links = chain[p];
    if (!links) return res.writeHead(404).end();
    const send = () => {
      fetched.push(p);
      if (p === '/slow') beforeSlow = [...fetched];
      res.writeHead(200, { 'content-type': 'text/html' }).end(links.map((l) => `<a href="${l}">${l}</a>`).join(''));
    };
    if (p === '/slow') setTimeout(send, 700);
    else send();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const o = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = tempDir();
  let rt = await CrawlRuntime.load(runtimeOptions(dir, o));
  try {
    assert.equal(await rt.run(), 'finished');
    for (const p of ['/t', '/u', '/v']) assert.ok(beforeSlow.includes(p), `${p} fetched before /slow answered`);
    const depths = () => Object.fromEntries(Object.keys(chain).map((p) => [p, rt.data.links.clickDepth(rt.data.queue.idOf(o + p)!)]));
    const want = { '/': 0, '/slow': 1, '/x1': 1, '/x2': 2, '/x3': 3, '/t': 2, '/u': 3, '/v': 4 };
    assert.deepEqual(depths(), want);
    // The discovery depth is the long path's.
    assert.equal(rt.rows.row(rt.data.queue.idOf(o + '/v')!).depth, 6);
    rt.close();
    rt = await CrawlRuntime.load(runtimeOptions(dir, o));
    assert.deepEqual(depths(), want, 'replayed');
  } finally {
    rt.close();
    await new Promise((r) => server.close(r));
  }
});

// ---------------------------------------------------------------- salvage

test('salvage: a LINKS record follows the renumbering of a damaged journal, a link to a lost URL left out', async () => {
  const A = 'http://a.test';
  const lines = [`[0,0,0,0,-1,"${A}/"]`];
  for (let i = 1; i <= 6; i++) lines.push(`[0,${i},3,1,0,"${A}/${i}"]`);
  lines.push('[7]', '[2,5,1,{"status":200}]', `[9,5,[[0,"home"],[4,"lost"],[6],["${A}/x","text",1]]]`, '[2,3,1,{"status":200}]', '[9,3,[[5,"five"]]]', '[7]');
  const at = lines.findIndex((l) => l.startsWith('[0,4,'));
  lines[at] = lines[at]!.slice(0, 6) + '\u0000\u00ff' + lines[at]!.slice(8); // ADMIT 4 garbled: later ids move down
  const file = path.join(tempDir(), 'journal.jsonl');
  fs.writeFileSync(file, lines.map((l) => l + '\n').join(''));
  const recs: unknown[][] = [];
  await replayJournal(file, (r) => recs.push(r));
  assert.deepEqual(
    recs.filter((r) => r[0] === 9),
    [
      [9, 4, [[0, 'home'], [5], [`${A}/x`, 'text', 1]]],
      [9, 3, [[4, 'five']]],
    ],
  );
  // A sound journal's LINKS records pass through as written.
  const sound = path.join(tempDir(), 'journal.jsonl');
  fs.writeFileSync(sound, lines.map((l, i) => (i === at ? `[0,4,3,1,0,"${A}/4"]` : l) + '\n').join(''));
  const kept: unknown[][] = [];
  const stats = await replayJournal(sound, (r) => kept.push(r));
  assert.equal(stats.salvage.badLines + stats.salvage.droppedRecords, 0);
  assert.deepEqual(
    kept.filter((r) => r[0] === 9),
    [
      [9, 5, [[0, 'home'], [4, 'lost'], [6], [`${A}/x`, 'text', 1]]],
      [9, 3, [[5, 'five']]],
    ],
  );
});

test("salvage: a damaged journal opened without repair reads its links back in the replay's numbering", async () => {
  const A = 'http://a.test';
  const lines = [`[0,0,0,0,-1,"${A}/"]`];
  for (let i = 1; i <= 6; i++) lines.push(`[0,${i},3,1,0,"${A}/${i}"]`);
  lines.push(
    '[7]',
    '[2,0,1,{"status":200}]',
    '[9,0,[[1],[5],[6,"six"]]]',
    '[2,5,1,{"status":200}]',
    `[9,5,[[0,"home"],[4,"lost"],[6],["${A}/x","text",1]]]`,
    '[7]',
  );
  const at = lines.findIndex((l) => l.startsWith('[0,4,'));
  lines[at] = lines[at]!.slice(0, 6) + '\u0000\u00ff' + lines[at]!.slice(8); // ADMIT 4 garbled: 5 and 6 become 4 and 5
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'journal.jsonl'), lines.map((l) => l + '\n').join(''));
  const rt = await CrawlRuntime.load(runtimeOptions(dir, A));
  try {
    const urls = (page: { rows: PageLinkRow[] }) => page.rows.map((r) => [r.fromUrl, r.toId, r.toUrl]);
    // URL 4 is now what the file called 5 (A/5): its outlinks name the renumbered targets, the lost one left out.
    assert.deepEqual(urls(await rt.links(4, 'out', 0, 10)), [
      [`${A}/5`, 0, `${A}/`],
      [`${A}/5`, 5, `${A}/6`],
      [`${A}/5`, undefined, `${A}/x`],
    ]);
    // Its inlinks: the home page's link to the file's 5, read by scanning the journal.
    assert.deepEqual(urls(await rt.links(4, 'in', 0, 10)), [[`${A}/`, 4, `${A}/5`]]);
    assert.deepEqual(urls(await rt.links(5, 'in', 0, 10)), [
      [`${A}/`, 5, `${A}/6`],
      [`${A}/5`, 5, `${A}/6`],
    ]);
    assert.equal((await all(rt.eachLink())).filter((l) => l.toUrl === `${A}/6`).length, 2);
    // Click depth follows the same numbering: the home page's links give depth 1.
    assert.equal(rt.data.links.clickDepth(4), 1);
    assert.equal(rt.data.links.clickDepth(5), 1);
    assert.equal(rt.data.links.clickDepth(3), undefined);
  } finally {
    rt.close();
  }
});

// ---------------------------------------------------------------- the store alone

const A = 'http://a.test';

/** A crawl's data fed record by record, as a replay feeds it; records read back by offset as the runtime's are. */
function storeAlone(): { data: CrawlData; apply(r: unknown[]): void } {
  const data = new CrawlData((keys) => createAudit({ ...DEFAULT_SETTINGS, startUrl: A + '/' }, () => 0, keys));
  const records = new Map<number, unknown[]>();
  data.links.read = (off) => records.get(off);
  let off = 0;
  return {
    data,
    apply(r) {
      records.set(off, r);
      data.apply(r, off);
      off += 100;
    },
  };
}

test('LinkStore: no bytes until a page is recorded; a page recorded twice counts once; a start found later relaxes', () => {
  const { data, apply } = storeAlone();
  apply([5, 0, `${A}/sitemap.xml`]);
  for (let i = 0; i < 1000; i++) apply([0, i, 2, 0, -2, `${A}/${i}`]);
  assert.equal(data.links.allocatedBytes(), 0, 'a sitemap-only crawl carries no link columns');
  assert.equal(data.links.pagesWithLinks, 0);
  assert.equal(data.links.clickDepth(1), undefined);
  assert.equal(data.links.inlinks(1), 0);
  assert.equal(data.links.outlinksInternal(1), undefined);
  // Page 1 links to 2 twice and to 3; page 2 to 4. No start yet: no depths.
  apply([2, 1, 1, { status: 200 }]);
  apply([9, 1, [[2, 'two'], [2], [3, '', 1], [`${A}/none`]]]);
  apply([2, 2, 1, { status: 200 }]);
  apply([9, 2, [[4], [`${A}/out`, 'x', 2]]]);
  assert.ok(data.links.allocatedBytes() >= 1000 * 24, 'four counts and an offset per URL');
  assert.deepEqual(
    [data.links.inlinks(2), data.links.uniqueInlinks(2), data.links.inlinks(3), data.links.outlinksInternal(1), data.links.outlinksExternal(2)],
    [2, 1, 1, 4, 1],
  );
  assert.equal(data.links.clickDepth(4), undefined);
  // Fetched again (a second record): ignored, the first one counts.
  apply([9, 1, [[2], [4], [4]]]);
  assert.deepEqual([data.links.inlinks(2), data.links.inlinks(4), data.links.pagesWithLinks], [2, 1, 2]);
  // Page 1 turns out to be a start URL (found again as one): depths flow through the recorded links, not the nofollow one.
  apply([1, 1, 0, -1]);
  assert.deepEqual(
    [1, 2, 3, 4].map((id) => data.links.clickDepth(id)),
    [0, 1, undefined, 2],
  );
  assert.ok(data.links.allocatedBytes() >= 1000 * 28, 'and a depth');
});

test('LinkStore: a link recorded before its target was held counts once the target is, whatever came first', () => {
  const run = (order: 'held first' | 'linked first') => {
    const { data, apply } = storeAlone();
    apply([0, 0, 0, 0, -1, `${A}/`]); // the start URL
    apply([0, 1, 3, 1, 0, `${A}/a`]); // a link of /
    if (order === 'held first') {
      apply([0, 2, 2, 0, -1, `${A}/n`]); // listed by a sitemap before the pages are read
      apply([2, 0, 1, { status: 200 }]);
      apply([
        9,
        0,
        [
          [2, 'N', 1],
          [1, 'A'],
        ],
      ]);
      apply([2, 1, 1, { status: 200 }]);
      apply([9, 1, [[2, 'N from A']]]);
    } else {
      // / links to /n nofollow, /a (a page whose links are not followed) by text; the sitemap lists it after.
      apply([2, 0, 1, { status: 200 }]);
      apply([
        9,
        0,
        [
          [`${A}/n`, 'N', 1],
          [1, 'A'],
        ],
      ]);
      apply([2, 1, 1, { status: 200 }]);
      apply([9, 1, [[`${A}/n#top`, 'N from A']]]);
      assert.equal(data.links.inlinks(2), 0, 'not held yet');
      apply([0, 2, 2, 0, -1, `${A}/n`]);
    }
    const n = 2;
    return {
      counts: [data.links.inlinks(n), data.links.uniqueInlinks(n), data.links.clickDepth(n), data.links.clickDepth(1)],
      text: data.links.hasTextInlinks(n),
    };
  };
  const held = run('held first');
  const linked = run('linked first');
  assert.deepEqual(held.counts, [2, 2, 2, 1], 'two links from two pages; the nofollow one gives no depth');
  assert.deepEqual(linked.counts, held.counts);
  assert.deepEqual([held.text, linked.text], [false, true], 'links() compares keys only where text names the URL');
});

test('links to a URL held only after they were recorded: the same counts, lists and export as when held first', { timeout: 60_000 }, async () => {
  // / links to /n nofollow and to /a; /a links to /n; the sitemap lists /n. With the sitemap, /n is held
  // before / is read; without it, / names /n by text (its link is not followed) and /n enters later,
  // through /a's link. (The LinkStore test above has the sitemap listing it after the pages.)
  const serve = async (pageDelayMs: number) => {
    const server = http.createServer((req, res) => {
      const o = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const p = req.url ?? '/';
      if (p === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end(`Sitemap: ${o}/sitemap.xml\n`);
      if (p === '/sitemap.xml') {
        const body = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/n</loc></url></urlset>`;
        return res.writeHead(200, { 'content-type': 'application/xml' }).end(body);
      }
      const pages: Record<string, string> = {
        '/': '<a href="/n" rel="nofollow">N</a> <a href="/a">A</a>',
        '/a': '<a href="/n#top">N from A</a>',
        '/n': '<a href="/">Home</a>',
      };
      const body = pages[p];
      setTimeout(() => {
        if (body === undefined) res.writeHead(404, { 'content-type': 'text/html' }).end('<title>404</title>');
        else res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${p}</title>${body}`);
      }, pageDelayMs);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
  };
  const crawl = async (pageDelayMs: number, useSitemaps: boolean) => {
    const site = await serve(pageDelayMs);
    const o = site.origin;
    const dir = tempDir();
    const opts = runtimeOptions(dir, o);
    const options = { ...opts, settings: { ...opts.settings, useSitemaps, concurrency: 1, perHostConcurrency: 1 } };
    let rt = await CrawlRuntime.load(options);
    try {
      assert.equal(await rt.run(), 'finished');
      const look = async () => {
        const id = rt.data.queue.idOf(o + '/n')!;
        const inl = await rt.links(id, 'in', 0, 100);
        const every = (await all(rt.eachLink((to) => to === id))).map((l) => `${l.fromUrl.slice(o.length)} ${l.anchor} ${l.nofollow ? 'nofollow' : ''}`);
        return {
          counts: [rt.data.links.inlinks(id), rt.data.links.uniqueInlinks(id), rt.data.links.clickDepth(id)],
          inlinks: [inl.total, ...inl.rows.map((l) => `${l.fromUrl.slice(o.length)} ${l.anchor} ${l.nofollow ? 'nofollow' : ''}`)],
          every,
        };
      };
      const live = await look();
      rt.close();
      rt = await CrawlRuntime.load(options);
      assert.deepEqual(await look(), live, 'replayed as live');
      return live;
    } finally {
      rt.close();
      await site.close();
    }
  };
  const want = { counts: [2, 2, 2], inlinks: [2, '/ N nofollow', '/a N from A '], every: ['/ N nofollow', '/a N from A '] };
  assert.deepEqual(await crawl(100, true), want, 'the sitemap first');
  assert.deepEqual(await crawl(0, false), want, 'no sitemaps: / names /n before it is held');
});

test('LinkStore: the note of links to URLs not held yet stops at MAX_TEXT_LINKS, and says so', () => {
  const { data, apply } = storeAlone();
  const pages = 11;
  const perPage = MAX_TEXT_LINKS / (pages - 1) - 1; // with /late, ten pages fill the note exactly
  for (let p = 0; p < pages; p++) apply([0, p, 3, 1, -1, `${A}/page/${p}`]);
  for (let p = 0; p < pages; p++) {
    apply([2, p, 1, { status: 200 }]);
    // Each page names perPage URLs of its own, nofollow, and /late: the last page's notes are over the cap.
    const links: unknown[] = [[`${A}/late`, 'late', 1]];
    for (let i = 0; i < perPage; i++) links.push([`${A}/x/${p}/${i}`, '', 1]);
    apply([9, p, links]);
    assert.equal(data.links.textLinksCapped, p === pages - 1, `after page ${p}`);
  }
  apply([0, pages, 3, 1, -1, `${A}/late`]);
  assert.deepEqual([data.links.inlinks(pages), data.links.uniqueInlinks(pages)], [pages - 1, pages - 1], 'the pages noted before the cap count');
});
