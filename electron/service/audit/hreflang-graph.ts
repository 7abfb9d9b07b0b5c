/**
 * The hreflang graph of the sitemaps: for each URL listed with alternates, the URLs it names.
 * Only URLs that have alternates, or are named as one, get a node; nodes are keyed by uniqueKey hash.
 * Reciprocity: A naming B (B ≠ A) is answered when B's own sitemap entry names A.
 *
 * Compact: no JS object per node or edge. Nodes are dense indexes found through an open-addressing
 * table; an edge (A names B) is one record on two linked lists (A's targets, B's incoming), and "does
 * A name B" walks A's targets (a URL names a few dozen alternates at most; a table of edges cost
 * 4–8 MB at 1M URLs). A multilingual site lists alternates on most URLs, and one object with two
 * arrays per node cost ~1 KB per URL (the benchmark: 275 MB of heap at 1M URLs with alternates on
 * one in five); this costs ~25 bytes per node and ~16 per edge.
 */
import { ensureCapacity } from '../../engine/compact/typed-growth.js';

export interface HreflangVerdict {
  /** Some alternate does not name this URL back. */
  nonReciprocal: boolean;
  /** Some alternate is known to answer other than 200. */
  badTarget: boolean;
}

/** Tables are rebuilt twice as large past this load. */
const MAX_LOAD = 0.6;
const NO_EDGE = -1;

export class HreflangGraph {
  // hash → node: open addressing, node + 1 per slot (0 = empty); the hash is the node's own
  private nodeSlots = new Int32Array(1024);
  private nodeMask = 1023;

  // per node
  private nodeCount = 0;
  private nodeHash = new Float64Array(0);
  /** URL id in the crawl, or -1 while the URL is not admitted. */
  private nodeId = new Int32Array(0);
  /** First edge of the node's targets (the alternates it names, itself excluded, once each), newest first. */
  private outHead = new Int32Array(0);
  /** First edge of the URLs naming this node, newest first. */
  private inHead = new Int32Array(0);

  // edges: source names target; each is on its source's out-list and its target's in-list
  private edgeSource = new Int32Array(0);
  private edgeTarget = new Int32Array(0);
  private nextOut = new Int32Array(0);
  private nextIn = new Int32Array(0);
  private edges = 0;

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
      if (t === source) continue;
      const existing = this.find(t);
      if (existing >= 0 && this.names(s, existing)) continue;
      const tn = existing >= 0 ? existing : this.nodeOf(t, -1, targetId?.(i));
      this.addEdge(s, tn);
      if (this.outHead[tn] !== NO_EDGE) affected.push(t);
    }
    return affected;
  }

  /** Tells the graph the id of a URL (an alternate named before the audit knew its id: bound on its first result). */
  bind(hash: number, id: number): void {
    const n = this.find(hash);
    if (n >= 0 && this.nodeId[n]! < 0) this.nodeId[n] = id;
  }

  /** Hashes of the URLs that name this one as an alternate, first first (empty when none). */
  namedBy(hash: number): readonly number[] {
    const n = this.find(hash);
    if (n < 0 || this.inHead[n] === NO_EDGE) return NONE;
    const out: number[] = [];
    for (let e = this.inHead[n]!; e !== NO_EDGE; e = this.nextIn[e]!) out.push(this.nodeHash[this.edgeSource[e]!]!);
    return out.reverse();
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
    if (s >= 0) {
      for (let e = this.outHead[s]!; e !== NO_EDGE; e = this.nextOut[e]!) {
        const tn = this.edgeTarget[e]!;
        if (!nonReciprocal && !this.names(tn, s)) nonReciprocal = true;
        const id = this.nodeId[tn]!;
        if (!badTarget && id >= 0 && notOk(id)) badTarget = true;
        if (nonReciprocal && badTarget) break;
      }
    }
    return { nonReciprocal, badTarget };
  }

  /** Nodes and edges held (for memory figures). */
  size(): { nodes: number; edges: number } {
    return { nodes: this.nodeCount, edges: this.edges };
  }

  /** Bytes held by the typed arrays. */
  allocatedBytes(): number {
    return [
      this.nodeSlots, this.nodeHash, this.nodeId, this.outHead, this.inHead,
      this.edgeSource, this.edgeTarget, this.nextOut, this.nextIn,
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

  private nodeOf(hash: number, id: number, knownId?: number): number {
    const n = this.find(hash);
    if (n >= 0) {
      if (this.nodeId[n]! < 0 && id >= 0) this.nodeId[n] = id;
      return n;
    }
    const node = this.nodeCount++;
    this.nodeHash = ensureCapacity(this.nodeHash, node + 1);
    this.nodeId = ensureCapacity(this.nodeId, node + 1);
    this.outHead = ensureCapacity(this.outHead, node + 1);
    this.inHead = ensureCapacity(this.inHead, node + 1);
    this.nodeHash[node] = hash;
    this.nodeId[node] = id >= 0 ? id : (knownId ?? this.idOf(hash));
    this.outHead[node] = NO_EDGE;
    this.inHead[node] = NO_EDGE;
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

  // ------------------------------------------------------------ edges

  /** Records that node `s` names node `t` (not yet recorded). */
  private addEdge(s: number, t: number): void {
    const e = this.edges++;
    this.edgeSource = ensureCapacity(this.edgeSource, e + 1);
    this.edgeTarget = ensureCapacity(this.edgeTarget, e + 1);
    this.nextOut = ensureCapacity(this.nextOut, e + 1);
    this.nextIn = ensureCapacity(this.nextIn, e + 1);
    this.edgeSource[e] = s;
    this.edgeTarget[e] = t;
    this.nextOut[e] = this.outHead[s]!;
    this.outHead[s] = e;
    this.nextIn[e] = this.inHead[t]!;
    this.inHead[t] = e;
  }

  /** Whether node `s` names node `t`. */
  private names(s: number, t: number): boolean {
    for (let e = this.outHead[s]!; e !== NO_EDGE; e = this.nextOut[e]!) if (this.edgeTarget[e] === t) return true;
    return false;
  }
}

const NONE: readonly number[] = [];

/** Table slot of a 52-bit hash: its two halves mixed. */
function hashSlot(hash: number, mask: number): number {
  const lo = hash % 0x1_0000_0000;
  const hi = (hash - lo) / 0x1_0000_0000;
  return (Math.imul(lo | 0, 0x9e3779b1) ^ Math.imul(hi | 0, 0x85ebca6b)) & mask;
}
