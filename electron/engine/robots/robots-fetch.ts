/**
 * Fetching robots.txt and turning the answer into rules, per RFC 9309 section 2.3:
 * 2xx → parse (the first 512 KiB, whatever its size); 4xx, or redirects that lead nowhere (more
 * than the fetcher follows, a loop) → unavailable, everything allowed; 5xx or no answer →
 * unreachable, everything disallowed (and the analyst is told why and how to override it).
 */
import type { Readable } from 'node:stream';
import type { Problem } from '../../../shared/model.js';
import { EngineError, type CrawlerCheckpoint, type HttpFetcher, type RobotsTxt } from '../types.js';
import { MAX_ROBOTS_CHARS, parseRobotsTxt } from './robots.js';

export type RobotsOutcome = 'parsed' | 'allow-all' | 'disallow-all';

export interface RobotsFetchResult {
  robots: RobotsTxt;
  outcome: RobotsOutcome;
  httpStatus?: number;
  /** The decoded body that was parsed (2xx only): saved in the checkpoint. */
  body?: string;
  /** Why the outcome is not a plain parse: unreachable, unusual status, truncated. */
  problem?: Problem;
  /** Bytes received on the wire. */
  bytes: number;
}

export interface RobotsFetchOptions {
  /** Bytes of body read at most (default 512 KiB; RFC 9309 asks for at least 500 KiB). */
  maxBytes?: number;
  signal?: AbortSignal;
}

export const DEFAULT_ROBOTS_MAX_BYTES = MAX_ROBOTS_CHARS;

/** Fetch errors of a server that answered, only with redirects that lead nowhere. */
const REDIRECT_FAILURES = new Set(['TOO_MANY_REDIRECTS', 'REDIRECT_LOOP', 'INVALID_REDIRECT']);

/** Fetches and interprets one robots.txt. Throws only when `signal` aborted it. */
export async function fetchRobotsTxt(fetcher: HttpFetcher, robotsUrl: string, opts: RobotsFetchOptions = {}): Promise<RobotsFetchResult> {
  const maxBytes = opts.maxBytes ?? DEFAULT_ROBOTS_MAX_BYTES;
  let status: number | undefined;
  let bytes = 0;
  try {
    const res = await fetcher.fetch(robotsUrl, {
      accept: 'text/plain, */*;q=0.1',
      // Read a prefix whatever the declared length (RFC 9309 asks for 500 KiB at least), with room
      // beyond the cap so the cut is ours, at a line end.
      maxBodyBytes: maxBytes + 64 * 1024,
      readPrefix: true,
      signal: opts.signal,
    });
    status = res.status;
    if (status >= 200 && status < 300) {
      const read = await readCapped(res.body, maxBytes);
      bytes = res.wireBytes() || read.buf.length;
      let buf = read.buf;
      let problem: Problem | undefined;
      if (read.truncated) {
        // Cut at the last line end, in bytes, so neither a rule nor a UTF-8 sequence is half read.
        const end = Math.max(buf.lastIndexOf(0x0a), buf.lastIndexOf(0x0d));
        buf = buf.subarray(0, end + 1);
        problem = {
          code: 'ROBOTS_TRUNCATED',
          message: `robots.txt at ${robotsUrl} is larger than ${formatBytes(maxBytes)}; only its first ${formatBytes(maxBytes)} were read (RFC 9309 allows this cap).`,
        };
      }
      const body = decodeRobotsBody(buf);
      return { robots: parseRobotsTxt(body, robotsUrl), outcome: 'parsed', httpStatus: status, body, problem, bytes };
    }
    res.body.destroy();
    bytes = res.wireBytes();
    if (status >= 500 || status === 429) {
      // 429 is a server asking to back off: treated like 5xx, as Google does.
      return unreachable(robotsUrl, `answered HTTP ${status}`, status, bytes);
    }
    if (status >= 400) {
      const problem: Problem | undefined =
        status === 404 || status === 410
          ? undefined
          : {
              code: 'ROBOTS_UNAVAILABLE',
              message: `robots.txt at ${robotsUrl} answered HTTP ${status}; per RFC 9309 an unavailable robots.txt allows everything, so the crawl goes on without rules.`,
            };
      return { robots: ALLOW_ALL, outcome: 'allow-all', httpStatus: status, problem, bytes };
    }
    // 1xx or a 3xx the fetcher could not follow (no Location): no robots.txt to read.
    return {
      robots: ALLOW_ALL,
      outcome: 'allow-all',
      httpStatus: status,
      bytes,
      problem: {
        code: 'ROBOTS_UNAVAILABLE',
        message: `robots.txt at ${robotsUrl} answered HTTP ${status} without a usable redirect; it is treated as unavailable, so everything is allowed.`,
      },
    };
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    if (err instanceof EngineError && REDIRECT_FAILURES.has(err.code)) {
      // RFC 9309 2.3.1.2: past the redirects a crawler follows, robots.txt may be taken as unavailable (Google does).
      return {
        robots: ALLOW_ALL,
        outcome: 'allow-all',
        httpStatus: status,
        bytes,
        problem: {
          code: err.code,
          message: `${err.message}: robots.txt at ${robotsUrl} is not reached through its redirects, so per RFC 9309 it is treated as unavailable and everything is allowed.`,
        },
      };
    }
    const why = err instanceof EngineError ? `could not be fetched (${err.code}: ${err.message})` : `could not be fetched (${String(err)})`;
    return unreachable(robotsUrl, why, status, bytes);
  }
}

type SavedRobots = CrawlerCheckpoint['robots'][string];

/** Parsed rules per saved entry: callers may rebuild from the same entry for every URL they check. */
const rebuilt = new WeakMap<SavedRobots, { body: string; robotsUrl: string; robots: RobotsTxt }>();

/**
 * Rebuilds the rules of a robots.txt saved in a checkpoint, without fetching it again. Without
 * `robotsUrl`, relative Sitemap: lines are dropped (the rules are unaffected). Repeated calls with
 * the same entry return the same parsed rules.
 */
export function robotsFromCheckpoint(saved: SavedRobots, robotsUrl = ''): RobotsTxt {
  switch (saved.outcome) {
    case 'parsed': {
      const body = saved.body ?? '';
      const hit = rebuilt.get(saved);
      if (hit && hit.body === body && hit.robotsUrl === robotsUrl) return hit.robots;
      const robots = parseRobotsTxt(body, robotsUrl);
      rebuilt.set(saved, { body, robotsUrl, robots });
      return robots;
    }
    case 'disallow-all':
      return DISALLOW_ALL;
    default:
      return ALLOW_ALL;
  }
}

/**
 * The text of a robots.txt body: a whole or partial UTF-8 BOM at the start is dropped (as Google's
 * parser does), then the bytes are read as UTF-8, or as Latin-1 when they are not valid UTF-8, so
 * every byte still becomes one character and ASCII rules keep working.
 */
export function decodeRobotsBody(buf: Uint8Array): string {
  let start = 0;
  const bom = [0xef, 0xbb, 0xbf];
  while (start < 3 && start < buf.length && buf[start] === bom[start]) start++;
  const bytes = buf.subarray(start);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  }
}

/** Allows every URL: for an unavailable (4xx) robots.txt. */
export const ALLOW_ALL: RobotsTxt = Object.freeze({
  isAllowed: () => true,
  sitemaps: [] as string[],
  crawlDelay: () => undefined,
});

/** Disallows every URL but /robots.txt itself: for an unreachable (5xx, network) robots.txt. */
export const DISALLOW_ALL: RobotsTxt = parseRobotsTxt('User-agent: *\nDisallow: /\n', '');

function unreachable(robotsUrl: string, why: string, status: number | undefined, bytes: number): RobotsFetchResult {
  return {
    robots: DISALLOW_ALL,
    outcome: 'disallow-all',
    httpStatus: status,
    bytes,
    problem: {
      code: 'ROBOTS_UNREACHABLE',
      message:
        `robots.txt at ${robotsUrl} ${why}. Per RFC 9309 the crawl treats the site as disallowed and fetches nothing from it. ` +
        `If you are allowed to crawl it anyway, switch "respect robots.txt" off in the crawl settings.`,
    },
  };
}

/** Reads a stream up to `max` bytes, then stops it. A too-large error past the cap is a truncation. */
async function readCapped(body: Readable, max: number): Promise<{ buf: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let total = 0;
  let truncated = false;
  try {
    for await (const chunk of body) {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      if (total + b.length > max) {
        chunks.push(b.subarray(0, max - total));
        total = max;
        truncated = true;
        break;
      }
      chunks.push(b);
      total += b.length;
    }
  } catch (err) {
    if (!(err instanceof Error && (err as { code?: string }).code === 'EBODY_TOO_LARGE')) throw err;
    truncated = true;
  } finally {
    body.destroy();
  }
  return { buf: Buffer.concat(chunks, total), truncated };
}

function formatBytes(n: number): string {
  return n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`;
}
