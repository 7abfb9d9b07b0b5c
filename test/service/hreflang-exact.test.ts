/**
 * The audit's hreflang verdicts are exact whatever the key hashes do: URLs whose uniqueKeys share a
 * 32-bit hash (found by search, so the real hash collides, in the filter's bits and in the indexes'
 * keys alike) are told apart by their keys.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuditEngine } from '../../electron/service/audit/engine.js';
import { hashKey } from '../../electron/service/audit/key-hash.js';
import { tryUniqueKey } from '../../electron/engine/frontier/url.js';
import type { HreflangAlternate, UrlResult } from '../../shared/model.js';

const O = 'https://www.shop.test';
const SM = `${O}/sitemap.xml`;
const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const OK: UrlResult = { status: 200, contentType: 'text/html' };

/**
 * `n` disjoint pairs of distinct URLs whose uniqueKeys share a hash: a birthday search over ~200,000
 * URLs with scrambled names (URLs that differ in one character never collide, by the hash's design).
 */
function collidingPairs(n: number): [string, string][] {
  const seen = new Map<number, string>();
  const pairs: [string, string][] = [];
  const used = new Set<string>();
  for (let i = 0; pairs.length < n; i++) {
    assert.ok(i < 4_000_000, 'the search for colliding keys ran too long');
    const url = `${O}/c/${(Math.imul(i, 0x9e3779b1) >>> 0).toString(36)}`;
    const h = hashKey(url); // its own uniqueKey (checked below)
    const other = seen.get(h);
    if (other !== undefined && !used.has(other)) {
      pairs.push([other, url]);
      used.add(other);
      used.add(url);
    } else seen.set(h, url);
  }
  for (const [x, y] of pairs) {
    assert.equal(tryUniqueKey(x), x);
    assert.equal(tryUniqueKey(y), y);
  }
  return pairs;
}

type Step = { list: string; names: string[] } | { link: string } | { result: string; r: UrlResult };

/**
 * Feeds the steps to an audit on its own, ids in order of first mention as the queue hands them out
 * (a result of a URL not mentioned yet admits it as a link first: a step list may be run backwards).
 */
function run(steps: Step[]): { e: AuditEngine; ids: Map<string, number> } {
  const e = new AuditEngine({ crawlUrl: `${O}/`, pagesCrawled: true, now: () => NOW });
  const ids = new Map<string, number>();
  const link = (url: string): number => {
    if (!ids.has(url)) {
      ids.set(url, ids.size);
      e.admitted(ids.size - 1, url, 'link', undefined, `${O}/`);
    }
    return ids.get(url)!;
  };
  for (const s of steps) {
    if ('list' in s) {
      const alternates: HreflangAlternate[] = s.names.map((href, i) => ({ lang: ['en', 'de', 'fr', 'it'][i % 4]!, href }));
      const entry = { loc: s.list, alternates };
      const id = ids.get(s.list);
      if (id === undefined) {
        ids.set(s.list, ids.size);
        e.admitted(ids.size - 1, s.list, 'sitemap', entry, SM);
      } else e.discovered(id, { source: 'sitemap', from: SM }, entry);
    } else if ('link' in s) link(s.link);
    else e.result(link(s.result), 'done', s.r);
  }
  return { e, ids };
}

test('hreflang verdicts stay exact when keys share a hash: a pair that is not reciprocal is reported, a reciprocal one is not', () => {
  const [[a, a2], [d2, d], [e, e2], [f1, f2], [g1, g2]] = collidingPairs(5);
  const b = `${O}/de/b`;
  const c = `${O}/de/c`;
  const z = `${O}/de/z`;
  const f = `${O}/de/f`;
  const g = `${O}/de/g`;
  const h = `${O}/de/h`;
  const steps: Step[] = [
    // A names B; B names A2, not A (A2 shares A's hash): both not reciprocal.
    { list: a!, names: [a!, b] },
    { list: b, names: [b, a2!] },
    // Z ↔ D2 and C ↔ D are reciprocal; D2, a source first, shares D's hash.
    { list: z, names: [z, d2!] },
    { list: d2!, names: [d2!, z] },
    { list: c, names: [c, d!] },
    { list: d!, names: [d!, c] },
    // E names E2, which shares E's own hash: not itself, and it does not name E back.
    { list: e!, names: [e!, e2!] },
    // F names F1 and F2 (one hash): F1 names F back, F2 does not.
    { list: f, names: [f, f1!, f2!] },
    { list: f1!, names: [f1!, f] },
    // G names G1, which answers 200; G2 (G1's hash) answers 404 and only H names it.
    { list: g, names: [g, g1!] },
    { link: g2! },
    { result: g2!, r: { status: 404 } },
    { list: g1!, names: [g1!, g] },
    { result: g1!, r: OK },
    { list: h, names: [h, g2!] },
  ];
  const notReciprocal = [a!, b, e!, f, h];
  const notOk = [h];
  const forward = run(steps);
  const backward = run([...steps].reverse());
  for (const { e: audit, ids } of [forward, backward]) {
    const idsOf = (urls: string[]) => urls.map((u) => ids.get(u)!).sort((x, y) => x - y);
    assert.deepEqual(audit.urlsOf('HREFLANG_NOT_RECIPROCAL'), idsOf(notReciprocal));
    assert.deepEqual(audit.urlsOf('HREFLANG_TARGET_NOT_200'), idsOf(notOk));
  }
});
