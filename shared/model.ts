/**
 * Domain types shared by the engine, the service, main and the renderer.
 * Types, the default crawl settings and a tiny constructor; no dependencies.
 */

/**
 * How a URL was found: the start URL, robots.txt, a sitemap entry, an `<a href>`/`<area href>` of a
 * crawled page (`link`: the only kind that makes an inlink), a redirect's Location, a page's
 * canonical, its hreflang alternates, or another reference of a page (`<link rel=next|prev|amphtml|
 * alternate>`, a frame's src). The order is the journal's code of each: append only.
 */
export const REQUEST_SOURCES = ['start', 'robots', 'sitemap', 'link', 'redirect', 'canonical', 'hreflang', 'reference'] as const;
export type RequestSource = (typeof REQUEST_SOURCES)[number];

/** Lifecycle of one URL in the frontier. */
export type UrlState =
  | 'queued' // admitted, waiting to be fetched
  | 'fetching' // in flight
  | 'done' // fetched (any HTTP status)
  | 'error' // network error, timeout, too large, …
  | 'blocked' // disallowed by robots.txt, never fetched
  | 'listed'; // admitted but not to be fetched (page fetching off, out of depth/limit): recorded only

export interface HreflangAlternate {
  /** The hreflang value as written (`en-GB`, `x-default`). */
  lang: string;
  href: string;
}

export interface SitemapImage {
  loc: string;
  title?: string;
  caption?: string;
}

export interface SitemapVideo {
  thumbnailLoc?: string;
  title?: string;
  description?: string;
  contentLoc?: string;
  playerLoc?: string;
  duration?: number;
  publicationDate?: string;
}

export interface SitemapNews {
  publicationName?: string;
  publicationLanguage?: string;
  publicationDate?: string;
  title?: string;
}

/** One `<url>` of a urlset (or a line of a text sitemap, or an item of a feed). */
export interface SitemapUrlEntry {
  /** The URL as listed (trimmed), absolute. */
  loc: string;
  lastmod?: string;
  changefreq?: string;
  priority?: number;
  /** A feed item's (RSS `<item>`, Atom `<entry>`) `<title>`. */
  title?: string;
  alternates?: HreflangAlternate[];
  /**
   * Separate mobile URLs: `<xhtml:link rel="alternate" media="…" href="…">` without hreflang
   * (Google's annotation for a mobile version of the page).
   */
  mobile?: SitemapMobileAlternate[];
  images?: SitemapImage[];
  videos?: SitemapVideo[];
  news?: SitemapNews;
}

export interface SitemapMobileAlternate {
  href: string;
  /** The media query as written (`only screen and (max-width: 640px)`). */
  media: string;
}

export type SitemapType =
  | 'robots' // the robots.txt node at the root of the tree
  | 'sitemapindex'
  | 'urlset'
  | 'text'
  | 'rss'
  | 'atom'
  | 'unknown'; // not yet fetched, or not a sitemap at all

/** A problem found on a sitemap (or robots.txt) node. Codes are stable, messages are for people. */
export interface Problem {
  code: string;
  message: string;
  /** The URL the problem is about, when it is about one entry rather than the whole document. */
  url?: string;
}

export type SitemapNodeState = 'pending' | 'fetching' | 'done' | 'error' | 'skipped';

/** A node of the sitemap tree: robots.txt → indexes → sitemaps. */
export interface SitemapNode {
  /** The sitemap's uniqueKey. */
  id: string;
  url: string;
  /** The node that announced this one (robots.txt or an index); null for a root. */
  parentId: string | null;
  type: SitemapType;
  state: SitemapNodeState;
  httpStatus?: number;
  /** Bytes as received on the wire. */
  bytes: number;
  /** Bytes after inflation (equal to bytes when not gzipped). */
  uncompressedBytes: number;
  gzip: boolean;
  /** URL entries read (urlset/text/feed) or child sitemaps listed (index). */
  urlCount: number;
  childCount: number;
  /** The index's `<lastmod>` for this sitemap, when an index gave one. */
  lastmod?: string;
  problems: Problem[];
  /**
   * Problems found per code, those past the stored list included (a node stores at most about a
   * hundred; the crawl log has the rest). Absent until the first problem.
   */
  problemCounts?: Record<string, number>;
  /** Where the fetch ended up, when it was redirected. */
  finalUrl?: string;
  /** Each redirect hop followed before finalUrl (sitemaps and robots.txt are followed), in order. */
  redirectChain?: RedirectHop[];
  /**
   * Audit badges, set by the service on the nodes it answers (never journalled): the sitemap's own
   * findings (count 1) and, per URL finding, how many of its listings have it.
   */
  findings?: AuditBadge[];
}

export interface RedirectHop {
  url: string;
  status: number;
}

export interface CrawlError {
  code: string;
  message: string;
}

/** What is known about one fetched (or blocked, or failed) URL. */
export interface UrlResult {
  status?: number;
  contentType?: string;
  /** Each hop before the final URL, in order. */
  redirectChain?: RedirectHop[];
  /** The final URL after redirects, when different. */
  redirectTo?: string;
  canonical?: string;
  metaRobots?: string;
  xRobotsTag?: string;
  title?: string;
  /** hreflang alternates declared by the page itself. */
  hreflang?: HreflangAlternate[];
  blockedByRobots?: boolean;
  error?: CrawlError;
  bytes?: number;
  fetchedAt?: number;
  /** Milliseconds from request to end of body. */
  durationMs?: number;
}

export type ScopeMode = 'host' | 'domain' | 'any';

/** Everything that shapes one crawl. */
export interface CrawlSettings {
  /** The site's address; may be empty when sitemapUrls are given. */
  startUrl: string;
  /** Sitemaps to start from directly; when non-empty, robots.txt discovery of sitemaps is skipped. */
  sitemapUrls: string[];
  /** Read sitemaps (robots.txt's, the default locations, feeds reached by links); false = links only. */
  useSitemaps: boolean;
  fetchPages: boolean;
  followLinks: boolean;
  respectRobots: boolean;
  scope: ScopeMode;
  include: string[];
  exclude: string[];
  /** Link depth from the start URL; sitemap entries are depth 0. null = unlimited. */
  maxDepth: number | null;
  /** Total URLs admitted to the frontier. null = unlimited. */
  maxUrls: number | null;
  concurrency: number;
  perHostConcurrency: number;
  /** Minimum delay between two requests to one host, in ms. */
  delayMs: number;
  userAgent: string;
  /** One attempt of a page or robots.txt, headers and body, in ms. */
  timeoutMs: number;
  /** The longest wait for a byte of any response (its headers, then each piece of its body), in ms. */
  idleTimeoutMs: number;
  /** One attempt of a sitemap, headers and body, in ms: long enough for 50 MiB over a slow link. */
  sitemapTimeoutMs: number;
  connectTimeoutMs: number;
  retries: number;
  maxBodyBytes: number;
}

/** The user agent new crawls announce unless the analyst sets another. */
export const DEFAULT_USER_AGENT = 'Spinneret/0.1 (+https://github.com/spinneret)';

/** Built-in defaults for new crawls; the analyst's saved defaults override them. */
export const DEFAULT_SETTINGS: Readonly<CrawlSettings> = Object.freeze({
  startUrl: '',
  sitemapUrls: [],
  useSitemaps: true,
  fetchPages: true,
  followLinks: true,
  respectRobots: true,
  scope: 'host',
  include: [],
  exclude: [],
  maxDepth: null,
  maxUrls: null,
  concurrency: 8,
  perHostConcurrency: 4,
  delayMs: 0,
  userAgent: DEFAULT_USER_AGENT,
  timeoutMs: 15_000,
  idleTimeoutMs: 30_000,
  sitemapTimeoutMs: 600_000,
  connectTimeoutMs: 5_000,
  retries: 2,
  maxBodyBytes: 10 * 1024 * 1024,
});

export type CrawlStatus = 'created' | 'running' | 'paused' | 'finished' | 'failed';

/** Live counters of a crawl. */
export interface CrawlCounters {
  discovered: number;
  queued: number;
  fetching: number;
  fetched: number;
  blocked: number;
  errors: number;
  listed: number;
  duplicates: number;
  bySource: Record<RequestSource, number>;
  byStatusClass: { '2xx': number; '3xx': number; '4xx': number; '5xx': number; other: number };
  sitemaps: { total: number; done: number; failed: number };
}

export function emptyCounters(): CrawlCounters {
  return {
    discovered: 0,
    queued: 0,
    fetching: 0,
    fetched: 0,
    blocked: 0,
    errors: 0,
    listed: 0,
    duplicates: 0,
    bySource: Object.fromEntries(REQUEST_SOURCES.map((s) => [s, 0])) as Record<RequestSource, number>,
    byStatusClass: { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, other: 0 },
    sitemaps: { total: 0, done: 0, failed: 0 },
  };
}

// ---------------------------------------------------------------- service-level views

export interface CrawlSummary {
  id: string;
  name: string;
  startUrl: string;
  settings: CrawlSettings;
  status: CrawlStatus;
  counters: CrawlCounters;
  createdAt: number;
  updatedAt: number;
  startedAt?: number;
  finishedAt?: number;
  /** URLs handled per second over the last few seconds (0 when idle). */
  rate: number;
  /** Why it failed or paused on its own (robots unreachable, disk full, …). */
  error?: CrawlError;
  /** True when its folder is missing journals: shown, never crashed on. */
  damaged?: boolean;
}

export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'other' | 'none';

/** One row of the URL table (and of the CSV). */
export interface UrlRow {
  /** Dense admission id within the crawl. */
  id: number;
  url: string;
  state: UrlState;
  source: RequestSource;
  depth: number;
  discoveredFrom?: string;
  /** Sitemaps that list this URL. */
  inSitemaps: string[];
  lastmod?: string;
  changefreq?: string;
  priority?: number;
  status?: number;
  contentType?: string;
  title?: string;
  redirectTo?: string;
  canonical?: string;
  blockedByRobots?: boolean;
  error?: CrawlError;
}

/** One URL of a redirect chain as the crawl recorded it (each hop is a URL of its own). */
export interface RedirectStep {
  url: string;
  /** Its id in the crawl; absent when the crawl does not hold it. */
  id?: number;
  state?: UrlState;
  status?: number;
}

/** The walk along redirect rows from one URL to where it ends. */
export interface RedirectWalk {
  /** The URL itself first, then each URL its redirects lead to; for a loop, the URL met again last. */
  steps: RedirectStep[];
  /**
   * final: the last step does not redirect; loop: the last step is already on the walk; not-fetched:
   * the last step has no result yet (queued, or listed only: out of scope, a limit); not-crawled: the
   * crawl does not hold the last step; too-long: cut after MAX steps.
   */
  end: 'final' | 'loop' | 'not-fetched' | 'not-crawled' | 'too-long';
}

/** Everything known about one URL: the detail pane. */
export interface UrlDetail extends UrlRow {
  discoveries: { source: RequestSource; from?: string }[];
  /** Present when the URL redirects: its chain along the crawl's rows. */
  redirectWalk?: RedirectWalk;
  sitemapEntry?: SitemapUrlEntry;
  result?: UrlResult;
  /** Codes of the audit findings that affect this URL, in catalogue order (critical first). */
  findings?: string[];
}

export type UrlSortKey = 'id' | 'url' | 'state' | 'source' | 'depth' | 'status' | 'lastmod' | 'title';

export interface UrlQuery {
  offset: number;
  limit: number;
  sort?: { key: UrlSortKey; dir: 'asc' | 'desc' };
  states?: UrlState[];
  sources?: RequestSource[];
  statusClasses?: StatusClass[];
  inSitemap?: boolean;
  blocked?: boolean;
  /** Case-insensitive substring of the URL or title. */
  search?: string;
  /** Only URLs listed by this sitemap node. */
  sitemapId?: string;
  /** Only URLs affected by this audit finding code. */
  finding?: string;
}

export interface UrlPage {
  total: number;
  rows: UrlRow[];
}

/** A crawl-level event worth showing in the Errors view. */
export interface CrawlLogEntry {
  at: number;
  level: 'error' | 'warning' | 'info';
  code: string;
  message: string;
  url?: string;
}

/** A batched progress event: at most a few per second per crawl. */
export interface ProgressEvent {
  crawlId: string;
  status: CrawlStatus;
  counters: CrawlCounters;
  rate: number;
  /** Sitemap nodes added or changed since the previous event. */
  nodes: SitemapNode[];
  /** Log entries added since the previous event. */
  log: CrawlLogEntry[];
  at: number;
}

// ---------------------------------------------------------------- sitemap audit

export type AuditSeverity = 'critical' | 'warning' | 'notice';

/** One finding of the sitemap audit: what is wrong, how often, and whether it could be measured. */
export interface AuditFinding {
  /** Stable UPPER_SNAKE code (SITEMAP_URL_4XX, HREFLANG_NOT_RECIPROCAL, …). */
  code: string;
  severity: AuditSeverity;
  title: string;
  /** One line an analyst can act on. */
  explanation: string;
  /** What the affected items are: URLs of the crawl (by id) or sitemaps (by URL). */
  subject: 'url' | 'sitemap';
  /** Affected URLs or sitemaps; 0 when not measured. */
  count: number;
  /** False when this crawl cannot tell (pages not fetched, robots.txt not read): shown as "not measured". */
  measured: boolean;
  /** Why it was not measured, for people (only when `measured` is false). */
  notMeasuredReason?: string;
  /**
   * True while the audit of a reopened crawl is still being rebuilt (in the background, after the
   * crawl is ready): `count` is what it has found so far. Absent when the audit is complete.
   */
  computing?: boolean;
}

/** One audit badge of a sitemap-tree node. */
export interface AuditBadge {
  code: string;
  severity: AuditSeverity;
  /** 1 for the sitemap's own finding; for a URL finding, how many of its listings have it. */
  count: number;
}

/** A page of the items a finding affects: URLs (URL findings) or sitemap URLs (sitemap findings). */
export interface FindingUrlPage {
  total: number;
  urls: string[];
}
