/** The URL table's filter state, the contract query it stands for, and the chips that name it. */
import { REQUEST_SOURCES, type RequestSource, type StatusClass, type UrlQuery, type UrlSortKey, type UrlState } from '../../../shared/model.js';
import { lastSegment } from './format.js';
import { SOURCE_LABEL, STATE_LABEL, STATUS_CLASS_LABEL } from './labels.js';

export type Tri = 'any' | 'yes' | 'no';

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
  sort: { key: UrlSortKey; dir: 'asc' | 'desc' };
}

export const ALL_STATES: readonly UrlState[] = ['queued', 'fetching', 'done', 'error', 'blocked', 'listed'];
export const ALL_SOURCES: readonly RequestSource[] = REQUEST_SOURCES;
export const ALL_STATUS_CLASSES: readonly StatusClass[] = ['2xx', '3xx', '4xx', '5xx', 'other', 'none'];

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
  return q;
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
  kind: 'finding' | 'sitemap' | 'search' | 'states' | 'sources' | 'status' | 'inSitemap' | 'blocked';
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
