/**
 * Domain types shared by the engine, the service, main and the renderer, the default crawl settings
 * and a few constants. Each shape is declared once, as a zod schema in contract.ts (with its fields'
 * documentation); the types here are inferred from those schemas. The imports of contract.ts are
 * type-only: importing this module loads neither zod nor the contract.
 */
import type { output } from 'zod';
import type * as S from './contract.js';

/**
 * How a URL was found: the start URL, robots.txt, a sitemap entry, an `<a href>`/`<area href>` of a
 * crawled page (`link`: the only kind that makes an inlink), a redirect's Location, a page's
 * canonical, its hreflang alternates, or another reference of a page (`<link rel=next|prev|amphtml|
 * alternate>`, a frame's src). The order is the journal's code of each: append only.
 */
export const REQUEST_SOURCES = ['start', 'robots', 'sitemap', 'link', 'redirect', 'canonical', 'hreflang', 'reference'] as const;
export type RequestSource = (typeof REQUEST_SOURCES)[number];

/**
 * What a comparison of two crawls looks at, per URL, in this order (the detail's, and bit i of the
 * service's field masks); `content` is the page's main text, compared by its SHA-256.
 */
export const COMPARE_FIELDS = [
  'state',
  'status',
  'redirectTo',
  'indexability',
  'canonical',
  'title',
  'metaRobots',
  'metaDescription',
  'h1',
  'lastmod',
  'inSitemaps',
  'hreflang',
  'content',
] as const;

/** Largest page of rows one call may ask for (URLs, log entries, a finding's URLs): long lists are pulled a page at a time. */
export const MAX_PAGE = 5000;

/**
 * The page findings whose URLs are link targets (a broken page, a redirect, a non-indexable page that
 * pages link to): each has a links export, every link to its URLs with the page it is on.
 */
export const LINK_FINDING_CODES: readonly string[] = ['BROKEN_INTERNAL_LINK', 'LINK_TO_REDIRECT', 'LINKED_NON_INDEXABLE'];

/** Lifecycle of one URL in the frontier. */
export type UrlState = output<typeof S.UrlStateSchema>;
export type HreflangAlternate = output<typeof S.HreflangAlternateSchema>;
export type SitemapImage = output<typeof S.SitemapImageSchema>;
export type SitemapVideo = output<typeof S.SitemapVideoSchema>;
export type SitemapNews = output<typeof S.SitemapNewsSchema>;
/** One `<url>` of a urlset (or a line of a text sitemap, or an item of a feed). */
export type SitemapUrlEntry = output<typeof S.SitemapUrlEntrySchema>;
export type SitemapMobileAlternate = output<typeof S.SitemapMobileAlternateSchema>;
export type SitemapType = output<typeof S.SitemapTypeSchema>;
/** A problem found on a sitemap (or robots.txt) node. Codes are stable, messages are for people. */
export type Problem = output<typeof S.ProblemSchema>;
export type SitemapNodeState = output<typeof S.SitemapNodeStateSchema>;
/** A node of the sitemap tree: robots.txt → indexes → sitemaps. */
export type SitemapNode = output<typeof S.SitemapNodeSchema>;
export type RedirectHop = output<typeof S.RedirectHopSchema>;
export type CrawlError = output<typeof S.CrawlErrorSchema>;
/** What is known about one fetched (or blocked, or failed) URL. */
export type UrlResult = output<typeof S.UrlResultSchema>;
export type ScopeMode = output<typeof S.ScopeModeSchema>;
/** Everything that shapes one crawl. */
export type CrawlSettings = output<typeof S.CrawlSettingsSchema>;

/** The user agent new crawls announce unless the analyst sets another. */
export const DEFAULT_USER_AGENT = 'Spinneret/0.1 (+https://github.com/spinneret)';

/** Built-in defaults for new crawls; the analyst's saved defaults override them. */
export const DEFAULT_SETTINGS: Readonly<CrawlSettings> = Object.freeze({
  mode: 'spider',
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

export type CrawlStatus = output<typeof S.CrawlStatusSchema>;
/** Live counters of a crawl. */
export type CrawlCounters = output<typeof S.CrawlCountersSchema>;

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

export type CrawlSummary = output<typeof S.CrawlSummarySchema>;
export type StatusClass = output<typeof S.StatusClassSchema>;
/** Whether a search engine may index a URL as crawled. */
export type Indexability = output<typeof S.IndexabilitySchema>;
/** Why a URL is not indexable (the first reason that applies; see IndexabilityReasonSchema). */
export type IndexabilityReason = output<typeof S.IndexabilityReasonSchema>;
/** One row of the URL table (and of the CSV). */
export type UrlRow = output<typeof S.UrlRowSchema>;
/** One URL of a redirect chain as the crawl recorded it (each hop is a URL of its own). */
export type RedirectStep = output<typeof S.RedirectStepSchema>;
/** The walk along redirect rows from one URL to where it ends. */
export type RedirectWalk = output<typeof S.RedirectWalkSchema>;
/** One hreflang alternate of a URL, as the audit judges it. */
export type HreflangCheck = output<typeof S.HreflangCheckSchema>;
/** Everything known about one URL: the detail pane. */
export type UrlDetail = output<typeof S.UrlDetailSchema>;
export type UrlSortKey = output<typeof S.UrlSortKeySchema>;
export type UrlQuery = output<typeof S.UrlQuerySchema>;
/** A URL query without paging: what filters a CSV export. */
export type UrlFilter = output<typeof S.UrlFilterSchema>;
export type UrlPage = output<typeof S.UrlPageSchema>;
/** A crawl-level event worth showing in the Errors view. */
export type CrawlLogEntry = output<typeof S.CrawlLogEntrySchema>;
export type LogPage = output<typeof S.LogPageSchema>;
/** A batched progress event: at most a few per second per crawl. */
export type ProgressEvent = output<typeof S.ProgressEventSchema>;

// ---------------------------------------------------------------- sitemap audit

export type AuditSeverity = output<typeof S.AuditSeveritySchema>;
/** One finding of the sitemap audit: what is wrong, how often, and whether it could be measured. */
export type AuditFinding = output<typeof S.AuditFindingSchema>;
/** One audit badge of a sitemap-tree node. */
export type AuditBadge = output<typeof S.AuditBadgeSchema>;
/** A page of the items a finding affects: URLs (URL findings) or sitemap URLs (sitemap findings). */
export type FindingUrlPage = output<typeof S.FindingUrlPageSchema>;
/** One link of a crawled page (inlink or outlink). */
export type PageLinkRow = output<typeof S.PageLinkRowSchema>;
export type LinkPage = output<typeof S.LinkPageSchema>;
export type LinkDirection = output<typeof S.LinkDirectionSchema>;
/** Indexability and click-depth figures of a crawl. */
export type PageStats = output<typeof S.PageStatsSchema>;
export type Range = output<typeof S.RangeSchema>;

// ---------------------------------------------------------------- issue 23: compare, recrawl, list mode

/** A recrawl schedule of a crawl. */
export type Schedule = output<typeof S.ScheduleSchema>;
export type CompareField = output<typeof S.CompareFieldSchema>;
export type CompareChange = output<typeof S.CompareChangeSchema>;
/** One URL as one of two compared crawls saw it. */
export type CompareSide = output<typeof S.CompareSideSchema>;
/** One changed URL of a comparison. */
export type CompareRow = output<typeof S.CompareRowSchema>;
export type CompareQuery = output<typeof S.CompareQuerySchema>;
export type CompareFilter = output<typeof S.CompareFilterSchema>;
export type ComparePage = output<typeof S.ComparePageSchema>;
export type CompareSitemapSide = output<typeof S.CompareSitemapSideSchema>;
export type CompareSitemap = output<typeof S.CompareSitemapSchema>;
export type CompareFinding = output<typeof S.CompareFindingSchema>;
/** The comparison of two crawls of one site. */
export type CompareSummary = output<typeof S.CompareSummarySchema>;

/**
 * How long a crawl has been running, in ms: its runs added up (time paused, or with the app closed,
 * not counted), the current one up to `now`; null before it first ran. A crawl recorded before
 * runs were timed counts from its start to its end (or last update).
 */
export function crawlRunningMs(
  s: Pick<CrawlSummary, 'activeMs' | 'runningSince' | 'startedAt' | 'finishedAt' | 'status' | 'updatedAt'>,
  now: number,
): number | null {
  if (s.activeMs !== undefined || s.runningSince !== undefined) {
    return (s.activeMs ?? 0) + (s.runningSince !== undefined ? Math.max(0, now - s.runningSince) : 0);
  }
  if (!s.startedAt) return null;
  return Math.max(0, (s.finishedAt ?? (s.status === 'running' ? now : s.updatedAt)) - s.startedAt);
}
