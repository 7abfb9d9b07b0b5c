/**
 * The hreflang graph of the sitemaps: for each URL listed with alternates, the URLs it names.
 * Only URLs that have alternates, or are named as one, get a node; nodes are keyed by uniqueKey hash.
 * Reciprocity: A naming B (B ≠ A) is answered when B's own sitemap entry names A.
 *
 * Compact: no JS object per node or edge. Nodes are dense indexes found through an open-addressing
 * table of hashes; each node's targets and incoming edges are linked lists in typed arrays; "does A
 * name B" is a hash set of (A, B) node pairs. A multilingual site lists alternates on most URLs, and
 * one object with two arrays per node cost ~1 KB per URL (the benchmark: 300 MB of heap at 1M URLs
 * with alternates on one in five); this costs ~40 bytes per node and ~30 per edge.
 */
import { ensureCapacity } from '../../engine/compact/typed-growth.js';

export interface HreflangVerdict {
  /** Some alternate does not name this URL back. */
  nonReciprocal: boolean;
  /** Some alternate is known to answer other than 200. */
  badTarget: boolean;
}

/** Tables are rebuilt twice as large past this load. */
const MAX_LOAD = 0.5;
const NO_EDGE = -1;

export class HreflangGraph {
  // hash → node: open addressing (hash 0 never occurs: hashKey avoids it), node index per slot
  private slotHash = new Float64Array(1024);
  private slotNode = new Int32Array(1024);
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

  // edges: one pool for both lists; `edgeNode` is the other end (target in an out-list, source in an in-list)
  private edgeNode = new Int32Array(0);
  private edgeNext = new Int32Array(0);
  private edgeSlots = 0;
  private edges = 0;

  // (source node, target node) pairs named: open addressing, source + 1 (0 = empty slot)
  private pairSource = new Int32Array(1024);
  private pairTarget = new Int32Array(1024);
  private pairMask = 1023;

  /** `idOf` finds the URL id of a hash among the URLs admitted so far (-1 when none). */
  constructor(private readonly idOf: (hash: number) => number) {}

  /**
   * Records that the URL `source` (hash, id) names `targets` (hashes). Returns the hashes of the
   * sources whose verdict may have changed: the source itself, and the new targets that have alternates.
   */
  addAlternates(source: number, sourceId: number, targets: readonly number[]): number[] {
    const s = this.nodeOf(source, sourceId);
    const affected = [source];
    for (const t of targets) {
      if (t === source) continue;
      const existing = this.find(t);
      if (existing >= 0 && this.names(s, existing)) continue;
      const tn = existing >= 0 ? existing : this.nodeOf(t, -1);
      this.addPair(s, tn);
      this.outHead[s] = this.addEdge(tn, this.outHead[s]!);
      this.inHead[tn] = this.addEdge(s, this.inHead[tn]!);
      this.edges++;
      if (this.outHead[tn] !== NO_EDGE) affected.push(t);
    }
    return affected;
  }

  /** Tells the graph a URL was admitted with this id (it may be an alternate named earlier). */
  bind(hash: number, id: number): void {
    const n = this.find(hash);
    if (n >= 0 && this.nodeId[n]! < 0) this.nodeId[n] = id;
  }

  /** Hashes of the URLs that name this one as an alternate, first first (empty when none). */
  namedBy(hash: number): readonly number[] {
    const n = this.find(hash);
    if (n < 0 || this.inHead[n] === NO_EDGE) return NONE;
    const out: number[] = [];
    for (let e = this.inHead[n]!; e !== NO_EDGE; e = this.edgeNext[e]!) out.push(this.nodeHash[this.edgeNode[e]!]!);
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
      for (let e = this.outHead[s]!; e !== NO_EDGE; e = this.edgeNext[e]!) {
        const tn = this.edgeNode[e]!;
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
      this.slotHash, this.slotNode, this.nodeHash, this.nodeId, this.outHead, this.inHead,
      this.edgeNode, this.edgeNext, this.pairSource, this.pairTarget,
    ].reduce((n, a) => n + a.byteLength, 0);
  }

  // ------------------------------------------------------------ nodes

  /** The node of a hash, or -1. */
  private find(hash: number): number {
    for (let slot = hashSlot(hash, this.nodeMask); ; slot = (slot + 1) & this.nodeMask) {
      const h = this.slotHash[slot]!;
      if (h === 0) return -1;
      if (h === hash) return this.slotNode[slot]!;
    }
  }

  private nodeOf(hash: number, id: number): number {
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
    this.nodeId[node] = id >= 0 ? id : this.idOf(hash);
    this.outHead[node] = NO_EDGE;
    this.inHead[node] = NO_EDGE;
    if (this.nodeCount > this.slotHash.length * MAX_LOAD) this.rehashNodes(this.slotHash.length * 2);
    else this.placeNode(node);
    return node;
  }

  private placeNode(node: number): void {
    const hash = this.nodeHash[node]!;
    let slot = hashSlot(hash, this.nodeMask);
    while (this.slotHash[slot] !== 0) slot = (slot + 1) & this.nodeMask;
    this.slotHash[slot] = hash;
    this.slotNode[slot] = node;
  }

  private rehashNodes(size: number): void {
    this.slotHash = new Float64Array(size);
    this.slotNode = new Int32Array(size);
    this.nodeMask = size - 1;
    for (let n = 0; n < this.nodeCount; n++) this.placeNode(n);
  }

  // ------------------------------------------------------------ edges

  /** A new edge to `node` in front of the list starting at `next`; returns it. */
  private addEdge(node: number, next: number): number {
    const e = this.edgeSlots++;
    this.edgeNode = ensureCapacity(this.edgeNode, e + 1);
    this.edgeNext = ensureCapacity(this.edgeNext, e + 1);
    this.edgeNode[e] = node;
    this.edgeNext[e] = next;
    return e;
  }

  /** Whether node `s` names node `t`. */
  private names(s: number, t: number): boolean {
    for (let slot = pairSlot(s, t, this.pairMask); ; slot = (slot + 1) & this.pairMask) {
      const ps = this.pairSource[slot]!;
      if (ps === 0) return false;
      if (ps === s + 1 && this.pairTarget[slot] === t) return true;
    }
  }

  private addPair(s: number, t: number): void {
    if ((this.edges + 1) > this.pairSource.length * MAX_LOAD) this.rehashPairs(this.pairSource.length * 2);
    this.placePair(s, t);
  }

  private placePair(s: number, t: number): void {
    let slot = pairSlot(s, t, this.pairMask);
    while (this.pairSource[slot] !== 0) slot = (slot + 1) & this.pairMask;
    this.pairSource[slot] = s + 1;
    this.pairTarget[slot] = t;
  }

  private rehashPairs(size: number): void {
    const oldSource = this.pairSource;
    const oldTarget = this.pairTarget;
    this.pairSource = new Int32Array(size);
    this.pairTarget = new Int32Array(size);
    this.pairMask = size - 1;
    for (let i = 0; i < oldSource.length; i++) if (oldSource[i] !== 0) this.placePair(oldSource[i]! - 1, oldTarget[i]!);
  }
}

const NONE: readonly number[] = [];

/** Table slot of a 52-bit hash: its two halves mixed. */
function hashSlot(hash: number, mask: number): number {
  const lo = hash % 0x1_0000_0000;
  const hi = (hash - lo) / 0x1_0000_0000;
  return (Math.imul(lo | 0, 0x9e3779b1) ^ Math.imul(hi | 0, 0x85ebca6b)) & mask;
}

/** Table slot of a (source, target) node pair. */
function pairSlot(s: number, t: number, mask: number): number {
  let h = Math.imul(s, 0x9e3779b1) ^ Math.imul(t + 0x632be5ab, 0x85ebca6b);
  h ^= h >>> 15;
  return Math.imul(h, 0x2c1b3c6d) & mask;
}
