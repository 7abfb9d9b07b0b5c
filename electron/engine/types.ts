/**
 * The engine's interfaces. Implementations live beside them, one per file.
 * Plain Node: nothing here knows Electron, IPC or React.
 */
import type { Readable } from 'node:stream';
import type { CrawlError, HreflangAlternate, Problem, RedirectHop, RequestSource, SitemapType, SitemapUrlEntry } from '../../shared/model.js';

/** An error with a stable code and a message a person can act on. */
export class EngineError extends Error implements CrawlError {
  constructor(
    public readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EngineError';
  }
}

// ---------------------------------------------------------------- requests

/** What a caller hands the queue; uniqueKey is computed by the queue when absent. */
export interface RequestInit {
  url: string;
  uniqueKey?: string;
  /** Routing label: 'page', 'sitemap', … */
  label?: string;
  userData?: Record<string, unknown>;
  source: RequestSource;
  depth: number;
  /** The page or sitemap URL that found it (absent for start URLs). */
  discoveredFrom?: string;
  /** Sitemap data when the URL came from a sitemap entry. */
  sitemapEntry?: SitemapUrlEntry;
}

/**
 * A sitemap listing's wire form: its entry as the parse worker wrote it, handed beside the listing's
 * RequestInit (never in it) so the journal can copy the text rather than encode the entry a second
 * time on the busier thread (docs/performance.md). The entry object stays what the listing means;
 * this is the same entry in the entry codec's text.
 */
export interface ListingWire {
  /** `"loc",lastmod,changefreq,priority,extra`: the JSON array elements entry-codec.ts writes, for an entry whose uniqueKey is its loc. */
  readonly entryJson: string;
}

/** A request admitted to the frontier. */
export interface Request extends RequestInit {
  uniqueKey: string;
  /** Dense, admission-ordered id: 0, 1, 2, … */
  id: number;
  /** How many times it has been handed out (retries, reclaims). */
  retryCount: number;
}

/** One discovery of a URL: by whom, and how. A URL keeps every discovery. */
export interface Discovery {
  source: RequestSource;
  from?: string;
}

export interface AddRequestResult {
  uniqueKey: string;
  id: number;
  wasAlreadyPresent: boolean;
  wasAlreadyHandled: boolean;
}

export interface AddRequestOptions {
  /** Admit a new request as already handled ('listed': recorded, never handed out). */
  handled?: boolean;
  /** A sitemap listing's wire form, handed on to the onAdmitted hook of a new request. */
  wire?: ListingWire;
}

/** The one deduplication authority of a crawl. */
export interface RequestQueue {
  /** Admits a request, or counts it as a duplicate (and records the discovery) when its uniqueKey is known. */
  addRequest(init: RequestInit, options?: AddRequestOptions): AddRequestResult;
  /** Next request to process, or null when none is pending right now. */
  fetchNextRequest(): Request | null;
  markRequestHandled(request: Request): void;
  /** Puts a request handed out back at the front (or the end) of the pending queue. */
  reclaimRequest(request: Request, opts?: { forefront?: boolean }): void;
  /** True when nothing is pending (requests may still be in progress). */
  isEmpty(): boolean;
  /** True when nothing is pending and nothing is in progress. */
  isFinished(): boolean;
  pendingCount(): number;
  inProgressCount(): number;
  handledCount(): number;
  /** Distinct URLs admitted. */
  totalCount(): number;
  /** Discoveries of already-known URLs. */
  duplicateCount(): number;
  /** Every discovery of a URL, first one first; empty when unknown. */
  discoveriesOf(uniqueKey: string): Discovery[];
  has(uniqueKey: string): boolean;
  /**
   * Optional hint: about `n` URLs in all are coming (the sitemaps still to read), so an
   * implementation can size its tables once. Any number may still be added.
   */
  reserve?(n: number): void;
  /**
   * Optional hint: the next addRequest calls bring these uniqueKeys, in this order (the first `n`;
   * undefined for one the queue works out itself), so an implementation can ready their lookups together.
   */
  prepareKeys?(keys: readonly (string | undefined)[], n: number): void;
}

// ---------------------------------------------------------------- key-value store

/** The slice of electron-store's / conf's API the engine and service use. */
export interface KeyValueStore {
  get<T = unknown>(key: string): T | undefined;
  set(key: string, value: unknown): void;
  delete(key: string): void;
  has(key: string): boolean;
}

// ---------------------------------------------------------------- http

export interface FetchOptions {
  /** Overrides the client's max body size for this request. */
  maxBodyBytes?: number;
  /** Accept header. */
  accept?: string;
  signal?: AbortSignal;
  /**
   * False: a 3xx is the response (its body drained), as SEO crawlers record pages: the caller
   * queues the Location as a URL of its own. Default true (robots.txt and sitemaps).
   */
  followRedirects?: boolean;
  /**
   * Asked before each redirect hop is sent (when following): throw an EngineError to refuse the
   * hop (out of the crawl's scope, disallowed by robots.txt); the fetch then fails with it.
   */
  beforeRedirect?(next: string, from: string): void | Promise<void>;
  /** Overrides the client's time for one attempt, headers + body (sitemaps: minutes, not seconds). */
  timeoutMs?: number;
  /** Overrides the client's idle timeout: the longest wait for a byte (headers, then each body chunk). */
  idleTimeoutMs?: number;
  /**
   * True: a body past maxBodyBytes is cut there rather than refused (robots.txt is read up to its
   * limit): it ends after its first maxBodyBytes bytes (the download is stopped), and a larger
   * Content-Length does not fail it before a byte is read. Ask for a byte more than you keep to
   * tell a cut body from a whole one.
   */
  readPrefix?: boolean;
  /** Recrawl: a conditional request (If-None-Match / If-Modified-Since); a 304 is then the answer. */
  conditional?: Validators;
  /** 'HEAD': the headers only (where the start URL redirects to). Default 'GET'. */
  method?: 'GET' | 'HEAD';
}

/**
 * A response whose body is streamed. Content-Encoding (gzip, deflate, br) is already decoded;
 * a gzip *file* (a .gz sitemap sent without Content-Encoding) is passed through as is.
 */
export interface FetchResponse {
  /** The URL asked for. */
  url: string;
  /** The URL that answered, after redirects. */
  finalUrl: string;
  status: number;
  /** Lower-cased header names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  /** Each redirect hop before finalUrl, in order. */
  redirectChain: RedirectHop[];
  /** The decoded body. Reading it past maxBodyBytes errors with code EBODY_TOO_LARGE. */
  body: Readable;
  /**
   * Body bytes received on the wire so far, before content decoding (compressed as sent; the
   * headers and HTTP/1.1 chunk framing are not counted).
   */
  wireBytes(): number;
  /** Milliseconds since the request started (its first attempt: retries and their backoff included). */
  elapsedMs(): number;
  /**
   * Milliseconds from sending the request that got this response (its last attempt; connecting
   * included, the wait for the host's turn, earlier attempts, their backoff and redirect hops not)
   * to the arrival of its body's last byte. Undefined until the body has been received in full, and
   * for good when it is not (cut by the reader, failed, too large). Optional for test doubles.
   */
  responseTimeMs?(): number | undefined;
  /** Body bytes after content decoding handed to the reader so far; final once the body stream has ended. */
  bodyBytes?(): number;
  /**
   * Changes the timeouts of this response's attempt while its body is read (a page that turns out
   * to be a sitemap gets a sitemap's): the total counts from the attempt's start. Optional.
   */
  setTimeouts?(t: { timeoutMs?: number; idleTimeoutMs?: number }): void;
}

/** Fetches with politeness, retries, timeouts and redirect handling. */
export interface HttpFetcher {
  fetch(url: string, opts?: FetchOptions): Promise<FetchResponse>;
  /** Aborts everything in flight (used by stop). */
  close(): void;
}

// ---------------------------------------------------------------- robots

export interface RobotsTxt {
  isAllowed(url: string, userAgent: string): boolean;
  /** Every Sitemap: line, absolute, duplicates dropped, in order. */
  sitemaps: string[];
  crawlDelay(userAgent: string): number | undefined;
}

// ---------------------------------------------------------------- sitemaps

/** One thing a sitemap document yields. */
export type SitemapItem =
  /**
   * uniqueKey: the loc's uniqueKey when the parse worker computed it (null: the loc has none), so
   * the frontier's thread need not canonicalise it again; absent when parsed on the engine's thread.
   * wire: the entry as the worker wrote it, when its uniqueKey is its loc.
   */
  | { kind: 'url'; entry: SitemapUrlEntry; uniqueKey?: string | null; wire?: ListingWire }
  | { kind: 'sitemap'; loc: string; lastmod?: string }
  | { kind: 'problem'; problem: Problem };

export interface SitemapLimits {
  /** Inflated bytes after which reading stops (protocol: 50 MB; the cap keeps some headroom). */
  maxUncompressedBytes: number;
  /** Entries after which a problem is reported (protocol: 50,000); reading goes on. */
  maxUrlsPerSitemap: number;
}

/** What streaming one sitemap body found, beyond its items. */
export interface SitemapSummary {
  type: SitemapType;
  gzip: boolean;
  uncompressedBytes: number;
  urlCount: number;
  childCount: number;
  /** Set when reading stopped early (malformed, truncated, refused, too large). */
  fatal?: Problem;
}

// ---------------------------------------------------------------- pages

export interface PageLink {
  /** Absolute URL (resolved against <base href> or the page URL), fragment kept as written. */
  url: string;
  tag: 'a' | 'area' | 'link' | 'iframe' | 'frame';
  rel?: string;
  nofollow: boolean;
  /**
   * `<a>`/`<area>` only (absent for the other tags): the link's text, whitespace collapsed, text of
   * nested elements included (not of script, style or svg); when it has none, the alt of the first
   * image inside it with one, then its aria-label (an `<area>`: its alt, then aria-label). '' when
   * the link has none of these. Cut at MAX_ANCHOR_CHARS (256). A URL linked more than once keeps
   * the first non-empty one.
   */
  anchor?: string;
}

/** One `<a>`/`<area>` link of a fetched page, as onPageLinks reports it. */
export interface RecordedLink {
  /** Resolved against the page (its `<base href>`), fragment kept as written. */
  url: string;
  /** Its uniqueKey; null when it has none (unparsable). */
  uniqueKey: string | null;
  /** PageLink.anchor: the text, else a linked image's alt, else aria-label; '' when none. */
  anchor: string;
  /** rel=nofollow on the link, or nofollow in the page's meta robots or X-Robots-Tag. */
  nofollow: boolean;
  /** Outside the crawl's scope (the rule admission uses). */
  external: boolean;
}

/**
 * What link extraction reads from an HTML page. Text fields are entity-decoded, their whitespace
 * collapsed to single spaces and trimmed. No word, H1 or meta description inside script, style,
 * template, noscript, iframe, noembed or noframes counts (a browser with scripts on shows none).
 */
export interface PageInfo {
  links: PageLink[];
  /**
   * Every `<a href>`/`<area href>` of the page in document order, repeats included (links holds each
   * URL once): url resolved, its own anchor (see PageLink.anchor), nofollow by its rel or the meta
   * robots. Hrefs that resolve to no http(s) URL are left out, as from links.
   */
  anchors: PageLink[];
  title?: string;
  canonical?: string;
  metaRobots?: string;
  hreflang: HreflangAlternate[];
  baseHref?: string;
  /**
   * The content of the first `<meta name="description">` (name in any case), cut at
   * MAX_FIELD_CHARS (1,024); '' when that tag's content is empty or missing; absent when the page
   * has none.
   */
  metaDescription?: string;
  /** How many `<meta name="description">` the page has (0: none; 2 or more: repeated). */
  metaDescriptionCount: number;
  /**
   * The first `<h1>`'s text, nested elements' text included (an image's alt is not), cut at
   * MAX_FIELD_CHARS; '' when it has no text; absent when the page has no H1. An H1 ends at the next
   * heading tag, as in browsers. An `<h1>` written inside `<svg>` counts: a browser's parser ends the
   * SVG there and makes it an HTML heading.
   */
  h1?: string;
  /** How many `<h1>` elements the page has. */
  h1Count: number;
  /**
   * `<html lang>`, trimmed ('' when empty); absent when no `<html>` has one. A second `<html>` tag
   * only supplies it when the first had none, as in browsers.
   */
  lang?: string;
  /**
   * Words of the visible text: text outside `<head>`, nav, svg and the elements above, counted by
   * countWords (links.ts). Inline tags (`b`, `span`, `a`, …) do not split a word; other tags do.
   */
  wordCount: number;
  /**
   * SHA-256 (base64url, 43 characters) of the main text: the visible text outside `<head>` and the
   * page chrome (nav, header, footer, aside), svg and the unshown elements above (script, style,
   * template, noscript, …), whitespace collapsed (see TextHasher in links.ts). A page whose only
   * change is in its footer, navigation or head keeps its hash.
   */
  contentHash: string;
}

// ---------------------------------------------------------------- crawler

/**
 * What a fetched URL yields beyond its UrlResult, for the analyst (issue 22). The crawler hands it
 * to onResult beside the result, not in it: the result is journalled as it is and served as the
 * contract's strict UrlResult, which does not know these fields (yet). Every field is optional.
 */
export interface ResultFacts {
  /**
   * Milliseconds, rounded, from sending the request to receiving the body's last byte (see
   * FetchResponse.responseTimeMs). Only when the body was received in full: an HTML page always; a
   * redirect, an error page or another file when its body is at most 64 KiB (a longer one is cut
   * unread); a page that turns out to be a sitemap only when all of it came in the bytes that told
   * (the sitemap reader reads the rest, and its tree node has its size).
   */
  responseTimeMs?: number;
  /** Body bytes on the wire (compressed as sent; headers and chunk framing not counted). With responseTimeMs. */
  wireBytes?: number;
  /** Body bytes after content decoding (uncompressed). With responseTimeMs. */
  bodyBytes?: number;
  /** The Last-Modified response header as sent (repeated headers joined with ', '); absent when not sent. */
  lastModified?: string;
  /** The ETag response header as sent (weak `W/` prefix and quotes kept); absent when not sent. */
  etag?: string;
  /** HTML pages only, as PageInfo defines them (absent otherwise). */
  metaDescription?: string;
  metaDescriptionCount?: number;
  h1?: string;
  h1Count?: number;
  lang?: string;
  wordCount?: number;
  /** PageInfo.contentHash: the SHA-256 of the page's main text (compared across crawls: the lastmod audit). */
  contentHash?: string;
}

/**
 * What the crawler reports, synchronously, as it goes. The service journals these; the CLI prints them.
 * Every URL state change goes through onAdmitted / onResult, so replaying them rebuilds the frontier.
 */
export interface CrawlerHooks {
  /**
   * A new URL entered the frontier (state 'queued', or 'listed' when it will not be fetched); `wire`:
   * the sitemap listing's wire form when the parse worker wrote one (the journal may copy it).
   */
  onAdmitted?(request: Request, state: 'queued' | 'listed', wire?: ListingWire): void;
  /** An already-known URL was found again: the discovery is recorded, nothing is scheduled. */
  onDuplicate?(id: number, discovery: Discovery, init: RequestInit): void;
  /** A URL is being fetched now (its result follows through onResult); not journalled: in flight only. */
  onFetching?(request: Request): void;
  /**
   * A URL was handled: fetched (any status), failed, or blocked by robots.txt. `facts` come with
   * every answer that had a response (absent when none came: blocked, a network error).
   */
  onResult?(request: Request, state: 'done' | 'error' | 'blocked', result: import('../../shared/model.js').UrlResult, facts?: ResultFacts): void;
  /**
   * A fetched HTML page's `<a>`/`<area>` links, in document order, repeats included: right after its
   * onResult and the admission of what it links to, in the same synchronous step. Reported whether
   * its links are followed or not (followLinks off, a nofollow page): only admission differs.
   */
  onPageLinks?(page: Request, links: RecordedLink[]): void;
  /** A sitemap-tree node was added or changed (the whole node, latest wins). */
  onNode?(node: import('../../shared/model.js').SitemapNode): void;
  /** A crawl-level event for the Errors view. */
  onLog?(entry: import('../../shared/model.js').CrawlLogEntry): void;
}

export type CrawlerRunState = 'idle' | 'running' | 'pausing' | 'paused' | 'stopping' | 'stopped' | 'finished' | 'failed';

/** JSON-serialisable progress of the parts of a crawl that are not in the journals. */
export interface CrawlerCheckpoint {
  /**
   * Where the SitemapRequestList is (SitemapRequestList.checkpointState; an older checkpoint holds its
   * whole getState()). A resume hands the tree as of the checkpoint back from the journal.
   */
  sitemapList: unknown;
  /** robots.txt bodies already fetched, per origin, so a resume does not need them again. */
  robots: Record<string, { status?: number; body?: string; outcome: 'parsed' | 'allow-all' | 'disallow-all' }>;
  /** Whether start-up discovery (robots.txt, default sitemap locations, start URL) is done. */
  seeded: boolean;
  /** Where the start URL's redirects led, when they left its origin (absent: the start URL is the site). */
  site?: CrawlSite;
}

/** The site a crawl's start URL redirects to: its URL (the chain's end) and every host of the chain. */
export interface CrawlSite {
  url: string;
  hosts: string[];
}

// ---------------------------------------------------------------- recrawl (issue 23)

/** A stored answer's validators, sent back as If-None-Match / If-Modified-Since. */
export interface Validators {
  etag?: string;
  lastModified?: string;
}

/** One `<a>`/`<area>` link of a page as the base crawl recorded it (its LINKS record). */
export interface CarriedLink {
  url: string;
  anchor: string;
  /** rel=nofollow on the link, or nofollow in the page's meta robots or X-Robots-Tag. */
  nofollow: boolean;
}

/** A URL's answer in the base crawl, kept by the recrawl (a 304, or not fetched in changed-only mode). */
export interface CarriedPage {
  state: 'done' | 'error' | 'blocked';
  result: import('../../shared/model.js').UrlResult;
  facts?: ResultFacts;
  /** Its `<a>`/`<area>` links, document order, repeats included (absent: no LINKS record: not an HTML page). */
  links?: CarriedLink[];
  /** What it referred to otherwise (iframes, other `<link>` targets): admitted as 'reference'. */
  references?: string[];
}

/** A sitemap as the base crawl read it: its node, and its items in the order the base handed them out. */
export interface CarriedSitemap {
  node: import('../../shared/model.js').SitemapNode;
  /** Its URL entries and child sitemaps, in batches; read again from the start on every call. */
  items(): AsyncGenerator<SitemapItem[], void, void>;
}

/**
 * What a recrawl knows of its base crawl (the service's base index): validators to send, and what to
 * keep when the server says nothing changed. Lookups by uniqueKey (a sitemap's is its node id).
 */
export interface RecrawlBase {
  /** A page's validators (its base RESULT's ETag and Last-Modified); undefined: none, fetched plainly. */
  validators(uniqueKey: string): Validators | undefined;
  /** The base's answer for a URL; undefined when it has none to keep (then the URL is fetched in full). */
  carried(uniqueKey: string): Promise<CarriedPage | undefined>;
  /**
   * Changed-only mode: true when the URL need not be fetched at all (in the base, its lastmod did
   * not move, it did not fail): its base answer is carried over without a request.
   */
  unchanged?(request: Request): boolean;
  /** A sitemap's validators and the lastmod its index gave it in the base. */
  sitemapValidators(nodeId: string): (Validators & { indexLastmod?: string }) | undefined;
  /** The base's reading of a sitemap, to carry over on a 304; undefined: read it again. */
  carriedSitemap(nodeId: string): CarriedSitemap | undefined;
}
