/**
 * streamSitemap run in a worker thread: same arguments, same batches, same summary, same handling
 * of body failures and early stops (see stream.ts), but inflating, decoding, tokenizing and checking
 * entries happen on another core, and the calling thread only reads raw chunks and takes in the
 * finished items. One worker serves the whole process; it is started on first use and does not keep
 * the process alive while idle.
 *
 * When the worker cannot run (its file is missing from a build, or it fails to start), sitemaps are
 * parsed on the calling thread instead, as fast as before and with identical results, and a process
 * warning says so once. A worker that dies mid-read ends that reading with an error (what was handed
 * out stays): SITEMAP_WORKER_OUT_OF_MEMORY when it reached its heap limit, SITEMAP_WORKER_FAILED
 * otherwise; the next sitemap starts a new worker.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type ResourceLimits, type WorkerOptions } from 'node:worker_threads';
import type { SitemapItem, SitemapSummary } from '../../types.js';
import { streamSitemap, type StreamSitemapOptions } from '../read/stream.js';
import { fromWire, wireText, type FromWorker, type ToWorker } from './worker-protocol.js';

/**
 * What the consumer of a session is told: a worker message, or that the worker is gone: `lost`
 * mid-read, or `unstarted` when it never started and never touched the body (read it here instead).
 */
type Message =
  | Extract<FromWorker, { t: 'done' | 'crash' }>
  /** A batch, its bytes decoded (their buffer has gone back to the worker). */
  | { t: 'batch'; json: string; ends: Int32Array }
  | { t: 'lost'; message: string; code: string }
  | { t: 'unstarted' };

/** The worker file, beside this module in the sources (.ts) and beside the bundle in a build (.js/.mjs). */
export function parseWorkerUrl(base: string = import.meta.url): URL {
  const ext = /\.(ts|mjs|cjs|js)$/.exec(new URL(base).pathname)?.[0] ?? '.js';
  return new URL(`./parse-worker${ext}`, base);
}

/**
 * Heap limits of the worker: it holds one sitemap's parse state and a few batches. A young generation
 * of 4 MB rather than 1 halves its minor collections, for ~2 MB (docs/performance.md).
 */
const RESOURCE_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 256 };

/** Batches taken in a row before the consumer lets the event loop turn (a batch is a few ms of work). */
const YIELD_EVERY = 2;

let nextId = 1;

/** Memory of body chunks that their producer keeps no hold of (see ownedChunk). */
const owned = new WeakSet<ArrayBufferLike>();

/**
 * Marks a body chunk's whole memory as the body's alone (a fresh allocation its producer forgets):
 * the worker is then given that memory instead of a copy (at a million URLs, the copies left dead
 * buffers behind for the garbage collector: several MB of RSS). Returns the chunk.
 */
export function ownedChunk<T extends Uint8Array>(chunk: T): T {
  owned.add(chunk.buffer);
  return chunk;
}

/**
 * How to start the worker: a built .js/.mjs file directly; a .ts source (tests, `npm run crawl`)
 * through tsx, whose loader hooks are not inherited by worker threads.
 */
function workerScript(url: URL, resourceLimits: ResourceLimits): [string | URL, WorkerOptions] {
  const opts: WorkerOptions = { resourceLimits, stdout: false, stderr: false };
  if (!url.pathname.endsWith('.ts')) return [url, opts];
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`;
  return [code, { ...opts, eval: true }];
}

/**
 * A worker with no sitemap to read for this long is stopped (its ~20 MB given back: a crawl reads its
 * sitemaps first and may then fetch pages for hours, or find no sitemap at all); the next sitemap
 * starts one again, tens of milliseconds.
 */
const IDLE_MS = 60_000;

class ParseWorker {
  private readonly worker: Worker;
  private readonly sessions = new Map<number, WorkerSession>();
  private ready = false;
  private idle: ReturnType<typeof setTimeout> | null = null;
  dead = false;

  constructor(
    url: URL,
    private readonly onDead: (w: ParseWorker, beforeReady: boolean) => void,
    private readonly idleMs: number = IDLE_MS,
    resourceLimits: ResourceLimits = RESOURCE_LIMITS,
  ) {
    this.worker = new Worker(...workerScript(url, resourceLimits));
    this.worker.on('message', (m: FromWorker) => {
      // 'spent': a body chunk's memory, back to be freed here; nothing to do with it.
      if (m.t === 'ready') this.ready = true;
      else if (m.t !== 'spent') this.sessions.get(m.id)?.receive(m);
    });
    this.worker.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        const mb = resourceLimits.maxOldGenerationSizeMb;
        this.die(`the sitemap parser ran out of memory${mb ? ` (its limit is ${mb} MB)` : ''} on this sitemap`, false, 'SITEMAP_WORKER_OUT_OF_MEMORY');
      } else this.die(`the sitemap parser's worker thread failed: ${err.message}`);
    });
    this.worker.on('exit', (code) => this.die(`the sitemap parser's worker thread exited (code ${code})`));
    // After the listeners: a 'message' listener refs the worker's port again. An idle worker (started
    // ahead by warm(), or between sitemaps) must not keep the process alive.
    this.worker.unref();
    this.idleFromNow();
  }

  open(session: WorkerSession, opts: StreamSitemapOptions): void {
    this.sessions.set(session.id, session);
    if (this.sessions.size === 1) {
      this.worker.ref(); // a reading in progress keeps the process alive
      if (this.idle !== null) clearTimeout(this.idle);
      this.idle = null;
    }
    this.post({ t: 'open', id: session.id, opts });
  }

  forget(id: number): void {
    if (this.sessions.delete(id) && this.sessions.size === 0) {
      this.worker.unref();
      this.idleFromNow();
    }
  }

  post(m: ToWorker, transfer?: ArrayBuffer[]): void {
    if (!this.dead) this.worker.postMessage(m, transfer);
  }

  /** Stops the worker after idleMs with no reading (not a failure: the pool starts another when asked). */
  private idleFromNow(): void {
    if (this.idle !== null) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.idle = null;
      if (this.sessions.size === 0) this.die('idle', true);
    }, this.idleMs);
    this.idle.unref();
  }

  /** Ends the worker: failed (its readings lost, with `code`), or `retired` when idle (not a failure, even unready). */
  private die(message: string, retired = false, code = 'SITEMAP_WORKER_FAILED'): void {
    if (this.dead) return;
    this.dead = true;
    if (this.idle !== null) clearTimeout(this.idle);
    this.idle = null;
    this.onDead(this, !this.ready && !retired);
    for (const s of [...this.sessions.values()]) s.lost(message, code, !this.ready);
    this.sessions.clear();
    void this.worker.terminate().catch(() => undefined);
  }
}

/**
 * Starts the worker on first use and again after one died; falls back to the calling thread for
 * good when the worker cannot be started. The app uses one pool (streamSitemapInWorker).
 */
export class ParseWorkerPool {
  private current: ParseWorker | null = null;
  private unavailable: string | null = null;

  /**
   * `idleMs`: how long the worker may wait for a sitemap before it is stopped (default a minute);
   * `resourceLimits`: its heap's (tests set a small one).
   */
  constructor(
    private readonly url: URL = parseWorkerUrl(),
    private readonly idleMs: number = IDLE_MS,
    private readonly resourceLimits: ResourceLimits = RESOURCE_LIMITS,
  ) {}

  /**
   * Starts the worker now if it is not running (loading it takes tens of milliseconds): a crawl calls
   * this before its first requests, so the worker is ready by the time the first sitemap arrives.
   */
  warm(): void {
    this.worker();
  }

  /** Whether a worker is started and not dead. */
  get running(): boolean {
    return this.current !== null && !this.current.dead;
  }

  /** Why sitemaps are parsed on the calling thread, or null while the worker is in use (or untried). */
  get fallbackReason(): string | null {
    return this.unavailable;
  }

  /** streamSitemap (see stream.ts for the contract), run in the worker. */
  async *stream(body: AsyncIterable<Buffer>, opts: StreamSitemapOptions): AsyncGenerator<SitemapItem[], SitemapSummary, void> {
    const w = this.worker();
    if (w === null) return yield* streamSitemap(body, opts);
    const session = new WorkerSession(w, body);
    w.open(session, { ...opts });
    try {
      for (;;) {
        const m = await session.next();
        if (m.t === 'batch') {
          yield fromWire(m.json, m.ends);
        } else if (m.t === 'done') {
          return m.summary;
        } else if (m.t === 'unstarted') {
          return yield* streamSitemap(body, opts);
        } else {
          throw Object.assign(new Error(`Reading the sitemap stopped: ${m.message}. The entries read before were kept.`), {
            code: m.t === 'lost' ? m.code : 'SITEMAP_WORKER_FAILED',
          });
        }
      }
    } finally {
      await session.close();
    }
  }

  private fallBack(reason: string): void {
    if (this.unavailable !== null) return;
    this.unavailable = reason;
    process.emitWarning(`Sitemaps are parsed on the main thread (${reason}); results are the same, ingest is slower.`, {
      code: 'SPINNERET_NO_PARSE_WORKER',
    });
  }

  private worker(): ParseWorker | null {
    if (this.unavailable !== null) return null;
    if (this.current && !this.current.dead) return this.current;
    const url = this.url;
    if (url.protocol === 'file:' && !existsSync(fileURLToPath(url))) {
      this.fallBack(`${fileURLToPath(url)} is missing`);
      return null;
    }
    try {
      this.current = new ParseWorker(
        url,
        (w, beforeReady) => {
          if (this.current === w) this.current = null;
          if (beforeReady) this.fallBack('its worker thread could not start');
        },
        this.idleMs,
        this.resourceLimits,
      );
    } catch (err) {
      this.fallBack(`its worker thread could not start: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    }
    return this.current;
  }
}

/** One sitemap read in the worker: feeds it raw chunks on request, queues its batches for the consumer. */
class WorkerSession {
  readonly id = nextId++;
  private readonly queue: (Exclude<Message, { t: 'batch' }> | Extract<FromWorker, { t: 'items' }>)[] = [];
  private wake: (() => void) | null = null;
  private readonly source: AsyncIterator<Buffer>;
  /** True once the worker asked for bytes: from then on, the body belongs to the worker. */
  private started = false;
  private sourceDone = false;
  private sinceYield = 0;

  constructor(
    private readonly w: ParseWorker,
    body: AsyncIterable<Buffer>,
  ) {
    this.source = body[Symbol.asyncIterator]();
  }

  receive(m: Exclude<FromWorker, { t: 'ready' | 'spent' }>): void {
    if (m.t === 'pull') {
      this.started = true;
      void this.pull();
      return;
    }
    this.queue.push(m);
    this.signal();
  }

  lost(message: string, code: string, beforeReady: boolean): void {
    this.queue.push(beforeReady && !this.started ? { t: 'unstarted' } : { t: 'lost', message, code });
    this.signal();
  }

  async next(): Promise<Message> {
    for (;;) {
      const m = this.queue.shift();
      if (m !== undefined) {
        if (m.t === 'items') {
          // Node delivers a port's queued messages in one go, and the consumer runs in the
          // microtasks of each: without a pause now and then, a worker that keeps up would keep
          // this thread's timers and I/O waiting for as long as the sitemap lasts.
          if (++this.sinceYield >= YIELD_EVERY) {
            this.sinceYield = 0;
            await new Promise<void>((resolve) => setImmediate(resolve));
          }
          // Read now, so the buffer can go back to the worker for its next batches.
          const json = wireText(m.bytes, m.ascii);
          const buffer = m.bytes.buffer as ArrayBuffer;
          this.w.post({ t: 'ack', id: this.id, buffer }, [buffer]);
          return { t: 'batch', json, ends: m.ends };
        }
        return m;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** The consumer stopped (or the reading ended): tell the worker, close the body if still open. */
  async close(): Promise<void> {
    this.w.post({ t: 'close', id: this.id });
    this.w.forget(this.id);
    if (!this.sourceDone) {
      this.sourceDone = true;
      await this.source.return?.();
    }
  }

  private async pull(): Promise<void> {
    if (this.sourceDone) return;
    try {
      const r = await this.source.next();
      if (r.done) {
        this.sourceDone = true;
        this.w.post({ t: 'end', id: this.id });
        return;
      }
      // The worker is given the chunk's memory when nothing else holds it (ownedChunk), else a copy
      // it can own: a Buffer may be a view into Node's shared pool, or memory its producer reuses.
      const v = r.value;
      const data = owned.has(v.buffer) ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : new Uint8Array(v);
      this.w.post({ t: 'chunk', id: this.id, data }, [data.buffer as ArrayBuffer]);
    } catch (err) {
      this.sourceDone = true;
      const code = (err as { code?: unknown } | null)?.code;
      this.w.post({
        t: 'fail',
        id: this.id,
        message: err instanceof Error ? err.message : String(err),
        ...(typeof code === 'string' ? { code } : {}),
      });
    }
  }

  private signal(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }
}

let shared = new ParseWorkerPool();

/** Makes `pool` the process's parse worker pool (tests: a worker that dies); returns the one it replaces. */
export function useParseWorkerPool(pool: ParseWorkerPool): ParseWorkerPool {
  const before = shared;
  shared = pool;
  return before;
}

/** Starts the process's parse worker ahead of its first sitemap (see ParseWorkerPool.warm). */
export function warmSitemapWorker(): void {
  shared.warm();
}

/**
 * streamSitemap in the process's parse worker (see stream.ts for the contract). Falls back to
 * parsing on this thread when the worker is unavailable.
 */
export function streamSitemapInWorker(body: AsyncIterable<Buffer>, opts: StreamSitemapOptions): AsyncGenerator<SitemapItem[], SitemapSummary, void> {
  return shared.stream(body, opts);
}
