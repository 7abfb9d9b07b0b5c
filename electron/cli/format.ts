/**
 * Text the CLI prints: the progress line, the end-of-crawl summary and the crawl list.
 */
import { crawlRunningMs, type CrawlSummary, type ProgressEvent } from '../../shared/model.js';

/** One progress line (a bar on a terminal), at most `width` characters. */
export function formatProgress(e: ProgressEvent, width: number): string {
  const c = e.counters;
  const handled = c.fetched + c.blocked + c.errors + c.listed;
  const total = Math.max(c.discovered, 1);
  const share = Math.min(1, handled / total);
  const barWidth = 20;
  const filled = Math.round(share * barWidth);
  const bar = '[' + '#'.repeat(filled) + '-'.repeat(barWidth - filled) + ']';
  const parts = [
    bar,
    `${handled}/${c.discovered} URLs`,
    `${c.fetched} fetched`,
    `${c.errors} errors`,
    `${c.blocked} blocked`,
    `sitemaps ${c.sitemaps.done + c.sitemaps.failed}/${c.sitemaps.total}`,
    `${Math.round(e.rate)}/s`,
  ];
  const line = parts.join('  ');
  return line.length > width ? line.slice(0, Math.max(10, width - 1)) : line;
}

/** "start 1, sitemaps 40, links 120, redirects 3": how the URLs were first found (kinds never seen left out). */
function discoveredBy(c: CrawlSummary['counters']): string {
  const words: [keyof typeof c.bySource, string][] = [
    ['start', 'start'],
    ['sitemap', 'sitemaps'],
    ['link', 'links'],
    ['redirect', 'redirects'],
    ['canonical', 'canonicals'],
    ['hreflang', 'hreflang'],
    ['reference', 'other references'],
  ];
  return words
    .filter(([k]) => k === 'start' || k === 'sitemap' || k === 'link' || (c.bySource[k] ?? 0) > 0)
    .map(([k, w]) => `${w} ${c.bySource[k] ?? 0}`)
    .join(', ');
}

/** A crawl's status as the CLI says it: a crawl Stop ended is "finished (stopped)", a partial crawl. */
export function statusWord(s: Pick<CrawlSummary, 'status' | 'stopped'>): string {
  return s.status === 'finished' && s.stopped ? 'finished (stopped)' : s.status;
}

/** The summary printed when a crawl ends or pauses. */
export function formatSummary(s: CrawlSummary): string {
  const c = s.counters;
  const seconds = (crawlRunningMs(s, s.updatedAt) ?? 0) / 1000;
  const lines = [
    `Crawl ${s.id}: ${statusWord(s)}`,
    `  URLs discovered   ${c.discovered}  (${discoveredBy(c)})`,
    `  fetched           ${c.fetched}  (2xx ${c.byStatusClass['2xx']}, 3xx ${c.byStatusClass['3xx']}, 4xx ${c.byStatusClass['4xx']}, 5xx ${c.byStatusClass['5xx']})`,
    `  listed only       ${c.listed}`,
    `  blocked by robots ${c.blocked}`,
    `  errors            ${c.errors}`,
    `  duplicates        ${c.duplicates}`,
    `  sitemaps          ${c.sitemaps.total} (${c.sitemaps.failed} failed)`,
  ];
  if (seconds > 0) lines.push(`  time              ${seconds.toFixed(1)} s`);
  if (s.error && s.status !== 'failed') lines.push(`  ${s.error.code}: ${s.error.message}`);
  return lines.join('\n');
}

/** The `list` table: id, status, start URL, counts. */
export function formatTable(crawls: CrawlSummary[]): string {
  if (crawls.length === 0) return 'No crawls yet. Start one with: npm run crawl -- https://example.org/';
  const rows = crawls.map((c) => [
    c.id,
    statusWord(c) + (c.damaged ? ' (damaged)' : ''),
    c.startUrl || c.settings.sitemapUrls[0] || '',
    String(c.counters.discovered),
    String(c.counters.fetched),
    String(c.counters.errors),
    new Date(c.updatedAt).toISOString().slice(0, 19).replace('T', ' '),
  ]);
  const header = ['ID', 'STATUS', 'START', 'URLS', 'FETCHED', 'ERRORS', 'UPDATED'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [fmt(header), ...rows.map(fmt)].join('\n');
}
