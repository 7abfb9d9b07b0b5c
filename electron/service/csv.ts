/**
 * The CSV export format, shared by the CLI, the service and the UI: one header, one row per URL,
 * streamed through csv-stringify with backpressure, and guarded against formula injection.
 */
import type { EventEmitter } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { HreflangAlternate, SitemapUrlEntry, UrlResult, UrlRow } from '../../shared/model.js';

/** The header, exactly, in this order. */
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
 * A character test, not a regex: it runs on every cell of every row (19 per URL).
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
  ];
}

/** Streams ExportRecords to `out` as CSV (header first, even with zero rows), honouring backpressure. */
export function createCsvWriter(out: Writable, opts: CsvWriterOptions = {}): CsvWriter {
  const stringifier = stringify({
    header: true,
    columns: [...CSV_COLUMNS],
    bom: opts.bom ?? false,
    record_delimiter: 'unix',
    // csv-stringify quotes only for the record delimiter (\n); a bare CR must be quoted too, or a spreadsheet splits the row.
    quoted_match: /\r/,
  });
  let failure: Error | undefined;
  const fail = (err: Error) => {
    failure ??= err;
  };
  stringifier.on('error', fail);
  out.on('error', fail);
  stringifier.pipe(out, { end: opts.endOutput ?? true });
  let rows = 0;
  let ended = false;

  // Resolves on the first of `events`; rejects on an error of either stream or on `out` closing early.
  const until = (events: [EventEmitter, string][]) =>
    new Promise<void>((resolve, reject) => {
      const offs: (() => void)[] = [];
      const on = (em: EventEmitter, ev: string, fn: (...a: unknown[]) => void) => {
        em.on(ev, fn);
        offs.push(() => em.off(ev, fn));
      };
      const settle = (err?: Error) => {
        for (const off of offs) off();
        if (err) reject(err);
        else resolve();
      };
      for (const [em, ev] of events) on(em, ev, () => settle());
      on(stringifier, 'error', (e) => settle(e as Error));
      on(out, 'error', (e) => settle(e as Error));
      on(out, 'close', () => settle(failure ?? new Error('The CSV output was closed before the export finished.')));
    });

  return {
    get rows() {
      return rows;
    },
    write(rec) {
      if (failure) throw failure;
      if (ended) throw new Error('CSV writer: write() after end().');
      rows++;
      if (stringifier.write(toCsvCells(rec))) return;
      return until([[stringifier, 'drain']]);
    },
    async end() {
      if (failure) throw failure;
      if (ended) throw new Error('CSV writer: end() called twice.');
      ended = true;
      if (opts.endOutput ?? true) {
        const done = until([[out, 'finish']]);
        stringifier.end();
        return done;
      }
      // out stays open (stdout): wait until the stringifier has handed everything to it, then for that to flush.
      const drained = until([[stringifier, 'end']]);
      stringifier.end();
      await drained;
      await new Promise<void>((resolve, reject) => out.write('', (err) => (err ? reject(err) : resolve())));
    },
  };
}
