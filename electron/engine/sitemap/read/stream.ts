/**
 * Streams one sitemap body into batches of items: gzip is recognised by its magic bytes (never
 * by name or header) and inflated with a byte cap; nothing holds the whole document.
 */
import type { SitemapItem, SitemapLimits, SitemapSummary } from '../../types.js';
import { inflateGzip, type GzipTrailing } from './gzip-members.js';
import { DEFAULT_BATCH_SIZE } from './limits.js';
import { createSitemapParser } from './parser.js';

export { createSitemapParser, type SitemapParser, type SitemapParserOptions } from './parser.js';

/**
 * Bytes the inflater hands the parser at a time: 64 KiB instead of zlib's 16, as each chunk costs a trip
 * through the stream, the decoder and the reader's bookkeeping.
 */
export const INFLATE_CHUNK = 64 * 1024;

export interface StreamSitemapOptions {
  /** The sitemap's URL (after redirects): scope of its entries, base of Atom's relative links. */
  url: string;
  limits?: Partial<SitemapLimits>;
  /** Scope of its entries when not its own folder (see SitemapParserOptions.scopeUrl). */
  scopeUrl?: string;
  /** Items per yielded batch (default 500); the last batch may be shorter. */
  batchSize?: number;
  /** The response's Content-Type, quoted in messages only: the content decides the type. */
  contentType?: string;
}

/**
 * Streams one sitemap body, yielding items in batches; returns the summary. Never holds the whole document.
 * Problems are items in document order; a fatal problem is yielded as an item too and is also
 * summary.fatal (the same problem: record it once). A failing body (download error, corrupt gzip)
 * does not throw: what was read is kept and the failure is the fatal problem. Stopping the
 * iteration early closes the body.
 */
export function streamSitemap(body: AsyncIterable<Buffer>, opts: StreamSitemapOptions): AsyncGenerator<SitemapItem[], SitemapSummary, void> {
  return streamMapped(body, opts, (item) => item);
}

/**
 * streamSitemap with each item turned into something else as soon as the parser reads it (the
 * parse worker writes items as JSON text right away: its small young generation then holds bytes,
 * not entry objects). `consumed`, when given, is told of each body chunk once nothing reads it any
 * more (inflated, or decoded): the parse worker gives its memory back then. (A plain body's first
 * chunks, kept by the parser until it knows their encoding, are not told of.)
 */
export async function* streamMapped<T>(
  body: AsyncIterable<Buffer>,
  opts: StreamSitemapOptions,
  map: (item: SitemapItem) => T,
  consumed?: (chunk: Buffer) => void,
): AsyncGenerator<T[], SitemapSummary, void> {
  const batchSize = Math.max(1, Math.floor(opts.batchSize ?? DEFAULT_BATCH_SIZE));
  let pending: T[] = [];
  const source = body[Symbol.asyncIterator]();
  let sourceError: unknown;

  // The first two bytes decide gzip; read until there are two (or the body ends).
  const head: Buffer[] = [];
  let headBytes = 0;
  let sourceDone = false;
  try {
    while (headBytes < 2) {
      const r = await source.next();
      if (r.done) {
        sourceDone = true;
        break;
      }
      const chunk = toBuffer(r.value);
      head.push(chunk);
      headBytes += chunk.length;
    }
  } catch (err) {
    sourceError = err;
    sourceDone = true;
  }
  const first = Buffer.concat(head);
  const gzip = first.length >= 2 && first[0] === 0x1f && first[1] === 0x8b;
  const parser = createSitemapParser({
    url: opts.url,
    scopeUrl: opts.scopeUrl,
    limits: opts.limits,
    gzip,
    contentType: opts.contentType,
    onItem: (item) => pending.push(map(item)),
  });

  async function* rawBytes(): AsyncGenerator<Buffer> {
    try {
      if (first.length > 0) yield first;
      while (!sourceDone) {
        let r: IteratorResult<Buffer>;
        try {
          r = await source.next();
        } catch (err) {
          sourceError = err;
          throw err;
        }
        if (r.done) break;
        yield toBuffer(r.value);
      }
    } finally {
      if (!sourceDone) await source.return?.(); // stopped early: close the download
    }
  }

  function* batches(all: boolean): Generator<T[]> {
    if (pending.length < batchSize && !(all && pending.length > 0)) return;
    const items = pending;
    pending = [];
    let i = 0;
    for (; i + batchSize <= items.length; i += batchSize) yield items.slice(i, i + batchSize);
    if (i < items.length) {
      if (all) yield items.slice(i);
      else pending = items.slice(i).concat(pending);
    }
  }

  if (sourceError !== undefined) {
    parser.fail(errorCode(sourceError, 'BODY_ERROR'), downloadMessage(sourceError, 0));
  } else {
    // Leaving the loop (the parser is done, or this generator is stopped) returns the inflater,
    // which closes the body before it settles.
    const chunks: AsyncIterable<Buffer> = gzip
      ? inflateGzip(rawBytes(), { chunkSize: INFLATE_CHUNK, consumed, trailing: (t) => parser.problem('GZIP_TRAILING_BYTES', trailingMessage(t)) })
      : rawBytes();
    try {
      for await (const chunk of chunks) {
        parser.write(chunk);
        if (!gzip && consumed && !parser.holdsInput()) consumed(chunk);
        yield* batches(false);
        if (parser.isDone()) break;
      }
    } catch (err) {
      const read = parser.summary().uncompressedBytes;
      if (sourceError !== undefined) {
        parser.fail(errorCode(sourceError, 'BODY_ERROR'), downloadMessage(sourceError, read));
      } else {
        parser.fail(
          'GZIP_ERROR',
          `The gzip data is corrupt or truncated (${errorText(err)}) after ${read.toLocaleString('en-US')} inflated bytes; the entries read before were kept.`,
        );
      }
    }
  }
  parser.end();
  yield* batches(true);
  return parser.summary();
}

function trailingMessage(t: GzipTrailing): string {
  const n = t.bytes.toLocaleString('en-US');
  const plural = t.bytes === 1 ? 'byte follows' : 'bytes follow';
  const what = t.zeros
    ? `${n} more zero ${plural} (padding)`
    : `${n} more ${plural} that ${t.bytes === 1 ? 'is' : 'are'} not gzip (a proxy's or server's trailer, or a damaged file)`;
  return `The gzip data ends after ${t.at.toLocaleString('en-US')} bytes of the file, and ${what}; ${t.bytes === 1 ? 'it was' : 'they were'} ignored. Everything before ${t.bytes === 1 ? 'it' : 'them'} was read.`;
}

function toBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError(`A sitemap body must yield bytes, not ${typeof chunk}`);
}

function errorCode(err: unknown, fallback: string): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : fallback;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function downloadMessage(err: unknown, read: number): string {
  return `The download failed after ${read.toLocaleString('en-US')} bytes (${errorText(err)}); the entries read before were kept.`;
}
