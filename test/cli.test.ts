import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli, type CliIo } from '../electron/cli/cli.js';
import { CSV_COLUMNS } from '../electron/service/data/csv.js';
import { LINK_CSV_COLUMNS } from '../electron/service/data/links-csv.js';
import { startTestSite } from './fixtures/site.js';
import { parseCsv } from './service/helpers.js';

const root = fileURLToPath(new URL('..', import.meta.url));

function io(): CliIo & { out: () => string; err: () => string; interrupt: () => void } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  let handler: (() => void) | null = null;
  return {
    stdout,
    stderr,
    onInterrupt(h) {
      handler = h;
      return () => (handler = null);
    },
    out: () => out,
    err: () => err,
    interrupt: () => handler?.(),
  };
}

const tmp = () => mkdtempSync(join(tmpdir(), 'spinneret-cli-'));

describe('CLI', () => {
  it('crawls, writes the CSV, lists, exports again and deletes', async () => {
    const site = await startTestSite({ scenario: 'no-robots' });
    const dir = tmp();
    try {
      const t = io();
      const code = await runCli([site.url('/'), '--state-dir', dir, '--out', join(dir, 'a.csv'), '--concurrency', '4'], t);
      assert.equal(code, 0, t.err());
      assert.match(t.out(), /finished/);
      const csv = readFileSync(join(dir, 'a.csv'), 'utf8').trimEnd().split('\n');
      assert.equal(csv[0], CSV_COLUMNS.join(','));
      const urls = csv.slice(1).map((l) => l.split(',')[0]);
      for (const p of site.expected.discovered) assert.ok(urls.includes(site.url(p)), p);

      const list = io();
      assert.equal(await runCli(['list', '--state-dir', dir], list), 0);
      const id = /^(\S+)\s+finished/m.exec(list.out())?.[1];
      assert.ok(id, list.out());

      const ex = io();
      assert.equal(await runCli(['export', id, '--out', join(dir, 'b.csv'), '--state-dir', dir], ex), 0, ex.err());
      assert.equal(readFileSync(join(dir, 'b.csv'), 'utf8'), readFileSync(join(dir, 'a.csv'), 'utf8'));

      const del = io();
      assert.equal(await runCli(['delete', id, '--state-dir', dir], del), 0);
      const after = io();
      await runCli(['list', '--state-dir', dir], after);
      assert.match(after.out(), /No crawls yet/);
    } finally {
      await site.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exports links: every link, one URL's inlinks by id, its outlinks by URL; a URL not crawled exits 2", async () => {
    const site = await startTestSite({ scenario: 'no-robots' });
    const dir = tmp();
    try {
      const t = io();
      assert.equal(await runCli([site.url('/'), '--state-dir', dir, '--out', join(dir, 'urls.csv'), '--quiet'], t), 0, t.err());
      const id = /^Crawl (\S+)/m.exec(t.out())![1]!;
      const run = async (...argv: string[]) => {
        const r = io();
        const code = await runCli([...argv, '--state-dir', dir], r);
        return { code, out: r.out(), err: r.err() };
      };
      const csv = (f: string) => parseCsv(readFileSync(join(dir, f), 'utf8'));
      const all = await run('export', id, '--links', '--out', join(dir, 'links.csv'));
      assert.equal(all.code, 0, all.err);
      const links = csv('links.csv');
      assert.equal(links[0]!.join(','), LINK_CSV_COLUMNS.join(','));
      assert.match(all.out, new RegExp(`Wrote ${links.length - 1} links to `));
      // Every page's links, as the site serves them (linksFrom: each page's distinct on-site targets).
      for (const [from, targets] of Object.entries(site.expected.linksFrom)) {
        const got = new Set(links.filter((l) => l[0] === site.url(from)).map((l) => l[1]));
        for (const to of targets) assert.ok(got.has(site.url(to)), `${from} → ${to}`);
      }
      // One URL: the home page's outlinks by its URL, and a linked page's inlinks by id.
      const out = await run('export', id, '--links', '--url', site.url('/'), '--direction', 'out', '--out', join(dir, 'home-out.csv'));
      assert.equal(out.code, 0, out.err);
      const homeOut = csv('home-out.csv').slice(1);
      assert.deepEqual(
        homeOut,
        links.slice(1).filter((l) => l[0] === site.url('/')),
      );
      const rows = csv('urls.csv');
      const target = Object.values(site.expected.linksFrom['/'] ?? [])[0]!;
      const targetId = rows.slice(1).findIndex((r) => r[0] === site.url(target));
      assert.ok(targetId >= 0, target);
      const inl = await run('export', id, '--links', '--url', String(targetId), '--out', join(dir, 'in.csv'));
      assert.equal(inl.code, 0, inl.err);
      const inlinks = csv('in.csv').slice(1);
      assert.ok(inlinks.length > 0 && inlinks.every((l) => l[1] === site.url(target)), target);
      assert.deepEqual(
        inlinks.map((l) => l[0]).sort(),
        links
          .slice(1)
          .filter((l) => l[1] === site.url(target) && l[0] !== site.url(target))
          .map((l) => l[0])
          .sort(),
      );

      // The URL export takes the table's filters: exact status, click depth (or none) and inlinks ranges.
      const filtered = async (...flags: string[]) => {
        const f = `f${flags.join('').replace(/\W/g, '')}.csv`;
        const r = await run('export', id, '--out', join(dir, f), ...flags);
        assert.equal(r.code, 0, r.err);
        return csv(f)
          .slice(1)
          .map((l) => l[0]);
      };
      const col = (name: string) => rows[0]!.indexOf(name);
      const urlsWhere = (test: (cells: string[]) => boolean) =>
        rows
          .slice(1)
          .filter(test)
          .map((l) => l[0]);
      assert.deepEqual(
        await filtered('--status', '200'),
        urlsWhere((l) => l[col('status')] === '200'),
      );
      const depth1 = await filtered('--click-depth', '1');
      assert.ok(depth1.length > 0);
      assert.deepEqual(
        depth1,
        urlsWhere((l) => l[col('click_depth')] === '1'),
      );
      // none: the URLs without a click depth (this crawl reaches every URL by links, so none; the
      // service's tests run it on a site with sitemap-only URLs); with `0..`, every URL once.
      const noDepth = await filtered('--click-depth', 'none');
      assert.deepEqual(
        noDepth,
        urlsWhere((l) => l[col('click_depth')] === ''),
      );
      assert.equal(noDepth.length + (await filtered('--click-depth', '0..')).length, rows.length - 1);
      assert.deepEqual(
        await filtered('--inlinks', '2..', '--click-depth', '..1'),
        urlsWhere((l) => Number(l[col('inlinks')]) >= 2 && l[col('click_depth')] !== '' && Number(l[col('click_depth')]) <= 1),
      );

      for (const url of [site.url('/never-crawled.html'), '999999']) {
        const missing = await run('export', id, '--links', '--url', url, '--out', join(dir, 'none.csv'));
        assert.equal(missing.code, 2, missing.err);
        assert.match(missing.err, /NOT_FOUND/);
      }
    } finally {
      await site.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Ctrl-C pauses with requests in flight finishing, prints how to resume, and resume completes the crawl', async () => {
    const site = await startTestSite({ scenario: 'large', pages: 200, sitemapUrls: 100, perSitemap: 50, pageDelayMs: 20 });
    const dir = tmp();
    try {
      const t = io();
      const run = runCli([site.url('/'), '--state-dir', dir, '--concurrency', '2'], t);
      while (site.log.filter((l) => l.path.startsWith('/l/')).length < 10) await new Promise((r) => setTimeout(r, 10));
      t.interrupt();
      assert.equal(await run, 0, t.err());
      assert.match(t.out(), /Paused\. Resume with: npm run crawl -- resume \S+ --state-dir/);
      const id = /resume (\S+)/.exec(t.out())![1]!;

      const r = io();
      assert.equal(await runCli(['resume', '--state-dir', dir, '--out', join(dir, 'r.csv')], r), 0, r.err());
      assert.match(r.out(), new RegExp(`Resuming crawl ${id}`));
      const urls = readFileSync(join(dir, 'r.csv'), 'utf8')
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => l.split(',')[0]);
      for (const p of site.expected.discovered) assert.ok(urls.includes(site.url(p)), p);
      assert.equal(new Set(urls).size, urls.length, 'each URL once');
      for (const [p, n] of site.hits) if (p.startsWith('/l/')) assert.ok(n <= 2, `${p} fetched ${n} times`);
    } finally {
      await site.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a bad argument with exit 2 and a message, as a real process', async () => {
    const res = await runProcess(['crawl-me-not', '--concurrency', 'many']);
    assert.equal(res.code, 2);
    assert.match(res.stderr, /not a valid URL|--concurrency/);
    assert.doesNotMatch(res.stderr, /at .*\.ts:\d+/, 'no stack trace');
  });

  it('ends with exit 1 and the reason when the start cannot be reached, as a real process', async () => {
    const site = await startTestSite({ scenario: 'no-robots' });
    const origin = site.origin;
    await site.close();
    const dir = tmp();
    try {
      const res = await runProcess([origin + '/', '--state-dir', dir, '--quiet']);
      assert.equal(res.code, 1);
      assert.match(res.stderr, /START_UNREACHABLE/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('resume with nothing to resume says so', async () => {
    const dir = tmp();
    try {
      const t = io();
      assert.equal(await runCli(['resume', '--state-dir', dir], t), 1);
      assert.match(t.err(), /no paused or interrupted crawl/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function runProcess(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'electron/cli/cli.ts'), ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
