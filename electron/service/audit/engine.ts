/**
 * AuditEngine: the sitemap audit, computed incrementally from the events the crawler reports and the
 * service journals (admissions, later discoveries, results, sitemap-tree nodes), so it runs live and
 * on replay after a resume alike, in any order of results and discoveries. Each event updates only
 * the URL or sitemap it is about (and, for hreflang, the URLs naming it); nothing is rescanned.
 *
 * Per URL it keeps 17 bytes in typed columns (flags with the result class and out-of-scope count
 * packed in, two 16-bit sitemap slots, widened only past 65,535 sitemaps; a byte of page flags and
 * two 32-bit duplicate-group references for the page findings), 1 more for the lastmod facts (+ 16 once
 * lastmods and Last-Modified headers are seen: the two instants as Float64) and no index of its own: URLs are found by uniqueKey through the crawl's frontier (`keys`). Strings only
 * for redirect targets, URLs in three or more sitemaps, hreflang edges and out-of-scope entries of
 * sitemaps still being read, and the titles and meta descriptions of indexable pages (once per
 * distinct text). Definitions: README.md.
 */
import type { RequestSource, SitemapNode, SitemapUrlEntry, UrlResult } from '../../../shared/model.js';
import {
  EngineError,
  SparseColumn,
  column,
  ensureCapacity,
  inSitemapScope,
  tryUniqueKey,
  w3cDatetimeMs,
  widened,
  type ResultFacts,
} from '../../engine/index.js';
import { FINDING_DEFINITIONS, definitionOf } from './definitions.js';
import { httpDateMs, LASTMOD_SLACK_MS, lastmodVerdictOf, SiteVariants } from './entry-checks.js';
import { HreflangGraph } from './hreflang-graph.js';
import { canonicalisedElsewhere, isHtmlType, saysNoindex, type IndexabilityVerdict } from './indexability.js';
import { isValidHreflang } from './hreflang-codes.js';
import { nodeFindingMask } from './sitemap-checks.js';
import {
  LASTMOD_FINDING_CODES,
  SITEMAP_FINDING_CODES,
  URL_FINDING_CODES,
  type Finding,
  type LastmodFindingCode,
  type LastmodTrust,
  type PreviousCrawlLookup,
  type FindingCode,
  type FindingDefinition,
  type SitemapBadge,
  type SitemapFindingCode,
  type UrlFindingCode,
} from './types.js';

export interface AuditEngineOptions {
  /** The start URL, or the first sitemap when there is none: defines the crawl's scheme and host. */
  crawlUrl: string;
  /** False for a sitemap-listing run (no page fetched): findings that need pages are not measured. */
  pagesCrawled: boolean;
  /** Links of fetched pages were followed (orphans need it). Default: pagesCrawled. */
  linksFollowed?: boolean;
  /** Clock for future-lastmod checks. Default: Date.now. */
  now?(): number;
  /**
   * The crawl's URL ids by uniqueKey and back: the frontier (whose ids are the admission ids the
   * audit is given). Default: a map the audit keeps itself, of the keys passed to admitted().
   */
  keys?: UrlKeys;
  /**
   * A recrawl: the previous crawl's lastmod and content hash of a URL, by uniqueKey. Without it the
   * cross-crawl findings (LASTMOD_FAKE_FRESH, LASTMOD_STALE) are not measured.
   */
  previous?: PreviousCrawlLookup;
}

export { laterLastmod } from './entry-checks.js';

/** Finds URLs of the crawl by uniqueKey, and the uniqueKey of a URL id. */
export interface UrlKeys {
  idOf(uniqueKey: string): number | undefined;
  keyOf(id: number): string | undefined;
}

/** UrlKeys for an audit used on its own (tests, tools): every key admitted, in a Map. */
class OwnUrlKeys implements UrlKeys {
  private readonly ids = new Map<string, number>();
  private readonly keys: string[] = [];
  add(id: number, key: string): void {
    if (this.keys[id] !== undefined) return;
    this.keys[id] = key;
    if (!this.ids.has(key)) this.ids.set(key, id);
  }
  idOf(uniqueKey: string): number | undefined {
    return this.ids.get(uniqueKey);
  }
  keyOf(id: number): string | undefined {
    return this.keys[id];
  }
}

// ---------------------------------------------------------------- per-URL encoding

/** Bit of each URL finding in a URL's mask. */
const U = Object.fromEntries(URL_FINDING_CODES.map((c, i) => [c, 1 << i])) as Record<UrlFindingCode, number>;
const WALKED = U.REDIRECT_CHAIN | U.REDIRECT_LOOP;
/** URL findings judged per listing: a tree badge counts the sitemap's listings that have it (see bump). */
const LISTING_BITS =
  U.DUPLICATE_IN_SITEMAP | U.SITEMAP_URL_OUT_OF_SCOPE | U.SITEMAP_HOST_VARIANT | U.SITEMAP_INVALID_LASTMOD | U.SITEMAP_FUTURE_LASTMOD | U.HREFLANG_INVALID_CODE;
/** URL findings of the URL itself (its answer, orphan, …): a tree badge counts the sitemap's URLs that have it. */
const PER_URL_BITS = ~(LISTING_BITS | WALKED);
const URL_INDEX = new Map<string, number>(URL_FINDING_CODES.map((c, i) => [c, i]));
const SITEMAP_INDEX = new Map<string, number>(SITEMAP_FINDING_CODES.map((c, i) => [c, i]));
/** URL findings whose members urlsOf lists in groups (same text), not by id alone. */
const GROUPED = U.DUPLICATE_TITLE | U.DUPLICATE_META_DESCRIPTION;

// "Is lastmod true?" (the `lm` column, one byte per URL; LASTMOD_FINDING_CODES).
/** A valid lastmod among its listings; lastmodMs holds the latest. */
const L_LASTMOD = 1 << 0;
/** Its latest result is a `done` 2xx with a Last-Modified that parses; headerMs holds it. */
const L_HEADER = 1 << 1;
/** Its latest result (2xx HTML) has the content hash the previous crawl had / another one. */
const L_CH_SAME = 1 << 2;
const L_CH_CHANGED = 1 << 3;
/** Its lastmod (the latest valid one) equals the previous crawl's (a valid one) / differs. */
const L_PREV_SAME = 1 << 4;
const L_PREV_MOVED = 1 << 5;
/** The lastmod mask (lmMaskOf): the three findings' bits (their index), then judged and disagreeing. */
const M_AFTER = 1 << 0;
const M_FAKE = 1 << 1;
const M_STALE = 1 << 2;
const M_JUDGED = 1 << 3;
const M_DISAGREE = 1 << 4;
const M_FINDINGS = M_AFTER | M_FAKE | M_STALE;
const LASTMOD_INDEX = new Map<string, number>(LASTMOD_FINDING_CODES.map((c, i) => [c, i]));
/** Sitemap entries that must all carry one lastmod for SITEMAP_UNIFORM_LASTMOD (README.md says why 5). */
export const UNIFORM_LASTMOD_MIN = 5;
const UNIFORM_BIT = 1 << SITEMAP_FINDING_CODES.indexOf('SITEMAP_UNIFORM_LASTMOD');

// Page facts (the `page` column, one byte per URL).
/** The latest result is a fetched 2xx HTML page (pageFacts is defined). */
const P_PAGE = 1 << 0;
const P_TITLE = 1 << 1; // a non-empty title (after trimming)
const P_DESC = 1 << 2; // a non-empty meta description
const P_H1 = 1 << 3; // a non-empty first H1
const P_MULTI_H1 = 1 << 4; // two or more <h1>
/** The target of a `link` discovery: an <a>/<area> of another crawled page. */
const P_LINKED = 1 << 5;
/** It has hreflang alternates of its own (a listing's or its page's). */
const P_HREF = 1 << 6;
/** Some hreflang alternate of it is a page that is not indexable (the graph's verdict). */
const P_HREF_NONINDEX = 1 << 7;
const P_RESULT = P_PAGE | P_TITLE | P_DESC | P_H1 | P_MULTI_H1;

/** Indexable pages sharing one exact text (trimmed): a title or meta description. Ids in no order. */
interface TextGroup {
  text: string;
  ids: number[];
  /** Its index in TextGroups.all. */
  slot: number;
}

/** Indexable pages by their exact title or meta description, and each page's group (index + 1; 0 = none). */
class TextGroups {
  readonly byText = new Map<string, TextGroup>();
  private readonly all: (TextGroup | undefined)[] = [];
  private readonly free: number[] = [];
  ref = column(Int32Array);

  groupOf(id: number): TextGroup | undefined {
    const r = id < this.ref.length ? this.ref[id]! : 0;
    return r === 0 ? undefined : this.all[r - 1];
  }

  /** Whether page `id` shares its text with another indexable page. */
  shared(id: number): boolean {
    return (this.groupOf(id)?.ids.length ?? 0) >= 2;
  }

  /** The page that leaving would leave alone (it loses the duplicate), or -1. */
  partnerOf(id: number): number {
    const g = this.groupOf(id);
    return g !== undefined && g.ids.length === 2 ? g.ids[g.ids[0] === id ? 1 : 0]! : -1;
  }

  /** The page that joining `text` would stop being alone (it gains the duplicate), or -1. */
  aloneWith(text: string): number {
    const g = this.byText.get(text);
    return g !== undefined && g.ids.length === 1 ? g.ids[0]! : -1;
  }

  /** Takes page `id` out of its group, if any. */
  leave(id: number): void {
    const r = id < this.ref.length ? this.ref[id]! : 0;
    if (r === 0) return;
    this.ref[id] = 0;
    const g = this.all[r - 1]!;
    const at = g.ids.indexOf(id);
    if (at >= 0) g.ids.splice(at, 1);
    if (g.ids.length === 0) {
      this.byText.delete(g.text);
      this.all[r - 1] = undefined;
      this.free.push(r - 1);
    }
  }

  /** Puts page `id` in the group of `text`. */
  join(id: number, text: string, size: number): void {
    if (this.ref.length < size) this.ref = ensureCapacity(this.ref, size);
    let g = this.byText.get(text);
    if (!g) {
      g = { text, ids: [], slot: this.free.pop() ?? this.all.length };
      this.byText.set(text, g);
      this.all[g.slot] = g;
    }
    this.ref[id] = g.slot + 1;
    g.ids.push(id);
  }

  /** The groups of two or more pages, each's ids ascending, by their first id; flattened. */
  members(): number[] {
    const groups: number[][] = [];
    for (const g of this.byText.values()) if (g.ids.length >= 2) groups.push([...g.ids].sort((a, b) => a - b));
    groups.sort((a, b) => a[0]! - b[0]!);
    return groups.flat();
  }

  /** How many groups of two or more pages. */
  groupCount(): number {
    let n = 0;
    for (const g of this.byText.values()) if (g.ids.length >= 2) n++;
    return n;
  }
}

// Facts about a URL (flags column).
const F_LISTED = 1 << 0; // listed by at least one sitemap
const F_REACHED = 1 << 1; // the start URL, or the target of a link discovery from a crawled page
const F_MULTI = 1 << 2; // listed by two or more sitemaps
const F_DUP = 1 << 3; // listed twice by one sitemap
const F_VARIANT = 1 << 4;
const F_BAD_LASTMOD = 1 << 5;
const F_FUTURE = 1 << 6;
const F_NOINDEX = 1 << 7;
const F_CANON_OTHER = 1 << 8;
const F_HTML = 1 << 9;
const F_HREF_NONRECIP = 1 << 10;
const F_HREF_BAD_TARGET = 1 << 11;
const F_HREF_BAD_CODE = 1 << 12;
/** The latest result answered exactly 200 (hreflang targets are judged on it). */
const F_STATUS_200 = 1 << 13;
/** Found otherwise than as a redirect's target (listed, linked, the start URL, a page's reference): where a chain starts. */
const F_ENTRY = 1 << 14;
/** Among its hreflang alternates (a listing's or its page's) is the URL itself. */
const F_HREF_SELF = 1 << 15;
const F_RESULT_FLAGS = F_NOINDEX | F_CANON_OTHER | F_HTML | F_STATUS_200;
// The result class (4 bits) and the out-of-scope listing count (8 bits; past 255, the rest in a side map) share the word.
const CAT_SHIFT = 16;
const CAT_BITS = 0xf << CAT_SHIFT;
const SCOPE_SHIFT = 20;
const SCOPE_ONE = 1 << SCOPE_SHIFT;

// Result class (bits CAT_SHIFT… of the flags).
const C_NONE = 0;
const C_2XX = 1;
const C_REDIRECT = 2;
const C_4XX = 3;
const C_5XX = 4;
const C_OTHER = 5;
const C_TIMEOUT = 6;
const C_ERROR = 7;
const C_BLOCKED = 8;

/** Error codes that mean the URL did not answer in time. */
const TIMEOUT_CODES = new Set(['TIMEOUT', 'ETIMEDOUT', 'ECONNECTTIMEOUT', 'ESOCKETTIMEDOUT', 'ECONNABORTED']);
const SATURATED = 255;
/** Hops walked along a redirect chain at most (a longer one is a chain; it cannot be a shorter loop). */
const MAX_CHAIN_WALK = 64;

/** Out-of-scope listings of one text by a sitemap still being read (see SitemapInfo.pendingScope). */
interface PendingListing {
  id: number;
  loc: string;
  /** Listings of it. */
  n: number;
}

/** What the audit knows of one sitemap (or robots.txt) node. */
interface SitemapInfo {
  idx: number;
  key: string;
  /** The node's URL, or the listing URL seen before the node. */
  url: string;
  node: SitemapNode | undefined;
  mask: number;
  /** Listings held per URL finding (code index → count), for the tree's badges. */
  listings: Map<number, number> | null;
  /** Its URLs having each per-URL finding (code index → count), for the tree's badges. */
  urlCodes: Int32Array | null;
  /**
   * Out-of-scope listings kept until the node's final URL is known (a redirect may put them in scope):
   * one entry per listing text (its fragment cut off: it plays no part in scope), with how many
   * listings it stands for, so a URL listed a million times holds one entry, not a million.
   */
  pendingScope: Map<string, PendingListing> | null;
  /** The node reached done/error/skipped: its final URL can no longer change. */
  final: boolean;
  /** Its URLs with each lastmod mask bit (M_*: 5 counters), for badges and lastmodTrust; null: none yet. */
  lm: Int32Array | null;
  /** Its listings; those with a valid lastmod equal to uniformMs, the first valid one seen (NaN: none). */
  entries: number;
  sameLastmod: number;
  uniformMs: number;
  /** crossSubmittedScope() as of node event number `announcedAt` (the tree may change it). */
  announced: string | undefined;
  announcedAt: number;
}

export class AuditEngine {
  private readonly pages: boolean;
  private readonly links: boolean;
  private readonly now: () => number;
  private site: SiteVariants;

  private size = 0;
  /** Facts (F_*), result class (CAT_BITS) and out-of-scope listings (from SCOPE_SHIFT, 255 at most: see outOfScope). */
  private flags = column(Uint32Array);
  /** Sitemap idx + 1 of the first distinct sitemap listing the URL (0 = none); Int32 past 65,535 sitemaps. */
  private first: Uint16Array | Int32Array = column(Uint16Array);
  /** Page facts (P_*): what the page findings and pageFacts read. */
  private page = column(Uint8Array);
  /** Lastmod facts (L_*); the latest valid lastmod and the Last-Modified header (ms), allocated on first use. */
  private lm = column(Uint8Array);
  private lastmodMs: Float64Array | null = null;
  private headerMs: Float64Array | null = null;
  private readonly previous: PreviousCrawlLookup | undefined;
  private readonly lmCounts = new Int32Array(LASTMOD_FINDING_CODES.length);
  /** Indexable pages by exact title and by exact meta description (texts of indexable HTML pages only). */
  private readonly titles = new TextGroups();
  private readonly descriptions = new TextGroups();
  /** The same for the second distinct sitemap, of the URLs listed by more than one (most are listed once). */
  private readonly second = new SparseColumn();
  private readonly keys: UrlKeys;
  private readonly ownKeys: OwnUrlKeys | null;
  /** Third and further distinct sitemaps of a URL (rare). */
  private readonly more = new Map<number, Set<number>>();
  /** Where each redirecting URL's own Location leads (its latest result). */
  private readonly redirects = new Map<number, string>();
  /** Changes whenever a walk along the redirects may end otherwise; chains() is cached per value. */
  private redirectVersion = 0;
  private chainCache: { version: number; chain: Set<number>; loop: Set<number> } | null = null;
  private readonly hreflang: HreflangGraph;
  private readonly notOk = (id: number): boolean => this.answersNot200(id);
  private readonly notIndexable = (id: number): boolean => this.pageNotIndexable(id);
  private readonly urlCounts = new Int32Array(URL_FINDING_CODES.length);
  /** Out-of-scope listings of a URL past the 255 its flags hold (a URL listed out of scope that often). */
  private readonly scopeOverflow = new Map<number, number>();

  private readonly sitemaps: SitemapInfo[] = [];
  private readonly sitemapByKey = new Map<string, SitemapInfo>();
  private readonly sitemapByListingUrl = new Map<string, SitemapInfo>();
  private readonly children = new Map<string, Set<string>>();
  private readonly sitemapCounts = new Int32Array(SITEMAP_FINDING_CODES.length);
  private robotsSeen = false;
  /** node() calls so far: what is cached from the tree is valid for one value of it. */
  private nodeEvents = 0;

  constructor(opts: AuditEngineOptions) {
    this.pages = opts.pagesCrawled;
    this.links = opts.pagesCrawled && (opts.linksFollowed ?? true);
    this.now = opts.now ?? Date.now;
    this.previous = opts.previous;
    try {
      this.site = new SiteVariants(opts.crawlUrl);
    } catch (cause) {
      throw new EngineError('INVALID_URL', `The audit needs the crawl's start URL or first sitemap; "${opts.crawlUrl}" is not a valid URL.`, { cause });
    }
    this.ownKeys = opts.keys ? null : new OwnUrlKeys();
    this.keys = opts.keys ?? this.ownKeys!;
    // Alternates are found by key through the same keys (the frontier), and bound on results.
    this.hreflang = new HreflangGraph(this.keys);
  }
  /**
   * The site the crawl is of, when its start URL redirects off its origin (the crawler's
   * START_REDIRECTED, before any sitemap is read): SITEMAP_HOST_VARIANT is judged against it.
   */
  setSite(url: string): void {
    try {
      this.site = new SiteVariants(url);
    } catch {
      // not a URL: the start URL's origin stays the site
    }
  }

  // ---------------------------------------------------------------- events

  /** A URL entered the frontier (its first discovery). Pass `uniqueKey` when known to save recomputing it. */
  admitted(id: number, url: string, source: RequestSource, sitemapEntry?: SitemapUrlEntry, from?: string, uniqueKey?: string): void {
    this.ensure(id);
    const key = uniqueKey ?? tryUniqueKey(url) ?? url;
    this.ownKeys?.add(id, key);
    // An alternate named before its URL was admitted gets its id with its first result (only a
    // result makes it a bad target), not here: that would hash every URL admitted.
    this.discover(id, source, from, sitemapEntry, url, key, true);
  }

  /**
   * A known URL was found again: another sitemap listing it, another page linking it, the same sitemap
   * again. `times`: so many such discoveries in a row, alike (a sitemap repeating one entry): counted
   * as that many calls would count them, in one step.
   */
  discovered(id: number, d: { source: RequestSource; from?: string }, entry?: SitemapUrlEntry, times = 1): void {
    this.ensure(id);
    if (!(Number.isInteger(times) && times >= 1))
      throw new EngineError('INVALID_COUNT', `The audit got ${times} discoveries of URL ${id}; a count is an integer from 1.`);
    this.discover(id, d.source, d.from, entry, entry?.loc, undefined, false, times);
  }

  /** Out-of-scope listings held until their sitemap's final URL is known (entries, each standing for its repeats). */
  heldListings(): number {
    let n = 0;
    for (const s of this.sitemaps) n += s.pendingScope?.size ?? 0;
    return n;
  }

  /** A URL was handled: fetched (any status), failed, or blocked by robots.txt. The latest result wins. */
  result(id: number, state: 'done' | 'error' | 'blocked', r: UrlResult, facts?: ResultFacts): void {
    this.ensure(id);
    const before = this.maskOf(id);
    const lmBefore = this.lmMaskOf(id);
    // Leaving its old groups or joining new ones changes the pages it leaves alone or pairs with.
    const partners = new Map<number, number>();
    this.notePartner(partners, this.titles.partnerOf(id));
    this.notePartner(partners, this.descriptions.partnerOf(id));
    this.titles.leave(id);
    this.descriptions.leave(id);
    let f = this.flags[id]! & ~(F_RESULT_FLAGS | CAT_BITS);
    let c: number;
    const wasRedirect = this.redirects.delete(id);
    if (state === 'blocked') c = C_BLOCKED;
    else if (state === 'error') c = TIMEOUT_CODES.has(r.error?.code ?? '') ? C_TIMEOUT : C_ERROR;
    else if (r.redirectTo !== undefined) {
      c = C_REDIRECT;
      this.redirects.set(id, r.redirectTo);
    } else c = statusClass(r.status);
    if (state === 'done' && c === C_2XX) {
      // The pieces of indexabilityOf (indexability.ts), so that "indexable" is one rule everywhere.
      if (isHtmlType(r.contentType)) f |= F_HTML;
      if (saysNoindex(r)) f |= F_NOINDEX;
      if (canonicalisedElsewhere(r.canonical, this.keys.keyOf(id))) f |= F_CANON_OTHER;
    }
    if (r.status === 200) f |= F_STATUS_200;
    this.flags[id] = f | (c << CAT_SHIFT);
    let p = this.page[id]! & ~P_RESULT;
    const title = r.title?.trim() ?? '';
    const desc = facts?.metaDescription?.trim() ?? '';
    if (state === 'done' && c === C_2XX && (f & F_HTML) !== 0) {
      p |= P_PAGE;
      if (title !== '') p |= P_TITLE;
      if (desc !== '') p |= P_DESC;
      if ((facts?.h1?.trim() ?? '') !== '') p |= P_H1;
      if ((facts?.h1Count ?? 0) >= 2) p |= P_MULTI_H1;
    }
    this.page[id] = p;
    // Texts are kept for indexable pages only (the duplicate findings are about them).
    if ((p & P_PAGE) !== 0 && (f & (F_NOINDEX | F_CANON_OTHER)) === 0) {
      if (title !== '') {
        this.notePartner(partners, this.titles.aloneWith(title));
        this.titles.join(id, title, this.flags.length);
      }
      if (desc !== '') {
        this.notePartner(partners, this.descriptions.aloneWith(desc));
        this.descriptions.join(id, desc, this.flags.length);
      }
    }
    this.settle(id, before);
    for (const [other, otherBefore] of partners) if (other !== id) this.settle(other, otherBefore);
    this.resultLastmodFacts(id, state === 'done' && c === C_2XX, facts);
    this.settleLm(id, lmBefore);
    const target = this.redirects.get(id);
    if (wasRedirect || target !== undefined) this.redirectVersion++;
    // A reached URL that redirects leads the visitor on: its target is reached too.
    if (target !== undefined && (f & F_REACHED) !== 0) this.reach(this.idOfUrl(target));
    const key = this.keys.keyOf(id);
    if (key !== undefined) {
      // Bound even with no alternates yet: a URL named later is looked up only if it has a result.
      for (const source of this.hreflang.bind(key, id)) this.recomputeHreflang(source);
      // A fetched page's own <link rel="alternate" hreflang> join its sitemap alternates in one graph.
      if (state === 'done' && c === C_2XX && (f & F_HTML) !== 0 && r.hreflang?.length) {
        for (const source of this.pageAlternates(id, key, r.hreflang)) this.recomputeHreflang(source);
      }
    }
  }

  /**
   * The hreflang alternates page `id` declares in its HTML: its codes checked, its targets added to
   * the graph. Returns the sources to judge again. Alternates once recorded stay (as a listing's do):
   * a page's answer within one crawl does not change its HTML.
   */
  private pageAlternates(id: number, key: string, alternates: readonly { lang: string; href: string }[]): number[] {
    const before = this.maskOf(id);
    if (alternates.some((a) => !isValidHreflang(a.lang))) this.flags[id] |= F_HREF_BAD_CODE;
    const targetKeys: string[] = [];
    for (const a of alternates) {
      const k = tryUniqueKey(a.href);
      if (k !== null) targetKeys.push(k);
    }
    this.noteSelf(id, key, targetKeys);
    this.settle(id, before);
    return this.hreflang.addAlternates(key, id, targetKeys);
  }

  /** URL `id` (of uniqueKey `key`) declares the alternates `targetKeys`: notes whether it names itself among them. */
  private noteSelf(id: number, key: string, targetKeys: readonly string[]): void {
    this.page[id] |= P_HREF;
    if (targetKeys.includes(key)) this.flags[id] |= F_HREF_SELF;
  }

  /** A sitemap-tree node was added or changed (the whole node; latest wins). */
  node(n: SitemapNode): void {
    this.nodeEvents++;
    const s = this.sitemapInfo(n.id, n.url);
    const prev = s.node;
    s.node = n;
    s.url = n.url;
    if (prev?.parentId !== n.parentId) {
      if (prev?.parentId) this.children.get(prev.parentId)?.delete(n.id);
      if (n.parentId !== null) {
        let set = this.children.get(n.parentId);
        if (!set) this.children.set(n.parentId, (set = new Set()));
        set.add(n.id);
      }
    }
    // Listings judged before this node (a replay reads a sitemap's first entries before its node, which
    // the journal writes at the next flush) or before its final URL was known: judged again now.
    if (s.pendingScope) this.rescope(s);
    if (n.state === 'done' || n.state === 'error' || n.state === 'skipped') {
      s.final = true;
      s.pendingScope = null;
    }
    if (n.type === 'robots' && !this.robotsSeen) {
      // From now on "not announced in robots.txt" is measured: every node is judged again.
      this.robotsSeen = true;
      for (const other of this.sitemaps) this.judgeSitemap(other);
      return;
    }
    this.judgeSitemap(s);
    const structural = prev === undefined || prev.type !== n.type || prev.parentId !== n.parentId || (n.type === 'robots' && prev.childCount !== n.childCount);
    if (structural) this.judgeDescendants(n.id);
  }

  // ---------------------------------------------------------------- queries

  /** Every finding, measured or not, in catalogue order (critical first); count 0 when none or not measured. */
  findings(): Finding[] {
    return FINDING_DEFINITIONS.map((d) => this.report(d));
  }

  /** One finding by code. Throws UNKNOWN_FINDING for a code the audit does not define. */
  finding(code: string): Finding {
    return this.report(this.definition(code));
  }

  /** The affected items of a finding: URL ids (ascending) for URL findings, sitemap URLs for sitemap findings. */
  urlsOf(code: string): number[] | string[] {
    const d = this.definition(code);
    if (d.subject === 'sitemap') {
      const bit = 1 << SITEMAP_INDEX.get(d.code)!;
      return this.sitemaps.filter((s) => (s.mask & bit) !== 0).map((s) => s.url);
    }
    const li = LASTMOD_INDEX.get(d.code);
    if (li !== undefined) {
      const out: number[] = [];
      if (this.lmCounts[li] === 0) return out;
      for (let id = 0; id < this.size; id++) if ((this.lmMaskOf(id) & (1 << li)) !== 0) out.push(id);
      return out;
    }
    const bit = U[d.code as UrlFindingCode];
    if ((bit & WALKED) !== 0) {
      if (!this.pages) return [];
      const c = this.chains();
      return [...(bit === U.REDIRECT_CHAIN ? c.chain : c.loop)].sort((a, b) => a - b);
    }
    if (this.urlCounts[URL_INDEX.get(d.code)!] === 0) return [];
    if ((bit & GROUPED) !== 0) return (bit === U.DUPLICATE_TITLE ? this.titles : this.descriptions).members();
    const out: number[] = [];
    for (let id = 0; id < this.size; id++) if ((this.maskOf(id) & bit) !== 0) out.push(id);
    return out;
  }

  /** The URL's indexability from the audit's facts, equal to indexabilityOf(state, result, key) (indexability.ts); undefined while it has no result. */
  indexability(id: number): IndexabilityVerdict | undefined {
    if (!(id >= 0 && id < this.size)) return undefined;
    return verdictOf(this.flags[id]!);
  }

  /** On-page facts of a fetched 2xx HTML page (any indexability); undefined for any other URL. 'missing' = none, or only empty ones. */
  pageFacts(id: number): { metaDescription: boolean; h1: boolean } | undefined {
    if (!(id >= 0 && id < this.size)) return undefined;
    const p = this.page[id]!;
    if ((p & P_PAGE) === 0) return undefined;
    return { metaDescription: (p & P_DESC) !== 0, h1: (p & P_H1) !== 0 };
  }

  /** Whether URL `id` is affected by finding `code` (false for sitemap findings and unknown ids). */
  has(code: string, id: number): boolean {
    const bit = U[code as UrlFindingCode];
    if (bit === undefined) {
      const li = LASTMOD_INDEX.get(code);
      if (li !== undefined) return id >= 0 && id < this.size && (this.lmMaskOf(id) & (1 << li)) !== 0;
      this.definition(code);
      return false;
    }
    if (!(id >= 0 && id < this.size)) return false;
    return ((bit & WALKED ? this.walkedMask(id) : this.maskOf(id)) & bit) !== 0;
  }

  /**
   * Whether URL `alternate` names URL `id` back as an hreflang alternate (a sitemap listing's or its
   * page's), as HREFLANG_NOT_RECIPROCAL judges it. `id` has alternates of its own or a result.
   */
  namesBack(alternate: number, id: number): boolean {
    return this.hreflang.names(alternate, id);
  }

  /** The URL findings that affect one URL, in catalogue order. */
  codesOf(id: number): (UrlFindingCode | LastmodFindingCode)[] {
    if (id < 0 || id >= this.size) return [];
    const m = this.maskOf(id) | this.walkedMask(id);
    const lm = this.lmMaskOf(id);
    return FINDING_DEFINITIONS.filter((d) => {
      if (d.subject !== 'url') return false;
      const li = LASTMOD_INDEX.get(d.code);
      return li !== undefined ? (lm & (1 << li)) !== 0 : (m & U[d.code as UrlFindingCode]) !== 0;
    }).map((d) => d.code as UrlFindingCode | LastmodFindingCode);
  }

  /** Where a URL in SITEMAP_URL_REDIRECT (or any redirecting URL) leads. */
  redirectTarget(id: number): string | undefined {
    return this.redirects.get(id);
  }

  /** The findings of one sitemap node (by id = uniqueKey, or by URL): its own, then its listings' per URL code. */
  sitemapBadges(nodeIdOrUrl: string): SitemapBadge[] {
    const s = this.sitemapByKey.get(nodeIdOrUrl) ?? this.sitemapByKey.get(tryUniqueKey(nodeIdOrUrl) ?? nodeIdOrUrl);
    if (!s) return [];
    const out: SitemapBadge[] = [];
    for (const d of FINDING_DEFINITIONS) {
      if (d.subject === 'sitemap') {
        if ((s.mask & (1 << SITEMAP_INDEX.get(d.code)!)) !== 0) out.push({ code: d.code, count: 1 });
      } else if (LASTMOD_INDEX.has(d.code)) {
        const n = s.lm?.[LASTMOD_INDEX.get(d.code)!] ?? 0;
        if (n > 0) out.push({ code: d.code, count: n });
      } else {
        const i = URL_INDEX.get(d.code)!;
        const bit = 1 << i;
        let n: number;
        if (bit & WALKED) n = this.walkedListedBy(s, bit);
        else n = bit & LISTING_BITS ? (s.listings?.get(i) ?? 0) : (s.urlCodes?.[i] ?? 0);
        if (n > 0) out.push({ code: d.code, count: n });
      }
    }
    return out;
  }

  /**
   * How far sitemap `nodeIdOrUrl`'s lastmods agree with the evidence: of its distinct listed URLs with a
   * valid lastmod and evidence (a Last-Modified header; in a recrawl, the previous crawl's lastmod and
   * content hash), how many are in none of the LASTMOD_* findings. Undefined when none could be judged.
   */
  lastmodTrust(nodeIdOrUrl: string): LastmodTrust | undefined {
    const s = this.sitemapByKey.get(nodeIdOrUrl) ?? this.sitemapByKey.get(tryUniqueKey(nodeIdOrUrl) ?? nodeIdOrUrl);
    const judged = s?.lm?.[3] ?? 0;
    if (judged === 0) return undefined;
    return { agree: judged - s!.lm![4]!, judged };
  }

  /** Bytes held by the per-URL typed columns (strings and maps not included). */
  allocatedBytes(): number {
    return (
      this.flags.byteLength +
      this.first.byteLength +
      this.second.bytes() +
      this.page.byteLength +
      this.titles.ref.byteLength +
      this.descriptions.ref.byteLength +
      this.lm.byteLength +
      (this.lastmodMs?.byteLength ?? 0) +
      (this.headerMs?.byteLength ?? 0)
    );
  }

  // ---------------------------------------------------------------- URL facts

  /** The URL findings of one URL, from its facts and what this crawl measures. */
  private maskOf(id: number): number {
    const f = this.flags[id]!;
    const c = (f & CAT_BITS) >>> CAT_SHIFT;
    let m = this.pageMask(id, f, c);
    // hreflang: a URL with alternates of its own, in a sitemap entry or in its page.
    if (f & F_HREF_NONRECIP) m |= U.HREFLANG_NOT_RECIPROCAL;
    if (f & F_HREF_BAD_CODE) m |= U.HREFLANG_INVALID_CODE;
    if (this.pages && (f & F_HREF_BAD_TARGET) !== 0) m |= U.HREFLANG_TARGET_NOT_200;
    const p = this.page[id]!;
    if ((f & F_HREF_SELF) === 0 && (p & P_HREF) !== 0) m |= U.HREFLANG_NO_SELF;
    if (this.pages && (p & P_HREF_NONINDEX) !== 0) m |= U.HREFLANG_TARGET_NOT_INDEXABLE;
    if ((f & F_LISTED) === 0) {
      if (this.pages && c === C_2XX && (f & (F_HTML | F_NOINDEX | F_CANON_OTHER)) === F_HTML) m |= U.INDEXABLE_NOT_IN_SITEMAP;
      return m;
    }
    if (this.pages) {
      switch (c) {
        case C_2XX:
          if (f & F_NOINDEX) m |= U.SITEMAP_URL_NOINDEX;
          if (f & F_CANON_OTHER) m |= U.SITEMAP_URL_CANONICALISED;
          break;
        case C_REDIRECT:
          m |= U.SITEMAP_URL_REDIRECT;
          break;
        case C_4XX:
          m |= U.SITEMAP_URL_4XX;
          break;
        case C_5XX:
          m |= U.SITEMAP_URL_5XX;
          break;
        case C_TIMEOUT:
          m |= U.SITEMAP_URL_TIMEOUT;
          break;
        case C_ERROR:
          m |= U.SITEMAP_URL_ERROR;
          break;
        case C_BLOCKED:
          m |= U.SITEMAP_URL_BLOCKED;
          break;
      }
    }
    if (this.links && (f & F_REACHED) === 0) m |= U.SITEMAP_ORPHAN;
    if (f & F_MULTI) m |= U.URL_IN_MULTIPLE_SITEMAPS;
    if (f & F_DUP) m |= U.DUPLICATE_IN_SITEMAP;
    if (f >>> SCOPE_SHIFT !== 0) m |= U.SITEMAP_URL_OUT_OF_SCOPE;
    if (f & F_VARIANT) m |= U.SITEMAP_HOST_VARIANT;
    if (f & F_BAD_LASTMOD) m |= U.SITEMAP_INVALID_LASTMOD;
    if (f & F_FUTURE) m |= U.SITEMAP_FUTURE_LASTMOD;
    return m;
  }

  /** Remembers another page's findings before a group change touches it (the first snapshot counts). */
  private notePartner(partners: Map<number, number>, other: number): void {
    if (other >= 0 && !partners.has(other)) partners.set(other, this.maskOf(other));
  }

  /** The page findings of one URL (links to it, its on-page fields). */
  private pageMask(id: number, f: number, c: number): number {
    const p = this.page[id]!;
    let m = 0;
    if (this.links && (p & P_LINKED) !== 0) {
      if (c === C_4XX || c === C_5XX || c === C_TIMEOUT || c === C_ERROR) m |= U.BROKEN_INTERNAL_LINK;
      else if (c === C_REDIRECT) m |= U.LINK_TO_REDIRECT;
      else if (c === C_2XX && ((f & F_NOINDEX) !== 0 || (f & (F_HTML | F_CANON_OTHER)) === (F_HTML | F_CANON_OTHER))) m |= U.LINKED_NON_INDEXABLE;
    }
    // Indexable: a fetched 2xx HTML page, neither noindex nor canonicalised (indexabilityOf).
    if (this.pages && (p & P_PAGE) !== 0 && (f & (F_NOINDEX | F_CANON_OTHER)) === 0) {
      if ((p & P_TITLE) === 0) m |= U.MISSING_TITLE;
      else if (this.titles.shared(id)) m |= U.DUPLICATE_TITLE;
      if ((p & P_DESC) === 0) m |= U.MISSING_META_DESCRIPTION;
      else if (this.descriptions.shared(id)) m |= U.DUPLICATE_META_DESCRIPTION;
      if ((p & P_H1) === 0) m |= U.MISSING_H1;
      if ((p & P_MULTI_H1) !== 0) m |= U.MULTIPLE_H1;
    }
    return m;
  }

  // ---------------------------------------------------------------- is lastmod true?

  /**
   * The lastmod mask of one URL (M_*): a finding's bit when its lastmod disagrees with the evidence,
   * M_JUDGED when there is evidence, M_DISAGREE with any finding. Only for URLs with a valid lastmod.
   */
  private lmMaskOf(id: number): number {
    if (!this.pages) return 0;
    const l = this.lm[id]!;
    if ((l & L_LASTMOD) === 0) return 0;
    let m = 0;
    if ((l & L_HEADER) !== 0) {
      m |= M_JUDGED;
      if (this.lastmodMs![id]! - this.headerMs![id]! > LASTMOD_SLACK_MS) m |= M_AFTER;
    }
    if ((l & (L_PREV_SAME | L_PREV_MOVED)) !== 0 && (l & (L_CH_SAME | L_CH_CHANGED)) !== 0) {
      m |= M_JUDGED;
      if ((l & (L_PREV_MOVED | L_CH_SAME)) === (L_PREV_MOVED | L_CH_SAME)) m |= M_FAKE;
      if ((l & (L_PREV_SAME | L_CH_CHANGED)) === (L_PREV_SAME | L_CH_CHANGED)) m |= M_STALE;
    }
    if ((m & M_FINDINGS) !== 0) m |= M_DISAGREE;
    return m;
  }

  /** A Float64 column of the URLs, allocated the first time it is needed. */
  private lmColumn(col: Float64Array | null): Float64Array {
    return col ?? ensureCapacity(column(Float64Array), Math.max(this.size, this.flags.length));
  }

  /** A listing gave URL `id` the valid lastmod `ms`: the latest one counts, and is weighed against the previous crawl's. */
  private noteLastmod(id: number, ms: number, key: string | undefined): void {
    const l = this.lm[id]!;
    const col = (this.lastmodMs = this.lmColumn(this.lastmodMs));
    if ((l & L_LASTMOD) !== 0 && ms <= col[id]!) return;
    col[id] = ms;
    let next = l | L_LASTMOD;
    if (this.previous) {
      next &= ~(L_PREV_SAME | L_PREV_MOVED);
      const k = key ?? this.keys.keyOf(id);
      const prev = k === undefined ? undefined : this.previous(k);
      const pms = prev?.lastmodMs ?? (prev?.lastmod === undefined ? NaN : w3cDatetimeMs(prev.lastmod));
      if (!Number.isNaN(pms)) next |= pms === ms ? L_PREV_SAME : L_PREV_MOVED;
    }
    this.lm[id] = next;
  }

  /** A result's evidence: its Last-Modified (a `done` 2xx), and its content hash against the previous crawl's. */
  private resultLastmodFacts(id: number, ok2xx: boolean, facts: ResultFacts | undefined): void {
    let l = this.lm[id]! & ~(L_HEADER | L_CH_SAME | L_CH_CHANGED);
    if (ok2xx && facts) {
      const header = facts.lastModified;
      const hms = header === undefined ? NaN : httpDateMs(header, this.now());
      if (!Number.isNaN(hms)) {
        (this.headerMs = this.lmColumn(this.headerMs))[id] = hms;
        l |= L_HEADER;
      }
      const hash = facts.contentHash;
      if (hash !== undefined && this.previous) {
        const key = this.keys.keyOf(id);
        const prev = key === undefined ? undefined : this.previous(key)?.contentHash;
        if (prev !== undefined) l |= prev === hash ? L_CH_SAME : L_CH_CHANGED;
      }
    }
    this.lm[id] = l;
  }

  /** Applies the change of one URL's lastmod mask since `before` to the counts and its sitemaps' counters. */
  private settleLm(id: number, before: number): void {
    const after = this.lmMaskOf(id);
    const diff = before ^ after;
    if (diff === 0) return;
    for (let bits = diff & M_FINDINGS; bits !== 0; bits &= bits - 1) {
      const bit = bits & -bits;
      this.lmCounts[31 - Math.clz32(bit)]! += (after & bit) !== 0 ? 1 : -1;
    }
    const ref = this.first[id]!;
    if (ref === 0) return;
    const apply = (s: SitemapInfo) => {
      this.countLm(s, after & diff, 1);
      this.countLm(s, before & diff, -1);
    };
    apply(this.sitemaps[ref - 1]!);
    const second = this.second.get(id);
    if (second === 0) return;
    apply(this.sitemaps[second - 1]!);
    for (const more of this.more.get(id) ?? []) apply(this.sitemaps[more - 1]!);
  }

  /** Adds `by` to sitemap `s`'s counters of each lastmod mask bit in `bits`. */
  private countLm(s: SitemapInfo, bits: number, by: number): void {
    if (bits === 0) return;
    const counts = (s.lm ??= new Int32Array(5));
    for (; bits !== 0; bits &= bits - 1) counts[31 - Math.clz32(bits & -bits)]! += by;
  }

  /** `times` listings of sitemap `s` with this lastmod: SITEMAP_UNIFORM_LASTMOD when all of them (≥ 5) carry one valid instant. */
  private noteUniform(s: SitemapInfo, ms: number, times: number): void {
    s.entries += times;
    if (!Number.isNaN(ms)) {
      if (Number.isNaN(s.uniformMs)) {
        s.uniformMs = ms;
        s.sameLastmod = times;
      } else if (ms === s.uniformMs) s.sameLastmod += times;
    }
    const bit = s.entries >= UNIFORM_LASTMOD_MIN && s.sameLastmod === s.entries ? UNIFORM_BIT : 0;
    if ((s.mask & UNIFORM_BIT) === bit) return;
    s.mask ^= UNIFORM_BIT;
    this.sitemapCounts[31 - Math.clz32(UNIFORM_BIT)]! += bit !== 0 ? 1 : -1;
  }

  /** Applies the change of one URL's findings since `before` to the counts. */
  private settle(id: number, before: number): void {
    let diff = before ^ this.maskOf(id);
    if (diff === 0) return;
    const after = before ^ diff;
    const perUrl = diff & PER_URL_BITS;
    while (diff !== 0) {
      const bit = diff & -diff;
      diff ^= bit;
      this.urlCounts[31 - Math.clz32(bit)]! += (after & bit) !== 0 ? 1 : -1;
    }
    // The sitemaps listing the URL count its own findings for their badges.
    if (perUrl !== 0 && this.first[id] !== 0) {
      this.countIn(this.sitemaps[this.first[id]! - 1]!, perUrl & after, 1);
      this.countIn(this.sitemaps[this.first[id]! - 1]!, perUrl & before, -1);
      const second = this.second.get(id);
      if (second !== 0) {
        this.countIn(this.sitemaps[second - 1]!, perUrl & after, 1);
        this.countIn(this.sitemaps[second - 1]!, perUrl & before, -1);
        for (const ref of this.more.get(id) ?? []) {
          this.countIn(this.sitemaps[ref - 1]!, perUrl & after, 1);
          this.countIn(this.sitemaps[ref - 1]!, perUrl & before, -1);
        }
      }
    }
  }

  /** Adds `by` to sitemap `s`'s URL count of each finding in `bits`. */
  private countIn(s: SitemapInfo, bits: number, by: number): void {
    if (bits === 0) return;
    const counts = (s.urlCodes ??= new Int32Array(URL_FINDING_CODES.length));
    while (bits !== 0) {
      const bit = bits & -bits;
      bits ^= bit;
      counts[31 - Math.clz32(bit)]! += by;
    }
  }

  /** How many URLs sitemap `s` lists that a walked finding (chain, loop) holds. */
  private walkedListedBy(s: SitemapInfo, bit: number): number {
    if (this.redirects.size === 0 || !this.pages) return 0;
    const c = this.chains();
    const ref = s.idx + 1;
    let n = 0;
    for (const id of bit === U.REDIRECT_CHAIN ? c.chain : c.loop) {
      if (this.first[id] === ref || this.second.get(id) === ref || this.more.get(id)?.has(ref)) n++;
    }
    return n;
  }

  private discover(
    id: number,
    source: RequestSource,
    from: string | undefined,
    entry: SitemapUrlEntry | undefined,
    url: string | undefined,
    key?: string,
    fresh = false,
    times = 1,
  ): void {
    if (source !== 'redirect' && (this.flags[id]! & F_ENTRY) === 0) {
      this.flags[id] |= F_ENTRY; // no finding of its own: only the walks' starting points change
      if (this.redirects.has(id)) this.redirectVersion++;
    }
    // Only an <a>/<area> of another page (the crawler reports no link to itself), the start URL, or a
    // redirect from a reached URL reaches a URL; canonical, hreflang and other references do not.
    if (source === 'link' && (this.page[id]! & P_LINKED) === 0) {
      const before = this.maskOf(id);
      this.page[id] |= P_LINKED;
      this.settle(id, before);
    }
    if (source === 'link' || source === 'start') return this.reach(id);
    if (source === 'redirect') {
      if (from !== undefined && (this.flagsOf(this.idOfUrl(from)) & F_REACHED) !== 0) this.reach(id);
      return;
    }
    if (source !== 'sitemap') return;
    const before = this.maskOf(id);
    const lmBefore = this.lmMaskOf(id);
    const affected = this.listing(id, from, entry, entry?.loc ?? url, key, fresh, before, lmBefore, times);
    this.settle(id, before);
    this.settleLm(id, lmBefore);
    if (affected) for (const source of affected) this.recomputeHreflang(source);
  }

  /** Marks a URL reached, and what its redirects lead to (walked until a URL already reached). */
  private reach(id: number): void {
    for (let hops = 0; hops <= MAX_CHAIN_WALK && id >= 0 && id < this.size; hops++) {
      const f = this.flags[id]!;
      if ((f & F_REACHED) !== 0) return;
      const before = this.maskOf(id);
      this.flags[id] = f | F_REACHED;
      this.settle(id, before);
      const target = this.redirects.get(id);
      if (target === undefined) return;
      id = this.idOfUrl(target);
    }
  }

  /** The id of a URL of the crawl, or -1. */
  private idOfUrl(url: string): number {
    return this.keys.idOf(tryUniqueKey(url) ?? url) ?? -1;
  }

  private flagsOf(id: number): number {
    return id >= 0 && id < this.size ? this.flags[id]! : 0;
  }

  /**
   * The redirect walks: from every redirecting URL along the rows' own Locations, until a URL that
   * does not redirect (or is not fetched), or a URL already on the walk (a loop). REDIRECT_CHAIN:
   * where a walk starts (F_ENTRY) and has 2+ redirecting hops; REDIRECT_LOOP: every URL on a cycle,
   * and the starting points whose walk runs into one. Recomputed only after a redirect changed.
   */
  private chains(): { chain: Set<number>; loop: Set<number> } {
    if (this.chainCache?.version === this.redirectVersion) return this.chainCache;
    const chain = new Set<number>();
    const loop = new Set<number>();
    const onPath = new Map<number, number>();
    const path: number[] = [];
    for (const start of this.redirects.keys()) {
      onPath.clear();
      path.length = 0;
      let cur = start;
      let cycleAt = -1;
      while (path.length < MAX_CHAIN_WALK) {
        onPath.set(cur, path.length);
        path.push(cur);
        const target = this.redirects.get(cur);
        const next = target === undefined ? -1 : this.idOfUrl(target);
        if (next < 0) break;
        const at = onPath.get(next);
        if (at !== undefined) {
          cycleAt = at;
          break;
        }
        if (!this.redirects.has(next)) break;
        cur = next;
      }
      const entry = (this.flags[start]! & F_ENTRY) !== 0;
      if (cycleAt >= 0) {
        for (let i = cycleAt; i < path.length; i++) loop.add(path[i]!);
        if (entry) loop.add(start);
      } else if (entry && path.length >= 2) chain.add(start);
    }
    this.chainCache = { version: this.redirectVersion, chain, loop };
    return this.chainCache;
  }

  /** The walked findings of one URL (REDIRECT_CHAIN, REDIRECT_LOOP bits). */
  private walkedMask(id: number): number {
    if (this.redirects.size === 0 || !this.pages) return 0;
    const c = this.chains();
    return (c.chain.has(id) ? U.REDIRECT_CHAIN : 0) | (c.loop.has(id) ? U.REDIRECT_LOOP : 0);
  }

  /**
   * `times` alike sitemap listings of URL `id` in a row (usually one); returns the ids of the hreflang
   * sources to judge again (after settling `id`). Every check gives each of them the same verdict,
   * so each counts `times` over; the URL's flags and its alternates are the same after one or many.
   */
  private listing(
    id: number,
    from: string | undefined,
    entry: SitemapUrlEntry | undefined,
    loc: string | undefined,
    key: string | undefined,
    fresh: boolean,
    before: number,
    lmBefore: number,
    times = 1,
  ): number[] | null {
    this.flags[id] |= F_LISTED;
    const s = from === undefined ? undefined : this.sitemapOfListing(from);
    if (s) this.member(id, s, before, lmBefore, times);
    if (loc !== undefined) {
      if (s && !this.inScopeOf(s, loc)) {
        this.setOutOfScope(id, this.outOfScope(id) + times);
        bump(s, 'SITEMAP_URL_OUT_OF_SCOPE', times);
        if (!s.final) holdForRescope(s, id, loc, times);
      }
      if (this.site.isVariant(loc)) {
        this.flags[id] |= F_VARIANT;
        if (s) bump(s, 'SITEMAP_HOST_VARIANT', times);
      }
    }
    // Parsed once here for the three checks that need it (NaN: none, or not a W3C Datetime).
    const lastmodMs = entry?.lastmod === undefined ? NaN : w3cDatetimeMs(entry.lastmod);
    if (entry?.lastmod !== undefined) {
      const v = lastmodVerdictOf(lastmodMs, this.now());
      if (v !== 'ok') {
        this.flags[id] |= v === 'invalid' ? F_BAD_LASTMOD : F_FUTURE;
        if (s) bump(s, v === 'invalid' ? 'SITEMAP_INVALID_LASTMOD' : 'SITEMAP_FUTURE_LASTMOD', times);
      }
      if (v !== 'invalid') this.noteLastmod(id, lastmodMs, key);
    }
    if (s) this.noteUniform(s, lastmodMs, times);
    const alternates = entry?.alternates;
    if (!alternates || alternates.length === 0) return null;
    for (let i = 0; i < alternates.length; i++) {
      if (!isValidHreflang(alternates[i]!.lang)) {
        this.flags[id] |= F_HREF_BAD_CODE;
        if (s) bump(s, 'HREFLANG_INVALID_CODE', times);
        break;
      }
    }
    const targetKeys: string[] = [];
    for (const a of alternates) {
      const k = tryUniqueKey(a.href);
      if (k !== null) targetKeys.push(k);
    }
    const own = key ?? this.keys.keyOf(id);
    if (own === undefined) return null;
    this.noteSelf(id, own, targetKeys);
    return this.hreflang.addAlternates(own, id, targetKeys, fresh);
  }

  /**
   * Records that sitemap `s` lists URL `id`: a second sitemap, or the same one again. A sitemap new to
   * the URL counts the URL's findings as of `before` (the settle that follows adds the change since).
   */
  private member(id: number, s: SitemapInfo, before: number, lmBefore: number, times = 1): void {
    const ref = s.idx + 1;
    if (ref > 0xffff && this.first instanceof Uint16Array) {
      this.first = widened(this.first);
    }
    let dup = false;
    if (this.first[id] === 0) this.first[id] = ref;
    else if (this.first[id] === ref) dup = true;
    else {
      this.flags[id] |= F_MULTI;
      const second = this.second.get(id);
      if (second === 0) this.second.set(id, ref, this.size, this.flags.length);
      else if (second === ref) dup = true;
      else {
        let set = this.more.get(id);
        if (!set) this.more.set(id, (set = new Set()));
        if (set.has(ref)) dup = true;
        else set.add(ref);
      }
    }
    if (!dup) {
      this.countIn(s, before & PER_URL_BITS, 1);
      this.countLm(s, lmBefore, 1);
    }
    // After the first of `times` listings, the sitemap lists the URL already: the rest are duplicates.
    const again = dup ? times : times - 1;
    if (again > 0) {
      this.flags[id] |= F_DUP;
      bump(s, 'DUPLICATE_IN_SITEMAP', again);
    }
  }

  /** In the location of the sitemap as listed, or of where it finally answered from. */
  private inScopeOf(s: SitemapInfo, loc: string): boolean {
    if (s.announcedAt !== this.nodeEvents) {
      s.announced = this.crossSubmittedScope(s);
      s.announcedAt = this.nodeEvents;
    }
    // The whole host first (either answers yes): for a cross-submitted sitemap it is the usual yes,
    // found without parsing the entry.
    const announced = s.announced;
    // `<origin>/` as a literal prefix: parsed, the entry has that origin (the host is already canonical).
    if (announced !== undefined && (loc.slice(0, announced.length) === announced || inSitemapScope(loc, announced))) return true;
    if (inSitemapScope(loc, s.url)) return true;
    const finalUrl = s.node?.finalUrl;
    return finalUrl !== undefined && inSitemapScope(loc, finalUrl);
  }

  /**
   * `<origin>/` when robots.txt of that origin announced this sitemap, or an index on that origin that it
   * announced: such a sitemap may list any URL of the host (sitemaps.org, cross-submits). Mirrors the
   * sitemap reader's rule, so the finding and the node's problems agree.
   */
  private crossSubmittedScope(s: SitemapInfo): string | undefined {
    const chain: SitemapNode[] = [];
    let node = s.node;
    for (let guard = 0; node && node.parentId !== null && guard < 64; guard++) {
      const parent = this.sitemapByKey.get(node.parentId)?.node;
      if (!parent) return undefined;
      if (parent.type === 'robots') {
        const origin = originOfUrl(parent.url);
        if (origin === undefined) return undefined;
        // The announced sitemap itself may live anywhere; the indexes below it must stay on the host.
        return chain.every((n) => n.url.toLowerCase().startsWith(origin.toLowerCase())) ? origin : undefined;
      }
      chain.push(node);
      node = parent;
    }
    return undefined;
  }

  /** What is known of the sitemap changed (its node, its final URL): entries now in its scope are not out of it. */
  private rescope(s: SitemapInfo): void {
    const held = s.pendingScope!;
    for (const [text, p] of held) {
      if (!this.inScopeOf(s, p.loc)) continue;
      held.delete(text);
      const before = this.maskOf(p.id);
      this.setOutOfScope(p.id, this.outOfScope(p.id) - p.n);
      bump(s, 'SITEMAP_URL_OUT_OF_SCOPE', -p.n);
      this.settle(p.id, before);
    }
    if (held.size === 0) s.pendingScope = null;
  }

  /** URL `id`'s out-of-scope listings standing: 255 in its flags at most, the rest in scopeOverflow. */
  private outOfScope(id: number): number {
    const c = this.flags[id]! >>> SCOPE_SHIFT;
    return c < SATURATED ? c : SATURATED + (this.scopeOverflow.get(id) ?? 0);
  }

  private setOutOfScope(id: number, n: number): void {
    const c = Math.min(Math.max(n, 0), SATURATED);
    this.flags[id] = (this.flags[id]! & (SCOPE_ONE - 1)) | (c << SCOPE_SHIFT);
    if (n > SATURATED) this.scopeOverflow.set(id, n - SATURATED);
    else this.scopeOverflow.delete(id);
  }

  /** Judges the alternates of source `id` again. */
  private recomputeHreflang(id: number): void {
    const v = this.hreflang.verdict(id, this.notOk, this.notIndexable);
    const before = this.maskOf(id);
    let f = this.flags[id]! & ~(F_HREF_NONRECIP | F_HREF_BAD_TARGET);
    if (v.nonReciprocal) f |= F_HREF_NONRECIP;
    if (v.badTarget) f |= F_HREF_BAD_TARGET;
    this.flags[id] = f;
    this.page[id] = v.nonIndexableTarget ? this.page[id]! | P_HREF_NONINDEX : this.page[id]! & ~P_HREF_NONINDEX;
    this.settle(id, before);
  }

  /** A 2xx page that is noindex or canonicalised elsewhere (not indexable for those reasons alone). */
  private pageNotIndexable(id: number): boolean {
    if (id >= this.size) return false;
    const f = this.flags[id]!;
    return (f & CAT_BITS) >>> CAT_SHIFT === C_2XX && (f & (F_NOINDEX | F_CANON_OTHER)) !== 0;
  }

  /** A result is known and it is not a plain 200 (blocked URLs have no status: not counted). */
  private answersNot200(id: number): boolean {
    // A target the frontier knows but the audit was not told of yet (a rebuild in progress) has no result.
    if (id >= this.size) return false;
    const f = this.flags[id]!;
    const c = (f & CAT_BITS) >>> CAT_SHIFT;
    if (c === C_NONE || c === C_BLOCKED) return false;
    return !(c === C_2XX && (f & F_STATUS_200) !== 0);
  }

  private ensure(id: number): void {
    if (!Number.isInteger(id) || id < 0) throw new EngineError('INVALID_URL_ID', `The audit got the URL id ${id}; ids are integers from 0.`);
    if (id < this.size) return;
    const need = id + 1;
    if (need > this.flags.length) {
      this.flags = ensureCapacity(this.flags, need);
      this.first = ensureCapacity(this.first, need);
      this.page = ensureCapacity(this.page, need);
      this.lm = ensureCapacity(this.lm, need);
      if (this.lastmodMs) this.lastmodMs = ensureCapacity(this.lastmodMs, need);
      if (this.headerMs) this.headerMs = ensureCapacity(this.headerMs, need);
      this.second.grow(need);
    }
    this.size = need;
  }

  // ---------------------------------------------------------------- sitemaps

  private sitemapInfo(key: string, url: string): SitemapInfo {
    let s = this.sitemapByKey.get(key);
    if (!s) {
      s = {
        idx: this.sitemaps.length,
        key,
        url,
        node: undefined,
        mask: 0,
        listings: null,
        urlCodes: null,
        pendingScope: null,
        final: false,
        announced: undefined,
        announcedAt: -1,
        lm: null,
        entries: 0,
        sameLastmod: 0,
        uniformMs: NaN,
      };
      this.sitemaps.push(s);
      this.sitemapByKey.set(key, s);
    }
    return s;
  }

  /** The sitemap a listing came from (entries arrive in long runs from one sitemap: memoised by URL). */
  private sitemapOfListing(from: string): SitemapInfo {
    let s = this.sitemapByListingUrl.get(from);
    if (!s) {
      s = this.sitemapInfo(tryUniqueKey(from) ?? from, from);
      this.sitemapByListingUrl.set(from, s);
    }
    return s;
  }

  private judgeSitemap(s: SitemapInfo): void {
    const n = s.node;
    // SITEMAP_UNIFORM_LASTMOD is judged from its listings (noteUniform), not from the node.
    const mask = (n ? nodeFindingMask(n, this.parentOf(n), this.robotsSeen ? this.announced(n) : null) : 0) | (s.mask & UNIFORM_BIT);
    let diff = s.mask ^ mask;
    s.mask = mask;
    while (diff !== 0) {
      const bit = diff & -diff;
      diff ^= bit;
      this.sitemapCounts[31 - Math.clz32(bit)]! += (mask & bit) !== 0 ? 1 : -1;
    }
  }

  private judgeDescendants(rootId: string): void {
    const seen = new Set<string>([rootId]);
    const queue = [rootId];
    for (let i = 0; i < queue.length; i++) {
      for (const child of this.children.get(queue[i]!) ?? []) {
        if (seen.has(child)) continue;
        seen.add(child);
        queue.push(child);
        this.judgeSitemap(this.sitemapByKey.get(child)!);
      }
    }
  }

  private parentOf(n: SitemapNode): SitemapNode | undefined {
    return n.parentId === null ? undefined : this.sitemapByKey.get(n.parentId)?.node;
  }

  /**
   * Whether robots.txt announces this sitemap or one of its ancestors. A robots node that lists no
   * sitemap still parents the sitemaps found at the default locations: those are not announced.
   */
  private announced(n: SitemapNode): boolean {
    const guard = new Set<string>();
    for (let p = this.parentOf(n); p !== undefined && !guard.has(p.id); p = this.parentOf(p)) {
      if (p.type === 'robots') return p.childCount > 0;
      guard.add(p.id);
    }
    return false;
  }

  // ---------------------------------------------------------------- reporting

  private definition(code: string): FindingDefinition {
    const d = definitionOf(code);
    if (!d) {
      throw new EngineError('UNKNOWN_FINDING', `"${code}" is not an audit finding; known codes: ${FINDING_DEFINITIONS.map((x) => x.code).join(', ')}.`);
    }
    return d;
  }

  private report(d: FindingDefinition): Finding {
    const measured =
      d.needs === 'none' ||
      (d.needs === 'pages' && this.pages) ||
      (d.needs === 'links' && this.links) ||
      (d.needs === 'robots' && this.robotsSeen) ||
      (d.needs === 'previous' && this.pages && this.previous !== undefined);
    const lastmodIndex = LASTMOD_INDEX.get(d.code);
    const count = !measured
      ? 0
      : lastmodIndex !== undefined
        ? this.lmCounts[lastmodIndex]!
        : d.code === 'REDIRECT_CHAIN' || d.code === 'REDIRECT_LOOP'
          ? this.redirects.size === 0
            ? 0
            : this.chains()[d.code === 'REDIRECT_CHAIN' ? 'chain' : 'loop'].size
          : d.subject === 'url'
            ? this.urlCounts[URL_INDEX.get(d.code)!]!
            : this.sitemapCounts[SITEMAP_INDEX.get(d.code as SitemapFindingCode)!]!;
    const f: Finding = { code: d.code, severity: d.severity, title: d.title, explanation: d.explanation, subject: d.subject, count, measured };
    if (d.code === 'DUPLICATE_TITLE' || d.code === 'DUPLICATE_META_DESCRIPTION')
      f.groups = measured ? (d.code === 'DUPLICATE_TITLE' ? this.titles : this.descriptions).groupCount() : 0;
    return f;
  }
}

const VERDICT_OF_CLASS: (IndexabilityVerdict | undefined)[] = [
  undefined,
  undefined, // C_2XX: from the page's facts
  { indexability: 'non-indexable', reason: 'redirect' },
  { indexability: 'non-indexable', reason: 'client-error' },
  { indexability: 'non-indexable', reason: 'server-error' },
  { indexability: 'non-indexable', reason: 'fetch-error' },
  { indexability: 'non-indexable', reason: 'fetch-error' },
  { indexability: 'non-indexable', reason: 'fetch-error' },
  { indexability: 'non-indexable', reason: 'blocked-by-robots' },
];
const V_INDEXABLE: IndexabilityVerdict = { indexability: 'indexable' };
const V_NOINDEX: IndexabilityVerdict = { indexability: 'non-indexable', reason: 'noindex' };
const V_NOT_HTML: IndexabilityVerdict = { indexability: 'non-indexable', reason: 'not-html' };
const V_CANONICALISED: IndexabilityVerdict = { indexability: 'non-indexable', reason: 'canonicalised' };
for (const v of [...VERDICT_OF_CLASS, V_INDEXABLE, V_NOINDEX, V_NOT_HTML, V_CANONICALISED]) if (v) Object.freeze(v);

/** indexabilityOf's verdict, from a URL's flags (result class, noindex, HTML, canonical): the same precedence. */
function verdictOf(f: number): IndexabilityVerdict | undefined {
  const c = (f & CAT_BITS) >>> CAT_SHIFT;
  if (c !== C_2XX) return VERDICT_OF_CLASS[c];
  if ((f & F_NOINDEX) !== 0) return V_NOINDEX;
  if ((f & F_HTML) === 0) return V_NOT_HTML;
  if ((f & F_CANON_OTHER) !== 0) return V_CANONICALISED;
  return V_INDEXABLE;
}

function statusClass(status: number | undefined): number {
  if (status === undefined) return C_OTHER;
  if (status >= 200 && status < 300) return C_2XX;
  if (status >= 300 && status < 400) return C_REDIRECT;
  if (status >= 400 && status < 500) return C_4XX;
  if (status >= 500 && status < 600) return C_5XX;
  return C_OTHER;
}

/**
 * Holds `times` out-of-scope listings of `loc` (URL `id`) until sitemap `s`'s final URL is known, on
 * the entry of the same text when there is one. The fragment is cut off: it is no part of a URL's
 * origin or path, all that scope looks at, and a sitemap repeating a URL with ever new fragments
 * then holds one entry too.
 */
function holdForRescope(s: SitemapInfo, id: number, loc: string, times: number): void {
  const hash = loc.indexOf('#');
  const text = hash === -1 ? loc : loc.slice(0, hash);
  const held = (s.pendingScope ??= new Map());
  let key = text;
  // One text is one URL (its uniqueKey drops the fragment too); were it ever not, the two are kept apart.
  if (held.get(key)?.id !== undefined && held.get(key)!.id !== id) key = text + '#' + id;
  const p = held.get(key);
  if (p !== undefined) p.n += times;
  else held.set(key, { id, loc: text, n: times });
}

function bump(s: SitemapInfo, code: FindingCode, by: number): void {
  const i = URL_INDEX.get(code)!;
  const listings = (s.listings ??= new Map());
  listings.set(i, (listings.get(i) ?? 0) + by);
}

function originOfUrl(url: string): string | undefined {
  try {
    return new URL(url).origin + '/';
  } catch {
    return undefined;
  }
}
