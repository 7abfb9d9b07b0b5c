/**
 * The benchmark's figures, their targets (issue 6's for 1M URLs on a 2-core machine; the page crawl's 1,500 pages/s is issue 22's), and how they
 * are printed: a table for people and one JSON line for scripts.
 */

export type FigureKey =
  | 'ingestUrlsPerSec'
  | 'ingestShareOfTokenizer'
  | 'peakRssMB'
  | 'rssGrowthMB'
  | 'journalBytesPerUrl'
  | 'reopenMs'
  | 'eventLoopP99Ms'
  | 'pageCrawlPagesPerSec'
  | 'csvRowsPerSec';

interface Target {
  label: string;
  unit: string;
  /** 'min': the value must be at least `value`; 'max': at most. */
  kind: 'min' | 'max';
  value: number;
  digits: number;
}

export const TARGETS: Record<FigureKey, Target> = {
  ingestUrlsPerSec: { label: 'sitemap ingest into the persisted frontier', unit: 'URLs/s', kind: 'min', value: 120_000, digits: 0 },
  ingestShareOfTokenizer: { label: 'ingest as a share of a bare tokenizer pass', unit: '', kind: 'min', value: 0.5, digits: 2 },
  peakRssMB: { label: 'peak RSS at N URLs', unit: 'MB', kind: 'max', value: 250, digits: 0 },
  rssGrowthMB: { label: 'RSS growth from N/10 to N URLs', unit: 'MB', kind: 'max', value: 100, digits: 0 },
  journalBytesPerUrl: { label: 'journal bytes on disk per URL', unit: 'B', kind: 'max', value: 200, digits: 0 },
  reopenMs: { label: 'reopen the paused crawl until it can fetch', unit: 'ms', kind: 'max', value: 3000, digits: 0 },
  eventLoopP99Ms: { label: 'p99 event-loop delay during ingest', unit: 'ms', kind: 'max', value: 50, digits: 1 },
  pageCrawlPagesPerSec: { label: 'page crawl of the linked pages', unit: 'pages/s', kind: 'min', value: 1_500, digits: 0 },
  csvRowsPerSec: { label: 'CSV export of every row', unit: 'rows/s', kind: 'min', value: 200_000, digits: 0 },
};

export const FIGURE_KEYS = Object.keys(TARGETS) as FigureKey[];

/** True when the value meets its target. */
export function passes(key: FigureKey, value: number): boolean {
  const t = TARGETS[key];
  return Number.isFinite(value) && (t.kind === 'min' ? value >= t.value : value <= t.value);
}

function fmt(n: number, digits: number): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** The table: figure, value, target, pass/fail. */
export function table(figures: Record<FigureKey, number>): string {
  const rows = FIGURE_KEYS.map((k) => {
    const t = TARGETS[k];
    const unit = t.unit ? ' ' + t.unit : '';
    const v = figures[k];
    if (Number.isNaN(v)) return [t.label, '—', (t.kind === 'min' ? '≥ ' : '≤ ') + fmt(t.value, t.digits) + unit, 'not run'];
    return [t.label, fmt(v, t.digits) + unit, (t.kind === 'min' ? '≥ ' : '≤ ') + fmt(t.value, t.digits) + unit, passes(k, v) ? 'pass' : 'FAIL'];
  });
  const head = ['figure', 'value', 'target', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
