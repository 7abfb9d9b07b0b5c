/**
 * Headless Spinneret: crawl, list, resume, export and delete crawls from a terminal.
 * Same CrawlService and state folder as the app, so crawls started here show in the window.
 */
import { createWriteStream, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import type { Writable } from 'node:stream';
import { MAX_PAGE, type CrawlLogEntry, type CrawlSummary, type ProgressEvent, type UrlQuery } from '../../shared/model.js';
import type { CrawlService, LinksExport } from '../service/types.js';
import { createCrawlService, type LocalCrawlService } from '../service/index.js';
import { defaultStateDir } from '../service/catalog/state-dir.js';
import { parseCli, USAGE, UsageError, type CliCommand } from './args.js';
import { formatProgress, formatSummary, formatTable } from './format.js';
import { findingsCsv, findingsJson, formatFindings } from './audit-format.js';
import { onPresses, takeSignals } from './interrupts.js';
import { runCompare } from './compare.js';
import { runRecrawl } from './recrawl.js';
import { exportCrawlToFile, importCrawlFromFile } from './crawl-file.js';

export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream;
  /** Registers the handler of the first Ctrl-C (a second one quits at once); returns a function that removes it. */
  onInterrupt(handler: () => void): () => void;
}

export interface CliDeps {
  openService?(stateDir: string): CrawlService;
}

/** Runs one CLI command; resolves to the process exit code (0 ok, 1 crawl failed, 2 bad usage). */
export async function runCli(argv: string[], io: CliIo, deps: CliDeps = {}): Promise<number> {
  let cmd: CliCommand;
  try {
    cmd = parseCli(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`spinneret: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  }
  if (cmd.kind === 'help') {
    io.stdout.write(USAGE);
    return 0;
  }
  const stateDir = cmd.stateDir ?? defaultStateDir();
  // No scheduled recrawls from a terminal command: the app (or browser mode) runs them.
  const service = (deps.openService ?? ((dir) => createCrawlService({ stateDir: dir, scheduler: false })))(stateDir);
  // Nothing fails silently: a catalog rebuilt, a damaged journal salvaged, … is said on stderr.
  const told = new Set<CrawlLogEntry>();
  const tell = (w: CrawlLogEntry) => {
    if (told.has(w)) return;
    told.add(w);
    io.stderr.write(`spinneret: ${w.level}: ${w.message}\n`);
  };
  const offWarning = service.on('warning', tell);
  (service as Partial<LocalCrawlService>).warnings?.().forEach(tell);
  try {
    switch (cmd.kind) {
      case 'list':
        io.stdout.write(formatTable(service.list()) + '\n');
        return 0;
      case 'delete':
        await service.delete(cmd.id);
        io.stdout.write(`Deleted crawl ${cmd.id}.\n`);
        return 0;
      case 'export': {
        if (cmd.links) {
          const opts: LinksExport = {};
          if (cmd.links.url !== undefined) opts.urlId = await urlIdOf(service, cmd.id, cmd.links.url);
          if (cmd.links.direction) opts.direction = cmd.links.direction;
          if (cmd.links.finding) opts.finding = cmd.links.finding;
          const rows = await writeTo(cmd.out, (file) => service.exportLinks(cmd.id, file, opts));
          io.stdout.write(`Wrote ${rows} links to ${cmd.out}.\n`);
          return 0;
        }
        const rows = await exportTo(service, cmd.id, cmd.out, cmd.filter);
        io.stdout.write(`Wrote ${rows} rows to ${cmd.out}.\n`);
        return 0;
      }
      case 'audit': {
        const crawl = service.get(cmd.id);
        if (cmd.finding && cmd.out) {
          const rows = await exportTo(service, cmd.id, cmd.out, { finding: cmd.finding });
          io.stdout.write(`Wrote ${rows} rows (${cmd.finding}) to ${cmd.out}.\n`);
          return 0;
        }
        // A crawl opened from disk rebuilds its audit in the background: print it once complete.
        await service.auditReady(cmd.id);
        const findings = service.getFindings(cmd.id);
        if (cmd.json) io.stdout.write(findingsJson(crawl, findings) + '\n');
        else if (cmd.out) {
          writeFileSync(cmd.out, findingsCsv(findings));
          io.stdout.write(`Wrote ${findings.length} findings to ${cmd.out}.\n`);
        } else io.stdout.write(formatFindings(crawl, findings) + '\n');
        return 0;
      }
      case 'compare':
        return await runCompare(service, cmd, io.stdout);
      case 'recrawl':
        // --json: stdout holds the JSON alone; the crawl's own lines go to stderr.
        return await runRecrawl(service, cmd, io, (id, begin) =>
          follow(service, id, begin, { stateDir, quiet: cmd.quiet }, cmd.json ? { ...io, stdout: io.stderr as CliIo['stdout'] } : io),
        );
      case 'crawl': {
        const crawl = service.create({ name: cmd.name, settings: cmd.settings, ...(cmd.list === undefined ? {} : { list: { path: cmd.list } }) });
        const what = crawl.listSize !== undefined ? `${crawl.listSize} URLs of ${cmd.list}` : crawl.settings.startUrl || crawl.settings.sitemapUrls[0];
        io.stdout.write(`Crawl ${crawl.id} (${what}) in ${stateDir}\n`);
        return await follow(service, crawl.id, () => service.start(crawl.id), { ...cmd, stateDir }, io);
      }
      case 'export-crawl': {
        const bytes = await exportCrawlToFile(service, cmd.id, cmd.file);
        io.stdout.write(`Saved crawl ${cmd.id} to ${cmd.file} (${bytes} bytes).\n`);
        return 0;
      }
      case 'import-crawl': {
        const crawl = await importCrawlFromFile(service, cmd.file);
        io.stdout.write(`Opened ${cmd.file} as crawl ${crawl.id} ("${crawl.name}", ${crawl.status}, ${crawl.counters.discovered} URLs).\n`);
        return 0;
      }
      case 'resume': {
        const id = cmd.id ?? pickResumable(service.list());
        if (!id) {
          io.stderr.write('spinneret: there is no paused or interrupted crawl to resume (npm run crawl -- list shows them all).\n');
          return 1;
        }
        io.stdout.write(`Resuming crawl ${id}\n`);
        return await follow(service, id, () => service.resume(id), { ...cmd, stateDir }, io);
      }
    }
  } catch (err) {
    const e = err as { code?: string; message?: string };
    io.stderr.write(`spinneret: ${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}\n`);
    return e.code === 'NOT_FOUND' || e.code === 'BAD_SETTINGS' || e.code === 'BAD_STATE' || e.code === 'BAD_LIST' ? 2 : 1;
  } finally {
    await service.close();
    offWarning();
  }
}

/** The most recently paused or interrupted crawl. */
function pickResumable(crawls: CrawlSummary[]): string | undefined {
  return crawls.filter((c) => c.status === 'paused' || c.status === 'running').sort((a, b) => b.updatedAt - a.updatedAt)[0]?.id;
}

async function exportTo(service: CrawlService, id: string, out: string, filter?: Omit<UrlQuery, 'offset' | 'limit'>): Promise<number> {
  return writeTo(out, (file) => service.exportCsv(id, file, filter));
}

/** The id of `url` in crawl `id`: an id is checked, a URL looked up (NOT_FOUND when the crawl does not hold it). */
async function urlIdOf(service: CrawlService, id: string, url: number | string): Promise<number> {
  if (typeof url === 'number') return service.getUrl(id, url).id;
  for (let offset = 0; ; offset += MAX_PAGE) {
    // The search narrows to URLs containing it; the one that is this URL exactly is taken.
    const page = service.queryUrls(id, { offset, limit: MAX_PAGE, search: url });
    const hit = page.rows.find((r) => r.url === url);
    if (hit) return hit.id;
    if (offset + MAX_PAGE >= page.total) break;
  }
  throw Object.assign(
    new Error(`Crawl ${id} holds no URL ${url}: give it as the crawl wrote it (npm run crawl -- export ${id} --out urls.csv lists them), or its id.`),
    {
      code: 'NOT_FOUND',
    },
  );
}

/** Streams an export into file `out`; resolves with its row count once the bytes are on disk. */
async function writeTo(out: string, write: (file: Writable) => Promise<{ rows: number }>): Promise<number> {
  const file = createWriteStream(out);
  try {
    const { rows } = await write(file);
    // The exporter may have ended the stream itself; wait until the bytes are on disk either way.
    if (!file.writableEnded) file.end();
    if (!file.writableFinished) await once(file, 'finish');
    return rows;
  } catch (err) {
    file.destroy();
    throw err;
  }
}

/** Starts (or resumes) a crawl and shows its progress until it finishes, fails or Ctrl-C pauses it. */
async function follow(
  service: CrawlService,
  id: string,
  begin: () => Promise<CrawlSummary>,
  cmd: { stateDir: string; out?: string; quiet: boolean },
  io: CliIo,
): Promise<number> {
  const tty = !!io.stdout.isTTY;
  let lastLine = 0;
  let interrupted = false;
  let settled = false;
  let resolveEnded!: (s: { summary: CrawlSummary; how: 'finished' | 'failed' | 'paused' }) => void;
  const ended = new Promise<{ summary: CrawlSummary; how: 'finished' | 'failed' | 'paused' }>((r) => (resolveEnded = r));
  const settle = (s: { summary: CrawlSummary; how: 'finished' | 'failed' | 'paused' }) => {
    settled = true;
    resolveEnded(s);
  };

  const offProgress = service.on('progress', (e: ProgressEvent) => {
    if (e.crawlId !== id || cmd.quiet || settled) return;
    const now = Date.now();
    if (tty) io.stdout.write('\r' + formatProgress(e, io.stdout.columns ?? 100) + '\x1b[K');
    else if (now - lastLine >= 2000) {
      lastLine = now;
      io.stdout.write(formatProgress(e, 200) + '\n');
    }
  });
  const offFinished = service.on('finished', (s) => s.id === id && settle({ summary: s, how: 'finished' }));
  const offFailed = service.on('failed', (s) => s.id === id && settle({ summary: s, how: 'failed' }));
  const offInterrupt = io.onInterrupt(() => {
    if (interrupted) return;
    interrupted = true;
    if (tty) io.stdout.write('\n');
    io.stdout.write('Pausing: letting requests in flight finish… (Ctrl-C again quits at once)\n');
    service.pause(id).then(
      (s) => settle({ summary: s, how: 'paused' }),
      (err) => settle({ summary: { ...service.get(id), error: { code: 'PAUSE_FAILED', message: String(err) } }, how: 'failed' }),
    );
  });

  try {
    const started = await begin();
    if (started.status === 'finished') settle({ summary: started, how: 'finished' });
    if (started.status === 'failed') settle({ summary: started, how: 'failed' });
    const { summary, how } = await ended;
    if (tty && !cmd.quiet) io.stdout.write('\n');
    io.stdout.write(formatSummary(summary) + '\n');
    if (how === 'paused') {
      const dirArg = cmd.stateDir === defaultStateDir() ? '' : ` --state-dir ${JSON.stringify(cmd.stateDir)}`;
      io.stdout.write(`Paused. Resume with: npm run crawl -- resume ${id}${dirArg}\n`);
      return 0;
    }
    if (how === 'failed') {
      const why = summary.error ? `${summary.error.code}: ${summary.error.message}` : 'unknown reason';
      io.stderr.write(`spinneret: the crawl failed — ${why}\n`);
      return 1;
    }
    if (cmd.out) {
      const rows = await exportTo(service, id, cmd.out);
      io.stdout.write(`Wrote ${rows} rows to ${cmd.out}.\n`);
    }
    return 0;
  } finally {
    offProgress();
    offFinished();
    offFailed();
    offInterrupt();
  }
}

/** Process entry point: real stdio; Ctrl-C (or SIGTERM) pauses, a second one quits at once (interrupts.ts). */
async function main(): Promise<void> {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  takeSignals(signals);
  const code = await runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    onInterrupt(handler) {
      return onPresses(signals, (n) => {
        if (n === 1) return handler();
        process.stderr.write('\nspinneret: quitting at once; a resume starts from the last saved progress.\n');
        process.exit(130);
      });
    },
  });
  process.exitCode = code;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    process.stderr.write(`spinneret: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
