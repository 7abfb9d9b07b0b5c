/**
 * PreviousFacts: what the lastmod audit needs of a recrawl's base crawl, per URL of that crawl, in
 * typed columns keyed by its URL ids: the latest valid lastmod of its listings (Float64 ms) and the
 * content hash of its latest result when that was a `done` 2xx page (32 bytes, the SHA-256 decoded
 * from facts `ch`). 41 B per URL (1 of flags, 8 of lastmod, 32 of hash), no object per URL.
 *
 * Fed in one pass over the base's journal (the recrawl's base index reads it anyway): `listing` for
 * every ADMIT, DUP and DUPS of a sitemap (any order: the latest instant wins), `result` for every
 * RESULT (the latest wins, as in the journal's order). `lookup` is then the
 * AuditEngineOptions.previous of the recrawl's audit.
 */
import { column, ensureCapacity, w3cDatetimeMs } from '../../engine/index.js';
import type { PreviousCrawlLookup, PreviousUrlFacts } from './types.js';

const HAS_LASTMOD = 1;
const HAS_HASH = 2;
const HASH_BYTES = 32;
/** A content hash as facts `ch` writes it: SHA-256, base64url without padding. */
const CH = /^[A-Za-z0-9_-]{43}$/;

export class PreviousFacts {
  private flags = column(Uint8Array);
  private lastmodMs = column(Float64Array);
  private hashes = column(Uint8Array);

  /** `idOf`: the base crawl's URL id of a uniqueKey (its frontier or index); undefined when it has none. */
  constructor(private readonly idOf: (uniqueKey: string) => number | undefined) {}

  /** A sitemap listing of base URL `id` with this lastmod (absent or invalid: nothing to keep). */
  listing(id: number, lastmod: string | undefined): void {
    if (lastmod === undefined) return;
    const ms = w3cDatetimeMs(lastmod);
    if (Number.isNaN(ms)) return;
    this.ensure(id);
    if ((this.flags[id]! & HAS_LASTMOD) !== 0 && this.lastmodMs[id]! >= ms) return;
    this.flags[id]! |= HAS_LASTMOD;
    this.lastmodMs[id] = ms;
  }

  /** A result of base URL `id` (the latest wins): its content hash counts only for a `done` 2xx answer. */
  result(id: number, state: 'done' | 'error' | 'blocked', status: number | undefined, contentHash: string | undefined): void {
    this.ensure(id);
    const ok = state === 'done' && status !== undefined && status >= 200 && status < 300 && contentHash !== undefined && CH.test(contentHash);
    if (!ok) {
      this.flags[id]! &= ~HAS_HASH;
      return;
    }
    this.flags[id]! |= HAS_HASH;
    this.hashes.set(Buffer.from(contentHash, 'base64url'), id * HASH_BYTES);
  }

  /** The previous crawl's facts of a URL by uniqueKey (AuditEngineOptions.previous). */
  readonly lookup: PreviousCrawlLookup = (uniqueKey) => {
    const id = this.idOf(uniqueKey);
    if (id === undefined || id >= this.flags.length) return undefined;
    const f = this.flags[id]!;
    if (f === 0) return undefined;
    const out: PreviousUrlFacts = {};
    if ((f & HAS_LASTMOD) !== 0) out.lastmodMs = this.lastmodMs[id]!;
    if ((f & HAS_HASH) !== 0) out.contentHash = Buffer.from(this.hashes.buffer, this.hashes.byteOffset + id * HASH_BYTES, HASH_BYTES).toString('base64url');
    return out;
  };

  /** Bytes of the columns. */
  allocatedBytes(): number {
    return this.flags.byteLength + this.lastmodMs.byteLength + this.hashes.byteLength;
  }

  private ensure(id: number): void {
    if (!Number.isInteger(id) || id < 0) throw new RangeError(`PreviousFacts: URL id ${id} is not an integer from 0.`);
    if (id < this.flags.length) return;
    this.flags = ensureCapacity(this.flags, id + 1);
    this.lastmodMs = ensureCapacity(this.lastmodMs, this.flags.length);
    this.hashes = ensureCapacity(this.hashes, this.flags.length * HASH_BYTES);
  }
}
