/**
 * The facts beside a result (response time, sizes, Last-Modified, ETag, a page's on-page fields) in
 * the journal: the RESULT record's fifth element, round trip, lenient reading, and a journal written
 * before it (no facts) still read — its rows simply lack those fields.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { decodeResultFacts, encodeResult } from '../../electron/service/journal/format.js';
import type { ResultFacts } from '../../electron/engine/index.js';
import { createCrawlService } from '../../electron/service/index.js';
import { CSV_COLUMNS } from '../../electron/service/data/csv.js';
import { UrlDetailSchema, UrlRowSchema } from '../../shared/contract.js';
import { SPECIAL_FIELDS, startRealSite } from '../fixtures/real-site/site.js';
import { allRows, csvOf, parseCsv, settled, tempDir } from './helpers.js';

const FULL: ResultFacts = {
  responseTimeMs: 42,
  wireBytes: 1200,
  bodyBytes: 5400,
  lastModified: 'Tue, 02 Jan 2024 08:30:00 GMT',
  etag: 'W/"a\\"b"',
  metaDescription: 'Über "uns", \u2028 and 🌱',
  metaDescriptionCount: 2,
  h1: '',
  h1Count: 1,
  lang: 'de-CH',
  wordCount: 0,
  contentHash: '47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU',
};

test('RESULT: the facts ride as a fifth element with short keys, and read back the same', () => {
  const line = encodeResult(7, 1, { status: 200, title: 'T' }, FULL);
  assert.ok(line.endsWith(']\n'));
  const r = JSON.parse(line) as unknown[];
  assert.deepEqual(r.slice(0, 4), [2, 7, 1, { status: 200, title: 'T' }]);
  assert.deepEqual(Object.keys(r[4] as object), ['t', 'w', 'b', 'm', 'e', 'd', 'dn', 'h', 'hn', 'l', 'wc', 'ch']);
  assert.deepEqual(decodeResultFacts(r), FULL);
  // Only what is known is written: a redirect has no page fields.
  const redirect = JSON.parse(encodeResult(1, 1, { status: 301 }, { responseTimeMs: 3, wireBytes: 0, bodyBytes: 0 })) as unknown[];
  assert.deepEqual(redirect[4], { t: 3, w: 0, b: 0 });
  assert.deepEqual(decodeResultFacts(redirect), { responseTimeMs: 3, wireBytes: 0, bodyBytes: 0 });
});

test('RESULT without facts is the line older versions wrote, and reads as no facts', () => {
  const result = { status: 404, contentType: 'text/html' };
  const old = '[2,3,1,' + JSON.stringify(result) + ']\n';
  assert.equal(encodeResult(3, 1, result), old);
  assert.equal(encodeResult(3, 1, result, {}), old, 'empty facts are not written');
  assert.equal(encodeResult(3, 3, { blockedByRobots: true }, undefined), '[2,3,3,{"blockedByRobots":true}]\n');
  assert.equal(decodeResultFacts(JSON.parse(old) as unknown[]), undefined);
});

test('facts of the wrong type (a damaged line that still parses) are left out, not passed on', () => {
  assert.equal(decodeResultFacts([2, 1, 1, {}, 'x']), undefined);
  assert.equal(decodeResultFacts([2, 1, 1, {}, [1, 2]]), undefined);
  assert.equal(decodeResultFacts([2, 1, 1, {}, null]), undefined);
  assert.deepEqual(decodeResultFacts([2, 1, 1, {}, { t: -1, w: 1.5, b: '9', m: 5, e: 'ok', d: 'fine', hn: 2, wc: 1e300, ch: 7, zz: 1 }]), {
    etag: 'ok',
    metaDescription: 'fine',
    h1Count: 2,
  });
});

test('a journal written before the facts: its crawl opens, its rows, CSV and detail have no page data, indexability still', async () => {
  const site = await startRealSite();
  const dir = tempDir();
  let id: string;
  try {
    const service = createCrawlService({ stateDir: dir });
    try {
      id = service.create({ settings: { startUrl: site.url('/'), concurrency: 8, perHostConcurrency: 8, timeoutMs: 2000, retries: 0 } }).id;
      const end = settled(service, id);
      await service.start(id);
      assert.equal((await end).status, 'finished');
      assert.ok(
        allRows(service, id).some((r) => r.wordCount !== undefined),
        'this version journals the facts',
      );
    } finally {
      await service.close();
    }
  } finally {
    await site.close();
  }

  // Make it the journal an older version wrote: every RESULT without its facts. Blanks keep every
  // line's length (JSON allows them), so the offsets the catalog's checkpoint names stay true.
  const file = path.join(dir, 'crawls', id, 'journal.jsonl');
  let stripped = 0;
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => {
      if (!line.startsWith('[2,')) return line;
      const r = JSON.parse(line) as unknown[];
      if (r.length < 5) return line;
      stripped++;
      const old = JSON.stringify(r.slice(0, 4));
      return old.slice(0, -1) + ' '.repeat(Buffer.byteLength(line) - Buffer.byteLength(old)) + ']';
    });
  fs.writeFileSync(file, lines.join('\n'));
  assert.ok(stripped > 200, `${stripped} results stripped`);

  const service = createCrawlService({ stateDir: dir });
  try {
    assert.equal(service.get(id).status, 'finished');
    const rows = allRows(service, id);
    assert.ok(rows.length > 200);
    const page = [
      'metaDescription',
      'metaDescriptionCount',
      'h1',
      'h1Count',
      'lang',
      'wordCount',
      'responseTimeMs',
      'sizeBytes',
      'transferredBytes',
      'lastModified',
      'etag',
    ] as const;
    for (const r of rows) {
      UrlRowSchema.parse(r);
      assert.deepEqual(
        page.filter((k) => r[k] !== undefined),
        [],
        r.url,
      );
      // Indexability needs only the result, which older journals have.
      if (r.state === 'done' || r.state === 'blocked') assert.ok(r.indexability, r.url);
    }
    const byPath = new Map(rows.map((r) => [r.url.slice(site.origin.length), r]));
    assert.equal(byPath.get('/')!.indexability, 'indexable');
    assert.equal(byPath.get('/blog/tag/garden/')!.indexabilityReason, 'noindex');
    const detail = service.getUrl(id, byPath.get(SPECIAL_FIELDS.repeated)!.id);
    UrlDetailSchema.parse(detail);
    assert.equal(detail.h1Count, undefined);
    const [header, ...cells] = parseCsv(await csvOf(service, id));
    assert.deepEqual(header, [...CSV_COLUMNS]);
    // The facts' columns are empty (the link columns after them come from LINKS records, left in place).
    const from = CSV_COLUMNS.indexOf('meta_description');
    const to = CSV_COLUMNS.indexOf('etag') + 1;
    for (const c of cells) assert.deepEqual(c.slice(from, to).filter(Boolean), [], c[0]);
  } finally {
    await service.close();
  }
});
