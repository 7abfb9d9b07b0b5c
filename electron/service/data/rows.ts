/**
 * Rows: turns a URL id into what the table, the detail pane and the CSV show, from the queue (URL,
 * source, depth, first discovery), the UrlStore (state, sitemaps), the LinkStore (inlinks, outlinks,
 * click depth) and the journal (entry, result and the facts beside it), with the URL's indexability
 * (audit/indexability.ts).
 */
import type {
  CrawlLogEntry,
  HreflangAlternate,
  HreflangCheck,
  RedirectStep,
  RedirectWalk,
  SitemapUrlEntry,
  UrlDetail,
  UrlResult,
  UrlRow,
  UrlState,
} from '../../../shared/model.js';
import type { CrawlData } from './crawl-data.js';
import type { ExportRecord } from './csv.js';
import { indexabilityOf } from '../audit/indexability.js';
import { isValidHreflang } from '../audit/hreflang-codes.js';
import { tryUniqueKey, type ResultFacts } from '../../engine/index.js';
import { ADMIT_TAIL, DUP_TAIL, DUPS_TAIL, REC_ADMIT, REC_DUPS, REC_LOG, REC_RESULT, RESULT_STATES, decodeEntry, decodeResultFacts } from '../journal/format.js';
import type { RecordReader } from '../journal/reader.js';
import { STATE_NAMES } from './url-store.js';

/** Steps of a redirect chain shown at most (a longer one ends 'too-long'). */
const MAX_WALK_STEPS = 32;

export class Rows {
  constructor(
    private readonly data: CrawlData,
    private readonly reader: RecordReader,
    /** A second reader for results, so entry and result reads each keep their own window (export). */
    private readonly resultReader: RecordReader = reader,
  ) {}

  /** One table row. */
  row(id: number): UrlRow {
    return this.build(id).row;
  }

  /** Row + sitemap entry + result: a CSV record. */
  record(id: number): ExportRecord {
    return this.build(id);
  }

  /** Everything about one URL. */
  detail(id: number): UrlDetail {
    const { row, entry, result } = this.build(id);
    const detail: UrlDetail = { ...row, discoveries: this.data.queue.discoveriesOfId(id) };
    if (entry) detail.sitemapEntry = entry;
    if (result) detail.result = result;
    if (result?.redirectTo !== undefined) detail.redirectWalk = this.redirectWalk(id);
    const alternates = [...this.alternateChecks(id, result?.hreflang, 'page'), ...this.alternateChecks(id, entry?.alternates, 'sitemap')];
    if (alternates.length > 0) detail.alternates = alternates;
    return detail;
  }

  /** The hreflang alternates of URL `id` from one place, each with its code's validity, answer and return link. */
  private alternateChecks(id: number, list: readonly HreflangAlternate[] | undefined, from: HreflangCheck['from']): HreflangCheck[] {
    if (!list?.length) return [];
    const { queue } = this.data;
    const own = queue.get(id)?.uniqueKey;
    return list.map(({ lang, href }) => {
      const key = tryUniqueKey(href) ?? href;
      const self = key === own;
      const check: HreflangCheck = { lang, href, from, validCode: isValidHreflang(lang), self };
      const target = self ? id : queue.idOf(key);
      if (target !== undefined) {
        check.id = target;
        check.state = this.stateOf(target);
        const { row } = this.build(target);
        if (row.status !== undefined) check.status = row.status;
        if (row.indexabilityReason !== undefined) check.indexabilityReason = row.indexabilityReason;
      }
      if (!self) check.namesBack = target !== undefined && this.data.audit.namesBack(target, id);
      return check;
    });
  }

  /** The chain from a redirecting URL along the crawl's own rows, to a final answer or a loop. */
  redirectWalk(id: number): RedirectWalk {
    const { queue } = this.data;
    const steps: RedirectStep[] = [];
    const seen = new Set<number>();
    let cur: number | undefined = id;
    while (steps.length < MAX_WALK_STEPS) {
      const req = queue.get(cur)!;
      const result = this.result(cur);
      const step: RedirectStep = { url: req.url, id: cur, state: this.stateOf(cur) };
      if (result?.status !== undefined) step.status = result.status;
      steps.push(step);
      if (seen.has(cur)) return { steps, end: 'loop' };
      seen.add(cur);
      if (!result) return { steps, end: 'not-fetched' };
      if (result.redirectTo === undefined) return { steps, end: 'final' };
      cur = queue.idOf(tryUniqueKey(result.redirectTo) ?? result.redirectTo);
      if (cur === undefined) {
        steps.push({ url: result.redirectTo });
        return { steps, end: 'not-crawled' };
      }
    }
    return { steps, end: 'too-long' };
  }

  private stateOf(id: number): UrlState {
    return this.data.store.inFlight.has(id) ? 'fetching' : STATE_NAMES[this.data.store.state[id]!]!;
  }

  /** The sitemap entry a URL was first listed with. */
  entry(id: number): SitemapUrlEntry | undefined {
    const off = this.data.store.entryOffset(id);
    if (off < 0) return undefined;
    const rec = this.reader.read(off);
    if (!rec) return undefined;
    const url = rec[0] === REC_ADMIT ? (rec[5] as string) : this.data.queue.get(id)!.url;
    return decodeEntry(rec, rec[0] === REC_ADMIT ? ADMIT_TAIL : rec[0] === REC_DUPS ? DUPS_TAIL : DUP_TAIL, url);
  }

  /** The URL's latest result. */
  result(id: number): UrlResult | undefined {
    return this.resultRecord(id)?.[3] as UrlResult | undefined;
  }

  /** The URL's latest RESULT record, parsed. */
  private resultRecord(id: number): unknown[] | undefined {
    const off = this.data.store.resultOffset(id);
    if (off < 0) return undefined;
    const rec = this.resultReader.read(off);
    return rec && rec[0] === REC_RESULT ? rec : undefined;
  }

  /** A log entry by its record offset. */
  logAt(offset: number): CrawlLogEntry | undefined {
    const rec = this.reader.read(offset);
    return rec && rec[0] === REC_LOG ? (rec[1] as CrawlLogEntry) : undefined;
  }

  private build(id: number): ExportRecord {
    const { queue, store, froms } = this.data;
    const req = queue.get(id)!;
    const row: UrlRow = {
      id,
      url: req.url,
      state: this.stateOf(id),
      source: req.source,
      depth: req.depth,
      inSitemaps: store.sitemapsOf(id).map((ref) => froms.text(ref) ?? ''),
    };
    if (req.discoveredFrom !== undefined) row.discoveredFrom = req.discoveredFrom;
    const entry = this.entry(id);
    if (entry) {
      if (entry.lastmod !== undefined) row.lastmod = entry.lastmod;
      if (entry.changefreq !== undefined) row.changefreq = entry.changefreq;
      if (entry.priority !== undefined) row.priority = entry.priority;
    }
    const record = this.resultRecord(id);
    const result = record?.[3] as UrlResult | undefined;
    if (record && result) {
      if (result.status !== undefined) row.status = result.status;
      if (result.contentType !== undefined) row.contentType = result.contentType;
      if (result.title !== undefined) row.title = result.title;
      if (result.redirectTo !== undefined) row.redirectTo = result.redirectTo;
      if (result.canonical !== undefined) row.canonical = result.canonical;
      if (result.blockedByRobots !== undefined) row.blockedByRobots = result.blockedByRobots;
      if (result.carriedOver === true) row.carriedOver = true;
      if (result.error !== undefined) row.error = result.error;
      else if (result.redirectTo !== undefined) {
        // Walked along the rows themselves, so a reopened crawl's export need not wait for its audit.
        const walk = this.redirectWalk(id);
        if (walk.end === 'loop') row.error = { code: 'REDIRECT_LOOP', message: `Redirects in a loop: ${walk.steps.map((x) => x.url).join(' → ')}` };
      }
      const state = RESULT_STATES[record[2] as number];
      if (state === 'done' || state === 'error' || state === 'blocked') {
        const verdict = indexabilityOf(state, result, req.uniqueKey);
        row.indexability = verdict.indexability;
        if (verdict.reason !== undefined) row.indexabilityReason = verdict.reason;
      }
      const facts = decodeResultFacts(record);
      if (facts) addFacts(row, facts);
    }
    const links = this.data.links;
    if (links.pagesWithLinks > 0) {
      // Counted once the crawl has recorded a page's links (a sitemap-only crawl has no such columns).
      row.inlinks = links.inlinks(id);
      row.uniqueInlinks = links.uniqueInlinks(id);
      const internal = links.outlinksInternal(id);
      if (internal !== undefined) {
        row.outlinksInternal = internal;
        row.outlinksExternal = links.outlinksExternal(id)!;
      }
    }
    const clickDepth = links.clickDepth(id);
    if (clickDepth !== undefined) row.clickDepth = clickDepth;
    const rec: ExportRecord = { row };
    if (entry) rec.entry = entry;
    if (result) rec.result = result;
    return rec;
  }
}

/** A result's facts, as the row's fields (their names are the contract's: bodyBytes is sizeBytes, wireBytes transferredBytes). */
function addFacts(row: UrlRow, f: ResultFacts): void {
  if (f.metaDescription !== undefined) row.metaDescription = f.metaDescription;
  if (f.metaDescriptionCount !== undefined) row.metaDescriptionCount = f.metaDescriptionCount;
  if (f.h1 !== undefined) row.h1 = f.h1;
  if (f.h1Count !== undefined) row.h1Count = f.h1Count;
  if (f.lang !== undefined) row.lang = f.lang;
  if (f.wordCount !== undefined) row.wordCount = f.wordCount;
  if (f.responseTimeMs !== undefined) row.responseTimeMs = f.responseTimeMs;
  if (f.bodyBytes !== undefined) row.sizeBytes = f.bodyBytes;
  if (f.wireBytes !== undefined) row.transferredBytes = f.wireBytes;
  if (f.lastModified !== undefined) row.lastModified = f.lastModified;
  if (f.etag !== undefined) row.etag = f.etag;
}
