/**
 * The recrawl piece of the benchmark: a recrawl of the ingested crawl through the service, against the
 * bench site answering 304 to every conditional sitemap request (site-server.ts sends ETag and
 * Last-Modified), timed until it holds the measured URLs (the base's, carried over from its journal,
 * no sitemap parsed again), then paused as the ingest was. The caller (bench/run.ts) passes the
 * service, the ingested crawl's id and what the site said when ready, and reports the figures.
 */
import type { LocalCrawlService } from '../electron/service/index.js';
import type { SitemapNode } from '../shared/model.js';

const MB = 1024 * 1024;
/** How often the recrawl's URL count and the RSS are read. */
const POLL_MS = 20;

export interface RecrawlBenchResult {
  /** Milliseconds from service.recrawl() to `urls` URLs in the new crawl (its base index built first, inside). */
  ms: number;
  /** URLs the recrawl held when measured (at least the site's measured URLs). */
  urls: number;
  /** Highest RSS seen while it ran, MB. */
  peakRssMB: number;
  /** The measured urlsets (and the index) the recrawl carried over rather than read: all of them, when every sitemap answers 304. */
  sitemapsCarried: number;
  /** The recrawl's id (paused when measured). */
  crawlId: string;
}

/** What the bench site said when ready (site-server.ts's SiteReady): its measured urlsets and their URLs. */
export interface RecrawlBenchSite {
  sitemaps: { path: string; entries: number }[];
  /** Distinct URLs of the measured urlsets. */
  distinct: number;
}

/**
 * Recrawls `baseId` (paused or finished; not running) and measures it until it holds the base's
 * measured URLs (`site.distinct`), then pauses it. Rejects when the recrawl ends or fails before.
 */
export async function recrawlBench(service: LocalCrawlService, baseId: string, site: RecrawlBenchSite, timeoutMs = 30 * 60_000): Promise<RecrawlBenchResult> {
  const target = site.distinct;
  let peak = process.memoryUsage.rss();
  const t0 = performance.now();
  const crawl = await service.recrawl(baseId);
  const id = crawl.id;
  let ms = NaN;
  let urls = 0;
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
      const s = service.get(id);
      urls = s.counters.discovered;
      if (urls >= target) {
        ms = performance.now() - t0;
        return done();
      }
      if (s.status === 'finished' || s.status === 'failed' || s.status === 'paused') {
        return done(new Error(`The recrawl is ${s.status} with ${urls} of ${target} URLs${s.error ? ` (${s.error.code}: ${s.error.message})` : ''}.`));
      }
      if (performance.now() - t0 > timeoutMs) done(new Error(`The recrawl holds ${urls} of ${target} URLs after ${timeoutMs} ms.`));
    }, POLL_MS);
    function done(err?: Error): void {
      clearInterval(timer);
      if (err) reject(err);
      else resolve();
    }
  });
  // It may have finished between the last look and now (a short tail): then there is nothing to pause.
  const paused = await service.pause(id).catch((err: { code?: string }) => {
    if (err?.code === 'BAD_STATE' && service.get(id).status === 'finished') return service.get(id);
    throw err;
  });
  if (paused.status !== 'paused' && paused.status !== 'finished') throw new Error(`The recrawl is ${paused.status} after pausing.`);
  peak = Math.max(peak, process.memoryUsage.rss());
  const measured = new Set(site.sitemaps.map((s) => s.path));
  let sitemapsCarried = 0;
  const walk = (parent: string | null) => {
    for (const n of service.sitemapTree(id, parent) as SitemapNode[]) {
      if (n.carriedOver && (measured.has(new URL(n.url).pathname) || n.type === 'sitemapindex')) sitemapsCarried++;
      walk(n.id);
    }
  };
  walk(null);
  return { ms, urls, peakRssMB: peak / MB, sitemapsCarried, crawlId: id };
}
