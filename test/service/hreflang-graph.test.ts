/**
 * The compact HreflangGraph answers exactly as a plain-object model of the same graph, over random
 * event sequences with small and large clusters (past the tables' growth points).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HreflangGraph } from '../../electron/service/audit/hreflang-graph.js';

/** The reference: one object per node, as simple as it gets. */
class ModelGraph {
  private readonly nodes = new Map<number, { id: number; targets: number[]; incoming: number[] }>();
  constructor(private readonly idOf: (hash: number) => number) {}
  private node(hash: number, id: number) {
    let n = this.nodes.get(hash);
    if (!n) this.nodes.set(hash, (n = { id: id >= 0 ? id : this.idOf(hash), targets: [], incoming: [] }));
    else if (n.id < 0 && id >= 0) n.id = id;
    return n;
  }
  addAlternates(source: number, sourceId: number, targets: readonly number[]): number[] {
    const s = this.node(source, sourceId);
    const affected = [source];
    for (const t of targets) {
      if (t === source || s.targets.includes(t)) continue;
      s.targets.push(t);
      const tn = this.node(t, -1);
      tn.incoming.push(source);
      if (tn.targets.length > 0) affected.push(t);
    }
    return affected;
  }
  bind(hash: number, id: number): void {
    const n = this.nodes.get(hash);
    if (n && n.id < 0) n.id = id;
  }
  namedBy(hash: number): readonly number[] {
    return this.nodes.get(hash)?.incoming ?? [];
  }
  idOfNode(hash: number): number {
    return this.nodes.get(hash)?.id ?? -1;
  }
  verdict(source: number, notOk: (id: number) => boolean) {
    let nonReciprocal = false;
    let badTarget = false;
    for (const t of this.nodes.get(source)?.targets ?? []) {
      const tn = this.nodes.get(t)!;
      if (!tn.targets.includes(source)) nonReciprocal = true;
      if (tn.id >= 0 && notOk(tn.id)) badTarget = true;
    }
    return { nonReciprocal, badTarget };
  }
}

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('HreflangGraph answers as a plain model over random events (small and 40-language clusters)', () => {
  for (const [seed, urls, clusterMax] of [[1, 300, 4], [2, 5000, 6], [3, 2000, 40]] as const) {
    const random = rng(seed);
    // 52-bit-ish hashes, never 0; admitted URLs get ids as they come.
    const hashOf = (u: number) => (u + 1) * 2654435761 + (u % 7) * 2 ** 40;
    const admitted = new Map<number, number>();
    const idOf = (h: number) => admitted.get(h) ?? -1;
    const real = new HreflangGraph(idOf);
    const model = new ModelGraph(idOf);
    const bad = new Set<number>();
    const notOk = (id: number) => bad.has(id);
    for (let step = 0; step < urls * 3; step++) {
      const u = Math.floor(random() * urls);
      const h = hashOf(u);
      const r = random();
      if (r < 0.5) {
        // a listing with alternates: its cluster, some missing, some repeated, sometimes itself
        const base = u - (u % clusterMax);
        const targets: number[] = [];
        for (let k = 0; k < clusterMax; k++) if (random() < 0.8) targets.push(hashOf(Math.min(urls - 1, base + k)));
        if (random() < 0.2) targets.push(targets[0] ?? h);
        const id = admitted.get(h) ?? (random() < 0.7 ? admitted.size : -1);
        if (id >= 0 && !admitted.has(h)) admitted.set(h, id);
        assert.deepEqual(real.addAlternates(h, id, targets), model.addAlternates(h, id, targets));
      } else if (r < 0.65) {
        if (!admitted.has(h)) admitted.set(h, admitted.size);
        real.bind(h, admitted.get(h)!);
        model.bind(h, admitted.get(h)!);
      } else if (r < 0.7) {
        const id = admitted.get(h);
        if (id !== undefined) bad.add(id);
      } else {
        assert.deepEqual([...real.namedBy(h)], [...model.namedBy(h)]);
        assert.equal(real.idOfNode(h), model.idOfNode(h));
        assert.deepEqual(real.verdict(h, notOk), model.verdict(h, notOk));
      }
    }
    for (let u = 0; u < urls; u++) assert.deepEqual(real.verdict(hashOf(u), notOk), model.verdict(hashOf(u), notOk));
  }
});
