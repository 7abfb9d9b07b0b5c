/**
 * The contract between the renderer and whoever owns the crawls (Electron main over IPC, or browser
 * mode over a WebSocket). Every method and every event is declared once here, with zod schemas, and so
 * is every domain shape they carry (shared/model.ts names the types inferred from them).
 * Depends on zod only, so it runs in the renderer, the preload and Node alike.
 */
// Named imports, not the `z` namespace: the namespace drags every locale into the preload and the
// renderer bundles (450 KiB instead of 85 KiB).
import {
  array,
  boolean,
  enum as zEnum,
  literal,
  null as zNull,
  number,
  record,
  strictObject,
  string,
  unknown,
  type input,
  type output,
  type ZodError,
} from 'zod';
import { COMPARE_FIELDS, MAX_PAGE, REQUEST_SOURCES, type RequestSource } from './model.js';

// ---------------------------------------------------------------- envelope

/** Every answer crosses the boundary wrapped: a value, or an error with a stable code. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };

/** Codes the transports themselves produce; the service adds its own (NOT_FOUND, BAD_SETTINGS, …). */
export const TransportErrorCode = {
  /** The arguments did not match the method's schema. */
  INVALID_ARGS: 'INVALID_ARGS',
  /** No such method in the contract. */
  UNKNOWN_METHOD: 'UNKNOWN_METHOD',
  /** The IPC message did not come from our own window's top frame. */
  FORBIDDEN_SENDER: 'FORBIDDEN_SENDER',
  /** Browser mode: missing or wrong token. */
  UNAUTHORIZED: 'UNAUTHORIZED',
  /** The connection to the backend closed before the answer came. */
  DISCONNECTED: 'DISCONNECTED',
  /** A malformed message on the wire. */
  BAD_MESSAGE: 'BAD_MESSAGE',
  /** Anything thrown without a code: a bug, reported rather than swallowed. */
  INTERNAL: 'INTERNAL',
} as const;

/** The error a client method rejects with when the envelope says `ok: false`. */
export class ApiError extends Error {
  constructor(
    public readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Builds a failure envelope. */
export function fail(code: string, message: string): { ok: false; error: { code: string; message: string } } {
  return { ok: false, error: { code, message } };
}

// ---------------------------------------------------------------- domain schemas
//
// Each domain shape is declared here, once; shared/model.ts names the types inferred from these
// schemas (`output<typeof XSchema>`), so a field added here is a field of the type, and the other way
// round there is nothing to forget. Objects are strict: a key the schema does not declare fails the
// parse, so a result checked against the contract (the tests check every one) cannot carry a field
// the types do not know.

const int = () => number().int();
const nonNeg = () => number().int().min(0);

/** How a URL was found (REQUEST_SOURCES says what each means). */
export const RequestSourceSchema = zEnum(REQUEST_SOURCES);

/** Lifecycle of one URL in the frontier. */
export const UrlStateSchema = zEnum([
  'queued', // admitted, waiting to be fetched
  'fetching', // in flight
  'done', // fetched (any HTTP status)
  'error', // network error, timeout, too large, …
  'blocked', // disallowed by robots.txt, never fetched
  'listed', // admitted but not to be fetched (page fetching off, out of depth/limit): recorded only
]);
export const CrawlStatusSchema = zEnum(['created', 'running', 'paused', 'finished', 'failed']);
export const StatusClassSchema = zEnum(['2xx', '3xx', '4xx', '5xx', 'other', 'none']);
export const IndexabilitySchema = zEnum(['indexable', 'non-indexable']);
/**
 * Why a URL is not indexable: the first that applies, in this order (electron/service/audit/
 * indexability.ts is the one rule; the README's CSV section says the same).
 */
export const IndexabilityReasonSchema = zEnum([
  'blocked-by-robots', // robots.txt disallows it: never fetched
  'fetch-error', // the fetch failed (timeout, reset, too large…), or no status in 200–599 came
  'redirect', // a 3xx answer
  'client-error', // 4xx
  'server-error', // 5xx
  'noindex', // 2xx, and meta robots or X-Robots-Tag says noindex or none
  'not-html', // 2xx, and its Content-Type is not HTML
  'canonicalised', // a 2xx HTML page whose canonical names another URL
]);
export const ScopeModeSchema = zEnum(['host', 'domain', 'any']);
export const SitemapTypeSchema = zEnum([
  'robots', // the robots.txt node at the root of the tree
  'sitemapindex',
  'urlset',
  'text',
  'rss',
  'atom',
  'unknown', // not yet fetched, or not a sitemap at all
]);
export const SitemapNodeStateSchema = zEnum(['pending', 'fetching', 'done', 'error', 'skipped']);
export const AuditSeveritySchema = zEnum(['critical', 'warning', 'notice']);

export const CrawlErrorSchema = strictObject({ code: string(), message: string() });

export const HreflangAlternateSchema = strictObject({
  /** The hreflang value as written (`en-GB`, `x-default`). */
  lang: string(),
  href: string(),
});

export const RedirectHopSchema = strictObject({ url: string(), status: int() });

export const SitemapImageSchema = strictObject({ loc: string(), title: string().optional(), caption: string().optional() });

export const SitemapVideoSchema = strictObject({
  thumbnailLoc: string().optional(),
  title: string().optional(),
  description: string().optional(),
  contentLoc: string().optional(),
  playerLoc: string().optional(),
  duration: number().optional(),
  publicationDate: string().optional(),
});

export const SitemapNewsSchema = strictObject({
  publicationName: string().optional(),
  publicationLanguage: string().optional(),
  publicationDate: string().optional(),
  title: string().optional(),
});

export const SitemapMobileAlternateSchema = strictObject({
  href: string(),
  /** The media query as written (`only screen and (max-width: 640px)`). */
  media: string(),
});

/** One `<url>` of a urlset (or a line of a text sitemap, or an item of a feed). */
export const SitemapUrlEntrySchema = strictObject({
  /** The URL as listed (trimmed), absolute. */
  loc: string(),
  lastmod: string().optional(),
  changefreq: string().optional(),
  priority: number().optional(),
  /** A feed item's (RSS `<item>`, Atom `<entry>`) `<title>`. */
  title: string().optional(),
  alternates: array(HreflangAlternateSchema).optional(),
  /**
   * Separate mobile URLs: `<xhtml:link rel="alternate" media="…" href="…">` without hreflang
   * (Google's annotation for a mobile version of the page).
   */
  mobile: array(SitemapMobileAlternateSchema).optional(),
  images: array(SitemapImageSchema).optional(),
  videos: array(SitemapVideoSchema).optional(),
  news: SitemapNewsSchema.optional(),
});

/** A problem found on a sitemap (or robots.txt) node. Codes are stable, messages are for people. */
export const ProblemSchema = strictObject({
  code: string(),
  message: string(),
  /** The URL the problem is about, when it is about one entry rather than the whole document. */
  url: string().optional(),
});

/** One audit badge of a sitemap-tree node. */
export const AuditBadgeSchema = strictObject({
  code: string(),
  severity: AuditSeveritySchema,
  /** 1 for the sitemap's own finding; for a URL finding, how many of its listings have it. */
  count: nonNeg(),
});

/** A node of the sitemap tree: robots.txt → indexes → sitemaps. */
export const SitemapNodeSchema = strictObject({
  /** The sitemap's uniqueKey. */
  id: string(),
  url: string(),
  /** The node that announced this one (robots.txt or an index); null for a root. */
  parentId: string().nullable(),
  type: SitemapTypeSchema,
  state: SitemapNodeStateSchema,
  httpStatus: int().optional(),
  /** Bytes as received on the wire. */
  bytes: nonNeg(),
  /** Bytes after inflation (equal to bytes when not gzipped). */
  uncompressedBytes: nonNeg(),
  gzip: boolean(),
  /** URL entries read (urlset/text/feed) or child sitemaps listed (index). */
  urlCount: nonNeg(),
  childCount: nonNeg(),
  /** The index's `<lastmod>` for this sitemap, when an index gave one. */
  lastmod: string().optional(),
  problems: array(ProblemSchema),
  /**
   * Problems found per code, those past the stored list included (a node stores at most about a
   * hundred; the crawl log has the rest). Absent until the first problem.
   */
  problemCounts: record(string(), nonNeg()).optional(),
  /** Where the fetch ended up, when it was redirected. */
  finalUrl: string().optional(),
  /** Each redirect hop followed before finalUrl (sitemaps and robots.txt are followed), in order. */
  redirectChain: array(RedirectHopSchema).optional(),
  /** The sitemap's ETag and Last-Modified response headers, as sent (a recrawl's validators). */
  etag: string().optional(),
  lastModified: string().optional(),
  /**
   * Audit badges, set by the service on the nodes it answers (never journalled): the sitemap's own
   * findings (count 1) and, per URL finding, how many of its listings have it.
   */
  findings: array(AuditBadgeSchema).optional(),
  /**
   * Recrawl: the sitemap answered 304 (or its index lastmod and validators said unchanged), so it was
   * not read again; its entries were carried over from the base crawl.
   */
  carriedOver: boolean().optional(),
  /**
   * How far its lastmods can be trusted (set by the service, never journalled): of its URLs that have
   * a lastmod and evidence to judge it by (a Last-Modified header; in a recrawl, the base crawl's
   * lastmod and content), how many agree. Absent when none could be judged.
   */
  lastmodTrust: strictObject({ agree: nonNeg(), judged: nonNeg() }).optional(),
});

/** What is known about one fetched (or blocked, or failed) URL. */
export const UrlResultSchema = strictObject({
  status: int().optional(),
  contentType: string().optional(),
  /** Each hop before the final URL, in order. */
  redirectChain: array(RedirectHopSchema).optional(),
  /** The final URL after redirects, when different. */
  redirectTo: string().optional(),
  canonical: string().optional(),
  metaRobots: string().optional(),
  xRobotsTag: string().optional(),
  title: string().optional(),
  /** hreflang alternates declared by the page itself. */
  hreflang: array(HreflangAlternateSchema).optional(),
  blockedByRobots: boolean().optional(),
  error: CrawlErrorSchema.optional(),
  bytes: number().optional(),
  fetchedAt: number().optional(),
  /** Milliseconds from request to end of body. */
  durationMs: number().optional(),
  /**
   * Recrawl (issue 23): this result is the base crawl's, kept because the server answered 304 Not
   * Modified to a conditional request (notModified) or because a changed-only recrawl did not fetch
   * the URL (its lastmod did not move and it did not fail last time).
   */
  carriedOver: boolean().optional(),
  /** The server answered 304 Not Modified to the recrawl's If-None-Match / If-Modified-Since. */
  notModified: boolean().optional(),
});

/** Everything that shapes one crawl. */
export const CrawlSettingsSchema = strictObject({
  /**
   * 'spider': from the start URL, robots.txt and sitemaps, following links; 'list' (issue 23): the
   * crawl fetches the URLs of a list given at creation (NewCrawl's list) and follows their links only
   * when followLinks is on; robots.txt is still obeyed, its sitemaps are not read.
   */
  mode: zEnum(['spider', 'list']),
  /** The site's address; may be empty when sitemapUrls are given. */
  startUrl: string().max(8192),
  /** Sitemaps to start from directly; when non-empty, robots.txt discovery of sitemaps is skipped. */
  sitemapUrls: array(string().max(8192)).max(1000),
  /** Read sitemaps (robots.txt's, the default locations, feeds reached by links); false = links only. */
  useSitemaps: boolean(),
  fetchPages: boolean(),
  followLinks: boolean(),
  respectRobots: boolean(),
  scope: ScopeModeSchema,
  include: array(string().max(2048)).max(1000),
  exclude: array(string().max(2048)).max(1000),
  /** Link depth from the start URL; sitemap entries are depth 0. null = unlimited. */
  maxDepth: nonNeg().nullable(),
  /** Total URLs admitted to the frontier. null = unlimited. */
  maxUrls: nonNeg().nullable(),
  concurrency: nonNeg(),
  perHostConcurrency: nonNeg(),
  /** Minimum delay between two requests to one host, in ms. */
  delayMs: nonNeg(),
  userAgent: string().max(1024),
  /** One attempt of a page or robots.txt, headers and body, in ms. */
  timeoutMs: nonNeg(),
  /** The longest wait for a byte of any response (its headers, then each piece of its body), in ms. */
  idleTimeoutMs: nonNeg(),
  /** One attempt of a sitemap, headers and body, in ms: long enough for 50 MiB over a slow link. */
  sitemapTimeoutMs: nonNeg(),
  connectTimeoutMs: nonNeg(),
  retries: nonNeg(),
  maxBodyBytes: nonNeg(),
});

/** Live counters of a crawl. */
export const CrawlCountersSchema = strictObject({
  discovered: nonNeg(),
  queued: nonNeg(),
  fetching: nonNeg(),
  fetched: nonNeg(),
  blocked: nonNeg(),
  errors: nonNeg(),
  listed: nonNeg(),
  duplicates: nonNeg(),
  bySource: strictObject(Object.fromEntries(REQUEST_SOURCES.map((s) => [s, nonNeg()])) as Record<RequestSource, ReturnType<typeof nonNeg>>),
  byStatusClass: strictObject({ '2xx': nonNeg(), '3xx': nonNeg(), '4xx': nonNeg(), '5xx': nonNeg(), other: nonNeg() }),
  sitemaps: strictObject({ total: nonNeg(), done: nonNeg(), failed: nonNeg() }),
});

// ---------------------------------------------------------------- service-level views

/** A recrawl schedule: every day or week from nextAt, while the app (or browser mode) runs. */
export const ScheduleSchema = strictObject({
  every: zEnum(['daily', 'weekly']),
  /** When the next recrawl starts (ms since the epoch); a time missed while the app was closed runs at start-up. */
  nextAt: number(),
  /** Recrawl in changed-only mode. */
  changedOnly: boolean(),
  /** The crawl the last scheduled recrawl made; the next one recrawls it in turn. */
  lastRunId: string().optional(),
});

export const CrawlSummarySchema = strictObject({
  id: string(),
  name: string(),
  startUrl: string(),
  settings: CrawlSettingsSchema,
  status: CrawlStatusSchema,
  counters: CrawlCountersSchema,
  createdAt: number(),
  updatedAt: number(),
  startedAt: number().optional(),
  finishedAt: number().optional(),
  /** Where the start URL redirects, when off its origin (the START_REDIRECTED log entry): the site crawled. */
  siteUrl: string().optional(),
  /** Time spent running, in ms, over the runs that ended (paused, quit and resumed time not counted). */
  activeMs: nonNeg().optional(),
  /** While running: when this run started; the running time is activeMs plus the time since. */
  runningSince: number().optional(),
  /** URLs handled per second over the last few seconds (0 when idle). */
  rate: number(),
  /** Why it failed or paused on its own (robots unreachable, disk full, …). */
  error: CrawlErrorSchema.optional(),
  /**
   * Finished because Stop ended it, not because its work was done: what it holds is a partial crawl
   * (URLs still queued, sitemaps unread), and findings about the whole site (orphans, click depth,
   * inlinks) are as far as it got.
   */
  stopped: boolean().optional(),
  /** True when its folder is missing journals: shown, never crashed on. */
  damaged: boolean().optional(),
  /** A recrawl (issue 23): the crawl it recrawls, whose validators, results and entries it reuses. */
  baseId: string().optional(),
  /** A recrawl that fetches only URLs that are new, whose lastmod moved, or that failed in the base crawl. */
  changedOnly: boolean().optional(),
  /** List mode: how many URLs the list held (after dropping blank lines, comments and repeats). */
  listSize: nonNeg().optional(),
  /** When the window recrawls this crawl on its own (while the app runs). */
  schedule: ScheduleSchema.optional(),
  /** Opened from a crawl file (import): when, and the file's name. */
  imported: strictObject({ at: number(), file: string() }).optional(),
});

/** One row of the URL table (and of the CSV). */
export const UrlRowSchema = strictObject({
  /** Dense admission id within the crawl. */
  id: nonNeg(),
  url: string(),
  state: UrlStateSchema,
  source: RequestSourceSchema,
  depth: nonNeg(),
  discoveredFrom: string().optional(),
  /** Sitemaps that list this URL. */
  inSitemaps: array(string()),
  lastmod: string().optional(),
  changefreq: string().optional(),
  priority: number().optional(),
  status: int().optional(),
  contentType: string().optional(),
  title: string().optional(),
  redirectTo: string().optional(),
  canonical: string().optional(),
  blockedByRobots: boolean().optional(),
  error: CrawlErrorSchema.optional(),
  // What a handled URL yields for the analyst (issue 22); absent until it is handled, and absent
  // when its answer did not carry it. The on-page fields are read from 2xx HTML pages only.
  /** Whether a search engine may index it as crawled; absent while it has no result (queued, listed). */
  indexability: IndexabilitySchema.optional(),
  /** Why not, when non-indexable. */
  indexabilityReason: IndexabilityReasonSchema.optional(),
  /** The first `<meta name="description">`'s content ('' when empty), cut at 1,024 characters; absent when the page has none. */
  metaDescription: string().optional(),
  /** How many `<meta name="description">` the page has (0: missing; 2 or more: repeated). */
  metaDescriptionCount: nonNeg().optional(),
  /** The first `<h1>`'s text ('' when it has none), cut at 1,024 characters; absent when the page has no H1. */
  h1: string().optional(),
  /** How many `<h1>` the page has. */
  h1Count: nonNeg().optional(),
  /** `<html lang>`, trimmed ('' when empty); absent when the page has none. */
  lang: string().optional(),
  /** Words of the page's visible text: outside head, nav, script, style, svg, template, noscript. */
  wordCount: nonNeg().optional(),
  /** Milliseconds from sending the request to the body's last byte (retries and waiting for the host excluded). */
  responseTimeMs: nonNeg().optional(),
  /** Body bytes after content decoding (uncompressed). */
  sizeBytes: nonNeg().optional(),
  /** Body bytes as they came over the wire (compressed as sent; headers not counted). */
  transferredBytes: nonNeg().optional(),
  /** The Last-Modified response header, as sent. */
  lastModified: string().optional(),
  /** The ETag response header, as sent (a weak `W/` and the quotes kept). */
  etag: string().optional(),
  // Links between crawled pages (issue 22). Present in crawls that fetch pages; a page's links to
  // itself are no inlinks, but count among its internal outlinks.
  /** `<a href>`/`<area href>` links to this URL on crawled pages (every one, several from one page counted each). */
  inlinks: nonNeg().optional(),
  /** Distinct crawled pages with at least one such link to this URL. */
  uniqueInlinks: nonNeg().optional(),
  /** This page's `<a href>`/`<area href>` links to URLs inside the crawl's scope (fetched HTML pages only). */
  outlinksInternal: nonNeg().optional(),
  /** This page's `<a href>`/`<area href>` links to URLs outside the crawl's scope (fetched HTML pages only). */
  outlinksExternal: nonNeg().optional(),
  /**
   * The fewest clicks from the start URL: links followed, each redirect hop counted as one. Absent
   * when no chain of links from the start URL reaches the URL (found only in sitemaps, or no start URL).
   */
  clickDepth: nonNeg().optional(),
  /** Recrawl: the result was kept from the base crawl (304, or not fetched by a changed-only recrawl). */
  carriedOver: boolean().optional(),
});

/** One URL of a redirect chain as the crawl recorded it (each hop is a URL of its own). */
export const RedirectStepSchema = strictObject({
  url: string(),
  /** Its id in the crawl; absent when the crawl does not hold it. */
  id: nonNeg().optional(),
  state: UrlStateSchema.optional(),
  status: int().optional(),
});

/** The walk along redirect rows from one URL to where it ends. */
export const RedirectWalkSchema = strictObject({
  /** The URL itself first, then each URL its redirects lead to; for a loop, the URL met again last. */
  steps: array(RedirectStepSchema),
  /**
   * final: the last step does not redirect; loop: the last step is already on the walk; not-fetched:
   * the last step has no result yet (queued, or listed only: out of scope, a limit); not-crawled: the
   * crawl does not hold the last step; too-long: cut after MAX steps.
   */
  end: zEnum(['final', 'loop', 'not-fetched', 'not-crawled', 'too-long']),
});

/** One hreflang alternate of a URL, with what the audit's hreflang findings judge of it (the detail pane). */
export const HreflangCheckSchema = strictObject({
  /** The hreflang value as written. */
  lang: string(),
  href: string(),
  /** Where it is declared: the page's `<link rel="alternate" hreflang>`, or the URL's sitemap entry. */
  from: zEnum(['page', 'sitemap']),
  /** `x-default`, or an ISO 639-1 language [+ script] [+ ISO 3166-1 region]. */
  validCode: boolean(),
  /** The alternate is the URL itself (a self-reference: nothing to answer). */
  self: boolean(),
  /** The alternate as the crawl holds it: its id, state and status (absent when the crawl does not hold it). */
  id: nonNeg().optional(),
  state: UrlStateSchema.optional(),
  status: int().optional(),
  /** Why the alternate is not indexable, when it is not (noindex, canonicalised, redirect, …). */
  indexabilityReason: IndexabilityReasonSchema.optional(),
  /** Whether the alternate names this URL back, in its page or a sitemap entry (absent for the URL itself). */
  namesBack: boolean().optional(),
});

/** Everything known about one URL: the detail pane. */
export const UrlDetailSchema = UrlRowSchema.extend({
  discoveries: array(strictObject({ source: RequestSourceSchema, from: string().optional() })),
  /** Present when the URL redirects: its chain along the crawl's rows. */
  redirectWalk: RedirectWalkSchema.optional(),
  sitemapEntry: SitemapUrlEntrySchema.optional(),
  result: UrlResultSchema.optional(),
  /** Codes of the audit findings that affect this URL, in catalogue order (critical first). */
  findings: array(string()).optional(),
  /** Its hreflang alternates, the page's then its sitemap entry's, each as the audit judges it. */
  alternates: array(HreflangCheckSchema).optional(),
});

/** An audit finding code as a caller writes it (the service says which codes exist). */
const FindingCode = string().min(1).max(100);

/** An inclusive range of whole numbers; either end may be left open. */
export const RangeSchema = strictObject({ min: nonNeg().optional(), max: nonNeg().optional() });
/** Whether a page has a field or misses it. */
export const HasMissingSchema = zEnum(['has', 'missing']);

/** The URL table sorts by any field of its rows: a field added to UrlRowSchema is a sort key too. */
export const UrlSortKeySchema = UrlRowSchema.keyof();

export const UrlQuerySchema = strictObject({
  offset: nonNeg(),
  limit: number().int().min(0).max(MAX_PAGE),
  sort: strictObject({ key: UrlSortKeySchema, dir: zEnum(['asc', 'desc']) }).optional(),
  states: array(UrlStateSchema).optional(),
  sources: array(RequestSourceSchema).optional(),
  statusClasses: array(StatusClassSchema).optional(),
  /**
   * Exact HTTP statuses (404 and not 410). Both are the one status dimension: with statusClasses, a
   * URL whose status is in either list matches.
   */
  statuses: array(int().min(100).max(999)).max(100).optional(),
  inSitemap: boolean().optional(),
  blocked: boolean().optional(),
  /** Case-insensitive substring of the URL or title. */
  search: string().max(2048).optional(),
  /** Only URLs listed by this sitemap node, or by the sitemaps under it (an index's, robots.txt's). */
  sitemapId: string().optional(),
  /** Only URLs affected by this audit finding code. */
  finding: FindingCode.optional(),
  /** Only URLs with this indexability (a URL without a result has none: never matches). */
  indexability: IndexabilitySchema.optional(),
  /** Only non-indexable URLs with one of these reasons. */
  indexabilityReasons: array(IndexabilityReasonSchema).max(20).optional(),
  /** Click depth within [min, max], both inclusive and optional; a URL without a click depth never matches. */
  clickDepth: RangeSchema.optional(),
  /**
   * true: only URLs without a click depth (no chain of followed links from the start URL reaches
   * them: listed only by sitemaps, or linked only from unreached pages or through nofollow links;
   * in a crawl that followed no link, every URL), the URLs getPageStats counts as
   * noClickDepth; false: only URLs with one. true with clickDepth is refused (BAD_QUERY): no URL
   * could match both.
   */
  noClickDepth: boolean().optional(),
  /** Inlinks (`inlinks`, every link) within [min, max]. */
  inlinks: RangeSchema.optional(),
  /** Fetched 2xx HTML pages with ('has') or without ('missing': none, or only empty ones) a meta description. */
  metaDescription: HasMissingSchema.optional(),
  /** Fetched 2xx HTML pages with ('has') or without ('missing': none, or only empty ones) an H1. */
  h1: HasMissingSchema.optional(),
  /** Recrawl: only URLs whose result was (true) or was not (false) carried over from the base crawl. */
  carriedOver: boolean().optional(),
});

/** A CSV filter: a query without paging. */
export const UrlFilterSchema = UrlQuerySchema.omit({ offset: true, limit: true });

export const UrlPageSchema = strictObject({ total: nonNeg(), rows: array(UrlRowSchema) });

/** A crawl-level event worth showing in the Errors view. */
export const CrawlLogEntrySchema = strictObject({
  at: number(),
  level: zEnum(['error', 'warning', 'info']),
  code: string(),
  message: string(),
  url: string().optional(),
});

/** A page of the crawl log. */
export const LogPageSchema = strictObject({ total: nonNeg(), rows: array(CrawlLogEntrySchema) });

/** A batched progress event: at most a few per second per crawl. */
export const ProgressEventSchema = strictObject({
  crawlId: string(),
  status: CrawlStatusSchema,
  counters: CrawlCountersSchema,
  rate: number(),
  /** Sitemap nodes added or changed since the previous event. */
  nodes: array(SitemapNodeSchema),
  /** Log entries added since the previous event. */
  log: array(CrawlLogEntrySchema),
  at: number(),
});

// ---------------------------------------------------------------- sitemap audit

/** One finding of the sitemap audit: what is wrong, how often, and whether it could be measured. */
export const AuditFindingSchema = strictObject({
  /** Stable UPPER_SNAKE code (SITEMAP_URL_4XX, HREFLANG_NOT_RECIPROCAL, …). */
  code: string(),
  severity: AuditSeveritySchema,
  title: string(),
  /** One line an analyst can act on. */
  explanation: string(),
  /** What the affected items are: URLs of the crawl (by id) or sitemaps (by URL). */
  subject: zEnum(['url', 'sitemap']),
  /** Affected URLs or sitemaps; 0 when not measured. */
  count: nonNeg(),
  /** False when this crawl cannot tell (pages not fetched, robots.txt not read): shown as "not measured". */
  measured: boolean(),
  /** Why it was not measured, for people (only when `measured` is false). */
  notMeasuredReason: string().optional(),
  /**
   * True while the audit of a reopened crawl is still being rebuilt (in the background, after the
   * crawl is ready): `count` is what it has found so far. Absent when the audit is complete.
   */
  computing: boolean().optional(),
  /** Duplicate findings (DUPLICATE_TITLE, DUPLICATE_META_DESCRIPTION): how many groups of pages share one text; `count` is pages. */
  groups: nonNeg().optional(),
});

/** A page of the items a finding affects: URLs (URL findings) or sitemap URLs (sitemap findings). */
export const FindingUrlPageSchema = strictObject({ total: nonNeg(), urls: array(string()) });

// ---------------------------------------------------------------- links and page statistics

/** One `<a href>`/`<area href>` link of a crawled page. */
export const PageLinkRowSchema = strictObject({
  /** The linking page. */
  fromId: nonNeg(),
  fromUrl: string(),
  /** The linked URL, and its id when the crawl holds it (then as the crawl holds it: without a fragment). */
  toId: nonNeg().optional(),
  toUrl: string(),
  /** The anchor text, else the alt text of a linked image, else its aria-label ('' when none). */
  anchor: string(),
  /** rel=nofollow on the link, or nofollow in the page's meta robots / X-Robots-Tag. */
  nofollow: boolean().optional(),
  /** The target lies outside the crawl's scope. */
  external: boolean().optional(),
  /** The target's state and status as crawled (absent when the crawl does not hold it or has no answer). */
  toState: UrlStateSchema.optional(),
  toStatus: int().optional(),
});

/** A page of links: a URL's inlinks or outlinks. */
export const LinkPageSchema = strictObject({ total: nonNeg(), rows: array(PageLinkRowSchema) });

/** Which links of a URL: those pointing to it, or those on it. */
export const LinkDirectionSchema = zEnum(['in', 'out']);

/** Figures over a crawl's pages for the Overview (computed from the same facts as the table). */
export const PageStatsSchema = strictObject({
  /** Handled URLs that are indexable. */
  indexable: nonNeg(),
  /** Handled URLs that are not, by reason (every reason listed, 0 when none). */
  nonIndexable: array(strictObject({ reason: IndexabilityReasonSchema, count: nonNeg() })),
  /** URLs at click depth 0, 1, 2, … (index = depth; the array ends at the deepest URL). */
  clickDepth: array(nonNeg()),
  /** URLs of the crawl without a click depth (found only through sitemaps or other references). */
  noClickDepth: nonNeg(),
});

// ---------------------------------------------------------------- comparing two crawls (issue 23)

/** What a per-URL comparison looks at; `content` is the page's main text (compared by its SHA-256). */
export const CompareFieldSchema = zEnum(COMPARE_FIELDS);
/** A URL only the new crawl holds (added), only the old one (removed), or both with a field that differs. */
export const CompareChangeSchema = zEnum(['added', 'removed', 'changed']);

/** One URL as one of the two crawls saw it. */
export const CompareSideSchema = strictObject({
  id: nonNeg(),
  state: UrlStateSchema,
  source: RequestSourceSchema,
  status: int().optional(),
  redirectTo: string().optional(),
  indexability: IndexabilitySchema.optional(),
  canonical: string().optional(),
  title: string().optional(),
  /** The meta robots and X-Robots-Tag directives, as the page and its headers gave them. */
  metaRobots: string().optional(),
  metaDescription: string().optional(),
  h1: string().optional(),
  lastmod: string().optional(),
  /** The Last-Modified response header. */
  lastModified: string().optional(),
  /** Sitemaps listing it (URLs), sorted. */
  inSitemaps: array(string()),
  /** hreflang alternates: the page's own and its sitemap entry's, sorted by language then URL. */
  hreflang: array(HreflangAlternateSchema),
  /** Whether its result was carried over from a base crawl (recrawl). */
  carriedOver: boolean().optional(),
});

/** One changed URL: what changed, before and after. */
export const CompareRowSchema = strictObject({
  url: string(),
  change: CompareChangeSchema,
  /** The fields that differ (changed rows); empty for added and removed rows. */
  fields: array(CompareFieldSchema),
  before: CompareSideSchema.optional(),
  after: CompareSideSchema.optional(),
});

export const CompareQuerySchema = strictObject({
  offset: nonNeg(),
  limit: number().int().min(0).max(MAX_PAGE),
  change: CompareChangeSchema.optional(),
  /** Only changed rows where this field differs. */
  field: CompareFieldSchema.optional(),
  /** Only rows whose URL came from one of these sources (the new crawl's source, else the old one's). */
  sources: array(RequestSourceSchema).optional(),
  /** Only URLs this sitemap (its URL) gained (added to it) or lost (removed from it). */
  sitemap: string().max(8192).optional(),
  /** Only URLs that entered or left this audit finding. */
  finding: strictObject({ code: FindingCode, moved: zEnum(['entered', 'left']) }).optional(),
  /** Case-insensitive substring of the URL. */
  search: string().max(2048).optional(),
});
/** A compare CSV's filter: a query without paging. */
export const CompareFilterSchema = CompareQuerySchema.omit({ offset: true, limit: true });
export const ComparePageSchema = strictObject({ total: nonNeg(), rows: array(CompareRowSchema) });

/** One sitemap as one crawl saw it. */
export const CompareSitemapSideSchema = strictObject({
  type: SitemapTypeSchema,
  state: SitemapNodeStateSchema,
  httpStatus: int().optional(),
  urlCount: nonNeg(),
  bytes: nonNeg(),
  /** Problems found on it (every code counted). */
  problems: nonNeg(),
  lastmodTrust: strictObject({ agree: nonNeg(), judged: nonNeg() }).optional(),
});

/** One sitemap across the two crawls. */
export const CompareSitemapSchema = strictObject({
  url: string(),
  change: zEnum(['added', 'removed', 'changed', 'unchanged']),
  before: CompareSitemapSideSchema.optional(),
  after: CompareSitemapSideSchema.optional(),
  /** URLs it lists now and did not before, and the other way round. */
  urlsAdded: nonNeg(),
  urlsRemoved: nonNeg(),
});

/** One audit finding across the two crawls. */
export const CompareFindingSchema = strictObject({
  code: string(),
  severity: AuditSeveritySchema,
  title: string(),
  subject: zEnum(['url', 'sitemap']),
  before: nonNeg(),
  after: nonNeg(),
  /** Items (URLs or sitemaps) affected now and not before, and the other way round. */
  entered: nonNeg(),
  left: nonNeg(),
  /** False when either crawl could not measure it. */
  measured: boolean(),
});

/** The comparison of two crawls of one site. */
export const CompareSummarySchema = strictObject({
  oldId: string(),
  newId: string(),
  oldName: string(),
  newName: string(),
  computedAt: number(),
  urls: strictObject({
    before: nonNeg(),
    after: nonNeg(),
    added: nonNeg(),
    removed: nonNeg(),
    changed: nonNeg(),
    unchanged: nonNeg(),
  }),
  /** Added and removed URLs per source (the source each crawl found it by first). */
  bySource: array(strictObject({ source: RequestSourceSchema, before: nonNeg(), after: nonNeg(), added: nonNeg(), removed: nonNeg() })),
  /** Per field, how many URLs held by both crawls differ in it. */
  fields: array(strictObject({ field: CompareFieldSchema, changed: nonNeg() })),
  sitemapCounts: strictObject({ added: nonNeg(), removed: nonNeg(), changed: nonNeg(), unchanged: nonNeg() }),
  /** Every sitemap of either crawl that is not unchanged, then unchanged ones, at most 5,000 in all. */
  sitemaps: array(CompareSitemapSchema),
  findings: array(CompareFindingSchema),
  /** Codes of the measured findings whose count rose (what a scheduled recrawl alerts on). */
  worse: array(string()),
});

// ---------------------------------------------------------------- methods

const Id = string().min(1).max(200);
/** Methods without arguments accept nothing, or an empty object. */
const NoArgs = strictObject({}).optional();
const ById = strictObject({ id: Id });

/** What `exportCsv` answers: in Electron the file path (or canceled), in browser mode a one-time download URL. */
export const ExportResultSchema = strictObject({
  rows: nonNeg(),
  path: string().optional(),
  canceled: boolean().optional(),
  downloadUrl: string().optional(),
});
export type ExportResult = output<typeof ExportResultSchema>;

/**
 * What `importCrawl` answers: in Electron the crawl opened from the file the analyst picked (or
 * canceled); in browser mode a one-time upload URL the page POSTs the file's bytes to, whose answer
 * is `{ ok: true, value: CrawlSummary }` or `{ ok: false, error }`, the contract's envelope.
 */
export const ImportResultSchema = strictObject({
  crawl: CrawlSummarySchema.optional(),
  canceled: boolean().optional(),
  uploadUrl: string().optional(),
});
export type ImportResult = output<typeof ImportResultSchema>;

/** A list of URLs for a list-mode crawl, as pasted or read from a file: one a line, or a CSV's first column. */
export const UrlListTextSchema = string().max(8 * 1024 * 1024);

/** The method table: name → argument schema and result schema. */
export const methods = {
  listCrawls: { args: NoArgs, result: array(CrawlSummarySchema) },
  getCrawl: { args: ById, result: CrawlSummarySchema },
  createCrawl: {
    args: strictObject({
      name: string().max(200).optional(),
      settings: CrawlSettingsSchema.partial().extend({ startUrl: string().max(8192) }),
      /** List mode (settings.mode 'list'): the URLs to fetch. */
      list: UrlListTextSchema.optional(),
    }),
    result: CrawlSummarySchema,
  },
  renameCrawl: { args: strictObject({ id: Id, name: string().max(200) }), result: CrawlSummarySchema },
  startCrawl: { args: ById, result: CrawlSummarySchema },
  pauseCrawl: { args: ById, result: CrawlSummarySchema },
  resumeCrawl: { args: ById, result: CrawlSummarySchema },
  stopCrawl: { args: ById, result: CrawlSummarySchema },
  deleteCrawl: { args: ById, result: zNull() },
  queryUrls: { args: strictObject({ id: Id, query: UrlQuerySchema }), result: UrlPageSchema },
  getUrl: { args: strictObject({ id: Id, urlId: nonNeg() }), result: UrlDetailSchema },
  getSitemapChildren: {
    args: strictObject({ id: Id, parentId: string().nullable() }),
    result: array(SitemapNodeSchema),
  },
  getLog: {
    args: strictObject({ id: Id, offset: nonNeg(), limit: number().int().min(0).max(MAX_PAGE) }),
    result: LogPageSchema,
  },
  /** The sitemap audit: every finding (critical first) with its count, or why it was not measured. */
  getFindings: { args: ById, result: array(AuditFindingSchema) },
  /** A page of what one finding affects: URLs, or sitemap URLs for a sitemap finding. */
  getFindingUrls: {
    args: strictObject({ id: Id, code: FindingCode, offset: nonNeg(), limit: number().int().min(0).max(MAX_PAGE) }),
    result: FindingUrlPageSchema,
  },
  exportCsv: { args: strictObject({ id: Id, filter: UrlFilterSchema.optional() }), result: ExportResultSchema },
  /** A page of one URL's inlinks (direction 'in') or outlinks ('out'), in the order the crawl found them. */
  getLinks: {
    args: strictObject({ id: Id, urlId: nonNeg(), direction: LinkDirectionSchema, offset: nonNeg(), limit: number().int().min(0).max(MAX_PAGE) }),
    result: LinkPageSchema,
  },
  /**
   * Links to CSV (columns: source, target, anchor, target_status, nofollow, external): one URL's
   * inlinks or outlinks with `urlId` (direction defaults to 'in'); with `finding` (a code of
   * LINK_FINDING_CODES), every inlink of that finding's URLs; with neither, every link of the crawl.
   */
  exportLinks: {
    args: strictObject({ id: Id, urlId: nonNeg().optional(), direction: LinkDirectionSchema.optional(), finding: FindingCode.optional() }),
    result: ExportResultSchema,
  },
  /** Indexability and click-depth figures for the Overview. */
  getPageStats: { args: ById, result: PageStatsSchema },
  // Issue 23: recrawl, compare, schedule, crawl files.
  /** Crawl again: a new crawl of the same settings that reuses what crawl `id` learned; started at once. */
  recrawl: { args: strictObject({ id: Id, changedOnly: boolean().optional() }), result: CrawlSummarySchema },
  /** Compares two crawls (old first); computed once, then kept beside the new crawl. */
  compareCrawls: { args: strictObject({ oldId: Id, newId: Id }), result: CompareSummarySchema },
  /** A page of a comparison's changed URLs, in the new crawl's id order, then removed ones in the old one's. */
  getCompareRows: { args: strictObject({ oldId: Id, newId: Id, query: CompareQuerySchema }), result: ComparePageSchema },
  /** The comparison's changed URLs to CSV: one row per URL with before/after columns. */
  exportCompare: { args: strictObject({ oldId: Id, newId: Id, filter: CompareFilterSchema.optional() }), result: ExportResultSchema },
  /** Schedules recrawls of crawl `id` (null: none). */
  setSchedule: {
    args: strictObject({ id: Id, every: zEnum(['daily', 'weekly']).nullable(), changedOnly: boolean().optional() }),
    result: CrawlSummarySchema,
  },
  /** Saves everything crawl `id` holds as one file (Electron: a save dialog; browser mode: a download). */
  exportCrawlFile: { args: ById, result: ExportResultSchema },
  /** Opens a crawl file as a new crawl (Electron: an open dialog; browser mode: an upload URL). */
  importCrawl: { args: NoArgs, result: ImportResultSchema },
  getDefaults: { args: NoArgs, result: CrawlSettingsSchema },
  setDefaults: { args: strictObject({ patch: CrawlSettingsSchema.partial() }), result: CrawlSettingsSchema },
} as const;

export type MethodName = keyof typeof methods;
export type MethodArgs<M extends MethodName> = input<(typeof methods)[M]['args']>;
export type MethodResult<M extends MethodName> = output<(typeof methods)[M]['result']>;
export const methodNames = Object.keys(methods) as MethodName[];

/** True when `name` is a method of the contract (own key, not something from Object.prototype). */
export function isMethodName(name: unknown): name is MethodName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(methods, name);
}

// ---------------------------------------------------------------- events

/** Commands from the app menu that the renderer carries out (it knows the selected crawl). */
export const MenuCommandSchema = strictObject({ command: zEnum(['newCrawl', 'exportCsv']) });

/** The event table: name → payload schema. Progress comes batched, at most a few per second per crawl. */
export const events = {
  progress: ProgressEventSchema,
  crawlFinished: CrawlSummarySchema,
  crawlFailed: CrawlSummarySchema,
  /** Something went wrong outside any one crawl. */
  warning: CrawlLogEntrySchema,
  /** A recrawl finished and its comparison with its base is ready; `worse`: findings whose count rose. */
  recrawlFinished: strictObject({ crawl: CrawlSummarySchema, baseId: string(), scheduled: boolean(), worse: array(string()) }),
  /** Electron only: a menu item the page should act on. */
  menuCommand: MenuCommandSchema,
} as const;

export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = output<(typeof events)[E]>;
export const eventNames = Object.keys(events) as EventName[];

/** True when `name` is an event of the contract. */
export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(events, name);
}

// ---------------------------------------------------------------- the API the page sees

type MethodFn<M extends MethodName> =
  undefined extends MethodArgs<M> ? (args?: MethodArgs<M>) => Promise<MethodResult<M>> : (args: MethodArgs<M>) => Promise<MethodResult<M>>;

/** `window.spinneret`: every contract method, plus `on(event, cb)` returning an unsubscribe function. */
export type SpinneretApi = { [M in MethodName]: MethodFn<M> } & {
  on<E extends EventName>(event: E, cb: (payload: EventPayload<E>) => void): () => void;
};

/** Sends one call over some transport and resolves with the envelope (never rejects for API errors). */
export type Invoke = (method: MethodName, args: unknown) => Promise<Result<unknown>>;
/** Registers a listener for one event over some transport; returns the unsubscribe function. */
export type Subscribe = (event: EventName, cb: (payload: unknown) => void) => () => void;

/** Builds the page-side API over any transport: unwraps envelopes, throws ApiError on failure. */
export function createApiClient(invoke: Invoke, subscribe: Subscribe): SpinneretApi {
  const api: Record<string, unknown> = {};
  for (const method of methodNames) {
    api[method] = async (args?: unknown) => {
      const res = await invoke(method, args);
      if (!res || typeof res !== 'object' || typeof res.ok !== 'boolean') {
        throw new ApiError(TransportErrorCode.BAD_MESSAGE, `The answer to ${method} was not a result envelope.`);
      }
      if (res.ok) return res.value;
      throw new ApiError(res.error.code, res.error.message);
    };
  }
  api.on = (event: EventName, cb: (payload: unknown) => void) => {
    if (!isEventName(event)) throw new ApiError(TransportErrorCode.INVALID_ARGS, `Unknown event "${String(event)}".`);
    if (typeof cb !== 'function') throw new ApiError(TransportErrorCode.INVALID_ARGS, 'on(event, cb) needs a function.');
    return subscribe(event, cb);
  };
  return Object.freeze(api) as unknown as SpinneretApi;
}

/** Turns a zod failure into one readable line: `settings.concurrency: Too small: expected number to be >=0`. */
export function describeIssues(error: ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

// ---------------------------------------------------------------- IPC channel names (Electron)

/** The one invoke channel: payload `{ method, args }`, answer a Result envelope. */
export const IPC_CALL = 'spinneret:call';
/** The one event channel main → page: payload `{ event, payload }`. */
export const IPC_EVENT = 'spinneret:event';

// ---------------------------------------------------------------- WebSocket wire format (browser mode)

/** Page → server. */
export const WsCallSchema = strictObject({
  type: literal('call'),
  id: number().int().min(0),
  method: string().max(100),
  args: unknown().optional(),
});
export type WsCall = output<typeof WsCallSchema>;
/** Server → page. */
export type WsServerMessage = { type: 'result'; id: number; result: Result<unknown> } | { type: 'event'; event: EventName; payload: unknown };

/** Path of the WebSocket endpoint; the token travels as `?token=`. */
export const WS_PATH = '/ws';

/** The part of a WebSocket the client needs: the DOM one and the `ws` package's both fit. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

/** Browser mode: the WebSocket URL for a page served at `pageUrl` (which carries `?token=`). */
export function webSocketUrlFor(pageUrl: string): string {
  const page = new URL(pageUrl);
  const ws = new URL(WS_PATH, page);
  ws.protocol = page.protocol === 'https:' ? 'wss:' : 'ws:';
  const token = page.searchParams.get('token');
  if (token) ws.searchParams.set('token', token);
  return ws.toString();
}

/**
 * Browser mode: the SpinneretApi over one WebSocket. Calls made before the socket opens wait for it;
 * when it closes, calls still waiting reject with DISCONNECTED.
 */
export function createWebSocketApi(socket: WebSocketLike): SpinneretApi & { close(): void } {
  const OPEN = 1;
  let nextId = 1;
  let closed = false;
  const pending = new Map<number, (r: Result<unknown>) => void>();
  const outbox: string[] = [];
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();

  socket.onopen = () => {
    for (const msg of outbox.splice(0)) socket.send(msg);
  };
  socket.onmessage = (ev) => {
    let msg: WsServerMessage;
    try {
      msg = JSON.parse(String(ev.data)) as WsServerMessage;
    } catch {
      return; // not ours to answer: the server only sends JSON
    }
    if (msg.type === 'result') {
      const done = pending.get(msg.id);
      pending.delete(msg.id);
      done?.(msg.result);
    } else if (msg.type === 'event') {
      for (const cb of listeners.get(msg.event) ?? []) cb(msg.payload);
    }
  };
  const closeAll = () => {
    closed = true;
    for (const done of pending.values()) {
      done(fail(TransportErrorCode.DISCONNECTED, 'The connection to Spinneret closed. Reload the page to reconnect.'));
    }
    pending.clear();
  };
  socket.onclose = closeAll;
  socket.onerror = () => {};

  const invoke: Invoke = (method, args) =>
    new Promise((resolve) => {
      if (closed) {
        resolve(fail(TransportErrorCode.DISCONNECTED, 'The connection to Spinneret is closed. Reload the page.'));
        return;
      }
      const id = nextId++;
      pending.set(id, resolve);
      const msg = JSON.stringify({ type: 'call', id, method, ...(args === undefined ? {} : { args }) });
      if (socket.readyState === OPEN) socket.send(msg);
      else outbox.push(msg);
    });
  const subscribe: Subscribe = (event, cb) => {
    let set = listeners.get(event);
    if (!set) listeners.set(event, (set = new Set()));
    set.add(cb);
    return () => {
      set.delete(cb);
    };
  };
  const api = createApiClient(invoke, subscribe);
  return Object.freeze({ ...api, close: () => socket.close() });
}
