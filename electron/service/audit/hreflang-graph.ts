/**
 * The hreflang graph of the sitemaps: for each URL listed with alternates, the URLs it names.
 * Reciprocity: A naming B (B ≠ A) is answered when B's own sitemap entry names A.
 *
 * Compact: a node record only for a URL that names alternates (a source) or whose id the graph was
 * told while it is named; an alternate that is never admitted and names nothing (the common case: one
 * URL in five naming two such in the benchmark) is nothing but the 64-bit hash on the edges naming it.
 * Edges are a log (source node, target hash) in the order they came, so a source's alternates are a
 * few contiguous runs; "who names B" is a lazily sorted index of the log by target hash plus a small
 * hash table over the edges not sorted yet. About 16 bytes per edge and 20 per source (the former
 * graph, one node per URL named and two linked lists per edge, cost 24 MB at 1M URLs in the benchmark).
 */
import { ensureCapacity } from '../../engine/compact/typed-growth.js';

export interface HreflangVerdict {
  /** Some alternate does not name this URL back. */
  nonReciprocal: boolean;
  /** Some alternate is known to answer other than 200. */
  badTarget: boolean;
}

/** The node table is rebuilt twice as large past this load. */
const MAX_LOAD = 0.8;
/** The unsorted tail of the edge log is merged into the sorted index past 1/TAIL_SHARE of it. */
const TAIL_SHARE = 16;
const MIN_TAIL_SLOTS = 2048;
const NO_RUN = -1;

export class HreflangGraph {
  // hash → node: open addressing, node + 1 per slot (0 = empty); the hash is the node's own
  private nodeSlots = new Int32Array(1024);
  private nodeMask = 1023;

  // per node: a source, or a named URL whose id is known
  private nodeCount = 0;
  private nodeHash = new Float64Array(0);
  /** URL id in the crawl, or -1 while the URL is not admitted. */
  private nodeId = new Int32Array(0);
  /** First edge of the node's first run of alternates, NO_RUN when it names none. */
  private outStart = new Int32Array(0);
  /** Further runs of a source listed again with new alternates after other sources (rare). */
  private readonly moreRuns = new Map<number, number[]>();

  // edge log: source node names the target hash, once per pair, itself excluded
  private edgeSource = new Int32Array(0);
  private edgeTarget = new Float64Array(0);
  private edges = 0;

  // "who names B": edges [0, sorted) ordered by (target, edge) in `byTarget`; the rest in `tailSlots`
  private byTarget = new Int32Array(0);
  private sorted = 0;
  /** Open addressing over the unsorted edges by target hash, edge + 1 per slot (0 = empty). */
  private tailSlots = new Int32Array(MIN_TAIL_SLOTS);

  /** `idOf` finds the URL id of a hash among the URLs admitted so far (-1 when none). */
  constructor(private readonly idOf: (hash: number) => number) {}

  /**
   * Records that the URL `source` (hash, id) names `targets` (hashes). Returns the hashes of the
   * sources whose verdict may have changed: the source itself, and the new targets that have alternates.
   * `targetId(i)` (the id of targets[i], -1 = not admitted), when given, is asked instead of `idOf`
   * for targets new to the graph (only those).
   */
  addAlternates(source: number, sourceId: number, targets: readonly number[], targetId?: (i: number) => number): number[] {
    const s = this.nodeOf(source, sourceId);
    const affected = [source];
    for (let i = 0; i < targets.length; i++) {
      const t = targets[i]!;
      if (t === source || this.names(s, t)) continue;
      let tn = this.find(t);
      if (tn < 0 && !this.isNamed(t)) {
        // First naming: its id now, as a node only when known.
        const id = targetId ? targetId(i) : this.idOf(t);
        if (id >= 0) tn = this.newNode(t, id);
      }
      this.addEdge(s, t);
      if (tn >= 0 && this.outStart[tn] !== NO_RUN) affected.push(t);
    }
    return affected;
  }

  /** Tells the graph the id of a URL (an alternate named before the audit knew its id: bound on its first result). */
  bind(hash: number, id: number): void {
    const n = this.find(hash);
    if (n >= 0) {
      if (this.nodeId[n]! < 0) this.nodeId[n] = id;
    } else if (id >= 0 && this.isNamed(hash)) this.newNode(hash, id);
  }

  /** Hashes of the URLs that name this one as an alternate, first first (empty when none). */
  namedBy(hash: number): readonly number[] {
    const edges = this.edgesNaming(hash);
    if (edges.length === 0) return NONE;
    return edges.map((e) => this.nodeHash[this.edgeSource[e]!]!);
  }

  /** The URL id of a node (-1 when unknown). */
  idOfNode(hash: number): number {
    const n = this.find(hash);
    return n < 0 ? -1 : this.nodeId[n]!;
  }

  /** Whether a source's alternates all name it back, and whether any is known not to answer 200. */
  verdict(source: number, notOk: (id: number) => boolean): HreflangVerdict {
    const s = this.find(source);
    let nonReciprocal = false;
    let badTarget = false;
    if (s >= 0 && this.outStart[s] !== NO_RUN) {
      this.forEachRun(s, (start) => {
        for (let e = start; e < this.edges && this.edgeSource[e] === s; e++) {
          const tn = this.find(this.edgeTarget[e]!);
          if (tn < 0) {
            nonReciprocal = true; // names nothing, id unknown
            continue;
          }
          if (!nonReciprocal && !this.names(tn, source)) nonReciprocal = true;
          const id = this.nodeId[tn]!;
          if (!badTarget && id >= 0 && notOk(id)) badTarget = true;
          if (nonReciprocal && badTarget) return true;
        }
        return false;
      });
    }
    return { nonReciprocal, badTarget };
  }

  /** Node records and edges held (for memory figures). */
  size(): { nodes: number; edges: number } {
    return { nodes: this.nodeCount, edges: this.edges };
  }

  /** Bytes held by the typed arrays. */
  allocatedBytes(): number {
    return [
      this.nodeSlots, this.nodeHash, this.nodeId, this.outStart,
      this.edgeSource, this.edgeTarget, this.byTarget, this.tailSlots,
    ].reduce((n, a) => n + a.byteLength, 0);
  }

  // ------------------------------------------------------------ nodes

  /** The node of a hash, or -1. */
  private find(hash: number): number {
    for (let slot = hashSlot(hash, this.nodeMask); ; slot = (slot + 1) & this.nodeMask) {
      const v = this.nodeSlots[slot]!;
      if (v === 0) return -1;
      if (this.nodeHash[v - 1] === hash) return v - 1;
    }
  }

  /** The node of a source, made on its first listing; its id as the former graph had it. */
  private nodeOf(hash: number, id: number): number {
    const n = this.find(hash);
    if (n >= 0) {
      if (this.nodeId[n]! < 0 && id >= 0) this.nodeId[n] = id;
      return n;
    }
    // A URL already named got its id (then unknown) when first named: only a given id replaces it.
    return this.newNode(hash, id >= 0 ? id : this.isNamed(hash) ? -1 : this.idOf(hash));
  }

  private newNode(hash: number, id: number): number {
    const node = this.nodeCount++;
    this.nodeHash = ensureCapacity(this.nodeHash, node + 1);
    this.nodeId = ensureCapacity(this.nodeId, node + 1);
    this.outStart = ensureCapacity(this.outStart, node + 1);
    this.nodeHash[node] = hash;
    this.nodeId[node] = id;
    this.outStart[node] = NO_RUN;
    if (this.nodeCount > this.nodeSlots.length * MAX_LOAD) this.rehashNodes(this.nodeSlots.length * 2);
    else this.placeNode(node);
    return node;
  }

  private placeNode(node: number): void {
    let slot = hashSlot(this.nodeHash[node]!, this.nodeMask);
    while (this.nodeSlots[slot] !== 0) slot = (slot + 1) & this.nodeMask;
    this.nodeSlots[slot] = node + 1;
  }

  private rehashNodes(size: number): void {
    this.nodeSlots = new Int32Array(size);
    this.nodeMask = size - 1;
    for (let n = 0; n < this.nodeCount; n++) this.placeNode(n);
  }

  // ------------------------------------------------------------ out: runs of the edge log

  /** Calls `fn` with the first edge of each run of node `s` until it returns true. */
  private forEachRun(s: number, fn: (start: number) => boolean): void {
    if (fn(this.outStart[s]!)) return;
    const more = this.moreRuns.get(s);
    if (more) for (const start of more) if (fn(start)) return;
  }

  /** Whether node `s` names the hash `t`. */
  private names(s: number, t: number): boolean {
    if (this.outStart[s] === NO_RUN) return false;
    let found = false;
    this.forEachRun(s, (start) => {
      for (let e = start; e < this.edges && this.edgeSource[e] === s; e++) {
        if (this.edgeTarget[e] === t) return (found = true);
      }
      return false;
    });
    return found;
  }

  /** Appends "node `s` names `t`" (not yet recorded) to the log and the tail index. */
  private addEdge(s: number, t: number): void {
    const e = this.edges;
    if (this.outStart[s] === NO_RUN) this.outStart[s] = e;
    else if (e === 0 || this.edgeSource[e - 1] !== s) {
      const more = this.moreRuns.get(s);
      if (more) more.push(e);
      else this.moreRuns.set(s, [e]);
    }
    this.edgeSource = ensureCapacity(this.edgeSource, e + 1);
    this.edgeTarget = ensureCapacity(this.edgeTarget, e + 1);
    this.edgeSource[e] = s;
    this.edgeTarget[e] = t;
    this.edges++;
    if ((this.edges - this.sorted) * 2 > this.tailSlots.length) this.mergeTail();
    else this.placeTail(e);
  }

  // ------------------------------------------------------------ in: edges by target

  /** Whether some source names `hash`. */
  private isNamed(hash: number): boolean {
    const i = this.firstSorted(hash);
    if (i < this.sorted && this.edgeTarget[this.byTarget[i]!] === hash) return true;
    const mask = this.tailSlots.length - 1;
    for (let slot = hashSlot(hash, mask); ; slot = (slot + 1) & mask) {
      const v = this.tailSlots[slot]!;
      if (v === 0) return false;
      if (this.edgeTarget[v - 1] === hash) return true;
    }
  }

  /** The edges naming `hash`, in the order they came. */
  private edgesNaming(hash: number): number[] {
    const out: number[] = [];
    for (let i = this.firstSorted(hash); i < this.sorted; i++) {
      const e = this.byTarget[i]!;
      if (this.edgeTarget[e] !== hash) break;
      out.push(e);
    }
    const from = out.length;
    const mask = this.tailSlots.length - 1;
    for (let slot = hashSlot(hash, mask); ; slot = (slot + 1) & mask) {
      const v = this.tailSlots[slot]!;
      if (v === 0) break;
      if (this.edgeTarget[v - 1] === hash) out.push(v - 1);
    }
    // Tail edges are all newer than sorted ones; probing found them in table order.
    if (out.length - from > 1) {
      const tail = out.splice(from).sort((a, b) => a - b);
      out.push(...tail);
    }
    return out;
  }

  /** Position in `byTarget` of the first sorted edge naming `hash` or a larger hash (`sorted` when none). */
  private firstSorted(hash: number): number {
    let lo = 0;
    let hi = this.sorted;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.edgeTarget[this.byTarget[mid]!]! < hash) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private placeTail(e: number): void {
    const mask = this.tailSlots.length - 1;
    let slot = hashSlot(this.edgeTarget[e]!, mask);
    while (this.tailSlots[slot] !== 0) slot = (slot + 1) & mask;
    this.tailSlots[slot] = e + 1;
  }

  /** Sorts the unsorted edges and merges them into `byTarget` from the back (in place, stable). */
  private mergeTail(): void {
    const target = this.edgeTarget;
    const tail = new Int32Array(this.edges - this.sorted);
    for (let i = 0; i < tail.length; i++) tail[i] = this.sorted + i;
    tail.sort((a, b) => target[a]! - target[b]! || a - b);
    this.byTarget = ensureCapacity(this.byTarget, this.edges);
    const by = this.byTarget;
    let i = this.sorted - 1;
    let j = tail.length - 1;
    for (let k = this.edges - 1; j >= 0; k--) {
      // Equal targets: the tail edge is newer, so it goes last.
      if (i >= 0 && target[by[i]!]! > target[tail[j]!]!) by[k] = by[i--]!;
      else by[k] = tail[j--]!;
    }
    this.sorted = this.edges;
    let size = MIN_TAIL_SLOTS;
    while (size < (this.sorted * 2) / TAIL_SHARE) size *= 2;
    if (size !== this.tailSlots.length) this.tailSlots = new Int32Array(size);
    else this.tailSlots.fill(0);
  }
}

const NONE: readonly number[] = [];

/** Table slot of a 52-bit hash: its two halves mixed. */
function hashSlot(hash: number, mask: number): number {
  const lo = hash % 0x1_0000_0000;
  const hi = (hash - lo) / 0x1_0000_0000;
  return (Math.imul(lo | 0, 0x9e3779b1) ^ Math.imul(hi | 0, 0x85ebca6b)) & mask;
}
