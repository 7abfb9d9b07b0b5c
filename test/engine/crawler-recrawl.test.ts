/**
 * The crawler's recrawl path (RecrawlBase, engine/types.ts) on the realistic site served with
 * validators: a first crawl records what a base index would hold (results, facts, links, sitemap
 * nodes and listings, in memory here), a second crawler is handed it. Unchanged pages and sitemaps
 * answer 304: each page keeps its base result (carriedOver, notModified) and its links re-enter the
 * frontier, each sitemap hands out its base listings, so the second crawl reaches the same URLs with
 * the same discoveries. A 304 whose base answer cannot be had is fetched again in full.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawlSettings, SitemapNode, UrlResult } from '../../shared/model.js';
import { UrlResultSchema } from '../../shared/contract.js';
import { Crawler } from '../../electron/engine/crawler/crawler.js';
import type { CarriedPage, CrawlerHooks, RecrawlBase, RecordedLink, ResultFacts, SitemapItem } from '../../electron/engine/types.js';
import { BUILTIN_DEFAULTS } from '../../electron/service/catalog/settings.js';
import { startRealSite, type RealSite, type RealSiteEvent } from '../fixtures/real-site/site.js';

interface Seen {
  results: Map<string, { state: 'done' | 'error' | 'blocked'; result: UrlResult; facts?: ResultFacts }>;
  links: Map<string, RecordedLink[]>;
  nodes: Map<string, SitemapNode>;
  /** Per sitemap URL, its listings (uniqueKey + lastmod) in order. */
  listings: Map<string, SitemapItem[]>;
  /** Every discovery: "key source from". */
  discoveries: string[];
}

function settings(site: RealSite): CrawlSettings {
  return {
    ...BUILTIN_DEFAULTS,
    startUrl: site.url('/'),
    concurrency: 8,
    perHostConcurrency: 8,
    timeoutMs: 2000,
    connectTimeoutMs: 2000,
    retries: 0,
  };
}

async function run(site: RealSite, recrawl?: RecrawlBase): Promise<Seen> {
  const seen: Seen = { results: new Map(), links: new Map(), nodes: new Map(), listings: new Map(), discoveries: [] };
  const listing = (from: string | undefined, key: string, entry: NonNullable<SitemapItem & { kind: 'url' }>['entry'] | undefined) => {
    if (from === undefined || !entry) return;
    const list = seen.listings.get(from) ?? [];
    list.push({ kind: 'url', entry, uniqueKey: key });
    seen.listings.set(from, list);
  };
  const keys: string[] = [];
  const hooks: CrawlerHooks = {
    onAdmitted: (req) => {
      keys[req.id] = req.uniqueKey;
      seen.discoveries.push(`${req.uniqueKey} ${req.source} ${req.discoveredFrom ?? ''}`);
      if (req.source === 'sitemap') listing(req.discoveredFrom, req.uniqueKey, req.sitemapEntry);
    },
    onDuplicate: (id, d, init) => {
      seen.discoveries.push(`${keys[id]} ${d.source} ${d.from ?? ''}`);
      if (d.source === 'sitemap') listing(d.from, keys[id]!, init.sitemapEntry);
    },
    onResult: (req, state, result, facts) => {
      UrlResultSchema.parse(result);
      seen.results.set(req.uniqueKey, { state, result, ...(facts ? { facts } : {}) });
    },
    onPageLinks: (page, links) => seen.links.set(page.uniqueKey, links),
    onNode: (node) => seen.nodes.set(node.id, node),
  };
  const crawler = new Crawler({ settings: settings(site), hooks, ...(recrawl ? { recrawl } : {}) });
  assert.equal(await crawler.run(), 'finished');
  return seen;
}

/** A RecrawlBase over what a first crawl saw; `lose` pages have no base answer to carry. */
function baseOf(b: Seen, lose = new Set<string>()): RecrawlBase {
  return {
    validators: (key) => {
      const r = b.results.get(key);
      if (!r || (r.result.status ?? 0) !== 200 || b.nodes.has(key)) return undefined;
      return r.facts?.etag !== undefined || r.facts?.lastModified !== undefined ? { etag: r.facts.etag, lastModified: r.facts.lastModified } : undefined;
    },
    carried: async (key) => {
      const r = b.results.get(key);
      if (!r || lose.has(key)) return undefined;
      const page: CarriedPage = { state: r.state, result: r.result, ...(r.facts ? { facts: r.facts } : {}) };
      const links = b.links.get(key);
      if (links) page.links = links.map((l) => ({ url: l.url, anchor: l.anchor, nofollow: l.nofollow }));
      // What else the page referred to (rel=next and the like): the discoveries it made as 'reference'.
      const refs = b.discoveries.map((d) => d.split(' ')).filter(([, source, from]) => source === 'reference' && from === key);
      if (refs.length) page.references = refs.map(([k]) => k!);
      return page;
    },
    sitemapValidators: (id) => {
      const n = b.nodes.get(id);
      return n && (n.etag || n.lastModified) ? { etag: n.etag, lastModified: n.lastModified, indexLastmod: n.lastmod } : undefined;
    },
    carriedSitemap: (id) => {
      const node = b.nodes.get(id);
      if (!node) return undefined;
      const children = [...b.nodes.values()].filter((n) => n.parentId === id && n.type !== 'robots');
      const items: SitemapItem[] = [
        ...(b.listings.get(node.url) ?? []),
        ...children.map((c): SitemapItem => ({ kind: 'sitemap', loc: c.url, lastmod: c.lastmod })),
      ];
      return {
        node,
        items: async function* () {
          for (let i = 0; i < items.length; i += 7) yield items.slice(i, i + 7);
        },
      };
    },
  };
}

describe('crawler: recrawl with validators', { timeout: 120_000 }, () => {
  let site: RealSite;
  let first: Seen;
  const statuses = new Map<string, number[]>();
  before(async () => {
    site = await startRealSite({ conditional: 'honour', feed: true });
    first = await run(site);
    site.setOnEvent((e: RealSiteEvent) => {
      if (e.type === 'answered') statuses.set(e.path, [...(statuses.get(e.path) ?? []), e.status]);
    });
  });
  after(() => site.close());

  it('pages and sitemaps answer 304 and keep their base answers; the same URLs are reached the same ways', async () => {
    statuses.clear();
    const second = await run(site, baseOf(first));
    assert.deepEqual([...second.results.keys()].sort(), [...first.results.keys()].sort());
    assert.deepEqual([...second.discoveries].sort(), [...first.discoveries].sort());
    // The feed named by every page's <link rel="alternate"> is a 'reference' discovery: carried pages make it too.
    assert.ok(first.discoveries.some((d) => d.split(' ')[1] === 'reference'));
    let carried = 0;
    for (const [key, r] of second.results) {
      const b = first.results.get(key)!;
      if (b.facts?.etag !== undefined && b.result.status === 200 && !first.nodes.has(key)) {
        carried++;
        assert.deepEqual(r.result, { ...b.result, carriedOver: true, notModified: true }, key);
        assert.deepEqual(r.facts, b.facts, key);
        assert.deepEqual(second.links.get(key), first.links.get(key), key);
      } else assert.equal(r.result.carriedOver, undefined, key);
    }
    assert.ok(carried > 100, `${carried} pages carried over`);
    for (const n of second.nodes.values()) {
      if (n.type === 'robots') continue;
      const b = first.nodes.get(n.id)!;
      if (first.results.has(n.id)) {
        // A feed reached by a link is fetched as a page, whose answer is a sitemap to read: read again.
        assert.equal(n.carriedOver, undefined, n.url);
        assert.equal(n.urlCount, b.urlCount, n.url);
        assert.deepEqual(statuses.get(new URL(n.url).pathname), [200], n.url);
        continue;
      }
      assert.equal(n.carriedOver, true, n.url);
      assert.equal(n.urlCount, b.urlCount, n.url);
      assert.equal(n.etag, b.etag, n.url);
      assert.deepEqual(statuses.get(new URL(n.url).pathname), [304], n.url);
    }
    // The first crawl recorded every sitemap's validators on its node.
    assert.ok([...first.nodes.values()].filter((n) => n.type !== 'robots').every((n) => n.etag !== undefined && n.lastModified !== undefined));
  });

  it('a 304 whose base answer cannot be had is fetched again without validators', async () => {
    const home = site.url('/');
    statuses.clear();
    const second = await run(site, baseOf(first, new Set([home])));
    assert.deepEqual(statuses.get('/'), [304, 200]);
    assert.equal(second.results.get(home)!.result.carriedOver, undefined);
    assert.equal(second.results.get(home)!.result.status, 200);
    assert.deepEqual([...second.results.keys()].sort(), [...first.results.keys()].sort());
  });
});
