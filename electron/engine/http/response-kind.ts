/**
 * Tells what a response body is from its first bytes (and its Content-Type only as a tie-breaker):
 * a sitemap or feed goes to the sitemap parser whatever link led to it.
 */
import { Readable } from 'node:stream';
import { gunzipSync, constants as zc } from 'node:zlib';
import { EngineError } from '../types.js';

export type BodyKind = 'sitemap' | 'html' | 'other';

const PEEK_BYTES = 2048;
const SITEMAP_ROOTS = new Set(['urlset', 'sitemapindex', 'rss', 'feed']);

/** Peeks at the start of the body and returns its kind plus a stream that still yields every byte. */
export async function classifyBody(body: Readable, contentType?: string): Promise<{ kind: BodyKind; body: Readable }> {
  const head: Buffer[] = [];
  let size = 0;
  const it = body[Symbol.asyncIterator]();
  let done = false;
  while (size < PEEK_BYTES) {
    const next = await it.next();
    if (next.done) {
      done = true;
      break;
    }
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    head.push(chunk);
    size += chunk.length;
  }
  const prefix = Buffer.concat(head);
  const rest = done ? Readable.from([prefix]) : Readable.from(chain(prefix, it));
  return { kind: kindOf(prefix, contentType), body: rest };
}

async function* chain(prefix: Buffer, it: AsyncIterator<unknown>): AsyncGenerator<Buffer> {
  if (prefix.length) yield prefix;
  for (;;) {
    const next = await it.next();
    if (next.done) return;
    yield Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value as Uint8Array);
  }
}

/** Classifies a body by its first bytes; exported for tests. */
export function kindOf(prefix: Buffer, contentType?: string): BodyKind {
  let bytes = prefix;
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes, { finishFlush: zc.Z_SYNC_FLUSH });
    } catch {
      return 'other';
    }
  }
  const text = bytes
    .subarray(0, PEEK_BYTES)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  const root = firstElement(text);
  const ct = (contentType ?? '').toLowerCase();
  if (root) {
    const local = root.toLowerCase().split(':').pop()!;
    if (SITEMAP_ROOTS.has(local)) return 'sitemap';
    if (local === 'html' || local === '!doctype html') return 'html';
  }
  if (ct.includes('html')) return 'html';
  if (ct.includes('xml') && root) return 'sitemap';
  return 'other';
}

/** Name of the first element (or `!doctype html`), skipping the XML declaration, comments and PIs. */
function firstElement(text: string): string | null {
  let i = 0;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text[i] !== '<') return null;
    if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i);
      if (end < 0) return null;
      i = end + 2;
    } else if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i);
      if (end < 0) return null;
      i = end + 3;
    } else if (/^<!doctype\s+html/i.test(text.slice(i, i + 20))) {
      return '!doctype html';
    } else if (text.startsWith('<!', i)) {
      const m = /^<!doctype\s+([\w:.-]+)/i.exec(text.slice(i, i + 200));
      return m ? m[1]! : null;
    } else {
      const m = /^<([\w:.-]+)/.exec(text.slice(i, i + 200));
      return m ? m[1]! : null;
    }
  }
}

/** Reads a whole body into memory, refusing more than maxBytes. */
export async function readBody(body: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += b.length;
    if (size > maxBytes) {
      body.destroy();
      throw new EngineError('EBODY_TOO_LARGE', `The response is larger than the ${maxBytes}-byte limit; raise "max body size" to read it.`);
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks, size);
}
