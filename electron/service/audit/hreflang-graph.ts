/**
 * The hreflang graph of the sitemaps: for each URL listed with alternates, the URLs it names.
 * Only URLs that have alternates, or are named as one, get a node; nodes are keyed by uniqueKey hash.
 * Reciprocity: A naming B (B ≠ A) is answered when B's own sitemap entry names A.
 */

interface HrefNode {
  /** URL id in the crawl, or -1 while the URL is not admitted. */
  id: number;
  /** Hashes of the alternates this URL names (itself excluded), once each. */
  targets: number[] | null;
  /** Built once targets grow past a few, for membership tests. */
  targetSet: Set<number> | null;
  /** Hashes of the URLs that name this one. */
  incoming: number[] | null;
}

/** Past this many targets a node keeps a Set beside its array. */
const SET_THRESHOLD = 8;

export interface HreflangVerdict {
  /** Some alternate does not name this URL back. */
  nonReciprocal: boolean;
  /** Some alternate is known to answer other than 200. */
  badTarget: boolean;
}

export class HreflangGraph {
  private readonly nodes = new Map<number, HrefNode>();
  private edges = 0;

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
      if (t === source || has(s, t)) continue;
      (s.targets ??= []).push(t);
      if (s.targetSet) s.targetSet.add(t);
      else if (s.targets.length > SET_THRESHOLD) s.targetSet = new Set(s.targets);
      const tn = this.nodeOf(t, -1);
      (tn.incoming ??= []).push(source);
      this.edges++;
      if (tn.targets !== null) affected.push(t);
    }
    return affected;
  }

  /** Tells the graph a URL was admitted with this id (it may be an alternate named earlier). */
  bind(hash: number, id: number): void {
    const n = this.nodes.get(hash);
    if (n && n.id < 0) n.id = id;
  }

  /** Hashes of the URLs that name this one as an alternate (empty when none). */
  namedBy(hash: number): readonly number[] {
    return this.nodes.get(hash)?.incoming ?? NONE;
  }

  /** The URL id of a node (-1 when unknown). */
  idOfNode(hash: number): number {
    return this.nodes.get(hash)?.id ?? -1;
  }

  /** Whether a source's alternates all name it back, and whether any is known not to answer 200. */
  verdict(source: number, notOk: (id: number) => boolean): HreflangVerdict {
    const s = this.nodes.get(source);
    let nonReciprocal = false;
    let badTarget = false;
    for (const t of s?.targets ?? NONE) {
      const tn = this.nodes.get(t)!;
      if (!nonReciprocal && !has(tn, source)) nonReciprocal = true;
      if (!badTarget && tn.id >= 0 && notOk(tn.id)) badTarget = true;
      if (nonReciprocal && badTarget) break;
    }
    return { nonReciprocal, badTarget };
  }

  /** Nodes and edges held (for memory figures). */
  size(): { nodes: number; edges: number } {
    return { nodes: this.nodes.size, edges: this.edges };
  }

  private nodeOf(hash: number, id: number): HrefNode {
    let n = this.nodes.get(hash);
    if (!n) {
      n = { id: id >= 0 ? id : this.idOf(hash), targets: null, targetSet: null, incoming: null };
      this.nodes.set(hash, n);
    } else if (n.id < 0 && id >= 0) n.id = id;
    return n;
  }
}

const NONE: readonly number[] = [];

function has(n: HrefNode, hash: number): boolean {
  if (n.targetSet) return n.targetSet.has(hash);
  return n.targets !== null && n.targets.includes(hash);
}
