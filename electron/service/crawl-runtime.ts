/**
 * CrawlRuntime: one crawl loaded in memory — its CrawlData, its journal, and, while it runs, its
 * crawler. The crawler's hooks land here: each event is journalled (batched) and applied to the
 * CrawlData in the same step.
 *
 * Batches and checkpoints (the rule that makes a kill at any moment safe):
 * - A batch is never cut inside a hook, so it never splits what the crawler did in one synchronous
 *   step (a page's result and the links found on it are in the same batch, or neither is).
 * - A result is written in a microtask right after the step that produced it: before the crawler
 *   can start another request. A kill therefore re-fetches only the requests in flight (a result
 *   whose write the kill tore counts as in flight: its batch is dropped whole).
 * - The crawler's checkpoint rides in the journal as the CHECKPOINT line ending a batch, and only
 *   batches cut at a macrotask boundary (timer, setImmediate, pause, finish) carry one: between
 *   macrotasks no sitemap entry is half handed out (counted by the list, not yet admitted), so the
 *   checkpoint holds exactly the events before it. It is written while sitemaps are read (every
 *   250 ms … 5 s, by its size), soon after the tree gains a node or a sitemap ends, and on pause,
 *   stop and finish.
 * - Replay applies every complete batch, also those after the last checkpoint (their results are
 *   real: those pages are not fetched again). The sitemap list resumes from the checkpoint and
 *   hands out again what it handed out after it: those come back as duplicates of URLs already
 *   replayed and the ResumeLedger absorbs them, so nothing is counted twice. A sitemap that a page
 *   turned out to be after the checkpoint is handed back to the list (reconcileCheckpoint).
 * A resume therefore ends with the same URLs, rows and counts as a crawl never interrupted.
 *
 * A sitemap listing one URL again and again, alike, with nothing journalled between (a hostile file
 * repeating an entry millions of times) costs its first DUP line and one DUPS record for the rest of
 * the batch (see Repeats); the counters, the ledger and the audit still count every listing.
 */
import fs from 'node:fs';
import path from 'node:path';
import type {
  CrawlCounters,
  CrawlError,
  CrawlLogEntry,
  CrawlSettings,
  LinkPage,
  PageLinkRow,
  RequestSource,
  SitemapNode,
  SitemapUrlEntry,
  UrlResult,
} from '../../shared/model.js';
import { tryUniqueKey } from '../engine/index.js';
import type {
  CrawlerCheckpoint,
  CrawlerHooks,
  CrawlerOptions,
  CrawlerRunState,
  Discovery,
  HttpFetcher,
  ListingWire,
  RecordedLink,
  RecrawlBase,
  Request,
  RequestInit,
  ResultFacts,
  SitemapListResume,
  SitemapRequestListState,
} from '../engine/index.js';
import { createAudit, findingDefinition } from './audit/crawl-audit.js';
import type { PreviousCrawlLookup } from './audit/types.js';
import { rebuildAudit } from './audit/rebuild.js';
import { CrawlData, type RobotsAnswer } from './data/crawl-data.js';
import { MAX_TEXT_LINKS } from './data/links.js';
import { ServiceError, toCrawlError } from './errors.js';
import { JOURNAL_FILE, type StoredCheckpoint } from './catalog/catalog.js';
import {
  LINK_EXTERNAL,
  LINK_NOFOLLOW,
  NO_FROM,
  REC_ADMIT,
  REC_LINKS,
  REC_RESULT,
  REC_ROBOTS,
  admitFits,
  admitSource,
  encodeAdmit,
  encodeDup,
  encodeDups,
  encodeLinks,
  encodeResult,
  linkTuple,
  linksOf,
  type LinkTuple,
  type RobotsRef,
} from './journal/format.js';
import { RecordReader, replayJournal, replayJournalSync, type BatchReplayer, type ReplayStats } from './journal/reader.js';
import { describeLoss, isDamaged, type SalvageStats } from './journal/salvage.js';
import { JournalWriter, repairJournal, writeError, type JournalFaults } from './journal/writer.js';
import { Rows } from './data/rows.js';
import { STATE_NAMES, resultStateCode } from './data/url-store.js';
import { UrlViews, type FindingFilter } from './data/url-views.js';
import { CarriedSet } from './recrawl/carried-set.js';

export type CrawlerOutcome = 'finished' | 'paused' | 'stopped' | 'failed';

/** What the service needs of a crawler (engine/crawler.ts's Crawler; tests pass fakes). */
export interface CrawlerLike {
  readonly state: CrawlerRunState;
  run(): Promise<CrawlerOutcome>;
  pause(): Promise<void>;
  stop(): Promise<void>;
  checkpoint(): CrawlerCheckpoint;
  inFlight(): number;
  error?(): CrawlError | null;
}

export type CrawlerFactory = (o: CrawlerOptions) => CrawlerLike;

export interface RuntimeOptions {
  id: string;
  dir: string;
  settings: CrawlSettings;
  now(): number;
  crawlerFactory: CrawlerFactory;
  fetcher?: HttpFetcher;
  faults?: JournalFaults;
  /** A journal write failed: the service pauses the crawl and shows the error. Called outside hooks. */
  onWriteFailure(err: ServiceError): void;
  /** Rewrite a damaged journal as salvaged before it is replayed (the crawl is about to be written: its lock is held). */
  repair?: boolean;
  /** A recrawl: its base crawl's lastmods and content hashes, for the audit's cross-crawl lastmod findings. */
  previous?: PreviousCrawlLookup;
}

/** How a batch is cut: inside a microtask (never with a checkpoint), at a macrotask boundary, or last. */
type FlushMode = 'micro' | 'macro' | 'final';

/**
 * A sitemap listing just journalled, and how many alike ones followed it with nothing else between
 * (a sitemap repeating one entry): those are journalled as one DUPS record, not a DUP line each.
 */
interface Repeats {
  /** The DUP line of the listing: URL id, source, sitemap and the entry's fields. Alike = the same line. */
  line: string;
  id: number;
  source: RequestSource;
  from: number;
  entry: SitemapUrlEntry | undefined;
  /** Listings alike since, not journalled yet. */
  n: number;
}

/** Checkpoint bytes per ms a crawl may write when its tree changes (see checkpointDue). */
const FORCED_BYTES_PER_MS = 64;
/** Pending journal bytes past which a batch is written at the next setImmediate. */
const FLUSH_BYTES = 1 << 20;
/** Batches are written at least this often while a crawl runs. */
const FLUSH_INTERVAL_MS = 100;
/** Log entries kept for the next progress event (more are still in the log). */
const MAX_NEW_LOGS = 200;

export class CrawlRuntime {
  readonly data: CrawlData;
  readonly journalPath: string;
  readonly reader: RecordReader;
  /** The LinkStore's reader of LINKS records (its own window: it reads while rows are read). */
  private readonly linkReader: RecordReader;
  /** The replay that built this crawl's data: it renumbers records read back from a damaged journal. */
  private replayer: BatchReplayer | null = null;
  readonly rows: Rows;
  readonly views: UrlViews;
  replayStats: ReplayStats | undefined;
  /** Set when load() repaired a damaged journal: what was lost, and where the damaged file was kept. */
  repaired: { loss: SalvageStats; kept: string } | undefined;
  /** Set while journal writes fail; the crawl is paused with it. */
  writeError: ServiceError | null = null;
  /** Why the crawler failed, when it did. */
  crawlError: CrawlError | null = null;
  /** A recrawl's base (set by the service before run): validators to send and answers to keep. */
  recrawl: RecrawlBase | undefined;
  /** Recrawl: the URLs whose result was carried over from the base. */
  readonly carried = new CarriedSet();

  private writer: JournalWriter | null = null;
  private committedLength = 0;
  private crawler: CrawlerLike | null = null;
  private runPromise: Promise<CrawlerOutcome> | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private readonly pendingNodes = new Map<string, SitemapNode>();
  private lastFrom: string | undefined;
  private lastFromRef = NO_FROM;
  /** The latest sitemap listing journalled, while nothing else has been since: repeats of it are counted. */
  private repeats: Repeats | null = null;
  private closed = false;

  // the audit of a reopened crawl, rebuilt after it is ready
  private auditBuilding: Promise<void> | null = null;
  private auditFailure: ServiceError | null = null;

  // checkpoint cadence
  private forceCheckpoint = false;
  private sitemapEventsSinceCp = 0;
  private eventsSinceCp = 0;
  private lastCpAt = 0;
  private lastCpJson = '';
  /** The last checkpoint as written (robots.txt answers by reference): what the catalog keeps. */
  private lastCp: CrawlerCheckpoint | null = null;
  private microQueued = false;

  // progress
  private newLogs: CrawlLogEntry[] = [];

  private constructor(private readonly opts: RuntimeOptions) {
    this.data = new CrawlData((keys) => createAudit(opts.settings, opts.now, keys, opts.previous));
    this.journalPath = path.join(opts.dir, JOURNAL_FILE);
    this.reader = new RecordReader(this.journalPath);
    this.linkReader = new RecordReader(this.journalPath, 64 * 1024);
    // A damaged journal replayed without repair keeps the file's ids: a LINKS record read back is renumbered as replayed.
    this.data.links.read = (off) => this.readLinks(this.linkReader, off);
    this.rows = new Rows(this.data, this.reader);
    this.views = new UrlViews({
      store: this.data.store,
      urlOf: (id) => this.data.queue.get(id)!.url,
      row: (id) => this.rows.row(id),
      sitemapRefs: (nodeId) => (this.data.tree.has(nodeId) ? this.sitemapRefs(this.subtree(nodeId)) : undefined),
      finding: (code) => this.findingFilter(code),
      // The page filters and sorts read these columns, not the journal (url-views.ts).
      links: this.data.links,
      verdicts: this.data.audit,
      carriedOver: (id) => this.carried.has(id),
      running: () => this.isRunning(),
      now: opts.now,
    });
  }

  /** Loads a crawl: replays its journal when it has one (async, yielding), or starts empty. */
  static async load(opts: RuntimeOptions): Promise<CrawlRuntime> {
    const rt = new CrawlRuntime(opts);
    if (fs.existsSync(rt.journalPath)) {
      rt.data.auditLive = false;
      const stats = await replayJournal(
        rt.journalPath,
        (r, o) => rt.applyRecord(r, o),
        (rp) => (rt.replayer = rp),
      );
      if (opts.repair && isDamaged(stats.salvage)) {
        rt.close();
        const { stats: lost, kept } = await repairJournal(
          rt.journalPath,
          (st, keptAt) => ({
            at: opts.now(),
            level: 'warning',
            code: 'JOURNAL_SALVAGED',
            message: `The journal was damaged: ${describeLoss(st.salvage)} The damaged journal is kept as ${path.basename(keptAt)}.`,
          }),
          opts.now(),
        );
        const again = await CrawlRuntime.load({ ...opts, repair: false });
        again.repaired = { loss: lost.salvage, kept };
        return again;
      }
      rt.afterReplay(stats);
    }
    return rt;
  }

  /** load() without yielding, for synchronous queries on a crawl not loaded yet. */
  static loadSync(opts: RuntimeOptions): CrawlRuntime {
    const rt = new CrawlRuntime(opts);
    if (fs.existsSync(rt.journalPath)) {
      rt.data.auditLive = false;
      rt.afterReplay(
        replayJournalSync(
          rt.journalPath,
          (r, o) => rt.applyRecord(r, o),
          (rp) => (rt.replayer = rp),
        ),
      );
    }
    return rt;
  }

  /** Replay: one journal record into the CrawlData (and the carried-over set). */
  private applyRecord(r: unknown[], offset: number): void {
    this.data.apply(r, offset);
    if (r[0] === REC_RESULT) {
      const id = r[1] as number;
      if (id >= 0 && id < this.data.store.count) this.carried.note(id, (r[3] as UrlResult | null)?.carriedOver === true);
    }
  }

  private afterReplay(stats: ReplayStats): void {
    this.replayStats = stats;
    this.committedLength = stats.committedLength;
    if (this.data.checkpoint) {
      // As the journal holds it: its robots.txt answers by reference.
      this.lastCp = this.leanCheckpoint(this.data.checkpoint).cp;
      this.lastCpJson = JSON.stringify(this.lastCp);
    }
    this.startAuditRebuild();
  }

  // ---------------------------------------------------------------- audit

  /** True while the audit of a reopened crawl is being rebuilt: its findings are partial until then. */
  auditComputing(): boolean {
    return this.auditBuilding !== null;
  }

  /** Resolves once the audit is complete; rejects with ServiceError DAMAGED when it could not be rebuilt. */
  async auditReady(): Promise<void> {
    if (this.auditBuilding) await this.auditBuilding;
    if (this.auditFailure) throw this.auditFailure;
  }

  /** Throws the rebuild's failure, if it failed (queries must not show a partial audit as complete). */
  checkAudit(): void {
    if (this.auditFailure) throw this.auditFailure;
  }

  /**
   * Replay left the audit alone (it would cost ~40% of reopening a big crawl): it is rebuilt by a
   * second pass over the journal now, in the background, while the crawl can already run.
   */
  private startAuditRebuild(): void {
    const end = {
      durableLength: () => (this.writer ? this.writer.durableLength : this.committedLength),
      pendingRecords: () => this.writerPendingRecords(),
      pendingNodes: () => this.pendingNodes.values(),
    };
    this.auditBuilding = rebuildAudit(this.journalPath, this.data, end, () => this.closed)
      .then(
        (done) => {
          if (!done) return;
          // Views filtered by a finding and the tree's badges were computed from a partial audit.
          this.data.store.version++;
          this.data.tree.markAllChanged();
        },
        (err: unknown) => {
          this.auditFailure = new ServiceError(
            'DAMAGED',
            `The sitemap audit could not be rebuilt from the journal ${this.journalPath}: ${(err as Error)?.message ?? err}`,
            { cause: err },
          );
        },
      )
      .finally(() => {
        this.auditBuilding = null;
      });
  }

  /** The lines the writer holds but has not written, parsed, in order; then the repeats counted but not journalled yet. */
  private *writerPendingRecords(): Generator<unknown[]> {
    const w = this.writer;
    if (!w) return;
    for (let off = w.durableLength; off < w.size;) {
      const line = w.pendingLineAt(off);
      if (line === undefined) return;
      off += Buffer.byteLength(line);
      yield JSON.parse(line) as unknown[];
    }
    const r = this.repeats;
    if (r && r.n > 0) yield JSON.parse(repeatsLine(r)) as unknown[];
  }

  // ---------------------------------------------------------------- running

  isRunning(): boolean {
    return this.runPromise !== null;
  }

  /**
   * Runs (or continues) the crawl until it finishes, pauses, stops or fails; journals it all.
   * A journal that cannot be opened or written throws/ends with ServiceError JOURNAL_WRITE_FAILED.
   */
  run(): Promise<CrawlerOutcome> {
    if (this.runPromise) return this.runPromise;
    this.openWriter();
    if (this.writeError) {
      // Writes failed earlier in this process: what is pending goes first, or nothing starts.
      this.writeError = null;
      if (!this.flush('macro')) throw this.writeError!;
    }
    this.crawler ??= this.opts.crawlerFactory({
      settings: this.opts.settings,
      hooks: this.hooks,
      queue: this.data.queue,
      checkpoint: this.data.checkpoint && reconcileCheckpoint(this.data.checkpoint, this.data.tree.all(), this.opts.settings, this.data.checkpointNodes()),
      fetcher: this.opts.fetcher,
      now: this.opts.now,
      ...(this.recrawl ? { recrawl: this.recrawl } : {}),
    });
    const crawler = this.crawler;
    this.crawlError = null;
    this.flushTimer = setInterval(() => this.flush('macro'), FLUSH_INTERVAL_MS);
    this.runPromise = (async () => {
      let outcome: CrawlerOutcome;
      try {
        outcome = await crawler.run();
        if (outcome === 'failed') this.crawlError = crawler.error?.() ?? { code: 'CRAWL_FAILED', message: 'The crawl failed.' };
      } catch (err) {
        outcome = 'failed';
        this.crawlError = toCrawlError(err, 'CRAWL_FAILED');
      }
      this.data.store.inFlight.clear(); // whatever was in flight has ended or will be fetched again
      clearInterval(this.flushTimer!);
      this.flushTimer = null;
      if (this.immediate) clearImmediate(this.immediate);
      this.immediate = null;
      this.microQueued = false;
      // Finished or stopped: whatever the ledger still expected will not come back.
      if (outcome !== 'paused') this.data.drainLedger();
      this.flush('final');
      return outcome;
    })().finally(() => {
      this.runPromise = null;
    });
    return this.runPromise;
  }

  /** Asks the crawler to pause (requests in flight finish); resolves with run()'s outcome. */
  async pause(): Promise<CrawlerOutcome | undefined> {
    const running = this.runPromise;
    if (!running || !this.crawler) return undefined;
    await this.crawler.pause();
    return running;
  }

  /** Asks the crawler to stop for good; resolves with run()'s outcome (or undefined when idle). */
  async stop(): Promise<CrawlerOutcome | undefined> {
    const running = this.runPromise;
    if (!this.crawler) return undefined;
    await this.crawler.stop();
    return running ?? undefined;
  }

  /** Size of the latest checkpoint as JSON (a tree of thousands of sitemaps makes it big). */
  checkpointBytes(): number {
    return this.lastCpJson.length;
  }

  /** Requests being fetched right now. */
  inFlight(): number {
    return this.runPromise && this.crawler ? this.crawler.inFlight() : 0;
  }

  /** The counters, with the tree's sitemap counts and the crawler's in-flight count. */
  counters(): CrawlCounters {
    this.data.store.setSitemapCounts(this.data.tree.sitemapCounts());
    return this.data.store.counters(this.inFlight());
  }

  /** URLs handled (fetched, failed, blocked or listed): the rate's numerator. */
  handled(): number {
    const c = this.data.store.counters(0);
    return c.fetched + c.errors + c.blocked + c.listed;
  }

  /** Log entries since the last call (at most MAX_NEW_LOGS). */
  takeNewLogs(): CrawlLogEntry[] {
    const out = this.newLogs;
    this.newLogs = [];
    return out;
  }

  /**
   * Writes what is pending with a checkpoint, fsyncs the journal, and returns the checkpoint for the
   * catalog — or null when there is none, or writes are failing.
   */
  async durableCheckpoint(): Promise<StoredCheckpoint | null> {
    if (!this.writer) return null;
    this.flush(this.runPromise ? 'macro' : 'final', true);
    const cp = this.lastCp;
    if (this.writeError || !cp) return null;
    const offset = this.data.checkpointOffset;
    const position = this.writer.durableLength;
    await this.writer.sync();
    return { crawler: cp, offset, position, at: this.opts.now() };
  }

  /**
   * Whether the journal on disk is still what this runtime holds: another process may have run the
   * crawl since it was loaded (a crawl is written by one process at a time, read by any).
   */
  inSyncWithDisk(): boolean {
    let size = 0;
    try {
      size = fs.statSync(this.journalPath).size;
    } catch {
      size = 0;
    }
    const known = this.writer ? this.writer.durableLength : this.committedLength + (this.replayStats?.droppedBytes ?? 0);
    return size === known;
  }

  /** Releases the files (the crawl must not be running). */
  close(): void {
    this.closed = true;
    if (this.flushTimer) clearInterval(this.flushTimer);
    if (this.immediate) clearImmediate(this.immediate);
    this.flushTimer = null;
    this.immediate = null;
    this.writer?.close();
    this.writer = null;
    this.reader.close();
    this.linkReader.close();
  }

  // ---------------------------------------------------------------- links

  /**
   * A page of URL `urlId`'s links: 'out', the links on its page (its LINKS record, in document
   * order); 'in', the links to it on other pages, in journal order, found by scanning the LINKS
   * records (a bounded chunk at a time, a byte search for the id before any JSON is parsed). Only a
   * page's counted record is read (LinkStore: its first), so `total` is inlinks(urlId) for 'in'.
   * Measured: the 'large' test site at 5,000 pages (1.8 MB journal, 10,000 links), an 'in' lookup
   * 85–390 ms and eachLink() 260 ms, on a 2-core machine shared with other work.
   */
  async links(urlId: number, direction: 'in' | 'out', offset: number, limit: number): Promise<LinkPage> {
    if (!(Number.isSafeInteger(urlId) && urlId >= 0 && urlId < this.data.store.count)) {
      throw new ServiceError('NOT_FOUND', `This crawl has no URL with id ${urlId}.`);
    }
    if (!(Number.isSafeInteger(offset) && offset >= 0 && Number.isSafeInteger(limit) && limit >= 0)) {
      throw new ServiceError('BAD_QUERY', `A page of links needs a whole offset and limit of 0 or more (got offset ${offset}, limit ${limit}).`);
    }
    const rows: PageLinkRow[] = [];
    let total = 0;
    if (direction === 'out') {
      const at = this.data.links.linksOffset(urlId);
      const rec = at < 0 ? undefined : this.readLinks(this.reader, at);
      if (!rec || rec[0] !== REC_LINKS) return { total: 0, rows };
      const links = linksOf(rec);
      const fromUrl = this.data.queue.get(urlId)!.url;
      for (let i = offset; i < links.length && rows.length < limit; i++) rows.push(this.linkRow(urlId, fromUrl, links[i]!));
      return { total: links.length, rows };
    }
    // Links recorded before the crawl held the URL name it by text: every record is then read, and compared by key.
    const key = this.data.links.hasTextInlinks(urlId) ? this.data.queue.get(urlId)!.uniqueKey : null;
    for await (const [rec] of this.linkRecords(key === null ? '[' + urlId : null)) {
      const from = rec[1] as number;
      if (from === urlId) continue; // a link to the page itself is no inlink
      let fromUrl: string | undefined;
      for (const t of linksOf(rec)) {
        if (!Array.isArray(t) || (t[0] !== urlId && (key === null || !this.textLinkTo(t[0], key)))) continue;
        if (total >= offset && rows.length < limit) rows.push(this.linkRow(from, (fromUrl ??= this.data.queue.get(from)!.url), t));
        total++;
      }
    }
    return { total, rows };
  }

  /** Whether a link's target recorded by text (not held then) is the URL of `key`, by the link store's rule. */
  private textLinkTo(target: unknown, key: string): boolean {
    return typeof target === 'string' && tryUniqueKey(target) === key;
  }

  /** A LINKS record read back by offset, in this crawl's numbering (a damaged journal's replay renumbers). */
  private readLinks(reader: RecordReader, off: number): unknown[] | undefined {
    const rec = reader.read(off);
    return rec && this.replayer?.renumbered ? this.replayer.remapLinks(rec) : rec;
  }

  /**
   * Every recorded link of the crawl (each page's counted LINKS record), pages in journal order; with
   * `to`, only the inlinks of the URLs it accepts.
   */
  async *eachLink(to?: (urlId: number) => boolean): AsyncIterable<PageLinkRow> {
    for await (const [rec] of this.linkRecords(null)) {
      const from = rec[1] as number;
      let fromUrl: string | undefined;
      for (const t of linksOf(rec)) {
        if (!Array.isArray(t)) continue;
        const row = this.linkRow(from, (fromUrl ??= this.data.queue.get(from)!.url), t);
        // With `to`: the inlinks of those URLs, as links() lists them (held targets, no link to itself).
        if (to && (row.toId === undefined || row.toId === from || !to(row.toId))) continue;
        yield row;
      }
    }
  }

  /** A LINKS tuple of page `from` as a row, with its target's state and status as crawled now. */
  private linkRow(from: number, fromUrl: string, t: LinkTuple): PageLinkRow {
    const { queue, store } = this.data;
    const target = t[0];
    let toId: number | undefined;
    let toUrl: string;
    if (typeof target === 'number' && target >= 0 && target < store.count) {
      toId = target;
      toUrl = queue.get(target)!.url;
    } else {
      toUrl = String(target);
      // Not held when the page was recorded: it may be now.
      const key = tryUniqueKey(toUrl);
      toId = key === null ? undefined : queue.idOf(key);
    }
    const row: PageLinkRow = { fromId: from, fromUrl, toUrl, anchor: typeof t[1] === 'string' ? t[1] : '' };
    const flags = typeof t[2] === 'number' ? t[2] : 0;
    if (flags & LINK_NOFOLLOW) row.nofollow = true;
    if (flags & LINK_EXTERNAL) row.external = true;
    if (toId !== undefined) {
      row.toId = toId;
      row.toState = store.inFlight.has(toId) ? 'fetching' : STATE_NAMES[store.state[toId]!]!;
      const status = store.statusOf(toId);
      if (status > 0) row.toStatus = status;
    }
    return row;
  }

  /**
   * The counted LINKS records of the journal, parsed, with their offsets: the file up to what is
   * written, LINK_SCAN_BYTES at a time, then what the writer holds. With `needle`, only lines whose
   * bytes hold it followed by ',' or ']' are parsed (the rest cannot name that id).
   */
  private async *linkRecords(needle: string | null): AsyncGenerator<[unknown[], number]> {
    const links = this.data.links;
    // A damaged journal replayed without repair: the file's ids are not the crawl's, so every LINKS
    // line is read (a needle of the crawl's id could miss) and renumbered before it is counted.
    const replayer = this.replayer?.renumbered ? this.replayer : null;
    const counted = (raw: unknown[] | undefined, off: number): unknown[] | null => {
      if (raw === undefined || raw[0] !== REC_LINKS) return null;
      const rec = replayer ? replayer.remapLinks(raw) : raw;
      return links.linksOffset(rec[1] as number) === off ? rec : null;
    };
    const end = this.writer ? this.writer.durableLength : this.committedLength;
    const pat = needle === null || replayer ? null : Buffer.from(needle);
    const head = Buffer.from('[' + REC_LINKS + ',');
    let fh: fs.promises.FileHandle | null = null;
    try {
      fh = end > 0 ? await fs.promises.open(this.journalPath, 'r') : null;
      let buf = Buffer.allocUnsafe(LINK_SCAN_BYTES);
      let pos = 0; // file offset of buf[0]
      let carry = 0;
      while (fh && pos + carry < end) {
        if (carry === buf.length) {
          const bigger = Buffer.allocUnsafe(buf.length * 2);
          buf.copy(bigger, 0, 0, carry);
          buf = bigger;
        }
        const { bytesRead } = await fh.read(buf, carry, Math.min(buf.length - carry, end - pos - carry), pos + carry);
        if (bytesRead === 0) break;
        const len = carry + bytesRead;
        const last = buf.lastIndexOf(10, len - 1);
        const used = last === -1 ? 0 : last + 1;
        const found: [unknown[], number][] = [];
        if (pat === null) {
          for (let at = 0; at < used;) {
            const nl = buf.indexOf(10, at);
            if (buf.compare(head, 0, head.length, at, at + head.length) === 0) {
              const rec = counted(parseLine(buf, at, nl), pos + at);
              if (rec) found.push([rec, pos + at]);
            }
            at = nl + 1;
          }
        } else {
          let lineDone = -1;
          for (let hit = buf.indexOf(pat, 0); hit !== -1 && hit < used; hit = buf.indexOf(pat, hit + 1)) {
            const next = buf[hit + pat.length];
            if (next !== 44 /* , */ && next !== 93 /* ] */) continue;
            const start = buf.lastIndexOf(10, hit) + 1;
            if (start <= lineDone) continue;
            const nl = buf.indexOf(10, hit);
            lineDone = nl;
            if (buf.compare(head, 0, head.length, start, start + head.length) !== 0) continue;
            const rec = counted(parseLine(buf, start, nl), pos + start);
            if (rec) found.push([rec, pos + start]);
          }
        }
        buf.copy(buf, 0, used, len);
        pos += used;
        carry = len - used;
        for (const f of found) yield f;
      }
    } finally {
      await fh?.close();
    }
    // What was written since, and what the writer still holds.
    const w = this.writer;
    if (!w) return;
    for (let off = end; off < w.size;) {
      const line = this.linkReader.readLine(off);
      if (line === undefined) return;
      const at = off;
      off += Buffer.byteLength(line) + 1;
      if (!line.startsWith('[' + REC_LINKS + ',') || (needle !== null && !line.includes(needle))) continue;
      let rec: unknown[] | undefined;
      try {
        rec = JSON.parse(line) as unknown[];
      } catch {
        rec = undefined;
      }
      const kept = counted(rec, at);
      if (kept) yield [kept, at];
    }
  }

  // ---------------------------------------------------------------- journal

  private openWriter(): void {
    if (this.writer) return;
    try {
      fs.mkdirSync(this.opts.dir, { recursive: true });
    } catch (err) {
      throw writeError(this.journalPath, err);
    }
    this.writer = JournalWriter.open(this.journalPath, this.committedLength, this.opts.faults);
    this.reader.writer = this.writer;
    this.reader.invalidate();
    this.linkReader.writer = this.writer;
    this.linkReader.invalidate();
  }

  /**
   * Writes the pending lines as one batch, ending it with a CHECKPOINT line when one is due ('macro')
   * or always ('final', and `checkpoint`); a 'micro' batch never carries one. Returns false when the
   * write failed (the crawl is then paused by the service).
   */
  flush(mode: FlushMode, checkpoint = false): boolean {
    if (mode !== 'micro' && this.immediate) {
      clearImmediate(this.immediate);
      this.immediate = null;
    }
    const w = this.writer;
    if (!w || this.writeError) return false;
    this.endRepeats();
    let cpLine: string | undefined;
    let cp: CrawlerCheckpoint | undefined;
    let cpJson = '';
    // Taken before the nodes are written: it reports the nodes changed since they were last reported
    // (onNode), and the checkpoint holds no tree, so its nodes must be in the journal before it.
    if (this.crawler && mode !== 'micro' && (checkpoint || this.checkpointDue(mode === 'final'))) cp = this.crawler.checkpoint();
    for (const n of this.pendingNodes.values()) w.append('[3,' + JSON.stringify(n) + ']\n');
    this.pendingNodes.clear();
    let journaled: [string, RobotsAnswer][] = [];
    let leanCp: CrawlerCheckpoint | null = null;
    if (cp) {
      const lean = this.leanCheckpoint(cp);
      journaled = lean.journaled;
      leanCp = lean.cp;
      for (const [origin, answer] of journaled) w.append('[' + REC_ROBOTS + ',' + JSON.stringify(origin) + ',' + JSON.stringify(answer) + ']\n');
      cpJson = JSON.stringify(lean.cp);
      if (cpJson !== this.lastCpJson || w.pendingLines > 0) cpLine = '[6,' + cpJson + ',' + this.data.ledger.remaining + ']\n';
    }
    if (w.pendingLines === 0 && !cpLine) return true;
    const before = w.size;
    try {
      w.flush(cpLine ?? '[7]\n');
    } catch (err) {
      this.failWrites(err instanceof ServiceError ? err : writeError(this.journalPath, err));
      return false;
    }
    for (const [origin, answer] of journaled) this.data.robots.set(origin, answer);
    if (cpLine && cp) {
      this.data.checkpointed(cp, before);
      this.lastCpJson = cpJson;
      this.lastCp = leanCp;
      this.lastCpAt = this.opts.now();
      this.forceCheckpoint = false;
      this.sitemapEventsSinceCp = 0;
      this.eventsSinceCp = 0;
    }
    return true;
  }

  /**
   * The checkpoint as the journal keeps it: each robots.txt answer with a body is left out of `robots`
   * and named in `robotsRefs`, its body written once in a ROBOTS record (`journaled`: those this batch
   * must write, new or changed), so a large robots.txt does not repeat in every checkpoint.
   */
  private leanCheckpoint(cp: CrawlerCheckpoint): { cp: CrawlerCheckpoint; journaled: [string, RobotsAnswer][] } {
    const journaled: [string, RobotsAnswer][] = [];
    if (!cp.robots || typeof cp.robots !== 'object') return { cp, journaled };
    let robots: Record<string, RobotsAnswer> | null = null;
    const refs: Record<string, RobotsRef> = {};
    for (const [origin, answer] of Object.entries(cp.robots)) {
      if (typeof answer?.body !== 'string') continue;
      const known = this.data.robots.get(origin);
      if (!known || known.body !== answer.body || known.status !== answer.status || known.outcome !== answer.outcome) journaled.push([origin, answer]);
      robots ??= { ...cp.robots };
      delete robots[origin];
      refs[origin] = answer.status === undefined ? { outcome: answer.outcome } : { status: answer.status, outcome: answer.outcome };
    }
    return { cp: robots ? ({ ...cp, robots, robotsRefs: refs } as CrawlerCheckpoint) : cp, journaled };
  }

  private checkpointDue(final: boolean): boolean {
    if (final) return true;
    const since = this.opts.now() - this.lastCpAt;
    // Asked for when the tree changed: a small checkpoint at once, a big one (thousands of sitemaps
    // pending) as often as FORCED_BYTES_PER_MS allows, or a sitemap ending every few ms would write it each time.
    if (this.forceCheckpoint && since >= this.lastCpJson.length / FORCED_BYTES_PER_MS) return true;
    // Bigger checkpoints (a tree of thousands of sitemaps) are written less often: ~16 KB per second at most.
    const interval = Math.min(5000, Math.max(250, this.lastCpJson.length / 16));
    if (this.sitemapEventsSinceCp > 0 && since >= interval) return true;
    return this.eventsSinceCp > 0 && since >= Math.max(interval, 2000);
  }

  private failWrites(err: ServiceError): void {
    this.writeError = err;
    queueMicrotask(() => this.opts.onWriteFailure(err));
  }

  /** A batch (and a checkpoint if due) at the next macrotask boundary. */
  private flushSoon(): void {
    this.immediate ??= setImmediate(() => {
      this.immediate = null;
      this.flush('macro');
    });
  }

  /** A batch right after the current synchronous step: results reach the kernel before the crawler moves on. */
  private flushMicro(): void {
    if (this.microQueued) return;
    this.microQueued = true;
    queueMicrotask(() => {
      this.microQueued = false;
      if (this.runPromise) this.flush('micro');
    });
  }

  private noted(sitemapRelated: boolean): void {
    this.eventsSinceCp++;
    if (sitemapRelated) this.sitemapEventsSinceCp++;
    if (this.writer && this.writer.pendingSize > FLUSH_BYTES) this.flushSoon();
  }

  /** The journal's ref for a discoveredFrom: a request id when it is a uniqueKey, else a FROM entry. */
  private fromRef(text: string | undefined): number {
    if (text === undefined) return NO_FROM;
    if (text === this.lastFrom) return this.lastFromRef;
    const id = this.data.queue.idOf(text);
    const ref = id !== undefined ? id : -2 - this.sitemapRef(text);
    this.lastFrom = text;
    this.lastFromRef = ref;
    return ref;
  }

  /** The FROM entry of a text, journalling it when new. */
  private sitemapRef(text: string): number {
    const froms = this.data.froms;
    let ref = froms.find(text);
    if (ref < 0) {
      ref = froms.add(text);
      this.append('[5,' + ref + ',' + JSON.stringify(text) + ']\n');
    }
    return ref;
  }

  /** Queues a journal line, after the repeats it ends; returns its offset. */
  private append(line: string): number {
    this.endRepeats();
    return this.writer!.append(line);
  }

  /** Journals the repeats counted since the latest sitemap listing (if any), and stops counting them. */
  private endRepeats(): void {
    const r = this.repeats;
    if (r === null) return;
    this.repeats = null;
    if (r.n > 0) this.writer!.append(repeatsLine(r));
  }

  /** A node and every node under it (an index's sitemaps, robots.txt's sitemaps and theirs). */
  private subtree(nodeId: string): string[] {
    const out = [nodeId];
    const seen = new Set(out);
    for (let i = 0; i < out.length; i++) {
      for (const child of this.data.tree.childrenOf(out[i]!)) {
        if (seen.has(child.id)) continue;
        seen.add(child.id);
        out.push(child.id);
      }
    }
    return out;
  }

  /** The FROM entries that name one of these sitemap nodes (its URL as listed, its final URL, or its uniqueKey). */
  private sitemapRefs(nodeIds: Iterable<string>): Set<number> {
    const keys = new Set<string>();
    const texts = new Set<string>();
    for (const id of nodeIds) {
      keys.add(id);
      const node = this.data.tree.get(id);
      if (!node) continue;
      texts.add(node.url);
      if (node.finalUrl !== undefined) texts.add(node.finalUrl);
    }
    const refs = new Set<number>();
    const froms = this.data.froms;
    for (let n = 0; n < froms.size; n++) {
      const t = froms.text(n);
      const k = froms.keyOf(n);
      if ((t !== undefined && texts.has(t)) || (k !== null && keys.has(k))) refs.add(n);
    }
    return refs;
  }

  /**
   * The URL table's finding filter: the URLs a URL finding affects, or the URLs listed by the
   * sitemaps a sitemap finding affects. An unknown code is a BAD_QUERY.
   */
  private findingFilter(code: string): FindingFilter {
    const d = findingDefinition(code);
    const audit = this.data.audit;
    if (d.subject === 'url') {
      const has = (id: number) => audit.has(d.code, id);
      // Duplicates are read group by group: the pages sharing one text side by side.
      const grouped = d.code === 'DUPLICATE_TITLE' || d.code === 'DUPLICATE_META_DESCRIPTION';
      return grouped ? { has, order: () => audit.urlsOf(d.code) as number[] } : { has };
    }
    const ids = (audit.urlsOf(d.code) as string[]).map((u) => tryUniqueKey(u) ?? u);
    return { sitemapRefs: this.sitemapRefs(ids) };
  }

  private giveUpLedger(why: string): void {
    this.data.drainLedger();
    this.hooks.onLog!({
      at: this.opts.now(),
      level: 'info',
      code: 'RESUME_DIVERGED',
      message: `After resuming, the sitemaps no longer list what they listed before the interruption (${why}); the rest is read as new.`,
    });
  }

  // ---------------------------------------------------------------- hooks

  readonly hooks: CrawlerHooks = {
    onAdmitted: (req: Request, state: 'queued' | 'listed', wire?: ListingWire) => {
      const w = this.writer!;
      if (this.data.ledger.expects(req.source)) this.giveUpLedger(`${req.url} is new`);
      this.endRepeats();
      const listed = state === 'listed';
      let from: number;
      let ref = -1;
      if (req.source === 'sitemap' && req.discoveredFrom !== undefined) {
        ref = this.sitemapRef(req.discoveredFrom);
        from = -2 - ref;
      } else from = this.fromRef(req.discoveredFrom);
      const entry = req.source === 'sitemap' ? req.sitemapEntry : undefined;
      // The parse worker's text of the entry is copied when it is what encoding would write.
      const off =
        entry && wire && admitFits(req.url, req.uniqueKey, req.label, req.userData, wire.entryJson)
          ? w.appendRecord(REC_ADMIT, req.id, admitSource(req.source, listed), req.depth, from, wire.entryJson)
          : this.append(encodeAdmit(req.id, req.source, listed, req.depth, from, req.url, req.uniqueKey, entry, req.label, req.userData));
      this.data.store.admit(req.id, req.source, listed, req.depth, ref, entry ? off : -1, entry?.lastmod);
      this.data.links.admitted(req.id, req.uniqueKey, req.source === 'start');
      if (this.data.auditLive) this.data.audit.admitted(req.id, req.url, req.source, entry, req.discoveredFrom, req.uniqueKey);
      this.noted(req.source === 'sitemap' || req.source === 'start');
    },

    onDuplicate: (id: number, d: Discovery, init: RequestInit) => {
      let from: number;
      let ref = -1;
      if (d.source === 'sitemap' && d.from !== undefined) {
        ref = this.sitemapRef(d.from);
        from = -2 - ref;
      } else from = this.fromRef(d.from);
      if (!this.data.ledger.empty) {
        const m = this.data.ledger.match(d.source, id, ref);
        if (m === 'absorb') return; // already journalled and counted before the interruption
        if (m === 'mismatch') this.giveUpLedger(`${init.url} came out of order`);
      }
      const entry = d.source === 'sitemap' ? init.sitemapEntry : undefined;
      const line = encodeDup(id, d.source, from, entry);
      const repeats = this.repeats;
      if (repeats !== null && repeats.line === line) {
        // The same listing again, nothing between: counted, journalled with the others as one record.
        repeats.n++;
      } else {
        const off = this.append(line);
        if (ref >= 0) {
          this.data.store.listing(id, ref, entry ? off : -1, entry?.lastmod);
          this.repeats = { line, id, source: d.source, from, entry, n: 0 };
        }
      }
      this.data.store.duplicate();
      if (d.source === 'start') this.data.links.start(id);
      if (this.data.auditLive) this.data.audit.discovered(id, d, entry);
      this.noted(d.source === 'sitemap' || d.source === 'start');
    },

    onFetching: (req: Request) => {
      this.data.store.inFlight.add(req.id);
    },

    onResult: (req: Request, state: 'done' | 'error' | 'blocked', result: UrlResult, facts?: ResultFacts) => {
      const code = state === 'done' ? 1 : state === 'error' ? 2 : 3;
      // The facts live in the journal only, read back with the row (as the title is): no memory per URL.
      const off = this.append(encodeResult(req.id, code, result, facts));
      this.data.store.result(req.id, resultStateCode(state), result.status, result.title, off);
      this.carried.note(req.id, result.carriedOver === true);
      this.data.links.result(req.id, result.redirectTo);
      if (this.data.auditLive) this.data.audit.result(req.id, state, result, facts);
      this.noted(false);
      this.flushMicro();
    },

    onPageLinks: (page: Request, links: RecordedLink[]) => {
      // Right after the page's RESULT (same step, same batch). A target is named by id when the crawl holds it.
      const queue = this.data.queue;
      const tuples: LinkTuple[] = [];
      for (const l of links) {
        const id = l.uniqueKey === null ? undefined : queue.idOf(l.uniqueKey);
        tuples.push(linkTuple(id ?? l.url, l.anchor, (l.nofollow ? LINK_NOFOLLOW : 0) | (l.external ? LINK_EXTERNAL : 0)));
      }
      const rec: unknown[] = [REC_LINKS, page.id, tuples];
      const off = this.append(encodeLinks(page.id, tuples));
      const capped = this.data.links.textLinksCapped;
      this.data.links.apply(rec, off);
      if (!capped && this.data.links.textLinksCapped) {
        this.hooks.onLog!({
          at: this.opts.now(),
          level: 'warning',
          code: 'TEXT_LINKS_CAPPED',
          message: `Over ${MAX_TEXT_LINKS.toLocaleString('en')} links name URLs the crawl did not hold yet (nofollow, or not followed): links of further pages to such URLs are no longer counted as inlinks when the URL is found later.`,
          url: page.url,
        });
      }
      this.noted(false);
    },

    onNode: (node: SitemapNode) => {
      const before = this.data.tree.get(node.id)?.state;
      const added = this.data.node(node);
      // The audit may have changed without a URL changing (a sitemap's final URL, its type): views are stale.
      this.data.store.version++;
      // A new node, or a sitemap that ended: checkpoint soon, so a resume neither loses nor re-reads it.
      const ended = node.state !== before && (node.state === 'done' || node.state === 'error' || node.state === 'skipped');
      if (added || ended) {
        this.forceCheckpoint = true;
        this.flushSoon();
      }
      this.pendingNodes.set(node.id, node);
      this.noted(true);
    },

    onLog: (entry: CrawlLogEntry) => {
      const off = this.append('[4,' + JSON.stringify(entry) + ']\n');
      this.data.logged(off, entry);
      if (this.newLogs.length < MAX_NEW_LOGS) this.newLogs.push(entry);
      this.noted(false);
    },
  };
}

/** Bytes of the journal read at a time when links are looked up (links(), eachLink()). */
const LINK_SCAN_BYTES = 1 << 20;

/** The JSON array of buf[start, end), or undefined. */
function parseLine(buf: Buffer, start: number, end: number): unknown[] | undefined {
  try {
    const rec = JSON.parse(buf.toString('utf8', start, end)) as unknown;
    return Array.isArray(rec) ? rec : undefined;
  } catch {
    return undefined;
  }
}

/** The record for a run's repeats: a DUP line for one, a DUPS line for more. */
function repeatsLine(r: Repeats): string {
  return r.n === 1 ? r.line : encodeDups(r.id, r.source, r.from, r.n, r.entry);
}

/**
 * The checkpoint to resume from, with the sitemaps its list does not know yet handed back: a page
 * that turned out to be a sitemap after the checkpoint was taken (its result is replayed, so the page
 * is not fetched again, and the list must read the sitemap itself). `nodes` is the tree now,
 * `atCheckpoint` the tree as of the checkpoint: a checkpoint of the list (SitemapListCheckpoint,
 * version 2) holds no tree, and gets this one handed back; one written before (the engine's
 * SitemapRequestListState, version 1) holds its own. Anything else is passed on untouched.
 */
export function reconcileCheckpoint(
  cp: CrawlerCheckpoint,
  nodes: SitemapNode[],
  settings: CrawlSettings,
  atCheckpoint: SitemapNode[] = nodes,
): CrawlerCheckpoint {
  const st = cp.sitemapList as SitemapListResume | undefined;
  if (!st || !Array.isArray(st.pending)) return cp;
  const explicit = new Set(settings.sitemapUrls.map((u) => tryUniqueKey(u)));
  const missingOf = (known: Set<string>) => nodes.filter((n) => n.parentId === null && n.type !== 'robots' && !known.has(n.id) && !explicit.has(n.id));
  const asPending = (n: SitemapNode): SitemapNode => ({ ...n, state: 'pending', problems: [...n.problems] });
  if (st.version === 2) {
    const known = new Set<string>();
    for (const n of atCheckpoint) {
      known.add(n.id);
      const redirected = n.finalUrl === undefined ? null : tryUniqueKey(n.finalUrl);
      if (redirected !== null) known.add(redirected);
    }
    const missing = missingOf(known);
    return {
      ...cp,
      sitemapList: {
        ...st,
        nodes: [...atCheckpoint, ...missing.map(asPending)],
        pending: [...st.pending, ...missing.map((n): [string, number] => [n.id, -1])],
      } satisfies SitemapListResume,
    };
  }
  if (st.version !== 1 || !Array.isArray(st.nodes) || !Array.isArray(st.seen)) return cp;
  const missing = missingOf(new Set<string>([...st.nodes.map((n) => n.id), ...st.seen.map(([k]) => k)]));
  if (missing.length === 0) return cp;
  return {
    ...cp,
    sitemapList: {
      ...st,
      nodes: [...st.nodes, ...missing.map(asPending)],
      pending: [...st.pending, ...missing.map((n) => ({ id: n.id, url: n.url, parentId: null }))],
      seen: [...st.seen, ...missing.map((n): [string, string] => [n.id, n.id])],
    } satisfies SitemapRequestListState,
  };
}
