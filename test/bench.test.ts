/**
 * The benchmark runs end to end at a small size and reports every figure. Speed is not asserted
 * (that is the benchmark's job); the figures must be present and sane, and the counts exact.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FIGURE_KEYS } from '../bench/report.js';
import { parseBenchArgs } from '../bench/args.js';
import { threadCpu, threadTimes, type ThreadTimes } from '../bench/threads.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('npm run bench', () => {
  it('runs end to end at 20,000 URLs and 500 pages and prints one JSON line with every figure', () => {
    const res = spawnSync(process.execPath, ['bench/launch.mjs', '--urls', '20000', '--pages', '500', '--json-only'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 180_000,
    });
    assert.equal(res.status, 0, `bench failed:\n${res.stderr}\n${res.stdout}`);
    // Pausing, closing and reopening the service leave no file open for the garbage collector to close.
    assert.doesNotMatch(res.stderr, /Closing file descriptor|DEP0137/);
    // The compiled benchmark finds the sitemap parse worker beside it (no fallback to the engine thread).
    assert.doesNotMatch(res.stderr, /SPINNERET_NO_PARSE_WORKER/);
    const lines = res.stdout.trim().split('\n');
    assert.equal(lines.length, 1, `--json-only prints one line, got:\n${res.stdout}`);
    const out = JSON.parse(lines[0]!) as {
      urls: number;
      pages: number;
      figures: Record<string, number>;
      pass: Record<string, boolean>;
      detail: Record<string, number | string | boolean>;
    };
    assert.equal(out.urls, 20_000);
    assert.equal(out.pages, 500);
    for (const k of FIGURE_KEYS) {
      assert.equal(typeof out.figures[k], 'number', `figure ${k} missing`);
      assert.ok(Number.isFinite(out.figures[k]), `figure ${k} is ${out.figures[k]}`);
      assert.equal(typeof out.pass[k], 'boolean', `pass/fail of ${k} missing`);
    }
    const f = out.figures;
    const d = out.detail;
    assert.equal(d.parseWorker, true);
    assert.ok(f.ingestUrlsPerSec! > 0);
    assert.ok(f.ingestShareOfTokenizer! > 0 && f.ingestShareOfTokenizer! < 5, `share ${f.ingestShareOfTokenizer}`);
    // The parser alone (the ceiling of the ingest) is timed beside the tokenizer pass.
    assert.ok((d.parserAloneMs as number) > 0, `parser alone ${d.parserAloneMs} ms`);
    assert.ok((d.parserAloneShareOfTokenizer as number) > 0, `parser alone share ${d.parserAloneShareOfTokenizer}`);
    assert.ok(f.peakRssMB! > 20 && f.peakRssMB! < 4000, `peak RSS ${f.peakRssMB} MB`);
    // Every URL is journalled with at least its own text (~50 characters here).
    assert.ok(f.journalBytesPerUrl! > 40 && f.journalBytesPerUrl! < 5000, `journal ${f.journalBytesPerUrl} B/URL`);
    assert.ok(f.reopenMs! >= 0 && f.reopenMs! < 120_000, `reopen ${f.reopenMs} ms`);
    // A delay sample is the time between ticks of a 10 ms timer: never below it, if the monitor ran at all.
    assert.ok(f.eventLoopP99Ms! >= 9 && f.eventLoopP99Ms! < 10_000, `p99 event-loop delay ${f.eventLoopP99Ms} ms`);
    assert.ok(f.pageCrawlPagesPerSec! > 0);
    assert.ok(f.csvRowsPerSec! > 0);

    // The counts are exact: every measured URL in, the pause inside the tail, every page fetched once.
    assert.ok((d.urlsAtPause as number) >= 20_000 && (d.urlsAtPause as number) < 20_000 + (d.tail as number));
    assert.equal(d.sitemapProblems, 0, `problems on the sitemap tree: ${d.sitemapProblemCodes}`);
    assert.equal(d.reopenFirstRequest, '/sitemap-tail.xml.gz', 'the resumed crawl goes on with the sitemap it was reading');
    assert.equal(d.finishedUrls, 20_000 + (d.tail as number));
    assert.equal(d.csvRows, 20_000 + (d.tail as number));
    assert.equal(d.pagesFetched, 500);
    assert.equal(d.pagesServed, 500);
    assert.equal(d.pageCrawlStatus, 'finished');

    // Where /proc is (Linux, as in CI), the ingest's CPU per thread, adding up to the process's.
    if (threadTimes() !== null) {
      const t = d.ingestThreadsCpuMs as unknown as Record<string, number>;
      assert.ok(t && t.engineMs! > 0 && t.busiestOtherMs! > 0 && t.engineSystemMs! >= 0 && t.restMs! >= 0, JSON.stringify(t));
      const sum = t.engineMs! + t.busiestOtherMs! + t.restMs!;
      const cpu = d.ingestCpuMs as number;
      // /proc counts in 10 ms ticks per thread: within 15% or 150 ms of process.cpuUsage().
      assert.ok(Math.abs(sum - cpu) <= Math.max(150, 0.15 * cpu), `threads ${sum} ms, process ${cpu} ms`);
    }
  });

  it('splits CPU between two readings: the main thread, the busiest other, the rest; threads started in between count from 0', () => {
    const reading = (rows: [string, number, number][]): ThreadTimes => new Map(rows.map(([tid, user, system]) => [tid, { user, system }]));
    const before = reading([
      ['100', 1000, 100],
      ['101', 50, 0],
      ['102', 500, 10],
    ]);
    const after = reading([
      ['100', 3500, 400],
      ['101', 80, 10],
      ['102', 2600, 60],
      ['103', 200, 5], // started during the ingest
    ]);
    assert.deepEqual(threadCpu(before, after, '100'), { engineMs: 2800, engineSystemMs: 300, busiestOtherMs: 2150, restMs: 245 });
    assert.equal(threadCpu(null, after, '100'), null);
    const now = threadTimes();
    if (now !== null) assert.ok(now.has(String(process.pid)), 'the main thread is listed under the process id');
  });

  it('refuses bad options with the usage line', () => {
    assert.throws(() => parseBenchArgs(['--urls', 'many']), /--urls must be a whole number.*Usage/);
    assert.throws(() => parseBenchArgs(['--urls', '5000', '--pages', '6000']), /cannot exceed --urls/);
    assert.throws(() => parseBenchArgs(['--fast']), /Unknown option "--fast"/);
    const a = parseBenchArgs(['--urls=2_000_000']);
    assert.equal(a.urls, 2_000_000);
    assert.equal(a.tail, 50_000);
    assert.equal(a.parseOnMain, false);
    assert.equal(parseBenchArgs(['--parse-on-main']).parseOnMain, true);
  });
});
