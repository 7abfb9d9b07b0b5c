/** Progress ratios and ETA derived from a crawl's counters. */
import type { CrawlCounters, CrawlSummary } from '../../../shared/model.js';

/** URLs that have been handled one way or another (fetched, failed, blocked). */
export function handledCount(c: CrawlCounters): number {
  return c.fetched + c.errors + c.blocked;
}

/** URLs still to fetch: queued plus in flight. */
export function remainingCount(c: CrawlCounters): number {
  return c.queued + c.fetching;
}

export interface Ratio {
  done: number;
  total: number;
  /** 0..1; 0 when there is nothing to do yet. */
  value: number;
}

function ratio(done: number, total: number): Ratio {
  return { done, total, value: total > 0 ? Math.min(1, Math.max(0, done / total)) : 0 };
}

/** Page fetching: handled over everything that will be fetched. Listed-only URLs don't count. */
export function fetchProgress(c: CrawlCounters): Ratio {
  const handled = handledCount(c);
  return ratio(handled, handled + remainingCount(c));
}

/** Sitemap streaming: sitemaps read (or failed) over sitemaps known. */
export function sitemapProgress(c: CrawlCounters): Ratio {
  return ratio(c.sitemaps.done + c.sitemaps.failed, c.sitemaps.total);
}

/**
 * Seconds until the known queue is empty at the current rate; null when it cannot be told
 * (not running, no rate yet). The queue still grows while sitemaps and links are read,
 * so this is "at least", which the UI says.
 */
export function etaSeconds(s: Pick<CrawlSummary, 'status' | 'rate' | 'counters'>): number | null {
  if (s.status !== 'running') return null;
  const remaining = remainingCount(s.counters);
  if (remaining === 0) return 0;
  if (!(s.rate > 0)) return null;
  return remaining / s.rate;
}

/** Sum of the status classes: the number of URLs that got an HTTP answer. */
export function answeredCount(c: CrawlCounters): number {
  const b = c.byStatusClass;
  return b['2xx'] + b['3xx'] + b['4xx'] + b['5xx'] + b.other;
}

/** One overall progress figure for the sidebar: fetch progress, or sitemap progress when pages are not fetched. */
export function overallProgress(s: Pick<CrawlSummary, 'status' | 'counters' | 'settings' | 'stopped'>): Ratio {
  // A stopped crawl shows how far it got, not a full bar.
  if (s.status === 'finished' && !s.stopped) return { done: 1, total: 1, value: 1 };
  if (!s.settings.fetchPages) return sitemapProgress(s.counters);
  return fetchProgress(s.counters);
}
