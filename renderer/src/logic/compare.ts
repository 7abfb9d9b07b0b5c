/**
 * The Compare view's pure logic: which two crawls to compare by default, the changed-URL table's
 * filter and the contract query it stands for, the chips that name it, and the words for fields,
 * changes, findings and lastmod trust.
 */
import type {
  CompareChange,
  CompareField,
  CompareFilter,
  CompareFinding,
  CompareQuery,
  CompareSide,
  CompareSummary,
  CrawlSummary,
  RequestSource,
} from '../../../shared/model.js';
import { COMPARE_FIELDS } from '../../../shared/model.js';
import { INDEXABILITY_LABEL, SOURCE_LABEL, STATE_LABEL } from './labels.js';
import { lastSegment } from './format.js';

/** Every field a comparison looks at, in the order the detail shows them (the contract's). */
export { COMPARE_FIELDS };

export const FIELD_LABEL: Record<CompareField, string> = {
  state: 'State',
  status: 'Status',
  redirectTo: 'Redirect target',
  indexability: 'Indexability',
  canonical: 'Canonical',
  title: 'Title',
  metaRobots: 'Meta robots',
  metaDescription: 'Meta description',
  h1: 'H1',
  lastmod: 'Lastmod',
  inSitemaps: 'In sitemaps',
  hreflang: 'hreflang',
  content: 'Main text',
};

export const CHANGE_LABEL: Record<CompareChange, string> = { added: 'Added', removed: 'Removed', changed: 'Changed' };

// ---------------------------------------------------------------- which crawls

/** What identifies a crawl's site: its start URL's host, else its first sitemap's (lower case). */
export function siteKey(c: Pick<CrawlSummary, 'startUrl' | 'settings'>): string {
  const first = c.startUrl || c.settings.sitemapUrls[0] || '';
  try {
    return new URL(first).host.toLowerCase();
  } catch {
    return first;
  }
}

/** A crawl that can be compared: it ran (finished, paused or failed), and is not running now. */
export function comparable(c: Pick<CrawlSummary, 'status'>): boolean {
  return c.status === 'finished' || c.status === 'paused' || c.status === 'failed';
}

/**
 * Whether crawl `a` came before `b`: made earlier, or, made at the same time (a crawl opened from a
 * file keeps the time it was made), not opened from a file, or opened earlier.
 */
export function madeBefore(a: Pick<CrawlSummary, 'createdAt' | 'imported'>, b: Pick<CrawlSummary, 'createdAt' | 'imported'>): boolean {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt;
  return (a.imported?.at ?? 0) < (b.imported?.at ?? 0);
}

export interface ComparePair {
  oldId: string;
  newId: string;
}

/**
 * The comparison a crawl opens by default: with the crawl it recrawls (baseId), else with the
 * previous crawl of the same site, else with the next one (it is the older side then). Null when
 * no other crawl of the site can be compared.
 */
export function defaultPair(crawls: readonly CrawlSummary[], id: string): ComparePair | null {
  const c = crawls.find((x) => x.id === id);
  if (!c) return null;
  if (c.baseId && crawls.some((x) => x.id === c.baseId)) return { oldId: c.baseId, newId: c.id };
  const site = siteKey(c);
  const others = crawls.filter((x) => x.id !== c.id && comparable(x) && siteKey(x) === site);
  const earlier = others.filter((x) => madeBefore(x, c)).sort((a, b) => (madeBefore(a, b) ? 1 : -1))[0];
  if (earlier) return { oldId: earlier.id, newId: c.id };
  // A recrawl of this one first, else the next crawl of the site.
  const later = others.filter((x) => madeBefore(c, x)).sort((a, b) => (a.baseId === c.id ? -1 : b.baseId === c.id ? 1 : madeBefore(a, b) ? -1 : 1))[0];
  if (later) return { oldId: c.id, newId: later.id };
  return null;
}

/** The crawls to offer beside `id` in the Compare view's pickers: same site first (newest first), then the others. */
export function pickerGroups(crawls: readonly CrawlSummary[], id: string | null): { sameSite: CrawlSummary[]; others: CrawlSummary[] } {
  const ref = crawls.find((x) => x.id === id);
  const site = ref ? siteKey(ref) : null;
  const usable = [...crawls].filter((c) => comparable(c) || c.id === id).sort((a, b) => b.createdAt - a.createdAt);
  return { sameSite: usable.filter((c) => site !== null && siteKey(c) === site), others: usable.filter((c) => site === null || siteKey(c) !== site) };
}

// ---------------------------------------------------------------- the changed-URL table's filter

export interface CompareTableFilter {
  change: CompareChange | null;
  field: CompareField | null;
  sources: RequestSource[];
  /** Only URLs this sitemap gained or lost. */
  sitemap: string | null;
  finding: { code: string; moved: 'entered' | 'left'; title: string } | null;
  search: string;
}

export function emptyCompareFilter(): CompareTableFilter {
  return { change: null, field: null, sources: [], sitemap: null, finding: null, search: '' };
}

/** The filter as the contract takes it (export's filter): only what narrows. */
export function compareFilterOf(f: CompareTableFilter): CompareFilter {
  const q: CompareFilter = {};
  if (f.change) q.change = f.change;
  if (f.field) q.field = f.field;
  if (f.sources.length) q.sources = [...f.sources];
  if (f.sitemap) q.sitemap = f.sitemap;
  if (f.finding) q.finding = { code: f.finding.code, moved: f.finding.moved };
  const search = f.search.trim();
  if (search) q.search = search;
  return q;
}

export function compareQuery(f: CompareTableFilter, offset: number, limit: number): CompareQuery {
  return { offset, limit, ...compareFilterOf(f) };
}

export function compareFilterKey(f: CompareTableFilter): string {
  return JSON.stringify(compareFilterOf(f));
}

export function isCompareFiltered(f: CompareTableFilter): boolean {
  return Object.keys(compareFilterOf(f)).length > 0;
}

export type CompareChipKind = 'change' | 'field' | 'sources' | 'sitemap' | 'finding' | 'search';

export interface CompareChip {
  kind: CompareChipKind;
  label: string;
  value: string;
  title: string;
}

/** Every filter applied, in words. */
export function compareChips(f: CompareTableFilter): CompareChip[] {
  const chips: CompareChip[] = [];
  if (f.change) chips.push({ kind: 'change', label: 'Change', value: CHANGE_LABEL[f.change], title: `URLs ${f.change} between the two crawls` });
  if (f.field)
    chips.push({
      kind: 'field',
      label: 'Field',
      value: FIELD_LABEL[f.field],
      title: `URLs of both crawls whose ${FIELD_LABEL[f.field].toLowerCase()} differs`,
    });
  if (f.sources.length) {
    const v = f.sources.map((s) => SOURCE_LABEL[s]).join(' or ');
    chips.push({ kind: 'sources', label: 'Source', value: v, title: `Found through ${v} (the new crawl's source, else the old one's)` });
  }
  if (f.sitemap)
    chips.push({
      kind: 'sitemap',
      label: 'Sitemap gained or lost',
      value: lastSegment(f.sitemap),
      title: `URLs ${f.sitemap} lists now and did not before, or the other way round`,
    });
  if (f.finding) {
    chips.push({
      kind: 'finding',
      label: f.finding.moved === 'entered' ? 'Entered' : 'Left',
      value: f.finding.title,
      title: `URLs that ${f.finding.moved === 'entered' ? 'have the finding now and did not before' : 'had the finding before and do not now'} (${f.finding.code})`,
    });
  }
  const search = f.search.trim();
  if (search) chips.push({ kind: 'search', label: 'Search', value: `"${search}"`, title: `URL contains "${search}" (any case)` });
  return chips;
}

export function removeCompareChip(f: CompareTableFilter, kind: CompareChipKind): CompareTableFilter {
  switch (kind) {
    case 'change':
      return { ...f, change: null };
    case 'field':
      return { ...f, field: null };
    case 'sources':
      return { ...f, sources: [] };
    case 'sitemap':
      return { ...f, sitemap: null };
    case 'finding':
      return { ...f, finding: null };
    case 'search':
      return { ...f, search: '' };
  }
}

/**
 * A click on a summary figure narrows the table to it, in place of any earlier such click: a field's
 * count (changed rows where it differs), a sitemap's gained or lost URLs, a finding's entered or left
 * URLs, a change kind. The search stays.
 */
export function drillCompare(
  f: CompareTableFilter,
  to: { change?: CompareChange; field?: CompareField; sitemap?: string; finding?: CompareTableFilter['finding'] },
): CompareTableFilter {
  return {
    ...emptyCompareFilter(),
    search: f.search,
    change: to.change ?? (to.field ? 'changed' : null),
    field: to.field ?? null,
    sitemap: to.sitemap ?? null,
    finding: to.finding ?? null,
  };
}

// ---------------------------------------------------------------- words

/** One side's value of a field, as the detail shows it ('' when the side has none). */
export function sideValue(side: CompareSide | undefined, field: CompareField): string {
  if (!side) return '';
  switch (field) {
    case 'state':
      return STATE_LABEL[side.state];
    case 'status':
      return side.status === undefined ? '' : String(side.status);
    case 'indexability':
      return side.indexability ? INDEXABILITY_LABEL[side.indexability] : '';
    case 'inSitemaps':
      return side.inSitemaps.join('\n');
    case 'hreflang':
      return side.hreflang.map((h) => `${h.lang} ${h.href}`).join('\n');
    case 'content':
      return '';
    default:
      return side[field] ?? '';
  }
}

/** A changed row's fields in words: "Title, Canonical" (at most `max`, then "+2"). */
export function fieldsText(fields: readonly CompareField[], max = 3): string {
  if (fields.length === 0) return '';
  const shown = fields.slice(0, max).map((f) => FIELD_LABEL[f]);
  return fields.length > max ? `${shown.join(', ')} +${fields.length - max}` : shown.join(', ');
}

/** A lastmod trust figure in words: "87% (120/138)"; null when nothing could be judged. */
export function trustText(t: { agree: number; judged: number } | undefined): string | null {
  if (!t || t.judged === 0) return null;
  return `${Math.round((t.agree / t.judged) * 100)}% (${t.agree.toLocaleString('en-US')}/${t.judged.toLocaleString('en-US')})`;
}

/** How far a trust figure can be trusted: good from 90%, poor under 50%. */
export function trustTone(t: { agree: number; judged: number } | undefined): 'ok' | 'warn' | 'error' | null {
  if (!t || t.judged === 0) return null;
  const share = t.agree / t.judged;
  return share >= 0.9 ? 'ok' : share >= 0.5 ? 'warn' : 'error';
}

/** A finding got worse: the service says so (measured, count rose). */
export function isWorse(summary: Pick<CompareSummary, 'worse'>, f: Pick<CompareFinding, 'code'>): boolean {
  return summary.worse.includes(f.code);
}

/**
 * The findings worth showing: those that moved (count, entered or left), worse ones first, then by
 * how much they moved; the unchanged ones after, and the ones not measured last.
 */
export function sortFindings(summary: Pick<CompareSummary, 'findings' | 'worse'>): CompareFinding[] {
  const moved = (f: CompareFinding) => f.entered + f.left + Math.abs(f.after - f.before);
  const rank = (f: CompareFinding) => (!f.measured ? 3 : summary.worse.includes(f.code) ? 0 : moved(f) > 0 ? 1 : 2);
  return [...summary.findings].sort((a, b) => rank(a) - rank(b) || moved(b) - moved(a) || a.code.localeCompare(b.code));
}

/** The per-field counts to show, most changed first; fields that did not change at all left out. */
export function changedFields(summary: Pick<CompareSummary, 'fields'>): { field: CompareField; changed: number }[] {
  return summary.fields.filter((f) => f.changed > 0).sort((a, b) => b.changed - a.changed || COMPARE_FIELDS.indexOf(a.field) - COMPARE_FIELDS.indexOf(b.field));
}

/** A signed difference: "+12", "−3", "0". */
export function signed(n: number): string {
  return n > 0 ? `+${n.toLocaleString('en-US')}` : n < 0 ? `−${(-n).toLocaleString('en-US')}` : '0';
}
