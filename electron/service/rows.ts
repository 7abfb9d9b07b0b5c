/**
 * Rows: turns a URL id into what the table, the detail pane and the CSV show, from the queue (URL,
 * source, depth, first discovery), the UrlStore (state, sitemaps) and the journal (entry, result).
 */
import type { CrawlLogEntry, SitemapUrlEntry, UrlDetail, UrlResult, UrlRow } from '../../shared/model.js';
import type { CrawlData } from './crawl-data.js';
import type { ExportRecord } from './csv.js';
import { ADMIT_TAIL, DUP_TAIL, REC_ADMIT, REC_LOG, REC_RESULT, decodeEntry } from './journal-format.js';
import type { RecordReader } from './journal-reader.js';
import { STATE_NAMES } from './url-store.js';

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
    return detail;
  }

  /** The sitemap entry a URL was first listed with. */
  entry(id: number): SitemapUrlEntry | undefined {
    const off = this.data.store.entryOffset(id);
    if (off < 0) return undefined;
    const rec = this.reader.read(off);
    if (!rec) return undefined;
    const url = rec[0] === REC_ADMIT ? (rec[5] as string) : this.data.queue.get(id)!.url;
    return decodeEntry(rec, rec[0] === REC_ADMIT ? ADMIT_TAIL : DUP_TAIL, url);
  }

  /** The URL's latest result. */
  result(id: number): UrlResult | undefined {
    const off = this.data.store.resultOffset(id);
    if (off < 0) return undefined;
    const rec = this.resultReader.read(off);
    return rec && rec[0] === REC_RESULT ? (rec[3] as UrlResult) : undefined;
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
      state: store.inFlight.has(id) ? 'fetching' : STATE_NAMES[store.state[id]!]!,
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
    const result = this.result(id);
    if (result) {
      if (result.status !== undefined) row.status = result.status;
      if (result.contentType !== undefined) row.contentType = result.contentType;
      if (result.title !== undefined) row.title = result.title;
      if (result.redirectTo !== undefined) row.redirectTo = result.redirectTo;
      if (result.canonical !== undefined) row.canonical = result.canonical;
      if (result.blockedByRobots !== undefined) row.blockedByRobots = result.blockedByRobots;
      if (result.error !== undefined) row.error = result.error;
    }
    const rec: ExportRecord = { row };
    if (entry) rec.entry = entry;
    if (result) rec.result = result;
    return rec;
  }
}
