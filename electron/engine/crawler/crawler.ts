/**
 * The crawler: seeds the frontier (start URL, robots.txt sitemaps or default locations, explicit sitemaps),
 * then fetches requests with bounded concurrency and routes each response by what it is.
 */
import type { Readable } from 'node:stream';
import type { CrawlLogEntry, CrawlSettings, Problem, RequestSource, SitemapNode, UrlResult } from '../../../shared/model.js';
import {
  EngineError,
  type CrawlerCheckpoint,
  type CrawlSite,
  type CrawlerHooks,
  type CrawlerRunState,
  type Discovery,
  type FetchResponse,
  type HttpFetcher,
  type ListingWire,
  type PageInfo,
  type PageLink,
  type RecordedLink,
  type CarriedPage,
  type RecrawlBase,
  type Request,
  type RequestInit,
  type ResultFacts,
  type RobotsTxt,
} from '../types.js';
import { createHttpFetcher } from '../http/http.js';
import { MemoryRequestQueue } from '../frontier/request-queue.js';
import { SitemapRequestList } from '../sitemap/request-list.js';
import { RequestQueueWithSitemap } from '../frontier/queue-with-sitemap.js';
import { fetchRobotsTxt, robotsFromCheckpoint } from '../robots/robots-fetch.js';
import { extractPageInfo, parseRobotsDirectives } from '../links/links.js';
import { decodeBody } from '../http/charset.js';
import { originOf, robotsUrlFor, toUniqueKey, hostOf, resolveUrl } from '../frontier/url.js';
import { registrableDomain, scopeTest } from '../frontier/scope.js';
import { classifyBody, readBody } from '../http/response-kind.js';
import { UrlFilter } from '../frontier/url-filter.js';

export interface CrawlerOptions {
  settings: CrawlSettings;
  hooks: CrawlerHooks;
  /** Default: built from settings. */
  fetcher?: HttpFetcher;
  /** A queue restored from journals; default: a new one. */
  queue?: MemoryRequestQueue;
  /** From the last checkpoint; absent: a fresh crawl. */
  checkpoint?: CrawlerCheckpoint;
  /** Filter for sitemaps announced by other sitemaps (tests keep only local ones). */
  keepSitemap?(url: string): boolean;
  /**
   * List mode (settings.mode 'list'): the list's URLs (absolute, normalised), read afresh each run. The
   * first run admits them as 'start' URLs; every run learns the list's hosts from them (the scope).
   */
  list?: () => AsyncIterable<string>;
  /** Clock, for tests. */
  now?(): number;
  /**
   * Recrawl: what the base crawl knows. Pages and sitemaps are fetched with its validators; a 304
   * keeps its answer (and its links and entries), as does a URL changed-only mode does not fetch.
   */
  recrawl?: RecrawlBase;
}

export type CrawlerOutcome = 'finished' | 'paused' | 'stopped' | 'failed';

/** The run states a crawler never leaves: run() answers them at once (the service's test double shares this). */
export function isTerminalState(state: CrawlerRunState): state is 'finished' | 'stopped' | 'failed' {
  return state === 'finished' || state === 'stopped' || state === 'failed';
}

/** What a page fetch accepts. */
const PAGE_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
/** The most redirects of the start URL followed to find the site it leads to (as the fetcher's default). */
const MAX_START_HOPS = 10;
/** Default sitemap locations tried when robots.txt announces none. */
const DEFAULT_SITEMAP_PATHS = ['/sitemap.xml', '/sitemap_index.xml'];
/** Robots Crawl-delay is honoured up to this many seconds (a larger one would stall a crawl for hours). */
const MAX_CRAWL_DELAY_S = 30;
/**
 * Sitemap problems past what their node stores go to the crawl log, up to this many per sitemap
 * and in all (each node still counts every one by code); one line says when the rest are not logged.
 */
const MAX_LOGGED_PROBLEMS_PER_SITEMAP = 200;
const MAX_LOGGED_SITEMAP_PROBLEMS = 5_000;
/**
 * A body the crawler does not keep (a redirect's, an error page's, a file's) is read to its end up to
 * this size, so its response time and size are known and its socket is reused; a longer one is cut.
 */
const DRAIN_LIMIT_BYTES = 64 * 1024;

type RobotsSaved = CrawlerCheckpoint['robots'][string];

export class Crawler {
  readonly queue: MemoryRequestQueue;
  private readonly settings: CrawlSettings;
  private readonly hooks: CrawlerHooks;
  private readonly recrawl: RecrawlBase | undefined;
  private readonly fetcher: HttpFetcher;
  private readonly ownsFetcher: boolean;
  private readonly list: SitemapRequestList;
  private readonly frontier: RequestQueueWithSitemap;
  private readonly filter: UrlFilter;
  private readonly now: () => number;
  private runState: CrawlerRunState = 'idle';
  private seeded: boolean;
  private readonly robotsSaved: Record<string, RobotsSaved>;
  private readonly robots = new Map<string, Promise<RobotsTxt | null>>();
  private readonly active = new Set<Promise<void>>();
  private readonly nodeMap = new Map<string, SitemapNode>();
  /** Requests already reported, so a late error cannot report one twice. */
  private readonly finished = new WeakSet<Request>();
  /** The uniqueKeys of the page being handled's links (null: unparsable), as admission found them; for onPageLinks. */
  private readonly pageKeys = new Map<string, string | null>();
  private scopeTestFn: ((url: string) => boolean) | undefined;
  /**
   * Where the start URL's redirects lead when they leave its origin (http://example.com/ →
   * https://www.example.com/): the site crawled. Its robots.txt and sitemaps are read, and every host
   * of the chain is in scope. Null: the start URL is the site. Kept in the checkpoint.
   */
  private site: CrawlSite | null;
  private readonly listUrls: (() => AsyncIterable<string>) | undefined;
  /** List mode: the list's host names ('host' scope) or registrable domains ('domain'), once read. */
  private listScope: Set<string> | null = null;
  private readonly robotsProblems = new Map<string, { code: string; message: string }[]>();
  /** Sitemap problems logged because their node did not store them: per node id, and in all. */
  private readonly problemsLogged = new Map<string, number>();
  private problemsLoggedTotal = 0;
  private fetchedOk = 0;
  private startFailure: EngineError | null = null;
  private running: Promise<CrawlerOutcome> | null = null;
  private failure: EngineError | null = null;

  constructor(opts: CrawlerOptions) {
    this.settings = opts.settings;
    this.hooks = opts.hooks;
    this.recrawl = opts.recrawl;
    this.now = opts.now ?? Date.now;
    this.listUrls = opts.list;
    this.ownsFetcher = !opts.fetcher;
    this.fetcher = opts.fetcher ?? createHttpFetcher(fetcherOptionsFrom(opts.settings));
    this.filter = new UrlFilter(opts.settings);
    this.seeded = opts.checkpoint?.seeded ?? false;
    this.site = siteFromCheckpoint(opts.checkpoint?.site);
    this.robotsSaved = { ...(opts.checkpoint?.robots ?? {}) };
    for (const [origin, saved] of Object.entries(this.robotsSaved)) {
      this.robots.set(origin, Promise.resolve(saved.outcome === 'allow-all' && !saved.body ? null : robotsFromCheckpoint(saved)));
    }

    const queueHooks = {
      onAdmitted: (req: Request, state: 'queued' | 'listed', wire?: ListingWire) => this.hooks.onAdmitted?.(req, state, wire),
      onDuplicate: (id: number, d: Discovery, init: RequestInit) => this.hooks.onDuplicate?.(id, d, init),
    };
    this.queue = opts.queue ?? new MemoryRequestQueue(queueHooks);
    if (opts.queue) opts.queue.setHooks(queueHooks);

    this.list = new SitemapRequestList({
      sitemapUrls: [],
      fetcher: this.fetcher,
      isAllowed: (url) => this.isAllowedCached(url),
      keepSitemap: opts.keepSitemap,
      onNode: (node) => this.emitNode(node),
      onProblem: (nodeId, p, kept) => {
        if (!kept) this.logSitemapProblem(nodeId, p);
      },
      checkRedirect: (next, from) => this.checkSitemapHop(next, from),
      state: opts.checkpoint?.sitemapList as never,
      limit: opts.settings.maxUrls ?? undefined,
      timeoutMs: opts.settings.sitemapTimeoutMs,
      idleTimeoutMs: opts.settings.idleTimeoutMs,
      retries: opts.settings.retries,
      ...(opts.recrawl ? { carry: opts.recrawl } : {}),
    });
    for (const node of this.list.nodes()) this.nodeMap.set(node.id, node);

    this.frontier = new RequestQueueWithSitemap({
      queue: this.queue,
      list: this.list,
      filter: (init) => this.decide(init),
    });
  }

  /** Where the crawler stands: idle, running, pausing, paused, stopping, stopped, finished, failed. */
  get state(): CrawlerRunState {
    return this.runState;
  }

  /** Requests being fetched right now. */
  inFlight(): number {
    return this.active.size;
  }

  /** The sitemap tree as known now (robots.txt nodes included). */
  nodes(): SitemapNode[] {
    return [...this.nodeMap.values()];
  }

  /**
   * JSON-serialisable state of what is not in the journals: where the sitemap list is, not its tree
   * (nodes changed since they were last reported are reported first: the journal has the tree).
   */
  checkpoint(): CrawlerCheckpoint {
    const cp: CrawlerCheckpoint = { sitemapList: this.list.checkpointState(), robots: { ...this.robotsSaved }, seeded: this.seeded };
    if (this.site) cp.site = this.site;
    return cp;
  }

  /** Crawls until finished, paused or stopped. Call again after a pause to continue. */
  run(): Promise<CrawlerOutcome> {
    if (this.running) return this.running;
    if (isTerminalState(this.runState)) return Promise.resolve(this.runState);
    this.runState = 'running';
    this.running = this.loop().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Lets requests in flight finish and starts none; resolves when the crawler has paused. */
  async pause(): Promise<void> {
    if (this.runState === 'running') this.runState = 'pausing';
    if (this.running) await this.running;
  }

  /** Ends the crawl for good; requests in flight finish first. */
  async stop(): Promise<void> {
    if (this.runState === 'running' || this.runState === 'pausing') this.runState = 'stopping';
    if (this.running) await this.running;
    else if (this.runState === 'idle' || this.runState === 'paused') {
      this.runState = 'stopped';
      // A paused crawler still holds the sitemap it was reading (its spool file) open.
      await this.list.close();
    }
    if (this.ownsFetcher) this.fetcher.close();
  }

  /** Releases what a paused crawler holds open (the sitemap being read, sockets); it can still be checkpointed. */
  async dispose(): Promise<void> {
    await this.list.close();
    if (this.ownsFetcher) this.fetcher.close();
  }

  /** Why the crawl failed, when it did. */
  error(): EngineError | null {
    return this.failure;
  }

  private async loop(): Promise<CrawlerOutcome> {
    try {
      if (this.settings.mode === 'list' && !this.listScope) await this.readList(!this.seeded);
      if (!this.seeded) {
        await this.seed();
        this.seeded = true;
      }
      while (this.runState === 'running') {
        if (this.active.size >= Math.max(1, this.settings.concurrency)) {
          await Promise.race(this.active);
          continue;
        }
        const req = await this.frontier.fetchNextRequest();
        if (this.runState !== 'running') {
          if (req) this.frontier.reclaimRequest(req, { forefront: true });
          break;
        }
        if (!req) {
          if (this.active.size > 0) {
            await Promise.race(this.active);
            continue;
          }
          if (await this.frontier.isFinished()) break;
          continue;
        }
        const task: Promise<void> = this.handle(req).finally(() => this.active.delete(task));
        this.active.add(task);
      }
      await Promise.allSettled([...this.active]);
    } catch (err) {
      await Promise.allSettled([...this.active]);
      this.failure = asEngineError(err, 'CRAWLER_FAILED');
      this.log('error', this.failure.code, this.failure.message);
      if (this.ownsFetcher) this.fetcher.close();
      this.runState = 'failed';
      await this.list.close();
      return 'failed';
    }

    if (this.runState === 'pausing') {
      this.runState = 'paused';
      return 'paused';
    }
    if (this.runState === 'stopping') {
      this.runState = 'stopped';
      await this.dispose();
      return 'stopped';
    }
    if (this.startFailure && this.fetchedOk === 0 && this.queue.totalCount() <= 1 && this.nodeMap.size <= 1) {
      this.failure = new EngineError(
        'START_UNREACHABLE',
        `The start URL could not be reached (${this.startFailure.code}: ${this.startFailure.message}). ` +
          'Check the address and your connection, then start the crawl again.',
      );
      this.runState = 'failed';
      await this.dispose();
      return 'failed';
    }
    this.runState = 'finished';
    await this.dispose();
    return 'finished';
  }

  // ---------------------------------------------------------------- seeding

  private async seed(): Promise<void> {
    const s = this.settings;
    const explicit = s.sitemapUrls.map((u) => normaliseOrThrow(u, 'sitemap URL'));
    if (s.mode === 'list') {
      // The list was admitted by readList; sitemaps given explicitly are read, robots.txt's are not.
      if (s.useSitemaps && explicit.length > 0) {
        this.list.prepare();
        for (const url of explicit) this.list.addSitemap(url, { parentId: null });
      }
      return;
    }
    const start = s.startUrl ? normaliseOrThrow(s.startUrl, 'start URL') : null;
    if (!start && explicit.length === 0) {
      throw new EngineError('NO_START', 'Give a start URL or at least one sitemap URL.');
    }

    if (start) await this.followStart(start);
    // robots.txt and the usual sitemap locations of the site the start URL leads to.
    const origin = this.site?.url ?? start;

    // Links only (!useSitemaps): robots.txt rules still apply (loaded lazily), its sitemaps are not read.
    if (s.useSitemaps) {
      // The parse worker loads while robots.txt is fetched.
      this.list.prepare();
      if (explicit.length > 0) {
        // Given sitemaps explicitly: robots.txt discovery is skipped (its rules still apply, fetched lazily).
        for (const url of explicit) this.list.addSitemap(url, { parentId: null });
      } else if (origin) {
        const robotsNodeId = await this.seedFromRobots(origin);
        if (this.list.nodes().length === 0) await this.seedDefaultSitemaps(origin, robotsNodeId);
      }
    }

    if (start && s.fetchPages) {
      this.admit({ url: start, source: 'start', depth: 0 });
    }
  }

  /**
   * Follows the start URL's redirects, hop by hop, before anything else is read. When they leave its
   * origin, the crawl is of the site they lead to (this.site): a site typed as `example.com` that
   * answers on `https://www.example.com/` is crawled there, its robots.txt and sitemaps read from
   * there, and the audit checks its sitemaps against that origin. The probe asks with HEAD (no page
   * is fetched twice, none in a listing run) and is not recorded: the start URL is then fetched as any
   * URL, its redirect a row of its own. Stops at the first answer that is not a redirect (a server
   * that refuses HEAD leaves the start URL the site, as it would be without the probe), a URL
   * robots.txt disallows, a loop, a failure (reported by the start URL's own fetch) or MAX_START_HOPS.
   */
  private async followStart(start: string): Promise<void> {
    const hosts = [hostOf(start)];
    const seen = new Set([safeKey(start)]);
    let url = start;
    for (let hop = 0; hop < MAX_START_HOPS; hop++) {
      if (!(await this.isAllowed(url))) break;
      let res: FetchResponse;
      try {
        res = await this.fetcher.fetch(url, { method: 'HEAD', accept: PAGE_ACCEPT, followRedirects: false });
      } catch {
        break;
      }
      const location = res.status >= 300 && res.status < 400 ? res.headers.location : undefined;
      await drain(res.body, res);
      const next = location === undefined ? null : resolveUrl(location.trim(), url);
      if (next === null || seen.has(safeKey(next))) break;
      seen.add(safeKey(next));
      url = next;
      const host = hostOf(next);
      if (!hosts.includes(host)) hosts.push(host);
    }
    if (originOf(url) === originOf(start)) return;
    this.site = { url, hosts };
    this.scopeTestFn = undefined;
    this.log(
      'info',
      'START_REDIRECTED',
      `The start URL ${start} redirects to ${url}: the crawl reads that site's robots.txt and sitemaps, and its scope takes in ${hosts.length === 1 ? `the host ${hosts[0]}` : `the hosts ${hosts.slice(0, -1).join(', ')} and ${hosts[hosts.length - 1]}`}.`,
      url,
    );
  }

  /**
   * List mode: reads the list through, learning its hosts (the crawl's scope) and, when `admit`, admitting
   * each URL as a 'start' URL at depth 0, in the list's order. A URL already in the frontier (admitted
   * before a kill cut the first run's seeding short) is not admitted again.
   */
  private async readList(admit: boolean): Promise<void> {
    if (!this.listUrls) throw new EngineError('NO_LIST', 'This list crawl has no URL list to fetch; create it again from the list.');
    const byDomain = this.settings.scope === 'domain';
    const scope = new Set<string>();
    const hosts = new Set<string>();
    let lastHost = '';
    for await (const url of this.listUrls()) {
      const host = hostnameOfHref(url);
      if (host !== lastHost && !hosts.has(host)) {
        hosts.add(host);
        scope.add(byDomain ? registrableDomain(host) : host);
      }
      lastHost = host;
      if (!admit) continue;
      const key = tryKey(url);
      if (key !== null && this.queue.has(key)) continue;
      this.admit(key === null ? { url, source: 'start', depth: 0 } : { url, uniqueKey: key, source: 'start', depth: 0 });
    }
    this.listScope = scope;
  }

  /** Fetches robots.txt for the start origin, adds its node and its sitemaps; returns the node id. */
  private async seedFromRobots(start: string): Promise<string> {
    const robotsUrl = robotsUrlFor(start);
    await this.robotsFor(start);
    const saved = this.robotsSaved[originOf(start)];
    const robots = await this.robots.get(originOf(start));
    const id = toUniqueKey(robotsUrl);
    if (saved?.outcome === 'disallow-all' && saved.status === undefined) {
      // No HTTP answer at all: the host itself is unreachable, so there is nothing to crawl.
      throw new EngineError(
        'START_UNREACHABLE',
        `The site at ${originOf(start)} did not answer (not even ${robotsUrl}). Check the address and your connection, then start the crawl again.`,
      );
    }
    const sitemaps = robots?.sitemaps ?? [];
    this.emitNode({
      id,
      url: robotsUrl,
      parentId: null,
      type: 'robots',
      state: saved?.outcome === 'disallow-all' ? 'error' : 'done',
      httpStatus: saved?.status,
      bytes: saved?.body ? Buffer.byteLength(saved.body) : 0,
      uncompressedBytes: saved?.body ? Buffer.byteLength(saved.body) : 0,
      gzip: false,
      urlCount: 0,
      childCount: sitemaps.length,
      problems: this.robotsProblems.get(originOf(start)) ?? [],
    });
    // Announced in robots.txt: each may list any URL of this host (sitemaps.org, cross-submits).
    const scope = originOf(start) + '/';
    for (const sm of sitemaps) this.list.addSitemap(sm, { parentId: id, scope });
    return id;
  }

  /** Where robots.txt lists no sitemap, tries the usual locations and keeps those that answer 2xx. */
  private async seedDefaultSitemaps(start: string, robotsNodeId: string): Promise<void> {
    for (const path of DEFAULT_SITEMAP_PATHS) {
      const url = new URL(path, start).href;
      if (this.settings.respectRobots && !(await this.isAllowed(url))) continue;
      let res: FetchResponse;
      try {
        // A sitemap's body cap and timeouts, however it was found.
        res = await this.fetcher.fetch(url, this.list.sitemapFetchOptions());
      } catch (err) {
        this.log('info', 'DEFAULT_SITEMAP_UNREACHABLE', `No sitemap at ${url}: ${asEngineError(err, 'NETWORK_ERROR').message}`, url);
        continue;
      }
      if (res.status >= 200 && res.status < 300) {
        // Handed over as is: the list spools the body to disk at once (never held in memory).
        this.list.addSitemap(res.finalUrl, { parentId: robotsNodeId, response: res });
        this.log('info', 'DEFAULT_SITEMAP_FOUND', `robots.txt lists no sitemap; found one at ${res.finalUrl}.`, url);
      } else {
        res.body.destroy();
        this.log('info', 'DEFAULT_SITEMAP_ABSENT', `robots.txt lists no sitemap and ${url} answered ${res.status}.`, url);
      }
    }
  }

  // ---------------------------------------------------------------- robots

  /** robots.txt of the URL's origin, fetched once; null means allow all. */
  private robotsFor(url: string): Promise<RobotsTxt | null> {
    const origin = originOf(url);
    let p = this.robots.get(origin);
    if (!p) {
      p = this.loadRobots(origin);
      this.robots.set(origin, p);
    }
    return p;
  }

  private async loadRobots(origin: string): Promise<RobotsTxt | null> {
    const robotsUrl = robotsUrlFor(origin + '/');
    const res = await fetchRobotsTxt(this.fetcher, robotsUrl);
    this.robotsSaved[origin] = { status: res.httpStatus, body: res.body, outcome: res.outcome };
    if (res.problem) {
      this.robotsProblems.set(origin, [res.problem]);
      this.log(res.outcome === 'disallow-all' ? 'error' : 'info', res.problem.code, res.problem.message, robotsUrl);
    }
    const delay = res.robots.crawlDelay(this.settings.userAgent);
    if (delay && delay > 0) {
      const capped = Math.min(delay, MAX_CRAWL_DELAY_S);
      const withDelay = this.fetcher as HttpFetcher & { setHostDelay?(host: string, ms: number): void };
      withDelay.setHostDelay?.(hostOf(origin + '/'), Math.max(this.settings.delayMs, capped * 1000));
      if (capped < delay) {
        this.log('warning', 'CRAWL_DELAY_CAPPED', `robots.txt asks for a ${delay}s crawl delay; Spinneret waits ${capped}s.`, robotsUrl);
      }
    }
    return res.robots;
  }

  private async isAllowed(url: string): Promise<boolean> {
    if (!this.settings.respectRobots) return true;
    const robots = await this.robotsFor(url);
    return robots ? robots.isAllowed(url, this.settings.userAgent) : true;
  }

  /** Synchronous check for sitemap URLs: origins whose robots.txt is not loaded yet are allowed. */
  private isAllowedCached(url: string): boolean {
    if (!this.settings.respectRobots) return true;
    const saved = this.robotsSaved[originOf(url)];
    if (!saved) return true;
    if (saved.outcome === 'disallow-all') return false;
    if (saved.outcome === 'allow-all') return true;
    return robotsFromCheckpoint(saved).isAllowed(url, this.settings.userAgent);
  }

  /**
   * A sitemap's redirect hop is followed only into the crawl's scope (or on the host it leaves: a
   * sitemap host of its own) and where robots.txt allows it; otherwise the sitemap fails with why.
   */
  private async checkSitemapHop(next: string, from: string): Promise<void> {
    let sameHost = false;
    try {
      sameHost = new URL(next).hostname === new URL(from).hostname;
    } catch {
      // an unparsable hop is refused by the fetcher itself
    }
    if (!sameHost && !this.inScope(next)) {
      throw new EngineError('REDIRECT_OUT_OF_SCOPE', `${from} redirects to ${next}, outside the crawl's scope (${this.settings.scope}): not followed.`);
    }
    if (!(await this.isAllowed(next))) {
      throw new EngineError('REDIRECT_DISALLOWED', `${from} redirects to ${next}, which robots.txt disallows: not fetched.`);
    }
  }

  // ---------------------------------------------------------------- admission

  /** Decides what happens to a URL about to enter the frontier. */
  private decide(init: RequestInit): 'queued' | 'listed' | 'skip' {
    const s = this.settings;
    if (s.maxUrls !== null && this.queue.totalCount() >= s.maxUrls && !this.queue.has(init.uniqueKey ?? safeKey(init.url))) {
      return 'skip';
    }
    if (!this.filter.matches(init.url)) return 'skip';
    let state: 'queued' | 'listed' = 'queued';
    if (!s.fetchPages) state = 'listed';
    else if (init.source !== 'start' && !this.inScope(init.url)) state = 'listed';
    else if (s.maxDepth !== null && init.depth > s.maxDepth) state = 'listed';
    return state;
  }

  private scopeAnchor(): string {
    return this.settings.startUrl || this.settings.sitemapUrls[0] || '';
  }

  /** Whether a URL is in the crawl's scope (scope.ts's inScope, its start host worked out once). */
  private inScope(url: string): boolean {
    if (this.listScope) return this.inListScope(url);
    return (this.scopeTestFn ??= scopeTest(this.scopeAnchor(), this.settings.scope, this.site?.hosts))(url);
  }

  /** List mode's scope: a URL on one of the list's hosts (or their registrable domains; 'any': every URL). */
  private inListScope(url: string): boolean {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return false;
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
    const mode = this.settings.scope;
    if (mode === 'any') return true;
    return this.listScope!.has(mode === 'domain' ? registrableDomain(u.hostname) : u.hostname);
  }

  private admit(init: RequestInit): void {
    try {
      const decision = this.decide(init);
      if (decision === 'skip') return;
      this.frontier.addRequest(init, decision);
    } catch (err) {
      const e = asEngineError(err, 'INVALID_URL');
      this.log('warning', e.code, `Skipped ${init.url}: ${e.message}`, init.discoveredFrom);
    }
  }

  // ---------------------------------------------------------------- handling

  private async handle(req: Request): Promise<void> {
    this.hooks.onFetching?.(req);
    try {
      if (!(await this.isAllowed(req.url))) {
        this.finish(req, 'blocked', { blockedByRobots: true });
        return;
      }
      const rb = this.recrawl;
      if (rb?.unchanged?.(req)) {
        // Changed-only: its lastmod did not move and it did not fail last time: kept without a request.
        const kept = await rb.carried(req.uniqueKey);
        if (kept) return this.keep(req, kept, false);
      }
      const pageFetch = {
        accept: PAGE_ACCEPT,
        followRedirects: false,
        // The page may turn out to be a sitemap: the fetch takes a sitemap's cap, and an HTML
        // page is held to its own cap when read (route).
        maxBodyBytes: this.settings.useSitemaps
          ? Math.max(this.settings.maxBodyBytes, this.list.sitemapFetchOptions().maxBodyBytes ?? 0)
          : this.settings.maxBodyBytes,
      };
      let res: FetchResponse;
      try {
        const conditional = rb?.validators(req.uniqueKey);
        res = await this.fetcher.fetch(req.url, conditional ? { ...pageFetch, conditional } : pageFetch);
        if (res.status === 304 && conditional) {
          await drain(res.body, res);
          const kept = await rb!.carried(req.uniqueKey);
          if (kept) return this.keep(req, kept, true);
          // The base's answer cannot be read back (its folder is gone): fetched again in full.
          res = await this.fetcher.fetch(req.url, pageFetch);
        }
      } catch (err) {
        const e = asEngineError(err, 'NETWORK_ERROR');
        if (req.source === 'start') this.startFailure = e;
        this.finish(req, 'error', { error: { code: e.code, message: e.message } });
        this.log('error', e.code, e.message, req.url);
        return;
      }
      await this.route(req, res).catch((err) => {
        const e = asEngineError(err, 'BODY_FAILED');
        res.body.destroy();
        this.finish(
          req,
          'error',
          {
            status: res.status,
            contentType: res.headers['content-type'],
            redirectChain: res.redirectChain.length ? res.redirectChain : undefined,
            error: { code: e.code, message: e.message },
            fetchedAt: this.now(),
          },
          responseFacts(res),
        );
        this.log('error', e.code, `${e.message} (${req.url})`, req.url);
      });
    } catch (err) {
      const e = asEngineError(err, 'HANDLER_FAILED');
      this.finish(req, 'error', { error: { code: e.code, message: e.message } });
      this.log('error', e.code, e.message, req.url);
    }
  }

  /** Routes a response by what it is: redirect, sitemap/feed, HTML page, or anything else. */
  private async route(req: Request, res: FetchResponse): Promise<void> {
    // Each reader below listens for the body's errors while it reads; this keeps one that comes before or
    // between readers (a body that failed to decode, one refused unread) from being an uncaught exception.
    res.body.on('error', ignoreBodyError);
    const contentType = res.headers['content-type'];
    const xRobotsTag = res.headers['x-robots-tag'];
    const base: UrlResult = {
      status: res.status,
      contentType,
      xRobotsTag,
      fetchedAt: this.now(),
    };
    if (res.status >= 300 && res.status < 400) {
      // Recorded as SEO crawlers do: the URL keeps its own 3xx and Location; the target is a URL of its own.
      // A small redirect body is drained, so its socket is reused; nobody reads it, so its errors are dropped.
      base.durationMs = res.elapsedMs();
      const location = res.headers.location;
      const target = location === undefined ? null : resolveUrl(location.trim(), req.url);
      if (target !== null) base.redirectTo = target;
      else if (location !== undefined) {
        base.error = { code: 'INVALID_REDIRECT', message: `${req.url} redirects to "${location}", which is not a valid http(s) URL.` };
      }
      await drain(res.body, res);
      this.finish(req, 'done', base, responseFacts(res));
      if (target !== null && safeKey(target) !== req.uniqueKey) {
        // A redirect is not a click: the target keeps the depth of the URL that redirects to it.
        this.admit({ url: target, source: 'redirect', depth: req.depth, discoveredFrom: req.url });
      }
      return;
    }
    if (res.status < 200 || res.status >= 300) {
      base.durationMs = res.elapsedMs();
      await drain(res.body, res);
      this.finish(req, 'done', base, responseFacts(res));
      return;
    }

    const { kind, body } = await classifyBody(res.body, contentType);
    if (kind === 'sitemap' && this.settings.useSitemaps) {
      // XML reached by any link is a sitemap or feed: handed to the list, which spools it to disk at once
      // and reads it as one (its size and counts are on its tree node), with a sitemap's timeouts.
      const t = this.list.sitemapFetchOptions();
      res.setTimeouts?.({ timeoutMs: t.timeoutMs, idleTimeoutMs: t.idleTimeoutMs });
      base.durationMs = res.elapsedMs();
      // Its body is the list's to read: only the headers are known yet.
      this.finish(req, 'done', base, responseFacts(res));
      this.list.addSitemap(res.finalUrl, { parentId: null, response: { ...res, body } });
      return;
    }
    const declared = Number(res.headers['content-length']);
    if (kind === 'html' && declared > this.settings.maxBodyBytes) {
      // Said up front: refused without reading it (the fetch itself allowed a sitemap's size).
      throw new EngineError(
        'EBODY_TOO_LARGE',
        `The page declares ${declared} bytes, more than the ${this.settings.maxBodyBytes}-byte limit; raise "max body size" to read it.`,
      );
    }
    if (kind !== 'html') {
      base.durationMs = res.elapsedMs();
      await drain(body, res);
      this.finish(req, 'done', base, responseFacts(res));
      return;
    }

    const buf = await readBody(body, this.settings.maxBodyBytes);
    const html = decodeBody(buf, contentType);
    const page = extractPageInfo(html, res.finalUrl);
    const result: UrlResult = {
      ...base,
      bytes: buf.length,
      durationMs: res.elapsedMs(),
      title: page.title,
      canonical: page.canonical,
      metaRobots: page.metaRobots,
      hreflang: page.hreflang.length ? page.hreflang : undefined,
    };
    this.finish(req, 'done', result, { ...responseFacts(res), ...pageFacts(page) });

    const pageNofollow = (page.metaRobots && parseRobotsDirectives(page.metaRobots).nofollow) || (xRobotsTag && parseRobotsDirectives(xRobotsTag).nofollow);
    if (this.settings.followLinks && !pageNofollow) this.admitLinks(req, page);
    // In the same synchronous step as the result and the admissions: one journal batch holds all three.
    if (this.hooks.onPageLinks) this.hooks.onPageLinks(req, this.recordedLinks(page, !!pageNofollow));
  }

  /** The page's `<a>`/`<area>` links as onPageLinks reports them. */
  private recordedLinks(page: PageInfo, pageNofollow: boolean): RecordedLink[] {
    const keys = this.pageKeys;
    const out: RecordedLink[] = [];
    for (const a of page.anchors) {
      // The admission just worked the key out for most of them.
      const key = keys.get(a.url);
      out.push({
        url: a.url,
        uniqueKey: key !== undefined ? key : tryKey(a.url),
        anchor: a.anchor ?? '',
        nofollow: a.nofollow || pageNofollow,
        external: !this.inScope(a.url),
      });
    }
    keys.clear();
    return out;
  }

  /** Admits what a followed page links to and refers to. */
  private admitLinks(req: Request, page: PageInfo): void {
    this.pageKeys.clear();
    const depth = req.depth + 1;
    const hreflangTargets = new Set(page.hreflang.map((a) => a.href));
    for (const link of page.links) {
      if (link.nofollow) continue;
      const source = linkSource(link, page.canonical, hreflangTargets);
      // The canonical and the alternates are admitted below, nofollow or not.
      if (source === 'canonical' || source === 'hreflang') continue;
      this.admitFromPage(req, link.url, source, depth);
    }
    if (page.canonical) this.admitFromPage(req, page.canonical, 'canonical', depth);
    for (const alt of page.hreflang) this.admitFromPage(req, alt.href, 'hreflang', depth);
  }

  /** Admits what a page refers to; a reference to the page itself is no discovery (nor an inlink). */
  private admitFromPage(page: Request, url: string, source: RequestSource, depth: number): void {
    const key = tryKey(url);
    this.pageKeys.set(url, key);
    if (key === page.uniqueKey) return;
    this.admit(key === null ? { url, source, depth, discoveredFrom: page.url } : { url, uniqueKey: key, source, depth, discoveredFrom: page.url });
  }

  /**
   * Recrawl: the base's answer for `req` becomes this crawl's, marked carried over (and not modified
   * when the server said so), and what it led to re-enters the frontier as if the page had just been
   * fetched: its redirect target, and a page's links, canonical, alternates and references.
   */
  private keep(req: Request, kept: CarriedPage, notModified: boolean): void {
    const result: UrlResult = { ...kept.result, carriedOver: true };
    if (notModified) result.notModified = true;
    else delete result.notModified;
    this.finish(req, kept.state, result, kept.facts);
    const status = result.status ?? 0;
    if (status >= 300 && status < 400 && result.redirectTo !== undefined && safeKey(result.redirectTo) !== req.uniqueKey) {
      this.admit({ url: result.redirectTo, source: 'redirect', depth: req.depth, discoveredFrom: req.url });
    }
    const links = kept.links;
    if (links === undefined) return;
    const xRobotsTag = result.xRobotsTag;
    const pageNofollow = !!(
      (result.metaRobots && parseRobotsDirectives(result.metaRobots).nofollow) ||
      (xRobotsTag && parseRobotsDirectives(xRobotsTag).nofollow)
    );
    this.pageKeys.clear();
    if (this.settings.followLinks && !pageNofollow) {
      const depth = req.depth + 1;
      // Each URL once, in document order, followed when any of its links is (as extractPageInfo merges them).
      const followed = new Set<string>();
      for (const l of links) if (!l.nofollow) followed.add(l.url);
      for (const url of followed) this.admitFromPage(req, url, 'link', depth);
      for (const url of kept.references ?? []) this.admitFromPage(req, url, 'reference', depth);
      if (result.canonical) this.admitFromPage(req, result.canonical, 'canonical', depth);
      for (const alt of result.hreflang ?? []) this.admitFromPage(req, alt.href, 'hreflang', depth);
    }
    if (this.hooks.onPageLinks) {
      const out: RecordedLink[] = [];
      for (const l of links) {
        const key = this.pageKeys.get(l.url);
        out.push({
          url: l.url,
          uniqueKey: key !== undefined ? key : tryKey(l.url),
          anchor: l.anchor,
          nofollow: l.nofollow || pageNofollow,
          external: !this.inScope(l.url),
        });
      }
      this.pageKeys.clear();
      this.hooks.onPageLinks(req, out);
    }
  }

  private finish(req: Request, state: 'done' | 'error' | 'blocked', result: UrlResult, facts?: ResultFacts): void {
    if (this.finished.has(req)) return;
    this.finished.add(req);
    if (state === 'done' && result.status !== undefined && result.status < 400) this.fetchedOk++;
    this.hooks.onResult?.(req, state, result, facts);
    this.frontier.markRequestHandled(req);
  }

  // ---------------------------------------------------------------- reporting

  private emitNode(node: SitemapNode): void {
    this.nodeMap.set(node.id, node);
    this.hooks.onNode?.(node);
    if (node.state === 'error') {
      const p = node.problems[node.problems.length - 1];
      this.log('error', p?.code ?? 'SITEMAP_ERROR', p ? `${p.message}` : `Sitemap ${node.url} failed.`, node.url);
    }
  }

  /** A sitemap problem its node did not store: into the crawl log, within the limits above. */
  private logSitemapProblem(nodeId: string, p: Problem): void {
    const url = this.nodeMap.get(nodeId)?.url ?? nodeId;
    const n = (this.problemsLogged.get(nodeId) ?? 0) + 1;
    this.problemsLogged.set(nodeId, n);
    if (n > MAX_LOGGED_PROBLEMS_PER_SITEMAP + 1 || this.problemsLoggedTotal > MAX_LOGGED_SITEMAP_PROBLEMS) return;
    this.problemsLoggedTotal++;
    if (this.problemsLoggedTotal > MAX_LOGGED_SITEMAP_PROBLEMS) {
      this.log(
        'warning',
        'SITEMAP_PROBLEMS_NOT_LOGGED',
        `More than ${MAX_LOGGED_SITEMAP_PROBLEMS} sitemap problems in this crawl: the rest are only counted on their sitemaps' nodes.`,
      );
    } else if (n > MAX_LOGGED_PROBLEMS_PER_SITEMAP) {
      this.log(
        'warning',
        'SITEMAP_PROBLEMS_NOT_LOGGED',
        `${url} has more problems than the log keeps for one sitemap (${MAX_LOGGED_PROBLEMS_PER_SITEMAP}); the rest are only counted on its node.`,
        url,
      );
    } else {
      this.log('warning', p.code, p.url && p.url !== url ? `${p.message} (${p.url})` : p.message, url);
    }
  }

  private log(level: CrawlLogEntry['level'], code: string, message: string, url?: string): void {
    this.hooks.onLog?.({ at: this.now(), level, code, message, url });
  }
}

function fetcherOptionsFrom(s: CrawlSettings) {
  return {
    userAgent: s.userAgent,
    timeoutMs: s.timeoutMs,
    idleTimeoutMs: s.idleTimeoutMs,
    connectTimeoutMs: s.connectTimeoutMs,
    retries: s.retries,
    maxBodyBytes: s.maxBodyBytes,
    perHostConcurrency: s.perHostConcurrency,
    delayMs: s.delayMs,
    concurrency: s.concurrency,
  };
}

/** A checkpoint's site, when it has the shape this version writes (a damaged one is not trusted). */
function siteFromCheckpoint(site: unknown): CrawlSite | null {
  const s = site as Partial<CrawlSite> | undefined;
  if (typeof s?.url !== 'string' || !Array.isArray(s.hosts) || !s.hosts.every((h) => typeof h === 'string')) return null;
  return { url: s.url, hosts: [...s.hosts] };
}

/** Listens for a body's error that its readers report, or that nobody needs (a body cut unread). */
function ignoreBodyError(): void {}

/**
 * Reads a body nobody keeps to its end when it is at most DRAIN_LIMIT_BYTES, or cuts it (at once when
 * its Content-Length says it is longer); never throws: a body that fails is only not measured.
 * `body` may wrap the response's own stream (classifyBody's), which is then cut too.
 */
async function drain(body: Readable, res: FetchResponse): Promise<void> {
  const cut = () => {
    body.destroy();
    res.body.destroy();
  };
  // Nobody reads what this body says: an error after it is cut must not go uncaught.
  body.on('error', ignoreBodyError);
  res.body.on('error', ignoreBodyError);
  if (Number(res.headers['content-length']) > DRAIN_LIMIT_BYTES) return cut();
  let seen = 0;
  try {
    for await (const chunk of body) {
      seen += (chunk as Buffer).length;
      if (seen > DRAIN_LIMIT_BYTES) return cut();
    }
  } catch {
    cut();
  }
}

/** A response's facts: its Last-Modified and ETag, and its time and sizes once its body was received in full. */
function responseFacts(res: FetchResponse): ResultFacts {
  const facts: ResultFacts = {};
  const time = res.responseTimeMs?.();
  if (time !== undefined) {
    facts.responseTimeMs = Math.round(time);
    facts.wireBytes = res.wireBytes();
    const bodyBytes = res.bodyBytes?.();
    if (bodyBytes !== undefined) facts.bodyBytes = bodyBytes;
  }
  const lastModified = res.headers['last-modified'];
  if (lastModified !== undefined) facts.lastModified = lastModified;
  const etag = res.headers.etag;
  if (etag !== undefined) facts.etag = etag;
  return facts;
}

/** The on-page fields of a page's PageInfo, for onResult. */
function pageFacts(page: PageInfo): ResultFacts {
  const facts: ResultFacts = {
    metaDescriptionCount: page.metaDescriptionCount,
    h1Count: page.h1Count,
    wordCount: page.wordCount,
    contentHash: page.contentHash,
  };
  if (page.metaDescription !== undefined) facts.metaDescription = page.metaDescription;
  if (page.h1 !== undefined) facts.h1 = page.h1;
  if (page.lang !== undefined) facts.lang = page.lang;
  return facts;
}

/** The host name of a normalised http(s) href (what new URL(href).hostname is), without parsing it again. */
function hostnameOfHref(href: string): string {
  const from = href.indexOf('//') + 2;
  const slash = href.indexOf('/', from);
  const authority = href.slice(from, slash < 0 ? undefined : slash);
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

function normaliseOrThrow(url: string, what: string): string {
  try {
    const u = new URL(url.trim());
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
    return u.href;
  } catch {
    throw new EngineError('INVALID_URL', `The ${what} "${url}" is not a valid http(s) address.`);
  }
}

/** How a page refers to a link: an anchor (an inlink), its canonical, an hreflang alternate, or another reference. */
function linkSource(link: PageLink, canonical: string | undefined, hreflang: Set<string>): RequestSource {
  if (link.tag === 'a' || link.tag === 'area') return 'link';
  if (link.tag === 'link') {
    if (link.url === canonical) return 'canonical';
    if (hreflang.has(link.url)) return 'hreflang';
  }
  return 'reference';
}

function tryKey(url: string): string | null {
  try {
    return toUniqueKey(url);
  } catch {
    return null;
  }
}

function safeKey(url: string): string {
  try {
    return toUniqueKey(url);
  } catch {
    return url;
  }
}

/** `err` as an EngineError, with `fallback` as its code when it has none. */
export function asEngineError(err: unknown, fallback: string): EngineError {
  if (err instanceof EngineError) return err;
  const e = err as { code?: string; message?: string };
  return new EngineError(typeof e?.code === 'string' ? e.code : fallback, e?.message ?? String(err), { cause: err });
}
