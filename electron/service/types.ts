/**
 * CrawlService: the one owner of crawls, used alike by the CLI, Electron main and browser mode.
 */
import type { Readable, Writable } from 'node:stream';
import type {
  AuditFinding,
  CompareFilter,
  ComparePage,
  CompareQuery,
  CompareSummary,
  CrawlLogEntry,
  CrawlSettings,
  CrawlSummary,
  FindingUrlPage,
  LinkDirection,
  LinkPage,
  PageStats,
  ProgressEvent,
  SitemapNode,
  UrlDetail,
  UrlPage,
  UrlQuery,
} from '../../shared/model.js';

export interface NewCrawl {
  name?: string;
  /** Settings not given come from the saved defaults. */
  settings: Partial<CrawlSettings> & Pick<CrawlSettings, 'startUrl'>;
  /**
   * List mode (settings.mode 'list'): the URLs, one a line or a CSV's first column (text as pasted,
   * or `{ path }` of a file the CLI reads). Stored in the crawl's folder; BAD_LIST when it holds no
   * http(s) URL or a line that is none (the message names the line).
   */
  list?: string | { path: string };
}

/** How a recrawl reuses its base. */
export interface RecrawlOptions {
  /** Fetch only URLs that are new, whose lastmod moved, or that failed in the base crawl. */
  changedOnly?: boolean;
  /** Set by the scheduler: the recrawlFinished event says it was scheduled. */
  scheduled?: boolean;
}

/** Which links a links export holds: one URL's (in or out), or, without urlId, all of the crawl's. */
export interface LinksExport {
  urlId?: number;
  direction?: LinkDirection;
  /** A code of LINK_FINDING_CODES: every inlink of that finding's URLs (not with urlId). */
  finding?: string;
}

export interface CrawlServiceEvents {
  progress: (e: ProgressEvent) => void;
  finished: (summary: CrawlSummary) => void;
  failed: (summary: CrawlSummary) => void;
  /** Something went wrong outside any one crawl (catalog rebuilt, …). */
  warning: (entry: CrawlLogEntry) => void;
  /** A recrawl finished and its comparison with its base is ready. */
  recrawlFinished: (e: { crawl: CrawlSummary; baseId: string; scheduled: boolean; worse: string[] }) => void;
}

export interface CrawlService {
  list(): CrawlSummary[];
  get(id: string): CrawlSummary;
  /** Validates the settings (ServiceError BAD_SETTINGS) and stores the crawl, status 'created'. */
  create(input: NewCrawl): CrawlSummary;
  rename(id: string, name: string): CrawlSummary;
  start(id: string): Promise<CrawlSummary>;
  /** Lets requests in flight finish, checkpoints, status 'paused'. */
  pause(id: string): Promise<CrawlSummary>;
  resume(id: string): Promise<CrawlSummary>;
  /** Ends the crawl for good: status 'finished' with what it has. */
  stop(id: string): Promise<CrawlSummary>;
  delete(id: string): Promise<void>;
  queryUrls(id: string, query: UrlQuery): UrlPage;
  getUrl(id: string, urlId: number): UrlDetail;
  /** Children of a node (null: the roots). */
  sitemapTree(id: string, parentId: string | null): SitemapNode[];
  log(id: string, offset: number, limit: number): { total: number; rows: CrawlLogEntry[] };
  /**
   * The sitemap audit: every finding, catalogue order (critical first), with counts; live while it
   * runs. Right after a crawl is reopened its audit is rebuilt in the background: findings then carry
   * `computing: true` (counts so far) until auditReady() resolves.
   */
  getFindings(id: string): AuditFinding[];
  /** Resolves once the crawl's audit is complete (at once unless it is being rebuilt after a reopen). */
  auditReady(id: string): Promise<void>;
  /**
   * A page of what one finding affects: URLs (URL findings, in id order) or sitemap URLs (sitemap
   * findings). An unknown code is a BAD_QUERY naming the known ones.
   */
  findingUrls(id: string, code: string, offset: number, limit: number): FindingUrlPage;
  /** Streams the CSV (header exactly as the CLI's) of the rows matching the filter, or of all. */
  exportCsv(id: string, out: Writable, filter?: Omit<UrlQuery, 'offset' | 'limit'>): Promise<{ rows: number }>;
  /**
   * A page of URL `urlId`'s inlinks ('in': links on other crawled pages to it, in journal order) or
   * outlinks ('out': the links on its own page, in document order). NOT_FOUND for a URL the crawl
   * does not hold; BAD_QUERY for a bad direction, offset or limit.
   */
  getLinks(id: string, urlId: number, direction: LinkDirection, offset: number, limit: number): Promise<LinkPage>;
  /**
   * Streams links as CSV (LINK_CSV_COLUMNS): one URL's inlinks or outlinks with `urlId` (direction
   * 'in' unless given), every inlink of a link finding's URLs with `finding` (LINK_FINDING_CODES),
   * or every link of the crawl with neither.
   */
  exportLinks(id: string, out: Writable, opts?: LinksExport): Promise<{ rows: number }>;
  /**
   * Indexability per reason and the click-depth histogram over every URL of the crawl, from the same
   * facts as the table's columns; waits for a reopened crawl's audit, as a finding's export does.
   */
  getPageStats(id: string): Promise<PageStats>;
  // Issue 23 ------------------------------------------------------------------------------------
  /**
   * Crawl again: creates and starts a crawl of `id`'s settings that sends conditional requests from
   * its validators, carries 304s (and, changed-only, what it does not fetch) over, and, once it
   * finishes, has its comparison with `id` ready (recrawlFinished). NOT_READY while `id` runs.
   */
  recrawl(id: string, opts?: RecrawlOptions): Promise<CrawlSummary>;
  /** Compares two crawls (streamed, bounded memory); kept beside the new crawl once computed. */
  compare(oldId: string, newId: string): Promise<CompareSummary>;
  /** A page of a comparison's changed URLs (computing the comparison first if needed). */
  compareRows(oldId: string, newId: string, query: CompareQuery): Promise<ComparePage>;
  /** Streams a comparison's changed URLs as CSV: one row per URL, before/after columns. */
  exportCompare(oldId: string, newId: string, out: Writable, filter?: CompareFilter): Promise<{ rows: number }>;
  /** Schedules recrawls of `id` every day or week (null: none); runs while the service does. */
  setSchedule(id: string, every: 'daily' | 'weekly' | null, changedOnly?: boolean): CrawlSummary;
  /** Writes everything crawl `id` holds as one crawl file. NOT_READY while it runs. */
  exportCrawlFile(id: string, out: Writable): Promise<{ bytes: number }>;
  /**
   * Opens a crawl file as a new crawl (a new id, status as saved but never running). A damaged or
   * foreign file is refused (BAD_CRAWL_FILE) and leaves nothing behind.
   */
  importCrawlFile(input: Readable, fileName: string): Promise<CrawlSummary>;
  getDefaults(): CrawlSettings;
  setDefaults(patch: Partial<CrawlSettings>): CrawlSettings;
  on<E extends keyof CrawlServiceEvents>(event: E, listener: CrawlServiceEvents[E]): () => void;
  /** Pauses and checkpoints every running crawl (app quit, Ctrl-C). */
  close(): Promise<void>;
}
