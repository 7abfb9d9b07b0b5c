/**
 * UrlViews: the URL table's queries — filter, sort, page — over the UrlStore's columns.
 *
 * Unfiltered id order (the default view) is answered directly from offset/limit. Any other view is
 * an id list (Uint32Array) built once per (filter, sort) and cached: reused as long as the store has
 * not changed, and while a crawl runs for up to a second after it changed (rows are read fresh,
 * only the membership and order of a running crawl's view may lag by that much), or ten times as
 * long as the view took to build, so that a slow view never takes most of a running crawl's time.
 *
 * Columns the store holds sort from its typed arrays, and so do the link counts (LinkCounts) and the
 * audit's verdicts (PageVerdicts); any other field of a row sorts through the row itself (read from
 * the journal, as a page of the table is), so every column the table can show can be sorted, and a
 * field added to the rows is sortable before it gets a column of its own. A URL without the value
 * (no status yet, no title, no click depth, …) comes last in both directions, in id order: sorting
 * by inlinks descending shows the most linked pages first, not the pages that have no count.
 *
 * The page filters (indexability, click depth and inlinks ranges, has/misses a meta description or
 * an H1) read the same sources, never the journal. What the crawl cannot tell (a click depth range
 * when no link was followed, an H1 of a page that was not fetched) matches nothing, in either sense.
 * "No click depth" is the one exception, as it is a fact and not a measure: a crawl that followed no
 * link reached no URL by links, so every URL has none (as getPageStats counts them).
 */
import {
  MAX_PAGE,
  type Indexability,
  type IndexabilityReason,
  type StatusClass,
  type UrlQuery,
  type UrlRow,
  type UrlSortKey,
  type UrlState,
} from '../../../shared/model.js';
import { IndexabilityReasonSchema } from '../../../shared/contract.js';
import { ServiceError } from '../errors.js';
import { SOURCES } from '../journal/format.js';
import { STATE_NAMES, statusClassOf, type UrlStore, ST_BLOCKED } from './url-store.js';

/** What views need beyond the columns. */
export interface ViewContext {
  store: UrlStore;
  /** The URL of request `id`. */
  urlOf(id: number): string;
  /** FROM-table entries that are this sitemap node (by its id), or undefined when the node is unknown. */
  sitemapRefs(nodeId: string): Set<number> | undefined;
  /** The row as the table shows it: sorts by the fields the store does not hold. Absent: only those it holds sort. */
  row?(id: number): UrlRow;
  /** How to test an audit finding (throws BAD_QUERY for an unknown code); absent: no audit. */
  finding?(code: string): FindingFilter;
  /** The audit's verdicts per URL (the crawl's AuditEngine); absent: those filters match nothing, those sorts go through the rows. */
  verdicts?: PageVerdicts;
  /** The crawl's link counts (its LinkStore); absent: as for verdicts. */
  links?: LinkCounts;
  /** Recrawl: whether URL `id`'s result was carried over from the base crawl; absent: none was. */
  carriedOver?(id: number): boolean;
  /** True while the crawl runs (views may then lag by STALE_MS). */
  running(): boolean;
  now(): number;
}

export type ViewFilter = Omit<UrlQuery, 'offset' | 'limit'>;

/** What the audit knows of each URL without reading the journal (AuditEngine has these). */
export interface PageVerdicts {
  /** Undefined while the URL has no result. */
  indexability(id: number): { indexability: Indexability; reason?: IndexabilityReason } | undefined;
  /** For a fetched 2xx HTML page, whether it has a non-empty meta description and H1; else undefined. */
  pageFacts(id: number): { metaDescription: boolean; h1: boolean } | undefined;
}

/** The links between crawled pages, counted per URL (LinkStore has these). */
export interface LinkCounts {
  inlinks(id: number): number;
  uniqueInlinks(id: number): number;
  outlinksInternal(id: number): number | undefined;
  outlinksExternal(id: number): number | undefined;
  clickDepth(id: number): number | undefined;
  /** Pages whose links were recorded: 0 means the crawl has no link data (pages not fetched, an older journal). */
  readonly pagesWithLinks: number;
}

/** The indexability reasons in the order their names sort (as a row's text would sort). */
const REASON_RANK = new Map([...IndexabilityReasonSchema.options].sort().map((r, i) => [r, i] as const));

/**
 * A finding as a filter: the URLs it affects (`has`), or the sitemaps whose URLs it stands for.
 * `order`: the finding's own order of its URLs (duplicate titles and descriptions: group by group),
 * which an unsorted view follows instead of id order.
 */
export type FindingFilter = { has(id: number): boolean; order?(): readonly number[] } | { sitemapRefs: Set<number> };

interface CachedView {
  version: number;
  builtAt: number;
  /** How long building it took (ms). */
  buildMs: number;
  ids: Uint32Array;
}

/** A running crawl's view is rebuilt at most this often… */
const STALE_MS = 1000;
/** …or this many times as long as it took to build, whichever is longer. */
const STALE_BUILD_FACTOR = 10;
const MAX_CACHED = 8;

export class UrlViews {
  private readonly cache = new Map<string, CachedView>();

  constructor(private readonly ctx: ViewContext) {}

  /** Total matching and the ids of one page. */
  page(q: UrlQuery): { total: number; ids: number[] } {
    const offset = q.offset;
    const limit = q.limit;
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 0 || limit > MAX_PAGE) {
      throw new ServiceError('BAD_QUERY', `offset must be a whole number ≥ 0 and limit between 0 and ${MAX_PAGE}.`);
    }
    const store = this.ctx.store;
    if (isPlain(q)) {
      const total = store.count;
      const desc = q.sort?.dir === 'desc';
      const ids: number[] = [];
      for (let i = offset; i < Math.min(total, offset + limit); i++) ids.push(desc ? total - 1 - i : i);
      return { total, ids };
    }
    const view = this.view(q);
    const ids: number[] = [];
    for (let i = offset; i < Math.min(view.length, offset + limit); i++) ids.push(view[i]!);
    return { total: view.length, ids };
  }

  /** Every matching id in order (export). */
  all(filter: ViewFilter): Uint32Array {
    if (isPlain(filter)) {
      const n = this.ctx.store.count;
      const ids = new Uint32Array(n);
      const desc = filter.sort?.dir === 'desc';
      for (let i = 0; i < n; i++) ids[i] = desc ? n - 1 - i : i;
      return ids;
    }
    return this.view(filter);
  }

  /** Drops cached views (the crawl was reloaded). */
  clear(): void {
    this.cache.clear();
  }

  private view(f: ViewFilter): Uint32Array {
    const key = JSON.stringify([
      // No sort at all is a view of its own: a finding's order (see ordered()).
      f.sort?.key ?? null,
      f.sort?.dir ?? null,
      f.states,
      f.sources,
      f.statusClasses,
      f.statuses,
      f.inSitemap,
      f.blocked,
      f.search,
      f.sitemapId,
      f.finding,
      f.indexability,
      f.indexabilityReasons,
      f.clickDepth,
      f.noClickDepth,
      f.inlinks,
      f.metaDescription,
      f.h1,
      f.carriedOver,
    ]);
    const store = this.ctx.store;
    const hit = this.cache.get(key);
    const fresh = (v: CachedView) => this.ctx.now() - v.builtAt < Math.max(STALE_MS, STALE_BUILD_FACTOR * v.buildMs);
    if (hit && (hit.version === store.version || (this.ctx.running() && fresh(hit)))) {
      this.cache.delete(key);
      this.cache.set(key, hit); // most recently used last
      return hit.ids;
    }
    const started = this.ctx.now();
    const finding = this.findingOf(f);
    const filtered = this.filterIds(f, finding);
    const ids = (f.sort === undefined && finding && inOrderOf(finding, filtered)) || this.sortIds(filtered, f.sort?.key ?? 'id', f.sort?.dir ?? 'asc');
    const builtAt = this.ctx.now();
    this.cache.set(key, { version: store.version, builtAt, buildMs: builtAt - started, ids });
    while (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    return ids;
  }

  /** The finding the view filters by, once per view; BAD_QUERY when the crawl has no audit. */
  private findingOf(f: ViewFilter): FindingFilter | undefined {
    if (f.finding === undefined) return undefined;
    if (!this.ctx.finding) throw new ServiceError('BAD_QUERY', 'This crawl has no audit to filter by.');
    return this.ctx.finding(f.finding);
  }

  private filterIds(f: ViewFilter, finding: FindingFilter | undefined): Uint32Array {
    const s = this.ctx.store;
    const n = s.count;
    const tests: ((id: number) => boolean)[] = [];
    if (f.states) {
      const want = new Set(f.states.map((x: UrlState) => STATE_NAMES.indexOf(x)).filter((c) => c >= 0));
      const fetching = f.states.includes('fetching');
      // A URL in flight shows as fetching, so it matches 'fetching' and not 'queued'.
      tests.push((id) => (s.inFlight.has(id) ? fetching : want.has(s.state[id]!)));
    }
    if (f.sources) {
      const want = new Set(f.sources.map((x) => SOURCES.indexOf(x)));
      tests.push((id) => want.has(s.source[id]!));
    }
    if (f.statusClasses || f.statuses) {
      // One dimension: a URL whose status is in either list matches.
      const classes = new Set<StatusClass>(f.statusClasses);
      const exact = new Set<number>(f.statuses);
      tests.push((id) => {
        const status = s.statusOf(id);
        return exact.has(status) || classes.has(statusClassOf(status));
      });
    }
    if (f.inSitemap !== undefined) {
      const inSitemap = f.inSitemap;
      tests.push((id) => (s.smFirst[id] !== 0) === inSitemap);
    }
    if (f.blocked !== undefined) {
      const blocked = f.blocked;
      tests.push((id) => (s.state[id] === ST_BLOCKED) === blocked);
    }
    const listedBy = (refs: Set<number>) => (id: number) => {
      const first = s.smFirst[id]!;
      if (first === 0) return false;
      if (refs.has(first - 1)) return true;
      const more = s.smMore.get(id);
      return more !== undefined && more.some((r) => refs.has(r));
    };
    if (f.sitemapId !== undefined) {
      const refs = this.ctx.sitemapRefs(f.sitemapId);
      if (!refs) throw new ServiceError('NOT_FOUND', `No sitemap "${f.sitemapId}" in this crawl's tree.`);
      tests.push(listedBy(refs));
    }
    if (finding !== undefined) tests.push('has' in finding ? (id) => finding.has(id) : listedBy(finding.sitemapRefs));
    if (f.indexability !== undefined || f.indexabilityReasons !== undefined) {
      const verdicts = this.ctx.verdicts;
      const want = f.indexability;
      const reasons = f.indexabilityReasons ? new Set<string>(f.indexabilityReasons) : undefined;
      tests.push((id) => {
        const v = verdicts?.indexability(id);
        if (!v || (want !== undefined && v.indexability !== want)) return false;
        return !reasons || (v.indexability === 'non-indexable' && v.reason !== undefined && reasons.has(v.reason));
      });
    }
    if (f.noClickDepth === true && f.clickDepth !== undefined) {
      throw new ServiceError(
        'BAD_QUERY',
        'noClickDepth (URLs without a click depth) and clickDepth (a click-depth range) can never both match: give one of them.',
      );
    }
    if (f.noClickDepth !== undefined) {
      // The same test as getPageStats' noClickDepth count: a crawl that followed no link (or has no
      // link data) has no click depth for any URL, so every URL matches true and none false.
      const links = this.ctx.links;
      const none = f.noClickDepth;
      tests.push((id) => (links?.clickDepth(id) === undefined) === none);
    }
    if (f.clickDepth !== undefined) {
      const links = this.ctx.links;
      const inRange = rangeTest(f.clickDepth, 'clickDepth');
      tests.push((id) => {
        const d = links?.clickDepth(id);
        return d !== undefined && inRange(d);
      });
    }
    if (f.inlinks !== undefined) {
      const links = this.ctx.links;
      const inRange = rangeTest(f.inlinks, 'inlinks');
      // No link data at all (pages not fetched): no URL has a count to match, not every URL 0.
      const measured = links !== undefined && links.pagesWithLinks > 0;
      tests.push((id) => measured && inRange(links!.inlinks(id)));
    }
    for (const field of ['metaDescription', 'h1'] as const) {
      const want = f[field];
      if (want === undefined) continue;
      const verdicts = this.ctx.verdicts;
      const has = want === 'has';
      tests.push((id) => {
        const facts = verdicts?.pageFacts(id);
        return facts !== undefined && facts[field] === has;
      });
    }
    if (f.carriedOver !== undefined) {
      const want = f.carriedOver;
      const carried = this.ctx.carriedOver;
      tests.push((id) => (carried?.(id) ?? false) === want);
    }
    if (f.search) {
      const re = new RegExp(escapeRegExp(f.search), 'i');
      const titles = s.titles;
      // Last: the most expensive test (decodes the URL).
      tests.push((id) => {
        const t = titles.get(id);
        return (t !== undefined && re.test(t)) || re.test(this.ctx.urlOf(id));
      });
    }
    const out = new Uint32Array(n);
    let k = 0;
    outer: for (let id = 0; id < n; id++) {
      for (let t = 0; t < tests.length; t++) if (!tests[t]!(id)) continue outer;
      out[k++] = id;
    }
    return out.slice(0, k);
  }

  private sortIds(ids: Uint32Array, key: UrlSortKey, dir: 'asc' | 'desc'): Uint32Array {
    const { sorted, absent } = this.sortAscending(ids, key);
    if (dir === 'asc') return sorted;
    // Descending: the URLs that have the value reversed; those without stay last, in id order.
    const out = Uint32Array.from(sorted);
    out.subarray(0, out.length - absent).reverse();
    return out;
  }

  /** Ascending by `key`, ties by id; the ids without a value last (`absent` of them), by id. */
  private sortAscending(ids: Uint32Array, key: UrlSortKey): { sorted: Uint32Array; absent: number } {
    const s = this.ctx.store;
    const all = (sorted: Uint32Array) => ({ sorted, absent: 0 });
    const links = this.ctx.links;
    const linked = links !== undefined && links.pagesWithLinks > 0;
    const verdicts = this.ctx.verdicts;
    switch (key) {
      case 'id':
        return all(ids); // filterIds yields ids in ascending order
      case 'state':
        return all(sortByColumn(ids, s.state));
      case 'source':
        return all(sortByColumn(ids, s.source));
      case 'depth':
        return all(sortByColumn(ids, s.depthColumn()));
      case 'status':
        return sortByNumber(ids, (id) => s.statusOf(id) || undefined);
      case 'lastmod':
        return sortByNumber(ids, (id) => s.lastmodOf(id) || undefined);
      case 'url': {
        const urls = new Array<string>(ids.length);
        for (let i = 0; i < ids.length; i++) urls[i] = this.ctx.urlOf(ids[i]!);
        return all(sortByText(ids, urls));
      }
      case 'inSitemaps':
        return all(sortByKey(ids, (id) => (s.smFirst[id] === 0 ? 0 : 1 + (s.smMore.get(id)?.length ?? 0))));
      case 'title': {
        const titles = s.titles;
        return sortByValue(ids, (id) => titles.get(id));
      }
      case 'inlinks':
      case 'uniqueInlinks':
      case 'outlinksInternal':
      case 'outlinksExternal':
      case 'clickDepth':
        if (!links) break;
        if (!linked) return { sorted: ids, absent: ids.length }; // no URL has a count
        return sortByNumber(ids, (id) => links[key](id));
      case 'indexability':
        if (!verdicts) break;
        return sortByNumber(ids, (id) => {
          const v = verdicts.indexability(id)?.indexability;
          return v === undefined ? undefined : v === 'indexable' ? 0 : 1;
        });
      case 'indexabilityReason':
        if (!verdicts) break;
        return sortByNumber(ids, (id) => {
          const r = verdicts.indexability(id)?.reason;
          return r === undefined ? undefined : REASON_RANK.get(r);
        });
      default:
        break;
    }
    const row = this.ctx.row;
    if (!row) throw new ServiceError('BAD_QUERY', `Cannot sort by "${String(key)}".`);
    return sortByValue(ids, (id) => {
      const r = row(id);
      return Object.hasOwn(r, key) ? sortValue(r[key]) : undefined;
    });
  }
}

/** An unsorted view of a finding with an order of its own (duplicates: group by group): `ids` in that order; else undefined. */
function inOrderOf(finding: FindingFilter, ids: Uint32Array): Uint32Array | undefined {
  if (!('order' in finding) || finding.order === undefined) return undefined;
  const keep = new Set(ids);
  const out = new Uint32Array(ids.length);
  let k = 0;
  for (const id of finding.order()) if (keep.has(id)) out[k++] = id;
  return out.subarray(0, k);
}

/** A range filter's test; a range whose min is above its max is a BAD_QUERY (it could match nothing). */
function rangeTest(r: { min?: number; max?: number }, name: string): (v: number) => boolean {
  const min = r.min ?? 0;
  const max = r.max ?? Infinity;
  if (min > max) throw new ServiceError('BAD_QUERY', `${name}: min (${min}) is above max (${max}); give min ≤ max, or leave one open.`);
  return (v) => v >= min && v <= max;
}

/**
 * Sorts ids by their texts (then by id). URLs of one site share a long prefix, so comparing whole
 * strings is slow: the prefix common to all is skipped and the next 6 characters packed into a
 * number compared first; only equal numbers compare the strings. (Characters past 255 are clamped,
 * which keeps the number's order consistent with the strings'.)
 */
function sortByText(ids: Uint32Array, texts: string[]): Uint32Array {
  const n = ids.length;
  if (n === 0) return ids;
  const first = texts[0]!;
  let common = first.length;
  for (let i = 1; i < n && common > 0; i++) {
    const t = texts[i]!;
    const m = Math.min(common, t.length);
    let k = 0;
    while (k < m && t.charCodeAt(k) === first.charCodeAt(k)) k++;
    common = k;
  }
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = texts[i]!;
    let k = 0;
    for (let j = common; j < common + 6; j++) k = k * 256 + (j < t.length ? Math.min(t.charCodeAt(j), 255) : 0);
    keys[i] = k;
  }
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => keys[a]! - keys[b]! || (texts[a]! < texts[b]! ? -1 : texts[a]! > texts[b]! ? 1 : ids[a]! - ids[b]!));
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = ids[order[i]!]!;
  return out;
}

/**
 * What a row's field sorts by: numbers and text as they are, false before true, a list by its length,
 * an error by its code; undefined when the row has none.
 */
function sortValue(v: unknown): number | string | undefined {
  if (typeof v === 'number' || typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (Array.isArray(v)) return v.length;
  if (v && typeof v === 'object' && typeof (v as { code?: unknown }).code === 'string') return (v as { code: string }).code;
  return undefined;
}

/** Sorts ids by a value read once per id (then by id); ids without one last (by id), `absent` of them. */
function sortByValue(ids: Uint32Array, value: (id: number) => number | string | undefined): { sorted: Uint32Array; absent: number } {
  const n = ids.length;
  const values = new Array<number | string | undefined>(n);
  let absent = 0;
  for (let i = 0; i < n; i++) if ((values[i] = value(ids[i]!)) === undefined) absent++;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => {
    const va = values[a];
    const vb = values[b];
    if (va === undefined || vb === undefined) return va === vb ? ids[a]! - ids[b]! : va === undefined ? 1 : -1;
    if (typeof va === 'number' && typeof vb === 'number') return va - vb || ids[a]! - ids[b]!;
    const sa = String(va);
    const sb = String(vb);
    return sa < sb ? -1 : sa > sb ? 1 : ids[a]! - ids[b]!;
  });
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = ids[order[i]!]!;
  return { sorted: out, absent };
}

/**
 * Sorts ids by a number (then by id); ids without one last (by id), `absent` of them. Whole numbers
 * below 2^21 (statuses, counts, depths, ranks) take the packed-key sort; others compare.
 */
function sortByNumber(ids: Uint32Array, value: (id: number) => number | undefined): { sorted: Uint32Array; absent: number } {
  const n = ids.length;
  const present = new Uint32Array(n);
  const values = new Float64Array(n);
  // Typed, not a list: a sitemap-only crawl of a million URLs has every one without a click depth.
  const missing = new Uint32Array(n);
  let m = 0;
  let k = 0;
  let packable = true;
  for (let i = 0; i < n; i++) {
    const id = ids[i]!;
    const v = value(id);
    if (v === undefined || Number.isNaN(v)) {
      missing[m++] = id;
      continue;
    }
    if (!(Number.isInteger(v) && v >= 0 && v < 2097152)) packable = false;
    present[k] = id;
    values[k++] = v;
  }
  let head: Uint32Array;
  if (packable) {
    const keys = new Float64Array(k);
    for (let i = 0; i < k; i++) keys[i] = values[i]! * 4294967296 + present[i]!;
    keys.sort();
    head = new Uint32Array(k);
    for (let i = 0; i < k; i++) head[i] = keys[i]! % 4294967296;
  } else {
    const order = new Uint32Array(k);
    for (let i = 0; i < k; i++) order[i] = i;
    order.sort((a, b) => values[a]! - values[b]! || present[a]! - present[b]!);
    head = new Uint32Array(k);
    for (let i = 0; i < k; i++) head[i] = present[order[i]!]!;
  }
  const out = new Uint32Array(n);
  out.set(head);
  out.set(missing.subarray(0, m), k);
  return { sorted: out, absent: m };
}

/** Sorts ids by a small integer column, then by id: one native numeric sort of packed keys. */
function sortByColumn(ids: Uint32Array, col: Uint8Array | Uint16Array): Uint32Array {
  return sortByKey(ids, (id) => col[id]!);
}

/** Sorts ids by a key below 2^21 (then by id), packed with the id into one number. */
function sortByKey(ids: Uint32Array, key: (id: number) => number): Uint32Array {
  const keys = new Float64Array(ids.length);
  for (let i = 0; i < ids.length; i++) keys[i] = key(ids[i]!) * 4294967296 + ids[i]!;
  keys.sort();
  const out = new Uint32Array(ids.length);
  for (let i = 0; i < keys.length; i++) out[i] = keys[i]! % 4294967296;
  return out;
}

function isPlain(f: ViewFilter): boolean {
  return (
    (f.sort === undefined || f.sort.key === 'id') &&
    f.states === undefined &&
    f.sources === undefined &&
    f.statusClasses === undefined &&
    f.statuses === undefined &&
    f.inSitemap === undefined &&
    f.blocked === undefined &&
    !f.search &&
    f.sitemapId === undefined &&
    f.finding === undefined &&
    f.indexability === undefined &&
    f.indexabilityReasons === undefined &&
    f.clickDepth === undefined &&
    f.noClickDepth === undefined &&
    f.inlinks === undefined &&
    f.metaDescription === undefined &&
    f.h1 === undefined &&
    f.carriedOver === undefined
  );
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
