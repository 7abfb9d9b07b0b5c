/**
 * The synchronous push parser for one sitemap body (already inflated): decodes the bytes, skips a
 * BOM, tells XML from a text sitemap by the first character, and enforces the size limits.
 * streamSitemap (stream.ts) drives it from a byte stream; the benchmark drives it directly.
 */
import { isAscii } from 'node:buffer';
import { TextDecoder } from 'node:util';
import type { SitemapItem, SitemapLimits, SitemapSummary } from '../../types.js';
import { PROTOCOL_MAX_BYTES, resolveLimits } from './limits.js';
import { ItemSink } from './sink.js';
import { TextSitemapReader } from './text-sitemap.js';
import { XmlReader } from './xml-reader.js';
import { SitemapXmlHandler } from './xml-sitemap.js';

export interface SitemapParserOptions {
  /** The sitemap's URL: the scope for its entries, the base for Atom's relative links. */
  url: string;
  limits?: Partial<SitemapLimits>;
  onItem(item: SitemapItem): void;
  /**
   * Where entries must lie when not the sitemap's own folder: a sitemap announced in robots.txt may list
   * any URL of that robots.txt's host (sitemaps.org, cross-submits), so its scope is `<origin>/`.
   */
  scopeUrl?: string;
  /** The bytes were inflated from gzip: reported in the summary, and the size cap is INFLATE_LIMIT. */
  gzip?: boolean;
  /** The response's Content-Type, quoted in messages only: the content decides the type. */
  contentType?: string;
}

export interface SitemapParser {
  /** Feeds the next bytes (a string is taken as UTF-8). */
  write(chunk: Buffer | Uint8Array | string): void;
  /** Ends the document; flushes the "… and N more" problems. */
  end(): void;
  /** What was found so far (final after end()). */
  summary(): SitemapSummary;
  /** True once nothing more will be read (a fatal problem, or the root element has ended): stop feeding. */
  isDone(): boolean;
  /** True while it keeps bytes written to it for later (the first ones, until their encoding is known). */
  holdsInput(): boolean;
  /** Stops with a fatal problem raised outside the parser (a download or gzip error); the first fatal wins. */
  fail(code: string, message: string): void;
  /** Reports a problem found outside the parser that does not stop it (bytes after the gzip data). */
  problem(code: string, message: string): void;
}

/** Bytes looked at, at most, before the encoding is chosen: enough for a BOM and an XML declaration. */
const SNIFF_BYTES = 1024;
const XML_DECLARATION_ENCODING = /^\s*<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/;
const FIRST_NON_WHITESPACE = /[^ \t\r\n\f\uFEFF]/;

const MODE_SNIFF = 0;
const MODE_UNDECIDED = 1;
const MODE_XML = 2;
const MODE_TEXT = 3;

/**
 * UTF-16 without a byte order mark, told by its first characters (after any whitespace) as XML's
 * appendix F does: `<` and an ASCII character each with a zero byte (`<\0?\0`: little-endian,
 * `\0<\0?`: big-endian), or the `ht` of a text sitemap's first URL; null for anything else.
 */
function bomlessUtf16(b: Buffer): 'utf-16le' | 'utf-16be' | null {
  for (const [order, lo] of [
    ['utf-16le', 0],
    ['utf-16be', 1],
  ] as const) {
    const hi = 1 - lo;
    let i = 0;
    while (i + 5 < b.length && b[i + hi] === 0 && WHITESPACE.has(b[i + lo]!)) i += 2;
    if (i + 3 >= b.length || b[i + hi] !== 0 || b[i + 2 + hi] !== 0) continue;
    const first = b[i + lo]!;
    const second = b[i + 2 + lo]!;
    if ((first === 0x3c && second > 0x20 && second < 0x7f) || (first === 0x68 && second === 0x74)) return order;
  }
  return null;
}
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** Creates a push parser for one sitemap body; items go to onItem in document order. */
export function createSitemapParser(opts: SitemapParserOptions): SitemapParser {
  const limits = resolveLimits(opts.limits);
  const gzip = opts.gzip ?? false;
  const sink = new ItemSink(opts.url, limits, opts.onItem, opts.scopeUrl ?? opts.url);
  let mode = MODE_SNIFF;
  let head: Buffer[] = [];
  let headBytes = 0;
  let decoder: TextDecoder | undefined;
  /** The decoder is UTF-8, and holds no partial character (see decode). */
  let utf8 = false;
  let clean = false;
  let xml: XmlReader | undefined;
  let text: TextSitemapReader | undefined;
  let bytes = 0;
  let ended = false;
  // leading whitespace skipped before the first character decides the kind
  let skippedChars = 0;
  let skippedLines = 0;
  let lastSkippedNewline = -1;

  const servedAs = opts.contentType ? ` (served as ${opts.contentType})` : '';
  sink.servedAs = servedAs;

  function fail(code: string, message: string): void {
    if (xml !== undefined) xml.fail(code, message);
    else sink.stop(code, message);
  }

  function chooseDecoder(bytesHead: Buffer): void {
    mode = MODE_UNDECIDED;
    if (bytesHead[0] === 0x1f && bytesHead[1] === 0x8b) {
      fail(
        gzip ? 'GZIP_ERROR' : 'NOT_A_SITEMAP',
        gzip
          ? 'The content is still gzip-compressed after inflating it once (compressed twice); it cannot be read.'
          : `The content is gzip-compressed${servedAs}; it must be inflated before parsing.`,
      );
      return;
    }
    let encoding = 'utf-8';
    const utf16 = bomlessUtf16(bytesHead);
    if (bytesHead[0] === 0xff && bytesHead[1] === 0xfe) encoding = 'utf-16le';
    else if (bytesHead[0] === 0xfe && bytesHead[1] === 0xff) encoding = 'utf-16be';
    else if (utf16 !== null) {
      encoding = utf16;
      sink.problem(
        'ENCODING_NOT_UTF8',
        `The document is ${utf16 === 'utf-16le' ? 'UTF-16 little-endian' : 'UTF-16 big-endian'} without a byte order mark; the protocol requires UTF-8. It was decoded as ${utf16.toUpperCase()}.`,
      );
    } else {
      const declared = XML_DECLARATION_ENCODING.exec(bytesHead.toString('latin1'))?.[1];
      if (declared !== undefined && !/^utf-?8$/i.test(declared)) {
        try {
          new TextDecoder(declared);
          encoding = declared;
          sink.problem('ENCODING_NOT_UTF8', `The document declares the encoding "${declared}"; the protocol requires UTF-8. It was decoded as ${declared}.`);
        } catch {
          sink.problem('ENCODING_NOT_UTF8', `The document declares the unknown encoding "${declared}"; it was decoded as UTF-8, as the protocol requires.`);
        }
      }
    }
    decoder = new TextDecoder(encoding);
    utf8 = encoding === 'utf-8';
  }

  /**
   * The text of the next chunk of the body. While the decoder holds no partial character, an all-ASCII
   * chunk of a UTF-8 document is its own text byte for byte: read as Latin-1 after a vectorised check,
   * ten times faster than TextDecoder.
   */
  function decode(chunk: Uint8Array): string {
    if (utf8 && clean && isAscii(chunk)) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
    // A multi-byte UTF-8 sequence is all bytes from 0x80: after an ASCII byte, none is pending.
    clean = chunk.byteLength > 0 && chunk[chunk.byteLength - 1]! < 0x80;
    return decoder!.decode(chunk, { stream: true });
  }

  function route(s: string): void {
    if (s.length === 0 || sink.stopped) return;
    if (mode === MODE_XML) return xml!.write(s);
    if (mode === MODE_TEXT) return text!.write(s);
    const first = s.search(FIRST_NON_WHITESPACE);
    const skipped = first === -1 ? s : s.slice(0, first);
    for (let i = skipped.indexOf('\n'); i !== -1; i = skipped.indexOf('\n', i + 1)) {
      skippedLines++;
      lastSkippedNewline = skippedChars + i;
    }
    skippedChars += skipped.length;
    if (first === -1) return;
    const rest = s.slice(first);
    if (rest.slice(0, SNIFF_BYTES).includes('\u0000')) {
      sink.stop('NOT_A_SITEMAP', `The content is binary${servedAs}, neither XML nor a text sitemap.`);
      return;
    }
    if (rest.charCodeAt(0) === 60 /* < */) {
      mode = MODE_XML;
      xml = new XmlReader(sink, new SitemapXmlHandler(sink), {
        offset: skippedChars,
        lines: skippedLines,
        lastNewline: lastSkippedNewline,
      });
      xml.write(rest);
    } else {
      mode = MODE_TEXT;
      sink.type = 'text';
      text = new TextSitemapReader(sink, skippedLines);
      text.write(rest);
    }
  }

  function feed(chunk: Uint8Array): void {
    if (mode === MODE_SNIFF) {
      head.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      headBytes += chunk.byteLength;
      // Wait for the end of a possible XML declaration (the first '>'), or enough bytes to decide.
      if (headBytes < SNIFF_BYTES && !chunk.includes(0x3e /* > */)) return;
      const all = Buffer.concat(head);
      head = [];
      chooseDecoder(all);
      // The first text always goes through the decoder (nothing is clean yet: a BOM is dropped there).
      if (decoder !== undefined) route(decode(all));
      return;
    }
    if (decoder !== undefined) route(decode(chunk));
  }

  return {
    write(chunk) {
      if (ended) return;
      let data: Uint8Array = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      if (data.byteLength === 0) return;
      if (sink.stopped) {
        // Counted, not read: the summary's size does not depend on where the chunks were cut.
        bytes = Math.min(bytes + data.byteLength, limits.maxUncompressedBytes);
        return;
      }
      const before = bytes;
      bytes += data.byteLength;
      let capped = false;
      if (bytes > limits.maxUncompressedBytes) {
        data = data.subarray(0, limits.maxUncompressedBytes - before);
        bytes = limits.maxUncompressedBytes;
        capped = true;
      }
      if (before <= PROTOCOL_MAX_BYTES && bytes > PROTOCOL_MAX_BYTES) {
        sink.problem(
          'SITEMAP_TOO_LARGE',
          `The sitemap is larger than 50 MiB (${PROTOCOL_MAX_BYTES.toLocaleString('en-US')} bytes) uncompressed, the protocol's limit; search engines may ignore it. Reading goes on.`,
        );
      }
      feed(data);
      if (capped) {
        const mib = (limits.maxUncompressedBytes / 1024 / 1024).toFixed(limits.maxUncompressedBytes % (1024 * 1024) === 0 ? 0 : 2);
        fail(
          gzip ? 'INFLATE_LIMIT' : 'SIZE_LIMIT',
          gzip
            ? `The sitemap inflates past ${mib} MiB; inflating stopped there (a gzip bomb or a far oversized file). The entries read before were kept.`
            : `The sitemap is larger than ${mib} MiB; reading stopped there. The entries read before were kept.`,
        );
      }
    },
    end() {
      if (ended) return;
      ended = true;
      if (!sink.stopped) {
        if (mode === MODE_SNIFF) {
          const all = Buffer.concat(head);
          head = [];
          chooseDecoder(all);
          if (decoder !== undefined) route(decoder.decode(all, { stream: true }));
        }
        if (decoder !== undefined) route(decoder.decode());
        if (mode === MODE_XML) xml!.end();
        else if (mode === MODE_TEXT) text!.end();
        else if (!sink.stopped) sink.problem('EMPTY_SITEMAP', `The sitemap is empty${servedAs}: it lists nothing.`);
      }
      sink.finish();
    },
    summary() {
      return sink.summary(gzip, bytes);
    },
    isDone() {
      return ended || sink.stopped;
    },
    holdsInput() {
      return head.length > 0;
    },
    fail(code, message) {
      if (!ended) fail(code, message);
    },
    problem(code, message) {
      if (!ended) sink.problem(code, message);
    },
  };
}
