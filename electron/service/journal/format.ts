/**
 * The journal's record format. One journal file per crawl (journal.jsonl), append-only, one JSON
 * array per line, written in batches; every batch ends with an END (or CHECKPOINT) line, and a batch
 * whose last line is missing — a kill in the middle of a write — is dropped whole on replay.
 *
 *   [0,id,s,depth,from,url,lastmod,changefreq,priority,extra]   ADMIT: a URL entered the frontier
 *        s = source code (0 start, 1 robots, 2 sitemap, 3 link) + 4 when admitted 'listed'; the later
 *        sources (4 redirect, 5 canonical, 6 hreflang, 7 reference) 8 + 2 × (code − 4) + listed;
 *        from = -1 none, n ≥ 0 the uniqueKey of request n, n ≤ -2 entry -2-n of the FROM table;
 *        lastmod/changefreq/priority are the sitemap entry's (0 = absent lastmod/changefreq, null =
 *        absent priority since 0.0 is a real one; trailing absents dropped);
 *        extra = {a: hreflang [[lang,href]…], i: images, v: videos, n: news, k: uniqueKey when it
 *        differs from url, l: label, u: userData} only when one of them is there.
 *   [1,id,s,from,lastmod,changefreq,priority,extra]   (s as ADMIT's, never listed)
 *                                 DUP: a known URL found again (a sitemap listing carries its entry)
 *   [2,id,st,result,facts]        RESULT: st = 1 done, 2 error, 3 blocked; result = UrlResult;
 *                                 facts = what the answer yields beyond it (the engine's ResultFacts),
 *                                 present when any is known: {t: response time ms, w: body bytes on
 *                                 the wire, b: body bytes decoded, m: Last-Modified, e: ETag, and for
 *                                 an HTML page d: meta description, dn: how many, h: first H1, hn: how
 *                                 many H1s, l: <html lang>, wc: word count, ch: SHA-256 of the main
 *                                 text, base64url, 43 chars (PageInfo.contentHash: text outside head,
 *                                 nav, header, footer, aside, script, style, svg, template, noscript,
 *                                 whitespace collapsed)}, each key only when known.
 *                                 Journals written before have no facts (or no ch): those fields are absent.
 *   [3,node]                      NODE: a sitemap tree node, latest wins
 *   [4,entry]                     LOG: a CrawlLogEntry
 *   [5,n,"text"]                  FROM: defines FROM table entry n (a sitemap URL, or a page URL that
 *                                 is no uniqueKey); written before its first use
 *   [6,checkpoint,remaining]      CHECKPOINT: the crawler's checkpoint as of this point; ends a batch.
 *                                 Its sitemap list is where the list is (its queue, the sitemap being
 *                                 read and how far), not its tree: the NODE records before it are the
 *                                 tree as of it. Journals written before hold the whole tree in each.
 *                                 remaining: discoveries a resumed list still had to read again (resume-ledger.ts)
 *   [7]                           END: ends a batch
 *   [8,id,s,from,n,lastmod,changefreq,priority,extra]
 *                                 DUPS: n ≥ 2 listings in a row of a known URL by one sitemap, each
 *                                 with this entry: n DUPs in one (a sitemap repeating an entry a
 *                                 million times costs a line, not a million). Journals written before
 *                                 it have only DUP lines, read as ever.
 *   [9,id,[[target,anchor,flags]…]]   LINKS: the `<a>`/`<area>` links of fetched HTML page id, in
 *                                 document order, repeats included; written right after its RESULT,
 *                                 in the same batch. target = the target's URL id when the crawl held
 *                                 its uniqueKey as the page was recorded, else its URL text; flags =
 *                                 1 nofollow + 2 external; a tuple's trailing '' anchor and 0 flags
 *                                 are dropped ([target] alone). Journals written before have none:
 *                                 their pages have no link data. A link costs its id's digits + 3
 *                                 bytes (`[412],`), + its anchor's JSON + 1 when it has one, + 2 with
 *                                 flags; a target not held costs its URL's JSON instead of the id.
 *   [10,origin,robots]            ROBOTS: the robots.txt answer of an origin ({status, body, outcome}, the
 *                                 checkpoint's entry), written once, in the batch of the first
 *                                 checkpoint that holds it (again if it changes). A checkpoint then
 *                                 leaves it out of `robots` and names it in `robotsRefs` ({origin:
 *                                 {status, outcome}}) instead of repeating its body (up to 500 KiB)
 *                                 every few seconds; a reader that knows no ROBOTS record fetches that
 *                                 robots.txt again. Journals written before hold the bodies in `robots`.
 *
 * A sitemap URL with lastmod, changefreq and priority costs ~45 bytes plus its URL.
 */
import { REQUEST_SOURCES, type RequestSource, type SitemapUrlEntry } from '../../../shared/model.js';
import { decodeEntry, encodeTail, entryExtra, type EntryExtra, type ResultFacts } from '../../engine/index.js';

export { decodeEntry };

export const REC_ADMIT = 0;
export const REC_DUP = 1;
export const REC_RESULT = 2;
export const REC_NODE = 3;
export const REC_LOG = 4;
export const REC_FROM = 5;
export const REC_CHECKPOINT = 6;
export const REC_END = 7;
export const REC_DUPS = 8;
export const REC_LINKS = 9;
export const REC_ROBOTS = 10;

/** A checkpoint's note of a robots.txt answer kept in a ROBOTS record (its `robotsRefs`, by origin). */
export interface RobotsRef {
  status?: number;
  outcome: string;
}

export const SOURCES: readonly RequestSource[] = REQUEST_SOURCES;
export const LISTED_FLAG = 4;
/** ADMIT's `s` of the sources after the first four: 8 + 2 × (code − 4) + listed (0–7 keep their meaning). */
const WIDE_SOURCES = 8;

export const RESULT_STATES = ['queued', 'done', 'error', 'blocked'] as const;

/** from ref meaning "no discoveredFrom". */
export const NO_FROM = -1;

/** The compact `extra` element of an ADMIT record: the entry's (see entry-codec.ts), and the request's own. */
export interface AdmitExtra extends EntryExtra {
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
  const s = admitSource(source, listed);
  let line = '[0,' + id + ',' + s + ',' + depth + ',' + from + ',' + JSON.stringify(url);
  let extra: AdmitExtra | undefined = entryExtra(entry);
  if (uniqueKey !== url) (extra ??= {}).k = uniqueKey;
  if (label !== undefined) (extra ??= {}).l = label;
  if (userData !== undefined) (extra ??= {}).u = userData;
  line += encodeTail(entry, extra);
  return line + ']\n';
}

/** ADMIT's `s`: the source's code, plus LISTED_FLAG when admitted 'listed'. */
export function admitSource(source: RequestSource, listed: boolean): number {
  const code = SOURCES.indexOf(source);
  if (code < 4) return code + (listed ? LISTED_FLAG : 0);
  return WIDE_SOURCES + 2 * (code - 4) + (listed ? 1 : 0);
}

/** The source of an ADMIT's `s` (or a DUP's source code, which carries no listed flag). */
export function sourceOf(s: number): RequestSource {
  return SOURCES[s < WIDE_SOURCES ? s & 3 : 4 + ((s - WIDE_SOURCES) >> 1)] ?? 'link';
}

/** Whether an ADMIT's `s` says the URL was admitted 'listed'. */
export function admittedListed(s: number): boolean {
  return s < WIDE_SOURCES ? (s & LISTED_FLAG) !== 0 : ((s - WIDE_SOURCES) & 1) === 1;
}

/**
 * Whether a listing's wire text (the engine's ListingWire: `"url",lastmod,…`) is what ADMIT writes
 * after `[0,id,s,depth,from,`: nothing joins its extra (key, label, userData) and it spells `url` plainly.
 */
export function admitFits(url: string, uniqueKey: string, label: string | undefined, userData: unknown, entryJson: string): boolean {
  return uniqueKey === url && label === undefined && userData === undefined && spells(entryJson, url);
}

/** Whether `json` starts with `url` as a JSON string without escapes: `"url"` then `,` or its end. */
function spells(json: string, url: string): boolean {
  const end = url.length + 1;
  return (
    json.charCodeAt(0) === 34 &&
    json.charCodeAt(end) === 34 &&
    (json.length === end + 1 || json.charCodeAt(end + 1) === 44) &&
    json.slice(1, end) === url &&
    // json's first end + 1 characters are "url": no backslash among them is none in url.
    url.indexOf('\\') === -1
  );
}

/** Decodes a parsed ADMIT array. */
export function decodeAdmit(r: unknown[]): AdmitRecord {
  const s = r[2] as number;
  const source = sourceOf(s);
  const url = r[5] as string;
  const extra = r[9] as AdmitExtra | undefined;
  const rec: AdmitRecord = {
    id: r[1] as number,
    source,
    listed: admittedListed(s),
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

/** Index of lastmod in an ADMIT record, a DUP record and a DUPS record. */
export const ADMIT_TAIL = 6;
export const DUP_TAIL = 4;
export const DUPS_TAIL = 5;

/** Encodes a DUP line; a sitemap listing carries its entry (its lastmod may differ from the first one's). */
export function encodeDup(id: number, source: RequestSource, from: number, entry: SitemapUrlEntry | undefined): string {
  const code = SOURCES.indexOf(source);
  let line = '[1,' + id + ',' + (code < 4 ? code : admitSource(source, false)) + ',' + from;
  if (entry) line += encodeTail(entry, entryExtra(entry));
  return line + ']\n';
}

/** Encodes a DUPS line: `n` (≥ 2) listings in a row of URL `id` by one sitemap, each with `entry`. */
export function encodeDups(id: number, source: RequestSource, from: number, n: number, entry: SitemapUrlEntry | undefined): string {
  const code = SOURCES.indexOf(source);
  let line = '[8,' + id + ',' + (code < 4 ? code : admitSource(source, false)) + ',' + from + ',' + n;
  if (entry) line += encodeTail(entry, entryExtra(entry));
  return line + ']\n';
}

/** How many listings a DUP (1) or DUPS record stands for. */
export function repeatsOf(r: unknown[]): number {
  return r[0] === REC_DUPS ? (r[4] as number) : 1;
}

// ---------------------------------------------------------------- RESULT

/** The journal's key of each ResultFacts field (see RESULT above). */
const FACT_KEYS = {
  responseTimeMs: 't',
  wireBytes: 'w',
  bodyBytes: 'b',
  lastModified: 'm',
  etag: 'e',
  metaDescription: 'd',
  metaDescriptionCount: 'dn',
  h1: 'h',
  h1Count: 'hn',
  lang: 'l',
  wordCount: 'wc',
  contentHash: 'ch',
} as const satisfies Record<keyof ResultFacts, string>;

const FACT_FIELDS = Object.entries(FACT_KEYS) as [keyof ResultFacts, string][];
const TEXT_FACTS = new Set<keyof ResultFacts>(['lastModified', 'etag', 'metaDescription', 'h1', 'lang', 'contentHash']);

/** Encodes a RESULT line (with its newline): `stateCode` 1 done, 2 error, 3 blocked; facts only when any is known. */
export function encodeResult(id: number, stateCode: number, result: unknown, facts?: ResultFacts): string {
  let line = '[2,' + id + ',' + stateCode + ',' + JSON.stringify(result);
  if (facts) {
    const compact: Record<string, string | number> = {};
    let any = false;
    for (const [field, key] of FACT_FIELDS) {
      const v = facts[field];
      if (v === undefined) continue;
      compact[key] = v;
      any = true;
    }
    if (any) line += ',' + JSON.stringify(compact);
  }
  return line + ']\n';
}

/**
 * The facts of a parsed RESULT array; undefined when it has none (a journal written before them, an
 * answer that carried none). A value of the wrong type (a damaged line that still parses) is left out.
 */
export function decodeResultFacts(r: unknown[]): ResultFacts | undefined {
  const raw = r[4];
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const o = raw as Record<string, unknown>;
  const facts: Record<string, string | number> = {};
  for (const [field, key] of FACT_FIELDS) {
    const v = o[key];
    if (TEXT_FACTS.has(field) ? typeof v === 'string' : Number.isSafeInteger(v) && (v as number) >= 0) facts[field] = v as string | number;
  }
  return facts as ResultFacts;
}

// ---------------------------------------------------------------- LINKS

/** LINKS flags. */
export const LINK_NOFOLLOW = 1;
export const LINK_EXTERNAL = 2;

/** One link of a LINKS record: [target] | [target, anchor] | [target, anchor, flags]. */
export type LinkTuple = [number | string] | [number | string, string] | [number | string, string, number];

/** A LINKS tuple, trailing absents dropped. */
export function linkTuple(target: number | string, anchor: string, flags: number): LinkTuple {
  if (flags !== 0) return [target, anchor, flags];
  if (anchor !== '') return [target, anchor];
  return [target];
}

/** Encodes a LINKS line (with its newline). */
export function encodeLinks(pageId: number, links: LinkTuple[]): string {
  return '[9,' + pageId + ',' + JSON.stringify(links) + ']\n';
}

/** The tuples of a parsed LINKS array; [] when damaged (not an array). */
export function linksOf(r: unknown[]): LinkTuple[] {
  return Array.isArray(r[2]) ? (r[2] as LinkTuple[]) : [];
}
