/** Words and rules of recrawls and their schedules, for the toolbar, the sidebar and the Overview. */
import type { CrawlSummary, Schedule } from '../../../shared/model.js';

/** Whether "Crawl again" applies: a finished or paused crawl that is whole. */
export function canRecrawl(c: Pick<CrawlSummary, 'status' | 'damaged'>): { ok: true } | { ok: false; why: string } {
  if (c.damaged) return { ok: false, why: 'This crawl is damaged: it cannot be crawled again.' };
  if (c.status === 'running') return { ok: false, why: 'Pause or stop the crawl first.' };
  if (c.status === 'created') return { ok: false, why: 'Start the crawl first: a recrawl reuses what it learned.' };
  return { ok: true };
}

/** "Recrawls daily" / "Recrawls weekly, changed URLs only". */
export function scheduleText(s: Pick<Schedule, 'every' | 'changedOnly'>): string {
  return `Recrawls ${s.every}${s.changedOnly ? ', changed URLs only' : ''}`;
}

/** How long until `at`: "in 5 min", "in 23 h", "in 6 days"; "now" when it is due. */
export function formatUntil(at: number, now: number): string {
  const s = Math.round((at - now) / 1000);
  if (s <= 0) return 'now';
  if (s < 60) return `in ${s}s`;
  const m = Math.round(s / 60);
  if (m < 60) return `in ${m} min`;
  const h = Math.round(m / 60);
  if (h < 48) return `in ${h} h`;
  return `in ${Math.round(h / 24)} days`;
}

/** The crawl a recrawl reuses, when the list still holds it. */
export function baseOf(crawls: readonly CrawlSummary[], c: Pick<CrawlSummary, 'baseId'>): CrawlSummary | undefined {
  return c.baseId ? crawls.find((x) => x.id === c.baseId) : undefined;
}
