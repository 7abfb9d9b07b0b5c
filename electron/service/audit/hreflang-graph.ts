/**
 * The hreflang graph of the crawl: for each URL with alternates (a source: listed with them in a
 * sitemap, or a fetched page declaring them with `<link rel="alternate" hreflang>`), the URLs it names.
 * Reciprocity: A naming B (B ≠ A) is answered when B names A back, in its sitemap entry or its page
 * (search engines take either).
 *
 * Exact: hashes only choose where to look (a filter entry, an index slot); what decides an answer is a
 * URL id or a key. An edge holds its target's id once the target is a source or has a result (`bind`),
 * learnt from the frontier by key, or else its target's key itself. So "does B name A" is a comparison
 * of ids (A is a source: every edge naming it has its id), and two keys sharing a hash cost a
 * comparison of keys, never a wrong verdict.
 *
 * Compact, with no record per URL: the benchmark's sites name, on one URL in five, two alternates that
 * are never admitted, and a node per URL (named or naming) cost 24 MB at 1M URLs. Here an edge is, in a
 * log in the order edges came, its target's 32-bit hash and either its target's id or the place of its
 * target's key in a byte pool, written as the difference from its source's key (the length of the
 * prefix and of the suffix they share, and the characters between: `/de/…` of `/…` is 6 bytes); a
 * source's edges are contiguous runs of the log, each run one (start, source id) record. Two hash
 * indexes (a table of each key's newest entry, entries linked to the previous one with their key) find
 * edges by target hash ("who names B") and runs by source id. About 24 bytes per edge with the indexes
 * (plus its key's difference while its target has no id) and 17 per run, plus a fixed 1 MiB hash
 * filter: 13.8 MB for 400,000 edges of 200,000 sources (it was 11.2 with hashes alone).
 *
 * Contract: a source has an id, and its key as the frontier has it (`keys` finds ids by key and keys by
 * id, exactly); `bind` is called on every result.
 */
import { EngineError, column, ensureCapacity } from '../../engine/index.js';
import { hashKey } from './key-hash.js';

export interface HreflangVerdict {
  /** Some alternate does not name this URL back. */
  nonReciprocal: boolean;
  /** Some alternate is known to answer other than 200. */
  badTarget: boolean;
  /** Some alternate is known to be a page that is not indexable (noindex, or canonicalised elsewhere). */
  nonIndexableTarget: boolean;
}

/** The crawl's URLs by uniqueKey and back (the audit's UrlKeys: the frontier). */
export interface HreflangKeys {
  /** The id of a uniqueKey among the URLs admitted so far, or undefined. */
  idOf(uniqueKey: string): number | undefined;
  /** The uniqueKey of a URL id. */
  keyOf(id: number): string | undefined;
}

/**
 * Entries of the hash filter (two bits each, 1 MiB): at 2²² entries, half a million hashes set a bit
 * in one entry in nine, so eight lookups in nine of something never set skip their probe.
 */
const FILTER_BITS = 22;
const FILTER_MASK = (1 << FILTER_BITS) - 1;
/** A filter entry's bits: some source names the hash; the hash is a source's, or has a result. */
const NAMED = 1;
const WANTED = 2;

/** An index's table is rebuilt twice as large past this load. */
const INDEX_LOAD = 0.8;
const MIN_INDEX_SLOTS = 1024;
/** Bytes a key's difference takes in the pool at most, beyond its characters' (three varints). */
const DIFF_HEAD = 15;
/** The pool's offsets are stored as -(offset + 1) in an Int32 column. */
const MAX_POOL = 0x7fff_0000;

/**
 * The entries 0..n-1 of a growing column, by key: an open-addressing table holds, per distinct key,
 * its newest entry (+1); each entry links to the previous one with the same key (+1, 0 = none).
 * Lookups are a probe or two, where a sorted index needed a binary search of ~20 key reads (the
 * hreflang graph was a fifth of the engine thread's time at 1M URLs): 4 bytes an entry plus the
 * table (4 bytes a slot, 1.25 to 2.5 slots a distinct key).
 */
class MultiIndex {
  private slots = new Int32Array(MIN_INDEX_SLOTS);
  private mask = MIN_INDEX_SLOTS - 1;
  private prev = column(Int32Array);
  private distinct = 0;

  /** `key(i)` reads entry i's key from the column (which may be reallocated: read it each time). */
  constructor(private readonly key: (i: number) => number) {}

  /**
   * Indexes the next entry (its key is set); entries come in ascending order. `fresh`: no entry has
   * its key yet (a filter said so), so the probe only looks for an empty slot: the keys of the slots
   * passed are not read (each a cache miss in a column of megabytes, several per add near full load).
   */
  add(entry: number, fresh = false): void {
    this.prev = ensureCapacity(this.prev, entry + 1);
    const k = this.key(entry);
    let slot = hashSlot(k, this.mask);
    for (;;) {
      const v = this.slots[slot]!;
      if (v === 0) break;
      if (!fresh && this.key(v - 1) === k) {
        this.prev[entry] = v;
        this.slots[slot] = entry + 1;
        return;
      }
      slot = (slot + 1) & this.mask;
    }
    this.prev[entry] = 0;
    this.slots[slot] = entry + 1;
    if (++this.distinct > this.slots.length * INDEX_LOAD) this.grow();
  }

  /** Whether some entry has `key`. */
  has(key: number): boolean {
    return this.latest(key) >= 0;
  }

  /** The entries with `key`, ascending. */
  find(key: number): number[] {
    const out: number[] = [];
    for (let e = this.latest(key); e >= 0; e = this.prev[e]! - 1) out.push(e);
    return out.length > 1 ? out.reverse() : out;
  }

  bytes(): number {
    return this.slots.byteLength + this.prev.byteLength;
  }

  /** The newest entry with `key`, or -1. */
  latest(key: number): number {
    for (let slot = hashSlot(key, this.mask); ; slot = (slot + 1) & this.mask) {
      const v = this.slots[slot]!;
      if (v === 0) return -1;
      if (this.key(v - 1) === key) return v - 1;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    this.mask = this.slots.length - 1;
    for (let i = 0; i < old.length; i++) {
      const v = old[i]!;
      if (v === 0) continue;
      let slot = hashSlot(this.key(v - 1), this.mask);
      while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = v;
    }
  }
}

export class HreflangGraph {
  // edge log: the hash of each edge's target, and the target's id (>= 0) or -(offset + 1) of its key's
  // difference from its source's key in `pool` (a source names a target once, itself never)
  private edgeHash = column(Int32Array);
  private edgeRef = column(Int32Array);
  private edges = 0;
  private unresolved = 0;
  private pool = column(Uint8Array);
  private poolEnd = 0;

  // runs: contiguous edges of one source
  private runStart = column(Int32Array);
  private runSource = column(Int32Array);
  private runs = 0;

  private readonly byTarget = new MultiIndex((e) => this.edgeHash[e]!);
  private readonly bySource = new MultiIndex((r) => this.runSource[r]!);

  /**
   * Two filters by hash, exact when they say no: NAMED has the hashes of every target, WANTED those
   * of every source and every URL with a result (`bind`). A probe of a 4–8 MB table at a million URLs
   * misses the CPU's caches; the bit is read from 1 MB. The benchmark's hreflang URLs name two
   * alternates that are never admitted: each skipped a frontier lookup and a probe of the edges. Both
   * bits of a hash share a byte: a target's are read together, as are a source's (as two arrays,
   * each read was a miss of its own in the engine's busy caches).
   */
  private readonly filter = new Uint8Array(1 << (FILTER_BITS - 2));

  /**
   * `keys`: the crawl's URLs (ids as the audit is given them). `hash`: of a key, any 32-bit integer
   * (a test passes a poor one to force collisions; answers must not change).
   */
  constructor(
    private readonly keys: HreflangKeys,
    private readonly hash: (key: string) => number = hashKey,
  ) {}

  /**
   * Records that the URL `sourceId` (of uniqueKey `sourceKey`) names `targets` (uniqueKeys). Returns
   * the ids of the sources whose verdict may have changed: the source itself, and the new targets that
   * have alternates. The frontier is asked for a target's id only when it may be a source or have a
   * result (the WANTED filter); any other target answers no one and has no status, and learns its id
   * if it becomes either (listed with alternates, or `bind`). `fresh`: the source was just admitted,
   * so it has no edges yet.
   */
  addAlternates(sourceKey: string, sourceId: number, targets: readonly string[], fresh = false): number[] {
    if (!Number.isInteger(sourceId) || sourceId < 0) {
      throw new EngineError('INVALID_URL_ID', `The hreflang graph got the source URL id ${sourceId}; a URL listed with alternates has an id from 0.`);
    }
    const affected = [sourceId];
    const hs = this.hash(sourceKey) | 0;
    setFlag(this.filter, hs, WANTED);
    // Named before it was listed: those edges learn its id, so whoever names it sees its answer.
    if (hasFlag(this.filter, hs, NAMED)) this.resolve(hs, sourceKey, sourceId, null);
    const own = fresh ? [] : this.bySource.find(sourceId);
    for (let i = 0; i < targets.length; i++) {
      const t = targets[i]!;
      if (t === sourceKey) continue;
      const h = this.hash(t) | 0;
      if (own.length > 0 && this.runsName(own, h, t, sourceKey)) continue;
      const tid = hasFlag(this.filter, h, WANTED) ? (this.keys.idOf(t) ?? -1) : -1;
      this.addEdge(sourceId, h, tid >= 0 ? tid : this.diff(t, sourceKey), own, fresh);
      if (tid >= 0 && tid !== sourceId && this.bySource.has(tid)) affected.push(tid);
    }
    return affected;
  }

  /**
   * Tells the graph that URL `id` (of uniqueKey `key`) has a result; returns the ids of the sources
   * that name it, first first (their targets' answers changed). Call it on every result, named or not:
   * an alternate named before the audit knew its id learns it here; one named later is looked up only
   * if it has a result (or is a source), since only a result can make it a bad target.
   */
  bind(key: string, id: number): readonly number[] {
    const h = this.hash(key) | 0;
    setFlag(this.filter, h, WANTED);
    if (!hasFlag(this.filter, h, NAMED)) return NONE;
    const out: number[] = [];
    this.resolve(h, key, id, out);
    return out.length === 0 ? NONE : out;
  }

  /** Ids of the sources that name this uniqueKey as an alternate, first first (empty when none). */
  namedBy(key: string): readonly number[] {
    const h = this.hash(key) | 0;
    if (!hasFlag(this.filter, h, NAMED)) return NONE;
    const id = this.keys.idOf(key) ?? -1;
    const out: number[] = [];
    for (const e of this.byTarget.find(h)) {
      const ref = this.edgeRef[e]!;
      if (ref >= 0 ? ref === id : this.diffIs(e, key)) out.push(this.sourceOf(e));
    }
    return out.length === 0 ? NONE : out;
  }

  /**
   * Whether the source `sourceId`'s alternates all name it back, whether any is known not to answer
   * 200 (`notOk`), and whether any is known not to be indexable (`notIndexable`).
   */
  verdict(sourceId: number, notOk: (id: number) => boolean, notIndexable: (id: number) => boolean = NEVER): HreflangVerdict {
    let nonReciprocal = false;
    let badTarget = false;
    let nonIndexableTarget = false;
    for (const r of this.bySource.find(sourceId)) {
      const end = this.runEnd(r);
      for (let e = this.runStart[r]!; e < end; e++) {
        const tid = this.edgeRef[e]!;
        // No id: neither a source nor a result (a source's namers learnt its id when it was listed).
        if (tid < 0) nonReciprocal = true;
        else {
          if (!nonReciprocal && !this.runsNameId(this.bySource.find(tid), sourceId)) nonReciprocal = true;
          if (!badTarget && notOk(tid)) badTarget = true;
          if (!nonIndexableTarget && notIndexable(tid)) nonIndexableTarget = true;
        }
        if (nonReciprocal && badTarget && nonIndexableTarget) return { nonReciprocal, badTarget, nonIndexableTarget };
      }
    }
    return { nonReciprocal, badTarget, nonIndexableTarget };
  }

  /**
   * Whether URL `sourceId`'s alternates name URL `targetId`, where the target is a source or has a
   * result (then every edge naming it holds its id): the return link `verdict` looks for.
   */
  names(sourceId: number, targetId: number): boolean {
    return this.runsNameId(this.bySource.find(sourceId), targetId);
  }

  /** Edges, runs, and edges whose target's id is not known (their keys are in the pool). */
  size(): { edges: number; runs: number; unresolved: number } {
    return { edges: this.edges, runs: this.runs, unresolved: this.unresolved };
  }

  /** Bytes held by the typed arrays. */
  allocatedBytes(): number {
    return [this.edgeHash, this.edgeRef, this.pool, this.runStart, this.runSource].reduce(
      (n, a) => n + a.byteLength,
      this.byTarget.bytes() + this.bySource.bytes() + this.filter.byteLength,
    );
  }

  // ------------------------------------------------------------ edges and runs

  /**
   * Appends "source `id` names the target of hash `h`" (not yet recorded; `ref`: its id, or its key's
   * place in the pool); `own` (the source's runs) gets a new run if one starts. `fresh`: the source
   * has no runs before `own`'s.
   */
  private addEdge(id: number, h: number, ref: number, own: number[], fresh: boolean): void {
    const e = this.edges;
    if (this.runs === 0 || this.runSource[this.runs - 1] !== id) {
      const r = this.runs++;
      this.runStart = ensureCapacity(this.runStart, r + 1);
      this.runSource = ensureCapacity(this.runSource, r + 1);
      this.runStart[r] = e;
      this.runSource[r] = id;
      this.bySource.add(r, fresh && own.length === 0);
      own.push(r);
    }
    this.edgeHash = ensureCapacity(this.edgeHash, e + 1);
    this.edgeRef = ensureCapacity(this.edgeRef, e + 1);
    this.edgeHash[e] = h;
    this.edgeRef[e] = ref;
    if (ref < 0) this.unresolved++;
    // Never named before (the filter is exact when it says no): a new key for the index.
    const known = hasFlag(this.filter, h, NAMED);
    setFlag(this.filter, h, NAMED);
    this.edges++;
    this.byTarget.add(e, !known);
  }

  /**
   * The edges naming the hash `h` whose target is `key` (of URL `id`) learn its id; `out` gets the
   * sources of every edge naming it.
   */
  private resolve(h: number, key: string, id: number, out: number[] | null): void {
    for (const e of this.byTarget.find(h)) {
      const ref = this.edgeRef[e]!;
      if (ref === id) out?.push(this.sourceOf(e));
      else if (ref < 0 && this.diffIs(e, key)) {
        this.edgeRef[e] = id;
        this.unresolved--;
        out?.push(this.sourceOf(e));
      }
    }
  }

  /** Whether the runs (of the source with key `sourceKey`) name `t` (of hash `h`). */
  private runsName(runs: readonly number[], h: number, t: string, sourceKey: string): boolean {
    for (const r of runs) {
      const end = this.runEnd(r);
      for (let e = this.runStart[r]!; e < end; e++) {
        if (this.edgeHash[e] !== h) continue;
        const ref = this.edgeRef[e]!;
        if (ref >= 0 ? this.keys.keyOf(ref) === t : this.diffMatches(-ref - 1, t, sourceKey)) return true;
      }
    }
    return false;
  }

  /** Whether the runs name URL `id` (a source: every edge naming it has its id). */
  private runsNameId(runs: readonly number[], id: number): boolean {
    for (const r of runs) {
      const end = this.runEnd(r);
      for (let e = this.runStart[r]!; e < end; e++) if (this.edgeRef[e] === id) return true;
    }
    return false;
  }

  private runEnd(r: number): number {
    return r + 1 < this.runs ? this.runStart[r + 1]! : this.edges;
  }

  /** The source id of edge `e`. */
  private sourceOf(e: number): number {
    return this.runSource[this.runOfEdge(e)]!;
  }

  /** The run holding edge `e` (run starts increase along the log). */
  private runOfEdge(e: number): number {
    let lo = 0;
    let hi = this.runs - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.runStart[mid]! <= e) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  // ------------------------------------------------------------ keys of targets without an id

  /**
   * Writes key `t` into the pool as its difference from `base` (its source's key): the lengths of
   * the prefix and the suffix they share, the number of characters between and those characters, as
   * varints. Returns the edge's ref for it: -(offset + 1).
   */
  private diff(t: string, base: string): number {
    const tn = t.length;
    const bn = base.length;
    const max = Math.min(tn, bn);
    let p = 0;
    while (p < max && t.charCodeAt(p) === base.charCodeAt(p)) p++;
    let s = 0;
    while (s < max - p && t.charCodeAt(tn - 1 - s) === base.charCodeAt(bn - 1 - s)) s++;
    const m = tn - p - s;
    const at = this.poolEnd;
    if (at + DIFF_HEAD + 3 * m > MAX_POOL) {
      throw new EngineError('HREFLANG_LIMIT', `The hreflang graph holds ${this.edges} alternates; it cannot hold more keys of alternates never admitted.`);
    }
    const pool = (this.pool = ensureCapacity(this.pool, at + DIFF_HEAD + 3 * m));
    let o = putVarint(pool, at, p);
    o = putVarint(pool, o, s);
    o = putVarint(pool, o, m);
    for (let i = p; i < p + m; i++) o = putVarint(pool, o, t.charCodeAt(i));
    this.poolEnd = o;
    return -(at + 1);
  }

  /** Whether edge `e`, not resolved, names `key` (its key is read back against its source's). */
  private diffIs(e: number, key: string): boolean {
    const base = this.keys.keyOf(this.sourceOf(e));
    return base !== undefined && this.diffMatches(-this.edgeRef[e]! - 1, key, base);
  }

  /** Whether the difference at `at` from `base` spells `key`. */
  private diffMatches(at: number, key: string, base: string): boolean {
    const pool = this.pool;
    cursor = at;
    const p = getVarint(pool);
    const s = getVarint(pool);
    const m = getVarint(pool);
    if (key.length !== p + m + s) return false;
    for (let i = 0; i < p; i++) if (key.charCodeAt(i) !== base.charCodeAt(i)) return false;
    for (let i = p; i < p + m; i++) if (key.charCodeAt(i) !== getVarint(pool)) return false;
    const from = base.length - s;
    for (let i = 0; i < s; i++) if (key.charCodeAt(p + m + i) !== base.charCodeAt(from + i)) return false;
    return true;
  }
}

const NONE: readonly number[] = [];
const NEVER = (): boolean => false;

/** Writes `v` (0 ≤ v < 2³¹) as a varint at `o`; returns the offset after it. */
function putVarint(pool: Uint8Array, o: number, v: number): number {
  while (v >= 0x80) {
    pool[o++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  pool[o++] = v;
  return o;
}

/** Where getVarint reads next. */
let cursor = 0;

/** Reads the varint at `cursor` and moves past it. */
function getVarint(pool: Uint8Array): number {
  let v = 0;
  for (let shift = 0; ; shift += 7) {
    const b = pool[cursor++]!;
    v |= (b & 0x7f) << shift;
    if (!(b >= 0x80)) return v; // past the end (undefined) ends it too
  }
}

/** Table slot of a 32-bit hash (or an id). */
function hashSlot(key: number, mask: number): number {
  const x = Math.imul(key, 0x9e3779b1);
  return (x ^ (x >>> 15)) & mask;
}

/**
 * Sets `flag` (NAMED or WANTED) in a hash's filter entry, chosen by the low bits of the hash:
 * `hash & FILTER_MASK`.
 */
function setFlag(filter: Uint8Array, hash: number, flag: number): void {
  const e = hash & FILTER_MASK;
  filter[e >>> 2] |= flag << ((e & 3) << 1);
}

function hasFlag(filter: Uint8Array, hash: number, flag: number): boolean {
  const e = hash & FILTER_MASK;
  return (filter[e >>> 2]! & (flag << ((e & 3) << 1))) !== 0;
}
