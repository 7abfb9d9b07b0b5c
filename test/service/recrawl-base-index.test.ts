/**
 * BaseIndex (service/recrawl/base-index.ts) over a journal written record by record: what a recrawl
 * reads of its base. Validators only for 2xx answers that can be kept; a page's carried answer with
 * its facts, links (ids and texts) and references; an HTML page without a LINKS record (an older
 * journal) is not kept; a sitemap's listings handed out again in journal order, a DUPS record as its
 * n listings, other sitemaps' listings and page records between them skipped, then its child sitemaps;
 * the latest result wins; and the audit's previous facts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { SitemapNode, SitemapUrlEntry } from '../../shared/model.js';
import type { SitemapItem } from '../../electron/engine/types.js';
import { BaseIndex } from '../../electron/service/recrawl/base-index.js';
import { ADMIT_TAIL, decodeEntry, encodeAdmit, encodeDup, encodeDups, encodeLinks, encodeResult, linkTuple } from '../../electron/service/journal/format.js';
import { tempDir } from './helpers.js';

const O = 'http://shop.test';
const SM_A = `${O}/sitemap-a.xml`;
const SM_B = `${O}/sitemap-b.xml`;
const INDEX = `${O}/index.xml`;

function node(url: string, over: Partial<SitemapNode> = {}): SitemapNode {
  return {
    id: url,
    url,
    parentId: null,
    type: 'urlset',
    state: 'done',
    httpStatus: 200,
    bytes: 10,
    uncompressedBytes: 10,
    gzip: false,
    urlCount: 0,
    childCount: 0,
    problems: [],
    ...over,
  };
}

function journal(lines: string[]): string {
  const file = path.join(tempDir('spinneret-base-index-'), 'journal.jsonl');
  fs.writeFileSync(file, lines.join('') + '[7]\n');
  return file;
}

const entry = (loc: string, lastmod?: string): SitemapUrlEntry => (lastmod ? { loc, lastmod } : { loc });

async function all(gen: AsyncGenerator<SitemapItem[], void, void>): Promise<string[]> {
  const out: string[] = [];
  for await (const batch of gen)
    for (const it of batch)
      out.push(it.kind === 'url' ? `url ${it.entry.loc} ${it.entry.lastmod ?? '-'}` : it.kind === 'sitemap' ? `sitemap ${it.loc}` : 'problem');
  return out;
}

describe('BaseIndex', () => {
  const lines = [
    '[5,0,' + JSON.stringify(SM_A) + ']\n',
    '[5,1,' + JSON.stringify(SM_B) + ']\n',
    '[3,' + JSON.stringify(node(INDEX, { type: 'sitemapindex', etag: '"i1"', childCount: 2 })) + ']\n',
    '[3,' +
      JSON.stringify(node(SM_A, { parentId: INDEX, etag: '"a1"', lastModified: 'Mon, 01 Jan 2024 00:00:00 GMT', lastmod: '2024-01-01', urlCount: 4 })) +
      ']\n',
    '[3,' + JSON.stringify(node(SM_B, { parentId: INDEX, urlCount: 1 })) + ']\n',
    encodeAdmit(0, 'start', false, 0, -1, `${O}/`, `${O}/`, undefined, undefined, undefined),
    encodeAdmit(1, 'sitemap', false, 0, -2, `${O}/p1`, `${O}/p1`, entry(`${O}/p1`, '2024-02-01'), undefined, undefined),
    encodeResult(
      0,
      1,
      { status: 200, contentType: 'text/html', title: 'Home', canonical: `${O}/` },
      { etag: '"home"', lastModified: 'Tue, 02 Jan 2024 00:00:00 GMT', contentHash: 'A'.repeat(43) },
    ),
    encodeLinks(0, [linkTuple(1, 'P one', 0), linkTuple(`${O}/elsewhere`, '', 1)]),
    encodeAdmit(2, 'reference', false, 1, 0, `${O}/next`, `${O}/next`, undefined, undefined, undefined),
    encodeAdmit(3, 'sitemap', false, 0, -3, `${O}/b1`, `${O}/b1`, entry(`${O}/b1`), undefined, undefined),
    encodeDups(1, 'sitemap', -2, 2, entry(`${O}/p1`, '2024-02-02')),
    encodeDup(0, 'sitemap', -2, entry(`${O}/`)),
    encodeResult(1, 1, { status: 500, contentType: 'text/html' }, { etag: '"p1-500"' }),
    encodeResult(3, 1, { status: 200, contentType: 'text/html; charset=utf-8' }, { etag: '"b1"' }),
    encodeResult(2, 1, { status: 200, contentType: 'application/pdf' }, { lastModified: 'Wed, 03 Jan 2024 00:00:00 GMT' }),
  ];

  it('answers validators, carried pages and carried sitemaps from the journal', async () => {
    const ix = await BaseIndex.build(journal(lines));
    try {
      assert.equal(ix.count, 4);
      const home = ix.idOf(`${O}/`)!;
      assert.deepEqual(ix.validators(home), { etag: '"home"', lastModified: 'Tue, 02 Jan 2024 00:00:00 GMT' });
      // A 500 is no representation to revalidate.
      assert.equal(ix.validators(ix.idOf(`${O}/p1`)!), undefined);
      // An HTML page without a LINKS record: not kept, no validators.
      assert.equal(ix.validators(ix.idOf(`${O}/b1`)!), undefined);
      assert.equal(ix.carried(ix.idOf(`${O}/b1`)!), undefined);
      // A PDF has no links to know: kept.
      assert.deepEqual(ix.carried(ix.idOf(`${O}/next`)!)?.result.contentType, 'application/pdf');
      const kept = ix.carried(home)!;
      assert.equal(kept.state, 'done');
      assert.equal(kept.result.title, 'Home');
      assert.equal(kept.facts?.etag, '"home"');
      assert.deepEqual(kept.links, [
        { url: `${O}/p1`, anchor: 'P one', nofollow: false },
        { url: `${O}/elsewhere`, anchor: '', nofollow: true },
      ]);
      assert.deepEqual(kept.references, [`${O}/next`]);
      // Per URL: state, status, its listings' latest lastmod (listed 2024-02-01, then twice 2024-02-02).
      const p1 = ix.idOf(`${O}/p1`)!;
      assert.equal(ix.statusOf(p1), 500);
      assert.equal(ix.lastmodOf(p1), Date.UTC(2024, 1, 2) / 1000);
      assert.equal(ix.lastmodOf(home), 0, 'listed without a lastmod');
      assert.equal(ix.lastmodOf(ix.idOf(`${O}/next`)!), undefined, 'never listed');
      // Sitemaps: A's listings in order (the DUPS as two), not B's, then no children; the index's children.
      const a = ix.carriedSitemap(SM_A)!;
      assert.equal(a.node.etag, '"a1"');
      assert.deepEqual(await all(a.items()), [`url ${O}/p1 2024-02-01`, `url ${O}/p1 2024-02-02`, `url ${O}/p1 2024-02-02`, `url ${O}/ -`]);
      assert.deepEqual(await all(a.items()), await all(a.items()), 'read again alike');
      // An ADMIT's listing comes with its wire form (what the new journal copies): the entry as encoded.
      const first: SitemapItem[] = [];
      for await (const batch of a.items()) first.push(...batch);
      const admitted = first[0] as Extract<SitemapItem, { kind: 'url' }>;
      assert.ok(admitted.wire, 'an ADMIT listing has its wire form');
      assert.deepEqual(decodeEntry(JSON.parse(`[0,1,2,0,-2,${admitted.wire.entryJson}]`) as unknown[], ADMIT_TAIL, `${O}/p1`), admitted.entry);
      assert.equal((first[1] as Extract<SitemapItem, { kind: 'url' }>).wire, undefined, 'a DUPS listing has none');
      assert.deepEqual(await all(ix.carriedSitemap(SM_B)!.items()), [`url ${O}/b1 -`]);
      assert.deepEqual(await all(ix.carriedSitemap(INDEX)!.items()), [`sitemap ${SM_A}`, `sitemap ${SM_B}`]);
      assert.equal(ix.carriedSitemap(`${O}/never.xml`), undefined);
      assert.equal(ix.isSitemap(SM_A), true);
      // The audit's previous facts: the latest valid lastmod, the content hash of a done 2xx page.
      assert.deepEqual(ix.previous(`${O}/p1`), { lastmodMs: Date.UTC(2024, 1, 2) });
      assert.deepEqual(ix.previous(`${O}/`), { contentHash: 'A'.repeat(43) });
      assert.equal(ix.previous(`${O}/unknown`), undefined);
    } finally {
      ix.close();
    }
  });

  it('builds alike without yielding, and refuses a missing journal', async () => {
    const file = journal(lines);
    const ix = BaseIndex.buildSync(file);
    assert.equal(ix.count, 4);
    assert.deepEqual(await all(ix.carriedSitemap(SM_A)!.items()), [
      `url ${O}/p1 2024-02-01`,
      `url ${O}/p1 2024-02-02`,
      `url ${O}/p1 2024-02-02`,
      `url ${O}/ -`,
    ]);
    ix.close();
    await assert.rejects(BaseIndex.build(path.join(path.dirname(file), 'none.jsonl')), { code: 'ENOENT' });
  });
});
