/**
 * SIGKILL at any moment: a child process crawls the local test site through CrawlService and is
 * killed — while sitemaps are being read, while pages are fetched, right after a checkpoint — then
 * another resumes the crawl. The final URLs and their CSV rows must equal those of a crawl never
 * interrupted, and no page may be fetched twice apart from those in flight at the kill (at most
 * the crawl's concurrency, 4). Sitemaps: none that the last checkpoint before the kill holds as read
 * is read again.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CrawlCounters } from '../../shared/model.js';
import type { CrawlerCheckpoint } from '../../electron/engine/index.js';
import type { SitemapListCheckpoint } from '../../electron/engine/sitemap/request-list.js';
import { createCrawlService } from '../../electron/service/index.js';
import { startTestSite } from '../fixtures/site.js';
import type { TestSite } from '../fixtures/types.js';
import { csvByUrl, csvOf, tempDir } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = path.join(ROOT, 'test/service/kill-child.ts');
const CONCURRENCY = 4;

type Line =
  | { type: 'created'; id: string }
  | { type: 'progress'; id: string; status: string; counters: CrawlCounters }
  | { type: 'checkpoint'; id: string; position: number }
  | { type: 'finished'; id: string; status: string };

interface Run {
  child: ChildProcess;
  lines: Line[];
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the crawl child; `onLine` may kill it. */
function runChild(args: string[], onLine: (l: Line, run: Run) => void = () => {}): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const run: Run = { child, lines: [], exit: undefined as never };
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  createInterface({ input: child.stdout! }).on('line', (text) => {
    const l = JSON.parse(text) as Line;
    run.lines.push(l);
    onLine(l, run);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  run.exit = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0 && signal !== 'SIGKILL') process.stderr.write(stderr);
      resolve({ code, signal });
    }),
  );
  return run;
}

let site: TestSite;
let expected: Map<string, string>;

before(async () => {
  site = await startTestSite({ scenario: 'large', pages: 200, sitemapUrls: 1500, perSitemap: 150, pageDelayMs: 2 });
  // The uninterrupted crawl, by the same child.
  const dir = tempDir();
  const run = runChild([dir, 'start', site.url('/')]);
  const { code } = await run.exit;
  assert.equal(code, 0);
  assert.deepEqual(run.lines.at(-1), { type: 'finished', id: (run.lines[0] as { id: string }).id, status: 'finished' });
  expected = await exported(dir, (run.lines[0] as { id: string }).id);
  assert.equal(expected.size, 1501);
});

after(() => site?.close());

async function exported(dir: string, id: string): Promise<Map<string, string>> {
  const service = createCrawlService({ stateDir: dir });
  try {
    return csvByUrl(await csvOf(service, id));
  } finally {
    await service.close();
  }
}

/** Crawls, kills when `when` says so, resumes, and checks the outcome. */
async function killAndResume(what: string, when: (l: Line, seen: Line[]) => boolean): Promise<string> {
  site.hits.clear();
  const dir = tempDir();
  let killedAt: Line | undefined;
  const first = runChild([dir, 'start', site.url('/')], (l, run) => {
    if (!killedAt && when(l, run.lines)) {
      killedAt = l;
      run.child.kill('SIGKILL');
    }
  });
  const { signal } = await first.exit;
  assert.equal(signal, 'SIGKILL', `${what}: the crawl ended before the kill moment came`);
  assert.ok(!first.lines.some((l) => l.type === 'finished'), `${what}: killed after it finished`);
  const id = (first.lines[0] as { id: string }).id;
  const unread = unreadAtLastCheckpoint(dir, id);

  const second = runChild([dir, 'resume', id]);
  const { code } = await second.exit;
  assert.equal(code, 0, `${what}: the resume ran to its end`);
  assert.deepEqual(second.lines.at(-1), { type: 'finished', id, status: 'finished' }, what);

  const got = await exported(dir, id);
  assert.deepEqual([...got.keys()].sort(), [...expected.keys()].sort(), `${what}: the same URLs`);
  for (const [url, row] of expected) assert.equal(got.get(url), row, `${what}: the CSV row of ${url}`);

  const pagesTwice = [...site.hits].filter(([p, n]) => (p === '/' || p.startsWith('/l/')) && n > 1);
  assert.ok(pagesTwice.length <= CONCURRENCY, `${what}: ${pagesTwice.length} pages fetched twice: ${JSON.stringify(pagesTwice)}`);
  assert.ok(
    [...site.hits].every(([, n]) => n <= 2),
    `${what}: nothing fetched three times`,
  );
  const sitemapsTwice = [...site.hits].filter(([p, n]) => p.startsWith('/large/') && n > 1);
  for (const [p] of sitemapsTwice) assert.ok(unread.has(p), `${what}: ${p} was read again, though the checkpoint resumed from held it as read`);
  const at = [...first.lines].reverse().find((l) => l.type === 'progress') as { counters: CrawlCounters } | undefined;
  return `killed at ${killedAt!.type} (fetched ${at?.counters.fetched}, discovered ${at?.counters.discovered}, sitemaps ${at?.counters.sitemaps.done}/${at?.counters.sitemaps.total}); pages fetched twice: ${pagesTwice.length}; sitemaps read twice: ${sitemapsTwice.length}`;
}

/**
 * The paths of the sitemaps that the last whole checkpoint of a killed crawl's journal had not finished
 * reading (queued, read ahead, or in progress): the resume starts from it, so only these may be fetched
 * again. A sitemap that ended after it is among them: its end is checkpointed at the next journal flush.
 */
function unreadAtLastCheckpoint(dir: string, id: string): Set<string> {
  const text = readFileSync(path.join(dir, 'crawls', id, 'journal.jsonl'), 'utf8');
  let list: SitemapListCheckpoint | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('[6,')) continue;
    try {
      list = (JSON.parse(line) as [number, CrawlerCheckpoint])[1].sitemapList as SitemapListCheckpoint;
    } catch {
      // the torn last line of a killed writer
    }
  }
  assert.ok(list, 'the killed crawl left a checkpoint');
  assert.equal(list.version, 2);
  const ids = [...list.pending.map(([pending]) => pending), ...(list.current ? [list.current.id] : [])];
  return new Set(ids.map((u) => new URL(u).pathname));
}

const progress = (l: Line) => (l.type === 'progress' ? l.counters : undefined);

test('SIGKILL while sitemaps are being read, then resume', async (t) => {
  t.diagnostic(
    await killAndResume('sitemaps', (l) => {
      const c = progress(l);
      return !!c && c.sitemaps.total > 1 && c.sitemaps.done < c.sitemaps.total - 1 && c.discovered > 100;
    }),
  );
});

test('SIGKILL while pages are fetched, then resume', async (t) => {
  t.diagnostic(
    await killAndResume('pages', (l) => {
      const c = progress(l);
      return !!c && c.fetched >= 600 && c.fetching > 0;
    }),
  );
});

test('SIGKILL right after a checkpoint, then resume', async (t) => {
  t.diagnostic(await killAndResume('checkpoint', (l, seen) => l.type === 'checkpoint' && seen.some((x) => x.type === 'progress' && x.counters.fetched >= 200)));
});
