/** The URL table's filter state, the contract query it stands for, and the chips that name it. */
import {
  REQUEST_SOURCES,
  type Indexability,
  type IndexabilityReason,
  type Range,
  type RequestSource,
  type StatusClass,
  type UrlQuery,
  type UrlSortKey,
  type UrlState,
} from '../../../shared/model.js';
import { lastSegment } from './format.js';
import { INDEXABILITY_LABEL, INDEXABILITY_REASON_LABEL, SOURCE_LABEL, STATE_LABEL, STATUS_CLASS_LABEL } from './labels.js';

export type Tri = 'any' | 'yes' | 'no';
/** A page field's presence filter: any page, pages that have it, pages that miss it. */
export type HasMissing = 'any' | 'has' | 'missing';

export interface UrlFilter {
  search: string;
  states: UrlState[];
  sources: RequestSource[];
  statusClasses: StatusClass[];
  /** Exact HTTP statuses; with statusClasses, a URL in either matches. */
  statuses: number[];
  inSitemap: Tri;
  blocked: Tri;
  /** Set from the sitemap tree: only URLs this node listed. */
  sitemapId: string | null;
  /** The node's URL, for the filter chip. */
  sitemapUrl: string | null;
  /** Set from the Issues view: only URLs affected by this audit finding code. */
  finding: string | null;
  /** The finding's title, for the filter chip. */
  findingTitle: string | null;
  /** Indexable or not; null: either. Reasons picked imply non-indexable. */
  indexability: Indexability | null;
  /** Only non-indexable URLs with one of these reasons (none picked: any reason). */
  indexabilityReasons: IndexabilityReason[];
  /** Click depth within the range (a URL without one never matches); null: no filter. */
  clickDepth: Range | null;
  /** Only the URLs without a click depth (no chain of links reaches them); the range is then null. */
  noClickDepth: boolean;
  /** Inlinks (every link) within the range; null: no filter. */
  inlinks: Range | null;
  metaDescription: HasMissing;
  h1: HasMissing;
  /** Recrawl: results kept from the base crawl (a 304, or not fetched by a changed-only recrawl), or fetched anew. */
  carriedOver: Tri;
  sort: { key: UrlSortKey; dir: 'asc' | 'desc' };
}

export const ALL_STATES: readonly UrlState[] = ['queued', 'fetching', 'done', 'error', 'blocked', 'listed'];
export const ALL_SOURCES: readonly RequestSource[] = REQUEST_SOURCES;
export const ALL_STATUS_CLASSES: readonly StatusClass[] = ['2xx', '3xx', '4xx', '5xx', 'other', 'none'];
/** The filters of the Page data popover. */
export const PAGE_FILTER_KEYS = ['indexability', 'indexabilityReasons', 'clickDepth', 'noClickDepth', 'inlinks', 'metaDescription', 'h1'] as const;
export type PageFilterPatch = Partial<Pick<UrlFilter, (typeof PAGE_FILTER_KEYS)[number]>>;

/** The page filters as an empty filter has them ("Clear these"). */
export function clearedPageFilters(): PageFilterPatch {
  const empty = emptyFilter();
  return Object.fromEntries(PAGE_FILTER_KEYS.map((k) => [k, empty[k]])) as PageFilterPatch;
}

/** Every reason a URL is not indexable, in the order the one rule tries them. */
export const ALL_INDEXABILITY_REASONS = Object.keys(INDEXABILITY_REASON_LABEL) as IndexabilityReason[];

export function emptyFilter(): UrlFilter {
  return {
    search: '',
    states: [],
    sources: [],
    statusClasses: [],
    statuses: [],
    inSitemap: 'any',
    blocked: 'any',
    sitemapId: null,
    sitemapUrl: null,
    finding: null,
    findingTitle: null,
    indexability: null,
    indexabilityReasons: [],
    clickDepth: null,
    noClickDepth: false,
    inlinks: null,
    metaDescription: 'any',
    h1: 'any',
    carriedOver: 'any',
    sort: { key: 'id', dir: 'asc' },
  };
}

function tri(t: Tri): boolean | undefined {
  return t === 'any' ? undefined : t === 'yes';
}

/** The filter part of a query (what export takes): only the keys that narrow something. */
export function filterToQuery(f: UrlFilter): Omit<UrlQuery, 'offset' | 'limit'> {
  const q: Omit<UrlQuery, 'offset' | 'limit'> = {};
  if (f.sort.key !== 'id' || f.sort.dir !== 'asc') q.sort = { ...f.sort };
  if (f.states.length) q.states = [...f.states];
  if (f.sources.length) q.sources = [...f.sources];
  if (f.statusClasses.length) q.statusClasses = [...f.statusClasses];
  if (f.statuses.length) q.statuses = [...f.statuses];
  const inSitemap = tri(f.inSitemap);
  if (inSitemap !== undefined) q.inSitemap = inSitemap;
  const blocked = tri(f.blocked);
  if (blocked !== undefined) q.blocked = blocked;
  const search = f.search.trim();
  if (search) q.search = search;
  if (f.sitemapId) q.sitemapId = f.sitemapId;
  if (f.finding) q.finding = f.finding;
  if (f.indexabilityReasons.length) {
    q.indexability = 'non-indexable';
    q.indexabilityReasons = [...f.indexabilityReasons];
  } else if (f.indexability) q.indexability = f.indexability;
  // "No click depth" and a range never both match (the service refuses the pair): none wins.
  const depth = rangeOf(f.clickDepth);
  if (f.noClickDepth) q.noClickDepth = true;
  else if (depth) q.clickDepth = depth;
  const inlinks = rangeOf(f.inlinks);
  if (inlinks) q.inlinks = inlinks;
  if (f.metaDescription !== 'any') q.metaDescription = f.metaDescription;
  if (f.h1 !== 'any') q.h1 = f.h1;
  const carried = tri(f.carriedOver);
  if (carried !== undefined) q.carriedOver = carried;
  return q;
}

/** A range with at least one end, as the contract takes it (only the ends that are set); null when open on both. */
function rangeOf(r: Range | null): Range | null {
  if (!r || (r.min === undefined && r.max === undefined)) return null;
  const out: Range = {};
  if (r.min !== undefined) out.min = r.min;
  if (r.max !== undefined) out.max = r.max;
  return out;
}

/** A range in words: "3", "2 to 5", "at least 4", "at most 1"; null when open on both ends. */
export function rangeText(r: Range | null): string | null {
  if (!r) return null;
  const { min, max } = r;
  if (min !== undefined && max !== undefined) return min === max ? String(min) : `${min} to ${max}`;
  if (min !== undefined) return `at least ${min}`;
  if (max !== undefined) return `at most ${max}`;
  return null;
}

/** The largest bound a range field takes (a click depth or an inlink count beyond it means nothing here). */
export const MAX_RANGE_BOUND = 1_000_000_000;

/**
 * Reads a range from its two fields as typed ("" leaves that end open): whole numbers from 0, the
 * lower end not above the upper one. Both empty: no filter (null). An error says which end is wrong.
 */
export function parseRange(minText: string, maxText: string): { range: Range | null } | { error: string } {
  const read = (text: string, which: string): number | undefined | { error: string } => {
    const t = text.trim();
    if (t === '') return undefined;
    if (!/^\d+$/.test(t)) return { error: `The ${which} "${t}" is not a whole number (0, 1, 2…).` };
    const n = Number(t);
    if (n > MAX_RANGE_BOUND) return { error: `The ${which} is too large: at most ${MAX_RANGE_BOUND.toLocaleString('en-US')}.` };
    return n;
  };
  const min = read(minText, 'minimum');
  if (typeof min === 'object') return min;
  const max = read(maxText, 'maximum');
  if (typeof max === 'object') return max;
  if (min === undefined && max === undefined) return { range: null };
  if (min !== undefined && max !== undefined && min > max) return { error: `The minimum (${min}) is above the maximum (${max}).` };
  const range: Range = {};
  if (min !== undefined) range.min = min;
  if (max !== undefined) range.max = max;
  return { range };
}

/** The indexability filter in words: "Indexable", "Non-indexable", "Non-indexable: noindex or Redirect". */
function indexabilityText(f: UrlFilter): string | null {
  if (f.indexabilityReasons.length)
    return `${INDEXABILITY_LABEL['non-indexable']} (${f.indexabilityReasons.map((r) => INDEXABILITY_REASON_LABEL[r]).join(' or ')})`;
  return f.indexability ? INDEXABILITY_LABEL[f.indexability] : null;
}

/** How many page-data filters are applied (for the Page data button): "no click depth" is the click-depth one. */
export function pageFilterCount(f: UrlFilter): number {
  return (
    (f.indexability || f.indexabilityReasons.length ? 1 : 0) +
    (f.clickDepth || f.noClickDepth ? 1 : 0) +
    (f.inlinks ? 1 : 0) +
    (f.metaDescription !== 'any' ? 1 : 0) +
    (f.h1 !== 'any' ? 1 : 0)
  );
}

/** A page of the filtered table. */
export function pageQuery(f: UrlFilter, offset: number, limit: number): UrlQuery {
  return { offset, limit, ...filterToQuery(f) };
}

/** True when the filter narrows the rows (sorting alone does not). */
export function isFiltered(f: UrlFilter): boolean {
  const { sort: _sort, ...q } = filterToQuery(f);
  return Object.keys(q).length > 0;
}

/** A stable key for a filter: the page cache is dropped when it changes. */
export function filterKey(f: UrlFilter): string {
  return JSON.stringify(filterToQuery(f));
}

/** Toggles one value in a multi-select list. */
export function toggle<T>(list: readonly T[], value: T): T[] {
  return list.includes(value) ? list.filter((v) => v !== value) : [...list, value];
}

/** Clicking a column header: same key flips the direction, another key sorts ascending. */
export function nextSort(current: UrlFilter['sort'], key: UrlSortKey): UrlFilter['sort'] {
  if (current.key === key) return { key, dir: current.dir === 'asc' ? 'desc' : 'asc' };
  return { key, dir: 'asc' };
}

/** A person's reading of the filter, for the export menu: "state: error · search: "blog"". */
export function describeFilter(f: UrlFilter): string {
  const parts: string[] = [];
  if (f.states.length) parts.push(`state ${f.states.join(', ')}`);
  if (f.sources.length) parts.push(`source ${f.sources.join(', ')}`);
  if (f.statusClasses.length || f.statuses.length) parts.push(`status ${statusText(f, ', ')}`);
  if (f.inSitemap !== 'any') parts.push(f.inSitemap === 'yes' ? 'in a sitemap' : 'in no sitemap');
  if (f.blocked !== 'any') parts.push(f.blocked === 'yes' ? 'blocked' : 'not blocked');
  if (f.sitemapId) parts.push(`listed by ${f.sitemapUrl ?? f.sitemapId}`);
  if (f.finding) parts.push(`issue: ${f.findingTitle ?? f.finding}`);
  const idx = indexabilityText(f);
  if (idx) parts.push(idx.toLowerCase());
  const depth = rangeText(f.clickDepth);
  if (f.noClickDepth) parts.push('no click depth');
  else if (depth) parts.push(`click depth ${depth}`);
  const inlinks = rangeText(f.inlinks);
  if (inlinks) parts.push(`inlinks ${inlinks}`);
  if (f.metaDescription !== 'any') parts.push(f.metaDescription === 'has' ? 'with a meta description' : 'missing a meta description');
  if (f.h1 !== 'any') parts.push(f.h1 === 'has' ? 'with an H1' : 'missing an H1');
  if (f.carriedOver !== 'any') parts.push(f.carriedOver === 'yes' ? 'carried over' : 'fetched anew');
  if (f.search.trim()) parts.push(`matching "${f.search.trim()}"`);
  return parts.length ? parts.join(' · ') : 'no filter';
}

/** The status filter in words: classes, then exact codes ("4xx or 503"). */
function statusText(f: UrlFilter, or: string): string {
  return [...f.statusClasses.map((c) => STATUS_CLASS_LABEL[c]), ...f.statuses.map(String)].join(or);
}

/** Most exact statuses one filter takes (the contract's limit). */
export const MAX_STATUSES = 100;

/**
 * Reads exact HTTP statuses as typed ("404, 410" or "404 410"): sorted, without repeats; an empty
 * text is no filter. An error says which part is not a status.
 */
export function parseStatusCodes(text: string): { codes: number[] } | { error: string } {
  const parts = text.split(/[\s,;]+/).filter(Boolean);
  const codes = new Set<number>();
  for (const p of parts) {
    if (!/^\d{3}$/.test(p) || Number(p) < 100) return { error: `"${p}" is not an HTTP status: use three digits, 100 to 999.` };
    codes.add(Number(p));
  }
  if (codes.size > MAX_STATUSES) return { error: `At most ${MAX_STATUSES} statuses at once.` };
  return { codes: [...codes].sort((a, b) => a - b) };
}

/** One applied filter as the chip row shows it: "State: Error or Blocked". */
export interface FilterChip {
  kind:
    | 'finding'
    | 'sitemap'
    | 'search'
    | 'states'
    | 'sources'
    | 'status'
    | 'inSitemap'
    | 'blocked'
    | 'indexability'
    | 'clickDepth'
    | 'inlinks'
    | 'metaDescription'
    | 'h1'
    | 'carriedOver';
  label: string;
  value: string;
  /** The chip's tooltip: the whole value (a sitemap's URL, a finding's code). */
  title: string;
  /** A finding's code. */
  code?: string;
}

/** Every filter applied, in words, in the order the analyst set them up (where they came from first). */
export function filterChips(f: UrlFilter): FilterChip[] {
  const chips: FilterChip[] = [];
  const or = (xs: string[]) => xs.join(' or ');
  if (f.finding) {
    const title = f.findingTitle ?? f.finding;
    chips.push({ kind: 'finding', label: 'Issue', value: title, title: `URLs with the issue "${title}" (${f.finding})`, code: f.finding });
  }
  if (f.sitemapId) {
    const url = f.sitemapUrl ?? f.sitemapId;
    chips.push({ kind: 'sitemap', label: 'Listed by', value: lastSegment(url), title: `URLs listed by ${url}` });
  }
  const search = f.search.trim();
  if (search) chips.push({ kind: 'search', label: 'Search', value: `"${search}"`, title: `URL or title contains "${search}" (any case)` });
  if (f.states.length) {
    const v = or(f.states.map((x) => STATE_LABEL[x]));
    chips.push({ kind: 'states', label: 'State', value: v, title: `State is ${v}` });
  }
  if (f.sources.length) {
    const v = or(f.sources.map((x) => SOURCE_LABEL[x]));
    chips.push({ kind: 'sources', label: 'Source', value: v, title: `First found through ${v}` });
  }
  if (f.statusClasses.length || f.statuses.length) {
    const v = statusText(f, ' or ');
    chips.push({ kind: 'status', label: 'Status', value: v, title: `HTTP status is ${v}` });
  }
  if (f.inSitemap !== 'any') {
    const yes = f.inSitemap === 'yes';
    chips.push({ kind: 'inSitemap', label: 'In sitemap', value: yes ? 'Yes' : 'No', title: yes ? 'Listed by at least one sitemap' : 'Listed by no sitemap' });
  }
  if (f.blocked !== 'any') {
    const yes = f.blocked === 'yes';
    chips.push({ kind: 'blocked', label: 'Blocked', value: yes ? 'Yes' : 'No', title: yes ? 'Disallowed by robots.txt' : 'Not disallowed by robots.txt' });
  }
  const idx = indexabilityText(f);
  if (idx) {
    const title = f.indexabilityReasons.length
      ? `Not indexable, for the reason ${f.indexabilityReasons.map((r) => INDEXABILITY_REASON_LABEL[r]).join(' or ')}`
      : f.indexability === 'indexable'
        ? 'Indexable as crawled'
        : 'Not indexable as crawled (any reason)';
    chips.push({ kind: 'indexability', label: 'Indexability', value: idx, title });
  }
  const depth = rangeText(f.clickDepth);
  if (f.noClickDepth)
    chips.push({
      kind: 'clickDepth',
      label: 'Click depth',
      value: 'none',
      title: 'URLs without a click depth: no chain of links from the start URL reaches them',
    });
  else if (depth)
    chips.push({ kind: 'clickDepth', label: 'Click depth', value: depth, title: `Click depth ${depth} (URLs without a click depth are left out)` });
  const inlinks = rangeText(f.inlinks);
  if (inlinks) chips.push({ kind: 'inlinks', label: 'Inlinks', value: inlinks, title: `${inlinks} links from crawled pages point to it` });
  if (f.metaDescription !== 'any') {
    const has = f.metaDescription === 'has';
    chips.push({
      kind: 'metaDescription',
      label: 'Meta description',
      value: has ? 'Has one' : 'Missing',
      title: has ? 'Fetched HTML pages with a non-empty meta description' : 'Fetched HTML pages with no meta description, or only empty ones',
    });
  }
  if (f.h1 !== 'any') {
    const has = f.h1 === 'has';
    chips.push({
      kind: 'h1',
      label: 'H1',
      value: has ? 'Has one' : 'Missing',
      title: has ? 'Fetched HTML pages with a non-empty H1' : 'Fetched HTML pages with no H1, or only empty ones',
    });
  }
  if (f.carriedOver !== 'any') {
    const yes = f.carriedOver === 'yes';
    chips.push({
      kind: 'carriedOver',
      label: 'Carried over',
      value: yes ? 'Yes' : 'No',
      title: yes
        ? 'Results kept from the base crawl: the server answered 304 Not Modified, or a changed-only recrawl did not fetch the URL'
        : 'Results fetched anew by this recrawl',
    });
  }
  return chips;
}

/** The filter without the one a chip names (sorting stays). */
export function removeChip(f: UrlFilter, kind: FilterChip['kind']): UrlFilter {
  switch (kind) {
    case 'finding':
      return { ...f, finding: null, findingTitle: null };
    case 'sitemap':
      return { ...f, sitemapId: null, sitemapUrl: null };
    case 'search':
      return { ...f, search: '' };
    case 'states':
      return { ...f, states: [] };
    case 'sources':
      return { ...f, sources: [] };
    case 'status':
      return { ...f, statusClasses: [], statuses: [] };
    case 'inSitemap':
      return { ...f, inSitemap: 'any' };
    case 'blocked':
      return { ...f, blocked: 'any' };
    case 'indexability':
      return { ...f, indexability: null, indexabilityReasons: [] };
    case 'clickDepth':
      return { ...f, clickDepth: null, noClickDepth: false };
    case 'inlinks':
      return { ...f, inlinks: null };
    case 'metaDescription':
      return { ...f, metaDescription: 'any' };
    case 'h1':
      return { ...f, h1: 'any' };
    case 'carriedOver':
      return { ...f, carriedOver: 'any' };
  }
}

/**
 * A click in another view (a finding, a tree node) narrows the table to what it names, in place of
 * any earlier one of those: a sitemap's URLs and a finding's URLs are one filter, "where these URLs
 * come from", so the two never stack unseen into an empty table. A node's own finding (a badge of the
 * tree) sets both at once. Keeps the table's own filters (search, state, status…) when `keep` is set.
 */
export function drillDown(f: UrlFilter, to: { finding?: { code: string; title: string }; sitemap?: { id: string; url: string } }, keep: boolean): UrlFilter {
  const base = keep ? f : { ...emptyFilter(), sort: f.sort };
  return {
    ...base,
    finding: to.finding?.code ?? null,
    findingTitle: to.finding?.title ?? null,
    sitemapId: to.sitemap?.id ?? null,
    sitemapUrl: to.sitemap?.url ?? null,
  };
}

/**
 * The Overview's indexability card: the table narrowed to one kind of URL (indexable, or non-indexable
 * for one reason), every other filter cleared so the count matches the card's; the sort stays.
 */
export function indexabilityDrill(f: UrlFilter, to: Indexability | IndexabilityReason): UrlFilter {
  const base = { ...emptyFilter(), sort: f.sort };
  if (to === 'indexable' || to === 'non-indexable') return { ...base, indexability: to };
  return { ...base, indexability: 'non-indexable', indexabilityReasons: [to] };
}

/**
 * The Overview's click-depth chart: the table narrowed to the URLs at one depth, or to those without
 * one (`null`, the "none" bar), every other filter cleared so the count matches the bar's; the sort stays.
 */
export function depthDrill(f: UrlFilter, depth: number | null): UrlFilter {
  const base = { ...emptyFilter(), sort: f.sort };
  return depth === null ? { ...base, noClickDepth: true } : { ...base, clickDepth: { min: depth, max: depth } };
}
