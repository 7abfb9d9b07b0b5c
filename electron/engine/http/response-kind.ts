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

/**
 * Peeks at the start of the body and returns its kind plus a stream that still yields every byte:
 * the same stream, the peeked bytes put back in front (a body that ended while peeked at is handed
 * back whole in a new one).
 */
export async function classifyBody(body: Readable, contentType?: string): Promise<{ kind: BodyKind; body: Readable }> {
  const { prefix, ended } = await peek(body, PEEK_BYTES);
  const kind = kindOf(prefix, contentType);
  return { kind, body: ended ? Readable.from(prefix.length ? [prefix] : []) : body };
}

/**
 * Reads at least `bytes` from the start of a stream (all of it when shorter). Unless the stream
 * ended first, the bytes are put back in front of it at once: its end, due on the next tick once
 * everything was read, would otherwise come before anyone could put them back.
 */
function peek(body: Readable, bytes: number): Promise<{ prefix: Buffer; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const head: Buffer[] = [];
    let size = 0;
    const settle = (ended: boolean, err?: unknown, prefix?: Buffer) => {
      body.off('readable', pull);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
      if (err) reject(err);
      else resolve({ prefix: prefix ?? Buffer.concat(head, size), ended });
    };
    const pull = () => {
      let chunk: unknown;
      while (size < bytes && (chunk = body.read()) !== null) {
        const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        head.push(b);
        size += b.length;
      }
      if (size < bytes) return;
      const prefix = head.length === 1 ? head[0]! : Buffer.concat(head, size);
      body.unshift(prefix);
      settle(false, undefined, prefix);
    };
    const onEnd = () => settle(true);
    const onError = (err: unknown) => settle(false, err);
    const onClose = () => settle(false, closedEarly());
    if (body.readableEnded) return resolve({ prefix: Buffer.alloc(0), ended: true });
    if (body.destroyed) return reject(body.errored ?? closedEarly());
    body.on('readable', pull);
    body.once('end', onEnd);
    body.once('error', onError);
    body.once('close', onClose);
  });
}

function closedEarly(): EngineError {
  return new EngineError('BODY_FAILED', 'The connection closed before the whole response body was received');
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
export function readBody(body: Readable, maxBytes: number): Promise<Buffer> {
  if (body.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (err: unknown, buf?: Buffer) => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolve(buf!);
    };
    body.on('data', (chunk: unknown) => {
      if (settled) return;
      const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      size += b.length;
      if (size > maxBytes) {
        settle(new EngineError('EBODY_TOO_LARGE', `The response is larger than the ${maxBytes}-byte limit; raise "max body size" to read it.`));
        body.destroy();
        return;
      }
      chunks.push(b);
    });
    body.once('end', () => settle(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    // Listened to for as long as the stream lives: an error after the body was refused is not uncaught.
    body.on('error', (err) => settle(err));
    body.once('close', () => settle(closedEarly()));
    if (body.destroyed && !body.readableEnded) settle(body.errored ?? closedEarly());
    // Flowing even when a peek just left it paused.
    body.resume();
  });
}
