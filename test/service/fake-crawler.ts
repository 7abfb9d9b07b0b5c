/**
 * A deterministic stand-in for the engine's Crawler, driving the real MemoryRequestQueue and the
 * service's hooks the way the crawler does: seeding (robots node, start URL), sitemap entries handed
 * out in a fixed order (its checkpoint is the position in that order, so a resume hands out again
 * what came after it), then "fetching" pages (a result and its links in one synchronous step).
 * Every `step` events it yields a macrotask, where the service may cut a batch and tests may act.
 */
import type { SitemapNode, SitemapUrlEntry } from '../../shared/model.js';
import { asEngineError, isTerminalState, type CrawlerOptions } from '../../electron/engine/crawler/crawler.js';
import { MemoryRequestQueue } from '../../electron/engine/frontier/request-queue.js';
import { EngineError, type CrawlerCheckpoint, type CrawlerHooks, type CrawlerRunState, type Request } from '../../electron/engine/types.js';
import type { CrawlerLike, CrawlerOutcome } from '../../electron/service/crawl-runtime.js';

export interface FakeSitemap {
  url: string;
  entries: SitemapUrlEntry[];
}

export interface FakePlan {
  origin: string;
  sitemaps: FakeSitemap[];
  /** Fetch admitted URLs (results + links); otherwise they are admitted 'listed'. */
  fetchPages: boolean;
  /** Links found on a fetched page. */
  links?(url: string): string[];
  /** Events per macrotask. Default 7. */
  step?: number;
  /** Wait this long at each yield (0: setImmediate). */
  yieldMs?: number;
  /** Called at every yield (a macrotask boundary), with the number of events so far. */
  onYield?(events: number, crawler: FakeCrawler): void;
  /** Title of a fetched page. */
  title?(url: string): string;
  /** Fail the crawl at this event (as the real crawler does when its loop throws): state and outcome 'failed'. */
  failAt?: { event: number; code: string; message: string };
}

/** Builds `n` sitemap URLs spread over `k` sitemaps, each with lastmod/changefreq/priority. */
export function sitemapPlan(origin: string, n: number, k: number): FakeSitemap[] {
  const out: FakeSitemap[] = [];
  for (let s = 0; s < k; s++) out.push({ url: `${origin}/sitemap-${s}.xml`, entries: [] });
  for (let i = 0; i < n; i++) {
    out[i % k]!.entries.push({
      loc: `${origin}/product/item-${i}.html`,
      lastmod: `2024-0${1 + (i % 9)}-1${i % 10}T10:00:00+00:00`,
      changefreq: i % 3 === 0 ? 'weekly' : 'daily',
      priority: (i % 11) / 10,
    });
  }
  return out;
}

export class FakeCrawler implements CrawlerLike {
  readonly queue: MemoryRequestQueue;
  private runState: CrawlerRunState = 'idle';
  private pos: number;
  private seeded: boolean;
  private events = 0;
  private running: Promise<CrawlerOutcome> | null = null;
  private readonly hooks: CrawlerHooks;
  private readonly flat: { sm: FakeSitemap; entry: SitemapUrlEntry; last: boolean }[] = [];
  private readonly nodes = new Map<string, SitemapNode>();
  private admitAs: 'queued' | 'listed' = 'queued';
  private failure: EngineError | null = null;
  fetched: string[] = [];

  constructor(
    opts: CrawlerOptions,
    private readonly plan: FakePlan,
  ) {
    this.hooks = opts.hooks;
    this.queue = opts.queue ?? new MemoryRequestQueue();
    this.queue.setHooks({
      onAdmitted: (req) => this.hooks.onAdmitted?.(req, this.admitAs),
      onDuplicate: (id, d, init) => this.hooks.onDuplicate?.(id, d, init),
    });
    const cp = opts.checkpoint?.sitemapList as { pos: number } | undefined;
    this.pos = cp?.pos ?? 0;
    this.seeded = opts.checkpoint?.seeded ?? false;
    for (const sm of plan.sitemaps) sm.entries.forEach((entry, i) => this.flat.push({ sm, entry, last: i === sm.entries.length - 1 }));
  }

  get state(): CrawlerRunState {
    return this.runState;
  }

  checkpoint(): CrawlerCheckpoint {
    return { sitemapList: { pos: this.pos }, robots: {}, seeded: this.seeded };
  }

  inFlight(): number {
    return 0;
  }

  error(): EngineError | null {
    return this.failure;
  }

  // The lifecycle is the real Crawler's (electron/engine/crawler/crawler.ts): the same states and moves.
  run(): Promise<CrawlerOutcome> {
    if (this.running) return this.running;
    if (isTerminalState(this.runState)) return Promise.resolve(this.runState);
    this.runState = 'running';
    this.running = this.guarded().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  async pause(): Promise<void> {
    if (this.runState === 'running') this.runState = 'pausing';
    if (this.running) await this.running;
  }

  async stop(): Promise<void> {
    if (this.runState === 'running' || this.runState === 'pausing') this.runState = 'stopping';
    if (this.running) await this.running;
    else if (this.runState === 'idle' || this.runState === 'paused') this.runState = 'stopped';
  }

  /** The loop, failing as the real crawler's does: whatever it throws ends the crawl 'failed'. */
  private async guarded(): Promise<CrawlerOutcome> {
    try {
      return await this.loop();
    } catch (err) {
      this.failure = asEngineError(err, 'CRAWLER_FAILED');
      this.runState = 'failed';
      return 'failed';
    }
  }

  private async tick(): Promise<boolean> {
    this.events++;
    const fail = this.plan.failAt;
    if (fail !== undefined && this.events === fail.event) throw new EngineError(fail.code, fail.message);
    if (this.events % (this.plan.step ?? 7) !== 0) return true;
    const ms = this.plan.yieldMs ?? 0;
    await new Promise<void>((r) => (ms > 0 ? setTimeout(r, ms) : setImmediate(r)));
    this.plan.onYield?.(this.events, this);
    return this.runState === 'running';
  }

  private emitNode(n: SitemapNode): void {
    this.nodes.set(n.id, n);
    this.hooks.onNode?.({ ...n, problems: [...n.problems] });
  }

  private async loop(): Promise<CrawlerOutcome> {
    const { origin } = this.plan;
    if (!this.seeded) {
      this.emitNode(node(`${origin}/robots.txt`, null, 'robots', 'done', this.plan.sitemaps.length));
      for (const sm of this.plan.sitemaps) this.emitNode(node(sm.url, `${origin}/robots.txt`, 'unknown', 'pending', 0));
      if (this.plan.fetchPages) {
        this.admitAs = 'queued';
        this.queue.addRequest({ url: `${origin}/`, source: 'start', depth: 0 });
      }
      this.seeded = true;
      if (!(await this.tick())) return this.end();
    }
    while (this.pos < this.flat.length) {
      const { sm, entry, last } = this.flat[this.pos]!;
      this.pos++;
      this.admitAs = this.plan.fetchPages ? 'queued' : 'listed';
      this.queue.addRequest({ url: entry.loc, source: 'sitemap', depth: 0, discoveredFrom: sm.url, sitemapEntry: entry }, { handled: !this.plan.fetchPages });
      if (last) this.emitNode({ ...node(sm.url, `${origin}/robots.txt`, 'urlset', 'done', 0), urlCount: sm.entries.length });
      if (!(await this.tick())) return this.end();
    }
    if (this.plan.fetchPages) {
      for (;;) {
        const req: Request | null = this.queue.fetchNextRequest();
        if (!req) break;
        this.fetched.push(req.url);
        this.hooks.onResult?.(req, 'done', { status: 200, contentType: 'text/html', title: this.plan.title?.(req.url) ?? `T ${req.url}` });
        this.admitAs = 'queued';
        for (const link of this.plan.links?.(req.url) ?? []) {
          this.queue.addRequest({ url: link, source: 'link', depth: req.depth + 1, discoveredFrom: req.url });
        }
        this.queue.markRequestHandled(req);
        if (!(await this.tick())) return this.end();
      }
    }
    this.hooks.onLog?.({ at: 0, level: 'info', code: 'FAKE_DONE', message: 'fake crawl finished' });
    this.runState = 'finished';
    return 'finished';
  }

  private end(): CrawlerOutcome {
    if (this.runState === 'pausing') {
      this.runState = 'paused';
      return 'paused';
    }
    this.runState = 'stopped';
    return 'stopped';
  }
}

function node(url: string, parentId: string | null, type: SitemapNode['type'], state: SitemapNode['state'], childCount: number): SitemapNode {
  return { id: url, url, parentId, type, state, bytes: 0, uncompressedBytes: 0, gzip: false, urlCount: 0, childCount, problems: [] };
}
