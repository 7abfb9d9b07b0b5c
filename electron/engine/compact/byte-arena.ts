/**
 * An append-only UTF-8 byte arena: strings live as bytes in fixed-size Buffer chunks and are
 * addressed by a 32-bit global offset, so a million URLs cost their bytes and nothing per object.
 */
import { EngineError } from '../types.js';

/** Chunk size: large enough that chunk ends waste little, small enough to grow gently. */
const CHUNK_BITS = 22;
const CHUNK = 1 << CHUNK_BITS; // 4 MiB
/** Offsets are stored in Uint32 columns; 0xFFFFFFFF is kept free as a sentinel for callers. */
const MAX_OFFSET = 0xffff_fffe;

export class ByteArena {
  private chunks: Buffer[] = [];
  /** Global offset of the next free byte. */
  private end = 0;
  /** Bytes written by the last `stage`. */
  stagedLength = 0;
  /** Global offset of the last `stage`. */
  stagedOffset = 0;

  /**
   * Writes `s` as UTF-8 at the end of the arena without committing it: the bytes are there to be
   * hashed and compared, and the next stage overwrites them unless `commit()` is called.
   */
  stage(s: string): number {
    const chunk = this.room(s.length * 3); // a UTF-16 unit is at most 3 UTF-8 bytes
    this.stagedOffset = this.end;
    this.stagedLength = chunk.write(s, this.end - (this.end >>> CHUNK_BITS) * CHUNK, 'utf8');
    return this.stagedOffset;
  }

  /**
   * Stages `s` from index `from` on and returns hashStaged(seed) of it. A URL key is ASCII (percent-
   * encoded, punycode hosts): its bytes are its char codes, copied and hashed in one pass, with no
   * substring and no call into the encoder. Other text is staged as UTF-8 the usual way.
   */
  stageFrom(s: string, from: number, seed: number): number {
    const n = s.length - from;
    const chunk = this.room(n * 3);
    const at = this.end - (this.end >>> CHUNK_BITS) * CHUNK;
    let h = 0x811c9dc5 ^ Math.imul(seed, 0x9e3779b1);
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(from + i);
      if (c >= 0x80) {
        this.stage(from === 0 ? s : s.slice(from));
        return this.hashStaged(seed);
      }
      chunk[at + i] = c;
      h = Math.imul(h ^ c, 0x01000193);
    }
    this.stagedOffset = this.end;
    this.stagedLength = n;
    return finish(h);
  }

  /**
   * The hash stageFrom(s, from, seed) returns, worked out without staging; -1 when s has a non-ASCII
   * character from `from` on (stageFrom then hashes its UTF-8 bytes instead).
   */
  hashOf(s: string, from: number, seed: number): number {
    let h = 0x811c9dc5 ^ Math.imul(seed, 0x9e3779b1);
    for (let i = from; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) return -1;
      h = Math.imul(h ^ c, 0x01000193);
    }
    return finish(h);
  }

  /** Stages `s` from index `from` on, which is ASCII (hashOf said so), without hashing it. */
  stageAscii(s: string, from: number): void {
    const n = s.length - from;
    const chunk = this.room(n);
    const at = this.end - (this.end >>> CHUNK_BITS) * CHUNK;
    for (let i = 0; i < n; i++) chunk[at + i] = s.charCodeAt(from + i);
    this.stagedOffset = this.end;
    this.stagedLength = n;
  }

  /** Keeps the bytes of the last `stage`. */
  commit(): void {
    this.end = this.stagedOffset + this.stagedLength;
  }

  /** Stages and commits `s`; returns its offset (its length is in `stagedLength`). */
  append(s: string): number {
    const off = this.stage(s);
    this.commit();
    return off;
  }

  /** Appends `s` behind a 4-byte length, so only the offset needs keeping (see readSized). */
  appendSized(s: string): number {
    const chunk = this.room(4 + s.length * 3);
    const off = this.end;
    const within = off - (off >>> CHUNK_BITS) * CHUNK;
    const len = chunk.write(s, within + 4, 'utf8');
    chunk.writeUInt32LE(len, within);
    this.end = off + 4 + len;
    return off;
  }

  /** Decodes a string stored by appendSized. */
  readSized(off: number): string {
    const slot = off >>> CHUNK_BITS;
    const within = off - slot * CHUNK;
    const chunk = this.chunks[slot];
    return chunk.toString('utf8', within + 4, within + 4 + chunk.readUInt32LE(within));
  }

  /** 32-bit FNV-1a over the staged bytes (seeded), finished with murmur3's mix for power-of-two tables. */
  hashStaged(seed = 0): number {
    return this.hashAt(this.stagedOffset, this.stagedLength, seed);
  }

  /** hashStaged of the `len` bytes stored at `off`. */
  hashAt(off: number, len: number, seed = 0): number {
    const chunk = this.chunks[off >>> CHUNK_BITS];
    const from = off - (off >>> CHUNK_BITS) * CHUNK;
    const to = from + len;
    let h = 0x811c9dc5 ^ Math.imul(seed, 0x9e3779b1);
    for (let i = from; i < to; i++) h = Math.imul(h ^ chunk[i], 0x01000193);
    return finish(h);
  }

  /** True when the staged bytes equal the `len` bytes stored at `off`. */
  stagedEquals(off: number, len: number): boolean {
    if (len !== this.stagedLength) return false;
    const aSlot = this.stagedOffset >>> CHUNK_BITS;
    const a = this.chunks[aSlot];
    const aFrom = this.stagedOffset - aSlot * CHUNK;
    const bSlot = off >>> CHUNK_BITS;
    const b = this.chunks[bSlot];
    const bFrom = off - bSlot * CHUNK;
    return a.compare(b, bFrom, bFrom + len, aFrom, aFrom + len) === 0;
  }

  /** Decodes the string stored at `off`. */
  read(off: number, len: number): string {
    const slot = off >>> CHUNK_BITS;
    const within = off - slot * CHUNK;
    return this.chunks[slot].toString('utf8', within, within + len);
  }

  /** Bytes allocated (chunks), for memory reports. */
  allocatedBytes(): number {
    let n = 0;
    for (const c of new Set(this.chunks)) if (c) n += c.length;
    return n;
  }

  /**
   * The chunk holding `end`, with at least `bytes` free from there; starts a fresh chunk (moving
   * `end`) when needed. A string larger than a chunk gets a chunk of its own spanning several slots;
   * entries always start inside their slot, so an offset's slot finds its chunk.
   */
  private room(bytes: number): Buffer {
    let slot = this.end >>> CHUNK_BITS;
    let chunk = this.chunks[slot];
    if (chunk !== undefined && this.end - slot * CHUNK + bytes <= chunk.length) return chunk;
    if (chunk !== undefined) slot += Math.ceil(chunk.length / CHUNK);
    const size = bytes > CHUNK ? Math.ceil(bytes / CHUNK) * CHUNK : CHUNK;
    if (slot * CHUNK + size > MAX_OFFSET) {
      throw new EngineError('FRONTIER_FULL', 'The frontier holds more URL text than it can address (4 GiB); start a new crawl with narrower settings.');
    }
    chunk = Buffer.allocUnsafeSlow(size);
    this.chunks[slot] = chunk;
    this.end = slot * CHUNK;
    return chunk;
  }
}

/** murmur3's final mix of an FNV-1a state, so the low bits index a power-of-two table well. */
function finish(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
