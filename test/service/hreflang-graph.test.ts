/**
 * The compact HreflangGraph answers exactly as a plain-object model of the same graph, over random
 * event sequences with small and large clusters (past the tables' growth points), with the real key
 * hash and with hashes that collide on purpose (a few buckets, one bucket): hashes choose where to
 * look, never the answer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HreflangGraph, type HreflangKeys } from '../../electron/service/audit/hreflang-graph.js';
import { hashKey } from '../../electron/service/audit/key-hash.js';

/**
 * The reference: one object per source, by id, and the truth about ids (the graph is told them as the
 * audit is: sources' own ids and keys, `keys` for alternates, `bind` on results; a URL only goes bad
 * on a result).
 */
class ModelGraph {
  private readonly sources = new Map<number, { key: string; targets: string[] }>();
  private readonly incoming = new Map<string, number[]>();
  constructor(private readonly keys: HreflangKeys) {}
  private idOf(key: string): number {
    return this.keys.idOf(key) ?? -1;
  }
  addAlternates(key: string, sourceId: number, targets: readonly string[]): number[] {
    let s = this.sources.get(sourceId);
    if (!s) this.sources.set(sourceId, (s = { key, targets: [] }));
    const affected = [sourceId];
    for (const t of targets) {
      if (t === key || s.targets.includes(t)) continue;
      s.targets.push(t);
      const list = this.incoming.get(t) ?? [];
      list.push(sourceId);
      this.incoming.set(t, list);
      const tid = this.idOf(t);
      if (tid >= 0 && (this.sources.get(tid)?.targets.length ?? 0) > 0) affected.push(tid);
    }
    return affected;
  }
  namedBy(key: string): readonly number[] {
    return this.incoming.get(key) ?? [];
  }
  names(sourceId: number, targetKey: string): boolean {
    return this.sources.get(sourceId)?.targets.includes(targetKey) ?? false;
  }
  verdict(sourceId: number, notOk: (id: number) => boolean, notIndexable: (id: number) => boolean = () => false) {
    let nonReciprocal = false;
    let badTarget = false;
    let nonIndexableTarget = false;
    const s = this.sources.get(sourceId);
    for (const t of s?.targets ?? []) {
      const tid = this.idOf(t);
      if (!(tid >= 0 && this.sources.get(tid)?.targets.includes(s!.key))) nonReciprocal = true;
      if (tid >= 0 && notOk(tid)) badTarget = true;
      if (tid >= 0 && notIndexable(tid)) nonIndexableTarget = true;
    }
    return { nonReciprocal, badTarget, nonIndexableTarget };
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

/** The crawl's frontier as the graph sees it: ids in order of admission, keys back. */
class Keys implements HreflangKeys {
  readonly ids = new Map<string, number>();
  readonly keys: string[] = [];
  idOf(key: string): number | undefined {
    return this.ids.get(key);
  }
  keyOf(id: number): string | undefined {
    return this.keys[id];
  }
  admit(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.keys.length;
      this.ids.set(key, id);
      this.keys.push(key);
    }
    return id;
  }
}

const LANGS = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'pl'];

/** Key of URL `u` in clusters of `clusterMax`: the same page in language folders, now and then non-ASCII or a prefix of another. */
function keyOf(u: number, clusterMax: number): string {
  const k = u % clusterMax;
  const lang = clusterMax <= LANGS.length ? LANGS[k]! : `l${k}`;
  const page = Math.floor(u / clusterMax);
  if (page % 11 === 3) return `https://h.test/${lang}/ü/${page}`;
  if (page % 13 === 5) return `https://h.test/${lang}/p${page}${k % 2 ? '0' : ''}`;
  return `https://h.test/${lang}/products/item-${page}`;
}

/** Hashes to run the model test with, and its runs: seed, URLs, cluster size (fewer URLs where all collide). */
const HASHES: [string, (k: string) => number, [number, number, number][]][] = [
  [
    'the key hash',
    hashKey,
    [
      [1, 300, 4],
      [2, 5000, 6],
      [3, 2000, 40],
      [4, 30000, 3],
    ],
  ],
  [
    'eight buckets',
    (k) => hashKey(k) & 7,
    [
      [7, 1000, 4],
      [8, 1500, 40],
      [9, 3000, 3],
    ],
  ],
  [
    'one bucket',
    () => 0x5a5a5,
    [
      [5, 300, 4],
      [6, 400, 40],
    ],
  ],
];

for (const [name, hash, runs] of HASHES) {
  test(`HreflangGraph answers as a plain model over random events (small and 40-language clusters), hash: ${name}`, () => {
    for (const [seed, urls, clusterMax] of runs) {
      const random = rng(seed);
      const keys = new Keys();
      const real = new HreflangGraph(keys, hash);
      const model = new ModelGraph(keys);
      const bad = new Set<number>();
      /** URLs listed with alternates or bound: every edge naming them holds their id. */
      const bound = new Set<number>();
      const notOk = (id: number) => bad.has(id);
      const unindexed = new Set<number>();
      const notIndexable = (id: number) => unindexed.has(id);
      for (let step = 0; step < urls * 3; step++) {
        const u = Math.floor(random() * urls);
        const key = keyOf(u, clusterMax);
        const r = random();
        if (r < 0.45) {
          // a listing with alternates: its cluster, some missing, some repeated, sometimes itself
          const base = u - (u % clusterMax);
          const targets: string[] = [];
          for (let k = 0; k < clusterMax; k++) if (random() < 0.8) targets.push(keyOf(Math.min(urls - 1, base + k), clusterMax));
          if (random() < 0.2) targets.push(targets[0] ?? key);
          const id = keys.admit(key);
          bound.add(id);
          assert.deepEqual(real.addAlternates(key, id, targets), model.addAlternates(key, id, targets));
        } else if (r < 0.55) {
          keys.admit(key); // admitted without a listing or a result: the graph is not told
        } else if (r < 0.7) {
          // a result: bound, and it answers 200 or not (the latest wins)
          const id = keys.admit(key);
          bound.add(id);
          assert.deepEqual([...real.bind(key, id)], [...model.namedBy(key)]);
          if (random() < 0.3) bad.add(id);
          else bad.delete(id);
          if (random() < 0.2) unindexed.add(id);
          else unindexed.delete(id);
        } else {
          assert.deepEqual([...real.namedBy(key)], [...model.namedBy(key)]);
          const id = keys.idOf(key);
          if (id !== undefined) assert.deepEqual(real.verdict(id, notOk, notIndexable), model.verdict(id, notOk, notIndexable));
        }
      }
      for (const [key, id] of keys.ids) {
        assert.deepEqual(real.verdict(id, notOk, notIndexable), model.verdict(id, notOk, notIndexable), key);
        assert.deepEqual([...real.namedBy(key)], [...model.namedBy(key)], key);
      }
      // The return link as the detail pane asks for it: does A name B, for B a source or bound.
      let asked = 0;
      for (const [key, b] of keys.ids) {
        if (!bound.has(b)) continue;
        for (const a of real
          .namedBy(key)
          .slice(0, 4)
          .concat([Math.floor(random() * keys.keys.length)])) {
          assert.equal(real.names(a, b), model.names(a, key), `${keys.keyOf(a)} names ${key}`);
          asked++;
        }
      }
      assert.ok(asked > 0);
    }
  });
}

test('HreflangGraph: with every key sharing one hash, a pair that is not reciprocal is reported and a reciprocal one is not', () => {
  const keys = new Keys();
  const g = new HreflangGraph(keys, () => 42);
  const O = 'https://h.test';
  const notOk = () => false;
  // A ↔ B reciprocal; C names D, and D names C2, not C (C and C2 share C's hash, as every key here).
  const [a, b, c, d, c2] = ['/en/a', '/de/a', '/en/c', '/de/c', '/en/c2'].map((p) => keys.admit(O + p));
  g.addAlternates(`${O}/en/a`, a!, [`${O}/en/a`, `${O}/de/a`]);
  g.addAlternates(`${O}/de/a`, b!, [`${O}/de/a`, `${O}/en/a`]);
  g.addAlternates(`${O}/en/c`, c!, [`${O}/en/c`, `${O}/de/c`]);
  g.addAlternates(`${O}/de/c`, d!, [`${O}/de/c`, `${O}/en/c2`]);
  assert.deepEqual(g.verdict(a!, notOk), { nonReciprocal: false, badTarget: false, nonIndexableTarget: false });
  assert.deepEqual(g.verdict(b!, notOk), { nonReciprocal: false, badTarget: false, nonIndexableTarget: false });
  assert.deepEqual(g.verdict(c!, notOk), { nonReciprocal: true, badTarget: false, nonIndexableTarget: false });
  assert.deepEqual(g.verdict(d!, notOk), { nonReciprocal: true, badTarget: false, nonIndexableTarget: false });
  // C2 is listed naming D: D is answered, C still is not.
  g.addAlternates(`${O}/en/c2`, c2!, [`${O}/de/c`]);
  assert.deepEqual(g.verdict(d!, notOk), { nonReciprocal: false, badTarget: false, nonIndexableTarget: false });
  assert.deepEqual(g.verdict(c!, notOk), { nonReciprocal: true, badTarget: false, nonIndexableTarget: false });
  // One source naming two keys of one hash keeps both; naming itself is skipped by key, not by hash.
  const e = keys.admit(`${O}/en/e`);
  keys.admit(`${O}/de/e`);
  g.addAlternates(`${O}/de/e`, keys.idOf(`${O}/de/e`)!, [`${O}/en/e`]);
  g.addAlternates(`${O}/en/e`, e, [`${O}/en/e`, `${O}/de/e`, `${O}/fr/e`]);
  assert.equal(g.verdict(e, notOk).nonReciprocal, true, 'fr/e does not name en/e back');
  assert.deepEqual(g.namedBy(`${O}/fr/e`), [e]);
  assert.deepEqual(g.namedBy(`${O}/fr/x`), []);
  // A result of a key that shares the hash of a named one reaches only that key's namers.
  const bad = keys.admit(`${O}/gone`);
  assert.deepEqual(g.bind(`${O}/gone`, bad), []);
  assert.deepEqual(
    g.verdict(e, (id) => id === bad),
    { nonReciprocal: true, badTarget: false, nonIndexableTarget: false },
  );
  assert.deepEqual(g.bind(`${O}/en/a`, a!), [b]);
});

test('HreflangGraph reads back keys of alternates never admitted exactly, against near misses of every kind (one hash for all)', () => {
  // Keys over a two-letter alphabet up to five letters after the origin (63 of them), and a few
  // non-ASCII ones: every prefix, suffix and near miss of every other. Each source names a random half.
  const O = 'https://h.test/';
  const words = [''];
  for (let len = 1; len <= 5; len++) for (let i = 0; i < 1 << len; i++) words.push(i.toString(2).padStart(len, '0').replaceAll('0', 'a').replaceAll('1', 'b'));
  const all = [...words.map((w) => O + w), `${O}é`, `${O}aé`, `${O}\ud83d\ude00`, 'x', ''];
  const random = rng(11);
  const keys = new Keys();
  const g = new HreflangGraph(keys, () => 7);
  const names = new Map<string, number[]>();
  for (let s = 0; s < 40; s++) {
    const source = `${O}src/${'ab'[s % 2]}${s}`;
    const id = keys.admit(source);
    const targets = all.filter(() => random() < 0.5);
    g.addAlternates(source, id, targets);
    for (const t of targets) names.set(t, [...(names.get(t) ?? []), id]);
  }
  for (const k of all) assert.deepEqual([...g.namedBy(k)], names.get(k) ?? [], JSON.stringify(k));
  assert.equal(g.size().unresolved, g.size().edges, 'none was admitted: every target is held by key');
  // Each admitted later and given a result learns its id on every edge naming it.
  for (const k of all) assert.deepEqual([...g.bind(k, keys.admit(k))], names.get(k) ?? [], JSON.stringify(k));
  assert.equal(g.size().unresolved, 0);
});

test('HreflangGraph refuses a source without an id', () => {
  const g = new HreflangGraph(new Keys());
  assert.throws(() => g.addAlternates('https://h.test/a', -1, ['https://h.test/b']), { code: 'INVALID_URL_ID' });
});

test('HreflangGraph holds no record for alternates never admitted: about 30 bytes per edge and 20 per run', () => {
  const keys = new Keys();
  const g = new HreflangGraph(keys);
  // the benchmark's shape: one URL in five names two URLs never admitted, in language folders
  const O = 'https://www.shop.test';
  for (let i = 0; i < 100_000; i += 5) {
    const path = `/products/garden-tools/rake-${i}`;
    g.addAlternates(O + path, keys.admit(O + path), [`${O}/de${path}`, `${O}/fr${path}`]);
  }
  assert.deepEqual(g.size(), { edges: 40_000, runs: 20_000, unresolved: 40_000 });
  // per edge 12 bytes of columns (an eighth of slack) and 6 of its key's difference (`de/`), per
  // run 12; 4 to 10 in the indexes' tables; plus the hash filter's fixed 1 MiB
  const bytes = g.allocatedBytes() - 2 ** 20;
  assert.ok(bytes < (40_000 * 30 + 20_000 * 20) * 1.125, `${bytes} bytes`);
  const first = keys.idOf(`${O}/products/garden-tools/rake-0`)!;
  assert.deepEqual(
    g.verdict(first, () => true),
    { nonReciprocal: true, badTarget: false, nonIndexableTarget: false },
  );
  assert.deepEqual(g.namedBy(`${O}/de/products/garden-tools/rake-5`), [keys.idOf(`${O}/products/garden-tools/rake-5`)]);
  assert.deepEqual(g.namedBy(`${O}/de/products/garden-tools/rake-6`), []);
});

test('HreflangGraph finds every source naming a target, first first, across its indexes growing', () => {
  const O = 'https://h.test';
  const keys = new Keys();
  const g = new HreflangGraph(keys);
  const shared = `${O}/x-default`;
  // 5,000 sources (id = number) each name the shared target and one of their own; sources 0–9 are
  // listed again later (a second sitemap), which adds a second run for each.
  for (let id = 0; id < 5000; id++) assert.equal(keys.admit(`${O}/s/${id}`), id);
  for (let id = 0; id < 5000; id++) g.addAlternates(`${O}/s/${id}`, id, [shared, `${O}/t/${id}`]);
  for (let id = 0; id < 10; id++) g.addAlternates(`${O}/s/${id}`, id, [`${O}/u/${id}`]);
  const namers = g.namedBy(shared);
  assert.equal(namers.length, 5000);
  assert.deepEqual(namers.slice(0, 3), [0, 1, 2]);
  assert.deepEqual(namers.slice(-2), [4998, 4999]);
  assert.deepEqual(g.namedBy(`${O}/t/4321`), [4321]);
  assert.deepEqual(g.namedBy(`${O}/u/3`), [3]);
  assert.deepEqual(g.namedBy(`${O}/t/123x`), []);
  assert.deepEqual(g.size(), { edges: 10_010, runs: 5010, unresolved: 10_010 });
  // Source 3 (two runs) names u/3 and t/3; naming a target again adds no edge.
  g.addAlternates(`${O}/s/3`, 3, [`${O}/u/3`, `${O}/t/3`]);
  assert.equal(g.size().edges, 10_010);
  // The shared target gets a result: all 5,000 edges learn its id, and it reaches all its namers.
  assert.equal(g.bind(shared, keys.admit(shared)).length, 5000);
  assert.equal(g.size().unresolved, 5010);
  // s/4 names s/5 and s/5 names s/4 back: reciprocal between them (apart from their other alternates).
  const h = new HreflangGraph(keys);
  h.addAlternates(`${O}/s/4`, 4, [`${O}/s/5`]);
  h.addAlternates(`${O}/s/5`, 5, [`${O}/s/4`]);
  assert.deepEqual(
    h.verdict(4, () => false),
    { nonReciprocal: false, badTarget: false, nonIndexableTarget: false },
  );
  h.addAlternates(`${O}/s/4`, 4, [`${O}/never`]);
  assert.deepEqual(
    h.verdict(4, () => false),
    { nonReciprocal: true, badTarget: false, nonIndexableTarget: false },
  );
});

test('hashKey: 32 bits that spread; keys of one length differing in one character never collide', () => {
  const O = 'https://www.shop.test';
  const seen = new Map<number, string>();
  let collisions = 0;
  const add = (k: string): void => {
    const h = hashKey(k);
    assert.ok(Number.isInteger(h) && h === (h | 0), `${h} for ${k}`);
    const other = seen.get(h);
    if (other !== undefined && other !== k) collisions++;
    seen.set(h, k);
  };
  // 200,000 URL-like keys: about 200,000² / 2³³ ≈ 5 pairs share a hash by chance; many more means the
  // function lost bits.
  for (let i = 0; i < 200_000; i++) add(`${O}/products/c${i % 97}/item-${i}`);
  assert.ok(collisions <= 20, `${collisions} collisions`);
  const lows = new Set<number>();
  for (const h of seen.keys()) lows.add(h & ((1 << 22) - 1));
  assert.ok(lows.size > 190_000, `the filter's 22 low bits take ${lows.size} values for 200,000 keys`);
  // One character changed anywhere, by every kind of unit: each step of the hash is a bijection of
  // its state, so these can never share a hash with the base.
  const base = `${O}/p/abcdefghij`;
  const h0 = hashKey(base);
  for (let i = 0; i < base.length; i++) {
    for (const c of ['X', '\u0000', 'é', '\ud83d', '✓', '\uffff']) {
      const k = base.slice(0, i) + c + base.slice(i + 1);
      if (k !== base) assert.notEqual(hashKey(k), h0, k);
    }
  }
  const units = [...Array.from({ length: 200 }, (_, i) => i), 0x3ff, 0x400, 0xd83d, 0xde00, 0xfffe, 0xffff];
  const pairs = new Set<number>();
  for (const x of units) for (const y of units) pairs.add(hashKey(`${O}/${String.fromCharCode(x, y)}`));
  assert.equal(pairs.size, units.length ** 2, 'two characters taken as one word stay distinct');
  const lengths = new Set<number>();
  for (let len = 0; len <= base.length; len++) lengths.add(hashKey(base.slice(0, len)));
  assert.equal(lengths.size, base.length + 1, 'every prefix hashes apart');
});
