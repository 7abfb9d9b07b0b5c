/**
 * The hreflang graph of the sitemaps: for each URL listed with alternates (a source), the URLs it names.
 * Reciprocity: A naming B (B ≠ A) is answered when B's own sitemap entry names A.
 *
 * Compact, with no record per URL: the benchmark's sites name, on one URL in five, two alternates that
 * are never admitted, and a node per URL (named or naming) cost 24 MB at 1M URLs. Here an edge is the
 * 64-bit hash of its target in a log, in the order edges came; a source's edges are contiguous runs of
 * the log, each run one (start, source id) record. Two hash indexes (a table of each key's newest entry,
 * entries linked to the previous one with their key) find edges by target ("who names B") and runs by
 * source id, a third finds known ids by hash. Ids are kept by hash only for URLs that are named and whose
 * id is known (the alternates that are sources or have a result, the sources others name). About 16–20
 * bytes per edge and per run, plus a fixed 1 MiB hash filter.
 *
 * Contract: a source has an id; `targetId` (or `idOf`) knows the id of every URL that was listed with
 * alternates (that is how a named URL is known to be a source); `bind` is called on every result.
 */
import { column, ensureCapacity } from '../../engine/compact/typed-growth.js';
import { EngineError } from '../../engine/types.js';

export interface HreflangVerdict {
  /** Some alternate does not name this URL back. */
  nonReciprocal: boolean;
  /** Some alternate is known to answer other than 200. */
  badTarget: boolean;
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
  // edge log: the target hash of each edge (a source names a target once, itself never)
  private edgeTarget = column(Float64Array);
  private edges = 0;

  // runs: contiguous edges of one source
  private runStart = column(Int32Array);
  private runSource = column(Int32Array);
  private runs = 0;

  private readonly byTarget = new MultiIndex((e) => this.edgeTarget[e]!);
  private readonly bySource = new MultiIndex((r) => this.runSource[r]!);

  // hash → id of named URLs whose id is known (each hash learnt once)
  private idHash = column(Float64Array);
  private idValue = column(Int32Array);
  private idCount = 0;
  private readonly byHash = new MultiIndex((n) => this.idHash[n]!);

  /**
   * Two filters by hash, exact when they say no: NAMED has the hashes of every target, WANTED those
   * of every source and every URL with a result (`bind`). A probe of a 4–8 MB table at a million URLs
   * misses the CPU's caches; the bit is read from 1 MB. The benchmark's hreflang URLs name two
   * alternates that are never admitted: each skipped a frontier lookup and a probe of the edges. Both
   * bits of a hash share a byte: a target's are read together, as are a source's (as two arrays,
   * each read was a miss of its own in the engine's busy caches).
   */
  private readonly filter = new Uint8Array(1 << (FILTER_BITS - 2));

  /** `idOf` finds the URL id of a hash among the URLs admitted so far (-1 when none). */
  constructor(private readonly idOf: (hash: number) => number) {}

  /**
   * Records that the URL `source` (hash, id) names `targets` (hashes). Returns the ids of the sources
   * whose verdict may have changed: the source itself, and the new targets that have alternates.
   * `targetId(i)` (the id of targets[i], -1 = not admitted), when given, is asked instead of `idOf`
   * for targets whose id the graph does not know and may need: the sources and the URLs with a
   * result (`bind`). Any other target answers no one and has no status: whether it was admitted
   * changes no verdict, and it gets its id if it becomes either (listed with alternates, or `bind`).
   * `fresh`: the source was just admitted, so it has no edges yet.
   */
  addAlternates(source: number, sourceId: number, targets: readonly number[], targetId?: (i: number) => number, fresh = false): number[] {
    if (!Number.isInteger(sourceId) || sourceId < 0) {
      throw new EngineError('INVALID_URL_ID', `The hreflang graph got the source URL id ${sourceId}; a URL listed with alternates has an id from 0.`);
    }
    const affected = [sourceId];
    setFlag(this.filter, source, WANTED);
    // Named before it was listed: whoever named it will need its id to see its answer.
    if (this.isNamed(source) && this.idOfHash(source) < 0) this.learnId(source, sourceId);
    const own = fresh ? [] : this.bySource.find(sourceId);
    for (let i = 0; i < targets.length; i++) {
      const t = targets[i]!;
      if (t === source || this.runsName(own, t)) continue;
      let tid = this.idOfHash(t);
      if (tid < 0 && hasFlag(this.filter, t, WANTED)) {
        tid = targetId ? targetId(i) : this.idOf(t);
        if (tid >= 0) this.learnId(t, tid);
      }
      this.addEdge(sourceId, t, own, fresh);
      if (tid >= 0 && tid !== sourceId && this.bySource.has(tid)) affected.push(tid);
    }
    return affected;
  }

  /**
   * Tells the graph that URL `id` (of this hash) has a result. Call it on every result, named or not:
   * an alternate named before the audit knew its id learns it here; one named later is looked up
   * (`targetId`) only if it has a result, since only a result can make it a bad target.
   */
  bind(hash: number, id: number): void {
    setFlag(this.filter, hash, WANTED);
    if (id >= 0 && this.isNamed(hash) && this.idOfHash(hash) < 0) this.learnId(hash, id);
  }

  /** Ids of the sources that name this URL as an alternate, first first (empty when none). */
  namedBy(hash: number): readonly number[] {
    const edges = this.byTarget.find(hash);
    return edges.length === 0 ? NONE : edges.map((e) => this.runSource[this.runOfEdge(e)]!);
  }

  /** Whether the source (id, hash)'s alternates all name it back, and whether any is known not to answer 200. */
  verdict(sourceId: number, sourceHash: number, notOk: (id: number) => boolean): HreflangVerdict {
    let nonReciprocal = false;
    let badTarget = false;
    for (const r of this.bySource.find(sourceId)) {
      const end = this.runEnd(r);
      for (let e = this.runStart[r]!; e < end; e++) {
        const tid = this.idOfHash(this.edgeTarget[e]!);
        // No id known: not admitted, so neither a source nor a result.
        if (tid < 0) nonReciprocal = true;
        else {
          if (!nonReciprocal && !this.runsName(this.bySource.find(tid), sourceHash)) nonReciprocal = true;
          if (!badTarget && notOk(tid)) badTarget = true;
        }
        if (nonReciprocal && badTarget) return { nonReciprocal, badTarget };
      }
    }
    return { nonReciprocal, badTarget };
  }

  /** Edges, runs and ids held (for memory figures). */
  size(): { edges: number; runs: number; ids: number } {
    return { edges: this.edges, runs: this.runs, ids: this.idCount };
  }

  /** Bytes held by the typed arrays. */
  allocatedBytes(): number {
    return [this.edgeTarget, this.runStart, this.runSource, this.idHash, this.idValue]
      .reduce((n, a) => n + a.byteLength, this.byTarget.bytes() + this.bySource.bytes() + this.byHash.bytes() + this.filter.byteLength);
  }

  // ------------------------------------------------------------ edges and runs

  /**
   * Appends "source `id` names `t`" (not yet recorded); `own` (the source's runs) gets a new run if one
   * starts. `fresh`: the source has no runs before `own`'s.
   */
  private addEdge(id: number, t: number, own: number[], fresh: boolean): void {
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
    this.edgeTarget = ensureCapacity(this.edgeTarget, e + 1);
    this.edgeTarget[e] = t;
    // Never named before (the filter is exact when it says no): a new key for the index.
    const known = hasFlag(this.filter, t, NAMED);
    setFlag(this.filter, t, NAMED);
    this.edges++;
    this.byTarget.add(e, !known);
  }

  /** Whether some source names the hash `t` (the filter first). */
  private isNamed(t: number): boolean {
    return hasFlag(this.filter, t, NAMED) && this.byTarget.has(t);
  }

  /** Whether the runs name the hash `t`. */
  private runsName(runs: readonly number[], t: number): boolean {
    for (const r of runs) {
      const end = this.runEnd(r);
      for (let e = this.runStart[r]!; e < end; e++) if (this.edgeTarget[e] === t) return true;
    }
    return false;
  }

  private runEnd(r: number): number {
    return r + 1 < this.runs ? this.runStart[r + 1]! : this.edges;
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

  // ------------------------------------------------------------ ids of named URLs

  /** The id known for a named hash, or -1. */
  private idOfHash(hash: number): number {
    const n = this.byHash.latest(hash);
    return n < 0 ? -1 : this.idValue[n]!;
  }

  /** Records the id of a hash that has none yet. */
  private learnId(hash: number, id: number): void {
    const n = this.idCount++;
    this.idHash = ensureCapacity(this.idHash, n + 1);
    this.idValue = ensureCapacity(this.idValue, n + 1);
    this.idHash[n] = hash;
    this.idValue[n] = id;
    this.byHash.add(n);
  }
}

const NONE: readonly number[] = [];

/** Table slot of a 52-bit hash (or an id): its two halves mixed. */
function hashSlot(hash: number, mask: number): number {
  const lo = hash >>> 0; // the low 32 bits (ToUint32 of an integer below 2⁵³), without a division
  const hi = (hash - lo) / 0x1_0000_0000;
  return (Math.imul(lo | 0, 0x9e3779b1) ^ Math.imul(hi | 0, 0x85ebca6b)) & mask;
}

/**
 * Sets `flag` (NAMED or WANTED) in a hash's filter entry, chosen by the low bits of the hash (the two
 * halves of a key hash are independent): `hash & FILTER_MASK` reads them without a division (ToInt32
 * keeps the low 32 bits of an integer below 2⁵³).
 */
function setFlag(filter: Uint8Array, hash: number, flag: number): void {
  const e = hash & FILTER_MASK;
  filter[e >>> 2] |= flag << ((e & 3) << 1);
}

function hasFlag(filter: Uint8Array, hash: number, flag: number): boolean {
  const e = hash & FILTER_MASK;
  return (filter[e >>> 2]! & (flag << ((e & 3) << 1))) !== 0;
}
