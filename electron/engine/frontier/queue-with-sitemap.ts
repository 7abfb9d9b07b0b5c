/**
 * RequestQueueWithSitemap: one queue in front of a RequestQueue and a SitemapRequestList.
 * Start URLs, links and sitemap entries all go through the same RequestQueue (one dedup authority);
 * sitemap entries are moved over only when the queue runs low, so the list is read as needed.
 */
import type { SitemapRequestList } from '../sitemap/request-list.js';
import type { AddRequestResult, ListingWire, Request, RequestInit, RequestQueue } from '../types.js';
import { tryUniqueKey } from './url.js';

/** The frontier is readied ahead for at most this many times the URLs it holds (see reserve). */
const RESERVE_AHEAD = 16;
/** The URLs held count as at least this many there (a first sitemap of a few URLs says little). */
const RESERVE_MIN = 10_000;

/** What becomes of a sitemap entry: fetched, only recorded, or dropped. */
export type AdmitDecision = 'queued' | 'listed' | 'skip';

export interface RequestQueueWithSitemapOptions {
  queue: RequestQueue;
  list: SitemapRequestList;
  /** Pending requests below which entries are moved from the list, and the most moved at once. Default 1000. */
  batchSize?: number;
  /** Decides per sitemap entry (its uniqueKey already set); default 'queued'. */
  filter?(init: RequestInit): AdmitDecision;
  /** A sitemap entry whose URL is not a valid http(s) URL; it is dropped. */
  onInvalid?(init: RequestInit): void;
}

export class RequestQueueWithSitemap {
  readonly queue: RequestQueue;
  readonly list: SitemapRequestList;
  private readonly batchSize: number;
  private readonly filter?: (init: RequestInit) => AdmitDecision;
  private readonly onInvalid?: (init: RequestInit) => void;
  private refilling: Promise<void> | null = null;
  private nSkipped = 0;
  private nInvalid = 0;
  /** The list's readCount() when the frontier was last readied for what is to come. */
  private sitemapsSeen = 0;
  /** The uniqueKeys and wire forms of the batch being admitted (scratch, reused). */
  private readonly keys: (string | undefined)[] = [];
  private readonly wires: (ListingWire | undefined)[] = [];

  constructor(opts: RequestQueueWithSitemapOptions) {
    this.queue = opts.queue;
    this.list = opts.list;
    this.batchSize = Math.max(1, opts.batchSize ?? 1000);
    this.filter = opts.filter;
    this.onInvalid = opts.onInvalid;
  }

  /** Next request to fetch, topping the queue up from the sitemaps first when it runs low. */
  async fetchNextRequest(): Promise<Request | null> {
    if (this.queue.pendingCount() < this.batchSize) await this.refill();
    return this.queue.fetchNextRequest();
  }

  /** Admits a start URL or a link ('listed': recorded as handled, never fetched). */
  addRequest(init: RequestInit, as: 'queued' | 'listed' = 'queued'): AddRequestResult {
    return this.queue.addRequest(init, { handled: as === 'listed' });
  }

  markRequestHandled(request: Request): void {
    this.queue.markRequestHandled(request);
  }

  reclaimRequest(request: Request, opts?: { forefront?: boolean }): void {
    this.queue.reclaimRequest(request, opts);
  }

  /** Nothing pending in the queue and nothing left in the sitemaps (requests may be in flight). */
  async isEmpty(): Promise<boolean> {
    return this.queue.isEmpty() && (await this.list.isEmpty());
  }

  /** Nothing pending, nothing in flight, nothing left in the sitemaps. */
  async isFinished(): Promise<boolean> {
    return this.queue.isFinished() && (await this.list.isFinished());
  }

  /** Sitemap entries the filter dropped. */
  skippedCount(): number {
    return this.nSkipped;
  }

  /** Sitemap entries dropped for an invalid URL. */
  invalidCount(): number {
    return this.nInvalid;
  }

  /** Moves up to batchSize entries from the list, stopping once batchSize requests are pending. */
  private refill(): Promise<void> {
    // Concurrent callers share one refill: the list is a sequence.
    this.refilling ??= this.moveBatch().finally(() => {
      this.refilling = null;
    });
    return this.refilling;
  }

  private async moveBatch(): Promise<void> {
    let moved = 0;
    while (moved < this.batchSize && this.queue.pendingCount() < this.batchSize) {
      if (this.list.readCount() !== this.sitemapsSeen) this.reserve();
      // Each entry adds at most one pending request: asking for no more than the room left keeps
      // the result the same as taking them one by one, with one await per batch instead of per entry.
      const room = Math.min(this.batchSize - moved, this.batchSize - this.queue.pendingCount());
      const wires = this.wires;
      const inits = await this.list.fetchNextBatch(room, wires);
      if (inits.length === 0) return;
      moved += inits.length;
      if (this.queue.prepareKeys) {
        const keys = this.keys;
        for (let i = 0; i < inits.length; i++) keys[i] = inits[i]!.uniqueKey;
        this.queue.prepareKeys(keys, inits.length);
      }
      for (let i = 0; i < inits.length; i++) this.admit(inits[i]!, wires[i]);
      wires.fill(undefined, 0, inits.length); // a wire's text holds its whole batch's text
    }
  }

  /**
   * After each sitemap read to its end: tells the queue how many URLs the sitemaps still waiting are
   * likely to list (SitemapRequestList.expectedUrls), so its key table grows once rather than doubling
   * its way there; capped at RESERVE_AHEAD times the URLs held, so a poor guess costs a table a few
   * times too large, not one sized for the guess.
   */
  private reserve(): void {
    this.sitemapsSeen = this.list.readCount();
    if (!this.queue.reserve) return;
    const held = this.queue.totalCount();
    const expected = this.list.expectedUrls();
    if (expected > 0) this.queue.reserve(held + Math.min(expected, RESERVE_AHEAD * Math.max(held, RESERVE_MIN)));
  }

  private admit(init: RequestInit, wire: ListingWire | undefined): void {
    const uniqueKey = init.uniqueKey ?? tryUniqueKey(init.url);
    if (uniqueKey === null) {
      this.nInvalid++;
      this.onInvalid?.(init);
      return;
    }
    init.uniqueKey = uniqueKey;
    const decision = this.filter ? this.filter(init) : 'queued';
    if (decision === 'skip') {
      this.nSkipped++;
      return;
    }
    this.queue.addRequest(init, wire === undefined ? { handled: decision === 'listed' } : { handled: decision === 'listed', wire });
  }
}
