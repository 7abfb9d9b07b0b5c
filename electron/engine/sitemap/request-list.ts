/**
 * SitemapRequestList: turns sitemap URLs into RequestInits lazily, one sitemap at a time.
 *
 * - Streams: one sitemap is open at a time and parsed one batch at a time, only when an entry is
 *   asked for. Its body is drained to a spool file as fast as it arrives and parsed from there: the
 *   fetcher's timeout covers the whole body and a response holds a per-host slot until it ends, so
 *   a socket left paused for the crawler's pace would time out, or starve page fetches of its host.
 *   Once its body is in, the next queued sitemap is fetched and spooled the same way (read-ahead, one
 *   at most, none under a URL limit), so it does not wait for its request when its turn comes.
 * - Breadth-first: child sitemaps of an index are queued at the back in the order listed, so a tree
 *   is read level by level in document order. A sitemap handed in with a response already fetched
 *   (addSitemap with `response`) jumps the queue, so its socket is not left waiting.
 * - One read per sitemap: every uniqueKey seen (listed URLs and redirect targets) is remembered; a
 *   sitemap listed again is a problem on the node that listed it (SITEMAP_CYCLE when it is that node
 *   or one of its ancestors, DUPLICATE_SITEMAP otherwise) and is not fetched. A parent handed in
 *   that the list does not hold (the crawler's robots.txt node) counts as seen too: an index that
 *   lists robots.txt is a cycle, never a read of robots.txt as a text sitemap.
 * - Resumable: getState() holds the tree, the queue, the seen set, and how many items of the sitemap
 *   in progress were consumed; on resume that sitemap is read again and those items skipped. Items
 *   (entries, child sitemaps, problems) rather than entries only are counted, so an index read again
 *   does not queue its children twice. close() releases the sitemap in progress the same way.
 *   checkpointState() is the same without the tree and the seen set, for a caller that journals the
 *   nodes onNode tells (it first tells those changed since): a resume hands the tree as of it back,
 *   and the seen set is made from the tree.
 * - Retried: a body that breaks off (a network error, a timeout) is fetched again from the start, up
 *   to `retries` times, skipping the items consumed as a resume does; the node says so.
 * - Problems: a node stores the first MAX_NODE_PROBLEMS and always its fatal one, and counts every
 *   one per code (problemCounts); onProblem hears of each, and whether the node kept it.
 */
import { randomBytes } from 'node:crypto';
import { open as openFile, unlink, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Problem, SitemapNode, SitemapType } from '../../../shared/model.js';
import {
  EngineError,
  type FetchOptions,
  type FetchResponse,
  type HttpFetcher,
  type CarriedSitemap,
  type KeyValueStore,
  type ListingWire,
  type RecrawlBase,
  type RequestInit,
  type SitemapItem,
  type SitemapLimits,
  type SitemapSummary,
} from '../types.js';
import { isRetryableError } from '../http/http.js';
import { tryUniqueKey } from '../frontier/url.js';
import { resolveLimits } from './read/limits.js';
import { streamSitemap } from './read/stream.js';
import { ownedChunk, streamSitemapInWorker, warmSitemapWorker } from './worker/worker-stream.js';

export interface SitemapRequestListOptions {
  /** Root sitemaps (ignored when `state` is given: they are in it). */
  sitemapUrls: string[];
  fetcher: HttpFetcher;
  /** Tree parent of the roots, e.g. the robots.txt node id. */
  parentId?: string | null;
  /** Total URL entries to hand out; after that the list is finished and unread sitemaps are skipped. */
  limit?: number;
  /** Copied onto every RequestInit produced (userData by reference: do not mutate it). */
  label?: string;
  userData?: Record<string, unknown>;
  limits?: Partial<SitemapLimits>;
  /** Entries per parser batch (the most the list holds ahead). Default 256. */
  batchSize?: number;
  /** robots.txt check before fetching a sitemap; a disallowed one is 'skipped' with a problem. */
  isAllowed?(url: string): boolean;
  /**
   * Asked before a sitemap's redirect hop is followed (out of scope, disallowed by robots.txt):
   * throws an EngineError to refuse it; the sitemap then fails with that problem.
   */
  checkRedirect?(next: string, from: string): void | Promise<void>;
  /** Filter for child sitemaps listed by an index; a rejected one is 'skipped' with a problem. */
  keepSitemap?(url: string): boolean;
  /** Every add or change of a tree node (a copy of the whole node). */
  onNode?(node: SitemapNode): void;
  /**
   * Every problem recorded, including those past a node's stored-problem cap: `kept` is false for
   * those the node did not store (it still counts them), and for a problem of a node the list does
   * not hold (robots.txt listing itself).
   */
  onProblem?(nodeId: string, p: Problem, kept: boolean): void;
  /** Time for one attempt of a sitemap, headers and body (default: the fetcher's own timeout). */
  timeoutMs?: number;
  /** The longest wait for a byte of a sitemap (default: the fetcher's own). */
  idleTimeoutMs?: number;
  /** Times a sitemap whose body broke off (network error, timeout) is fetched again from the start. Default 2. */
  retries?: number;
  /** Wait before fetching a broken sitemap again, doubled each further time. Default 500 ms. */
  retryDelayMs?: number;
  /** Resume from getState(), or from checkpointState() with the tree as of it in `nodes`. */
  state?: SitemapListResume;
  /** Folder for the spool file of the sitemap being read (deleted when read). Default: the OS temp dir. */
  spoolDir?: string;
  /**
   * Parse sitemaps in a worker thread: inflating and tokenizing run on another core and this thread
   * only takes in finished entries. False parses on this thread (same results, a slower ingest, less
   * memory: docs/performance.md). Default: true unless the environment sets SPINNERET_PARSE_WORKER=0.
   */
  parseInWorker?: boolean;
  /**
   * Recrawl: sitemaps are fetched with the base crawl's validators; one that answers 304 (or 200
   * with the same validators and the same index lastmod as in the base) is not parsed: the base's
   * reading of it is handed out instead, items and node alike (the node marked carriedOver).
   */
  carry?: Pick<RecrawlBase, 'sitemapValidators' | 'carriedSitemap'>;
}

/** A sitemap waiting to be read. */
export interface PendingSitemap {
  id: string;
  url: string;
  parentId: string | null;
  lastmod?: string;
  /** Scope of its entries when robots.txt announced it (or its index): `<robots origin>/`. */
  scope?: string;
}

/** JSON-serialisable progress of a SitemapRequestList, the tree and all (getState). */
export interface SitemapRequestListState {
  version: 1;
  /** URL entries handed out. */
  processedCount: number;
  /** Every node of the tree, finished ones with their data. */
  nodes: SitemapNode[];
  /** Sitemaps queued, in order. */
  pending: PendingSitemap[];
  /** The sitemap being read, and how many of its items were consumed. */
  current: (PendingSitemap & { consumed: number }) | null;
  /** uniqueKey → node id, for every sitemap URL and redirect target seen. */
  seen: [string, string][];
  /** True once the limit stopped the list. */
  limitReached: boolean;
}

/**
 * The progress of a SitemapRequestList for a checkpoint whose journal holds the tree (checkpointState):
 * where the list is, not what it found. Its size does not grow with the sitemaps read: a resume takes
 * the tree as of the checkpoint from the journal (`nodes`), and the seen set from the tree.
 */
export interface SitemapListCheckpoint {
  version: 2;
  /** URL entries handed out. */
  processedCount: number;
  /**
   * Sitemaps queued, in order: a node id, and its scope as an index into `scopes` (-1: none). The
   * URL, parent and lastmod of each are its node's.
   */
  pending: [id: string, scope: number][];
  /** The scopes of pending sitemaps (robots.txt origins), each once. */
  scopes: string[];
  /** The sitemap being read, and how many of its items were consumed. */
  current: (PendingSitemap & { consumed: number }) | null;
  /** True once the limit stopped the list. */
  limitReached: boolean;
}

/**
 * What a list resumes from: a full state, or a checkpoint with the tree as of it handed back in
 * `nodes` (robots.txt nodes among them are known as parents; they are not the list's).
 */
export type SitemapListResume = SitemapRequestListState | (SitemapListCheckpoint & { nodes?: SitemapNode[] });

interface Queued extends PendingSitemap {
  /** A response already fetched by someone else (not persisted: refetched on resume). */
  response?: FetchResponse;
  /** Its body, drained to a spool file from the moment it was handed in, so its socket never waits. */
  spool?: Promise<BodySpool>;
  /** Items to skip: consumed before a resume. */
  skip?: number;
  /** Read ahead (see readAhead): the fetch in flight, and how to call it off. */
  ahead?: { done: Promise<void>; abort: AbortController; error?: unknown };
  /** Attempts made before this one, whose bodies broke off (not persisted: a resume starts again). */
  attempt?: number;
}

interface Reading {
  item: Queued;
  node: SitemapNode;
  response: FetchResponse;
  spool: BodySpool;
  gen: AsyncGenerator<SitemapItem[], SitemapSummary, void>;
  batch: SitemapItem[];
  pos: number;
  /** Items consumed (URL entries handed out, child sitemaps queued, problems recorded). */
  consumed: number;
  skip: number;
  urls: number;
  children: number;
  /** Set when the body broke off and is to be fetched again: the items consumed until then. */
  broke?: number;
  /** The last problem item consumed that is not a "… and N more" summary, and whether the node kept it. */
  lastProblem?: { problem: Problem; kept: boolean };
  /** Recrawl: the base's node of a sitemap carried over (its items come from the base, not a body). */
  carried?: SitemapNode;
}

const ACCEPT = 'application/xml,text/xml;q=0.9,application/rss+xml;q=0.9,application/atom+xml;q=0.9,text/plain;q=0.8,*/*;q=0.5';
/** Problems stored on one node (its fatal one is stored past it); more still go to onProblem and are counted. */
const MAX_NODE_PROBLEMS = 100;
const TOO_MANY_PROBLEMS = 'TOO_MANY_PROBLEMS';
/**
 * The parser's summary of a code past its per-code cap (sitemap/problem-log.ts): "… and N more
 * CODE problems in this sitemap (…)". It stands for N problems.
 */
const MORE_PROBLEMS = /^… and (\d+) more /;
const DEFAULT_RETRIES = 2;
const DEFAULT_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 30_000;

// What a synchronous step of reading found.
const STEP_READY = 0;
const STEP_NONE = 1;
const STEP_IO = 2;

export class SitemapRequestList {
  private readonly opts: SitemapRequestListOptions;
  private readonly tree = new Map<string, SitemapNode>();
  /** uniqueKey → node id (a node's own key, and its redirect target's). */
  private readonly seen = new Map<string, string>();
  /** Sitemaps handed in with a response: read before the rest. */
  private readonly front: Queued[] = [];
  private readonly queue: Queued[] = [];
  private queueHead = 0;
  private reading: Reading | null = null;
  /** The sitemap being fetched (between the queue and `reading`). */
  private opening: Queued | null = null;
  /** A sitemap to continue where it stopped (after a resume or close), read before anything else. */
  private resumeAt: Queued | null = null;
  /** The entry peeked at by isFinished(), not yet handed out. */
  private peeked: Extract<SitemapItem, { kind: 'url' }> | null = null;
  /** The URL of the sitemap that listed `peeked`. */
  private peekedFrom = '';
  private processed = 0;
  /** Sitemaps read to their end (whatever they held), those that listed URLs, and the URLs they listed. */
  private sitemapsRead = 0;
  private urlSitemapsRead = 0;
  private urlsInSitemapsRead = 0;
  private limitReached = false;
  private lock: Promise<unknown> = Promise.resolve();
  /** Nodes changed since they were last told to onNode (the one being read, as its items come in). */
  private readonly unsaid = new Set<SitemapNode>();

  constructor(opts: SitemapRequestListOptions) {
    this.opts = opts;
    if (opts.state) this.restore(opts.state);
    else for (const url of opts.sitemapUrls) this.addSitemap(url, { parentId: opts.parentId ?? null });
  }

  /**
   * Gets ready to read sitemaps: starts the parse worker (when sitemaps are parsed there) while the
   * crawl's first requests are under way, so the first sitemap does not wait for it to load.
   */
  prepare(): void {
    if (this.inWorker()) warmSitemapWorker();
  }

  private inWorker(): boolean {
    return this.opts.parseInWorker ?? process.env.SPINNERET_PARSE_WORKER !== '0';
  }

  /** A list restored from `store[persistStateKey]` when present, otherwise a fresh one. */
  static async open(opts: SitemapRequestListOptions & { store?: KeyValueStore; persistStateKey?: string }): Promise<SitemapRequestList> {
    const { store, persistStateKey, ...rest } = opts;
    let state = rest.state;
    if (!state && store && persistStateKey && store.has(persistStateKey)) {
      state = store.get<SitemapListResume>(persistStateKey);
    }
    return new SitemapRequestList({ ...rest, state });
  }

  /** The next URL entry as a RequestInit, or null when every sitemap is read (or the limit is hit). */
  fetchNext(): Promise<RequestInit | null> {
    return this.serial(async () => ((await this.peek()) ? this.handOut() : null));
  }

  /**
   * Up to `max` next URL entries, at least one unless the sitemaps are read (or the limit is hit):
   * the entries already parsed, handed out without a promise each (an await per entry cost more than
   * the dedup itself). It returns before any I/O once it holds an entry: entries handed out count as
   * consumed in getState(), so they must reach the caller before a checkpoint can be taken in that
   * I/O's wait. With `wires`, wires[i] is set to entry i's wire form (undefined when it has none).
   */
  fetchNextBatch(max: number, wires?: (ListingWire | undefined)[]): Promise<RequestInit[]> {
    return this.serial(async () => {
      const out: RequestInit[] = [];
      while (out.length < max) {
        let s = this.step();
        if (s === STEP_IO && out.length > 0) break;
        while (s === STEP_IO) {
          await this.stepIo();
          s = this.step();
        }
        if (s === STEP_NONE) break;
        if (wires) wires[out.length] = this.peeked!.wire;
        out.push(this.handOut());
      }
      return out;
    });
  }

  /**
   * Queues a sitemap found outside the roots: announced by robots.txt, or a page that turned out to
   * be XML (pass its `response` so it is not fetched twice). A known sitemap is not queued again.
   */
  addSitemap(url: string, o: { parentId?: string | null; lastmod?: string; response?: FetchResponse; scope?: string } = {}): void {
    const parentId = o.parentId ?? null;
    if (parentId !== null) this.knowParent(parentId);
    const id = tryUniqueKey(url);
    if (id === null) {
      o.response?.body.destroy();
      // No uniqueKey to name it by: the node is named by the text as given, so the tree shows it.
      const node = newNode(url, url, parentId, o.lastmod);
      node.state = 'error';
      this.tree.set(url, node);
      this.addProblem(node, { code: 'INVALID_SITEMAP_URL', message: `"${url}" is not a valid http(s) sitemap URL.`, url }, true, true);
      return;
    }
    if (this.seen.has(id)) {
      o.response?.body.destroy();
      if (parentId === null) return;
      const problem = this.repeatProblem(url, id, parentId);
      const parent = this.tree.get(parentId);
      if (parent) this.addProblem(parent, problem, true);
      else this.opts.onProblem?.(parentId, problem, false); // robots.txt listing itself: its node is not the list's
      return;
    }
    this.seen.set(id, id);
    const node = newNode(id, url, parentId, o.lastmod);
    this.tree.set(id, node);
    if (this.limitReached) {
      // Never read: its socket and buffers are freed now, not when its timeout fires.
      o.response?.body.destroy();
      this.addProblem(node, limitProblem(this.opts.limit ?? 0), false, true);
      node.state = 'skipped';
      this.emit(node);
      return;
    }
    this.emit(node);
    const item: Queued = { id, url, parentId, ...(o.lastmod ? { lastmod: o.lastmod } : {}), ...(o.scope ? { scope: o.scope } : {}) };
    if (o.response) {
      const ok = o.response.status >= 200 && o.response.status < 300;
      const spool = ok ? BodySpool.start(o.response.body, this.opts.spoolDir ?? tmpdir()) : undefined;
      spool?.catch(() => undefined); // a failure is reported when the sitemap is opened
      this.front.push({ ...item, response: o.response, ...(spool ? { spool } : {}) });
    } else this.queue.push(item);
  }

  /** True when no entry is left to hand out (reads ahead to find out). */
  isFinished(): Promise<boolean> {
    return this.serial(async () => !(await this.peek()));
  }

  /** Same as isFinished: a list has no requests in progress of its own. */
  isEmpty(): Promise<boolean> {
    return this.isFinished();
  }

  /** Sitemaps read to their end so far: the estimate below changes when this does. */
  readCount(): number {
    return this.sitemapsRead;
  }

  /**
   * How many more URL entries the sitemaps waiting to be read are likely to list: as many each as the
   * sitemaps read so far listed on average (0 until one has listed URLs). Generators fill sitemaps to
   * the same size, so after the first of an index's children this is near the truth; it is a guess
   * to size structures by, never a limit.
   */
  expectedUrls(): number {
    if (this.urlSitemapsRead === 0) return 0;
    const waiting = this.front.length + this.queue.length - this.queueHead;
    return Math.round((waiting * this.urlsInSitemapsRead) / this.urlSitemapsRead);
  }

  /** URL entries handed out. */
  processedCount(): number {
    return this.processed;
  }

  /** The list's whole progress, its tree and seen set too (see checkpointState for a checkpoint's). */
  getState(): SitemapRequestListState {
    return {
      version: 1,
      processedCount: this.processed,
      nodes: [...this.tree.values()].map(copyNode),
      pending: [...this.front, ...this.queue.slice(this.queueHead)].map(pendingOf),
      current: this.current(),
      seen: [...this.seen],
      limitReached: this.limitReached,
    };
  }

  /** The sitemap in progress, and its items consumed. */
  private current(): SitemapRequestListState['current'] {
    // Items still to be skipped were consumed in an earlier run: they count as consumed.
    if (this.reading) return { ...pendingOf(this.reading.item), consumed: this.reading.consumed + this.reading.skip };
    const inProgress = this.opening ?? this.resumeAt;
    return inProgress ? { ...pendingOf(inProgress), consumed: inProgress.skip ?? 0 } : null;
  }

  /**
   * The list's progress for a checkpoint whose journal holds the tree: every node changed since it
   * was last told to onNode is told now (the sitemap being read: its problems so far, its final URL),
   * so the nodes onNode told are the tree as of this state, and the state leaves them out.
   */
  checkpointState(): SitemapListCheckpoint {
    for (const node of this.unsaid) this.emit(node);
    const scopes: string[] = [];
    const scopeIndex = new Map<string, number>();
    const pending: [string, number][] = [];
    for (const q of [...this.front, ...this.queue.slice(this.queueHead)]) {
      let scope = -1;
      if (q.scope !== undefined) {
        scope = scopeIndex.get(q.scope) ?? -1;
        if (scope === -1) {
          scope = scopes.push(q.scope) - 1;
          scopeIndex.set(q.scope, scope);
        }
      }
      pending.push([q.id, scope]);
    }
    return { version: 2, processedCount: this.processed, pending, scopes, current: this.current(), limitReached: this.limitReached };
  }

  /** Writes getState() to `store` under `key`. */
  persist(store: KeyValueStore, key: string): void {
    store.set(key, this.getState());
  }

  /** Every node of the tree (copies). */
  nodes(): SitemapNode[] {
    return [...this.tree.values()].map(copyNode);
  }

  /**
   * How a sitemap is fetched, for a caller that fetches one itself (a default location): its
   * Accept header, its body cap and its timeouts.
   */
  sitemapFetchOptions(): FetchOptions {
    const o: FetchOptions = { accept: ACCEPT, maxBodyBytes: this.maxBody() };
    if (this.opts.timeoutMs !== undefined) o.timeoutMs = this.opts.timeoutMs;
    if (this.opts.idleTimeoutMs !== undefined) o.idleTimeoutMs = this.opts.idleTimeoutMs;
    return o;
  }

  /**
   * Closes the sitemap in progress and deletes its spool (pause, stop). A later fetchNext fetches it
   * again and continues where it stopped.
   */
  close(): Promise<void> {
    return this.serial(async () => {
      const next = this.queue[this.queueHead];
      if (next) await this.dropAhead(next);
      const r = this.reading;
      if (!r) return;
      this.reading = null;
      this.peeked = null; // not handed out: it is read again
      // Fetched again: neither the response handed in nor its spool (released below) is reused.
      this.resumeAt = { ...pendingOf(r.item), skip: r.consumed + r.skip };
      await release(r);
    });
  }

  // ------------------------------------------------------------------ reading

  /** Runs calls one after another: reading is a sequence, whatever the callers do. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** Hands out the peeked entry as a RequestInit (call after a step or peek found one). */
  private handOut(): RequestInit {
    const { entry, uniqueKey } = this.peeked!;
    const sitemapUrl = this.peekedFrom;
    this.peeked = null;
    this.reading!.consumed++;
    this.processed++;
    const init: RequestInit = { url: entry.loc, source: 'sitemap', depth: 0, discoveredFrom: sitemapUrl, sitemapEntry: entry };
    if (typeof uniqueKey === 'string') init.uniqueKey = uniqueKey; // worked out by the parse worker
    if (this.opts.label !== undefined) init.label = this.opts.label;
    if (this.opts.userData !== undefined) init.userData = this.opts.userData;
    return init;
  }

  /** Advances to the next URL entry (kept in `peeked`); false when there is none. */
  private async peek(): Promise<boolean> {
    for (;;) {
      const s = this.step();
      if (s !== STEP_IO) return s === STEP_READY;
      await this.stepIo();
    }
  }

  /**
   * The synchronous part of advancing: walks the items already parsed until a URL entry is in
   * `peeked` (STEP_READY), nothing is left (STEP_NONE), or a sitemap must be opened or read (STEP_IO).
   */
  private step(): number {
    for (;;) {
      if (this.opts.limit !== undefined && this.processed >= this.opts.limit) {
        this.stopAtLimit();
        return STEP_NONE;
      }
      if (this.peeked) return STEP_READY;
      const r = this.reading;
      if (!r) return this.resumeAt || this.front.length > 0 || this.queue[this.queueHead] ? STEP_IO : STEP_NONE;
      if (r.pos >= r.batch.length) return STEP_IO;
      const item = r.batch[r.pos++]!;
      // The body broke off and is fetched again: the rest of this read (the parser's summaries) does not count.
      if (r.broke !== undefined) continue;
      if (item.kind === 'problem' && this.breaksOffForRetry(r, item.problem)) {
        r.broke = r.consumed + r.skip;
        continue;
      }
      if (item.kind === 'url') r.urls++;
      else if (item.kind === 'sitemap') r.children++;
      if (r.skip > 0) {
        // Consumed before a resume or close: already handed out / queued / recorded.
        r.skip--;
        r.consumed++;
        continue;
      }
      if (item.kind === 'url') {
        this.peeked = item;
        this.peekedFrom = r.item.url;
        return STEP_READY;
      }
      if (item.kind === 'sitemap') this.addChild(r, item.loc, item.lastmod);
      else {
        const kept = this.addProblem(r.node, item.problem, false);
        if (!MORE_PROBLEMS.test(item.problem.message)) r.lastProblem = { problem: item.problem, kept };
      }
      r.consumed++;
    }
  }

  /**
   * True when `p` is the parser's report of the body breaking off (the spool's own error) and the
   * sitemap may be fetched again: not yet retried `retries` times.
   */
  private breaksOffForRetry(r: Reading, p: Problem): boolean {
    const err = r.spool.error();
    if (err === undefined || !isRetryableError(err) || (err as EngineError).code !== p.code) return false;
    return (r.item.attempt ?? 0) < (this.opts.retries ?? DEFAULT_RETRIES);
  }

  /** The I/O a step asked for: opens the next sitemap, or reads the next batch of the open one. */
  private async stepIo(): Promise<void> {
    const r = this.reading;
    if (!r) {
      const next = this.takeResumeAt() ?? this.front.shift() ?? this.queue[this.queueHead];
      if (!next) return;
      if (next === this.queue[this.queueHead]) {
        this.queue[this.queueHead++] = undefined as never; // let it go
        if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
          this.queue.splice(0, this.queueHead);
          this.queueHead = 0;
        }
      }
      this.opening = next;
      try {
        await this.open(next);
      } finally {
        this.opening = null;
      }
      return;
    }
    let step: IteratorResult<SitemapItem[], SitemapSummary>;
    try {
      step = await r.gen.next();
    } catch (err) {
      await this.readFailed(r, err);
      return;
    }
    if (step.done) await this.finishReading(r, step.value);
    else {
      r.batch = step.value;
      r.pos = 0;
    }
  }

  /** Fetches a queued sitemap and starts streaming it; failures end on its node. */
  private async open(item: Queued): Promise<void> {
    const node = this.tree.get(item.id) ?? newNode(item.id, item.url, item.parentId, item.lastmod);
    this.tree.set(item.id, node);
    const ahead = item.ahead;
    if (ahead) {
      await ahead.done;
      item.ahead = undefined;
      if (ahead.error !== undefined) {
        node.state = 'error';
        this.addProblem(node, asProblem(ahead.error, 'NETWORK_ERROR', item.url), false, true);
        this.emit(node);
        return;
      }
    }
    let response = item.response;
    if (!response) {
      if (this.opts.isAllowed && !this.opts.isAllowed(item.url)) {
        node.state = 'skipped';
        this.addProblem(node, { code: 'ROBOTS_DISALLOWED', message: `robots.txt disallows ${item.url}; the sitemap was not fetched.` }, false, true);
        this.emit(node);
        return;
      }
      node.state = 'fetching';
      this.emit(node);
      if (item.attempt) await sleep(this.retryDelay(item.attempt));
      try {
        response = await this.opts.fetcher.fetch(item.url, { ...this.fetchOptionsFor(item), beforeRedirect: this.hopCheck });
      } catch (err) {
        const e = asProblem(err, 'NETWORK_ERROR', item.url);
        node.state = 'error';
        this.addProblem(node, e, false, true);
        this.emit(node);
        return;
      }
    } else {
      node.state = 'fetching';
      this.emit(node);
    }

    const carried = this.carriedFor(item, response);
    if (carried) return this.openCarried(item, node, response, carried);
    if (response.status === 304) {
      // Not modified, but the base's reading cannot be had (its folder is gone): read it afresh.
      response.body.destroy();
      try {
        response = await this.opts.fetcher.fetch(item.url, { ...this.sitemapFetchOptions(), beforeRedirect: this.hopCheck });
      } catch (err) {
        node.state = 'error';
        this.addProblem(node, asProblem(err, 'NETWORK_ERROR', item.url), false, true);
        this.emit(node);
        return;
      }
    }
    node.httpStatus = response.status;
    const etag = response.headers.etag;
    const lastModified = response.headers['last-modified'];
    if (etag !== undefined) node.etag = etag;
    if (lastModified !== undefined) node.lastModified = lastModified;
    if (response.finalUrl && response.finalUrl !== item.url) node.finalUrl = response.finalUrl;
    if (response.redirectChain?.length) node.redirectChain = response.redirectChain.map((h) => ({ ...h }));
    this.unsaid.add(node);
    if (response.status < 200 || response.status >= 300) {
      response.body.destroy();
      void discardSpool(item);
      node.state = 'error';
      node.bytes = response.wireBytes();
      this.addProblem(node, httpProblem(response.status, item.url), false, true);
      this.emit(node);
      return;
    }
    const finalKey = response.finalUrl ? tryUniqueKey(response.finalUrl) : null;
    if (finalKey !== null && finalKey !== item.id) {
      const known = this.seen.get(finalKey);
      if (known !== undefined && known !== item.id) {
        // Redirected to a sitemap already read or queued (often back to its parent): read it once.
        response.body.destroy();
        void discardSpool(item);
        node.state = 'skipped';
        const cycle = this.isSelfOrAncestor(known, item.id);
        this.addProblem(
          node,
          {
            code: cycle ? 'SITEMAP_CYCLE' : 'DUPLICATE_SITEMAP',
            message: cycle
              ? `${item.url} redirects to ${response.finalUrl}, which listed it: not read again.`
              : `${item.url} redirects to ${response.finalUrl}, which is already read or queued: not read twice.`,
            url: response.finalUrl,
          },
          false,
          true,
        );
        this.emit(node);
        return;
      }
      this.seen.set(finalKey, item.id);
    }

    let spool: BodySpool;
    try {
      spool = await (item.spool ?? BodySpool.start(response.body, this.opts.spoolDir ?? tmpdir()));
    } catch (err) {
      response.body.destroy();
      node.state = 'error';
      this.addProblem(node, asProblem(err, 'SPOOL_FAILED', item.url), false, true);
      this.emit(node);
      return;
    }
    const stream = this.inWorker() ? streamSitemapInWorker : streamSitemap;
    const gen = stream(spool.read(), {
      url: response.finalUrl || item.url,
      ...(item.scope ? { scopeUrl: item.scope } : {}),
      limits: this.opts.limits,
      batchSize: this.opts.batchSize ?? 256,
      contentType: response.headers['content-type'],
    });
    const reading: Reading = {
      item,
      node,
      response,
      spool,
      gen,
      batch: [],
      pos: 0,
      consumed: 0,
      skip: item.skip ?? 0,
      urls: 0,
      children: 0,
    };
    this.reading = reading;
    // Once this body is in, the next sitemap is fetched: its response is there when this one is read.
    void spool.downloaded.then(() => {
      if (this.reading === reading) this.readAhead();
    });
  }

  /**
   * Fetches the sitemap to be read next (the head of the queue) while this one is parsed, so no
   * sitemap waits for its request, its headers and its spool file when the one before ends.
   * Its body is spooled at once, as a response handed in is; robots.txt is asked first, and a
   * disallowed or failed fetch is reported when the sitemap's turn comes; close() calls it off.
   * One sitemap ahead at most, and only while one is being read; none under a URL limit,
   * which may stop the list before the next sitemap (its download would be wasted).
   */
  private readAhead(): void {
    if (this.opts.limit !== undefined || this.front.length > 0 || this.resumeAt) return;
    const next = this.queue[this.queueHead];
    if (!next || next.response || next.ahead) return;
    if (this.opts.isAllowed && !this.opts.isAllowed(next.url)) return; // skipped with its problem in open()
    const abort = new AbortController();
    const ahead: NonNullable<Queued['ahead']> = { done: Promise.resolve(), abort };
    ahead.done = (async () => {
      try {
        const response = await this.opts.fetcher.fetch(next.url, {
          ...this.fetchOptionsFor(next),
          signal: abort.signal,
          beforeRedirect: this.hopCheck,
        });
        if (abort.signal.aborted) {
          response.body.destroy();
          return;
        }
        next.response = response;
        if (response.status >= 200 && response.status < 300) {
          next.spool = BodySpool.start(response.body, this.opts.spoolDir ?? tmpdir());
          next.spool.catch(() => undefined); // a failure is reported when the sitemap is opened
        }
      } catch (err) {
        if (!abort.signal.aborted) ahead.error = err;
      }
    })();
    next.ahead = ahead;
  }

  /** Calls off a read-ahead of `q` and lets go of what it fetched (close). */
  private async dropAhead(q: Queued): Promise<void> {
    const ahead = q.ahead;
    if (!ahead) return;
    q.ahead = undefined;
    ahead.abort.abort();
    await ahead.done;
    q.response?.body.destroy();
    await discardSpool(q);
    q.response = undefined;
    q.spool = undefined;
  }

  private async finishReading(r: Reading, summary: SitemapSummary): Promise<void> {
    if (r.broke !== undefined) return this.retry(r, r.broke);
    this.reading = null;
    const node = r.node;
    node.type = summary.type;
    node.gzip = summary.gzip;
    node.uncompressedBytes = summary.uncompressedBytes;
    node.urlCount = summary.urlCount;
    node.childCount = summary.childCount;
    node.bytes = r.carried ? r.carried.bytes : r.response.wireBytes();
    this.sitemapsRead++;
    if (summary.urlCount > 0) {
      this.urlSitemapsRead++;
      this.urlsInSitemapsRead += summary.urlCount;
    }
    if (summary.fatal) {
      // Entries read before the fatal problem were handed out and stay. The parser yields the
      // fatal problem as an item too (the last but its summaries): record it once, and keep it.
      node.state = 'error';
      const f = summary.fatal;
      const last = r.lastProblem;
      if (last && last.problem.code === f.code && last.problem.message === f.message) {
        if (!last.kept) node.problems.push(f); // counted and told already, not stored: the node's cap
      } else if (!node.problems.some((p) => p.code === f.code && p.message === f.message)) {
        this.addProblem(node, f, false, true);
      }
    } else {
      node.state = r.carried?.state === 'error' ? 'error' : 'done';
    }
    // Ended before the spool is let go: a checkpoint taken while it closes must see the sitemap
    // ended, not gone from reading with its node still fetching (a kill then left it so for good).
    this.emit(node);
    await r.spool.dispose();
  }

  /**
   * Reading threw (the parser turns body failures into a fatal problem, so this is the spool's disk
   * failing, or a parser bug): the node ends in error, entries handed out stay.
   */
  private async readFailed(r: Reading, err: unknown): Promise<void> {
    this.reading = null;
    const p = asProblem(err, 'SITEMAP_READ_FAILED', r.item.url);
    const node = r.node;
    node.state = 'error';
    node.urlCount = r.urls;
    node.childCount = r.children;
    node.bytes = r.response.wireBytes();
    this.addProblem(node, p, false, true);
    this.emit(node);
    await r.spool.dispose();
  }

  /**
   * The body broke off (network error, timeout) with attempts left: the sitemap is fetched again
   * from the start, before anything else, and the `consumed` items already read are skipped.
   */
  private async retry(r: Reading, consumed: number): Promise<void> {
    this.reading = null;
    const err = r.spool.error() as EngineError;
    const attempt = (r.item.attempt ?? 0) + 1;
    const node = r.node;
    const bytes = r.response.wireBytes();
    node.bytes = bytes;
    node.state = 'fetching';
    this.addProblem(
      node,
      {
        code: 'SITEMAP_RETRIED',
        message:
          `The download of ${r.item.url} broke off after ${bytes.toLocaleString('en-US')} bytes (${err.code}: ${err.message}); ` +
          `it is fetched again from the start (attempt ${attempt + 1} of ${(this.opts.retries ?? DEFAULT_RETRIES) + 1}), skipping what was read already.`,
      },
      false,
    );
    this.emit(node);
    this.resumeAt = { ...pendingOf(r.item), skip: consumed, attempt }; // before the wait: see finishReading
    await r.spool.dispose();
  }

  private retryDelay(attempt: number): number {
    return Math.min(MAX_RETRY_DELAY_MS, (this.opts.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS) * 2 ** (attempt - 1));
  }

  /** How a queued sitemap is fetched: as sitemapFetchOptions says, conditionally in a recrawl when the base has validators. */
  private fetchOptionsFor(item: PendingSitemap): FetchOptions {
    const o = this.sitemapFetchOptions();
    const v = this.opts.carry?.sitemapValidators(item.id);
    if (v && (v.etag !== undefined || v.lastModified !== undefined)) {
      o.conditional = {};
      if (v.etag !== undefined) o.conditional.etag = v.etag;
      if (v.lastModified !== undefined) o.conditional.lastModified = v.lastModified;
    }
    return o;
  }

  /**
   * Recrawl: the base's reading of a sitemap when this answer says it did not change: a 304, or a
   * 200 whose validators are the base's while its index gives it the base's lastmod.
   */
  private carriedFor(item: PendingSitemap, response: FetchResponse): CarriedSitemap | undefined {
    const carry = this.opts.carry;
    if (!carry) return undefined;
    const v = carry.sitemapValidators(item.id);
    if (!v) return undefined;
    let unchanged = response.status === 304;
    if (!unchanged && response.status >= 200 && response.status < 300 && item.lastmod !== undefined && item.lastmod === v.indexLastmod) {
      const etag = response.headers.etag;
      const lastModified = response.headers['last-modified'];
      unchanged = v.etag !== undefined ? etag === v.etag : v.lastModified !== undefined && lastModified === v.lastModified;
    }
    return unchanged ? carry.carriedSitemap(item.id) : undefined;
  }

  /** Starts handing out a carried sitemap's items (from the base) as if its body were being read. */
  private openCarried(item: Queued, node: SitemapNode, response: FetchResponse, carried: CarriedSitemap): void {
    response.body.destroy();
    void discardSpool(item);
    const base = carried.node;
    node.httpStatus = base.httpStatus;
    for (const k of ['finalUrl', 'redirectChain', 'etag', 'lastModified'] as const) {
      if (base[k] !== undefined) (node as unknown as Record<string, unknown>)[k] = base[k];
    }
    node.problems = base.problems.map((p) => ({ ...p }));
    if (base.problemCounts) node.problemCounts = { ...base.problemCounts };
    node.carriedOver = true;
    if (node.finalUrl !== undefined) {
      const finalKey = tryUniqueKey(node.finalUrl);
      if (finalKey !== null && !this.seen.has(finalKey)) this.seen.set(finalKey, item.id);
    }
    this.unsaid.add(node);
    this.reading = {
      item,
      node,
      response,
      spool: NO_SPOOL,
      gen: carriedStream(carried),
      batch: [],
      pos: 0,
      consumed: 0,
      skip: item.skip ?? 0,
      urls: 0,
      children: 0,
      carried: base,
    };
    this.readAhead();
  }

  private addChild(r: Reading, loc: string, lastmod: string | undefined): void {
    const parent = r.node;
    const id = tryUniqueKey(loc);
    if (id === null) {
      this.addProblem(parent, { code: 'INVALID_SITEMAP_URL', message: `The index lists "${loc}", which is not a valid http(s) URL.`, url: loc }, false);
      return;
    }
    if (this.seen.has(id)) {
      this.addProblem(parent, this.repeatProblem(loc, id, parent.id), false);
      return;
    }
    this.seen.set(id, id);
    const node = newNode(id, loc, parent.id, lastmod);
    this.tree.set(id, node);
    if (this.opts.keepSitemap && !this.opts.keepSitemap(loc)) {
      node.state = 'skipped';
      this.addProblem(node, { code: 'SITEMAP_FILTERED', message: `${loc} is outside the sitemaps this crawl reads; not fetched.` }, false, true);
      this.emit(node);
      return;
    }
    this.emit(node);
    // A robots.txt announcement covers the index's children on that host too.
    const scope = r.item.scope && loc.toLowerCase().startsWith(r.item.scope.toLowerCase()) ? r.item.scope : undefined;
    this.queue.push({ id, url: loc, parentId: parent.id, ...(lastmod ? { lastmod } : {}), ...(scope ? { scope } : {}) });
  }

  /**
   * Remembers a parent handed in from outside (the crawler's robots.txt node, named by its URL's
   * uniqueKey) as seen: the list holds no node for it, so a listing of that URL would otherwise make
   * one under the same id, read robots.txt as a text sitemap and give the tree's root a parent.
   */
  private knowParent(parentId: string): void {
    if (!this.tree.has(parentId) && !this.seen.has(parentId)) this.seen.set(parentId, parentId);
  }

  /** The problem for a sitemap listed again: a cycle when it is the lister or one of its ancestors. */
  private repeatProblem(url: string, key: string, listerId: string): Problem {
    const target = this.seen.get(key)!;
    const other = !this.tree.has(target); // a node of another kind: robots.txt (knowParent)
    if (this.isSelfOrAncestor(target, listerId)) {
      return {
        code: 'SITEMAP_CYCLE',
        message: other
          ? `${url} is the robots.txt this sitemap hangs from, not a sitemap: a cycle, not read.`
          : `${url} is listed by its own descendant (or itself): a cycle, not read again.`,
        url,
      };
    }
    return {
      code: 'DUPLICATE_SITEMAP',
      message: other
        ? `${url} is already in the sitemap tree as robots.txt, not a sitemap; not read.`
        : `${url} is listed more than once; it is read only once.`,
      url,
    };
  }

  private isSelfOrAncestor(candidate: string, nodeId: string): boolean {
    const guard = new Set<string>();
    for (let id: string | null = nodeId; id !== null && !guard.has(id); id = this.tree.get(id)?.parentId ?? null) {
      if (id === candidate) return true;
      guard.add(id);
    }
    return false;
  }

  /** Ends the list at its limit: the sitemap in progress is closed, queued ones are skipped. */
  private stopAtLimit(): void {
    if (this.limitReached && !this.reading && !this.resumeAt && this.front.length === 0 && this.queueHead >= this.queue.length) return;
    this.limitReached = true;
    this.peeked = null;
    const problem = limitProblem(this.opts.limit ?? 0);
    if (this.reading) {
      const r = this.reading;
      this.reading = null;
      void release(r);
      r.node.state = 'done';
      r.node.bytes = r.response.wireBytes();
      r.node.urlCount = r.urls;
      r.node.childCount = r.children;
      this.addProblem(r.node, problem, false, true);
      this.emit(r.node);
    }
    const rest = [...(this.resumeAt ? [this.resumeAt] : []), ...this.front.splice(0), ...this.queue.slice(this.queueHead)];
    this.resumeAt = null;
    for (const q of rest) {
      q.response?.body.destroy();
      void discardSpool(q);
      const node = this.tree.get(q.id);
      if (!node) continue;
      node.state = 'skipped';
      this.addProblem(node, problem, false, true);
      this.emit(node);
    }
    this.queue.length = 0;
    this.queueHead = 0;
  }

  private restore(state: SitemapListResume): void {
    const unreadable = () =>
      new EngineError('BAD_SITEMAP_STATE', 'The saved sitemap progress is unreadable; start the crawl afresh to read the sitemaps again.');
    if (!state || !Array.isArray(state.pending)) throw unreadable();
    if (state.version === 1) {
      if (!Array.isArray(state.nodes) || !Array.isArray(state.seen)) throw unreadable();
      for (const n of state.nodes) this.tree.set(n.id, copyNode(n));
      for (const [k, v] of state.seen) this.seen.set(k, v);
      for (const p of state.pending) this.queue.push({ ...p });
    } else if (state.version === 2) {
      if ((state.nodes !== undefined && !Array.isArray(state.nodes)) || !Array.isArray(state.scopes)) throw unreadable();
      const nodes = state.nodes ?? [];
      // robots.txt nodes are the crawler's: known as parents (below), never the list's own.
      for (const n of nodes) if (n.type !== 'robots') this.tree.set(n.id, copyNode(n));
      this.seeFromTree();
      for (const [id, scope] of state.pending) {
        const node = this.tree.get(id);
        const s = scope >= 0 ? state.scopes[scope] : undefined;
        this.queue.push({
          id,
          url: node?.url ?? id,
          parentId: node?.parentId ?? null,
          ...(node?.lastmod !== undefined ? { lastmod: node.lastmod } : {}),
          ...(s !== undefined ? { scope: s } : {}),
        });
      }
    } else throw unreadable();
    // A state saved before parents from outside were remembered (knowParent) lacks them; robots.txt nodes are some.
    for (const n of state.nodes ?? []) {
      if (n.type === 'robots') this.knowParent(n.id);
      if (n.parentId !== null) this.knowParent(n.parentId);
    }
    if (state.current) {
      const { consumed, ...item } = state.current;
      this.resumeAt = { ...item, skip: consumed };
    }
    this.processed = state.processedCount;
    this.limitReached = state.limitReached;
  }

  /**
   * The seen set of a tree restored without it (a checkpoint's): each node's own key, then where
   * sitemaps read redirected to, as open() records it — first come first, and a sitemap skipped for
   * redirecting to one already known never took the key.
   */
  private seeFromTree(): void {
    for (const id of this.tree.keys()) this.seen.set(id, id);
    for (const skipped of [false, true]) {
      for (const n of this.tree.values()) {
        if (n.finalUrl === undefined || (n.state === 'skipped') !== skipped) continue;
        const key = tryUniqueKey(n.finalUrl);
        if (key !== null && !this.seen.has(key)) this.seen.set(key, n.id);
      }
    }
  }

  // ------------------------------------------------------------------ nodes

  /**
   * Records a problem on a node: counted by code, stored while there is room (a `fatal` one, the
   * reason the node ended, always), told to onProblem; emits the node when asked. True when stored.
   */
  private addProblem(node: SitemapNode, p: Problem, emit: boolean, fatal = false): boolean {
    const counts = (node.problemCounts ??= {});
    const more = MORE_PROBLEMS.exec(p.message);
    counts[p.code] = (counts[p.code] ?? 0) + (more ? Number(more[1]) : 1);
    let kept = false;
    if (fatal || node.problems.length < MAX_NODE_PROBLEMS) {
      node.problems.push(p);
      kept = true;
    } else if (!node.problems.some((x) => x.code === TOO_MANY_PROBLEMS)) {
      node.problems.push({
        code: TOO_MANY_PROBLEMS,
        message: `More than ${MAX_NODE_PROBLEMS} problems on this sitemap: all are counted by code, the rest are listed in the crawl log.`,
      });
    }
    this.opts.onProblem?.(node.id, p, kept);
    if (emit) this.emit(node);
    else this.unsaid.add(node);
    return kept;
  }

  private emit(node: SitemapNode): void {
    this.unsaid.delete(node);
    this.opts.onNode?.(copyNode(node));
  }

  private takeResumeAt(): Queued | null {
    const q = this.resumeAt;
    this.resumeAt = null;
    return q;
  }

  private readonly hopCheck = (next: string, from: string): void | Promise<void> => this.opts.checkRedirect?.(next, from);

  /** The fetcher's body cap: past the parser's own, so the parser is the one to report size. */
  private maxBody(): number {
    return resolveLimits(this.opts.limits).maxUncompressedBytes + 1024 * 1024;
  }
}

/** The spool of a carried sitemap: it has no body. */
const NO_SPOOL = {
  downloaded: Promise.resolve(),
  error: () => undefined,
  dispose: () => Promise.resolve(),
} as unknown as BodySpool;

/** A carried sitemap's items, then the summary its base node gives. */
async function* carriedStream(c: CarriedSitemap): AsyncGenerator<SitemapItem[], SitemapSummary, void> {
  for await (const batch of c.items()) yield batch;
  const n = c.node;
  return { type: n.type, gzip: n.gzip, uncompressedBytes: n.uncompressedBytes, urlCount: n.urlCount, childCount: n.childCount };
}

/** What of a queued sitemap is persisted (and carried into a new attempt). */
function pendingOf(q: Queued): PendingSitemap {
  return {
    id: q.id,
    url: q.url,
    parentId: q.parentId,
    ...(q.lastmod ? { lastmod: q.lastmod } : {}),
    // robots.txt's announcement widens its scope: a resume must read it with the same one.
    ...(q.scope ? { scope: q.scope } : {}),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Ends a reading: stops the parser (which closes its source) and deletes the spool. */
async function release(r: Reading): Promise<void> {
  await r.gen.return(undefined as never).catch(() => undefined);
  await r.spool.dispose();
}

function newNode(id: string, url: string, parentId: string | null, lastmod?: string): SitemapNode {
  const node: SitemapNode = {
    id,
    url,
    parentId,
    type: 'unknown' satisfies SitemapType,
    state: 'pending',
    bytes: 0,
    uncompressedBytes: 0,
    gzip: false,
    urlCount: 0,
    childCount: 0,
    problems: [],
  };
  if (lastmod !== undefined) node.lastmod = lastmod;
  return node;
}

function copyNode(n: SitemapNode): SitemapNode {
  const copy = { ...n, problems: n.problems.map((p) => ({ ...p })) };
  if (n.problemCounts) copy.problemCounts = { ...n.problemCounts };
  return copy;
}

function limitProblem(limit: number): Problem {
  return {
    code: 'URL_LIMIT_REACHED',
    message: `The crawl's limit of ${limit} sitemap URLs was reached; the rest of this sitemap was not read.`,
  };
}

function httpProblem(status: number, url: string): Problem {
  const reason = HTTP_REASONS[status];
  return {
    code: `HTTP_${status}`,
    message: `${url} answered HTTP ${status}${reason ? ' ' + reason : ''}; the sitemap could not be read.`,
  };
}

const HTTP_REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  410: 'Gone',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

function asProblem(err: unknown, fallback: string, url: string): Problem {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' && e.code ? e.code : fallback;
  const message = typeof e?.message === 'string' && e.message ? e.message : String(err);
  return { code, message: message.includes(url) ? message : `${url}: ${message}` };
}

/** Closes and deletes the spool of a handed-in response that will not be read. */
async function discardSpool(q: Queued): Promise<void> {
  const spool = await q.spool?.catch(() => undefined);
  await spool?.dispose();
}

/**
 * A response body drained to a temporary file as fast as it arrives, read back lazily. The file is
 * unlinked right after opening where the OS allows (nothing is left behind by a crash), else on dispose.
 */
class BodySpool {
  private written = 0;
  private done = false;
  private failure: unknown = null;
  private disposed = false;
  private wake: (() => void) | null = null;
  private writing: Promise<void> = Promise.resolve();
  private unlinked = false;

  private constructor(
    private readonly file: FileHandle,
    private readonly path: string,
    private readonly body: Readable,
  ) {}

  /** Opens the spool file and starts draining `body` into it. */
  static async start(body: Readable, dir: string): Promise<BodySpool> {
    // Until the drain listens, an error of the body (a reset while the file opens) is kept, not uncaught.
    let early: unknown = null;
    const onEarly = (err: unknown) => {
      early ??= err;
    };
    body.on('error', onEarly);
    const path = join(dir, `spinneret-sitemap-${process.pid}-${randomBytes(6).toString('hex')}.spool`);
    let file: FileHandle;
    try {
      file = await openFile(path, 'w+', 0o600);
    } catch (err) {
      body.destroy();
      body.off('error', onEarly);
      throw err;
    }
    const spool = new BodySpool(file, path, body);
    await unlink(path).then(
      () => (spool.unlinked = true),
      () => undefined, // Windows: an open file cannot be unlinked; done on dispose
    );
    if (early !== null) spool.failure = early;
    spool.writing = spool.drain();
    body.off('error', onEarly);
    return spool;
  }

  /** Settles once the body is all in the file, failed, or was stopped (never rejects). */
  get downloaded(): Promise<void> {
    return this.writing;
  }

  /** The body's error, once it failed (undefined until then, and when it was stopped). */
  error(): unknown {
    return this.failure === null ? undefined : this.failure;
  }

  /** The body's bytes, as they arrive; throws the body's error after the bytes before it. */
  async *read(chunkSize = 64 * 1024): AsyncGenerator<Buffer, void, void> {
    let pos = 0;
    for (;;) {
      if (this.disposed) return;
      if (pos < this.written) {
        // Memory of its own (never a slice of Node's pool), handed to the parse worker as it is.
        const buf = ownedChunk(Buffer.allocUnsafeSlow(Math.min(chunkSize, this.written - pos)));
        const { bytesRead } = await this.file.read(buf, 0, buf.length, pos);
        if (bytesRead === 0) return;
        pos += bytesRead;
        yield bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
        continue;
      }
      if (this.failure !== null) throw this.failure;
      if (this.done) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Stops the download, closes and deletes the file. Safe to call more than once. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.body.destroy();
    this.signal();
    await this.writing;
    await this.file.close().catch(() => undefined);
    if (!this.unlinked) await unlink(this.path).catch(() => undefined);
  }

  private async drain(): Promise<void> {
    if (this.failure !== null) {
      this.body.destroy();
      return this.signal();
    }
    try {
      for await (const chunk of this.body as AsyncIterable<Buffer | string>) {
        if (this.disposed) return;
        const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        await this.file.write(buf, 0, buf.length, this.written);
        this.written += buf.length;
        this.signal();
      }
      this.done = true;
    } catch (err) {
      if (!this.disposed) this.failure = err;
    }
    this.signal();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
