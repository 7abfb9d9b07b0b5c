/**
 * One URL as one crawl saw it, for comparing: what the URL columns hold (state, source, sitemaps)
 * and what is read back from the journal by offset (the sitemap entry; the latest RESULT and the
 * facts beside it). Each SideReader has its own record readers, so a pass in id order streams
 * through the journal window by window; nothing is kept per URL.
 */
import type { CompareField, CompareSide, HreflangAlternate, SitemapUrlEntry, UrlResult } from '../../../shared/model.js';
import { COMPARE_FIELDS } from '../../../shared/model.js';
import type { CrawlData } from '../data/crawl-data.js';
import { w3cDatetimeMs } from '../../engine/index.js';
import { STATE_NAMES } from '../data/url-store.js';
import { indexabilityOf } from '../audit/indexability.js';
import { ADMIT_TAIL, DUP_TAIL, DUPS_TAIL, REC_ADMIT, REC_DUPS, REC_RESULT, RESULT_STATES, SOURCES, decodeEntry } from '../journal/format.js';
import { RecordReader } from '../journal/reader.js';
import type { JournalWriter } from '../journal/writer.js';

/** The compared fields, in the contract's order: bit i of a row's field mask is COMPARE_FIELDS[i]. */
export { COMPARE_FIELDS };
export const FIELD_BIT: Readonly<Record<CompareField, number>> = Object.fromEntries(COMPARE_FIELDS.map((f, i) => [f, 1 << i])) as Record<CompareField, number>;

/** A side plus what the comparison reads but the contract's side does not carry (the content hash). */
export interface SideValues extends CompareSide {
  /** The page's main-text SHA-256 (RESULT facts `ch`), when the crawl recorded one. */
  content?: string;
}

/**
 * Window of each record reader. Big enough that a pass in id order reads a journal in few calls,
 * small enough that a pass jumping about (two crawls that found their URLs in other orders) does not
 * read a big window per URL.
 */
const WINDOW = 64 * 1024;

export class SideReader {
  private readonly entries: RecordReader;
  private readonly results: RecordReader;

  constructor(
    private readonly data: CrawlData,
    journalPath: string,
    writer: JournalWriter | null,
  ) {
    this.entries = new RecordReader(journalPath, WINDOW);
    this.results = new RecordReader(journalPath, WINDOW);
    this.entries.writer = writer;
    this.results.writer = writer;
  }

  /** URL `id` of this crawl as the comparison sees it; `uniqueKey` when the caller has it (saves building the request). */
  side(id: number, uniqueKey?: string): SideValues {
    const { queue, store, froms } = this.data;
    const key = uniqueKey ?? queue.get(id)!.uniqueKey;
    const side: SideValues = {
      id,
      state: STATE_NAMES[store.state[id]!]!,
      source: SOURCES[store.source[id]!]!,
      inSitemaps: store
        .sitemapsOf(id)
        .map((ref) => froms.text(ref) ?? '')
        .sort(),
      hreflang: [],
    };
    const entry = this.entry(id);
    if (entry?.lastmod !== undefined) side.lastmod = entry.lastmod;
    const rec = this.resultRecord(id);
    const result = rec?.[3] as UrlResult | undefined;
    if (rec && result) {
      if (result.status !== undefined) side.status = result.status;
      if (result.redirectTo !== undefined) side.redirectTo = result.redirectTo;
      const state = RESULT_STATES[rec[2] as number];
      if (state === 'done' || state === 'error' || state === 'blocked') side.indexability = indexabilityOf(state, result, key).indexability;
      if (result.canonical !== undefined) side.canonical = result.canonical;
      if (result.title !== undefined) side.title = result.title;
      const robots = [result.metaRobots, result.xRobotsTag].filter((x): x is string => x !== undefined);
      if (robots.length) side.metaRobots = robots.join(', ');
      if (result.carriedOver) side.carriedOver = true;
      const facts = rec[4];
      if (facts !== null && typeof facts === 'object' && !Array.isArray(facts)) {
        const f = facts as Record<string, unknown>;
        if (typeof f.d === 'string') side.metaDescription = f.d;
        if (typeof f.h === 'string') side.h1 = f.h;
        if (typeof f.m === 'string') side.lastModified = f.m;
        if (typeof f.ch === 'string') side.content = f.ch;
      }
    }
    side.hreflang = alternatesOf(entry, result);
    return side;
  }

  /** The contract's side (without the content hash). */
  publicSide(id: number): CompareSide {
    const { content: _c, ...side } = this.side(id);
    return side;
  }

  close(): void {
    this.entries.close();
    this.results.close();
  }

  private entry(id: number): SitemapUrlEntry | undefined {
    const off = this.data.store.entryOffset(id);
    if (off < 0) return undefined;
    const rec = this.entries.read(off);
    if (!rec) return undefined;
    const url = rec[0] === REC_ADMIT ? (rec[5] as string) : this.data.queue.get(id)!.url;
    return decodeEntry(rec, rec[0] === REC_ADMIT ? ADMIT_TAIL : rec[0] === REC_DUPS ? DUPS_TAIL : DUP_TAIL, url);
  }

  private resultRecord(id: number): unknown[] | undefined {
    const off = this.data.store.resultOffset(id);
    if (off < 0) return undefined;
    const rec = this.results.read(off);
    return rec && rec[0] === REC_RESULT ? rec : undefined;
  }
}

/** The page's own alternates and its sitemap entry's, as one set: no repeats, by language then URL. */
function alternatesOf(entry: SitemapUrlEntry | undefined, result: UrlResult | undefined): HreflangAlternate[] {
  const all = [...(entry?.alternates ?? []), ...(result?.hreflang ?? [])];
  if (all.length === 0) return [];
  const seen = new Set<string>();
  const out: HreflangAlternate[] = [];
  for (const a of all) {
    const key = `${a.lang}\u0000${a.href}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ lang: a.lang, href: a.href });
  }
  return out.sort((a, b) => (a.lang < b.lang ? -1 : a.lang > b.lang ? 1 : a.href < b.href ? -1 : a.href > b.href ? 1 : 0));
}

/** A field's value as one comparable (and printable) text; undefined when absent. */
export function fieldText(side: SideValues, field: CompareField): string | undefined {
  switch (field) {
    case 'inSitemaps':
      return side.inSitemaps.join(' | ');
    case 'hreflang':
      return side.hreflang.map((a) => `${a.lang}=${a.href}`).join(' | ');
    case 'status':
      return side.status === undefined ? undefined : String(side.status);
    default:
      return side[field];
  }
}

/** The fields in which two sides of one URL differ, as a mask of FIELD_BIT. Content counts only when both crawls hashed it. */
export function differences(a: SideValues, b: SideValues): number {
  let mask = 0;
  for (let i = 0; i < COMPARE_FIELDS.length; i++) {
    const f = COMPARE_FIELDS[i]!;
    if (f === 'content' && (a.content === undefined || b.content === undefined)) continue;
    if (f === 'lastmod' ? !sameLastmod(a.lastmod, b.lastmod) : fieldText(a, f) !== fieldText(b, f)) mask |= 1 << i;
  }
  return mask;
}

/**
 * Whether two lastmods name the same instant (2024-01-01 and 2024-01-01T00:00:00Z do, as the audit reads
 * them: a date is midnight UTC); text that is no W3C Datetime is compared as written.
 */
export function sameLastmod(a: string | undefined, b: string | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const ma = w3cDatetimeMs(a);
  const mb = w3cDatetimeMs(b);
  return !Number.isNaN(ma) && ma === mb;
}

/** The field names of a mask, in COMPARE_FIELDS order. */
export function fieldsOf(mask: number): CompareField[] {
  const out: CompareField[] = [];
  for (let i = 0; i < COMPARE_FIELDS.length; i++) if ((mask & (1 << i)) !== 0) out.push(COMPARE_FIELDS[i]!);
  return out;
}
