/**
 * Interns strings to dense ids 0, 1, 2, … with no object per string, so a frontier of a million URLs
 * holds their bytes (in a ByteArena) and a few typed columns, not a million strings and a Map. The
 * hash table's slots keep hash tags: a probe compares tags, then bytes, so two strings never merge.
 * With `sharePrefixes`, a URL's directory (or else its origin) is stored once and only the rest per
 * URL; the choice is stable, so `find` makes the one `intern` made.
 */
import { ByteArena } from './byte-arena.js';
import { column, ensureCapacity } from './typed-growth.js';

/** The table is rebuilt larger past this load, keeping probe chains short. */
const MAX_LOAD = 0.6;
/**
 * While the table grows, each string added moves the strings of MOVE_PER_ADD more slots of the old
 * table into the new one: the old table is done long before the adds would fill the new one to MAX_LOAD.
 */
const MOVE_PER_ADD = 16;
/** reserve() sizes the table up to this many slots at most (64 MB); past it, growth is by doubling. */
const RESERVE_MAX_SLOTS = 1 << 24;
/** A table slot's flag: the string is in its home slot (see StringIndex.table). */
const HOME = 0x8000_0000;
/** A slot's bits below HOME: its hash tag and id + 1. */
const TAG_BITS = 0x7fff_ffff;
/** Prefix ids are Uint16; 0 means "stored whole". */
const MAX_PREFIXES = 0xffff;
/** Directory prefixes added at most (origins have the rest of the table). */
const MAX_DIR_PREFIXES = 4096;
/** Slots of the directory cache (a power of two). */
const RECENT_DIRS = 256;
/** Lengths are Uint16; this value means "look in longLengths". */
const LONG = 0xffff;
/** Keys prepare() takes at most (the rest are interned the usual way). */
const PREPARE_MAX = 1024;
/** How far past the next prepared key intern looks for its key (keys prepared, then not interned). */
const PREPARE_SKIP = 4;

export class StringIndex {
  private readonly arena = new ByteArena();
  private readonly sharePrefixes: boolean;
  private offsets = column(Uint32Array);
  private lengths = column(Uint16Array);
  private readonly longLengths = new Map<number, number>();
  private prefixRefs = column(Uint16Array);
  private readonly prefixIds = new Map<string, number>();
  private readonly prefixes: string[] = [''];
  private dirPrefixes = 0;
  /**
   * A crawl's URLs come from a few directories at a time (a sitemap listing its categories in turn)
   * and one origin: directories found are remembered in a small direct-mapped cache (slot by length
   * and a few characters), so most URLs need no map lookup; and the last origin.
   */
  private readonly recentDirs: string[] = new Array<string>(RECENT_DIRS).fill('');
  private readonly recentDirRefs = new Int32Array(RECENT_DIRS);
  private lastOrigin = '';
  private lastOriginRef = 0;
  /**
   * Per slot 0 (empty) or id + 1 in the low `idBits` bits; above them up to bit 30, the same bits of
   * the id's hash (a tag): a probe passing another string's slot is told apart by the tag, without
   * reading that string's bytes elsewhere in memory (a cache miss saved per slot passed, at a million
   * keys); bit 31 (HOME) set when the string sits in its home slot (hash & mask). id + 1 always fits:
   * the table has more slots than strings. Growing the table splits it (see `old` and `move`): a string
   * at home has the low bits of its hash in its slot's index and the next one in its tag, so its slot
   * in a table twice as large is known without its bytes; only the others (a column of hashes would
   * cost 4 MB at a million) are hashed again from the bytes.
   */
  private table = new Uint32Array(1024);
  private mask = 1023;
  private idBits = 10;
  private count = 0;
  /**
   * While the table grows: the table before, read-only, which holds every string added before it
   * grew; the strings of its slots below `moved` are in the new table too. Growing all at once would
   * stop the thread for a pause that doubles with the crawl; meanwhile a lookup probes both tables.
   */
  private old: Uint32Array | null = null;
  private oldMask = 0;
  private moved = 0;
  /** Strings a reserve() made while the table was growing asked room for (0: none). */
  private reserved = 0;
  /**
   * Keys prepare() worked out, in the order they are expected: each one's prefix id and hash, and the
   * next to be taken (`prepAt`). Whatever their slots' loads left in the CPU's caches, a string
   * interned later than its turn (or never) only loses its head start.
   */
  private readonly prepKeys: string[] = [];
  private readonly prepRefs = new Uint16Array(PREPARE_MAX);
  private readonly prepHashes = new Uint32Array(PREPARE_MAX);
  private prepCount = 0;
  private prepAt = 0;
  /** The OR of the slots prepare() read (kept, so the reads are not optimized away). */
  private touched = 0;
  /** Whether the last `intern` added a new string. */
  added = false;

  constructor(opts: { sharePrefixes?: boolean } = {}) {
    this.sharePrefixes = opts.sharePrefixes === true;
  }

  /** Number of distinct strings. */
  get size(): number {
    return this.count;
  }

  /**
   * Gets ready to intern keys[0..n) in that order (a batch of a sitemap's URLs): works out each one's
   * prefix and hash now, then reads the table slot each would start its probe at, in a loop of loads
   * only, so the cache misses of a large table overlap instead of coming one per key. intern then
   * takes each key's prefix and hash from here when it comes in turn. Keys with no prefix yet or with
   * non-ASCII characters are left to intern.
   */
  prepare(keys: readonly (string | undefined)[], n: number): void {
    let m = 0;
    const count = Math.min(n, PREPARE_MAX);
    for (let i = 0; i < count; i++) {
      const s = keys[i];
      if (s === undefined) continue;
      const ref = this.prefixOf(s, false);
      if (ref < 0) continue;
      const h = this.arena.hashOf(s, ref === 0 ? 0 : this.prefixes[ref]!.length, ref);
      if (h < 0) continue;
      this.prepKeys[m] = s;
      this.prepRefs[m] = ref;
      this.prepHashes[m] = h;
      m++;
    }
    this.prepCount = m;
    this.prepAt = 0;
    const table = this.table;
    const mask = this.mask;
    let t = 0;
    for (let i = 0; i < m; i++) t |= table[this.prepHashes[i]! & mask]!;
    this.touched = t;
  }

  /** The id of `s`, adding it when new (`added` tells which). */
  intern(s: string): number {
    let ref: number;
    let h: number;
    const at = this.prepared(s);
    if (at >= 0) {
      ref = this.prepRefs[at]!;
      h = this.prepHashes[at]!;
      this.arena.stageAscii(s, ref === 0 ? 0 : this.prefixes[ref]!.length);
    } else {
      ref = this.prefixOf(s, true);
      h = this.stage(s, ref);
    }
    const bits = this.idBits;
    let slot = h & this.mask;
    for (;;) {
      const v = this.table[slot]!;
      if (v === 0) break;
      if (((v ^ h) & TAG_BITS) >>> bits === 0 && this.matches((v & this.mask) - 1, ref)) {
        this.added = false;
        return (v & this.mask) - 1;
      }
      slot = (slot + 1) & this.mask;
    }
    if (this.old !== null) {
      const found = this.findOld(h, ref);
      if (found >= 0) {
        this.added = false;
        return found;
      }
    }
    const id = this.count;
    if (id + 1 > this.offsets.length) {
      this.offsets = ensureCapacity(this.offsets, id + 1);
      this.lengths = ensureCapacity(this.lengths, id + 1);
      if (this.sharePrefixes) this.prefixRefs = ensureCapacity(this.prefixRefs, id + 1);
    }
    this.arena.commit();
    const len = this.arena.stagedLength;
    this.offsets[id] = this.arena.stagedOffset;
    if (len < LONG) this.lengths[id] = len;
    else {
      this.lengths[id] = LONG;
      this.longLengths.set(id, len);
    }
    if (this.sharePrefixes) this.prefixRefs[id] = ref;
    this.table[slot] = this.entry(id, h, slot === (h & this.mask));
    this.count = id + 1;
    this.added = true;
    if (this.old !== null) this.move(MOVE_PER_ADD);
    else if (this.count > this.table.length * MAX_LOAD) this.grow();
    return id;
  }

  /** The id of `s`, or -1 when it is not interned. */
  find(s: string): number {
    const ref = this.prefixOf(s, false);
    if (ref < 0) return -1;
    const h = this.stage(s, ref);
    const bits = this.idBits;
    let slot = h & this.mask;
    for (;;) {
      const v = this.table[slot]!;
      if (v === 0) return this.old === null ? -1 : this.findOld(h, ref);
      if (((v ^ h) & TAG_BITS) >>> bits === 0 && this.matches((v & this.mask) - 1, ref)) return (v & this.mask) - 1;
      slot = (slot + 1) & this.mask;
    }
  }

  /** The string with id `id` (decoded afresh each call). */
  get(id: number): string {
    const rest = this.arena.read(this.offsets[id], this.lengthOf(id));
    return this.sharePrefixes && this.prefixRefs[id] !== 0 ? this.prefixes[this.prefixRefs[id]] + rest : rest;
  }

  /** Bytes held by the arena, columns and table, for memory reports. */
  allocatedBytes(): number {
    return (
      this.arena.allocatedBytes() +
      this.offsets.byteLength +
      this.lengths.byteLength +
      this.prefixRefs.byteLength +
      this.table.byteLength +
      (this.old?.byteLength ?? 0)
    );
  }

  /** The index of `s` among the prepared keys, taken in turn (-1: not prepared). */
  private prepared(s: string): number {
    const end = Math.min(this.prepCount, this.prepAt + PREPARE_SKIP);
    for (let i = this.prepAt; i < end; i++) {
      if (this.prepKeys[i] === s) {
        this.prepAt = i + 1;
        return i;
      }
    }
    return -1;
  }

  /** Stages the part of `s` after its prefix and returns its hash (seeded by the prefix id). */
  private stage(s: string, ref: number): number {
    return this.arena.stageFrom(s, ref === 0 ? 0 : this.prefixes[ref]!.length, ref);
  }

  private matches(id: number, ref: number): boolean {
    return (!this.sharePrefixes || this.prefixRefs[id] === ref) && this.arena.stagedEquals(this.offsets[id], this.lengthOf(id));
  }

  private lengthOf(id: number): number {
    const len = this.lengths[id];
    return len === LONG ? this.longLengths.get(id)! : len;
  }

  /**
   * The prefix id of `s`: its directory's id, else its origin's, or 0 to store it whole (not
   * URL-like, or no room left for its prefix — then that prefix never gets an id, so the choice is
   * stable). When `add` is false and `s` cannot have been interned (its prefix would have been
   * added), -1.
   */
  private prefixOf(s: string, add: boolean): number {
    if (!this.sharePrefixes) return 0;
    const sep = s.indexOf('://');
    if (sep <= 0 || sep > 16) return 0;
    const originEnd = s.indexOf('/', sep + 3);
    if (originEnd < 0) return 0;
    const q = s.indexOf('?', originEnd);
    const dirEnd = s.lastIndexOf('/', q === -1 ? s.length - 1 : q - 1);
    if (dirEnd > originEnd) {
      const dirLen = dirEnd + 1;
      const slot = (dirLen * 7 + s.charCodeAt(dirEnd - 1) * 3 + s.charCodeAt(dirEnd - 2) + s.charCodeAt((originEnd + dirEnd) >>> 1)) & (RECENT_DIRS - 1);
      const cached = this.recentDirs[slot]!;
      if (cached.length === dirLen && s.slice(0, dirLen) === cached) return this.recentDirRefs[slot]!;
      const dir = s.slice(0, dirLen);
      let ref = this.prefixIds.get(dir);
      const room = this.dirPrefixes < MAX_DIR_PREFIXES && this.prefixes.length < MAX_PREFIXES;
      if (ref === undefined && room) {
        if (!add) return -1;
        ref = this.addPrefix(dir);
        this.dirPrefixes++;
      }
      if (ref !== undefined) {
        this.recentDirs[slot] = dir;
        this.recentDirRefs[slot] = ref;
        return ref;
      }
      // No room for directories: the origin, as below.
    }
    const last = this.lastOrigin;
    if (last.length === originEnd && s.slice(0, originEnd) === last) return this.lastOriginRef;
    const origin = s.slice(0, originEnd);
    let ref = this.prefixIds.get(origin);
    if (ref === undefined) {
      if (this.prefixes.length >= MAX_PREFIXES) return 0;
      if (!add) return -1;
      ref = this.addPrefix(origin);
    }
    this.lastOrigin = origin;
    this.lastOriginRef = ref;
    return ref;
  }

  private addPrefix(prefix: string): number {
    const ref = this.prefixes.length;
    this.prefixes.push(prefix);
    this.prefixIds.set(prefix, ref);
    return ref;
  }

  /** The id of the staged string (hash `h`, prefix `ref`) in the table before, or -1 (only while growing). */
  private findOld(h: number, ref: number): number {
    const old = this.old!;
    const mask = this.oldMask;
    const bits = 31 - Math.clz32(old.length);
    let slot = h & mask;
    for (;;) {
      const v = old[slot]!;
      if (v === 0) return -1;
      if (((v ^ h) & TAG_BITS) >>> bits === 0 && this.matches((v & mask) - 1, ref)) return (v & mask) - 1;
      slot = (slot + 1) & mask;
    }
  }

  /**
   * Makes the table ready for `n` strings in all: grows it at once to the size that holds them,
   * instead of doubling toward it as strings come, each doubling moving every string again (and
   * probing two tables while it lasts): a crawl that knows how many URLs its sitemaps are likely to
   * list calls this (see RequestQueueWithSitemap.reserve). While a growth is under way, it takes
   * effect once that one is done. Does nothing when the table already holds `n`; sizes the table up
   * to RESERVE_MAX_SLOTS at most.
   */
  reserve(n: number): void {
    if (this.old !== null) {
      this.reserved = Math.max(this.reserved, n);
      return;
    }
    let length = this.table.length;
    while (n > length * MAX_LOAD && length < RESERVE_MAX_SLOTS) length *= 2;
    if (length > this.table.length) this.grow(length);
  }

  /** Starts growing: a larger table (twice as large unless reserved), filled from the old one by `move`. */
  private grow(length = this.table.length * 2): void {
    this.old = this.table;
    this.oldMask = this.mask;
    this.table = new Uint32Array(length);
    this.mask = this.table.length - 1;
    this.idBits = 31 - Math.clz32(this.table.length);
    this.moved = 0;
    this.move(MOVE_PER_ADD);
  }

  /**
   * Moves the strings of up to `n` more slots of the old table into the new one, in slot order: a
   * string at home goes to the slot of the same index plus the next bits of its hash (from its tag)
   * in the new table (twice as large: its own index or the one above), so the writes go along a few
   * runs of the new table rather than all over it, and its bytes are not read; any other string is
   * hashed again.
   */
  private move(n: number): void {
    const old = this.old!;
    const end = Math.min(old.length, this.moved + n);
    const table = this.table;
    const mask = this.mask;
    const oldMask = this.oldMask;
    for (let s = this.moved; s < end; s++) {
      const v = old[s]!;
      if (v === 0) continue;
      const id = (v & oldMask) - 1;
      // At home, the old slot's bits above its index's are the hash's own bits: what `entry` keeps of it.
      const h = (v & HOME) !== 0 ? v : this.arena.hashAt(this.offsets[id]!, this.lengthOf(id), this.sharePrefixes ? this.prefixRefs[id]! : 0);
      const home = (v & HOME) !== 0 ? s | (v & (mask ^ oldMask)) : h & mask;
      let slot = home;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = this.entry(id, h, slot === home);
    }
    this.moved = end;
    if (end === old.length) {
      this.old = null;
      if (this.reserved > 0) {
        const n = this.reserved;
        this.reserved = 0;
        this.reserve(n);
      }
    }
  }

  /** A slot's value for string `id` of hash `h`: HOME when at home, the hash's bits from idBits to 30, id + 1. */
  private entry(id: number, h: number, atHome: boolean): number {
    return ((atHome ? HOME : 0) | (((h & TAG_BITS) >>> this.idBits) << this.idBits) | (id + 1)) >>> 0;
  }
}
