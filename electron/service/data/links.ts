/**
 * LinkStore: per URL, what the pages' `<a>`/`<area>` links say about it — inlinks (links, and distinct
 * linking pages), a page's own outlinks (internal, external), and click depth — built from the
 * journal's LINKS records (and RESULT: redirects), by the same methods live and on replay.
 *
 * Memory: typed columns made with the first LINKS record (a sitemap-only crawl carries none):
 * inlinks, unique inlinks, outlinks internal and external (4 bytes each), the page's LINKS offset
 * (8) and click depth (4): 28 bytes per URL, plus 4 per URL once a redirect is seen. The links
 * themselves stay in the journal; held beyond the page being applied is only the note of links to
 * URLs not held yet (12 bytes per page and target, and the target's key once).
 *
 * Rules:
 * - A link counts as an inlink of its target when the crawl holds the target, whenever it came to hold
 *   it; a link to the page itself counts as none. A link whose target the crawl did not hold as the
 *   page was recorded (not followed: nofollow, a crawl that does not follow links; filtered, over the
 *   URL limit) is kept in the record by its text. When its target is admitted later (a sitemap lists
 *   it, another page links to it), the link counts from then on: until then the store keeps, by the
 *   target's uniqueKey (interned), the page and how many such links it has (TextTargets), so the counts
 *   do not depend on which came first. That note is bounded: past MAX_TEXT_LINKS pages-and-targets no
 *   more are kept (the same on replay) and `textLinksCapped` says so.
 * - A page's first LINKS record counts; a later one of the same page (fetched again) is ignored, in
 *   the counts and in the link lists (runtime links()), so resume never counts a page twice.
 * - Click depth: the fewest clicks from a `start` URL (depth 0), along links that are not nofollow
 *   on pages whose links were recorded, a redirect counting as one click (an off-site URL gets one
 *   too, one more than the page linking to it: the path ends there, as it is not fetched). When
 *   a URL's depth drops and its own links are already recorded, its LINKS record is read back and its
 *   targets relaxed again (a work queue, each URL queued once per improvement), so the depths are
 *   the shortest paths whatever order pages came in. A URL reached only through sitemaps has none.
 */
import { column, ensureCapacity, StringIndex, tryUniqueKey } from '../../engine/index.js';
import { LINK_EXTERNAL, LINK_NOFOLLOW, REC_LINKS, linksOf, type LinkTuple } from '../journal/format.js';

/** What the store needs of the crawl's URLs. */
export interface LinkUrls {
  /** URLs admitted (ids 0 … count-1). */
  count(): number;
  /** The id of a uniqueKey, when the crawl holds it. */
  idOf(uniqueKey: string): number | undefined;
}

export class LinkStore {
  /** Reads a journal record back by its offset (the runtime's: file or writer's pending lines). */
  read: (offset: number) => unknown[] | undefined = () => undefined;

  private inl: Uint32Array | null = null;
  private uniq: Uint32Array | null = null;
  private outInt: Uint32Array | null = null;
  private outExt: Uint32Array | null = null;
  /** Offset + 1 of each page's (first) LINKS record; 0: none. */
  private linksAt: Float64Array | null = null;
  /** Click depth + 1; 0: none. */
  private depth: Uint32Array | null = null;
  /** Redirect target id + 1; 0: none. Made with the first redirect. */
  private redirect: Int32Array | null = null;
  /** 1 for a URL with inlinks recorded by its text before it was held (links() must compare keys for it). */
  private lateIn: Uint8Array | null = null;
  /** Pages with links to URLs not held when they were recorded, by the target's uniqueKey; made with the first. */
  private textual: TextTargets | null = null;
  /** `start` URLs (depth 0) while the depth column is not made. */
  private readonly starts = new Set<number>();
  /** The latest RESULT's redirect whose target was not held yet: the crawler admits it right after. */
  private pendingRedirect: { from: number; key: string } | null = null;
  /** Distinct targets of the page being applied. */
  private readonly seen = new Set<number>();
  /** URLs whose depth dropped, to relax their links again. */
  private work: number[] = [];
  private draining = false;

  private pages = 0;

  constructor(private readonly urls: LinkUrls) {}

  // ---------------------------------------------------------------- queries

  /** Pages whose links were recorded. */
  get pagesWithLinks(): number {
    return this.pages;
  }

  /** Every `<a>`/`<area>` link to `id` on crawled pages (0 when none). */
  inlinks(id: number): number {
    return this.inl?.[id] ?? 0;
  }

  /** Distinct pages linking to `id`. */
  uniqueInlinks(id: number): number {
    return this.uniq?.[id] ?? 0;
  }

  /** Links of page `id` to URLs in scope (itself included); undefined unless its links were recorded. */
  outlinksInternal(id: number): number | undefined {
    return this.hasLinks(id) ? this.outInt![id]! : undefined;
  }

  /** Links of page `id` outside the crawl's scope; undefined unless its links were recorded. */
  outlinksExternal(id: number): number | undefined {
    return this.hasLinks(id) ? this.outExt![id]! : undefined;
  }

  /** Fewest clicks from the start URL; undefined when no followed link path reaches it. */
  clickDepth(id: number): number | undefined {
    if (this.depth === null) return this.starts.has(id) ? 0 : undefined;
    const d = this.depth[id] ?? 0;
    return d === 0 ? undefined : d - 1;
  }

  /** Whether some of URL `id`'s inlinks name it by text: recorded before the crawl held it. */
  hasTextInlinks(id: number): boolean {
    return (this.lateIn?.[id] ?? 0) !== 0;
  }

  /** Journal offset of page `id`'s LINKS record (the one counted), or -1. */
  linksOffset(id: number): number {
    return (this.linksAt?.[id] ?? 0) - 1;
  }

  /** Bytes held by the columns. */
  allocatedBytes(): number {
    let n = 0;
    for (const a of [this.inl, this.uniq, this.outInt, this.outExt, this.linksAt, this.depth, this.redirect, this.lateIn]) n += a?.byteLength ?? 0;
    return n + (this.textual?.allocatedBytes() ?? 0);
  }

  // ---------------------------------------------------------------- records (live and replay)

  /** URL `id` entered the crawl (ADMIT); `start`: it is a start URL. */
  admitted(id: number, uniqueKey: string, start: boolean): void {
    const p = this.pendingRedirect;
    if (p !== null && p.key === uniqueKey) {
      this.pendingRedirect = null;
      this.setRedirect(p.from, id);
    }
    if (this.textual !== null && this.textual.entries !== 0) this.textLinksTo(id, uniqueKey);
    if (start) this.start(id);
  }

  /** Whether links to URLs not held yet stopped being noted (MAX_TEXT_LINKS): their counts may then miss some. */
  get textLinksCapped(): boolean {
    return this.textual?.capped ?? false;
  }

  /**
   * Counts the links recorded by text that name URL `id`, just admitted: the pages noted under its key,
   * each with how many such links it has, and whether one is followed (for click depth).
   */
  private textLinksTo(id: number, key: string): void {
    let relax = false;
    this.textual!.take(key, (page, n, followed) => {
      this.grow(Math.max(this.urls.count(), id + 1));
      this.inl![id]! += n;
      this.uniq![id]!++;
      this.markTextInlinks(id);
      const d = followed ? this.clickDepth(page) : undefined;
      if (d !== undefined) {
        this.improve(id, d + 1);
        relax = true;
      }
    });
    if (relax) this.drain();
  }

  private markTextInlinks(id: number): void {
    this.lateIn = ensureCapacity(this.lateIn ?? column(Uint8Array), Math.max(this.urls.count(), id + 1));
    this.lateIn[id] = 1;
  }

  /** URL `id` is a start URL (admitted as one, or found again as one): depth 0. */
  start(id: number): void {
    if (this.clickDepth(id) === 0) return;
    if (this.depth === null) this.starts.add(id);
    else this.depth = ensureCapacity(this.depth, id + 1);
    if (this.depth !== null) this.depth[id] = 1;
    this.queued(id);
    this.drain();
  }

  /** A RESULT of URL `id`: a redirect to `redirectTo` is a click to the URL of its uniqueKey. */
  result(id: number, redirectTo: string | undefined): void {
    this.pendingRedirect = null;
    if (redirectTo === undefined) return;
    const key = tryUniqueKey(redirectTo);
    if (key === null) return;
    const to = this.urls.idOf(key);
    if (to === undefined) this.pendingRedirect = { from: id, key };
    else if (to !== id) this.setRedirect(id, to);
  }

  /** A LINKS record (parsed) at `offset`: the links of page r[1]. */
  apply(r: unknown[], offset: number): void {
    const id = r[1] as number;
    const count = this.urls.count();
    if (!(Number.isSafeInteger(id) && id >= 0 && id < count)) return;
    if (this.hasLinks(id)) return; // fetched again: its first record counts (see the file comment)
    this.grow(count);
    const links = linksOf(r);
    this.linksAt![id] = offset + 1;
    this.pages++;
    let internal = 0;
    let external = 0;
    const seen = this.seen;
    seen.clear();
    let noted: Map<string, number> | null = null;
    for (const t of links) {
      if (!Array.isArray(t)) continue;
      if (((t[2] ?? 0) & LINK_EXTERNAL) !== 0) external++;
      else internal++;
      let to = t[0];
      if (typeof to === 'string') {
        const key = tryUniqueKey(to);
        if (key === null) continue;
        const held = this.urls.idOf(key);
        if (held === undefined) {
          // Not held as the page was recorded: noted, to be counted if the crawl comes to hold it.
          noted ??= new Map();
          // Links << 1 | followed, as TextTargets keeps them.
          const v = noted.get(key) ?? 0;
          noted.set(key, ((v >>> 1) + 1) * 2 + ((v & 1) | (((t[2] ?? 0) & LINK_NOFOLLOW) === 0 ? 1 : 0)));
          continue;
        }
        // Held by now (a journal replayed with its records renumbered): counted as links() lists it.
        to = held;
        if (held !== id) this.markTextInlinks(held);
      }
      if (typeof to !== 'number' || to === id || !(to >= 0 && to < count)) continue;
      this.inl![to]!++;
      if (!seen.has(to)) {
        seen.add(to);
        this.uniq![to]!++;
      }
    }
    seen.clear();
    if (noted !== null) {
      this.textual ??= new TextTargets();
      for (const [key, v] of noted) this.textual.add(key, id, v >>> 1, (v & 1) === 1);
    }
    this.outInt![id] = internal;
    this.outExt![id] = external;
    const d = this.clickDepth(id);
    if (d !== undefined) {
      this.relaxLinks(id, d, links);
      this.drain();
    }
  }

  // ---------------------------------------------------------------- click depth

  private hasLinks(id: number): boolean {
    return this.linksAt !== null && (this.linksAt[id] ?? 0) !== 0;
  }

  private setRedirect(from: number, to: number): void {
    this.redirect = ensureCapacity(this.redirect ?? column(Int32Array), Math.max(from + 1, this.urls.count()));
    this.redirect[from] = to + 1;
    const d = this.clickDepth(from);
    if (d !== undefined) {
      this.improve(to, d + 1);
      this.drain();
    }
  }

  /** Gives URL `id` depth `d` when that is shorter than what it has, and queues it to relax its links. */
  private improve(id: number, d: number): void {
    const cur = this.clickDepth(id);
    if (cur !== undefined && cur <= d) return;
    this.makeDepth();
    this.depth = ensureCapacity(this.depth!, id + 1);
    this.depth[id] = d + 1;
    this.queued(id);
  }

  private queued(id: number): void {
    if (this.hasLinks(id) || (this.redirect?.[id] ?? 0) !== 0) this.work.push(id);
  }

  private relaxLinks(id: number, d: number, links: LinkTuple[]): void {
    const count = this.urls.count();
    for (const t of links) {
      if (!Array.isArray(t)) continue;
      let to = t[0];
      if (typeof to === 'string') {
        // Named by text as the page was recorded: a link all the same, once the crawl holds its target.
        const key = tryUniqueKey(to);
        const held = key === null ? undefined : this.urls.idOf(key);
        if (held === undefined) continue;
        to = held;
      }
      if (typeof to !== 'number' || to === id || !(to >= 0 && to < count)) continue;
      // An off-site target is one click away as any (it is not fetched, so the path ends there).
      if (((t[2] ?? 0) & LINK_NOFOLLOW) !== 0) continue;
      this.improve(to, d + 1);
    }
  }

  /** Relaxes the URLs whose depth dropped: their redirect, and their links read back from the journal. */
  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      for (let i = 0; i < this.work.length; i++) {
        const id = this.work[i]!;
        const d = this.clickDepth(id)!;
        const to = (this.redirect?.[id] ?? 0) - 1;
        if (to >= 0) this.improve(to, d + 1);
        const off = this.linksOffset(id);
        if (off < 0) continue;
        const rec = this.read(off);
        if (rec && rec[0] === REC_LINKS) this.relaxLinks(id, d, linksOf(rec));
      }
    } finally {
      this.work = [];
      this.draining = false;
    }
  }

  private makeDepth(): void {
    if (this.depth !== null) return;
    this.depth = ensureCapacity(column(Uint32Array), this.urls.count());
    for (const id of this.starts) {
      this.depth = ensureCapacity(this.depth, id + 1);
      this.depth[id] = 1;
    }
    this.starts.clear();
  }

  private grow(need: number): void {
    this.inl = ensureCapacity(this.inl ?? column(Uint32Array), need);
    this.uniq = ensureCapacity(this.uniq ?? column(Uint32Array), need);
    this.outInt = ensureCapacity(this.outInt ?? column(Uint32Array), need);
    this.outExt = ensureCapacity(this.outExt ?? column(Uint32Array), need);
    this.linksAt = ensureCapacity(this.linksAt ?? column(Float64Array), need);
  }
}

/** Pages and targets noted at most: about 12 MB of entries, and the targets' keys. */
export const MAX_TEXT_LINKS = 1_000_000;

/**
 * The links of pages to URLs not held yet, by the target's uniqueKey (interned: compared exactly):
 * per key a chain of entries (page, how many links, whether one is followed). An entry taken is not
 * reused; past MAX_TEXT_LINKS entries no more are added.
 */
class TextTargets {
  private readonly keys = new StringIndex();
  /** Per interned key: its newest entry + 1 (0: none). */
  private heads = column(Int32Array);
  private pages = column(Uint32Array);
  /** Links << 1 | followed. */
  private counts = column(Uint32Array);
  /** The entry before it in its key's chain + 1 (0: none). */
  private next = column(Int32Array);
  private used = 0;
  /** Entries not taken yet. */
  entries = 0;
  capped = false;

  add(key: string, page: number, links: number, followed: boolean): void {
    if (this.used >= MAX_TEXT_LINKS) {
      this.capped = true;
      return;
    }
    const k = this.keys.intern(key);
    this.heads = ensureCapacity(this.heads, k + 1);
    const e = this.used++;
    this.pages = ensureCapacity(this.pages, e + 1);
    this.counts = ensureCapacity(this.counts, e + 1);
    this.next = ensureCapacity(this.next, e + 1);
    this.pages[e] = page;
    this.counts[e] = Math.min(links, 0x7fff_ffff) * 2 + (followed ? 1 : 0);
    this.next[e] = this.heads[k]!;
    this.heads[k] = e + 1;
    this.entries++;
  }

  /** Hands over the entries of `key`, oldest first, and forgets them. */
  take(key: string, each: (page: number, links: number, followed: boolean) => void): void {
    const k = this.keys.find(key);
    if (k < 0 || k >= this.heads.length || this.heads[k] === 0) return;
    const chain: number[] = [];
    for (let e = this.heads[k]! - 1; e >= 0; e = this.next[e]! - 1) chain.push(e);
    this.heads[k] = 0;
    this.entries -= chain.length;
    for (let i = chain.length - 1; i >= 0; i--) {
      const e = chain[i]!;
      each(this.pages[e]!, this.counts[e]! >>> 1, (this.counts[e]! & 1) === 1);
    }
  }

  allocatedBytes(): number {
    return this.keys.allocatedBytes() + this.heads.byteLength + this.pages.byteLength + this.counts.byteLength + this.next.byteLength;
  }
}
