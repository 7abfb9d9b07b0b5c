/**
 * Browser mode's downloads (CSV exports, crawl files): the export is written to a private temp file,
 * then offered once under an unguessable id; the file is deleted after it is sent or when it expires.
 * Its uploads (a crawl file to open): one-time ids that expire. And the name of every export (URLs,
 * links, a comparison, a crawl file), in the browser and in the app: what it holds and the day it was made.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import type { CompareFilter, UrlQuery } from '../../shared/model.js';
import type { LinksExport } from '../service/types.js';

interface Pending {
  path: string;
  fileName: string;
  contentType: string;
  timer: NodeJS.Timeout;
}

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

/** One-time downloads of files written into a private temp folder. */
export class DownloadRegistry {
  private dir: Promise<string> | null = null;
  private readonly pending = new Map<string, Pending>();
  /** Every file name handed out by this registry: a later download never takes one again. */
  private readonly names = new Set<string>();

  constructor(private readonly ttlMs = 10 * 60_000) {}

  /** True when a download of this registry was named `fileName` already. */
  named(fileName: string): boolean {
    return this.names.has(fileName);
  }

  /** Writes a file through `write`, then registers it; returns the download id. */
  async create(fileName: string, write: (out: Writable) => Promise<void>, contentType = CSV_CONTENT_TYPE): Promise<string> {
    this.names.add(fileName); // at once: an export started meanwhile must pick another name
    this.dir ??= mkdtemp(join(tmpdir(), 'spinneret-web-'));
    const dir = await this.dir;
    const id = randomBytes(24).toString('base64url');
    const path = join(dir, `${id}.part`);
    const out = createWriteStream(path, { mode: 0o600 });
    try {
      await write(out);
      if (!out.writableEnded) out.end();
      await finished(out);
    } catch (error) {
      out.destroy();
      await rm(path, { force: true });
      throw error;
    }
    const timer = setTimeout(() => void this.discard(id), this.ttlMs);
    timer.unref();
    this.pending.set(id, { path, fileName, contentType, timer });
    return id;
  }

  /** Takes a download out of the registry (it can be fetched once); null when unknown or used. */
  take(id: string): { path: string; fileName: string; contentType: string; done: () => Promise<void> } | null {
    const entry = this.pending.get(id);
    if (!entry) return null;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    return { path: entry.path, fileName: entry.fileName, contentType: entry.contentType, done: () => rm(entry.path, { force: true }) };
  }

  private async discard(id: string): Promise<void> {
    const entry = this.take(id);
    await entry?.done();
  }

  /** Deletes every pending file and the temp folder. */
  async close(): Promise<void> {
    for (const id of [...this.pending.keys()]) await this.discard(id);
    if (this.dir) await rm(await this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}

/**
 * Browser mode's uploads: importCrawl hands out a one-time id the page POSTs a crawl file to; it is
 * taken by the first upload (a second one is refused) and expires unused.
 */
export class UploadRegistry {
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(private readonly ttlMs = 10 * 60_000) {}

  /** A new upload id, valid once for ttlMs. */
  create(): string {
    const id = randomBytes(24).toString('base64url');
    const timer = setTimeout(() => this.pending.delete(id), this.ttlMs);
    timer.unref();
    this.pending.set(id, timer);
    return id;
  }

  /** Takes the id for one upload; false when it is unknown, used or expired. */
  take(id: string): boolean {
    const timer = this.pending.get(id);
    if (!timer) return false;
    clearTimeout(timer);
    this.pending.delete(id);
    return true;
  }

  close(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }
}

/** The part of a name that a Content-Disposition header and any file system take as it is. */
function safePart(text: string, max: number): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '') // é is e and an accent: keep the e
    .replace(/[^\w.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, max)
    .replace(/[-.]+$/, '');
}

/** What an export holds, for its name: every URL, one audit finding's URLs, or another filter's. */
export function exportContents(filter: Omit<UrlQuery, 'offset' | 'limit'> | undefined): string {
  // Sorting changes the order, not what the file holds.
  const narrowing = Object.entries(filter ?? {}).filter(([k, v]) => k !== 'sort' && v !== undefined);
  if (narrowing.length === 0) return 'urls';
  if (narrowing.length === 1 && narrowing[0]![0] === 'finding') return safePart(String(narrowing[0]![1]), 100) || 'finding';
  return 'filtered';
}

/** A date as YYYY-MM-DD, in local time (the day the analyst sees on their calendar). */
export function localDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/**
 * The name of a CSV export, safe in a Content-Disposition header and on any file system:
 * `<crawl>-urls-<date>.csv`, `<crawl>-<finding code>-<date>.csv` or `<crawl>-filtered-<date>.csv`,
 * with -2, -3… before `.csv` while `taken` says a name is in use, so no export replaces an earlier one.
 */
export function exportFileName(
  crawlName: string,
  filter: Omit<UrlQuery, 'offset' | 'limit'> | undefined,
  now: Date,
  taken: (name: string) => boolean = () => false,
): string {
  return freeName(`${safePart(crawlName, 80) || 'crawl'}-${exportContents(filter)}-${localDate(now)}`, taken);
}

/**
 * The name of a links export, as exportFileName's: `<crawl>-links-<date>.csv` for every link of the
 * crawl, `<crawl>-inlinks-<urlId>-<date>.csv` or `<crawl>-outlinks-<urlId>-<date>.csv` for one URL's,
 * `<crawl>-<finding code>-links-<date>.csv` for the links to a finding's URLs.
 */
export function linksFileName(crawlName: string, opts: LinksExport, now: Date, taken: (name: string) => boolean = () => false): string {
  const what =
    opts.finding !== undefined
      ? `${safePart(opts.finding, 40)}-links`
      : opts.urlId === undefined
        ? 'links'
        : `${opts.direction === 'out' ? 'outlinks' : 'inlinks'}-${opts.urlId}`;
  return freeName(`${safePart(crawlName, 80) || 'crawl'}-${what}-${localDate(now)}`, taken);
}

/**
 * The name of a comparison's CSV, as exportFileName's: `<new crawl>-compare-<date>.csv`, or
 * `<new crawl>-compare-<filter>-<date>.csv` when it holds part of the changes (one change, one field).
 */
export function compareFileName(newName: string, filter: CompareFilter | undefined, now: Date, taken: (name: string) => boolean = () => false): string {
  const f = filter ?? {};
  const narrowing = Object.values(f).filter((v) => v !== undefined).length;
  const what = narrowing === 0 ? '' : narrowing === 1 && f.change ? `-${f.change}` : narrowing === 1 && f.field ? `-${safePart(f.field, 40)}` : '-filtered';
  return freeName(`${safePart(newName, 80) || 'crawl'}-compare${what}-${localDate(now)}`, taken);
}

/** The name of a crawl file: `<crawl>-<date>.spinneret` (-2, -3… while taken). */
export function crawlFileName(crawlName: string, now: Date, taken: (name: string) => boolean = () => false): string {
  return freeName(`${safePart(crawlName, 80) || 'crawl'}-${localDate(now)}`, taken, '.spinneret');
}

/** `<stem><ext>`, or `<stem>-2<ext>`, `-3`… while `taken` says a name is in use. */
function freeName(stem: string, taken: (name: string) => boolean, ext = '.csv'): string {
  let name = `${stem}${ext}`;
  for (let n = 2; taken(name); n++) name = `${stem}-${n}${ext}`;
  return name;
}
