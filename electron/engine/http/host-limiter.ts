/**
 * Politeness per host: how many requests may be in flight to one host, the minimum gap between
 * two request starts to it, and pauses a server asked for (Retry-After). Waiters are served
 * first come first served within a host and round-robin across hosts, so one busy host cannot
 * starve the others of the global cap.
 */
import { performance } from 'node:perf_hooks';
import { EngineError } from '../types.js';

export interface HostLimiterOptions {
  /** Requests in flight to one host at most. */
  perHostConcurrency: number;
  /** Minimum milliseconds between two request starts to one host. */
  delayMs: number;
  /** Requests in flight over all hosts at most (default: no cap beyond the per-host one). */
  concurrency?: number;
}

/** Gives a slot back; calling it more than once is harmless. */
export type Release = () => void;

interface Waiter {
  resolve(release: Release): void;
  reject(error: unknown): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface HostState {
  name: string;
  active: number;
  queue: Waiter[];
  /** performance.now() of the last start. */
  lastStartAt: number;
  /** performance.now() before which a pause (Retry-After) holds every start. */
  pausedUntil: number;
  delayMs: number;
  timer?: NodeJS.Timeout;
}

/** Hands out request slots per host, honouring concurrency, start gaps and pauses. */
export class HostLimiter {
  private readonly hosts = new Map<string, HostState>();
  /** Hosts with waiters, in service order: a host served goes to the back. */
  private readonly ready = new Set<HostState>();
  private readonly perHost: number;
  private readonly cap: number;
  private readonly defaultDelayMs: number;
  private active = 0;
  private closedWith: EngineError | undefined;

  constructor(opts: HostLimiterOptions) {
    if (!(opts.perHostConcurrency >= 1)) {
      throw new EngineError('INVALID_OPTION', `perHostConcurrency must be at least 1 (got ${opts.perHostConcurrency})`);
    }
    if (opts.concurrency !== undefined && !(opts.concurrency >= 1)) {
      throw new EngineError('INVALID_OPTION', `concurrency must be at least 1 (got ${opts.concurrency})`);
    }
    this.perHost = opts.perHostConcurrency;
    this.cap = opts.concurrency ?? Infinity;
    this.defaultDelayMs = Math.max(0, opts.delayMs);
  }

  /** Resolves with a release function once a request to `host` may start. */
  acquire(host: string, signal?: AbortSignal): Promise<Release> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (signal?.aborted) return Promise.reject(abortError(host, signal));
    const h = this.state(host);
    const now = performance.now();
    // Fast path: nobody waits for this host and every limit has room.
    if (h.queue.length === 0 && this.canStart(h, now)) return Promise.resolve(this.grant(h, now));
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const i = h.queue.indexOf(waiter);
          if (i >= 0) h.queue.splice(i, 1);
          if (h.queue.length === 0) this.ready.delete(h);
          reject(abortError(host, signal));
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      h.queue.push(waiter);
      this.ready.add(h);
      this.pump();
    });
  }

  /** Sets a host's minimum gap between starts; never below the limiter's default delay. */
  setHostDelay(host: string, delayMs: number): void {
    const h = this.state(host);
    h.delayMs = Math.max(this.defaultDelayMs, delayMs);
    // A timer armed for the old gap may now be too late.
    if (h.timer) clearTimeout(h.timer);
    h.timer = undefined;
    this.pump();
  }

  /** No request to `host` starts for the next `ms` milliseconds (a Retry-After). */
  pauseHost(host: string, ms: number): void {
    const h = this.state(host);
    h.pausedUntil = Math.max(h.pausedUntil, performance.now() + Math.max(0, ms));
  }

  /** Slots currently held, over all hosts. */
  inFlight(): number {
    return this.active;
  }

  /** Acquires waiting for a slot, over all hosts. */
  waiting(): number {
    let n = 0;
    for (const h of this.ready) n += h.queue.length;
    return n;
  }

  /** Rejects every waiter and every later acquire with `error`. Slots held stay valid. */
  close(error: EngineError = new EngineError('ABORTED', 'The host limiter was closed')): void {
    this.closedWith = error;
    for (const h of this.hosts.values()) {
      if (h.timer) clearTimeout(h.timer);
      h.timer = undefined;
      for (const w of h.queue.splice(0)) {
        if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
        w.reject(error);
      }
    }
    this.ready.clear();
  }

  private state(host: string): HostState {
    let h = this.hosts.get(host);
    if (!h) {
      h = { name: host, active: 0, queue: [], lastStartAt: -Infinity, pausedUntil: -Infinity, delayMs: this.defaultDelayMs };
      this.hosts.set(host, h);
    }
    return h;
  }

  private canStart(h: HostState, now: number): boolean {
    return h.active < this.perHost && this.active < this.cap && now >= nextStartAt(h);
  }

  private grant(h: HostState, now: number): Release {
    h.active++;
    this.active++;
    h.lastStartAt = now;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      h.active--;
      this.active--;
      this.pump();
    };
  }

  /** Serves waiters while limits allow; arms a timer for hosts held back only by time. */
  private pump(): void {
    if (this.ready.size === 0 || this.closedWith) return;
    const now = performance.now();
    let served = true;
    while (served && this.active < this.cap) {
      served = false;
      for (const h of [...this.ready]) {
        if (this.active >= this.cap) break;
        if (h.active >= this.perHost) continue;
        if (now < nextStartAt(h)) {
          this.wakeAt(h, now);
          continue;
        }
        const w = h.queue.shift()!;
        if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
        w.resolve(this.grant(h, now));
        served = true;
        this.ready.delete(h);
        if (h.queue.length > 0) this.ready.add(h);
      }
    }
  }

  private wakeAt(h: HostState, now: number): void {
    if (h.timer) return;
    h.timer = setTimeout(
      () => {
        h.timer = undefined;
        this.pump();
      },
      Math.ceil(nextStartAt(h) - now),
    );
  }
}

/** The earliest performance.now() at which a request to the host may start. */
function nextStartAt(h: HostState): number {
  return Math.max(h.lastStartAt + h.delayMs, h.pausedUntil);
}

function abortError(host: string, signal: AbortSignal): unknown {
  return signal.reason instanceof EngineError ? signal.reason : new EngineError('ABORTED', `Aborted while waiting for a request slot on ${host}`);
}
