/**
 * Inflates a gzip body as gunzip does: member after member (concatenated gzip), each checked
 * against its CRC-32 and length. zlib's Gunzip fails on bytes after a member that are not another
 * member (a proxy's trailer) and drops the output of the chunk they came in: all of a small
 * sitemap, the last few hundred entries of a large one. Here each member is inflated raw, its
 * header and trailer read here, so all of its output is handed on and the bytes after it are
 * reported (`trailing`) instead.
 */
import { crc32, createInflateRaw, type InflateRaw } from 'node:zlib';

/** Bytes after the last member that are not gzip. */
export interface GzipTrailing {
  /** Where they start in the compressed body. */
  at: number;
  bytes: number;
  /** All zero (padding, which gunzip skips silently). */
  zeros: boolean;
}

export interface InflateOptions {
  /** Bytes handed on at a time, at most. */
  chunkSize: number;
  /** Told of each body chunk once it is all inflated and nothing holds it (see streamMapped). */
  consumed?: (chunk: Buffer) => void;
  /** Told once of bytes after the last member that are not gzip; reading ends there without an error. */
  trailing?: (t: GzipTrailing) => void;
}

// Header flags (RFC 1952).
const FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;
const FRESERVED = 0xe0;

/**
 * The inflated bytes of a gzip body. Corrupt or truncated data throws from the iteration (messages
 * as zlib's); stopping it early closes the body before return() settles.
 */
export async function* inflateGzip(source: AsyncIterable<Buffer>, opts: InflateOptions): AsyncGenerator<Buffer, void, void> {
  const input = new ByteInput(source, opts.consumed);
  let raw: InflateRaw | null = null;
  let feeding: Promise<void> | null = null;
  try {
    for (;;) {
      await readHeader(input);
      const member = createInflateRaw({ chunkSize: opts.chunkSize });
      raw = member;
      feeding = feed(member, input);
      let crc = 0;
      let size = 0;
      for await (const out of member as AsyncIterable<Buffer>) {
        crc = crc32(out, crc);
        size += out.length;
        yield out;
      }
      await feeding;
      feeding = null;
      raw = null;
      const trailer = await input.take(8);
      if (trailer.length < 8) throw new Error('unexpected end of file');
      if (trailer.readUInt32LE(0) !== crc >>> 0) throw new Error('incorrect data check');
      if (trailer.readUInt32LE(4) !== size % 0x1_0000_0000) throw new Error('incorrect length check');

      // Another member, the end, or bytes that are neither.
      const next = await input.startsWith(0x1f, 0x8b);
      if (next === null) return;
      if (next) continue;
      const at = input.offset;
      let bytes = 0;
      let zeros = true;
      for (let c = await input.next(); c !== null; c = await input.next()) {
        bytes += c.buf.length;
        if (zeros) zeros = allZero(c.buf);
        input.used(c);
      }
      opts.trailing?.({ at, bytes, zeros });
      return;
    }
  } finally {
    raw?.destroy();
    await feeding;
    await input.close();
  }
}

/** Reads a member's header (RFC 1952 §2.3), throwing on anything but deflate. */
async function readHeader(input: ByteInput): Promise<void> {
  const h = await input.take(10);
  if (h.length < 10) throw new Error('unexpected end of file');
  if (h[0] !== 0x1f || h[1] !== 0x8b) throw new Error('incorrect header check');
  if (h[2] !== 8) throw new Error('unknown compression method');
  const flags = h[3]!;
  if (flags & FRESERVED) throw new Error('reserved gzip header flags set');
  if (flags & FEXTRA) {
    const x = await input.take(2);
    if (x.length < 2) throw new Error('unexpected end of file');
    await input.skip(x.readUInt16LE(0));
  }
  if (flags & FNAME) await input.skipPast(0);
  if (flags & FCOMMENT) await input.skipPast(0);
  if (flags & FHCRC) await input.skip(2);
}

/** Body chunks written to an inflater ahead of the one it works on: it goes on to the next without waiting for this thread. */
const WRITE_AHEAD = 2;

/**
 * Writes the body to one member's inflater, WRITE_AHEAD chunks at a time, until its deflate data
 * ends; the bytes after the end (its trailer, and what follows) are given back to `input`. Never
 * rejects: a failing body is the inflater's error, which its reader sees.
 */
async function feed(raw: InflateRaw, input: ByteInput): Promise<void> {
  const gone = new Promise<false>((resolve) => raw.once('close', () => resolve(false)));
  /** Chunks written and not yet known to be used, each with its end in the bytes written and its write's callback. */
  const written: { piece: Piece; end: number; done: Promise<boolean> }[] = [];
  let fed = 0;
  let ended = false;
  try {
    for (;;) {
      while (!ended && written.length < WRITE_AHEAD) {
        const c = await input.next();
        if (c === null || raw.destroyed) {
          // The body ended, or the inflater did meanwhile (its data ended, or it failed): the chunks
          // written before still say how much of them it took.
          ended = true;
          if (c !== null) input.unread(c, 0);
          else if (!raw.destroyed) raw.end(); // zlib says whether the data ended ("unexpected end of file" if not)
          break;
        }
        fed += c.buf.length;
        written.push({ piece: c, end: fed, done: new Promise<boolean>((resolve) => raw.write(c.buf, (err) => resolve(!err))) });
      }
      const head = written.shift();
      if (head === undefined) return;
      // Its callback comes with the inflater's end when the data ends in it (before the inflater closes).
      if (!(await Promise.race([head.done, gone]))) return;
      // The inflater takes no more once its data ends (zlib counts what it took in bytesWritten).
      const taken = raw.bytesWritten - (head.end - head.piece.buf.length);
      if (taken < head.piece.buf.length) {
        // The chunks written after it were not touched; zlib may still hold them until their callback.
        for (let i = written.length - 1; i >= 0; i--) input.unread(written[i]!.piece, 0, written[i]!.done);
        input.unread(head.piece, taken);
        return;
      }
      input.used(head.piece);
    }
  } catch (err) {
    raw.destroy(err instanceof Error ? err : new Error(String(err)));
  }
}

const ZEROES = Buffer.alloc(64 * 1024);

function allZero(buf: Buffer): boolean {
  for (let i = 0; i < buf.length; i += ZEROES.length) {
    const n = Math.min(ZEROES.length, buf.length - i);
    if (buf.compare(ZEROES, 0, n, i, i + n) !== 0) return false;
  }
  return true;
}

/** Bytes of the body: a chunk as it came, or the end of one (`origin`) given back. */
interface Piece {
  buf: Buffer;
  origin: Buffer;
  /** Settles once the inflater no longer holds the chunk (it was written to one, which did not use it). */
  held?: Promise<unknown>;
}

/**
 * The body as a byte source that takes back the end of what it gave (what a member did not use),
 * and tells `consumed` of each body chunk once all of it was used.
 */
class ByteInput {
  private readonly it: AsyncIterator<Buffer>;
  private readonly back: Piece[] = [];
  private ended = false;
  /** Bytes taken from the body and not given back. */
  offset = 0;

  constructor(
    source: AsyncIterable<Buffer>,
    private readonly consumed: ((chunk: Buffer) => void) | undefined,
  ) {
    this.it = source[Symbol.asyncIterator]();
  }

  /** The next bytes; null at the end. Give each back (unread) or say it was used. */
  async next(): Promise<Piece | null> {
    for (;;) {
      const p = this.back.pop();
      if (p !== undefined) {
        this.offset += p.buf.length;
        return p;
      }
      if (this.ended) return null;
      const r = await this.it.next();
      if (r.done) {
        this.ended = true;
        return null;
      }
      if (r.value.length === 0) continue;
      this.offset += r.value.length;
      return { buf: r.value, origin: r.value };
    }
  }

  /** Gives back a piece from `from` on (its end): the next call of next() returns it. */
  unread(p: Piece, from: number, held: Promise<unknown> | undefined = p.held): void {
    if (from >= p.buf.length) {
      this.used(p);
      return;
    }
    this.offset -= p.buf.length - from;
    const back: Piece = { buf: from === 0 ? p.buf : p.buf.subarray(from), origin: p.origin };
    if (held !== undefined) back.held = held;
    this.back.push(back);
  }

  /** A piece was used to its end, so its chunk was: told once nothing holds it. */
  used(p: Piece): void {
    const consumed = this.consumed;
    if (consumed === undefined) return;
    if (p.held === undefined) consumed(p.origin);
    else void p.held.then(() => consumed(p.origin));
  }

  /** Whether the next two bytes are `a` and `b`, leaving them to be read; null at the end of the body. */
  async startsWith(a: number, b: number): Promise<boolean | null> {
    const first = await this.next();
    if (first === null) return null;
    if (first.buf.length >= 2) {
      this.unread(first, 0);
      return first.buf[0] === a && first.buf[1] === b;
    }
    const second = await this.next();
    if (second !== null) this.unread(second, 0);
    this.unread(first, 0);
    return second !== null && first.buf[0] === a && second.buf[0] === b;
  }

  /** A copy of the next `n` bytes, fewer when the body ends first. */
  async take(n: number): Promise<Buffer> {
    const out = Buffer.alloc(n);
    let have = 0;
    while (have < n) {
      const c = await this.next();
      if (c === null) return out.subarray(0, have);
      const k = Math.min(n - have, c.buf.length);
      c.buf.copy(out, have, 0, k);
      have += k;
      this.unread(c, k);
    }
    return out;
  }

  /** Skips `n` bytes; throws when the body ends first. */
  async skip(n: number): Promise<void> {
    while (n > 0) {
      const c = await this.next();
      if (c === null) throw new Error('unexpected end of file');
      const k = Math.min(n, c.buf.length);
      n -= k;
      this.unread(c, k);
    }
  }

  /** Skips past the next `byte` (the end of a zero-terminated header field); throws when the body ends first. */
  async skipPast(byte: number): Promise<void> {
    for (;;) {
      const c = await this.next();
      if (c === null) throw new Error('unexpected end of file');
      const i = c.buf.indexOf(byte);
      this.unread(c, i === -1 ? c.buf.length : i + 1);
      if (i !== -1) return;
    }
  }

  /** Closes the body (its source's return()). */
  async close(): Promise<void> {
    this.back.length = 0;
    if (this.ended) return;
    this.ended = true;
    await this.it.return?.();
  }
}
