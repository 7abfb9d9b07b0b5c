/**
 * The benchmark: `npm run bench [-- --urls N]` (see bench/launch.mjs, which compiles this file and runs
 * it as plain JavaScript). One run measures, against a generated local site served by a child process:
 *   1. sitemap ingest through the CrawlService (pages not fetched) into the journalled, deduplicated
 *      frontier, until N URLs are in: URLs/s, RSS sampled as it goes, p99 event-loop delay; then pause;
 *   2. journal bytes on disk per URL;
 *   3. a bare tokenizer pass over the same inflated sitemap bytes (the ingest's share of it);
 *   4. reopening the paused crawl in a new process until its first request reaches the site, then
 *      letting it finish and exporting every row as CSV;
 *   5. a page crawl of the linked HTML pages at the given concurrency.
 * Prints a table and, last, one JSON line.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import type { CrawlSettings } from '../shared/model.js';
import { recrawlBench, type RecrawlBenchResult } from './recrawl.js';
import { compareBench, type CompareBenchResult } from './compare.js';
import { createCrawlService, type LocalCrawlService } from '../electron/service/index.js';
import { JOURNAL_FILE } from '../electron/service/catalog/catalog.js';
import { REC_LINKS } from '../electron/service/journal/format.js';
import { parseBenchArgs, type BenchArgs } from './args.js';
import { FIGURE_KEYS, passes, table, type FigureKey } from './report.js';
import type { ReopenConfig, ReopenMessage } from './reopen.js';
import type { SiteCounts, SiteHit, SiteReady, SiteServerConfig } from './site-server.js';
import { parsePass, tokenizerPass } from './tokenizer-pass.js';
import { heapSnapshot, startProfile } from './profiler.js';
import { threadCpu, threadTimes, type ThreadCpu } from './threads.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The compiled siblings (launch.mjs bundles them next to this file). */
const ext = path.extname(fileURLToPath(import.meta.url));
const SITE_SERVER = path.join(here, 'site-server' + ext);
const REOPEN = path.join(here, 'reopen' + ext);

const MB = 1e6;
/** How often the ingest's URL count is checked; RSS is read every RSS_EVERY-th check (reading it is not free). */
const SAMPLE_MS = 10;
const RSS_EVERY = 5;

interface RssSample {
  at: number;
  urls: number;
  rss: number;
}

/** process.memoryUsage() in MB, with the size of each V8 heap space (`space:new_space` …). */
function memoryMB(): Record<string, number> {
  const mb = (v: number) => Math.round(v / 1e5) / 10;
  const m: Record<string, number> = Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, mb(v)]));
  for (const sp of getHeapSpaceStatistics()) {
    if (sp.space_size > 1e6) m[`space:${sp.space_name}`] = mb(sp.space_size);
  }
  return m;
}

function log(args: BenchArgs, msg: string): void {
  if (!args.jsonOnly) process.stderr.write(msg + '\n');
}

/** Forks the site server and waits for it to listen. */
async function startSite(args: BenchArgs): Promise<{ child: ChildProcess; ready: SiteReady; hits: SiteHit[] }> {
  // No inherited flags: the site's process is not measured (and must not write a CPU profile of its own).
  const child = fork(SITE_SERVER, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const hits: SiteHit[] = [];
  const ready = await new Promise<SiteReady>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`The site server exited early (code ${code}).`)));
    child.on('message', (m: { type?: string }) => {
      if (m.type === 'ready') resolve(m as SiteReady);
      else if (m.type === 'hit') hits.push(m as SiteHit);
    });
    const cfg: SiteServerConfig = { host: args.host, urls: args.urls, pages: args.pages, tail: args.tail };
    child.send(cfg);
  });
  child.removeAllListeners('exit');
  return { child, ready, hits };
}

function askCounts(child: ChildProcess): Promise<SiteCounts> {
  return new Promise((resolve) => {
    const on = (m: { type?: string }) => {
      if (m.type !== 'counts') return;
      child.off('message', on);
      resolve(m as SiteCounts);
    };
    child.on('message', on);
    child.send({ type: 'counts' });
  });
}

/** Settings shared by both crawls: local site, generous timeouts (a loaded 2-core machine). */
function baseSettings(startUrl: string, over: Partial<CrawlSettings>): Partial<CrawlSettings> & { startUrl: string } {
  return { startUrl, timeoutMs: 60_000, connectTimeoutMs: 10_000, retries: 1, delayMs: 0, userAgent: 'SpinneretBench/1.0', ...over };
}

function waitFor(service: LocalCrawlService, id: string): Promise<string> {
  return new Promise((resolve) => {
    const offs = [
      service.on('finished', (s) => s.id === id && done('finished')),
      service.on('failed', (s) => s.id === id && done(`failed: ${s.error?.code} ${s.error?.message}`)),
    ];
    function done(status: string): void {
      offs.forEach((off) => off());
      resolve(status);
    }
  });
}

/** Bytes of every file under `dir`. */
function dirBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) n += dirBytes(p);
    else if (e.isFile()) n += fs.statSync(p).size;
  }
  return n;
}

/** Folder of the crawl: the one under stateDir holding a journal. */
function crawlDir(stateDir: string): string {
  const stack = [stateDir];
  while (stack.length) {
    const d = stack.pop()!;
    const entries = fs.readdirSync(d, { withFileTypes: true });
    if (entries.some((e) => e.isFile() && e.name.startsWith('journal'))) return d;
    for (const e of entries) if (e.isDirectory()) stack.push(path.join(d, e.name));
  }
  throw new Error(`No journal under ${stateDir}`);
}

interface IngestResult {
  urls: number;
  ms: number;
  samples: RssSample[];
  eventLoopP99Ms: number;
  eventLoopMaxMs: number;
  pauseMs: number;
  crawlId: string;
  journalBytes: number;
  status: string;
  problems: string[];
  /** CPU time of the whole process (main thread, zlib's threads, GC) during the ingest. */
  cpuMs: number;
  /** The same per thread (Linux), or null. */
  threads: ThreadCpu | null;
  /** process.memoryUsage() before the ingest, at N/10 URLs and at N URLs. */
  memory: Record<'start' | 'tenth' | 'n', Record<string, number>>;
}

/** Phase 1: ingest through the service until N URLs are in, then pause. */
async function ingest(args: BenchArgs, stateDir: string, origin: string): Promise<IngestResult> {
  const service = createCrawlService({ stateDir });
  const crawl = service.create({
    name: 'bench ingest',
    settings: baseSettings(origin + '/', { fetchPages: false, followLinks: false, concurrency: 8, perHostConcurrency: 4 }),
  });
  const id = crawl.id;
  const samples: RssSample[] = [];
  const eld = monitorEventLoopDelay({ resolution: 10 });
  let failed: string | null = null;
  void waitFor(service, id).then((s) => {
    if (s !== 'finished' || samples.length === 0 || samples[samples.length - 1]!.urls < args.urls) failed = s;
  });

  (globalThis as { gc?: () => void }).gc?.();
  const memoryAtStart = memoryMB();
  let memoryAtTenth: Record<string, number> | null = null;
  const tenth = Math.round(args.urls / 10);
  const stopProfile = await startProfile(args.profile, 'ingest');
  const threads0 = threadTimes();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  eld.enable();
  await service.start(id);
  let ticks = 0;
  const reached = await new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      const urls = service.get(id).counters.discovered;
      const now = performance.now();
      const crossing = (memoryAtTenth === null && urls >= tenth) || urls >= args.urls;
      if (crossing || ++ticks % RSS_EVERY === 0) samples.push({ at: now - t0, urls, rss: process.memoryUsage.rss() });
      if (memoryAtTenth === null && urls >= tenth) memoryAtTenth = memoryMB();
      if (urls >= args.urls) {
        clearInterval(timer);
        resolve(now);
      } else if (failed) {
        clearInterval(timer);
        reject(new Error(`The ingest crawl ended before ${args.urls} URLs (${urls}): ${failed}`));
      }
    }, SAMPLE_MS);
  });
  eld.disable();
  const cpu = process.cpuUsage(cpu0);
  const threads = threadCpu(threads0, threadTimes());
  const memoryAtN = memoryMB();
  await stopProfile();
  heapSnapshot(args.profile, 'ingest-at-n');
  const tp = performance.now();
  const paused = await service.pause(id);
  const pauseMs = performance.now() - tp;
  if (paused.status !== 'paused') throw new Error(`The ingest crawl is ${paused.status} after pausing; expected paused (was the tail too short?).`);
  const problems = treeProblems(service, id);
  await service.close();
  const journalBytes = dirBytes(crawlDir(stateDir));
  return {
    urls: paused.counters.discovered,
    ms: reached - t0,
    samples,
    eventLoopP99Ms: eld.percentile(99) / 1e6,
    eventLoopMaxMs: eld.max / 1e6,
    pauseMs,
    crawlId: id,
    journalBytes,
    status: paused.status,
    problems,
    cpuMs: (cpu.user + cpu.system) / 1000,
    threads,
    memory: { start: memoryAtStart, tenth: memoryAtTenth ?? {}, n: memoryAtN },
  };
}

/** Problem codes on the sitemap tree (the generated sitemaps are clean: any problem is a bench or engine bug). */
function treeProblems(service: LocalCrawlService, id: string): string[] {
  const codes: string[] = [];
  const walk = (parent: string | null) => {
    for (const node of service.sitemapTree(id, parent)) {
      for (const p of node.problems) codes.push(p.code);
      walk(node.id);
    }
  };
  walk(null);
  return codes;
}

interface ReopenResult {
  reopenMs: number;
  firstRequest: string;
  resumeCallMs: number;
  resumedRssMB: number;
  finishStatus: string;
  finishedUrls: number;
  csvRows: number;
  csvBytes: number;
  csvMs: number;
  childRssMB: number;
}

/** Phase 4: a new process reopens the paused crawl; the site tells when its first request arrives. */
async function reopen(args: BenchArgs, stateDir: string, crawlId: string, hits: SiteHit[]): Promise<ReopenResult> {
  const child = fork(REOPEN, [], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const got: Partial<Record<ReopenMessage['type'], ReopenMessage>> = {};
  await new Promise<void>((resolve, reject) => {
    child.on('message', (m: ReopenMessage) => {
      got[m.type] = m;
      if (m.type === 'error') reject(new Error(`Reopening failed: ${m.message}`));
    });
    child.once('exit', (code) => (got.done ? resolve() : reject(new Error(`The reopen process exited (code ${code}) before it was done.`))));
    child.send({ stateDir, crawlId, profile: args.profile } satisfies ReopenConfig);
  });
  const opening = got.opening as Extract<ReopenMessage, { type: 'opening' }>;
  const resumed = got.resumed as Extract<ReopenMessage, { type: 'resumed' }>;
  const finished = got.finished as Extract<ReopenMessage, { type: 'finished' }>;
  const csv = got.csv as Extract<ReopenMessage, { type: 'csv' }>;
  const done = got.done as Extract<ReopenMessage, { type: 'done' }>;
  const first = hits.find((h) => h.at >= opening.at);
  if (!first) throw new Error('The resumed crawl sent no request to the site.');
  return {
    reopenMs: first.at - opening.at,
    firstRequest: first.path,
    resumeCallMs: resumed.at - opening.at,
    resumedRssMB: resumed.rssMB,
    finishStatus: finished.status,
    finishedUrls: finished.discovered,
    csvRows: csv.rows,
    csvBytes: csv.bytes,
    csvMs: csv.ms,
    childRssMB: done.rssMB,
  };
}

interface PageCrawlResult {
  fetched: number;
  ms: number;
  status: string;
  /** Peak RSS sampled during the crawl, and the heap once it finished. */
  peakRssMB: number;
  heapUsedMB: number;
  /** Links of the pages as the journal holds them (LINKS records). */
  links: number;
  linkBytes: number;
}

/** The LINKS records of a journal: how many links they hold and their bytes on disk. */
function linkRecords(journal: string): { links: number; bytes: number } {
  let links = 0;
  let bytes = 0;
  const prefix = '[' + REC_LINKS + ',';
  for (const line of fs.readFileSync(journal, 'utf8').split('\n')) {
    if (!line.startsWith(prefix)) continue;
    bytes += Buffer.byteLength(line) + 1;
    const rec = JSON.parse(line) as unknown[];
    links += Array.isArray(rec[2]) ? rec[2].length : 0;
  }
  return { links, bytes };
}

/** Phase 5: crawl the linked pages from `/` (their site announces no sitemap). */
async function pageCrawl(args: BenchArgs, stateDir: string, origin: string): Promise<PageCrawlResult> {
  const service = createCrawlService({ stateDir });
  const crawl = service.create({
    name: 'bench pages',
    settings: baseSettings(origin + '/', { fetchPages: true, followLinks: true, concurrency: args.concurrency, perHostConcurrency: args.concurrency }),
  });
  const finished = waitFor(service, crawl.id);
  const stopProfile = await startProfile(args.profile, 'page-crawl');
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);
  const t0 = performance.now();
  await service.start(crawl.id);
  const status = await finished;
  const ms = performance.now() - t0;
  clearInterval(sampler);
  await stopProfile();
  const fetched = service.get(crawl.id).counters.fetched;
  const heapUsedMB = process.memoryUsage().heapUsed / MB;
  await service.close();
  const { links, bytes } = linkRecords(path.join(crawlDir(stateDir), JOURNAL_FILE));
  return { fetched, ms, status, peakRssMB: peakRss / MB, heapUsedMB, links, linkBytes: bytes };
}

/** Runs one phase after saying so. */
function phase<T>(args: BenchArgs, name: string, run: () => Promise<T>): Promise<T> {
  log(args, `${name} …`);
  return run();
}

/** RSS at the first sample with at least `urls` URLs in. */
function rssAt(samples: RssSample[], urls: number): number {
  return (samples.find((s) => s.urls >= urls) ?? samples[samples.length - 1]!).rss;
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  // Read by the engine, here and in the reopen process (which inherits the environment).
  if (args.parseOnMain) process.env.SPINNERET_PARSE_WORKER = '0';
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spinneret-bench-'));
  const ingestDir = path.join(tmp, 'ingest');
  const pagesDir = path.join(tmp, 'pages');
  log(
    args,
    `Spinneret benchmark: ${args.urls.toLocaleString('en-US')} URLs, ${args.pages.toLocaleString('en-US')} pages, Node ${process.version}, ${os.cpus().length} CPUs; sitemaps parsed ${args.parseOnMain ? 'on the engine thread' : 'in the parse worker'}; state in ${tmp}`,
  );

  const site = await startSite(args);
  const { ready } = site;
  const inflated = ready.sitemaps.reduce((n, s) => n + s.bytes, 0);
  const gz = ready.sitemaps.reduce((n, s) => n + s.gzBytes, 0);
  log(
    args,
    `site: ${ready.sitemaps.length} urlsets + tail (${(inflated / MB).toFixed(0)} MB inflated, ${(gz / MB).toFixed(1)} MB gzipped), built in ${(ready.buildMs / 1000).toFixed(1)} s at ${ready.sitemapOrigin}`,
  );

  try {
    log(args, 'ingest …');
    const ing = await ingest(args, ingestDir, ready.sitemapOrigin);
    log(args, `ingest: ${ing.urls.toLocaleString('en-US')} URLs in ${(ing.ms / 1000).toFixed(2)} s, paused in ${ing.pauseMs.toFixed(0)} ms`);
    const th = ing.threads;
    const s = (ms: number) => (ms / 1000).toFixed(2);
    if (th) {
      log(
        args,
        `ingest CPU ${s(ing.cpuMs)} s: engine thread ${s(th.engineMs)} s (${s(th.engineSystemMs)} s in the kernel), ` +
          `${args.parseOnMain ? 'busiest other thread' : 'parse worker'} ${s(th.busiestOtherMs)} s, other threads ${s(th.restMs)} s`,
      );
    }

    const tok = args.phases.has('tokenizer')
      ? await phase(args, 'bare tokenizer pass', () => tokenizerPass(ready.sitemaps.map((s) => ready.sitemapOrigin + s.path)))
      : null;
    if (tok) log(args, `tokenizer: ${(tok.bytes / MB).toFixed(0)} MB in ${(tok.ms / 1000).toFixed(2)} s`);
    const parseOnly = args.phases.has('tokenizer')
      ? await phase(args, `parser alone (${args.parseOnMain ? 'this thread' : 'parse worker'})`, () =>
          parsePass(
            ready.sitemaps.map((s) => ready.sitemapOrigin + s.path),
            args.parseOnMain,
          ),
        )
      : null;
    if (parseOnly && tok) {
      log(
        args,
        `parser alone: ${parseOnly.urls.toLocaleString('en-US')} entries in ${(parseOnly.ms / 1000).toFixed(2)} s (${((parseOnly.ms * 1000) / parseOnly.urls).toFixed(2)} µs each; the tokenizer pass ${((tok.ms * 1000) / parseOnly.urls).toFixed(2)} µs): at most ${(tok.ms / parseOnly.ms).toFixed(2)} of the tokenizer pass`,
      );
    }

    const re = args.phases.has('reopen') ? await phase(args, 'reopen', () => reopen(args, ingestDir, ing.crawlId, site.hits)) : null;
    if (re)
      log(
        args,
        `reopen: first request (${re.firstRequest}) ${re.reopenMs} ms after opening; finished ${re.finishStatus} with ${re.finishedUrls.toLocaleString('en-US')} URLs; CSV ${re.csvRows.toLocaleString('en-US')} rows in ${(re.csvMs / 1000).toFixed(2)} s`,
      );

    // Issue 23: the ingested crawl recrawled with every sitemap answering 304, then the two compared.
    let rc: RecrawlBenchResult | null = null;
    let cmp: CompareBenchResult | null = null;
    if (args.phases.has('recrawl') || args.phases.has('compare')) {
      const svc = createCrawlService({ stateDir: ingestDir });
      try {
        rc = await phase(args, 'recrawl, every sitemap answering 304', () =>
          recrawlBench(svc, ing.crawlId, { sitemaps: ready.sitemaps, distinct: ready.distinct }),
        );
        log(
          args,
          `recrawl: ${rc.urls.toLocaleString('en-US')} URLs in ${(rc.ms / 1000).toFixed(2)} s, ${rc.sitemapsCarried} sitemaps carried over, peak RSS ${rc.peakRssMB.toFixed(0)} MB`,
        );
        if (args.phases.has('compare')) {
          const recrawlId = rc.crawlId;
          cmp = await phase(args, 'compare the crawl with its recrawl', () => compareBench(svc, ing.crawlId, recrawlId));
          log(
            args,
            `compare: ${(cmp.ms / 1000).toFixed(2)} s, ${cmp.changedRows.toLocaleString('en-US')} changed rows, peak RSS ${cmp.peakRssMB.toFixed(0)} MB (+${cmp.rssGrowthMB.toFixed(0)} MB)`,
          );
        }
      } finally {
        await svc.close();
      }
    }

    site.child.send({ type: 'reset-counts' });
    const pages = args.phases.has('pages') ? await phase(args, 'page crawl', () => pageCrawl(args, pagesDir, ready.pageOrigin)) : null;
    const counts = await askCounts(site.child);
    if (pages)
      log(args, `pages: ${pages.fetched.toLocaleString('en-US')} fetched (${counts.pageHits} served) in ${(pages.ms / 1000).toFixed(2)} s, ${pages.status}`);

    const lo = Math.round(args.urls / 10);
    const peak = Math.max(...ing.samples.map((s) => s.rss));
    const figures: Record<FigureKey, number> = {
      ingestUrlsPerSec: args.urls / (ing.ms / 1000),
      ingestShareOfTokenizer: tok ? tok.ms / ing.ms : NaN,
      peakRssMB: peak / MB,
      rssGrowthMB: (rssAt(ing.samples, args.urls) - rssAt(ing.samples, lo)) / MB,
      journalBytesPerUrl: ing.journalBytes / ing.urls,
      reopenMs: re ? re.reopenMs : NaN,
      eventLoopP99Ms: ing.eventLoopP99Ms,
      pageCrawlPagesPerSec: pages ? pages.fetched / (pages.ms / 1000) : NaN,
      csvRowsPerSec: re ? re.csvRows / (re.csvMs / 1000) : NaN,
    };
    if (!args.jsonOnly) {
      console.log('');
      console.log(`Spinneret benchmark at ${args.urls.toLocaleString('en-US')} URLs (targets: issues 6 and 22, for 1M URLs)`);
      console.log(table(figures));
      console.log('');
    }
    const pass = Object.fromEntries(FIGURE_KEYS.map((k) => [k, Number.isNaN(figures[k]) ? null : passes(k, figures[k])]));
    const round = (n: number) => (Number.isFinite(n) ? Math.round(n * 100) / 100 : null);
    console.log(
      JSON.stringify({
        bench: 'spinneret',
        urls: args.urls,
        pages: args.pages,
        node: process.version,
        cpus: os.cpus().length,
        figures: Object.fromEntries(FIGURE_KEYS.map((k) => [k, round(figures[k])])),
        pass,
        detail: {
          parseWorker: !args.parseOnMain,
          sitemaps: ready.sitemaps.length,
          entries: ready.sitemaps.reduce((n, s) => n + s.entries, 0),
          duplicates: ready.duplicates,
          tail: ready.tail.entries,
          inflatedBytes: inflated,
          gzipBytes: gz,
          ingestMs: round(ing.ms),
          ingestCpuMs: round(ing.cpuMs),
          ...(ing.threads ? { ingestThreadsCpuMs: Object.fromEntries(Object.entries(ing.threads).map(([k, v]) => [k, round(v)])) } : {}),
          memoryMB: ing.memory,
          loadAverage: os.loadavg().map(round),
          urlsAtPause: ing.urls,
          pauseMs: round(ing.pauseMs),
          eventLoopMaxMs: round(ing.eventLoopMaxMs),
          rssAtTenthMB: round(rssAt(ing.samples, lo) / MB),
          rssAtNMB: round(rssAt(ing.samples, args.urls) / MB),
          journalBytes: ing.journalBytes,
          sitemapProblems: ing.problems.length,
          sitemapProblemCodes: [...new Set(ing.problems)].join(' '),
          ...(tok ? { tokenizerMs: round(tok.ms), tokenizerBytes: tok.bytes } : {}),
          ...(parseOnly && tok ? { parserAloneMs: round(parseOnly.ms), parserAloneShareOfTokenizer: round(tok.ms / parseOnly.ms) } : {}),
          ...(re
            ? {
                reopenFirstRequest: re.firstRequest,
                resumeCallMs: re.resumeCallMs,
                resumedRssMB: round(re.resumedRssMB),
                finishedUrls: re.finishedUrls,
                csvRows: re.csvRows,
                csvBytes: re.csvBytes,
                csvMs: round(re.csvMs),
              }
            : {}),
          ...(rc ? { recrawlMs: round(rc.ms), recrawlUrls: rc.urls, recrawlSitemapsCarried: rc.sitemapsCarried, recrawlPeakRssMB: round(rc.peakRssMB) } : {}),
          ...(cmp
            ? {
                compareMs: round(cmp.ms),
                compareChangedRows: cmp.changedRows,
                comparePeakRssMB: round(cmp.peakRssMB),
                compareRssGrowthMB: round(cmp.rssGrowthMB),
              }
            : {}),
          ...(pages
            ? {
                pagesFetched: pages.fetched,
                pagesServed: counts.pageHits,
                pageCrawlMs: round(pages.ms),
                pageCrawlStatus: pages.status,
                pageCrawlPeakRssMB: round(pages.peakRssMB),
                pageCrawlHeapUsedMB: round(pages.heapUsedMB),
                linksRecorded: pages.links,
                linkJournalBytesPerLink: round(pages.links ? pages.linkBytes / pages.links : NaN),
              }
            : {}),
        },
      }),
    );
  } finally {
    site.child.send({ type: 'exit' });
    if (!args.keep) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error((err as Error)?.stack ?? String(err));
  process.exit(1);
});
