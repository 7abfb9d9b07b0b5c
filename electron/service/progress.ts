/**
 * Progress batching: at most one progress event per crawl per interval (200 ms: 5 a second), timer
 * driven, and a rate of URLs handled per second over the last few seconds.
 */

export const PROGRESS_INTERVAL_MS = 200;
const RATE_WINDOW_MS = 5000;

/** URLs handled per second over a sliding window of samples. */
export class RateMeter {
  private readonly samples: { t: number; n: number }[] = [];

  /** Adds a sample (time, handled so far) and returns the rate over the window. */
  sample(t: number, n: number): number {
    this.samples.push({ t, n });
    while (this.samples.length > 2 && t - this.samples[0]!.t > RATE_WINDOW_MS) this.samples.shift();
    const first = this.samples[0]!;
    const dt = t - first.t;
    return dt > 0 ? Math.max(0, ((n - first.n) * 1000) / dt) : 0;
  }

  reset(): void {
    this.samples.length = 0;
  }
}

/**
 * Emits `build()`'s event on a timer, at most once per interval; `now(true)` asks for one as soon as
 * the interval allows (a status change). build() returns null when there is nothing new.
 */
export class ProgressBatcher<E> {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private forced = false;
  private lastAt = -Infinity;

  constructor(
    private readonly build: (force: boolean) => E | null,
    private readonly emit: (e: E) => void,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
    /** A monotonic clock: spacing is enforced with it, so no window of one second holds more than 1000/interval. */
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Starts the periodic events (while a crawl runs). */
  start(): void {
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (!this.forced && this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  /** Asks for an event as soon as the spacing allows (a status change), running or not. */
  push(): void {
    this.forced = true;
    this.schedule();
  }

  dispose(): void {
    this.running = false;
    this.forced = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = this.lastAt + this.intervalMs - this.clock();
    // Too early: wait for the spacing; otherwise at once when forced, else one interval from now.
    const delay = wait > 0 ? Math.ceil(wait) : this.forced ? 0 : this.intervalMs;
    this.timer = setTimeout(() => this.tick(), delay);
  }

  private tick(): void {
    this.timer = null;
    if (this.clock() - this.lastAt >= this.intervalMs) {
      const force = this.forced;
      this.forced = false;
      const e = this.build(force);
      if (e !== null) {
        this.lastAt = this.clock();
        this.emit(e);
      }
    }
    if (this.running || this.forced) this.schedule();
  }
}
