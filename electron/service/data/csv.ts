/**
 * The CSV export format, shared by the CLI, the service and the UI: one header, one row per URL
 * (RFC 4180, LF line ends), streamed with backpressure, and guarded against formula injection.
 */
import type { Writable } from 'node:stream';
import type { HreflangAlternate, SitemapUrlEntry, UrlResult, UrlRow } from '../../../shared/model.js';

/**
 * The header, exactly, in this order: the one list of the export's columns. The CLI's help prints it,
 * and a test holds the README's header line to it.
 */
export const CSV_COLUMNS = [
  'url',
  'source',
  'depth',
  'discovered_from',
  'in_sitemaps',
  'lastmod',
  'changefreq',
  'priority',
  'hreflang',
  'images',
  'status',
  'content_type',
  'redirect_to',
  'canonical',
  'meta_robots',
  'x_robots_tag',
  'title',
  'blocked_by_robots',
  'error',
  // Appended for issue 22 (a column is only ever appended: scripts read these by position too).
  'indexability',
  'indexability_reason',
  'meta_description',
  'meta_description_count',
  'h1',
  'h1_count',
  'lang',
  'word_count',
  'response_time_ms',
  'size_bytes',
  'transferred_bytes',
  'last_modified',
  'etag',
  'inlinks',
  'unique_inlinks',
  'outlinks_internal',
  'outlinks_external',
  'click_depth',
] as const;

export type CsvColumn = (typeof CSV_COLUMNS)[number];

/** Joins the values of a multi-valued cell (in_sitemaps, hreflang, images). */
export const MULTI_VALUE_SEPARATOR = ' | ';

/** Everything one CSV row is made of: the table row plus, when known, its sitemap entry and fetch result. */
export interface ExportRecord {
  row: UrlRow;
  entry?: SitemapUrlEntry;
  result?: UrlResult;
}

export interface CsvWriterOptions {
  /** Prefix a UTF-8 byte order mark (helps Excel on Windows read accents); default false. */
  bom?: boolean;
  /** End `out` when the CSV ends; default true. Pass false for process.stdout. */
  endOutput?: boolean;
}

export interface CsvWriter {
  /** Queues one row; returns a promise to await when the output is full (backpressure), else nothing. */
  write(rec: ExportRecord): Promise<void> | void;
  /** Writes the header if no row was written, flushes, and (by default) ends `out`. */
  end(): Promise<void>;
  /** Rows written so far (the header not counted). */
  readonly rows: number;
}

/**
 * Prefixes `'` to a cell that a spreadsheet would read as a formula: one beginning with = + - @, or
 * tab/CR (which may shift it into one). Harmless cells that merely look numeric ("-5 °C") are
 * guarded too: any rule that lets some `-` cells through can be gamed.
 * A character test, not a regex: it runs on every cell of every row (37 per URL).
 */
export function guardCell(cell: string): string {
  const c = cell.charCodeAt(0);
  return c === 61 /* = */ || c === 43 /* + */ || c === 45 /* - */ || c === 64 /* @ */ || c === 9 || c === 13 ? `'${cell}` : cell;
}

const text = (v: string | number | undefined | null): string => (v === undefined || v === null ? '' : String(v));

/** Sitemap alternates first, then the page's own hreflang links not already listed. */
function hreflangOf(entry?: SitemapUrlEntry, result?: UrlResult): HreflangAlternate[] {
  if (!entry?.alternates?.length && !result?.hreflang?.length) return [];
  const all = [...(entry?.alternates ?? []), ...(result?.hreflang ?? [])];
  const seen = new Set<string>();
  return all.filter((a) => {
    const key = `${a.lang}\u0000${a.href}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The cells of one record, in CSV_COLUMNS order, guarded against formula injection. */
export function toCsvCells(rec: ExportRecord): string[] {
  const { row, entry, result } = rec;
  const error = row.error ?? result?.error;
  const blocked = row.blockedByRobots ?? result?.blockedByRobots ?? row.state === 'blocked';
  // In CSV_COLUMNS order (checked by the tests), built straight into the array: this runs once per
  // exported URL, and an intermediate object per row was a tenth of the export's time.
  return [
    guardCell(row.url),
    guardCell(row.source),
    guardCell(text(row.depth)),
    guardCell(text(row.discoveredFrom)),
    guardCell(row.inSitemaps.join(MULTI_VALUE_SEPARATOR)),
    guardCell(text(row.lastmod ?? entry?.lastmod)),
    guardCell(text(row.changefreq ?? entry?.changefreq)),
    guardCell(text(row.priority ?? entry?.priority)),
    guardCell(
      hreflangOf(entry, result)
        .map((a) => `${a.lang}=${a.href}`)
        .join(MULTI_VALUE_SEPARATOR),
    ),
    guardCell(entry?.images?.length ? entry.images.map((i) => i.loc).join(MULTI_VALUE_SEPARATOR) : ''),
    guardCell(text(row.status ?? result?.status)),
    guardCell(text(row.contentType ?? result?.contentType)),
    guardCell(text(row.redirectTo ?? result?.redirectTo)),
    guardCell(text(row.canonical ?? result?.canonical)),
    guardCell(text(result?.metaRobots)),
    guardCell(text(result?.xRobotsTag)),
    guardCell(text(row.title ?? result?.title)),
    blocked ? 'true' : 'false',
    guardCell(error ? `${error.code}: ${error.message}` : ''),
    text(row.indexability),
    text(row.indexabilityReason),
    guardCell(text(row.metaDescription)),
    text(row.metaDescriptionCount),
    guardCell(text(row.h1)),
    text(row.h1Count),
    guardCell(text(row.lang)),
    text(row.wordCount),
    text(row.responseTimeMs),
    text(row.sizeBytes),
    text(row.transferredBytes),
    guardCell(text(row.lastModified)),
    guardCell(text(row.etag)),
    text(row.inlinks),
    text(row.uniqueInlinks),
    text(row.outlinksInternal),
    text(row.outlinksExternal),
    text(row.clickDepth),
  ];
}

/** A cell that must be quoted (RFC 4180): it holds a comma, a quote, or a line break (a bare CR too, or a spreadsheet splits the row). */
const NEEDS_QUOTES = /[",\r\n]/;
const QUOTES = /"/g;

/**
 * One record's line: its cells, quoted where needed (quotes doubled), joined by commas, ending in \n.
 * The one CSV encoder: the URL export and the audit's findings table (electron/cli) both use it.
 */
export function csvLine(cells: readonly string[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i]!;
    if (i > 0) line += ',';
    line += NEEDS_QUOTES.test(c) ? '"' + c.replace(QUOTES, '""') + '"' : c;
  }
  return line + '\n';
}

/** The most text held before it is handed to the output (less when the output's own buffer is smaller). */
const CHUNK_CHARS = 64 * 1024;

/**
 * Streams ExportRecords to `out` as CSV (header first, even with zero rows), honouring backpressure.
 * Lines are encoded here and handed to `out` a chunk at a time: through a csv-stringify Transform (a
 * stream write, a push and microtasks per row) the writer was over half of the export's time at a
 * million rows.
 */
export function createCsvWriter(out: Writable, opts: CsvWriterOptions = {}): CsvWriter {
  return createTableWriter(out, CSV_COLUMNS, toCsvCells, opts);
}

/** A CSV writer of any one table: the URL export's, or another (the links export) with its own header and cells. */
export interface TableWriter<T> {
  write(rec: T): Promise<void> | void;
  end(): Promise<void>;
  readonly rows: number;
}

/** The writer behind createCsvWriter, for a table of `columns` whose rows `cells` encodes (guarded cells, in column order). */
export function createTableWriter<T>(out: Writable, columns: readonly string[], cells: (rec: T) => string[], opts: CsvWriterOptions = {}): TableWriter<T> {
  let failure: Error | undefined;
  out.on('error', (err: Error) => {
    failure ??= err;
  });
  const chunk = Math.max(1, Math.min(CHUNK_CHARS, out.writableHighWaterMark || CHUNK_CHARS));
  let pending = (opts.bom ? '\ufeff' : '') + csvLine(columns);
  let rows = 0;
  let ended = false;

  // Resolves on `event` of `out`; rejects on its error or on its closing early.
  const until = (event: string) =>
    new Promise<void>((resolve, reject) => {
      const settle = (err?: Error) => {
        out.off(event, onEvent);
        out.off('error', onError);
        out.off('close', onClose);
        if (err) reject(err);
        else resolve();
      };
      const onEvent = () => settle();
      const onError = (e: Error) => settle(e);
      const onClose = () => settle(failure ?? new Error('The CSV output was closed before the export finished.'));
      out.on(event, onEvent);
      out.on('error', onError);
      out.on('close', onClose);
    });

  return {
    get rows() {
      return rows;
    },
    write(rec) {
      if (failure) throw failure;
      if (ended) throw new Error('CSV writer: write() after end().');
      rows++;
      pending += csvLine(cells(rec));
      if (pending.length < chunk) return;
      const text = pending;
      pending = '';
      if (out.write(text)) return;
      return until('drain');
    },
    async end() {
      if (failure) throw failure;
      if (ended) throw new Error('CSV writer: end() called twice.');
      ended = true;
      const text = pending;
      pending = '';
      if (opts.endOutput ?? true) {
        const done = until('finish');
        out.end(text);
        return done;
      }
      // out stays open (stdout): hand it the rest and wait until that is flushed.
      await new Promise<void>((resolve, reject) => out.write(text, (err) => (err ? reject(err) : resolve())));
      if (failure) throw failure;
    },
  };
}
