/**
 * UrlViews: the URL table's queries — filter, sort, page — over the UrlStore's columns.
 *
 * Unfiltered id order (the default view) is answered directly from offset/limit. Any other view is
 * an id list (Uint32Array) built once per (filter, sort) and cached: reused as long as the store has
 * not changed, and while a crawl runs for up to a second after it changed (rows are read fresh,
 * only the membership and order of a running crawl's view may lag by that much).
 */
import { MAX_PAGE, type StatusClass, type UrlQuery, type UrlSortKey, type UrlState } from '../../../shared/model.js';
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
  /** How to test an audit finding (throws BAD_QUERY for an unknown code); absent: no audit. */
  finding?(code: string): FindingFilter;
  /** True while the crawl runs (views may then lag by STALE_MS). */
  running(): boolean;
  now(): number;
}

export type ViewFilter = Omit<UrlQuery, 'offset' | 'limit'>;

/** A finding as a filter: a test of URL ids (URL findings), or the FROM entries of the sitemaps whose listed URLs are meant. */
export type FindingFilter = { has(id: number): boolean } | { sitemapRefs: Set<number> };

interface CachedView {
  version: number;
  builtAt: number;
  ids: Uint32Array;
}

/** A running crawl's view is rebuilt at most this often. */
const STALE_MS = 1000;
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
    const key = JSON.stringify([f.sort?.key ?? 'id', f.sort?.dir ?? 'asc', f.states, f.sources, f.statusClasses, f.inSitemap, f.blocked, f.search, f.sitemapId, f.finding]);
    const store = this.ctx.store;
    const hit = this.cache.get(key);
    if (hit && (hit.version === store.version || (this.ctx.running() && this.ctx.now() - hit.builtAt < STALE_MS))) {
      this.cache.delete(key);
      this.cache.set(key, hit); // most recently used last
      return hit.ids;
    }
    const ids = this.sortIds(this.filterIds(f), f.sort?.key ?? 'id', f.sort?.dir ?? 'asc');
    this.cache.set(key, { version: store.version, builtAt: this.ctx.now(), ids });
    while (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    return ids;
  }

  private filterIds(f: ViewFilter): Uint32Array {
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
    if (f.statusClasses) {
      const want = new Set<StatusClass>(f.statusClasses);
      tests.push((id) => want.has(statusClassOf(s.statusOf(id))));
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
    if (f.finding !== undefined) {
      if (!this.ctx.finding) throw new ServiceError('BAD_QUERY', 'This crawl has no audit to filter by.');
      const finding = this.ctx.finding(f.finding);
      tests.push('has' in finding ? (id) => finding.has(id) : listedBy(finding.sitemapRefs));
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
    const s = this.ctx.store;
    let sorted: Uint32Array;
    switch (key) {
      case 'id':
        sorted = ids; // filterIds yields ids in ascending order
        break;
      case 'state':
        sorted = sortByColumn(ids, s.state);
        break;
      case 'source':
        sorted = sortByColumn(ids, s.source);
        break;
      case 'depth':
        sorted = sortByColumn(ids, s.depthColumn());
        break;
      case 'status':
        sorted = sortByKey(ids, (id) => s.statusOf(id));
        break;
      case 'lastmod': {
        // Absent lastmods (0) last (ascending), then by id.
        const v = (id: number) => s.lastmodOf(id) || Infinity;
        sorted = Uint32Array.from(ids).sort((a, b) => v(a) - v(b) || a - b);
        break;
      }
      case 'url': {
        const urls = new Array<string>(ids.length);
        for (let i = 0; i < ids.length; i++) urls[i] = this.ctx.urlOf(ids[i]!);
        sorted = sortByText(ids, urls);
        break;
      }
      case 'title': {
        const titles = s.titles;
        // Pages without a title last (ascending), then by id.
        sorted = Uint32Array.from(ids).sort((a, b) => {
          const ta = titles.get(a);
          const tb = titles.get(b);
          if (ta === undefined || tb === undefined) return ta === tb ? a - b : ta === undefined ? 1 : -1;
          return ta < tb ? -1 : ta > tb ? 1 : a - b;
        });
        break;
      }
      default:
        throw new ServiceError('BAD_QUERY', `Cannot sort by "${String(key)}".`);
    }
    return dir === 'desc' ? Uint32Array.from(sorted).reverse() : sorted;
  }
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
    f.inSitemap === undefined &&
    f.blocked === undefined &&
    !f.search &&
    f.sitemapId === undefined &&
    f.finding === undefined
  );
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
