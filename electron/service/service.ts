/**
 * createCrawlService: the CrawlService of the CLI, Electron main and browser mode. It owns the
 * catalog (KeyValueStore), each crawl's folder (meta.json + journal), the crawls loaded in memory
 * (CrawlRuntime), their crawlers, and the batched events.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import type {
  AuditFinding,
  CrawlCounters,
  CrawlLogEntry,
  CrawlSettings,
  CrawlSummary,
  FindingUrlPage,
  LinkDirection,
  LinkPage,
  PageStats,
  ProgressEvent,
  SitemapNode,
  UrlDetail,
  UrlPage,
  UrlQuery,
} from '../../shared/model.js';
import { emptyCounters, MAX_PAGE } from '../../shared/model.js';
import { Crawler, type HttpFetcher, type KeyValueStore } from '../engine/index.js';
import { Catalog, JOURNAL_FILE, type CatalogEntry } from './catalog/catalog.js';
import { openCatalogStore, type CatalogStoreFactory } from './catalog/store.js';
import { acquireCrawlLock, lockedError, lockHolder, type CrawlLock } from './catalog/crawl-lock.js';
import { CrawlRuntime, type CrawlerFactory, type CrawlerOutcome } from './crawl-runtime.js';
import { findingDefinition, findingsOf, withBadges } from './audit/crawl-audit.js';
import { createCsvWriter, createTableWriter } from './data/csv.js';
import { checkLinksExport, LINK_CSV_COLUMNS, linkCsvCells } from './data/links-csv.js';
import { ServiceError, toCrawlError } from './errors.js';
import type { JournalFaults } from './journal/writer.js';
import { ProgressBatcher, RateMeter } from './progress.js';
import { RecordReader } from './journal/reader.js';
import { describeLoss, isDamaged as journalDamaged } from './journal/salvage.js';
import { Rows } from './data/rows.js';
import { resolveSettings } from './catalog/settings.js';
import type { CrawlService, CrawlServiceEvents, LinksExport, NewCrawl, RecrawlOptions } from './types.js';
import type { Readable } from 'node:stream';
import type { CompareFilter, ComparePage, CompareQuery, CompareSummary } from '../../shared/model.js';
import type { PageLinkRow } from '../../shared/model.js';
import { IndexabilityReasonSchema } from '../../shared/contract.js';
import type { ViewFilter } from './data/url-views.js';
import { BaseIndex } from './recrawl/base-index.js';
import type { PreviousCrawlLookup } from './audit/types.js';
import { createRecrawlBase } from './recrawl/recrawl-base.js';
import { recrawlInput } from './recrawl/recrawl-input.js';
import { Comparisons } from './compare/comparisons.js';
import { firstRunAt, Scheduler, type SchedulerOptions } from './schedule.js';
import { LIST_FILE, readListFile, writeListFile, type ParsedList } from './list-file.js';
import { CRAWL_FILE_EXTENSION, crawlFileParts, importedEntry, readCrawlFile, writeCrawlFile } from './crawl-file.js';

export interface CrawlServiceOptions {
  /** Where crawl folders (and, by default, catalog.json) live. */
  stateDir: string;
  /** A ready catalog store (tests); skips the corrupt-file recovery. */
  store?: KeyValueStore;
  /** Opens the catalog store at <stateDir>/catalog.json: electron-store in the app; default conf. */
  createStore?: CatalogStoreFactory;
  now?(): number;
  /** Builds the crawler (tests pass fakes); default: the engine's Crawler. */
  crawlerFactory?: CrawlerFactory;
  /** HTTP fetcher for every crawl (tests); default: each crawler builds its own from its settings. */
  fetcher?: HttpFetcher;
  /** Test seam for journal write faults (disk full, …). */
  faults?: JournalFaults;
  /** Crawls kept loaded in memory while idle (each costs its queue and columns). Default 2. */
  maxIdleLoaded?: number;
  /** Called after a checkpoint is stored in the catalog (tests that kill right after one). */
  onCheckpoint?(crawlId: string, position: number): void;
  /** How often a running crawl's checkpoint and counters are copied to the catalog. Default 5000 ms. */
  checkpointIntervalMs?: number;
  /**
   * Scheduled recrawls (schedule.ts): on unless false (the CLI: a short-lived process must not start
   * them). `recrawl` replaces the service's own for tests.
   */
  scheduler?: false | (SchedulerOptions & { recrawl?(id: string, opts: RecrawlOptions): Promise<CrawlSummary> });
}

/** CrawlService plus what only in-process callers need. */
export interface LocalCrawlService extends CrawlService {
  /** Warnings raised so far outside any one crawl (catalog rebuilt, crawl restored from its folder, …). */
  warnings(): CrawlLogEntry[];
  readonly stateDir: string;
}

interface Live {
  runtime: CrawlRuntime;
  /** Settles the status when the current run ends. */
  run: Promise<void> | null;
  /** Held while it runs: no other process writes the crawl meanwhile. */
  lock: CrawlLock | null;
  progress: ProgressBatcher<ProgressEvent>;
  rate: RateMeter;
  lastRate: number;
  cpTimer: NodeJS.Timeout | null;
  cpBusy: Promise<void> | null;
  /** When the checkpoint was last copied to the catalog. */
  cpStoredAt: number;
  lastUsed: number;
  lastVersion: number;
  lastInFlight: number;
  lastStatus: string;
}

const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** Links read per call while one URL's links are exported (bounds the memory: ~200 bytes a row). */
const LINKS_EXPORT_PAGE = 10_000;

/** Creates the service over `stateDir`; see CrawlServiceOptions. */
export function createCrawlService(opts: CrawlServiceOptions): LocalCrawlService {
  return new Service(opts);
}

class Service implements LocalCrawlService {
  readonly stateDir: string;
  private readonly catalog: Catalog;
  private readonly events = new EventEmitter();
  private readonly live = new Map<string, Live>();
  /** Crawls whose journal could not be replayed: id → why. */
  private readonly broken = new Map<string, string>();
  /** Starts and resumes under way (a second one while the first takes the lock and loads gets the same answer). */
  private readonly launching = new Map<string, Promise<CrawlSummary>>();
  private readonly startup: CrawlLogEntry[] = [];
  private readonly now: () => number;
  private readonly crawlerFactory: CrawlerFactory;
  private closed = false;
  private closing: Promise<void> | null = null;
  /** Recrawls running now: their base index (recrawl/base-index.ts), by the recrawl's id. */
  private readonly bases = new Map<string, BaseIndex>();
  /** Recrawls the scheduler started (recrawlFinished says so); not persisted. */
  private readonly scheduledRecrawls = new Set<string>();
  private readonly comparisons: Comparisons;
  private readonly scheduler: Scheduler | null;

  constructor(private readonly opts: CrawlServiceOptions) {
    this.stateDir = path.resolve(opts.stateDir);
    this.now = opts.now ?? Date.now;
    this.crawlerFactory = opts.crawlerFactory ?? ((o) => new Crawler(o));
    this.events.setMaxListeners(0);
    let store = opts.store;
    if (!store) {
      const opened = openCatalogStore(this.stateDir, opts.createStore);
      store = opened.store;
      if (opened.movedAside) {
        this.warn({
          level: 'warning',
          code: 'CATALOG_CORRUPT',
          message: `The crawl catalog could not be read (${opened.movedAside.reason}); it was moved to ${opened.movedAside.path} and rebuilt from the crawl folders.`,
        });
      }
    }
    this.catalog = new Catalog(store, this.stateDir, (w) => this.warn(w));
    this.catalog.load();
    // A crawl still marked running was interrupted (the app quit or was killed): it can be resumed.
    // Unless another process runs it right now (the app and the CLI may share a state folder).
    for (const e of this.catalog.all()) {
      if (e.status === 'running' && !lockHolder(this.catalog.dirOf(e.id))) {
        this.catalog.put({
          ...endRun(e, e.updatedAt),
          status: 'paused',
          updatedAt: this.now(),
          error: { code: 'INTERRUPTED', message: 'Spinneret stopped while this crawl was running; resume it to continue where it was.' },
        });
      }
    }
    // Listeners attach after construction: tell them about startup warnings on the next turn.
    if (this.startup.length) setImmediate(() => this.startup.forEach((w) => this.events.emit('warning', w)));
    this.comparisons = this.makeComparisons();
    this.scheduler = opts.scheduler === false ? null : this.makeScheduler(opts.scheduler ?? {});
    this.scheduler?.start();
  }

  warnings(): CrawlLogEntry[] {
    return [...this.startup];
  }

  // ---------------------------------------------------------------- catalog

  list(): CrawlSummary[] {
    return this.catalog
      .all()
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((e) => this.summary(e));
  }

  get(id: string): CrawlSummary {
    return this.summary(this.entry(id));
  }

  create(input: NewCrawl): CrawlSummary {
    this.open();
    if (!input || typeof input !== 'object' || !input.settings || typeof input.settings !== 'object') {
      throw new ServiceError('BAD_SETTINGS', 'A new crawl needs settings with at least a start URL or a sitemap URL.');
    }
    const listMode = input.list !== undefined || input.settings.mode === 'list';
    // List mode: the list is checked (and stored) before the crawl exists; its settings need its first URL.
    let settings = listMode ? null : resolveSettings(this.catalog.defaults(), input.settings);
    const id = this.newId();
    const at = this.now();
    try {
      fs.mkdirSync(this.catalog.dirOf(id), { recursive: true });
    } catch (err) {
      throw new ServiceError('JOURNAL_WRITE_FAILED', `Could not create the crawl folder ${this.catalog.dirOf(id)}: ${(err as Error).message}`);
    }
    let listed: ParsedList | undefined;
    if (listMode) {
      try {
        ({ settings, listed } = this.listCrawlSettings(input, this.catalog.dirOf(id)));
      } catch (err) {
        fs.rmSync(this.catalog.dirOf(id), { recursive: true, force: true });
        throw err;
      }
    }
    if (!settings) throw new ServiceError('BAD_SETTINGS', 'A new crawl needs settings.');
    const name = typeof input.name === 'string' && input.name.trim() ? input.name.trim().slice(0, 200) : defaultName(settings);
    const entry: CatalogEntry = {
      id,
      name,
      settings,
      status: 'created',
      counters: emptyCounters(),
      createdAt: at,
      updatedAt: at,
    };
    if (listed) entry.listSize = listed.size;
    this.catalog.put(entry);
    return this.summary(entry);
  }

  /**
   * List mode: stores the list (list-file.ts; BAD_LIST when a line is no URL) and settles the settings:
   * mode 'list', the list's first URL as start URL unless one is given, links not followed unless asked.
   */
  private listCrawlSettings(input: NewCrawl, dir: string): { settings: CrawlSettings; listed: ParsedList } {
    if (input.settings.mode === 'spider') {
      throw new ServiceError('BAD_SETTINGS', 'Setting "mode" is "spider" but a URL list was given: set mode "list" to crawl the list.');
    }
    const list = input.list;
    if (list === undefined || (typeof list !== 'string' && (!list || typeof list.path !== 'string'))) {
      throw new ServiceError(
        'BAD_LIST',
        'A list crawl needs its URLs: paste them one a line, or give a file (a .txt of URLs, or a CSV whose first column holds them).',
      );
    }
    const listed = writeListFile(list, dir);
    const settings = resolveSettings(this.catalog.defaults(), {
      ...input.settings,
      mode: 'list',
      startUrl: input.settings.startUrl || listed.first,
      followLinks: input.settings.followLinks ?? false,
    });
    return { settings, listed };
  }

  /** The engine's crawler for a crawl: a list crawl's reads its list from the crawl's folder each run. */
  private crawlerFactoryFor(e: CatalogEntry): CrawlerFactory {
    if (e.settings.mode !== 'list') return this.crawlerFactory;
    const dir = this.catalog.dirOf(e.id);
    return (o) => this.crawlerFactory({ ...o, list: () => readListFile(dir) });
  }

  rename(id: string, name: string): CrawlSummary {
    this.open();
    const e = this.entry(id);
    if (typeof name !== 'string' || !name.trim()) throw new ServiceError('BAD_SETTINGS', 'Setting "name" must not be empty.');
    const next = { ...e, name: name.trim().slice(0, 200), updatedAt: this.now() };
    this.catalog.put(next);
    return this.summary(next);
  }

  getDefaults(): CrawlSettings {
    return this.catalog.defaults();
  }

  setDefaults(patch: Partial<CrawlSettings>): CrawlSettings {
    this.open();
    if (!patch || typeof patch !== 'object') throw new ServiceError('BAD_SETTINGS', 'Defaults must be an object of crawl settings.');
    const { startUrl: _s, sitemapUrls: _m, ...rest } = patch;
    // Validated as a crawl would be: a start URL is needed there, but is no default.
    const merged = resolveSettings({ ...this.catalog.defaults(), startUrl: 'http://defaults.invalid/' }, rest);
    const saved: CrawlSettings = { ...merged, startUrl: '', sitemapUrls: [] };
    this.catalog.setDefaults(saved);
    return saved;
  }

  on<E extends keyof CrawlServiceEvents>(event: E, listener: CrawlServiceEvents[E]): () => void {
    this.events.on(event, listener as (...a: unknown[]) => void);
    return () => this.events.off(event, listener as (...a: unknown[]) => void);
  }

  // ---------------------------------------------------------------- lifecycle

  async start(id: string): Promise<CrawlSummary> {
    this.open();
    const e = this.entry(id);
    if (e.status === 'running' && this.live.get(id)?.run) return this.summary(e);
    if (e.status !== 'created' && e.status !== 'running') {
      throw new ServiceError(
        'BAD_STATE',
        `Crawl "${e.name}" has already been started (it is ${e.status}); ${e.status === 'paused' ? 'resume it instead' : 'create a new crawl to crawl again'}.`,
      );
    }
    return this.launch(e);
  }

  async resume(id: string): Promise<CrawlSummary> {
    this.open();
    const e = this.entry(id);
    // Marked running but not running here: another process runs it (launch says so), or ran it and died.
    if (e.status === 'running' && this.live.get(id)?.run) return this.summary(e);
    if (e.status === 'finished' || e.status === 'failed') {
      throw new ServiceError('BAD_STATE', `Crawl "${e.name}" is ${e.status} and cannot be resumed; create a new crawl to crawl again.`);
    }
    return this.launch(e);
  }

  async pause(id: string): Promise<CrawlSummary> {
    this.open();
    const e = this.entry(id);
    const l = this.live.get(id);
    if (e.status === 'running' && l?.run) {
      await l.runtime.pause();
      await l.run;
      return this.get(id);
    }
    if (e.status === 'paused') return this.summary(e);
    if (e.status === 'running' && !l?.run) {
      // Running in another process (pause it there), or in one that has ended since: as stored now.
      const owner = lockHolder(this.catalog.dirOf(id));
      if (owner) throw lockedError(e, owner);
      const now = this.catalog.refresh(id) ?? e;
      if (now.status !== 'running') return this.summary(now);
      const next: CatalogEntry = {
        ...endRun(now, now.updatedAt),
        status: 'paused',
        updatedAt: this.now(),
        error: { code: 'INTERRUPTED', message: 'The process running this crawl stopped; resume it to continue where it was.' },
      };
      this.catalog.put(next);
      return this.summary(next);
    }
    throw new ServiceError('BAD_STATE', `Crawl "${e.name}" is ${e.status}: only a running crawl can be paused.`);
  }

  async stop(id: string): Promise<CrawlSummary> {
    this.open();
    const e = this.entry(id);
    const l = this.live.get(id);
    if (e.status === 'running' && l?.run) {
      await l.runtime.stop();
      await l.run;
      return this.get(id);
    }
    if (e.status === 'finished' || e.status === 'failed') return this.summary(e);
    // Paused or never started: it ends with what it has (unless another process runs it).
    const lock = this.lockIfPresent(e);
    if (l) await l.runtime.stop().catch(() => undefined);
    const at = this.now();
    const next: CatalogEntry = { ...e, status: 'finished', finishedAt: at, updatedAt: at };
    if (e.status === 'created' || hasWorkLeft(e.counters)) next.stopped = true;
    delete next.error;
    this.catalog.put(next);
    lock?.release();
    const s = this.summary(next);
    if (l) this.releaseBase(id, l);
    this.events.emit('finished', s);
    // A recrawl stopped while paused ends too: its comparison follows, as when it finishes running.
    if (next.baseId) void this.recrawlFinished(s, next.baseId);
    return s;
  }

  async delete(id: string): Promise<void> {
    const e = this.entry(id);
    const l = this.live.get(id);
    if (l) {
      if (l.run) {
        await l.runtime.stop();
        await l.run;
      }
      await this.unload(id);
    }
    const lock = this.lockIfPresent(e);
    try {
      this.broken.delete(id);
      await fs.promises.rm(this.catalog.dirOf(e.id), { recursive: true, force: true });
      this.catalog.remove(id);
    } finally {
      lock?.release();
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      this.scheduler?.stop();
      const running = [...this.live.entries()].filter(([, l]) => l.run);
      await Promise.all(
        running.map(async ([, l]) => {
          await l.runtime.pause().catch(() => undefined);
          await l.run;
        }),
      );
      for (const id of [...this.live.keys()]) await this.unload(id);
    })();
    return this.closing;
  }

  // ---------------------------------------------------------------- data

  queryUrls(id: string, query: UrlQuery): UrlPage {
    const rt = this.runtimeSync(id);
    if (!query || typeof query !== 'object') throw new ServiceError('BAD_QUERY', 'A URL query needs offset and limit.');
    const { total, ids } = rt.views.page(query);
    return { total, rows: ids.map((i) => rt.rows.row(i)) };
  }

  getUrl(id: string, urlId: number): UrlDetail {
    const rt = this.runtimeSync(id);
    if (!Number.isInteger(urlId) || urlId < 0 || urlId >= rt.data.store.count) {
      throw new ServiceError('NOT_FOUND', `No URL #${urlId} in this crawl (it has ${rt.data.store.count}).`);
    }
    const detail = rt.rows.detail(urlId);
    detail.findings = rt.data.audit.codesOf(urlId);
    return detail;
  }

  sitemapTree(id: string, parentId: string | null): SitemapNode[] {
    const rt = this.runtimeSync(id);
    if (parentId !== null && !rt.data.tree.has(parentId)) throw new ServiceError('NOT_FOUND', `No sitemap "${parentId}" in this crawl's tree.`);
    return rt.data.tree.childrenOf(parentId).map((n) => withBadges(rt.data.audit, n));
  }

  log(id: string, offset: number, limit: number): { total: number; rows: CrawlLogEntry[] } {
    const rt = this.runtimeSync(id);
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 0 || limit > MAX_PAGE) {
      throw new ServiceError('BAD_QUERY', `offset must be a whole number ≥ 0 and limit between 0 and ${MAX_PAGE}.`);
    }
    const offs = rt.data.logOffsets;
    const rows: CrawlLogEntry[] = [];
    for (let i = offset; i < Math.min(offs.length, offset + limit); i++) {
      const entry = rt.rows.logAt(offs[i]!);
      if (entry) rows.push(entry);
    }
    return { total: offs.length, rows };
  }

  getFindings(id: string): AuditFinding[] {
    const rt = this.runtimeSync(id);
    rt.checkAudit();
    const findings = findingsOf(rt.data.audit, this.entry(id).settings);
    return rt.auditComputing() ? findings.map((f) => ({ ...f, computing: true })) : findings;
  }

  async auditReady(id: string): Promise<void> {
    const rt = await this.runtime(id);
    await rt.auditReady();
  }

  findingUrls(id: string, code: string, offset: number, limit: number): FindingUrlPage {
    const rt = this.runtimeSync(id);
    const d = findingDefinition(code);
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 0 || limit > MAX_PAGE) {
      throw new ServiceError('BAD_QUERY', `offset must be a whole number ≥ 0 and limit between 0 and ${MAX_PAGE}.`);
    }
    rt.checkAudit();
    const audit = rt.data.audit;
    if (!audit.finding(d.code).measured) return { total: 0, urls: [] };
    const members = audit.urlsOf(d.code);
    const page = members.slice(offset, offset + limit);
    const urls = d.subject === 'sitemap' ? (page as string[]) : (page as number[]).map((i) => rt.data.queue.get(i)!.url);
    return { total: members.length, urls };
  }

  async exportCsv(id: string, out: Writable, filter?: Omit<UrlQuery, 'offset' | 'limit'>): Promise<{ rows: number }> {
    const rt = await this.runtime(id);
    // A file filtered by a finding (or by the audit's verdicts: indexability, meta description, H1)
    // holds all of its URLs: wait for a reopened crawl's audit.
    const f = filter ?? {};
    const verdicts = f.indexability !== undefined || f.indexabilityReasons !== undefined || f.metaDescription !== undefined || f.h1 !== undefined;
    const sortedByVerdict = f.sort?.key === 'indexability' || f.sort?.key === 'indexabilityReason';
    if (f.finding !== undefined || verdicts || sortedByVerdict) await rt.auditReady();
    // Unsorted, a duplicate finding's URLs come group by group (the view follows the finding's order).
    const ids = rt.views.all((filter ?? {}) as ViewFilter);
    // Own readers with big windows: entries and results each stream through the journal in order.
    const entryReader = new RecordReader(rt.journalPath, 1 << 20);
    const resultReader = new RecordReader(rt.journalPath, 1 << 20);
    entryReader.writer = rt.reader.writer;
    resultReader.writer = rt.reader.writer;
    const rows = new Rows(rt.data, entryReader, resultReader);
    const csv = createCsvWriter(out);
    try {
      for (let i = 0; i < ids.length; i++) {
        const wait = csv.write(rows.record(ids[i]!));
        if (wait) await wait;
        // Keep the event loop turning on a long export to a fast sink.
        if ((i & 4095) === 4095) await new Promise<void>((r) => setImmediate(r));
      }
      await csv.end();
    } finally {
      entryReader.close();
      resultReader.close();
    }
    return { rows: ids.length };
  }

  async getLinks(id: string, urlId: number, direction: LinkDirection, offset: number, limit: number): Promise<LinkPage> {
    const rt = await this.runtime(id);
    this.checkUrlId(rt, urlId);
    checkDirection(direction);
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 0 || limit > MAX_PAGE) {
      throw new ServiceError('BAD_QUERY', `offset must be a whole number ≥ 0 and limit between 0 and ${MAX_PAGE}.`);
    }
    return rt.links(urlId, direction, offset, limit);
  }

  async exportLinks(id: string, out: Writable, opts: LinksExport = {}): Promise<{ rows: number }> {
    const rt = await this.runtime(id);
    const { urlId, direction, finding } = opts ?? {};
    checkLinksExport(opts ?? {});
    if (urlId !== undefined) this.checkUrlId(rt, urlId);
    if (direction !== undefined) checkDirection(direction);
    const csv = createTableWriter<PageLinkRow>(out, LINK_CSV_COLUMNS, linkCsvCells);
    const put = async (link: PageLinkRow) => {
      const wait = csv.write(link);
      if (wait) await wait;
    };
    if (finding !== undefined) {
      // The finding's URLs as the audit holds them once it is complete (a reopened crawl's is rebuilt).
      await rt.auditReady();
      const audit = rt.data.audit;
      for await (const link of rt.eachLink((to) => audit.has(finding, to))) await put(link);
    } else if (urlId === undefined) {
      for await (const link of rt.eachLink()) await put(link);
    } else {
      // A page at a time: one URL's inlinks may be many (a page every other page links to).
      const dir = direction ?? 'in';
      for (let offset = 0; ;) {
        const page = await rt.links(urlId, dir, offset, LINKS_EXPORT_PAGE);
        for (const link of page.rows) await put(link);
        offset += page.rows.length;
        if (page.rows.length === 0 || offset >= page.total) break;
      }
    }
    await csv.end();
    return { rows: csv.rows };
  }

  async getPageStats(id: string): Promise<PageStats> {
    const rt = await this.runtime(id);
    // Counted from the audit's verdicts: a reopened crawl's are complete once its audit is rebuilt.
    await rt.auditReady();
    const { audit, links, store } = rt.data;
    const reasons = new Map(IndexabilityReasonSchema.options.map((r) => [r, 0] as [string, number]));
    const depths: number[] = [];
    let indexable = 0;
    let noClickDepth = 0;
    for (let i = 0; i < store.count; i++) {
      const v = audit.indexability(i);
      if (v?.indexability === 'indexable') indexable++;
      else if (v?.reason !== undefined) reasons.set(v.reason, reasons.get(v.reason)! + 1);
      const d = links.clickDepth(i);
      if (d === undefined) noClickDepth++;
      else {
        while (depths.length <= d) depths.push(0);
        depths[d]!++;
      }
    }
    return {
      indexable,
      nonIndexable: IndexabilityReasonSchema.options.map((reason) => ({ reason, count: reasons.get(reason)! })),
      clickDepth: depths,
      noClickDepth,
    };
  }

  // ------------------------------------------------------------------ issue 23
  // Each method below belongs to one piece of the work: recrawl (recrawl/), compare and schedule
  // (compare/, schedule), crawl files (crawl-file). Keep the bodies here thin.

  async recrawl(id: string, opts: RecrawlOptions = {}): Promise<CrawlSummary> {
    this.open();
    const base = this.entry(id);
    if (base.status === 'running' || this.launching.has(id)) {
      throw new ServiceError('NOT_READY', `Crawl "${base.name}" is running: recrawl it once it has finished (or pause it first).`);
    }
    if (base.status === 'created') {
      throw new ServiceError('BAD_STATE', `Crawl "${base.name}" has not been started: there is nothing to recrawl from yet; start it instead.`);
    }
    if (this.isDamaged(base)) throw new ServiceError('DAMAGED', this.damagedMessage(base));
    if (base.settingsLost) {
      throw new ServiceError('SETTINGS_LOST', `Crawl "${base.name}" cannot be recrawled: its settings were lost; start a new crawl of the site instead.`);
    }
    const created = this.create(recrawlInput(base, this.catalog.dirOf(base.id)));
    const entry: CatalogEntry = { ...this.entry(created.id), baseId: base.id, changedOnly: opts.changedOnly === true };
    this.catalog.put(entry);
    if (opts.scheduled) this.scheduledRecrawls.add(entry.id);
    return this.start(entry.id);
  }

  /**
   * A recrawl about to run: its base index, rebuilt from the base's folder on every launch (a resume
   * too). A base deleted meanwhile is BASE_MISSING: said in the crawl's log, and it runs without one.
   * Returns the message to log, if any.
   */
  private async prepareRecrawl(e: CatalogEntry, l: Live): Promise<string | undefined> {
    if (!e.baseId || l.runtime.recrawl) return undefined;
    const journal = path.join(this.catalog.dirOf(e.baseId), JOURNAL_FILE);
    let index: BaseIndex;
    try {
      // The audit may have read it first (previousOf).
      index = this.bases.get(e.id) ?? (await BaseIndex.build(journal));
    } catch (err) {
      const why = (err as NodeJS.ErrnoException)?.code === 'ENOENT' ? 'its folder or journal is gone' : toCrawlError(err, 'BASE_UNREADABLE').message;
      return `The crawl this one recrawls (${e.baseId}) cannot be read (${why}): it goes on as a plain crawl, without conditional requests or carried-over results.`;
    }
    const raced = this.bases.get(e.id);
    if (raced && raced !== index) {
      index.close();
      index = raced;
    }
    this.bases.set(e.id, index);
    const rt = l.runtime;
    const { queue, store } = rt.data;
    rt.recrawl = createRecrawlBase({
      index,
      changedOnly: e.changedOnly === true,
      lastmodOf: (key) => {
        const id = queue.idOf(key);
        return id === undefined || store.smFirst[id] === 0 ? undefined : store.lastmodOf(id);
      },
    });
    return undefined;
  }

  /**
   * A recrawl being loaded: its base index built before its journal is replayed, yielding as it reads,
   * so the audit's first look at the base (previousOf) does not read a million URLs in one go. A base
   * that cannot be read is left to previousOf and prepareRecrawl, which say so.
   */
  private async warmBase(e: CatalogEntry): Promise<void> {
    if (e.baseId === undefined || this.bases.has(e.id)) return;
    const journal = path.join(this.catalog.dirOf(e.baseId), JOURNAL_FILE);
    if (!fs.existsSync(journal)) return;
    try {
      const index = await BaseIndex.build(journal);
      if (this.bases.has(e.id)) index.close();
      else this.bases.set(e.id, index);
    } catch {
      // reported where it is needed
    }
  }

  /**
   * A recrawl's audit: the base's lastmods and content hashes (the base index's), by uniqueKey, read
   * on first use (also for a recrawl reopened to be viewed); none when the base's journal is gone.
   */
  private previousOf(e: CatalogEntry): { previous?: PreviousCrawlLookup } {
    const baseId = e.baseId;
    if (baseId === undefined) return {};
    const journal = path.join(this.catalog.dirOf(baseId), JOURNAL_FILE);
    if (!fs.existsSync(journal)) return {};
    let index: BaseIndex | null = null;
    let baseFailed: { message: string } | undefined;
    return {
      previous: (key) => {
        if (baseFailed) return undefined;
        if (!index) {
          index = this.bases.get(e.id) ?? null;
          if (!index) {
            try {
              index = BaseIndex.buildSync(journal);
            } catch (err) {
              // Said once (not retried per URL): the cross-crawl lastmod findings then have no previous facts.
              baseFailed = toCrawlError(err, 'BASE_UNREADABLE');
              this.warn({
                level: 'warning',
                code: 'BASE_UNREADABLE',
                message: `Recrawl ${e.id}: its base crawl ${baseId} cannot be read (${baseFailed.message}); the lastmod findings that compare with it are incomplete.`,
              });
              return undefined;
            }
            this.bases.set(e.id, index);
          }
        }
        return index.previous(key);
      },
    };
  }

  /** A recrawl finished: its comparison with its base (when compare can make one), then recrawlFinished. */
  private async recrawlFinished(s: CrawlSummary, baseId: string): Promise<void> {
    const scheduled = this.scheduledRecrawls.delete(s.id);
    let worse: string[] = [];
    try {
      worse = (await this.compare(baseId, s.id)).worse;
    } catch (err) {
      const e = toCrawlError(err, 'COMPARE_FAILED');
      this.warn({
        level: 'warning',
        code: e.code === 'NOT_IMPLEMENTED' ? 'COMPARE_UNAVAILABLE' : e.code,
        message: `Recrawl ${s.id} finished, but its comparison with ${baseId} could not be made (${e.message}); no finding is reported worse.`,
      });
    }
    this.events.emit('recrawlFinished', { crawl: this.summaryOf(s.id) ?? s, baseId, scheduled, worse });
  }

  /** The summary of a crawl still in the catalog. */
  private summaryOf(id: string): CrawlSummary | undefined {
    const e = this.catalog.get(id);
    return e ? this.summary(e) : undefined;
  }

  async compare(oldId: string, newId: string): Promise<CompareSummary> {
    this.open();
    return this.comparisons.summary(oldId, newId);
  }

  async compareRows(oldId: string, newId: string, query: CompareQuery): Promise<ComparePage> {
    this.open();
    return this.comparisons.rows(oldId, newId, query);
  }

  async exportCompare(oldId: string, newId: string, out: Writable, filter?: CompareFilter): Promise<{ rows: number }> {
    this.open();
    return this.comparisons.exportCsv(oldId, newId, out, filter);
  }

  setSchedule(id: string, every: 'daily' | 'weekly' | null, changedOnly?: boolean): CrawlSummary {
    this.open();
    const e = this.entry(id);
    if (every !== null && every !== 'daily' && every !== 'weekly') {
      throw new ServiceError('BAD_SETTINGS', `A schedule runs "daily" or "weekly" (or null for none), not "${String(every)}".`);
    }
    if (changedOnly !== undefined && typeof changedOnly !== 'boolean') throw new ServiceError('BAD_SETTINGS', 'changedOnly must be true or false.');
    // As stored now: another process may be running the crawl and writing its status and counters.
    const cur = this.live.get(id)?.run ? e : (this.catalog.refresh(id) ?? e);
    const next: CatalogEntry = { ...cur, updatedAt: this.now() };
    if (every === null) delete next.schedule;
    else {
      const was = cur.schedule;
      // Same period: the next run keeps its time; another period starts counting from now.
      next.schedule = {
        every,
        nextAt: was?.every === every ? was.nextAt : firstRunAt(every, this.now()),
        changedOnly: changedOnly ?? was?.changedOnly ?? false,
      };
      if (was?.lastRunId !== undefined) next.schedule.lastRunId = was.lastRunId;
    }
    this.catalog.put(next);
    return this.summary(next);
  }

  /** The comparisons, over crawls that are loaded, not running, their audits complete. */
  private makeComparisons(): Comparisons {
    return new Comparisons({
      open: async (id) => {
        const e = this.entry(id);
        if (e.status === 'running') throw new ServiceError('BAD_STATE', `Crawl "${e.name}" is running: compare it once it is paused or finished.`);
        if (e.status === 'created') throw new ServiceError('BAD_STATE', `Crawl "${e.name}" has not been started: there is nothing to compare yet.`);
        const rt = await this.runtime(id);
        await rt.auditReady();
        return {
          id,
          name: e.name,
          settings: e.settings,
          data: rt.data,
          journalPath: rt.journalPath,
          writer: rt.reader.writer,
          findings: findingsOf(rt.data.audit, e.settings),
          // As the tree serves them: lastmodTrust is the audit's, set on a copy.
          nodes: () => rt.data.tree.all().map((n) => withBadges(rt.data.audit, n)),
        };
      },
      dirOf: (id) => this.catalog.dirOf(id),
      warn: (message) => this.warn({ level: 'warning', code: 'COMPARE', message }),
      now: () => this.now(),
    });
  }

  /** The recrawl scheduler (schedule.ts) over this catalog. */
  private makeScheduler(o: SchedulerOptions & { recrawl?(id: string, opts: RecrawlOptions): Promise<CrawlSummary> }): Scheduler {
    return new Scheduler(
      {
        entries: () => this.catalog.all(),
        refresh: (id) => this.catalog.refresh(id),
        put: (entry) => this.catalog.put(entry),
        // As stored now: the last run may be crawling in another process.
        status: (id) => (this.catalog.refresh(id) ?? this.catalog.get(id))?.status,
        recrawl: (id, ro) => (o.recrawl ? o.recrawl(id, ro) : this.recrawl(id, ro)),
        warn: (message) => this.warn({ level: 'warning', code: 'SCHEDULE', message }),
        now: () => this.now(),
      },
      o,
    );
  }

  async exportCrawlFile(id: string, out: Writable): Promise<{ bytes: number }> {
    this.open();
    const e = this.entry(id);
    if (this.live.get(id)?.run || this.launching.has(id)) {
      throw new ServiceError('NOT_READY', `Crawl "${e.name}" is running: pause it, or let it finish, then save it as a file.`);
    }
    if (this.isDamaged(e)) throw new ServiceError('DAMAGED', this.damagedMessage(e));
    // Locked while it is read: nobody (this process or another) resumes it meanwhile.
    const lock = this.lockIfPresent(e);
    try {
      const dir = this.catalog.dirOf(id);
      const { checkpoint: _cp, settingsLost: _lost, schedule: _schedule, ...kept } = e;
      const l = this.live.get(id);
      return await writeCrawlFile({ ...kept, counters: l ? l.runtime.counters() : e.counters }, dir, crawlFileParts(dir), out);
    } finally {
      lock?.release();
    }
  }

  async importCrawlFile(input: Readable, fileName: string): Promise<CrawlSummary> {
    this.open();
    const staging = path.join(this.stateDir, 'importing', `${process.pid}-${randomBytes(6).toString('hex')}`);
    fs.mkdirSync(staging, { recursive: true });
    try {
      const opened = await readCrawlFile(input, staging);
      const at = this.now();
      const entry = importedEntry(opened.entry, { at, file: path.basename(String(fileName || 'crawl' + CRAWL_FILE_EXTENSION)) });
      if (entry.settings.mode === 'list' && !opened.files.includes(LIST_FILE)) {
        throw new ServiceError('BAD_CRAWL_FILE', `The crawl file is damaged: "${entry.name}" is a list crawl but the file holds no URL list.`);
      }
      if (entry.status !== 'created' && !opened.files.includes(JOURNAL_FILE)) {
        throw new ServiceError('BAD_CRAWL_FILE', `The crawl file is damaged: "${entry.name}" was ${entry.status} but the file holds no journal.`);
      }
      // The journal is replayed as opening the crawl would: one that cannot be, or is damaged, is refused.
      let counters = entry.counters;
      if (opened.files.includes(JOURNAL_FILE)) {
        let rt: CrawlRuntime;
        try {
          rt = await CrawlRuntime.load({ ...this.runtimeOptions(entry), dir: staging, onWriteFailure: () => undefined });
        } catch (err) {
          throw new ServiceError('BAD_CRAWL_FILE', `The crawl file's journal cannot be replayed: ${toCrawlError(err, 'DAMAGED').message}`, { cause: err });
        }
        const stats = rt.replayStats;
        counters = rt.counters();
        rt.close();
        if (stats && stats.batches === 0 && stats.droppedBytes > 0) {
          throw new ServiceError(
            'BAD_CRAWL_FILE',
            `The crawl file's journal holds no complete record (${stats.droppedBytes} bytes of something else): it is not a Spinneret journal.`,
          );
        }
        if (stats && (journalDamaged(stats.salvage) || stats.badLines > 0)) {
          throw new ServiceError(
            'BAD_CRAWL_FILE',
            `The crawl file's journal is damaged: ${describeLoss(stats.salvage)} It was saved from a damaged crawl; nothing was opened.`,
          );
        }
      }
      const id = this.newId();
      fs.mkdirSync(this.catalog.crawlsDir, { recursive: true });
      fs.renameSync(staging, this.catalog.dirOf(id));
      const next: CatalogEntry = { ...entry, id, counters, updatedAt: at };
      if (next.baseId !== undefined && !this.catalog.get(next.baseId)) delete next.baseId;
      this.catalog.put(next);
      return this.summary(next);
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
      try {
        fs.rmdirSync(path.dirname(staging)); // when no other import is under way
      } catch {
        // not empty
      }
    }
  }

  /** NOT_FOUND unless the crawl holds URL #urlId (as getUrl says). */
  private checkUrlId(rt: CrawlRuntime, urlId: number): void {
    if (!Number.isInteger(urlId) || urlId < 0 || urlId >= rt.data.store.count) {
      throw new ServiceError('NOT_FOUND', `No URL #${urlId} in this crawl (it has ${rt.data.store.count}).`);
    }
  }

  // ---------------------------------------------------------------- running

  private async launch(e: CatalogEntry): Promise<CrawlSummary> {
    if (this.isDamaged(e)) throw new ServiceError('DAMAGED', this.damagedMessage(e));
    if (e.settingsLost) {
      throw new ServiceError(
        'SETTINGS_LOST',
        `Crawl "${e.name}" cannot run: its settings were lost with its catalog entry and meta.json, so what to crawl and how is not known. Export what it has, then start a new crawl of the site.`,
      );
    }
    if (this.live.get(e.id)?.run) return this.get(e.id);
    const busy = this.launching.get(e.id);
    if (busy) return busy;
    // One process writes a crawl at a time; what another one did before is read afresh.
    const lock = acquireCrawlLock(this.catalog.dirOf(e.id), e);
    const launched = this.launchLocked(e.id, lock).catch((err: unknown) => {
      lock.release();
      throw err;
    });
    this.launching.set(e.id, launched);
    try {
      return await launched;
    } finally {
      this.launching.delete(e.id);
    }
  }

  private async launchLocked(id: string, lock: CrawlLock): Promise<CrawlSummary> {
    const e = this.catalog.refresh(id) ?? this.entry(id);
    if (e.status === 'finished' || e.status === 'failed') {
      throw new ServiceError('BAD_STATE', `Crawl "${e.name}" is ${e.status} and cannot be resumed; create a new crawl to crawl again.`);
    }
    const loaded = this.live.get(id);
    if (loaded && !loaded.run && !loaded.runtime.inSyncWithDisk()) await this.unload(id);
    let l = await this.load(id, true);
    while (this.live.get(id) !== l) l = await this.load(id, true); // evicted meanwhile
    if (l.run) {
      lock.release();
      return this.get(id);
    }
    const baseMissing = await this.prepareRecrawl(e, l);
    const at = this.now();
    let outcome: Promise<CrawlerOutcome>;
    try {
      outcome = l.runtime.run();
      if (baseMissing) l.runtime.hooks.onLog!({ at, level: 'error', code: 'BASE_MISSING', message: baseMissing });
    } catch (err) {
      // The journal cannot be written: the crawl stays paused, with the reason.
      lock.release();
      const next: CatalogEntry = {
        ...this.entry(e.id),
        status: e.status === 'created' ? 'created' : 'paused',
        error: toCrawlError(err, 'JOURNAL_WRITE_FAILED'),
        updatedAt: at,
      };
      this.catalog.put(next);
      return this.summary(next);
    }
    const cur = this.entry(e.id);
    const next: CatalogEntry = { ...cur, status: 'running', startedAt: cur.startedAt ?? at, runningSince: at, updatedAt: at };
    delete next.error;
    delete next.finishedAt;
    this.catalog.put(next);
    l.rate.reset();
    l.progress.start();
    l.progress.push();
    const every = this.opts.checkpointIntervalMs ?? 5000;
    l.cpTimer = setInterval(() => void this.storeCheckpoint(e.id, l), every);
    l.lock = lock;
    l.run = outcome.then(
      (o) => this.settle(e.id, l, o),
      (err) => {
        l.runtime.crawlError = toCrawlError(err, 'CRAWL_FAILED');
        return this.settle(e.id, l, 'failed');
      },
    );
    return this.summary(next);
  }

  /** A run ended: checkpoint, status, events. */
  private async settle(id: string, l: Live, outcome: CrawlerOutcome): Promise<void> {
    if (l.cpTimer) clearInterval(l.cpTimer);
    l.cpTimer = null;
    if (l.cpBusy) await l.cpBusy;
    let cp = null;
    try {
      cp = await l.runtime.durableCheckpoint();
    } catch (err) {
      l.runtime.writeError ??= new ServiceError('JOURNAL_WRITE_FAILED', toCrawlError(err, 'JOURNAL_WRITE_FAILED').message);
    }
    const cur = this.catalog.get(id);
    l.run = null;
    l.progress.stop();
    const lock = l.lock;
    l.lock = null;
    if (!cur) return lock?.release(); // deleted meanwhile
    const at = this.now();
    const next: CatalogEntry = { ...endRun(cur, at), counters: l.runtime.counters(), updatedAt: at };
    if (l.runtime.data.siteUrl !== undefined) next.siteUrl = l.runtime.data.siteUrl;
    if (cp) next.checkpoint = cp;
    const writeError = l.runtime.writeError;
    if (writeError) {
      next.status = 'paused';
      next.error = { code: writeError.code, message: writeError.message };
    } else if (outcome === 'paused') {
      next.status = 'paused';
      delete next.error;
    } else if (outcome === 'failed') {
      next.status = 'failed';
      next.finishedAt = at;
      next.error = l.runtime.crawlError ?? { code: 'CRAWL_FAILED', message: 'The crawl failed.' };
    } else {
      next.status = 'finished';
      next.finishedAt = at;
      delete next.error;
      if (outcome === 'stopped' && hasWorkLeft(next.counters)) next.stopped = true;
    }
    this.catalog.put(next);
    lock?.release();
    if (cp) this.opts.onCheckpoint?.(id, cp.position);
    l.progress.push();
    const s = this.summary(next);
    if (next.status !== 'paused') this.releaseBase(id, l);
    if (next.status === 'finished') this.events.emit('finished', s);
    else if (next.status === 'failed') this.events.emit('failed', s);
    if (next.status === 'finished' && next.baseId) void this.recrawlFinished(s, next.baseId);
    this.evictIdle();
  }

  /** Copies a running crawl's checkpoint and counters to the catalog (after fsync). */
  private storeCheckpoint(id: string, l: Live): Promise<void> {
    if (l.cpBusy || !l.run) return l.cpBusy ?? Promise.resolve();
    // The catalog file is rewritten whole: a big checkpoint (thousands of sitemaps) is copied less
    // often. The journal has every checkpoint anyway; this copy is for the catalog's own view.
    const every = this.opts.checkpointIntervalMs ?? 5000;
    const factor = Math.max(1, Math.floor(l.runtime.checkpointBytes() / (256 * 1024)));
    if (this.now() - l.cpStoredAt < every * (factor - 0.5)) return Promise.resolve();
    l.cpBusy = (async () => {
      try {
        const cp = await l.runtime.durableCheckpoint();
        const cur = this.catalog.get(id);
        if (!cur || cur.status !== 'running') return;
        const next: CatalogEntry = { ...cur, counters: l.runtime.counters(), updatedAt: this.now() };
        if (cp) next.checkpoint = cp;
        this.catalog.put(next, { meta: false });
        l.cpStoredAt = this.now();
        if (cp) this.opts.onCheckpoint?.(id, cp.position);
      } catch {
        // A failing journal is reported through onWriteFailure; the next attempt comes with the timer.
      } finally {
        l.cpBusy = null;
      }
    })();
    return l.cpBusy;
  }

  private onWriteFailure(id: string, err: ServiceError): void {
    const cur = this.catalog.get(id);
    if (!cur) return;
    this.catalog.put({ ...cur, error: { code: err.code, message: err.message }, updatedAt: this.now() });
    const l = this.live.get(id);
    if (l?.run) void l.runtime.pause();
    l?.progress.push();
  }

  // ---------------------------------------------------------------- loading

  /** The crawl in memory, loaded when it is not; `repair` (its lock held) rewrites a damaged journal first. */
  private load(id: string, repair = false): Promise<Live> {
    const existing = this.live.get(id);
    if (existing && !(repair && existing.runtime.replayStats && journalDamaged(existing.runtime.replayStats.salvage))) {
      existing.lastUsed = this.now();
      return Promise.resolve(existing);
    }
    const e = this.entry(id);
    const unloaded = existing ? this.unload(id) : Promise.resolve();
    return unloaded
      .then(() => this.warmBase(e))
      .then(() => CrawlRuntime.load({ ...this.runtimeOptions(e), repair }))
      .then(
        (rt) => this.adopt(id, rt),
        (err) => this.loadFailed(e, err),
      );
  }

  private runtimeSync(id: string): CrawlRuntime {
    this.open();
    const existing = this.live.get(id);
    if (existing) {
      existing.lastUsed = this.now();
      return existing.runtime;
    }
    const e = this.entry(id);
    if (this.isDamaged(e)) throw new ServiceError('DAMAGED', this.damagedMessage(e));
    let rt: CrawlRuntime;
    try {
      rt = CrawlRuntime.loadSync(this.runtimeOptions(e));
    } catch (err) {
      this.loadFailed(e, err);
    }
    return this.adopt(id, rt).runtime;
  }

  private async runtime(id: string): Promise<CrawlRuntime> {
    this.open();
    const e = this.entry(id);
    if (this.isDamaged(e)) throw new ServiceError('DAMAGED', this.damagedMessage(e));
    return (await this.load(id)).runtime;
  }

  private adopt(id: string, rt: CrawlRuntime): Live {
    const raced = this.live.get(id);
    if (raced) {
      rt.close();
      return raced;
    }
    const l: Live = {
      runtime: rt,
      run: null,
      lock: null,
      rate: new RateMeter(),
      lastRate: 0,
      progress: undefined as never,
      cpTimer: null,
      cpBusy: null,
      cpStoredAt: 0,
      lastUsed: this.now(),
      lastVersion: -1,
      lastInFlight: -1,
      lastStatus: '',
    };
    l.progress = new ProgressBatcher<ProgressEvent>(
      (force) => this.progressEvent(id, l, force),
      (ev) => this.events.emit('progress', ev),
    );
    this.live.set(id, l);
    const stats = rt.replayStats;
    const name = this.catalog.get(id)?.name ?? id;
    if (rt.repaired) {
      this.warn({
        level: 'warning',
        code: 'JOURNAL_SALVAGED',
        message: `The journal of crawl ${id} ("${name}") was damaged and has been repaired: ${describeLoss(rt.repaired.loss)} The damaged journal is kept as ${rt.repaired.kept}.`,
      });
      // The catalog's checkpoint points into the damaged file; the repaired journal has its own.
      const cur = this.catalog.get(id);
      if (cur?.checkpoint) {
        const { checkpoint: _old, ...rest } = cur;
        this.catalog.put(rest, { meta: false });
      }
    } else if (stats && journalDamaged(stats.salvage)) {
      this.warn({
        level: 'warning',
        code: 'JOURNAL_DAMAGED_LINES',
        message: `The journal of crawl ${id} ("${name}") is damaged: ${describeLoss(stats.salvage)} It is repaired when the crawl is resumed.`,
      });
    }
    const cp = this.catalog.get(id)?.checkpoint;
    if (stats && cp && !rt.repaired && stats.committedLength < cp.position) {
      this.warn({
        level: 'warning',
        code: 'JOURNAL_SHORTER',
        message: `The journal of crawl ${id} ends before its last stored checkpoint (${stats.committedLength} < ${cp.position} bytes); it resumes from what the journal holds.`,
      });
    }
    this.evictIdle();
    return l;
  }

  private loadFailed(e: CatalogEntry, err: unknown): never {
    const why = toCrawlError(err, 'DAMAGED').message;
    this.broken.set(e.id, why);
    throw new ServiceError('DAMAGED', `Crawl "${e.name}" cannot be read: ${why}`, { cause: err });
  }

  private runtimeOptions(e: CatalogEntry) {
    return {
      id: e.id,
      dir: this.catalog.dirOf(e.id),
      settings: e.settings,
      now: this.now,
      crawlerFactory: this.crawlerFactoryFor(e),
      fetcher: this.opts.fetcher,
      faults: this.opts.faults,
      onWriteFailure: (err: ServiceError) => this.onWriteFailure(e.id, err),
      ...this.previousOf(e),
    };
  }

  /** Unloads idle crawls beyond the limit, least recently used first. */
  private evictIdle(): void {
    const max = this.opts.maxIdleLoaded ?? 2;
    const idle = [...this.live.entries()].filter(([, l]) => !l.run).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    while (idle.length > max) void this.unload(idle.shift()![0]);
  }

  /** Lets a recrawl's base index go (it ended, or is unloaded). */
  private releaseBase(id: string, l: Live): void {
    this.bases.get(id)?.close();
    this.bases.delete(id);
    l.runtime.recrawl = undefined;
  }

  private async unload(id: string): Promise<void> {
    const l = this.live.get(id);
    if (!l || l.run) return;
    this.live.delete(id);
    this.releaseBase(id, l);
    l.progress.dispose();
    if (l.cpTimer) clearInterval(l.cpTimer);
    // Releases the crawler's own HTTP client; the journal is not touched.
    await l.runtime.stop().catch(() => undefined);
    l.runtime.close();
  }

  // ---------------------------------------------------------------- views

  private progressEvent(id: string, l: Live, force: boolean): ProgressEvent | null {
    const e = this.catalog.get(id);
    if (!e) return null;
    const rt = l.runtime;
    const at = this.now();
    l.lastRate = l.run ? l.rate.sample(at, rt.handled()) : 0;
    const nodes = rt.data.tree.takeChanged().map((n) => withBadges(rt.data.audit, n));
    const log = rt.takeNewLogs();
    const version = rt.data.store.version;
    const inFlight = rt.inFlight();
    const status = e.status + (e.error?.code ?? '');
    if (!force && nodes.length === 0 && log.length === 0 && version === l.lastVersion && inFlight === l.lastInFlight && status === l.lastStatus) {
      return null;
    }
    l.lastVersion = version;
    l.lastInFlight = inFlight;
    l.lastStatus = status;
    return { crawlId: id, status: e.status, counters: rt.counters(), rate: l.lastRate, nodes, log, at };
  }

  private summary(e: CatalogEntry): CrawlSummary {
    const l = this.live.get(e.id);
    const s: CrawlSummary = {
      id: e.id,
      name: e.name,
      startUrl: e.settings.startUrl || e.settings.sitemapUrls[0] || '',
      settings: e.settings,
      status: e.status,
      counters: l ? l.runtime.counters() : e.counters,
      createdAt: e.createdAt,
      updatedAt: e.updatedAt,
      rate: l?.run ? l.lastRate : 0,
    };
    if (e.startedAt !== undefined) s.startedAt = e.startedAt;
    if (e.finishedAt !== undefined) s.finishedAt = e.finishedAt;
    if (e.activeMs !== undefined) s.activeMs = e.activeMs;
    // Stored when a run ends; while one runs (or for a crawl stored before), its journal says it.
    const site = l?.runtime.data.siteUrl ?? e.siteUrl;
    if (site !== undefined) s.siteUrl = site;
    if (e.runningSince !== undefined && e.status === 'running') s.runningSince = e.runningSince;
    if (e.error) s.error = e.error;
    if (e.stopped) s.stopped = true;
    if (e.baseId !== undefined) s.baseId = e.baseId;
    if (e.changedOnly !== undefined) s.changedOnly = e.changedOnly;
    if (e.schedule) s.schedule = e.schedule;
    if (e.listSize !== undefined) s.listSize = e.listSize;
    if (e.imported) s.imported = e.imported;
    if (this.isDamaged(e)) s.damaged = true;
    return s;
  }

  /** Missing folder, or a started crawl without its journal, or a journal that cannot be replayed. */
  private isDamaged(e: CatalogEntry): boolean {
    if (this.broken.has(e.id)) return true;
    const dir = this.catalog.dirOf(e.id);
    if (!fs.existsSync(dir)) return true;
    return e.status !== 'created' && !fs.existsSync(path.join(dir, JOURNAL_FILE)) && !this.live.has(e.id);
  }

  private damagedMessage(e: CatalogEntry): string {
    const why = this.broken.get(e.id);
    if (why) return `Crawl "${e.name}" cannot be read: ${why}`;
    return `Crawl "${e.name}" is damaged: its folder ${this.catalog.dirOf(e.id)} is missing ${fs.existsSync(this.catalog.dirOf(e.id)) ? 'its journal' : 'entirely'}. Delete it, or restore the folder.`;
  }

  /** The crawl's lock for a change outside a run (stop, delete); none when its folder is gone. */
  private lockIfPresent(e: CatalogEntry): CrawlLock | null {
    const dir = this.catalog.dirOf(e.id);
    return fs.existsSync(dir) ? acquireCrawlLock(dir, e) : null;
  }

  private entry(id: string): CatalogEntry {
    const e = typeof id === 'string' ? this.catalog.get(id) : undefined;
    if (!e) throw new ServiceError('NOT_FOUND', `No crawl with id "${String(id)}".`);
    return e;
  }

  private open(): void {
    if (this.closed) throw new ServiceError('CLOSED', 'The crawl service is closed.');
  }

  private warn(w: Omit<CrawlLogEntry, 'at'>): void {
    const entry: CrawlLogEntry = { at: Date.now(), ...w };
    this.startup.push(entry);
    this.events.emit('warning', entry);
  }

  private newId(): string {
    for (;;) {
      const id = this.now().toString(36) + '-' + randomBytes(3).toString('hex');
      if (ID_PATTERN.test(id) && !this.catalog.get(id) && !fs.existsSync(this.catalog.dirOf(id))) return id;
    }
  }
}

function checkDirection(direction: unknown): asserts direction is LinkDirection {
  if (direction !== 'in' && direction !== 'out') {
    throw new ServiceError('BAD_QUERY', `direction must be "in" (the links to the URL) or "out" (the links on its page), not "${String(direction)}".`);
  }
}

/**
 * The entry with its current run ended at `at`: the run's time added to activeMs. An entry written
 * before activeMs existed counts from its start. Not running: unchanged.
 */
function endRun(e: CatalogEntry, at: number): CatalogEntry {
  const since = e.runningSince ?? (e.activeMs === undefined ? e.startedAt : undefined);
  const { runningSince: _r, ...rest } = e;
  if (since === undefined) return rest;
  return { ...rest, activeMs: (e.activeMs ?? 0) + Math.max(0, at - since) };
}

/** The host of the start URL (or first sitemap), as a crawl's default name. */
function defaultName(s: CrawlSettings): string {
  const u = s.startUrl || s.sitemapUrls[0] || '';
  try {
    return new URL(u).host;
  } catch {
    return 'Crawl';
  }
}

/** A crawl that Stop ends with this left to do is a partial crawl: URLs queued or in flight, sitemaps unread. */
function hasWorkLeft(c: CrawlCounters): boolean {
  return c.queued + c.fetching > 0 || c.sitemaps.total > c.sitemaps.done + c.sitemaps.failed;
}
