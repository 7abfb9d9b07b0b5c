/**
 * UrlStore: what the URL table needs per URL, in typed columns (no JS object per URL), plus the
 * crawl's counters kept up to date as URLs are admitted and handled.
 *
 * The URL text itself lives in the request queue (its byte arena) and everything else — the sitemap
 * entry, the full result — in the journal, found again by the record offsets kept here.
 * About 28 bytes per URL.
 */
import type { CrawlCounters, RequestSource, UrlState } from '../../../shared/model.js';
import { emptyCounters } from '../../../shared/model.js';
import { column, ensureCapacity, w3cDatetimeMs, widened } from '../../engine/index.js';
import { SOURCES } from '../journal/format.js';

export const ST_QUEUED = 0;
export const ST_DONE = 1;
export const ST_ERROR = 2;
export const ST_BLOCKED = 3;
export const ST_LISTED = 4;

/** UrlState per state code. 'fetching' is not a code: a queued URL in `inFlight` shows as fetching. */
export const STATE_NAMES: readonly UrlState[] = ['queued', 'done', 'error', 'blocked', 'listed'];

/** State code for a result state. */
export function resultStateCode(state: 'done' | 'error' | 'blocked'): number {
  return state === 'done' ? ST_DONE : state === 'error' ? ST_ERROR : ST_BLOCKED;
}

/** The status class of an HTTP status (0 = none). */
export function statusClassOf(status: number): '2xx' | '3xx' | '4xx' | '5xx' | 'other' | 'none' {
  if (status === 0) return 'none';
  if (status >= 200 && status < 300) return '2xx';
  if (status >= 300 && status < 400) return '3xx';
  if (status >= 400 && status < 500) return '4xx';
  if (status >= 500 && status < 600) return '5xx';
  return 'other';
}

export class UrlStore {
  /** URLs admitted (ids 0 … count-1). */
  count = 0;
  /** Bumped on every change: views cached against an older version are stale. */
  version = 0;
  state = column(Uint8Array);
  /** Queued URLs being fetched right now (at most the concurrency; never persisted: a resume fetches them again). */
  readonly inFlight = new Set<number>();
  source = column(Uint8Array);
  /** Made with the first URL deeper than 0 (a sitemap crawl's URLs all have depth 0); read it with depthColumn(). */
  private depth: Uint16Array | null = null;
  /**
   * HTTP status; 0 = none. Like the result offsets, it grows only as results come in: a crawl
   * that lists a million sitemap URLs before fetching any does not carry 7 empty bytes for each.
   * Read it with statusOf().
   */
  private status = column(Uint16Array);
  /**
   * The lastmod of the URL's entry (see listing: its latest) in whole seconds since 1970 (UTC), clamped
   * to 1 … 2^32-1; 0 = absent or unparsable. Only sorting reads it (rows show the entry's own text), and seconds
   * sort as well as milliseconds at half the bytes. Read it with lastmodOf().
   */
  private lastmodSec = column(Uint32Array);
  /**
   * Journal offsets of the record holding the URL's sitemap entry (its first listing's, or the one with
   * the latest lastmod), and of its latest RESULT record (see OffsetColumn). Read them with entryOffset() and resultOffset().
   */
  private readonly entries = new OffsetColumn();
  private readonly results = new OffsetColumn();
  /** FROM-table entry + 1 of the first sitemap listing the URL; 0 = none. 16 bits until a crawl has 65,535 sitemaps. */
  smFirst: Uint16Array | Int32Array = column(Uint16Array);
  /** Further sitemaps listing a URL (FROM-table entries), for the few listed more than once. */
  readonly smMore = new Map<number, number[]>();
  /** Page titles (only fetched HTML pages have one). */
  readonly titles = new Map<number, string>();

  private readonly c: CrawlCounters = emptyCounters();

  /** Records a new URL. `sitemapRef` is the FROM entry of the sitemap that listed it (or -1). */
  admit(id: number, source: RequestSource, listed: boolean, depth: number, sitemapRef: number, entryOffset: number, lastmod: string | undefined): void {
    if (id !== this.count) throw new Error(`UrlStore: admission ${id} out of order (next is ${this.count})`);
    this.grow(id + 1);
    this.count = id + 1;
    const st = listed ? ST_LISTED : ST_QUEUED;
    this.state[id] = st;
    this.source[id] = SOURCES.indexOf(source);
    if (depth !== 0 && this.depth === null) this.depth = ensureCapacity(column(Uint16Array), this.state.length);
    if (this.depth !== null) this.depth[id] = Math.min(depth, 0xffff);
    if (sitemapRef >= 0) this.listing(id, sitemapRef, entryOffset, lastmod);
    this.c.discovered++;
    this.c.bySource[source]++;
    if (listed) this.c.listed++;
    else this.c.queued++;
    this.version++;
  }

  /** Records that a sitemap (FROM entry `ref`) lists URL `id`, with the record holding its entry. */
  listing(id: number, ref: number, entryOffset: number, lastmod: string | undefined): void {
    if (ref + 1 > 0xffff && this.smFirst instanceof Uint16Array) this.smFirst = widened(this.smFirst);
    const first = this.smFirst[id]!;
    if (first === 0) {
      this.smFirst[id] = ref + 1;
    } else if (first !== ref + 1) {
      const more = this.smMore.get(id);
      if (!more) this.smMore.set(id, [ref]);
      else if (!more.includes(ref)) more.push(ref);
    }
    if (entryOffset >= 0) {
      // The entry a row shows: the first listing's, or a later one whose lastmod is later, as the audit
      // judges a URL on its latest lastmod (a URL written twice, the first time without one).
      const sec = lastmod === undefined ? 0 : lastmodSeconds(parseLastmod(lastmod));
      if (!this.entries.has(id) || sec > this.lastmodSec[id]!) {
        this.entries.set(id, entryOffset);
        this.lastmodSec[id] = sec;
      }
    }
    this.version++;
  }

  /** Counts a discovery of a known URL (`n` of them). */
  duplicate(n = 1): void {
    this.c.duplicates += n;
  }

  /** Records a URL's result (latest wins). */
  result(id: number, stateCode: number, status: number | undefined, title: string | undefined, offset: number): void {
    if (id >= this.results.length) {
      this.results.grow(id + 1);
      this.status = ensureCapacity(this.status, id + 1);
    }
    this.results.set(id, offset);
    this.inFlight.delete(id);
    const prev = this.state[id]!;
    this.tally(prev, this.status[id]!, -1);
    this.state[id] = stateCode;
    this.status[id] = status !== undefined && status > 0 && status < 0xffff ? status : 0;
    if (title !== undefined) this.titles.set(id, title);
    else this.titles.delete(id);
    this.tally(stateCode, this.status[id]!, 1);
    this.version++;
  }

  /** Journal offset of the record holding URL `id`'s first sitemap entry, or -1. */
  entryOffset(id: number): number {
    return this.entries.get(id);
  }

  /** Journal offset of URL `id`'s latest RESULT record, or -1. */
  resultOffset(id: number): number {
    return id < this.results.length ? this.results.get(id) : -1;
  }

  /** URL `id`'s HTTP status; 0 = none (not fetched, or no response). */
  statusOf(id: number): number {
    return id < this.status.length ? this.status[id]! : 0;
  }

  /** Every URL's depth (capped at 65,535), for sorting: zeros while no URL is deeper than 0. */
  depthColumn(): Uint16Array {
    return this.depth ?? new Uint16Array(this.count);
  }

  /** URL `id`'s lastmod in seconds since 1970 (see lastmodSec); 0 = none. */
  lastmodOf(id: number): number {
    return this.lastmodSec[id]!;
  }

  /** Sitemap FROM entries listing URL `id`, first first. */
  sitemapsOf(id: number): number[] {
    const first = this.smFirst[id]!;
    if (first === 0) return [];
    const more = this.smMore.get(id);
    return more ? [first - 1, ...more] : [first - 1];
  }

  /** The counters, with `fetching` of the queued ones in flight right now. */
  counters(fetching: number): CrawlCounters {
    const c = this.c;
    const f = Math.min(fetching, c.queued);
    return {
      ...c,
      queued: c.queued - f,
      fetching: f,
      bySource: { ...c.bySource },
      byStatusClass: { ...c.byStatusClass },
      sitemaps: { ...c.sitemaps },
    };
  }

  /** Sets the sitemap counts (kept by the tree). */
  setSitemapCounts(s: CrawlCounters['sitemaps']): void {
    this.c.sitemaps = { ...s };
  }

  /** Bytes held by the columns (for memory reports). */
  allocatedBytes(): number {
    return [this.state, this.source, this.depth ?? new Uint16Array(0), this.status, this.lastmodSec, this.smFirst].reduce(
      (n, a) => n + a.byteLength,
      this.entries.bytes() + this.results.bytes(),
    );
  }

  /** Adds (d = 1) or removes (d = -1) a URL in state `st` with `status` to the counters. */
  private tally(st: number, status: number, d: number): void {
    const c = this.c;
    if (st === ST_QUEUED) c.queued += d;
    else if (st === ST_DONE) c.fetched += d;
    else if (st === ST_ERROR) c.errors += d;
    else if (st === ST_BLOCKED) c.blocked += d;
    else c.listed += d;
    if (status !== 0) {
      const cls = statusClassOf(status);
      if (cls !== 'none') c.byStatusClass[cls] += d;
    }
  }

  private grow(need: number): void {
    if (need <= this.state.length) return;
    this.state = ensureCapacity(this.state, need);
    this.source = ensureCapacity(this.source, need);
    if (this.depth) this.depth = ensureCapacity(this.depth, need);
    this.lastmodSec = ensureCapacity(this.lastmodSec, need);
    this.entries.grow(need);
    this.smFirst = ensureCapacity(this.smFirst, need);
  }
}

/** Recently parsed lastmods that are not W3C Datetimes. */
const lastmodCache = new Map<string, number>();
const LASTMOD_CACHE_MAX = 4096;

/** Offsets past 1 TiB do not fit the 40-bit columns. */
const MAX_OFFSET = 2 ** 40 - 2;

/**
 * Journal offsets per URL as offset + 1 (0 = none) in 40 bits: the low 32 in a Uint32 column, the high
 * 8 in a Uint8 column made only once an offset needs it (a journal past 4 GiB). Float64 columns would
 * cost 4 bytes more per URL, and a high byte from the start 1 more, for crawls that never get there.
 */
class OffsetColumn {
  private lo = column(Uint32Array);
  private hi: Uint8Array | null = null;

  /** Ids the column has room for. */
  get length(): number {
    return this.lo.length;
  }

  grow(need: number): void {
    this.lo = ensureCapacity(this.lo, need);
    if (this.hi) this.hi = ensureCapacity(this.hi, need);
  }

  has(id: number): boolean {
    return this.lo[id] !== 0 || (this.hi !== null && this.hi[id] !== 0);
  }

  set(id: number, offset: number): void {
    if (offset > MAX_OFFSET) throw new Error(`UrlStore: journal offset ${offset} is past 1 TiB`);
    const v = offset + 1;
    this.lo[id] = v % 0x1_0000_0000;
    const high = Math.floor(v / 0x1_0000_0000);
    if (high !== 0 && this.hi === null) this.hi = ensureCapacity(column(Uint8Array), this.lo.length);
    if (this.hi !== null) this.hi[id] = high;
  }

  /** The offset stored for id, or -1 when none. */
  get(id: number): number {
    return (this.hi === null ? 0 : this.hi[id]! * 0x1_0000_0000) + this.lo[id]! - 1;
  }

  bytes(): number {
    return this.lo.byteLength + (this.hi?.byteLength ?? 0);
  }
}

/** Epoch ms as the lastmod column keeps it: whole seconds, clamped to 1 … 2^32-1; 0 for NaN. */
export function lastmodSeconds(ms: number): number {
  if (Number.isNaN(ms)) return 0;
  return Math.min(0xffff_ffff, Math.max(1, Math.floor(ms / 1000)));
}

/**
 * A lastmod as epoch ms (NaN when it is none): a W3C Datetime read by hand (w3cDatetimeMs, no cache
 * needed), anything else (kept as written when a sitemap has it) by Date.parse, cached: sitemaps
 * that write dates their own way repeat a few of them over many URLs.
 */
export function parseLastmod(s: string): number {
  const w = w3cDatetimeMs(s);
  if (!Number.isNaN(w)) return w;
  let t = lastmodCache.get(s);
  if (t === undefined) {
    t = Date.parse(s);
    if (!Number.isFinite(t)) t = NaN;
    if (lastmodCache.size >= LASTMOD_CACHE_MAX) lastmodCache.clear();
    lastmodCache.set(s, t);
  }
  return t;
}
