import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { CSV_COLUMNS, createCsvWriter, guardCell, toCsvCells, type ExportRecord } from '../../electron/service/data/csv.js';
import type { UrlRow } from '../../shared/model.js';

const HEADER =
  'url,source,depth,discovered_from,in_sitemaps,lastmod,changefreq,priority,hreflang,images,status,content_type,' +
  'redirect_to,canonical,meta_robots,x_robots_tag,title,blocked_by_robots,error,' +
  'indexability,indexability_reason,meta_description,meta_description_count,h1,h1_count,lang,word_count,' +
  'response_time_ms,size_bytes,transferred_bytes,last_modified,etag,' +
  'inlinks,unique_inlinks,outlinks_internal,outlinks_external,click_depth';
/** The cells after `error` of a row that has none of the fields appended for issue 22. */
const NO_PAGE_FIELDS = ','.repeat(18);

function row(over: Partial<UrlRow> = {}): UrlRow {
  return { id: 0, url: 'https://site.test/', state: 'done', source: 'start', depth: 0, inSitemaps: [], ...over };
}

/** A Writable that keeps what it is given; `delayMs` makes it slow (each write completes later). */
function sink(opts: { delayMs?: number; highWaterMark?: number } = {}) {
  const chunks: string[] = [];
  const out = new Writable({
    highWaterMark: opts.highWaterMark ?? 16 * 1024,
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString('utf8'));
      if (opts.delayMs) setTimeout(cb, opts.delayMs);
      else cb();
    },
  });
  return { out, text: () => chunks.join(''), chunks };
}

async function csvOf(recs: ExportRecord[]): Promise<string> {
  const s = sink();
  const w = createCsvWriter(s.out);
  for (const r of recs) await w.write(r);
  await w.end();
  return s.text();
}

/** A minimal RFC 4180 reader, enough to round-trip what the writer produces. */
function parseCsv(src: string): string[][] {
  const rows: string[][] = [];
  let cell = '';
  let cur: string[] = [];
  let quoted = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (quoted) {
      if (c === '"' && src[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      cur.push(cell);
      cell = '';
    } else if (c === '\n') {
      cur.push(cell);
      rows.push(cur);
      cur = [];
      cell = '';
    } else cell += c;
  }
  assert.equal(cell + cur.join(''), '', 'input ends with a record delimiter');
  return rows;
}

test('the header is exactly the column list, and is written even with zero rows', async () => {
  assert.equal(CSV_COLUMNS.join(','), HEADER);
  assert.equal(await csvOf([]), HEADER + '\n');
});

test('the README shows the header exactly as the export writes it', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  // Any code span that starts like the header is meant to be it.
  const shown = [...readme.matchAll(/`(url,source,[^`]*)`/g)].map((m) => m[1]);
  assert.ok(shown.length > 0, 'README.md shows the CSV header');
  for (const h of shown) assert.equal(h, CSV_COLUMNS.join(','));
});

test('a full record maps to its cells in column order', () => {
  const cells = toCsvCells({
    row: row({
      url: 'https://site.test/a',
      source: 'sitemap',
      depth: 2,
      discoveredFrom: 'https://site.test/sitemap.xml',
      inSitemaps: ['https://site.test/s1.xml', 'https://site.test/s2.xml'],
      lastmod: '2024-01-15',
      changefreq: 'daily',
      priority: 0.8,
      status: 301,
      contentType: 'text/html; charset=utf-8',
      redirectTo: 'https://site.test/b',
      canonical: 'https://site.test/b',
      title: 'A page',
      indexability: 'non-indexable',
      indexabilityReason: 'redirect',
      metaDescription: 'About A, and more',
      metaDescriptionCount: 2,
      h1: 'A',
      h1Count: 1,
      lang: 'en-GB',
      wordCount: 250,
      responseTimeMs: 37,
      sizeBytes: 5120,
      transferredBytes: 1400,
      lastModified: 'Mon, 01 Jan 2024 08:00:00 GMT',
      etag: 'W/"a-1"',
      inlinks: 4,
      uniqueInlinks: 3,
      outlinksInternal: 10,
      outlinksExternal: 1,
      clickDepth: 2,
    }),
    entry: {
      loc: 'https://site.test/a',
      alternates: [{ lang: 'de', href: 'https://site.test/de/a' }],
      images: [{ loc: 'https://site.test/1.jpg' }, { loc: 'https://site.test/2.jpg', title: 'two' }],
    },
    result: {
      metaRobots: 'noindex, follow',
      xRobotsTag: 'noarchive',
      hreflang: [
        { lang: 'de', href: 'https://site.test/de/a' }, // also in the sitemap: listed once
        { lang: 'x-default', href: 'https://site.test/a' },
      ],
    },
  });
  assert.deepEqual(cells, [
    'https://site.test/a',
    'sitemap',
    '2',
    'https://site.test/sitemap.xml',
    'https://site.test/s1.xml | https://site.test/s2.xml',
    '2024-01-15',
    'daily',
    '0.8',
    'de=https://site.test/de/a | x-default=https://site.test/a',
    'https://site.test/1.jpg | https://site.test/2.jpg',
    '301',
    'text/html; charset=utf-8',
    'https://site.test/b',
    'https://site.test/b',
    'noindex, follow',
    'noarchive',
    'A page',
    'false',
    '',
    'non-indexable',
    'redirect',
    'About A, and more',
    '2',
    'A',
    '1',
    'en-GB',
    '250',
    '37',
    '5120',
    '1400',
    'Mon, 01 Jan 2024 08:00:00 GMT',
    'W/"a-1"',
    '4',
    '3',
    '10',
    '1',
    '2',
  ]);
});

test('the appended fields: empty when absent, 0 and empty text kept apart, text guarded', () => {
  const at = (cells: string[], c: (typeof CSV_COLUMNS)[number]) => cells[CSV_COLUMNS.indexOf(c)];
  // A page with neither a meta description nor an H1: counts 0, texts empty.
  const missing = toCsvCells({ row: row({ metaDescriptionCount: 0, h1Count: 0, wordCount: 0 }) });
  assert.deepEqual(
    [at(missing, 'meta_description'), at(missing, 'meta_description_count'), at(missing, 'h1'), at(missing, 'h1_count'), at(missing, 'word_count')],
    ['', '0', '', '0', '0'],
  );
  // Not a page (a redirect, a file): no counts at all.
  const none = toCsvCells({ row: row() });
  assert.deepEqual(
    CSV_COLUMNS.slice(CSV_COLUMNS.indexOf('indexability')).map((c) => at(none, c)),
    Array(18).fill(''),
  );
  // Link figures: 0 is a count (a page nobody links to, a start URL at click depth 0), absent is empty.
  const start = toCsvCells({ row: row({ inlinks: 0, uniqueInlinks: 0, outlinksInternal: 0, outlinksExternal: 0, clickDepth: 0 }) });
  assert.deepEqual(
    ['inlinks', 'unique_inlinks', 'outlinks_internal', 'outlinks_external', 'click_depth'].map((c) => at(start, c as (typeof CSV_COLUMNS)[number])),
    ['0', '0', '0', '0', '0'],
  );
  const listed = toCsvCells({ row: row({ inlinks: 2, uniqueInlinks: 1 }) });
  assert.deepEqual(
    ['inlinks', 'unique_inlinks', 'outlinks_internal', 'outlinks_external', 'click_depth'].map((c) => at(listed, c as (typeof CSV_COLUMNS)[number])),
    ['2', '1', '', '', ''],
  );
  // A page's own text may start like a formula.
  const hostile = toCsvCells({ row: row({ metaDescription: '=cmd|x', h1: '+1', lang: '@en', lastModified: '-1', etag: '=etag' }) });
  assert.deepEqual(
    [at(hostile, 'meta_description'), at(hostile, 'h1'), at(hostile, 'lang'), at(hostile, 'last_modified'), at(hostile, 'etag')],
    ["'=cmd|x", "'+1", "'@en", "'-1", "'=etag"],
  );
});

test('row fields fall back to the sitemap entry and the result; absent ones are empty', () => {
  const cells = toCsvCells({
    row: row(),
    entry: { loc: 'https://site.test/', lastmod: '2023-05-05', changefreq: 'weekly', priority: 1 },
    result: { status: 200, title: 'From result', contentType: 'text/html' },
  });
  const at = (c: (typeof CSV_COLUMNS)[number]) => cells[CSV_COLUMNS.indexOf(c)];
  assert.deepEqual(
    [at('lastmod'), at('changefreq'), at('priority'), at('status'), at('title'), at('content_type'), at('discovered_from'), at('images')],
    ['2023-05-05', 'weekly', '1', '200', 'From result', 'text/html', '', ''],
  );
  assert.equal(cells.length, CSV_COLUMNS.length);
});

test('blocked_by_robots is true/false; error is "CODE: message"', () => {
  const blockedIdx = CSV_COLUMNS.indexOf('blocked_by_robots');
  const errorIdx = CSV_COLUMNS.indexOf('error');
  assert.equal(toCsvCells({ row: row({ state: 'blocked' }) })[blockedIdx], 'true');
  assert.equal(toCsvCells({ row: row({ blockedByRobots: true }) })[blockedIdx], 'true');
  assert.equal(toCsvCells({ row: row(), result: { blockedByRobots: true } })[blockedIdx], 'true');
  assert.equal(toCsvCells({ row: row() })[blockedIdx], 'false');
  const failed = toCsvCells({ row: row({ state: 'error', error: { code: 'TIMEOUT', message: 'no answer in 10000 ms' } }) });
  assert.equal(failed[errorIdx], 'TIMEOUT: no answer in 10000 ms');
  const fromResult = toCsvCells({ row: row(), result: { error: { code: 'EBODY_TOO_LARGE', message: 'over 2 MiB' } } });
  assert.equal(fromResult[errorIdx], 'EBODY_TOO_LARGE: over 2 MiB');
});

test('commas, quotes and newlines are quoted (RFC 4180)', async () => {
  const csv = await csvOf([{ row: row({ url: 'https://site.test/?a=1,2', title: 'He said "hi",\nthen left' }) }]);
  const line = csv.split('\n').slice(1).join('\n');
  assert.equal(line, '"https://site.test/?a=1,2",start,0,,,,,,,,,,,,,,"He said ""hi"",\nthen left",false,' + NO_PAGE_FIELDS + '\n');
});

test('formula injection: each of = + - @ TAB CR at the start gets a leading quote', async () => {
  const cases: [string, string][] = [
    ['=HYPERLINK("http://evil.test","click")', `'=HYPERLINK("http://evil.test","click")`],
    ['+1+1', "'+1+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['\tindented', "'\tindented"],
    ['\rcarriage', "'\rcarriage"],
    // Harmless but guarded all the same: a rule letting "numeric" dashes through could be gamed.
    ['-5 °C in Oslo', "'-5 °C in Oslo"],
  ];
  const titleIdx = CSV_COLUMNS.indexOf('title');
  for (const [input, guarded] of cases) {
    assert.equal(guardCell(input), guarded, JSON.stringify(input));
    assert.equal(toCsvCells({ row: row({ title: input }) })[titleIdx], guarded);
  }
  for (const safe of ['a=b', 'Café', '1-2', ' =not at start', '', 'https://site.test/=x']) assert.equal(guardCell(safe), safe, JSON.stringify(safe));
  // Every cell is guarded, not only titles: the error and discovered_from columns too.
  const cells = toCsvCells({ row: row({ discoveredFrom: '=cmd', error: { code: 'X', message: 'y' } }) });
  assert.equal(cells[CSV_COLUMNS.indexOf('discovered_from')], "'=cmd");
  // Through the writer: the guarded CR cell is also quoted, since it holds a CR.
  const csv = await csvOf([{ row: row({ title: '\rcarriage' }) }]);
  assert.ok(csv.includes(`,"'\rcarriage",`), JSON.stringify(csv));
});

test('round trip: what is written parses back to the same cells', async () => {
  const recs: ExportRecord[] = [
    { row: row({ url: 'https://site.test/a', title: 'plain' }) },
    { row: row({ url: 'https://site.test/b?x="1"', title: 'with "quotes", commas\nand lines\r\n', inSitemaps: ['s1', 's2'] }) },
    { row: row({ url: 'https://site.test/é', title: '=1+2', state: 'blocked' }) },
    { row: row({ url: 'https://site.test/d', error: { code: 'NETWORK_ERROR', message: 'ECONNRESET, twice' } }) },
  ];
  const parsed = parseCsv(await csvOf(recs));
  assert.deepEqual(parsed[0], [...CSV_COLUMNS]);
  assert.deepEqual(parsed.slice(1), recs.map(toCsvCells));
});

test('backpressure: a slow output receives every row, in order, and write() asks the caller to wait', async () => {
  const s = sink({ delayMs: 1, highWaterMark: 64 });
  const w = createCsvWriter(s.out);
  const n = 300;
  let waits = 0;
  for (let i = 0; i < n; i++) {
    const p = w.write({ row: row({ id: i, url: `https://site.test/p/${i}`, title: `Title ${i}, with a comma` }) });
    if (p) {
      waits++;
      await p;
    }
  }
  await w.end();
  assert.ok(waits > 0, 'the writer signalled backpressure at least once');
  assert.equal(w.rows, n);
  const lines = s.text().trimEnd().split('\n');
  assert.equal(lines[0], HEADER);
  assert.equal(lines.length, n + 1);
  for (let i = 0; i < n; i++) assert.ok(lines[i + 1].startsWith(`https://site.test/p/${i},`), `row ${i} in order`);
  assert.ok(s.out.writableFinished, 'out was ended');
});

test('endOutput: false leaves the output open with everything flushed; bom: true prefixes a BOM', async () => {
  const s = sink({ delayMs: 1 });
  const w = createCsvWriter(s.out, { endOutput: false, bom: true });
  await w.write({ row: row() });
  await w.end();
  assert.equal(s.out.writableEnded, false);
  const text = s.text();
  assert.ok(text.startsWith('\ufeff' + HEADER + '\n'));
  assert.ok(text.endsWith('https://site.test/,start,0,,,,,,,,,,,,,,,false,' + NO_PAGE_FIELDS + '\n'), JSON.stringify(text.slice(-80)));
});

test('an output error rejects the export instead of hanging', async () => {
  const out = new Writable({
    highWaterMark: 16,
    write(_c, _e, cb) {
      cb(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    },
  });
  const w = createCsvWriter(out);
  await assert.rejects(async () => {
    for (let i = 0; i < 100; i++) await w.write({ row: row({ id: i }) });
    await w.end();
  }, /no space left on device/);
});

test('the hand-written encoder writes what csv-stringify wrote, byte for byte, for random cells', async () => {
  const { stringify } = await import('csv-stringify/sync');
  const pieces = ['a', 'Z', ' ', ',', '"', '""', '\n', '\r', '\r\n', '=', '+', '-', '@', '\t', 'é', '✓', '𝄞', "'", ';', '|', 'https://site.test/p?a=1&b=2'];
  let seed = 7;
  const rand = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  const text = () => Array.from({ length: rand(6) }, () => pieces[rand(pieces.length)]).join('');
  const recs: ExportRecord[] = [];
  for (let i = 0; i < 2000; i++) {
    recs.push({
      row: row({
        id: i,
        url: `https://site.test/${text()}`,
        title: text(),
        discoveredFrom: rand(3) ? text() : undefined,
        inSitemaps: [text(), text()].slice(rand(3)),
      }),
      entry: rand(2) ? { loc: 'https://site.test/', lastmod: text(), alternates: [{ lang: text(), href: text() }] } : undefined,
    });
  }
  const ours = await csvOf(recs);
  const theirs = stringify(recs.map(toCsvCells), { header: true, columns: [...CSV_COLUMNS], record_delimiter: 'unix', quoted_match: /\r/ });
  assert.equal(ours, theirs);
  assert.ok(/"[^"]*""/.test(ours) && ours.includes('\r'), 'the cases that need quoting were there');
});
