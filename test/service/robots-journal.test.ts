/**
 * A large robots.txt is written to the journal once (a ROBOTS record), and every checkpoint names it
 * instead of repeating its body: the journal does not grow by the file's size every few seconds. A
 * crawl paused and resumed by a new service still obeys it without fetching it again; a checkpoint
 * whose ROBOTS record is lost (a salvaged journal) makes the resume fetch robots.txt again, never
 * read it as empty.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createCrawlService } from '../../electron/service/index.js';
import { JOURNAL_FILE } from '../../electron/service/catalog/catalog.js';
import { CrawlData } from '../../electron/service/data/crawl-data.js';
import { createAudit } from '../../electron/service/audit/crawl-audit.js';
import { REC_CHECKPOINT, REC_ROBOTS } from '../../electron/service/journal/format.js';
import { DEFAULT_SETTINGS } from '../../shared/model.js';
import { startLocalServer } from '../fixtures/server.js';
import { allRows, settled, tempDir } from './helpers.js';

const SITEMAPS = 30;
// The rules first, then ~300 KB of comments: a real site's long file (RFC 9309 reads at least 500 KiB).
const PADDING = '# keep crawlers out of the staging paths listed below, one per line\n'.repeat(4500);

/** robots.txt announces an index of small sitemaps, each read slowly: the list moves, and checkpoints are written as it does. */
async function site() {
  return startLocalServer(({ res, path: p }, server) => {
    const o = server.origin;
    const xml = (root: string, items: string) =>
      `<?xml version="1.0" encoding="UTF-8"?><${root} xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${items}</${root}>`;
    if (p === '/robots.txt')
      return res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nDisallow: /private/\nSitemap: ${o}/index.xml\n${PADDING}`);
    if (p === '/index.xml') {
      let items = '';
      for (let i = 0; i < SITEMAPS; i++) items += `<sitemap><loc>${o}/sm/${i}.xml</loc></sitemap>`;
      return res.writeHead(200, { 'content-type': 'application/xml' }).end(xml('sitemapindex', items));
    }
    const sm = /^\/sm\/(\d+)\.xml$/.exec(p);
    if (sm) {
      const body = xml('urlset', `<url><loc>${o}/p/${sm[1]}</loc></url><url><loc>${o}/private/${sm[1]}</loc></url>`);
      return void setTimeout(() => res.writeHead(200, { 'content-type': 'application/xml' }).end(body), 40);
    }
    if (/^\/p\/\d+$/.test(p)) return res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${p}</title>`);
    res.writeHead(404, { 'content-type': 'text/html' }).end('<title>404</title>');
  });
}

function journalLines(dir: string, id: string): string[] {
  return fs
    .readFileSync(path.join(dir, 'crawls', id, JOURNAL_FILE), 'utf8')
    .split('\n')
    .filter(Boolean);
}

test('a large robots.txt: one ROBOTS record, small checkpoints, obeyed after a resume without fetching it again', { timeout: 60_000 }, async () => {
  const server = await site();
  const dir = tempDir();
  try {
    let service = createCrawlService({ stateDir: dir, checkpointIntervalMs: 100 });
    const crawl = service.create({ settings: { startUrl: server.origin + '/', concurrency: 1, perHostConcurrency: 1, timeoutMs: 5000, retries: 0 } });
    const sitemapsRead = new Promise<void>((resolve) =>
      service.on('progress', (e) => {
        if (e.crawlId === crawl.id && e.counters.sitemaps.done >= 10) resolve();
      }),
    );
    await service.start(crawl.id);
    await sitemapsRead;
    await service.pause(crawl.id);
    await service.close();

    const first = journalLines(dir, crawl.id);
    const checkpoints = first.filter((l) => l.startsWith(`[${REC_CHECKPOINT},`));
    assert.ok(checkpoints.length >= 3, `checkpoints written: ${checkpoints.length}`);
    for (const cp of checkpoints) assert.ok(cp.length < 4000, `a checkpoint of ${cp.length} bytes`);
    const robots = first.filter((l) => l.startsWith(`[${REC_ROBOTS},`));
    assert.equal(robots.length, 1, 'the body written once');
    assert.ok(robots[0]!.includes('Disallow: /private/'));

    service = createCrawlService({ stateDir: dir, checkpointIntervalMs: 100 });
    try {
      await service.resume(crawl.id);
      assert.equal((await settled(service, crawl.id)).status, 'finished');
      const rows = new Map(allRows(service, crawl.id).map((r) => [r.url.slice(server.origin.length), r]));
      const last = SITEMAPS - 1;
      assert.equal(rows.get(`/private/${last}`)?.state, 'blocked', 'the rule still holds after the resume');
      assert.equal(rows.get(`/p/${last}`)?.status, 200);
    } finally {
      await service.close();
    }
    assert.equal(server.hits.get('/robots.txt'), 1, 'read once, kept in the journal');
    assert.ok(![...server.hits.keys()].some((p) => p.startsWith('/private/')), 'nothing disallowed fetched');
    const all = journalLines(dir, crawl.id);
    assert.equal(all.filter((l) => l.startsWith(`[${REC_ROBOTS},`)).length, 1, 'not written again by the resumed run');
    const size = all.reduce((n, l) => n + l.length + 1, 0);
    assert.ok(size < PADDING.length * 1.5, `journal ${size} bytes for a ${PADDING.length}-byte robots.txt`);
  } finally {
    await server.close();
  }
});

test('replay: a checkpoint names its robots.txt answer; a lost ROBOTS record leaves it out, to be fetched again', () => {
  const A = 'http://a.test';
  const replay = (records: unknown[][]) => {
    const data = new CrawlData((keys) => createAudit({ ...DEFAULT_SETTINGS, startUrl: A + '/' }, () => 0, keys));
    records.forEach((r, i) => data.apply(r, i * 100));
    return data.checkpoint!;
  };
  const answer = { status: 200, body: 'User-agent: *\nDisallow: /x\n', outcome: 'parsed' };
  const other = { 'http://b.test': { status: 404, outcome: 'allow-all' } };
  const cp = { sitemapList: null, seeded: true, robots: other, robotsRefs: { [A]: { status: 200, outcome: 'parsed' } } };
  const replayed = replay([
    [REC_ROBOTS, A, answer],
    [REC_CHECKPOINT, cp, 0],
  ]);
  assert.deepEqual(replayed.robots, { ...other, [A]: answer });
  assert.equal((replayed as { robotsRefs?: unknown }).robotsRefs, undefined, 'the crawler gets whole answers only');
  assert.deepEqual(replay([[REC_CHECKPOINT, cp, 0]]).robots, other, 'its record lost');
  assert.deepEqual(
    replay([
      [REC_ROBOTS, A, { ...answer, status: 500, outcome: 'disallow-all' }],
      [REC_CHECKPOINT, cp, 0],
    ]).robots,
    other,
    'another answer than named',
  );
  // A checkpoint written before ROBOTS records holds the body itself: read as ever.
  const old = { sitemapList: null, seeded: true, robots: { ...other, [A]: answer } };
  assert.deepEqual(replay([[REC_CHECKPOINT, old, 0]]).robots, { ...other, [A]: answer });
});
