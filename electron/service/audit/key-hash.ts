/**
 * 52-bit hashes of uniqueKeys, and an index from hash to URL id. The audit compares canonicals and
 * hreflang targets with URLs of the crawl without keeping a copy of every URL: 8 bytes per URL for
 * the hash plus ~7 for the index instead of ~60 for the string. Two different keys share a hash with
 * a probability of about n²/2⁵³ (1 in 10,000 for a million URLs); the cost of that is one wrong verdict.
 */
import { ensureCapacity } from '../../engine/compact/typed-growth.js';

/** A 52-bit hash of a string (two independent 32-bit hashes, safe as a JS number, never 0). */
export function hashKey(s: string): number {
  let a = 0x811c9dc5; // FNV-1a
  let b = 0x9747b28c; // murmur-style mixing with another seed
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  b = Math.imul(b ^ (b >>> 16), 0xc2b2ae35);
  b ^= b >>> 16;
  const h = (a & 0xfffff) * 0x100000000 + (b >>> 0);
  return h === 0 ? 1 : h;
}

/** Maps URL id → hash (dense column) and hash → URL id (open addressing). */
export class HashIdIndex {
  private hashes = new Float64Array(1024);
  /** id + 1 per slot; 0 = empty. */
  private table = new Int32Array(2048);
  private mask = 2047;
  private count = 0;

  /** Records the hash of a URL id (once per id; a second call for the same id is ignored). */
  put(id: number, hash: number): void {
    this.hashes = ensureCapacity(this.hashes, id + 1);
    if (this.hashes[id] !== 0) return;
    this.hashes[id] = hash;
    if ((this.count + 1) * 10 > this.table.length * 6) this.grow();
    this.insert(id, hash);
    this.count++;
  }

  /** The hash of a URL id, or 0 when unknown. */
  hashOf(id: number): number {
    return id < this.hashes.length ? this.hashes[id]! : 0;
  }

  /** The URL id with this hash, or -1. */
  idOf(hash: number): number {
    let slot = slotOf(hash, this.mask);
    for (;;) {
      const v = this.table[slot]!;
      if (v === 0) return -1;
      if (this.hashes[v - 1] === hash) return v - 1;
      slot = (slot + 1) & this.mask;
    }
  }

  /** Bytes held by the typed arrays. */
  allocatedBytes(): number {
    return this.hashes.byteLength + this.table.byteLength;
  }

  private insert(id: number, hash: number): void {
    let slot = slotOf(hash, this.mask);
    while (this.table[slot] !== 0) slot = (slot + 1) & this.mask;
    this.table[slot] = id + 1;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2);
    this.mask = this.table.length - 1;
    for (const v of old) if (v !== 0) this.insert(v - 1, this.hashes[v - 1]!);
  }
}

function slotOf(hash: number, mask: number): number {
  return (hash % 0x100000000) & mask;
}
