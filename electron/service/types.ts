/**
 * CrawlService: the one owner of crawls, used alike by the CLI, Electron main and browser mode.
 */
import type { Writable } from 'node:stream';
import type {
  AuditFinding,
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
}

/** Which links a links export holds: one URL's (in or out), or, without urlId, all of the crawl's. */
export interface LinksExport {
  urlId?: number;
  direction?: LinkDirection;
}

export interface CrawlServiceEvents {
  progress: (e: ProgressEvent) => void;
  finished: (summary: CrawlSummary) => void;
  failed: (summary: CrawlSummary) => void;
  /** Something went wrong outside any one crawl (catalog rebuilt, …). */
  warning: (entry: CrawlLogEntry) => void;
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
   * 'in' unless given), or every link of the crawl without it.
   */
  exportLinks(id: string, out: Writable, opts?: LinksExport): Promise<{ rows: number }>;
  /**
   * Indexability per reason and the click-depth histogram over every URL of the crawl, from the same
   * facts as the table's columns; waits for a reopened crawl's audit, as a finding's export does.
   */
  getPageStats(id: string): Promise<PageStats>;
  getDefaults(): CrawlSettings;
  setDefaults(patch: Partial<CrawlSettings>): CrawlSettings;
  on<E extends keyof CrawlServiceEvents>(event: E, listener: CrawlServiceEvents[E]): () => void;
  /** Pauses and checkpoints every running crawl (app quit, Ctrl-C). */
  close(): Promise<void>;
}
