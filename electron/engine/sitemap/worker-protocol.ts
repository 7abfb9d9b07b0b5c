/**
 * Messages between the main thread and the sitemap parse worker (parse-worker.ts). One worker
 * serves every sitemap being read in the process; each reading is a session with its own id.
 *
 * Flow: the main thread opens a session; the worker asks for raw body bytes one chunk at a time
 * (`pull`) and answers with item batches as JSON text (cheaper for the main thread to take in than a
 * structured clone of the same objects), at most AHEAD batches beyond the ones the main thread's
 * consumer has taken (`ack`), so memory stays bounded whatever the pace of the frontier.
 */
import type { SitemapUrlEntry } from '../../../shared/model.js';
import { jsonString } from '../json-text.js';
import { decodeEntry, encodeTail, entryExtra } from './entry-codec.js';
import type { SitemapItem, SitemapSummary } from '../types.js';
import { tryUniqueKey } from '../url.js';
import type { StreamSitemapOptions } from './stream.js';

/** Batches the worker may post before the consumer takes one. */
export const AHEAD = 8;

export type ToWorker =
  | { t: 'open'; id: number; opts: StreamSitemapOptions }
  /** Raw body bytes (as received: gzip or plain), transferred. */
  | { t: 'chunk'; id: number; data: Uint8Array }
  | { t: 'end'; id: number }
  /** The body failed after the bytes sent: the parser reports it as a fatal problem. */
  | { t: 'fail'; id: number; message: string; code?: string }
  /** The consumer took one batch. */
  | { t: 'ack'; id: number }
  /** The consumer stopped early: drop the session. */
  | { t: 'close'; id: number };

export type FromWorker =
  /** The worker loaded and listens (id 0). */
  | { t: 'ready'; id: 0 }
  | { t: 'pull'; id: number }
  /**
   * One batch of SitemapItems, as JSON: URL items as rows (UrlRow) with their uniqueKey, others as
   * they are; `ends[i]` is the offset just past item i's text (wireBatch).
   */
  | { t: 'items'; id: number; json: string; ends: Int32Array }
  | { t: 'done'; id: number; summary: SitemapSummary }
  /** Parsing threw (a bug, or the worker ran out of memory): the session is over. */
  | { t: 'crash'; id: number; message: string };

/**
 * A URL item on the wire: `[key,loc,lastmod,changefreq,priority,extra]` (the entry as entry-codec.ts
 * writes it, trailing absents dropped), its uniqueKey written compactly: 1 when it is the loc itself
 * (the usual case), the key when it differs, 0 when there is none. Other items are objects.
 */
export type UrlRow = [string | 0 | 1, string, ...unknown[]];

/** Worker side: a URL entry and its uniqueKey as a wire row. */
export function urlRow(entry: SitemapUrlEntry, key: string | null): string {
  const s = '[' + (key === null ? '0' : key === entry.loc ? '1' : jsonString(key)) + ',' + jsonString(entry.loc) + encodeTail(entry, entryExtra(entry)) + ']';
  // Reading a character makes V8 flatten the concatenation into one string now: left a tree of
  // pieces until the batch is joined, it kept the entry's strings alive through the worker's small
  // young generation (measured: 10% more worker time per URL).
  s.charCodeAt(0);
  return s;
}

/** Worker side: any item as JSON; a URL item as a row with its uniqueKey, worked out here. */
export function wireItem(item: SitemapItem): string {
  return item.kind === 'url' ? urlRow(item.entry, tryUniqueKey(item.entry.loc)) : JSON.stringify(item);
}

/** Worker side: a batch of wireItem texts as the `items` message's json and ends. */
export function wireBatch(parts: string[]): { json: string; ends: Int32Array } {
  const ends = new Int32Array(parts.length);
  let at = 1;
  for (let i = 0; i < parts.length; i++) {
    at += parts[i]!.length;
    ends[i] = at;
    at++; // the comma
  }
  return { json: '[' + parts.join(',') + ']', ends };
}

/**
 * Main side: the items of a batch. A URL item whose key is its loc also gets its entry's JSON
 * (`"loc",lastmod,…`: RequestInit.sitemapEntryJson), cut from the batch's text by the ends.
 */
export function fromWire(json: string, ends?: Int32Array): SitemapItem[] {
  const items = JSON.parse(json) as (UrlRow | SitemapItem)[];
  const cut = ends !== undefined && ends.length === items.length;
  for (let i = 0; i < items.length; i++) {
    const row = items[i]!;
    if (!Array.isArray(row)) continue;
    const k = row[0];
    const loc = row[1];
    const entry = decodeEntry(row, 2, loc);
    if (k === 1) {
      const item: SitemapItem = { kind: 'url', entry, uniqueKey: loc };
      // `[1,` then the entry, then `]`.
      if (cut) item.entryJson = json.slice((i === 0 ? 1 : ends[i - 1]! + 1) + 3, ends[i]! - 1);
      items[i] = item;
    } else items[i] = { kind: 'url', entry, uniqueKey: k === 0 ? null : k };
  }
  return items as SitemapItem[];
}
