/**
 * The engine's HTTP client, on node:http and node:https: streamed bodies, redirects followed here
 * (so every hop is recorded and goes through the host limiter), retries with backoff honouring
 * Retry-After, timeouts covering connect, headers and body, and a cap on decoded body size.
 *
 * Content decoding is done here, on the raw response stream, so wireBytes() counts the bytes
 * before decoding.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';
import type { RedirectHop } from '../../../shared/model.js';
import { HostLimiter } from './host-limiter.js';
import { parseRetryAfter } from './retry-after.js';
import { EngineError, type FetchOptions, type FetchResponse, type HttpFetcher } from '../types.js';

export interface HttpFetcherOptions {
  userAgent: string;
  /** Total time for one attempt, headers + body (body reading aborts past it). */
  timeoutMs: number;
  /**
   * The longest wait for a byte: for the headers, then between two body chunks (TIMEOUT past it).
   * A body left unread counts as idle. Default: none (only timeoutMs applies).
   */
  idleTimeoutMs?: number;
  /** TCP connect (+TLS) only. */
  connectTimeoutMs: number;
  /** Extra attempts on network errors, 5xx and 429 (default 2). */
  retries: number;
  /** Exponential backoff base, with jitter (default 500). */
  retryBaseDelayMs?: number;
  /** Cap for Retry-After (default 120_000); a longer Retry-After gives up with the response. */
  maxRetryAfterMs?: number;
  /** Default 10. */
  maxRedirects?: number;
  /** Decoded bytes; past it the body stream errors EngineError(BODY_TOO_LARGE). */
  maxBodyBytes: number;
  perHostConcurrency: number;
  /** Minimum gap between request starts to one host. */
  delayMs: number;
  /** Global cap on sockets in flight (default: unlimited beyond per-host). */
  concurrency?: number;
  onRetry?(info: { url: string; attempt: number; delayMs: number; reason: string }): void;
}

export interface HttpFetcherStats {
  /** Request slots held: requests sent whose response is not finished. */
  inFlight: number;
  /** HTTP requests sent, every attempt and redirect hop included. */
  requests: number;
  /** Attempts repeated after a network error, 5xx or 429. */
  retries: number;
}

export type HttpFetcherHandle = HttpFetcher & {
  /** Raises a host's gap between request starts (robots.txt Crawl-delay); a hostname, a port is ignored. */
  setHostDelay(host: string, delayMs: number): void;
  stats(): HttpFetcherStats;
};

/**
 * The code of a body past maxBodyBytes: the one FetchResponse documents in types.ts (and that the
 * sitemap list and robots fetch test for).
 */
export const BODY_TOO_LARGE = 'EBODY_TOO_LARGE';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const DEFAULT_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const ACCEPT_ENCODING = 'gzip, deflate, br';
/** Redirect and retried bodies up to this size are drained so their socket is reused; larger ones are cut. */
const DRAIN_LIMIT_BYTES = 64 * 1024;
const MAX_BACKOFF_MS = 30_000;
/** Error code our connect timer destroys a socket with. */
const CONNECT_TIMEOUT = 'ECONNECTTIMEOUT';
const RETRYABLE = new Set(['CONNECTION_REFUSED', 'CONNECTION_RESET', 'TIMEOUT', 'NETWORK_ERROR']);

/**
 * True for an error worth another attempt: the network failed or timed out, whether before the
 * headers (the fetcher retries those itself) or while a body was read (its reader may fetch again).
 */
export function isRetryableError(err: unknown): boolean {
  return err instanceof EngineError && RETRYABLE.has(err.code);
}

// Lenient flushing, as browsers do: a body cut short yields what was decoded instead of an error.
const ZLIB_OPTIONS = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_OPTIONS = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

/** One request/response on the wire: a single attempt of a single hop. */
interface Exchange {
  url: URL;
  res: IncomingMessage;
  status: number;
  headers: Record<string, string>;
  /** Set once the body stream is built, so a timeout errors it rather than just cutting the socket. */
  body?: Transform;
  wireBytes: number;
  /** Decoded body bytes passed to the caller. */
  bodyBytes: number;
  /** performance.now() when this attempt's request was sent, and when the last body byte arrived. */
  sentAt: number;
  endedAt?: number;
  /** Ends the exchange early (timeout, abort, close): errors the body with `err` and cuts the socket. */
  cut(err: EngineError): void;
  /** A byte arrived: the idle timer starts again. */
  touch(): void;
  /** Changes this attempt's timeouts (see FetchResponse.setTimeouts). */
  setTimeouts(t: { timeoutMs?: number; idleTimeoutMs?: number }): void;
  /** True once the slot is released: the raw response ended, closed or failed. */
  done: boolean;
  onDone?: () => void;
}

/** State of one fetch() across its hops and attempts. */
interface FetchContext {
  opts: FetchOptions;
  /** Aborts with an EngineError when the caller's signal fires; absent when the caller gave none. */
  signal?: AbortSignal;
  startedAt?: number;
}

/** Creates a fetcher with its own keep-alive agents and host limiter. */
export function createHttpFetcher(options: HttpFetcherOptions): HttpFetcherHandle {
  const retries = Math.max(0, options.retries ?? 2);
  const retryBaseDelayMs = options.retryBaseDelayMs ?? 500;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 120_000;
  const maxRedirects = options.maxRedirects ?? 10;
  const limiter = new HostLimiter({
    perHostConcurrency: options.perHostConcurrency,
    delayMs: options.delayMs,
    concurrency: options.concurrency,
  });

  const httpAgent = withConnectTimeout(new http.Agent({ keepAlive: true }), options.connectTimeoutMs, 'connect');
  const httpsAgent = withConnectTimeout(new https.Agent({ keepAlive: true }), options.connectTimeoutMs, 'secureConnect');
  /**
   * Sends a GET (or HEAD) and resolves with the response once its headers are in. Environment proxies are
   * not applied (deterministic routing); redirects are followed by the caller, hop by hop.
   */
  function request(url: URL, method: 'GET' | 'HEAD', headers: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const tls = url.protocol === 'https:';
      const req = (tls ? https : http).request(url, { method, headers, agent: tls ? httpsAgent : httpAgent, signal });
      let res: IncomingMessage | undefined;
      // Before the headers, an error fails the request; after them, it fails the body being read.
      req.on('error', (err) => (res ? res.destroy(err) : reject(err)));
      req.once('response', (r: IncomingMessage) => resolve((res = r)));
      req.end();
    });
  }

  const counters = { requests: 0, retries: 0 };
  /** Cancels everything pending (attempts in flight, backoff sleeps) on close(). */
  const cancellers = new Set<(err: EngineError) => void>();
  let closedWith: EngineError | undefined;

  /** Sends one request through the limiter; resolves once the headers are in. */
  async function send(url: URL, ctx: FetchContext): Promise<Exchange> {
    const release = await limiter.acquire(url.hostname, ctx.signal);
    if (closedWith) {
      release();
      throw closedWith;
    }
    counters.requests++;
    ctx.startedAt ??= performance.now();
    const ac = new AbortController();
    const href = url.href;
    let exchange: Exchange | undefined;
    let settled = false;

    const cancel = (err: EngineError) => {
      if (exchange) exchange.cut(err);
      else ac.abort(err);
    };
    const onUserAbort = () => cancel(ctx.signal!.reason as EngineError);
    const attemptStart = performance.now();
    let totalMs = ctx.opts.timeoutMs ?? options.timeoutMs;
    let idleMs = ctx.opts.idleTimeoutMs ?? options.idleTimeoutMs;
    const onTotal = () => cancel(new EngineError('TIMEOUT', `${href} did not answer in full within ${totalMs} ms`));
    const onIdle = () => cancel(new EngineError('TIMEOUT', `${href} sent nothing for ${idleMs} ms`));
    let timer = setTimeout(onTotal, totalMs);
    // Started with the request: no byte at all (not even the headers) for idleMs is idle too.
    let idleTimer = idleMs === undefined ? undefined : setTimeout(onIdle, idleMs);
    const setTimeouts = (t: { timeoutMs?: number; idleTimeoutMs?: number }) => {
      if (settled) return;
      if (t.timeoutMs !== undefined) {
        totalMs = t.timeoutMs;
        clearTimeout(timer);
        timer = setTimeout(onTotal, Math.max(0, totalMs - (performance.now() - attemptStart)));
      }
      if (t.idleTimeoutMs !== undefined) {
        idleMs = t.idleTimeoutMs;
        clearTimeout(idleTimer);
        idleTimer = setTimeout(onIdle, idleMs);
      }
    };
    /** Frees the slot and the timers: on error, or once the raw response has ended or closed. */
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(idleTimer);
      cancellers.delete(cancel);
      ctx.signal?.removeEventListener('abort', onUserAbort);
      release();
      if (exchange) {
        exchange.done = true;
        exchange.onDone?.();
      }
    };
    cancellers.add(cancel);
    ctx.signal?.addEventListener('abort', onUserAbort, { once: true });

    let res: IncomingMessage;
    try {
      res = await request(url, ctx.opts.method ?? 'GET', requestHeaders(options.userAgent, ctx.opts), ac.signal);
    } catch (err) {
      finish();
      throw toEngineError(err, href, ac.signal.reason);
    }

    const ex: Exchange = {
      url,
      res,
      status: res.statusCode ?? 0,
      headers: joinHeaders(res.headersDistinct),
      wireBytes: 0,
      bodyBytes: 0,
      sentAt: attemptStart,
      done: false,
      cut(err) {
        ex.body?.destroy(err);
        res.destroy();
        finish();
      },
      touch() {
        if (!settled) idleTimer?.refresh();
      },
      setTimeouts,
    };
    exchange = ex;
    ex.touch(); // the headers are in
    // Errors on a body nobody reads (a drained redirect) must not go uncaught; a body being read
    // gets them through the stream chain.
    res.on('error', (err) => ex.body?.destroy(toEngineError(err, href, ac.signal.reason, 'reading the body of')));
    // 'end' only when the body was received in full: a body cut or failed has no end time.
    res.once('end', () => (ex.endedAt = performance.now()));
    res.once('end', finish);
    res.once('close', finish);
    return ex;
  }

  /** One hop: sends, and repeats on network errors, 5xx and 429 while retries remain. */
  async function sendWithRetries(url: URL, ctx: FetchContext): Promise<Exchange> {
    for (let attempt = 0; ; attempt++) {
      let ex: Exchange;
      try {
        ex = await send(url, ctx);
      } catch (err) {
        const e = err as EngineError;
        if (attempt >= retries || !RETRYABLE.has(e.code)) throw e;
        await pauseBeforeRetry(url, attempt, backoff(attempt), `${e.code}: ${e.message}`, ctx);
        continue;
      }
      if (ex.status !== 429 && ex.status < 500) return ex;
      const retryAfter = ex.status === 429 || ex.status === 503 ? parseRetryAfter(ex.headers['retry-after']) : undefined;
      // The server asked the whole host to wait, not just this URL.
      if (retryAfter !== undefined) limiter.pauseHost(url.hostname, Math.min(retryAfter, maxRetryAfterMs));
      if (attempt >= retries || (retryAfter !== undefined && retryAfter > maxRetryAfterMs)) return ex;
      discard(ex);
      const reason = `HTTP ${ex.status}` + (retryAfter !== undefined ? ` (Retry-After ${ex.headers['retry-after']})` : '');
      await pauseBeforeRetry(url, attempt, retryAfter ?? backoff(attempt), reason, ctx);
    }
  }

  async function pauseBeforeRetry(url: URL, attempt: number, delayMs: number, reason: string, ctx: FetchContext) {
    counters.retries++;
    options.onRetry?.({ url: url.href, attempt: attempt + 1, delayMs, reason });
    await sleep(delayMs, ctx.signal);
  }

  function backoff(attempt: number): number {
    const full = Math.min(MAX_BACKOFF_MS, retryBaseDelayMs * 2 ** attempt);
    return Math.round(full / 2 + (Math.random() * full) / 2);
  }

  function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (err?: EngineError) => {
        clearTimeout(timer);
        cancellers.delete(done);
        signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve();
      };
      const onAbort = () => done(signal!.reason as EngineError);
      const timer = setTimeout(done, ms);
      cancellers.add(done);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async function fetch(url: string, opts: FetchOptions = {}): Promise<FetchResponse> {
    if (closedWith) throw closedWith;
    const current = parseHttpUrl(url);
    const aborted = () => new EngineError('ABORTED', `The fetch of ${url} was aborted`);
    if (opts.signal?.aborted) throw aborted();
    const ctx: FetchContext = { opts };
    let unwatch = () => {};
    if (opts.signal) {
      const inner = new AbortController();
      ctx.signal = inner.signal;
      unwatch = watchAbort(opts.signal, () => inner.abort(aborted()));
    }
    try {
      const response = await followRedirects(url, current, ctx);
      // The caller's signal must reach the body until the response is over.
      if (response.done) unwatch();
      else response.onDone = unwatch;
      const maxBodyBytes = opts.maxBodyBytes ?? options.maxBodyBytes;
      return toFetchResponse(url, response, response.chain, maxBodyBytes, opts.readPrefix === true, ctx.startedAt!);
    } catch (err) {
      unwatch();
      throw err;
    }
  }

  /** Sends `first` and each hop its redirects lead to; resolves with the final exchange. */
  async function followRedirects(url: string, first: URL, ctx: FetchContext): Promise<Exchange & { chain: RedirectHop[] }> {
    let current = first;
    const chain: RedirectHop[] = [];
    const seen = new Set([withoutHash(current)]);
    for (;;) {
      const ex = await sendWithRetries(current, ctx);
      const location = ex.headers.location;
      if (ctx.opts.followRedirects === false || !REDIRECT_STATUSES.has(ex.status) || location === undefined) {
        return Object.assign(ex, { chain });
      }
      discard(ex);
      chain.push({ url: current.href, status: ex.status });
      const next = resolveRedirect(location, current);
      if (seen.has(withoutHash(next))) {
        throw new EngineError('REDIRECT_LOOP', `${url} redirects in a loop: ${[...chain.map((h) => h.url), next.href].join(' → ')}`);
      }
      if (chain.length > maxRedirects) {
        throw new EngineError('TOO_MANY_REDIRECTS', `${url} redirects more than ${maxRedirects} times`);
      }
      seen.add(withoutHash(next));
      await ctx.opts.beforeRedirect?.(next.href, current.href);
      current = next;
    }
  }

  return {
    fetch,
    close() {
      if (closedWith) return;
      closedWith = new EngineError('ABORTED', 'The HTTP fetcher was closed; no request can be sent with it');
      limiter.close(closedWith);
      for (const cancel of [...cancellers]) cancel(closedWith);
      httpAgent.destroy();
      httpsAgent.destroy();
    },
    setHostDelay(host, delayMs) {
      limiter.setHostDelay(hostnameOf(host), delayMs);
    },
    stats() {
      return { inFlight: limiter.inFlight(), requests: counters.requests, retries: counters.retries };
    },
  };
}

// ---------------------------------------------------------------- abort signals

const abortWatchers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `onAbort` when `signal` aborts; returns the unsubscribe. One real listener per signal, so
 * a crawl-wide signal shared by hundreds of fetches does not trip Node's listener-leak warning.
 */
function watchAbort(signal: AbortSignal, onAbort: () => void): () => void {
  let watchers = abortWatchers.get(signal);
  if (!watchers) {
    const set = new Set<() => void>();
    watchers = set;
    abortWatchers.set(signal, set);
    signal.addEventListener(
      'abort',
      () => {
        for (const watcher of [...set]) watcher();
        set.clear();
      },
      { once: true },
    );
  }
  watchers.add(onAbort);
  const set = watchers;
  return () => void set.delete(onAbort);
}

// ---------------------------------------------------------------- responses

/** Builds the caller's response: decoding chain, size cap, wire counter. */
function toFetchResponse(url: string, ex: Exchange, chain: RedirectHop[], maxBodyBytes: number, readPrefix: boolean, startedAt: number): FetchResponse {
  const base = {
    url,
    finalUrl: ex.url.href,
    status: ex.status,
    headers: ex.headers,
    redirectChain: chain,
    wireBytes: () => ex.wireBytes,
    elapsedMs: () => performance.now() - startedAt,
    responseTimeMs: () => (ex.endedAt === undefined ? undefined : ex.endedAt - ex.sentAt),
    bodyBytes: () => ex.bodyBytes,
    setTimeouts: (t: { timeoutMs?: number; idleTimeoutMs?: number }) => ex.setTimeouts(t),
  };
  const declared = Number(ex.headers['content-length']);
  if (declared > maxBodyBytes && !readPrefix) {
    // Fail fast without downloading; the caller still gets the status and headers.
    ex.res.destroy();
    const err = tooLarge(ex.url.href, maxBodyBytes, `it declares ${declared} bytes`);
    return {
      ...base,
      body: new Readable({
        read() {
          this.destroy(err);
        },
      }),
    };
  }
  const body = capBody(ex.url.href, maxBodyBytes, (n) => (ex.bodyBytes += n), readPrefix ? () => ex.res.destroy() : undefined);
  ex.body = body;
  const decoders = ex.status === 204 || ex.status === 304 ? [] : decodersFor(ex.headers['content-encoding']);
  if (decoders instanceof EngineError) {
    ex.res.destroy();
    body.destroy(decoders);
    return { ...base, body };
  }
  let tail: Readable = ex.res;
  for (const { name, stream } of decoders) {
    stream.on('error', (err: Error) =>
      body.destroy(
        new EngineError('DECODING_ERROR', `The ${name} body of ${ex.url.href} could not be decoded: ${err.message}`, {
          cause: err,
        }),
      ),
    );
    tail = tail.pipe(stream);
  }
  tail.pipe(body);
  // Attached in the same tick as the pipe, so no chunk flows past uncounted.
  ex.res.on('data', (chunk: Buffer) => {
    ex.wireBytes += chunk.length;
    ex.touch();
  });
  body.once('close', () => {
    // The caller stopped early (or the body failed): cut the socket rather than leave it half read.
    if (!ex.res.readableEnded) ex.res.destroy();
    for (const d of decoders) d.stream.destroy();
  });
  return { ...base, body };
}

/**
 * The caller's body stream: passes chunks through (telling `onBytes` how many) and errors past
 * `limit` decoded bytes. With `onPrefix`, it ends instead, after the bytes up to the limit, and
 * calls it (to stop the download).
 */
function capBody(href: string, limit: number, onBytes: (n: number) => void, onPrefix?: () => void): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
      const before = seen;
      seen += chunk.length;
      if (seen <= limit) {
        onBytes(chunk.length);
        return cb(null, chunk);
      }
      if (!onPrefix) return cb(tooLarge(href, limit, 'more was received'));
      if (before <= limit) {
        // An error would drop what is buffered: the prefix ends the stream instead.
        if (before < limit) this.push(chunk.subarray(0, limit - before));
        onBytes(limit - before);
        this.push(null);
        onPrefix();
      }
      cb();
    },
  });
}

function tooLarge(href: string, limit: number, why: string): EngineError {
  return new EngineError(BODY_TOO_LARGE, `The body of ${href} exceeds the limit of ${limit} bytes (${why})`);
}

/** Decoders for a Content-Encoding list, in the order to apply them; an error for an unknown coding. */
function decodersFor(encoding: string | undefined): { name: string; stream: Transform }[] | EngineError {
  if (!encoding) return [];
  const codings = encoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  const out: { name: string; stream: Transform }[] = [];
  // Codings are listed in the order they were applied; undo them last first.
  for (const name of codings.reverse()) {
    if (name === 'gzip' || name === 'x-gzip') out.push({ name, stream: zlib.createGunzip(ZLIB_OPTIONS) });
    else if (name === 'deflate') out.push({ name, stream: new DeflateDecoder() });
    else if (name === 'br') out.push({ name, stream: zlib.createBrotliDecompress(BROTLI_OPTIONS) });
    else return new EngineError('UNSUPPORTED_ENCODING', `The body is sent with Content-Encoding "${encoding}", which cannot be decoded`);
  }
  return out;
}

/**
 * "deflate" is meant to be zlib-wrapped (RFC 9110) but many servers send raw deflate;
 * the first two bytes tell which, as browsers do.
 */
class DeflateDecoder extends Transform {
  private inner?: zlib.Inflate | zlib.InflateRaw;
  private head: Buffer = Buffer.alloc(0);

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    if (!this.inner) {
      this.head = Buffer.concat([this.head, chunk]);
      if (this.head.length < 2) return cb();
      chunk = this.head;
      this.start();
    }
    this.inner!.write(chunk, () => cb());
  }

  override _flush(cb: TransformCallback): void {
    if (!this.inner) {
      if (this.head.length === 0) return cb();
      this.start();
      this.inner!.write(this.head);
    }
    this.inner!.once('end', () => cb());
    this.inner!.end();
  }

  override _destroy(err: Error | null, cb: (error?: Error | null) => void): void {
    this.inner?.destroy();
    cb(err);
  }

  private start(): void {
    const [a, b] = this.head;
    const zlibWrapped = this.head.length >= 2 && (a! & 0x0f) === 8 && ((a! << 8) | b!) % 31 === 0;
    this.inner = zlibWrapped ? zlib.createInflate(ZLIB_OPTIONS) : zlib.createInflateRaw(ZLIB_OPTIONS);
    this.inner.on('data', (d: Buffer) => this.push(d));
    this.inner.on('error', (e) => this.destroy(e));
  }
}

/** Frees a response the caller will not see (a redirect, a retried 5xx): drain small bodies, cut big ones. */
function discard(ex: Exchange): void {
  const declared = Number(ex.headers['content-length']);
  if (declared > DRAIN_LIMIT_BYTES) ex.res.destroy();
  else ex.res.resume();
}

// ---------------------------------------------------------------- urls, headers, errors

/** A request's headers: the client's, and a recrawl's validators (sent on every hop of a redirect). */
function requestHeaders(userAgent: string, opts: FetchOptions): Record<string, string> {
  const h: Record<string, string> = {
    'User-Agent': userAgent,
    Accept: opts.accept ?? DEFAULT_ACCEPT,
    'Accept-Encoding': ACCEPT_ENCODING,
  };
  const c = opts.conditional;
  if (c?.etag) h['If-None-Match'] = c.etag;
  if (c?.lastModified) h['If-Modified-Since'] = c.lastModified;
  return h;
}

function parseHttpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EngineError('INVALID_URL', `"${url}" is not a valid absolute URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new EngineError('INVALID_URL', `"${url}" is not an http or https URL`);
  }
  return parsed;
}

function resolveRedirect(location: string, from: URL): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new EngineError('INVALID_REDIRECT', `${from.href} redirects to "${location}", which is not a valid URL`);
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new EngineError('INVALID_REDIRECT', `${from.href} redirects to "${location}", which is not an http or https URL`);
  }
  return next;
}

/** "example.com:8080" → "example.com"; the limiter keys hosts by name, whatever the port. */
function hostnameOf(host: string): string {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return host.toLowerCase();
  }
}

function withoutHash(url: URL): string {
  return url.hash ? url.href.slice(0, -url.hash.length) : url.href;
}

function joinHeaders(distinct: NodeJS.Dict<string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in distinct) out[name] = distinct[name]!.join(', ');
  return out;
}

/** Network error codes, as Node and the resolver report them, to the engine's codes. */
function codeFor(nodeCode: string | undefined): string {
  switch (nodeCode) {
    case 'ECONNREFUSED':
      return 'CONNECTION_REFUSED';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return 'DNS_FAILURE';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'CONNECTION_RESET';
    case 'ETIMEDOUT':
    case 'ESOCKETTIMEDOUT':
    case CONNECT_TIMEOUT:
      return 'TIMEOUT';
    case 'ABORT_ERR':
      return 'ABORTED';
  }
  if (nodeCode?.startsWith('HPE_')) return 'PROTOCOL_ERROR';
  if (nodeCode && /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/.test(nodeCode)) return 'TLS_ERROR';
  return 'NETWORK_ERROR';
}

const DESCRIPTIONS: Record<string, string> = {
  CONNECTION_REFUSED: 'the connection was refused',
  DNS_FAILURE: 'the host name could not be resolved',
  CONNECTION_RESET: 'the connection was reset',
  TIMEOUT: 'the request timed out',
  ABORTED: 'the request was aborted',
  PROTOCOL_ERROR: 'the server sent an invalid HTTP response',
  TLS_ERROR: 'the TLS handshake failed',
  NETWORK_ERROR: 'a network error occurred',
};

/** An EngineError naming the URL for anything a request can throw. */
function toEngineError(err: unknown, href: string, abortReason?: unknown, doing = 'fetching'): EngineError {
  // Our own timeouts and aborts travel as the abort reason or the error's cause.
  if (abortReason instanceof EngineError) return abortReason;
  if (err instanceof EngineError) return err;
  const cause = (err as { cause?: unknown })?.cause;
  if (cause instanceof EngineError) return cause;
  const nodeCode = (cause as { code?: string } | undefined)?.code ?? (err as { code?: string } | undefined)?.code;
  const code = codeFor(nodeCode);
  const detail = (cause as Error | undefined)?.message ?? (err as Error | undefined)?.message ?? String(err);
  const why = nodeCode && !detail.includes(nodeCode) ? `${nodeCode}: ${detail}` : detail;
  return new EngineError(code, `Error ${doing} ${href}: ${DESCRIPTIONS[code]} (${why})`, {
    cause: err,
  });
}

/** Makes new sockets of `agent` fail with TIMEOUT when connecting (and TLS) takes too long. */
function withConnectTimeout<A extends http.Agent>(agent: A, timeoutMs: number, readyEvent: string): A {
  type CreateConnection = (...args: unknown[]) => Socket;
  const create = (agent as unknown as { createConnection: CreateConnection }).createConnection.bind(agent);
  (agent as unknown as { createConnection: CreateConnection }).createConnection = (...args: unknown[]) => {
    const socket = create(...args);
    const timer = setTimeout(() => {
      socket.destroy(Object.assign(new Error(`connecting took longer than ${timeoutMs} ms`), { code: CONNECT_TIMEOUT }));
    }, timeoutMs);
    const clear = () => clearTimeout(timer);
    socket.once(readyEvent, clear);
    socket.once('close', clear);
    return socket;
  };
  return agent;
}
