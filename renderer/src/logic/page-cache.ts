/**
 * A cache of remote rows kept by page, for the virtualised tables: only pages near what is on
 * screen are held, so a million-row crawl costs a few hundred rows of memory.
 */

export interface CachedPage<T> {
  rows: T[];
  /** Generation the page was fetched in; older pages are shown but fetched again. */
  gen: number;
  /** Last time the page was read, for eviction. */
  touched: number;
}

export class PageCache<T> {
  private pages = new Map<number, CachedPage<T>>();
  private inflight = new Map<number, number>();
  private clock = 0;
  /** Bumped when the data behind the cache changed (live crawl): pages are refreshed lazily. */
  gen = 0;

  constructor(
    readonly pageSize: number,
    /** Pages kept at most; the least recently read go first. */
    readonly maxPages = 40,
  ) {}

  /** The page holding row `index`. */
  pageOf(index: number): number {
    return Math.floor(index / this.pageSize);
  }

  /** The row at `index`, or undefined while its page is not loaded. */
  get(index: number): T | undefined {
    const page = this.pages.get(this.pageOf(index));
    if (!page) return undefined;
    page.touched = ++this.clock;
    return page.rows[index - this.pageOf(index) * this.pageSize];
  }

  /** Pages covering rows [start, end] (inclusive) that are missing or stale and not being fetched. */
  pagesToFetch(start: number, end: number, total: number): number[] {
    if (total <= 0 || end < start) return [];
    const last = Math.min(end, total - 1);
    const out: number[] = [];
    for (let p = this.pageOf(Math.max(0, start)); p <= this.pageOf(last); p++) {
      const have = this.pages.get(p);
      if (have && have.gen === this.gen) continue;
      if (this.inflight.get(p) === this.gen) continue;
      out.push(p);
    }
    return out;
  }

  /** Notes that page `p` is being fetched in the current generation. */
  begin(p: number): number {
    this.inflight.set(p, this.gen);
    return this.gen;
  }

  /** Stores a fetched page; an answer from an older generation still fills a gap but stays stale. */
  put(p: number, rows: T[], gen: number): void {
    if (this.inflight.get(p) === gen) this.inflight.delete(p);
    const have = this.pages.get(p);
    if (have && have.gen > gen) return;
    this.pages.set(p, { rows, gen, touched: ++this.clock });
    this.evict();
  }

  /** Forgets a failed fetch so that it is tried again. */
  fail(p: number, gen: number): void {
    if (this.inflight.get(p) === gen) this.inflight.delete(p);
  }

  /** Marks every page stale: they stay visible until their fresh copy arrives. */
  invalidate(): void {
    this.gen++;
  }

  /** Drops everything (the filter or sort changed: old rows would be wrong, not just old). */
  clear(): void {
    this.pages.clear();
    this.inflight.clear();
    this.gen++;
  }

  /** How many pages are held. */
  size(): number {
    return this.pages.size;
  }

  private evict(): void {
    if (this.pages.size <= this.maxPages) return;
    const byAge = [...this.pages.entries()].sort((a, b) => a[1].touched - b[1].touched);
    for (const [p] of byAge.slice(0, this.pages.size - this.maxPages)) this.pages.delete(p);
  }
}
