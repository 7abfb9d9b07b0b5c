/** Pure updates of the crawl list from answers and progress events. */
import type { CrawlSummary, ProgressEvent } from '../../../shared/model.js';

/** Puts a fresh summary in the list (replacing the one with its id, or adding it first). */
export function upsertCrawl(list: readonly CrawlSummary[], c: CrawlSummary): CrawlSummary[] {
  const i = list.findIndex((x) => x.id === c.id);
  if (i < 0) return sortCrawls([c, ...list]);
  const next = [...list];
  next[i] = c;
  return next;
}

/** Applies a progress event's status, counters and rate; unknown crawls are left to the next list. */
export function applyProgress(list: readonly CrawlSummary[], e: ProgressEvent): CrawlSummary[] {
  const i = list.findIndex((x) => x.id === e.crawlId);
  if (i < 0) return list as CrawlSummary[];
  const old = list[i]!;
  // An event older than what we know (an answer to start/pause can overtake it) is ignored.
  if (e.at < old.updatedAt && old.status !== e.status) return list as CrawlSummary[];
  const next = [...list];
  next[i] = { ...old, status: e.status, counters: e.counters, rate: e.rate, updatedAt: Math.max(old.updatedAt, e.at) };
  return next;
}

export function removeCrawl(list: readonly CrawlSummary[], id: string): CrawlSummary[] {
  return list.filter((c) => c.id !== id);
}

/** Newest first: the crawl the analyst made last is at the top. */
export function sortCrawls(list: readonly CrawlSummary[]): CrawlSummary[] {
  return [...list].sort((a, b) => b.createdAt - a.createdAt);
}

/** The crawl's display name: its name, or its start URL's host. */
export function displayName(c: Pick<CrawlSummary, 'name' | 'startUrl' | 'settings'>): string {
  if (c.name.trim()) return c.name;
  const first = c.startUrl || c.settings.sitemapUrls[0] || '';
  try {
    return new URL(first).host;
  } catch {
    return first || 'Untitled crawl';
  }
}
