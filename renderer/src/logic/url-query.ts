/** The URL table's filter state and the contract query it stands for. */
import { REQUEST_SOURCES, type RequestSource, type StatusClass, type UrlQuery, type UrlSortKey, type UrlState } from '../../../shared/model.js';

export type Tri = 'any' | 'yes' | 'no';

export interface UrlFilter {
  search: string;
  states: UrlState[];
  sources: RequestSource[];
  statusClasses: StatusClass[];
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
  if (f.statusClasses.length) parts.push(`status ${f.statusClasses.join(', ')}`);
  if (f.inSitemap !== 'any') parts.push(f.inSitemap === 'yes' ? 'in a sitemap' : 'in no sitemap');
  if (f.blocked !== 'any') parts.push(f.blocked === 'yes' ? 'blocked' : 'not blocked');
  if (f.sitemapId) parts.push(`listed by ${f.sitemapUrl ?? f.sitemapId}`);
  if (f.finding) parts.push(`issue: ${f.findingTitle ?? f.finding}`);
  if (f.search.trim()) parts.push(`matching "${f.search.trim()}"`);
  return parts.length ? parts.join(' · ') : 'no filter';
}
