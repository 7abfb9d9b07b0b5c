/**
 * List mode (issue 23): a crawl of the URLs of a list, on the realistic site. The list is parsed and
 * stored by the service (list-file.ts: one URL a line or a CSV's first column, comments, blanks and
 * repeats dropped, BAD_LIST naming bad lines), fetched without following links unless asked, with the
 * list's hosts as its scope; a list URL that is a sitemap is read as one; a kill mid-crawl resumes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { CrawlSettings, UrlRow } from '../../shared/model.js';
import { createCrawlService, type LocalCrawlService } from '../../electron/service/index.js';
import { LIST_FILE, writeListFile } from '../../electron/service/list-file.js';
import { SPECIAL, startRealSite, type RealSite } from '../fixtures/real-site/site.js';
import { allRows, csvOf, settled, tempDir } from './helpers.js';

const TIMEOUT = { timeout: 60_000 };

function base(): Partial<CrawlSettings> & { startUrl: string } {
  return { startUrl: '', mode: 'list', userAgent: 'SpinneretList/1.0', concurrency: 4, timeoutMs: 2000, connectTimeoutMs: 2000, retries: 0 };
}

/** Parses `text` as a list into a fresh folder: the stored URLs, or the ServiceError. */
function parse(text: string | { path: string }): { urls: string[]; size: number; repeats: number } {
  const dir = tempDir('spinneret-list-');
  const r = writeListFile(text, dir);
  const urls = fs.readFileSync(path.join(dir, LIST_FILE), 'utf8').split('\n').filter(Boolean);
  return { urls, size: r.size, repeats: r.repeats };
}

function badList(text: string | { path: string }): string {
  const dir = tempDir('spinneret-list-');
  try {
    writeListFile(text, dir);
  } catch (err) {
    assert.equal((err as { code?: string }).code, 'BAD_LIST', String(err));
    assert.deepEqual(fs.readdirSync(dir), [], 'nothing written');
    return (err as Error).message;
  }
  assert.fail('expected BAD_LIST');
}

describe('list parsing', () => {
  test('one URL a line: blanks, comments, repeats (by uniqueKey), BOM, CRLF and padding', () => {
    const r = parse(
      '\ufeff# migrated URLs\r\nhttps://Example.com/a\r\n\r\n   \n  https://example.com/b  \nhttps://example.com/a#top\nHTTPS://EXAMPLE.COM/a\nhttp://other.example/x?q=1\n',
    );
    assert.deepEqual(r.urls, ['https://example.com/a', 'https://example.com/b', 'http://other.example/x?q=1']);
    assert.equal(r.size, 3);
    assert.equal(r.repeats, 2);
  });

  test("a CSV's first column, with a header (told by it) or without (told by the file name)", () => {
    const csv = 'url,status,title\nhttps://example.com/a,200,"Hello, world"\n"https://example.com/b?x=1,2",404,"two\nlines"\nhttps://example.com/c,301,x\n';
    assert.deepEqual(parse(csv).urls, ['https://example.com/a', 'https://example.com/b?x=1,2', 'https://example.com/c']);
    const dir = tempDir('spinneret-list-src-');
    const file = path.join(dir, 'old.csv');
    fs.writeFileSync(file, 'https://example.com/a,200\nhttps://example.com/b,404\n');
    assert.deepEqual(parse({ path: file }).urls, ['https://example.com/a', 'https://example.com/b']);
    const tsv = path.join(dir, 'old.tsv');
    fs.writeFileSync(tsv, 'Address\tStatus Code\nhttps://example.com/a\t200\n');
    assert.deepEqual(parse({ path: tsv }).urls, ['https://example.com/a']);
    // A plain list's URL may hold a comma: without a header or a .csv name it is a URL line.
    assert.deepEqual(parse('https://example.com/a,b\n').urls, ['https://example.com/a,b']);
  });

  test('a file of 200,000 URLs is read in pieces and kept whole', () => {
    const dir = tempDir('spinneret-list-src-');
    const file = path.join(dir, 'big.txt');
    const lines: string[] = [];
    for (let i = 0; i < 200_000; i++) lines.push(`https://example.com/p/${i}`);
    fs.writeFileSync(file, lines.join('\n') + '\n' + lines[5] + '\n');
    const r = parse({ path: file });
    assert.equal(r.size, 200_000);
    assert.equal(r.repeats, 1);
    assert.equal(r.urls[199_999], 'https://example.com/p/199999');
  });

  test('BAD_LIST names the lines that are no absolute http(s) URL, up to five, and writes nothing', () => {
    const one = badList('https://example.com/a\n/relative/page\n');
    assert.match(one, /A line of the list is not an absolute http\(s\) URL: line 2 \("\/relative\/page"\)/);
    const many = badList('ftp://example.com/x\nexample.com/a\nhttps://ok.example/\nmailto:a@b.c\n1\n2\n3\n4\n');
    assert.match(many, /7 lines of the list are not/);
    assert.match(many, /line 1 \("ftp:\/\/example.com\/x"\), line 2 \("example.com\/a"\), line 4/);
    assert.match(many, /and 2 more/);
    assert.match(badList('# nothing\n\n'), /holds no URL/);
    assert.match(badList({ path: '/nonexistent/list.txt' }), /cannot be read/);
  });
});

describe('list crawls of the realistic site', () => {
  let site: RealSite;
  before(async () => {
    site = await startRealSite({ pageDelayMs: 5 });
  });
  after(() => site.close());

  /** The list: live pages, a 404, a 410, a 500, redirects, a disallowed URL, one on another host name. */
  const LIST = () => [
    site.url('/'),
    site.url('/about/'),
    site.url(SPECIAL.orphan404),
    site.url(SPECIAL.discontinuedProduct),
    site.url(SPECIAL.brokenProduct),
    site.url(SPECIAL.oldProductUrl),
    site.url(SPECIAL.promo),
    site.url('/cart/'),
    site.origin.replace('127.0.0.1', 'localhost') + '/contact/',
  ];

  async function crawlList(service: LocalCrawlService, list: string, extra: Partial<CrawlSettings> = {}) {
    const c = service.create({ settings: { ...base(), ...extra }, list });
    const done = settled(service, c.id);
    await service.start(c.id);
    const s = await done;
    return { id: c.id, summary: s, rows: allRows(service, c.id) };
  }

  const byUrl = (rows: UrlRow[]) => new Map(rows.map((r) => [r.url, r]));

  test('fetches the listed URLs only, with their answers; links are not followed', TIMEOUT, async () => {
    const service = createCrawlService({ stateDir: tempDir() });
    try {
      site.hits.clear();
      const list = ['# a migration check', ...LIST(), site.url('/about/'), ''].join('\n');
      const { id, summary, rows } = await crawlList(service, list);
      assert.equal(summary.status, 'finished');
      assert.equal(summary.listSize, LIST().length);
      assert.equal(summary.settings.mode, 'list');
      assert.equal(summary.settings.followLinks, false);
      assert.equal(summary.settings.startUrl, site.url('/'));
      const m = byUrl(rows);
      const answer = (p: string) => {
        const r = m.get(p.startsWith('http') ? p : site.url(p));
        return r ? `${r.state} ${r.status ?? ''}${r.redirectTo ? ' → ' + r.redirectTo.replace(site.origin, '') : ''}` : 'absent';
      };
      assert.equal(answer('/'), 'done 200');
      assert.equal(answer('/about/'), 'done 200');
      assert.equal(answer(SPECIAL.orphan404), 'done 404');
      assert.equal(answer(SPECIAL.discontinuedProduct), 'done 410');
      assert.equal(answer(SPECIAL.brokenProduct), 'done 500');
      assert.equal(answer(SPECIAL.oldProductUrl), `done 301 → ${SPECIAL.oldProductTarget}`);
      assert.equal(answer('/cart/'), 'blocked ');
      assert.equal(answer(site.origin.replace('127.0.0.1', 'localhost') + '/contact/'), 'done 200');
      // A redirect's target is a URL of its own and on a list host: fetched, as the whole chain.
      assert.equal(answer(SPECIAL.oldProductTarget), 'done 200');
      assert.equal(answer('/offers/summer/'), 'done 200');
      for (const u of LIST()) assert.equal(m.get(u)?.source, 'start', u);
      // No link was followed: nothing but the list, its redirect chains and robots.txt was requested.
      const chain = ['/promo-2024/', '/offers/', '/offers/summer/', SPECIAL.oldProductTarget];
      const requested = [...site.hits.keys()].sort();
      const allowed = new Set(['/robots.txt', ...LIST().map((u) => new URL(u).pathname), ...chain]);
      allowed.delete('/cart/'); // disallowed: never requested
      assert.deepEqual(requested, [...allowed].sort());
      // No sitemap of robots.txt was read.
      assert.equal(service.sitemapTree(id, null).length, 0);
      // The same columns as any crawl.
      const csv = await csvOf(service, id);
      assert.equal(csv.split('\n')[0], (await csvOf(service, id)).split('\n')[0]);
      assert.match(csv, /^url,/);
      // Findings are measured as for any crawl: the 404s and the 500 among them.
      await service.auditReady(id);
      const findings = service.getFindings(id);
      assert.ok(findings.length > 0);
    } finally {
      await service.close();
    }
  });

  test('follows links with followLinks, within the list hosts only', TIMEOUT, async () => {
    const service = createCrawlService({ stateDir: tempDir() });
    try {
      // Only the localhost name is listed: its relative links stay on it and are followed; the absolute
      // canonicals name 127.0.0.1, another host of no list URL: recorded, never fetched.
      const other = site.origin.replace('127.0.0.1', 'localhost');
      const onlyOther = await crawlList(service, `${other}/about/\n`, { followLinks: true, maxUrls: 400 });
      assert.equal(onlyOther.summary.status, 'finished');
      const onIp = onlyOther.rows.filter((r) => r.url.startsWith(site.origin));
      const onName = onlyOther.rows.filter((r) => r.url.startsWith(other));
      assert.ok(onName.filter((r) => r.state === 'done').length > 50, 'the links on the list host are followed');
      assert.ok(onIp.length > 10, `${onIp.length} URLs of the other host are recorded`);
      for (const r of onIp) assert.equal(r.state, 'listed', r.url);

      // Both: the site is crawled from the list, off-site links (social.invalid) listed, never fetched.
      site.hits.clear();
      const both = await crawlList(service, `${site.url('/about/')}\n${other}/contact/\n`, { followLinks: true });
      assert.equal(both.summary.status, 'finished');
      const m = byUrl(both.rows);
      assert.equal(m.get(site.url('/shop/'))?.state, 'done', 'a nav link is followed');
      assert.ok(both.rows.length > 100, `${both.rows.length} URLs`);
      for (const r of both.rows) if (!r.url.startsWith(site.origin) && !r.url.startsWith(other)) assert.notEqual(r.state, 'done', r.url);
      assert.equal(m.get(site.url('/about/'))?.source, 'start');
      // The list's sitemap-free rule: robots.txt's sitemaps are not read, yet its rules are obeyed.
      assert.equal(site.hits.get('/sitemap_index.xml'), undefined);
      assert.equal(site.hits.get('/cart/'), undefined);
    } finally {
      await service.close();
    }
  });

  test('a list URL that is a sitemap is read as one, and its URLs fetched', TIMEOUT, async () => {
    const service = createCrawlService({ stateDir: tempDir() });
    try {
      const { id, summary, rows } = await crawlList(service, site.url('/sitemaps/pages.xml') + '\n');
      assert.equal(summary.status, 'finished');
      const roots = service.sitemapTree(id, null);
      assert.equal(roots.length, 1);
      assert.equal(roots[0]!.url, site.url('/sitemaps/pages.xml'));
      const entries = site.spec.sitemaps.find((s) => s.path === '/sitemaps/pages.xml')!.entries;
      assert.equal(roots[0]!.urlCount, entries.length);
      const m = byUrl(rows);
      for (const e of entries) assert.equal(m.get(site.url(e.path))?.source, 'sitemap', e.path);
      assert.ok(
        entries.every((e) => m.get(site.url(e.path))?.state !== 'listed'),
        'the entries are fetched',
      );
    } finally {
      await service.close();
    }
  });

  test('BAD_LIST leaves no crawl and no folder behind; a list needs list mode', () => {
    const stateDir = tempDir();
    const service = createCrawlService({ stateDir });
    try {
      const before = fs.readdirSync(path.join(stateDir, 'crawls'));
      assert.throws(
        () => service.create({ settings: base(), list: `${site.url('/')}\n../up\n` }),
        (e: Error & { code?: string }) => {
          assert.equal(e.code, 'BAD_LIST');
          assert.match(e.message, /line 2 \("\.\.\/up"\)/);
          return true;
        },
      );
      assert.throws(() => service.create({ settings: base() }), { code: 'BAD_LIST' });
      assert.throws(() => service.create({ settings: { ...base(), mode: 'spider' }, list: site.url('/') }), { code: 'BAD_SETTINGS' });
      assert.deepEqual(fs.readdirSync(path.join(stateDir, 'crawls')), before);
      assert.equal(service.list().length, 0);
      // A list without mode is a list crawl.
      const c = service.create({ settings: { startUrl: '' }, list: site.url('/') });
      assert.equal(c.settings.mode, 'list');
      assert.equal(c.listSize, 1);
      assert.ok(fs.existsSync(path.join(stateDir, 'crawls', c.id, LIST_FILE)));
    } finally {
      void service.close();
    }
  });

  test('a list crawl SIGKILLed part way is resumed by another process and ends as one never interrupted', TIMEOUT, async () => {
    const list = [...LIST(), ...site.spec.pages.slice(0, 80).map((p) => site.url(p.path))].join('\n') + '\n';
    const whole = createCrawlService({ stateDir: tempDir() });
    const ref = await crawlList(whole, list);
    await whole.close();

    const dir = tempDir();
    const listFile = path.join(dir, 'urls.txt');
    fs.writeFileSync(listFile, list);
    site.hits.clear();
    let pages = 0;
    let run!: Child;
    site.setOnEvent((e) => {
      if (e.type === 'answered' && e.kind === 'page' && ++pages === 25) run.child.kill('SIGKILL');
    });
    run = runChild([path.join(dir, 'state'), 'start', JSON.stringify(base()), listFile]);
    const killed = await run.exit;
    site.setOnEvent(null);
    assert.equal(killed.signal, 'SIGKILL', 'killed before it finished');
    const id = run.lines.find((l) => l.type === 'created')!.id;
    const last = runChild([path.join(dir, 'state'), 'resume', id]);
    const { code } = await last.exit;
    assert.equal(code, 0);
    assert.equal(last.lines.find((l) => l.type === 'finished')?.status, 'finished');

    const reader = createCrawlService({ stateDir: path.join(dir, 'state') });
    try {
      assert.equal(reader.get(id).listSize, ref.summary.listSize);
      assert.deepEqual(answers(allRows(reader, id)), answers(ref.rows));
      assert.deepEqual(counts(allRows(reader, id)), counts(ref.rows));
    } finally {
      await reader.close();
    }
  });
});

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = path.join(ROOT, 'test/fixtures/real-site/crawl-child.ts');
interface Child {
  child: ChildProcess;
  lines: { type: string; id: string; status?: string }[];
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function runChild(args: string[]): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const run: Child = { child, lines: [], exit: undefined as never };
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  createInterface({ input: child.stdout! }).on('line', (text) => run.lines.push(JSON.parse(text) as Child['lines'][number]));
  const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
  run.exit = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0 && signal !== 'SIGKILL') process.stderr.write(stderr);
      resolve({ code, signal });
    }),
  );
  return run;
}

/** How many times each URL was found, by source, sorted: a resume must not count the list twice. */
function counts(rows: UrlRow[]): string[] {
  return rows.map((r) => `${r.url} ${r.source} ${JSON.stringify((r as { inlinks?: number }).inlinks ?? null)}`).sort();
}

/** "url state status → target" of every row, sorted. */
function answers(rows: Pick<UrlRow, 'url' | 'state' | 'status' | 'redirectTo'>[]): string[] {
  return rows.map((r) => `${r.url} ${r.state} ${r.status ?? ''}${r.redirectTo ? ' → ' + r.redirectTo : ''}`).sort();
}
