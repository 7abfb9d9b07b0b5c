/**
 * The links export of a link finding (broken links, links to redirects, links to non-indexable pages):
 * every inlink of the finding's URLs, exactly what their inlink lists hold, live and after reopening,
 * through the service and the CLI; a finding without links, or one given with a URL, is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { PassThrough } from 'node:stream';
import { LINK_FINDING_CODES } from '../../shared/model.js';
import { runCli } from '../../electron/cli/cli.js';
import { createCrawlService } from '../../electron/service/index.js';
import type { CrawlService } from '../../electron/service/types.js';
import { LINK_CSV_COLUMNS } from '../../electron/service/data/links-csv.js';
import { parseCsv, settled, tempDir } from './helpers.js';

// Every page links home and to the footer's broken page, as a real site's navigation does; the first
// link to /gone is nofollow (recorded by its URL text before /gone is held, and an inlink all the same
// once /a's link brings /gone into the crawl).
const NAV = '<a href="/">Home</a> <a href="/terms">Terms</a>';
const PAGES: Record<string, string> = {
  '/': `<a href="/gone" rel="nofollow">Gone (nofollow)</a> <a href="/a">A</a> <a href="/b">B</a> <a href="/r">Moved</a> <a href="/hidden">Hidden</a> ${NAV}`,
  '/a': `<a href="/gone">Gone from A</a> <a href="/gone">Gone again</a> <a href="/a">Self</a> ${NAV}`,
  '/b': `<a href="/r">Moved from B</a> <a href="/a">A</a> ${NAV}`,
  '/hidden': `<meta name="robots" content="noindex"> ${NAV}`,
};

async function site(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const p = req.url ?? '/';
    if (p === '/r') return res.writeHead(301, { location: '/b' }).end();
    if (p === '/terms') return res.writeHead(410, { 'content-type': 'text/html' }).end('<title>gone for good</title>');
    const body = PAGES[p];
    if (body === undefined) return res.writeHead(404, { 'content-type': 'text/html' }).end('<title>404</title>');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>${p}</title><h1>${p}</h1>${body}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

async function linksCsv(service: CrawlService, id: string, finding: string): Promise<string[][]> {
  let text = '';
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString('utf8');
      cb();
    },
  });
  const { rows } = await service.exportLinks(id, out, { finding });
  const [header, ...lines] = parseCsv(text).filter((r) => r.length > 1);
  assert.deepEqual(header, [...LINK_CSV_COLUMNS]);
  assert.equal(lines.length, rows);
  return lines;
}

/** The finding's URLs' inlinks as the detail pane lists them, each as a CSV line would say it. */
async function inlinksOf(service: CrawlService, id: string, finding: string): Promise<string[]> {
  const out: string[] = [];
  for (const url of service.findingUrls(id, finding, 0, 100).urls) {
    const urlId = service.queryUrls(id, { offset: 0, limit: 100 }).rows.find((r) => r.url === url)!.id;
    const page = await service.getLinks(id, urlId, 'in', 0, 100);
    for (const l of page.rows) out.push(`${l.fromUrl} ${l.toUrl} ${l.anchor}`);
  }
  return out.sort();
}

test('a link finding exports exactly the inlinks of its URLs, live and reopened, by the service and the CLI', { timeout: 60_000 }, async () => {
  const s = await site();
  const o = s.origin;
  const dir = tempDir();
  try {
    let service = createCrawlService({ stateDir: dir });
    const crawl = service.create({ settings: { startUrl: o + '/', useSitemaps: false, concurrency: 2, perHostConcurrency: 2, timeoutMs: 5000, retries: 0 } });
    await service.start(crawl.id);
    assert.equal((await settled(service, crawl.id)).status, 'finished');

    const check = async (label: string) => {
      const brief = (lines: string[][]) => lines.map((l) => `${l[0]!.slice(o.length)} ${l[1]!.slice(o.length)} ${l[2]} ${l[3]}`).sort();
      // /gone from / (nofollow) and /a twice, /terms from every page.
      assert.deepEqual(
        brief(await linksCsv(service, crawl.id, 'BROKEN_INTERNAL_LINK')),
        [
          '/ /gone Gone (nofollow) 404',
          '/ /terms Terms 410',
          '/a /gone Gone again 404',
          '/a /gone Gone from A 404',
          '/a /terms Terms 410',
          '/b /terms Terms 410',
          '/hidden /terms Terms 410',
        ],
        label,
      );
      assert.deepEqual(brief(await linksCsv(service, crawl.id, 'LINK_TO_REDIRECT')), ['/ /r Moved 301', '/b /r Moved from B 301'], label);
      for (const code of LINK_FINDING_CODES) {
        const lines = await linksCsv(service, crawl.id, code);
        assert.ok(lines.length > 0, `${label}: ${code} has links on this site`);
        assert.deepEqual(
          lines.map((l) => `${l[0]} ${l[1]} ${l[2]}`).sort(),
          await inlinksOf(service, crawl.id, code),
          `${label}: ${code}'s links are its URLs' inlinks`,
        );
      }
      assert.ok(
        (await linksCsv(service, crawl.id, 'LINKED_NON_INDEXABLE')).some((l) => l[1] === o + '/hidden' && l[2] === 'Hidden'),
        `${label}: the link to the noindex page`,
      );
    };
    await check('live');

    const sink = new Writable({ write: (_c, _e, cb) => cb() });
    for (const [opts, why] of [
      [{ finding: 'MISSING_TITLE' }, /"MISSING_TITLE" has no links export/],
      [{ finding: 'NOPE' }, /"NOPE" has no links export/],
      [{ finding: 'BROKEN_INTERNAL_LINK', urlId: 0 }, /give the finding alone/],
    ] as const) {
      await assert.rejects(service.exportLinks(crawl.id, sink, opts), (e: Error & { code?: string }) => e.code === 'BAD_QUERY' && why.test(e.message));
    }
    await service.close();

    // Reopened: the audit is rebuilt from the journal before the finding's URLs are read.
    service = createCrawlService({ stateDir: dir });
    try {
      await service.auditReady(crawl.id);
      await check('reopened');
    } finally {
      await service.close();
    }

    const out = join(dir, 'broken-links.csv');
    const stdout = new PassThrough();
    let said = '';
    stdout.on('data', (d) => (said += d));
    const code = await runCli(['export', crawl.id, '--links', '--finding', 'broken_internal_link', '--out', out, '--state-dir', dir], {
      stdout,
      stderr: new PassThrough(),
      onInterrupt: () => () => {},
    });
    assert.equal(code, 0);
    assert.match(said, /Wrote 7 links to /);
    const [header, ...rows] = parseCsv(readFileSync(out, 'utf8')).filter((r) => r.length > 1);
    assert.deepEqual(header, [...LINK_CSV_COLUMNS]);
    assert.equal(rows.length, 7);
    assert.deepEqual(
      rows.filter((r) => r[4] === 'true').map((r) => r[2]),
      ['Gone (nofollow)'],
    );
    assert.ok(rows.every((r) => r[3] === '404' || r[3] === '410'));
  } finally {
    await s.close();
  }
});
