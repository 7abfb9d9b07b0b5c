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
import { jsonString, priorityText } from '../json-text.js';
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
   * One batch of SitemapItems, as JSON. Each URL item carries its uniqueKey compactly: 1 when it is
   * the loc itself (the usual case), the key when it differs, 0 when there is none.
   */
  | { t: 'items'; id: number; json: string }
  | { t: 'done'; id: number; summary: SitemapSummary }
  /** Parsing threw (a bug, or the worker ran out of memory): the session is over. */
  | { t: 'crash'; id: number; message: string };

/** A URL item on the wire: its uniqueKey written compactly (see FromWorker 'items'). */
export interface WireUrlItem {
  kind: 'url';
  entry: { loc: string };
  uniqueKey?: string | null | 0 | 1;
}

/** Worker side: the uniqueKey of a URL item, written compactly. */
export function packKey(item: WireUrlItem, key: string | null): void {
  item.uniqueKey = key === null ? 0 : key === item.entry.loc ? 1 : key;
}

/**
 * Worker side: a URL item as JSON, the same as JSON.stringify of the item with packKey applied, written
 * by hand: JSON.stringify walking each entry object costs more than the concatenation.
 */
export function wireUrlItem(entry: SitemapUrlEntry, key: string | null): string {
  let s = '{"kind":"url","entry":{"loc":' + jsonString(entry.loc);
  if (entry.lastmod !== undefined) s += ',"lastmod":' + jsonString(entry.lastmod);
  if (entry.changefreq !== undefined) s += ',"changefreq":' + jsonString(entry.changefreq);
  if (entry.priority !== undefined) s += ',"priority":' + priorityText(entry.priority);
  if (entry.alternates !== undefined) s += ',"alternates":' + JSON.stringify(entry.alternates);
  if (entry.images !== undefined) s += ',"images":' + JSON.stringify(entry.images);
  if (entry.videos !== undefined) s += ',"videos":' + JSON.stringify(entry.videos);
  if (entry.news !== undefined) s += ',"news":' + JSON.stringify(entry.news);
  s += '},"uniqueKey":' + (key === null ? '0' : key === entry.loc ? '1' : jsonString(key)) + '}';
  // Reading a character makes V8 flatten the concatenation into one string now: left a tree of
  // pieces until the batch is joined, it kept the entry's strings alive through the worker's small
  // young generation (the hand-written JSON was no faster than JSON.stringify that way; flat, 10%
  // less worker time per URL, measured over 200k URLs).
  s.charCodeAt(0);
  return s;
}

/**
 * Main side: turns the compact uniqueKey back into SitemapItem.uniqueKey, in place: the property
 * stays where the JSON put it (deleting or adding one would send every item object to a slower
 * shape, measured at 3% of the engine thread).
 */
export function unpackKey(item: WireUrlItem): void {
  const u = item.uniqueKey;
  if (u === 1) item.uniqueKey = item.entry.loc;
  else if (u === 0) item.uniqueKey = null;
}

/** Worker side: any item as JSON; a URL item carries its uniqueKey (worked out here) compactly. */
export function wireItem(item: SitemapItem): string {
  return item.kind === 'url' ? wireUrlItem(item.entry, tryUniqueKey(item.entry.loc)) : JSON.stringify(item);
}
