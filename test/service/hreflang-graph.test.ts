/**
 * The compact HreflangGraph answers exactly as a plain-object model of the same graph, over random
 * event sequences with small and large clusters (past the tables' growth points).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HreflangGraph } from '../../electron/service/audit/hreflang-graph.js';

/**
 * The reference: one object per source, by id, and the truth about ids (the graph is told them as the
 * audit is: sources' own ids, `idOf` for alternates, `bind` on results; a URL only goes bad on a result).
 */
class ModelGraph {
  private readonly sources = new Map<number, { hash: number; targets: number[] }>();
  private readonly incoming = new Map<number, number[]>();
  constructor(private readonly idOf: (hash: number) => number) {}
  addAlternates(source: number, sourceId: number, targets: readonly number[]): number[] {
    let s = this.sources.get(sourceId);
    if (!s) this.sources.set(sourceId, (s = { hash: source, targets: [] }));
    const affected = [sourceId];
    for (const t of targets) {
      if (t === source || s.targets.includes(t)) continue;
      s.targets.push(t);
      const list = this.incoming.get(t) ?? [];
      list.push(sourceId);
      this.incoming.set(t, list);
      const tid = this.idOf(t);
      if (tid >= 0 && (this.sources.get(tid)?.targets.length ?? 0) > 0) affected.push(tid);
    }
    return affected;
  }
  namedBy(hash: number): readonly number[] {
    return this.incoming.get(hash) ?? [];
  }
  verdict(sourceId: number, notOk: (id: number) => boolean) {
    let nonReciprocal = false;
    let badTarget = false;
    const s = this.sources.get(sourceId);
    for (const t of s?.targets ?? []) {
      const tid = this.idOf(t);
      if (!(tid >= 0 && this.sources.get(tid)?.targets.includes(s!.hash))) nonReciprocal = true;
      if (tid >= 0 && notOk(tid)) badTarget = true;
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
  for (const [seed, urls, clusterMax] of [[1, 300, 4], [2, 5000, 6], [3, 2000, 40], [4, 30000, 3]] as const) {
    const random = rng(seed);
    // 52-bit-ish hashes, never 0; admitted URLs get ids as they come.
    const hashOf = (u: number) => (u + 1) * 2654435761 + (u % 7) * 2 ** 40;
    const admitted = new Map<number, number>();
    const idOf = (h: number) => admitted.get(h) ?? -1;
    const admit = (h: number) => {
      if (!admitted.has(h)) admitted.set(h, admitted.size);
      return admitted.get(h)!;
    };
    const real = new HreflangGraph(idOf);
    const model = new ModelGraph(idOf);
    const bad = new Set<number>();
    const notOk = (id: number) => bad.has(id);
    for (let step = 0; step < urls * 3; step++) {
      const u = Math.floor(random() * urls);
      const h = hashOf(u);
      const r = random();
      if (r < 0.45) {
        // a listing with alternates: its cluster, some missing, some repeated, sometimes itself
        const base = u - (u % clusterMax);
        const targets: number[] = [];
        for (let k = 0; k < clusterMax; k++) if (random() < 0.8) targets.push(hashOf(Math.min(urls - 1, base + k)));
        if (random() < 0.2) targets.push(targets[0] ?? h);
        const id = admit(h);
        assert.deepEqual(real.addAlternates(h, id, targets), model.addAlternates(h, id, targets));
      } else if (r < 0.55) {
        admit(h); // admitted without a listing or a result: the graph is not told
      } else if (r < 0.7) {
        // a result: bound, and it answers 200 or not (the latest wins)
        const id = admit(h);
        real.bind(h, id);
        if (random() < 0.3) bad.add(id);
        else bad.delete(id);
      } else {
        assert.deepEqual([...real.namedBy(h)], [...model.namedBy(h)]);
        const id = admitted.get(h);
        if (id !== undefined) assert.deepEqual(real.verdict(id, h, notOk), model.verdict(id, notOk));
      }
    }
    for (const [h, id] of admitted) assert.deepEqual(real.verdict(id, h, notOk), model.verdict(id, notOk));
  }
});

test('HreflangGraph refuses a source without an id', () => {
  const g = new HreflangGraph(() => -1);
  assert.throws(() => g.addAlternates(1, -1, [2]), { code: 'INVALID_URL_ID' });
});

test('HreflangGraph holds no record for alternates never admitted: about 20 bytes per edge and per run', () => {
  const g = new HreflangGraph(() => -1);
  // the benchmark's shape: one URL in five names two URLs never admitted
  for (let i = 0; i < 100_000; i += 5) g.addAlternates(i + 1, i, [1e9 + 2 * i, 1e9 + 2 * i + 1]);
  assert.deepEqual(g.size(), { edges: 40_000, runs: 20_000, ids: 0 });
  // 12 bytes of columns each (an eighth of slack), plus 4 to 10 in the indexes' tables, plus the two
  // hash filters' fixed 512 KiB each
  assert.ok(g.allocatedBytes() < (40_000 + 20_000) * 20 * 1.125 + 2 ** 20, `${g.allocatedBytes()} bytes`);
  assert.deepEqual(g.verdict(0, 1, () => true), { nonReciprocal: true, badTarget: false });
  assert.deepEqual(g.namedBy(1e9 + 2 * 5), [5]);
});

test('HreflangGraph finds every source naming a target, first first, across its indexes growing', () => {
  const shared = 7e12;
  const g = new HreflangGraph((h) => (h < 1e6 ? h : -1));
  // 5,000 sources (hash = id) each name the shared target and one of their own; sources 0–9 are
  // listed again later (a second sitemap), which adds a second run for each.
  for (let id = 0; id < 5000; id++) g.addAlternates(id, id, [shared, 1e9 + id]);
  for (let id = 0; id < 10; id++) g.addAlternates(id, id, [2e9 + id]);
  const namers = g.namedBy(shared);
  assert.equal(namers.length, 5000);
  assert.deepEqual(namers.slice(0, 3), [0, 1, 2]);
  assert.deepEqual(namers.slice(-2), [4998, 4999]);
  assert.deepEqual(g.namedBy(1e9 + 4321), [4321]);
  assert.deepEqual(g.namedBy(2e9 + 3), [3]);
  assert.deepEqual(g.namedBy(123), []);
  assert.deepEqual(g.size(), { edges: 10_010, runs: 5010, ids: 0 });
  // Source 3 (two runs) names 1e9+3 and 2e9+3; naming a target again adds no edge.
  g.addAlternates(3, 3, [2e9 + 3, 1e9 + 3]);
  assert.equal(g.size().edges, 10_010);
  // Source 4 names source 5 and 5 names 4 back: reciprocal between them (the rest are never admitted).
  const h = new HreflangGraph((x) => (x < 100 ? x : -1));
  h.addAlternates(4, 4, [5]);
  h.addAlternates(5, 5, [4]);
  assert.deepEqual(h.verdict(4, 4, () => false), { nonReciprocal: false, badTarget: false });
  h.addAlternates(4, 4, [1e9]);
  assert.deepEqual(h.verdict(4, 4, () => false), { nonReciprocal: true, badTarget: false });
});
