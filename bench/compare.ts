/**
 * The compare piece of the benchmark: one comparison of two finished crawls through the service,
 * computed afresh (a comparison kept from an earlier run is removed first), timed, with the process's
 * peak RSS sampled while it runs and the RSS it grew by. The caller (bench/run.ts) makes the two
 * crawls, e.g. a 1M-URL crawl and its recrawl, and reports the figures.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LocalCrawlService } from '../electron/service/index.js';

const MB = 1024 * 1024;

export interface CompareBenchResult {
  /** Milliseconds for service.compare(oldId, newId) computing the comparison (both crawls loaded first). */
  ms: number;
  /** Changed URLs (added + removed + changed): the rows of the comparison. */
  changedRows: number;
  /** Highest RSS seen while comparing, MB. */
  peakRssMB: number;
  /** RSS after comparing minus before, MB (the memory the comparison itself holds or left behind). */
  rssGrowthMB: number;
}

/**
 * Compares crawl `oldId` with `newId` (both finished) and measures it. The crawls are loaded before
 * the clock starts (a first page of each), so `ms` is the comparison, not the replay of the journals.
 */
export async function compareBench(service: LocalCrawlService, oldId: string, newId: string): Promise<CompareBenchResult> {
  for (const file of fs.readdirSync(path.join(service.stateDir, 'crawls', newId))) {
    if (file.startsWith(`compare-${oldId}.`)) fs.rmSync(path.join(service.stateDir, 'crawls', newId, file));
  }
  service.queryUrls(oldId, { offset: 0, limit: 1 });
  service.queryUrls(newId, { offset: 0, limit: 1 });
  await service.auditReady(oldId);
  await service.auditReady(newId);
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const t0 = performance.now();
  try {
    const s = await service.compare(oldId, newId);
    const ms = performance.now() - t0;
    const after = process.memoryUsage.rss();
    peak = Math.max(peak, after);
    return { ms, changedRows: s.urls.added + s.urls.removed + s.urls.changed, peakRssMB: peak / MB, rssGrowthMB: (after - before) / MB };
  } finally {
    clearInterval(sampler);
  }
}
