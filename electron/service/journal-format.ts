/**
 * The journal's record format. One journal file per crawl (journal.jsonl), append-only, one JSON
 * array per line, written in batches; every batch ends with an END (or CHECKPOINT) line, and a batch
 * whose last line is missing — a kill in the middle of a write — is dropped whole on replay.
 *
 *   [0,id,s,depth,from,url,lastmod,changefreq,priority,extra]   ADMIT: a URL entered the frontier
 *        s = source code (0 start, 1 robots, 2 sitemap, 3 link) + 4 when admitted 'listed';
 *        from = -1 none, n ≥ 0 the uniqueKey of request n, n ≤ -2 entry -2-n of the FROM table;
 *        lastmod/changefreq/priority are the sitemap entry's (0 = absent lastmod/changefreq, null =
 *        absent priority since 0.0 is a real one; trailing absents dropped);
 *        extra = {a: hreflang [[lang,href]…], i: images, v: videos, n: news, k: uniqueKey when it
 *        differs from url, l: label, u: userData} only when one of them is there.
 *   [1,id,s,from,lastmod,changefreq,priority,extra]
 *                                 DUP: a known URL found again (a sitemap listing carries its entry)
 *   [2,id,st,result]              RESULT: st = 1 done, 2 error, 3 blocked; result = UrlResult
 *   [3,node]                      NODE: a sitemap tree node, latest wins
 *   [4,entry]                     LOG: a CrawlLogEntry
 *   [5,n,"text"]                  FROM: defines FROM table entry n (a sitemap URL, or a page URL that
 *                                 is no uniqueKey); written before its first use
 *   [6,checkpoint]                CHECKPOINT: the crawler's checkpoint as of this point; ends a batch
 *   [7]                           END: ends a batch
 *
 * A sitemap URL with lastmod, changefreq and priority costs ~45 bytes plus its URL.
 */
import { jsonString, priorityText } from '../engine/json-text.js';
import type { HreflangAlternate, RequestSource, SitemapImage, SitemapNews, SitemapUrlEntry, SitemapVideo } from '../../shared/model.js';

export const REC_ADMIT = 0;
export const REC_DUP = 1;
export const REC_RESULT = 2;
export const REC_NODE = 3;
export const REC_LOG = 4;
export const REC_FROM = 5;
export const REC_CHECKPOINT = 6;
export const REC_END = 7;

export const SOURCES: readonly RequestSource[] = ['start', 'robots', 'sitemap', 'link'];
export const LISTED_FLAG = 4;

export const RESULT_STATES = ['queued', 'done', 'error', 'blocked'] as const;

/** from ref meaning "no discoveredFrom". */
export const NO_FROM = -1;

/** The compact `extra` element of an ADMIT record. */
export interface AdmitExtra {
  a?: [string, string][];
  i?: SitemapImage[];
  v?: SitemapVideo[];
  n?: SitemapNews;
  k?: string;
  l?: string;
  u?: Record<string, unknown>;
}

/** What an ADMIT record holds, decoded. */
export interface AdmitRecord {
  id: number;
  source: RequestSource;
  listed: boolean;
  depth: number;
  from: number;
  url: string;
  uniqueKey: string;
  label?: string;
  userData?: Record<string, unknown>;
  entry?: SitemapUrlEntry;
}

/** Encodes an ADMIT line (with its newline). */
export function encodeAdmit(
  id: number,
  source: RequestSource,
  listed: boolean,
  depth: number,
  from: number,
  url: string,
  uniqueKey: string,
  entry: SitemapUrlEntry | undefined,
  label: string | undefined,
  userData: Record<string, unknown> | undefined,
): string {
  const s = SOURCES.indexOf(source) + (listed ? LISTED_FLAG : 0);
  let line = '[0,' + id + ',' + s + ',' + depth + ',' + from + ',' + jsonString(url);
  let extra = entryExtra(entry);
  if (uniqueKey !== url) (extra ??= {}).k = uniqueKey;
  if (label !== undefined) (extra ??= {}).l = label;
  if (userData !== undefined) (extra ??= {}).u = userData;
  line += encodeTail(entry, extra);
  return line + ']\n';
}

/** The entry's hreflang, images, videos and news, compactly; undefined when it has none. */
function entryExtra(entry: SitemapUrlEntry | undefined): AdmitExtra | undefined {
  if (!entry) return undefined;
  let extra: AdmitExtra | undefined;
  if (entry.alternates?.length) (extra ??= {}).a = entry.alternates.map((h) => [h.lang, h.href]);
  if (entry.images?.length) (extra ??= {}).i = entry.images;
  if (entry.videos?.length) (extra ??= {}).v = entry.videos;
  if (entry.news) (extra ??= {}).n = entry.news;
  return extra;
}

/** `,lastmod,changefreq,priority,extra` with placeholders for absent fields and trailing absents dropped. */
function encodeTail(entry: SitemapUrlEntry | undefined, extra: AdmitExtra | undefined): string {
  // 0 stands for an absent lastmod/changefreq, null for an absent priority (0.0 is a real priority).
  const lastmod = entry?.lastmod;
  const changefreq = entry?.changefreq;
  const priority = entry?.priority;
  const hasPriority = priority !== undefined && Number.isFinite(priority);
  const lm = lastmod !== undefined ? jsonString(lastmod) : '0';
  if (extra) {
    const cf = changefreq !== undefined ? jsonString(changefreq) : '0';
    return ',' + lm + ',' + cf + ',' + (hasPriority ? priorityText(priority) : 'null') + ',' + JSON.stringify(extra);
  }
  if (hasPriority) return ',' + lm + ',' + (changefreq !== undefined ? jsonString(changefreq) : '0') + ',' + priorityText(priority);
  if (changefreq !== undefined) return ',' + lm + ',' + jsonString(changefreq);
  if (lastmod !== undefined) return ',' + lm;
  return '';
}

/** Decodes a parsed ADMIT array. */
export function decodeAdmit(r: unknown[]): AdmitRecord {
  const s = r[2] as number;
  const source = SOURCES[s & 3]!;
  const url = r[5] as string;
  const extra = r[9] as AdmitExtra | undefined;
  const rec: AdmitRecord = {
    id: r[1] as number,
    source,
    listed: (s & LISTED_FLAG) !== 0,
    depth: r[3] as number,
    from: r[4] as number,
    url,
    uniqueKey: extra?.k ?? url,
  };
  if (extra?.l !== undefined) rec.label = extra.l;
  if (extra?.u !== undefined) rec.userData = extra.u;
  if (source === 'sitemap') rec.entry = decodeEntry(r, ADMIT_TAIL, url);
  return rec;
}

/** Index of lastmod in an ADMIT record and in a DUP record. */
export const ADMIT_TAIL = 6;
export const DUP_TAIL = 4;

/** The sitemap entry carried by a parsed ADMIT (tail ADMIT_TAIL) or DUP (tail DUP_TAIL) array. */
export function decodeEntry(r: unknown[], tail: number, url: string): SitemapUrlEntry {
  const entry: SitemapUrlEntry = { loc: url };
  const lastmod = r[tail];
  const changefreq = r[tail + 1];
  const priority = r[tail + 2];
  const extra = r[tail + 3] as AdmitExtra | undefined;
  if (typeof lastmod === 'string') entry.lastmod = lastmod;
  if (typeof changefreq === 'string') entry.changefreq = changefreq;
  if (typeof priority === 'number') entry.priority = priority;
  if (extra) {
    if (extra.a) entry.alternates = extra.a.map(([lang, href]): HreflangAlternate => ({ lang, href }));
    if (extra.i) entry.images = extra.i;
    if (extra.v) entry.videos = extra.v;
    if (extra.n) entry.news = extra.n;
  }
  return entry;
}

/** Encodes a DUP line; a sitemap listing carries its entry (its lastmod may differ from the first one's). */
export function encodeDup(id: number, source: RequestSource, from: number, entry: SitemapUrlEntry | undefined): string {
  let line = '[1,' + id + ',' + SOURCES.indexOf(source) + ',' + from;
  if (entry) line += encodeTail(entry, entryExtra(entry));
  return line + ']\n';
}
