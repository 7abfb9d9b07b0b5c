/**
 * Scheduled recrawls: a crawl's catalog entry may carry a Schedule ({ every, nextAt, changedOnly,
 * lastRunId }); while the service runs, a timer (unref'd: it never keeps a process alive) looks for
 * schedules that are due and recrawls the crawl the last scheduled run made (or the crawl itself the
 * first time). A time missed while the app was closed runs soon after start-up, once, not once per
 * day missed. A schedule never runs twice at once: not while its previous run is still crawling, and
 * not twice from one tick. nextAt moves on by a day or a week before the recrawl starts, so another
 * process sharing the state folder that looks a moment later finds it no longer due.
 */
import type { CrawlStatus, CrawlSummary, Schedule } from '../../shared/model.js';
import type { CatalogEntry } from './catalog/catalog.js';
import type { RecrawlOptions } from './types.js';

export const DAY_MS = 24 * 60 * 60 * 1000;
export const PERIOD_MS: Readonly<Record<Schedule['every'], number>> = { daily: DAY_MS, weekly: 7 * DAY_MS };

/** What the scheduler needs of the service. */
export interface ScheduleHost {
  /** Every catalog entry (those with a schedule are looked at). */
  entries(): CatalogEntry[];
  /** The entry as stored now (another process may have moved its schedule on). */
  refresh(id: string): CatalogEntry | undefined;
  put(entry: CatalogEntry): void;
  /** A crawl's status, undefined when the catalog has no such crawl. */
  status(id: string): CrawlStatus | undefined;
  recrawl(id: string, opts: RecrawlOptions): Promise<CrawlSummary>;
  warn(message: string): void;
  now(): number;
}

export interface SchedulerOptions {
  /** How often due schedules are looked for, in ms (default 60,000). */
  intervalMs?: number;
  /** The first look after start-up, in ms (default 5,000): a time missed while closed runs then. */
  startDelayMs?: number;
}

/** The first nextAt of a new schedule: one period from now. */
export function firstRunAt(every: Schedule['every'], now: number): number {
  return now + PERIOD_MS[every];
}

/** nextAt moved on by whole periods until it is after `now` (at least one period). */
export function nextRunAt(s: Pick<Schedule, 'every' | 'nextAt'>, now: number): number {
  const period = PERIOD_MS[s.every];
  let at = s.nextAt + period;
  if (at <= now) at += Math.ceil((now - at + 1) / period) * period;
  return at;
}

export class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  private first: NodeJS.Timeout | null = null;
  /** Schedules (by the id of the crawl that carries them) whose recrawl is being started right now. */
  private readonly busy = new Set<string>();
  private ticking: Promise<void> | null = null;

  constructor(
    private readonly host: ScheduleHost,
    private readonly opts: SchedulerOptions = {},
  ) {}

  /** Starts looking (a first look soon, then every intervalMs). */
  start(): void {
    if (this.timer) return;
    this.first = setTimeout(() => void this.tick(), this.opts.startDelayMs ?? 5000);
    this.first.unref();
    this.timer = setInterval(() => void this.tick(), this.opts.intervalMs ?? 60_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.first) clearTimeout(this.first);
    if (this.timer) clearInterval(this.timer);
    this.first = null;
    this.timer = null;
  }

  /** Starts every due schedule's recrawl; resolves once each has started (or failed to). */
  tick(): Promise<void> {
    this.ticking ??= this.tickOnce().finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async tickOnce(): Promise<void> {
    const now = this.host.now();
    const due = this.host.entries().filter((e) => e.schedule && e.schedule.nextAt <= now && !this.busy.has(e.id));
    await Promise.all(due.map((e) => this.run(e.id)));
  }

  private async run(id: string): Promise<void> {
    this.busy.add(id);
    try {
      const cur = this.host.refresh(id);
      const s = cur?.schedule;
      const now = this.host.now();
      if (!cur || !s || s.nextAt > now) return; // removed, or another process took it
      const base = s.lastRunId !== undefined && this.host.status(s.lastRunId) !== undefined ? s.lastRunId : id;
      if (this.host.status(base) === 'running') return; // the previous run is still crawling: due again once it ends
      this.host.put({ ...cur, schedule: { ...s, nextAt: nextRunAt(s, now) } });
      try {
        const made = await this.host.recrawl(base, { changedOnly: s.changedOnly, scheduled: true });
        const after = this.host.refresh(id);
        if (after?.schedule) this.host.put({ ...after, schedule: { ...after.schedule, lastRunId: made.id } });
      } catch (err) {
        const e = err as { code?: string; message?: string };
        this.host.warn(
          `The scheduled recrawl of crawl ${base} (schedule of "${cur.name}") did not start: ${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)} It is tried again at the next scheduled time.`,
        );
      }
    } finally {
      this.busy.delete(id);
    }
  }
}
