/**
 * The journal: record format round trips, batches (an unfinished last batch and a torn last line are
 * dropped whole), write failures (cut back, kept for a retry), and reading records by offset.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JournalWriter } from '../../electron/service/journal/writer.js';
import { RecordReader, replayJournal, replayJournalSync } from '../../electron/service/journal/reader.js';
import {
  ADMIT_TAIL,
  DUP_TAIL,
  DUPS_TAIL,
  REC_ADMIT,
  admitFits,
  admitSource,
  decodeAdmit,
  decodeEntry,
  encodeAdmit,
  encodeDup,
  encodeDups,
  repeatsOf,
} from '../../electron/service/journal/format.js';
import { encodeTail, entryExtra } from '../../electron/engine/sitemap/read/entry-codec.js';
import type { RequestSource, SitemapUrlEntry } from '../../shared/model.js';

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'spinneret-journal-'));
}

async function replayAll(file: string) {
  const recs: [unknown[], number][] = [];
  const stats = await replayJournal(file, (r, o) => recs.push([r, o]));
  return { recs, stats };
}

test('ADMIT and DUP records round-trip a sitemap entry, priority 0.0 included', () => {
  const entry = {
    loc: 'https://shop.example/p/1',
    lastmod: '2024-01-15T10:00:00+00:00',
    changefreq: 'weekly',
    priority: 0,
    alternates: [{ lang: 'de', href: 'https://shop.example/de/p/1' }],
    images: [{ loc: 'https://shop.example/i/1.jpg', title: 'One' }],
  };
  const line = encodeAdmit(7, 'sitemap', true, 0, -2, entry.loc, entry.loc, entry, undefined, undefined);
  const r = JSON.parse(line) as unknown[];
  const rec = decodeAdmit(r);
  assert.equal(rec.id, 7);
  assert.equal(rec.source, 'sitemap');
  assert.equal(rec.listed, true);
  assert.deepEqual(rec.entry, entry);

  const noPriority = { loc: 'https://shop.example/p/2', changefreq: 'daily' };
  const r2 = JSON.parse(encodeAdmit(8, 'sitemap', false, 0, -2, noPriority.loc, noPriority.loc, noPriority, undefined, undefined)) as unknown[];
  assert.deepEqual(decodeEntry(r2, ADMIT_TAIL, noPriority.loc), noPriority);
  assert.equal(r2.length, 8, 'trailing absent fields are not written');

  const dup = JSON.parse(encodeDup(3, 'sitemap', -4, { loc: 'x', lastmod: '2024-02-02' })) as unknown[];
  assert.deepEqual(decodeEntry(dup, DUP_TAIL, 'x'), { loc: 'x', lastmod: '2024-02-02' });
  assert.equal(encodeDup(3, 'link', 5, undefined), '[1,3,3,5]\n');

  // n alike listings in a row: one DUPS line with the count after `from`, the entry's fields after it.
  const dups = JSON.parse(encodeDups(3, 'sitemap', -4, 250, { loc: 'x', lastmod: '2024-02-02', priority: 0.5 })) as unknown[];
  assert.deepEqual(dups.slice(0, 5), [8, 3, 2, -4, 250]);
  assert.deepEqual(decodeEntry(dups, DUPS_TAIL, 'x'), { loc: 'x', lastmod: '2024-02-02', priority: 0.5 });
  assert.equal(repeatsOf(dups), 250);
  assert.equal(repeatsOf(dup), 1);
  assert.equal(encodeDups(3, 'sitemap', -4, 2, undefined), '[8,3,2,-4,2]\n');
});

test('control characters and lone surrogates are escaped as JSON.stringify escapes them, and read back exactly', async () => {
  // Written out by hand: the bytes journals have always held for these (a lone surrogate written as
  // UTF-8 would turn into U+FFFD and read back as another string).
  const url = 'https://shop.example/a\u0000\u001f\b\t\n\u007f"\\ü\ud83d\ude00\ud800x\udfff';
  const urlJson = '"https://shop.example/a\\u0000\\u001f\\b\\t\\n\u007f\\"\\\\ü\ud83d\ude00\\ud800x\\udfff"';
  assert.equal(JSON.stringify(url), urlJson);
  const entry: SitemapUrlEntry = { loc: url, lastmod: '2024-01-02\u0001', changefreq: '\udc00weekly\r', priority: 0.5 };
  const admit = encodeAdmit(0, 'sitemap', false, 0, -1, url, url, entry, undefined, undefined);
  assert.equal(admit, '[0,0,2,0,-1,' + urlJson + ',"2024-01-02\\u0001","\\udc00weekly\\r",0.5]\n');
  const dup = encodeDup(0, 'sitemap', -1, { loc: url, changefreq: '\u0002' });
  assert.equal(dup, '[1,0,2,-1,0,"\\u0002"]\n');
  const file = path.join(tmp(), 'journal.jsonl');
  const w = JournalWriter.open(file, 0);
  w.append(admit);
  w.append(dup);
  w.flush('[7]\n');
  w.close();
  const bytes = fs.readFileSync(file);
  assert.equal(bytes.includes(Buffer.from([0xef, 0xbf, 0xbd])), false, 'no replacement character written');
  const { recs, stats } = await replayAll(file);
  assert.equal(stats.badLines, 0);
  const back = decodeAdmit(recs[0]![0]);
  assert.equal(back.url, url);
  assert.deepEqual(back.entry, entry);
  assert.deepEqual(decodeEntry(recs[1]![0], DUP_TAIL, url), { loc: url, changefreq: '\u0002' });
});

test('a uniqueKey that differs from the URL, a label and userData are kept', () => {
  const r = JSON.parse(encodeAdmit(0, 'start', false, 0, -1, 'HTTP://A.example/', 'http://a.example/', undefined, 'page', { x: 1 })) as unknown[];
  const rec = decodeAdmit(r);
  assert.equal(rec.url, 'HTTP://A.example/');
  assert.equal(rec.uniqueKey, 'http://a.example/');
  assert.equal(rec.label, 'page');
  assert.deepEqual(rec.userData, { x: 1 });
  assert.equal(rec.entry, undefined);
});

test('ADMIT lines are byte for byte what journals have always held for them', () => {
  const plain: SitemapUrlEntry = {
    loc: 'https://shop.example/p/1',
    lastmod: '2024-01-15',
    priority: 0.5,
    alternates: [{ lang: 'de', href: 'https://shop.example/de/p/1' }],
  };
  const quoted: SitemapUrlEntry = { loc: 'https://shop.example/p/"1"\\', changefreq: 'daily' };
  const admit = (e: SitemapUrlEntry, key = e.loc, label?: string, userData?: Record<string, unknown>) =>
    encodeAdmit(1, 'sitemap', false, 0, -2, e.loc, key, e, label, userData);
  assert.equal(admit(plain), '[0,1,2,0,-2,"https://shop.example/p/1","2024-01-15",0,0.5,{"a":[["de","https://shop.example/de/p/1"]]}]\n');
  assert.equal(admit(quoted), '[0,1,2,0,-2,"https://shop.example/p/\\"1\\"\\\\",0,"daily"]\n');
  assert.equal(admit({ loc: 'https://shop.example/p/2' }), '[0,1,2,0,-2,"https://shop.example/p/2"]\n');
  assert.equal(admit({ loc: 'https://shop.example/p/3', priority: 0.1 + 0.2 }), '[0,1,2,0,-2,"https://shop.example/p/3",0,0,0.30000000000000004]\n');
  assert.equal(
    admit(plain, 'https://shop.example/p/1?', 'lbl', { x: 1 }),
    '[0,1,2,0,-2,"https://shop.example/p/1","2024-01-15",0,0.5,{"a":[["de","https://shop.example/de/p/1"]],"k":"https://shop.example/p/1?","l":"lbl","u":{"x":1}}]\n',
  );
});

test("the entry's JSON from the parse worker is copied when it fits, and the line is the one encoding would write", () => {
  const text = (e: SitemapUrlEntry) => JSON.stringify(e.loc) + encodeTail(e, entryExtra(e));
  const w = JournalWriter.open(path.join(tmp(), 'journal.jsonl'), 0);
  // What the crawl runtime writes for an ADMIT: the worker's text copied when it fits, else the line encoded.
  const admitLine = (
    id: number,
    source: RequestSource,
    listed: boolean,
    depth: number,
    from: number,
    url: string,
    uniqueKey: string,
    entry: SitemapUrlEntry | undefined,
    label: string | undefined,
    userData: Record<string, unknown> | undefined,
    entryJson?: string,
  ): string =>
    entryJson !== undefined && admitFits(url, uniqueKey, label, userData, entryJson)
      ? w.pendingLineAt(w.appendRecord(REC_ADMIT, id, admitSource(source, listed), depth, from, entryJson))!
      : encodeAdmit(id, source, listed, depth, from, url, uniqueKey, entry, label, userData);
  const plain: SitemapUrlEntry = {
    loc: 'https://shop.example/p/1',
    lastmod: '2024-01-15',
    priority: 0.5,
    alternates: [{ lang: 'de', href: 'https://shop.example/de/p/1' }],
  };
  const quoted: SitemapUrlEntry = { loc: 'https://shop.example/p/"1"\\', changefreq: 'daily' };
  for (const e of [plain, quoted, { loc: 'https://shop.example/p/2' }]) {
    const want = encodeAdmit(1, 'sitemap', false, 0, -2, e.loc, e.loc, e, undefined, undefined);
    assert.equal(admitLine(1, 'sitemap', false, 0, -2, e.loc, e.loc, e, undefined, undefined, text(e)), want, e.loc);
  }
  // Text that does not fit is not used: another URL's, or the key, a label or userData must join the extra.
  const other = text({ ...plain, loc: 'https://shop.example/p/10' });
  assert.equal(
    admitLine(1, 'sitemap', false, 0, -2, plain.loc, plain.loc, plain, undefined, undefined, other),
    admitLine(1, 'sitemap', false, 0, -2, plain.loc, plain.loc, plain, undefined, undefined),
  );
  const escaped = text({ loc: 'https://shop.example/a"' });
  assert.ok(
    !admitLine(1, 'sitemap', false, 0, -2, 'https://shop.example/a\\"', 'https://shop.example/a\\"', { loc: 'x' }, undefined, undefined, escaped).includes(
      escaped,
    ),
  );
  const key = JSON.parse(admitLine(1, 'sitemap', false, 0, -2, plain.loc, 'https://shop.example/p/1?', plain, 'lbl', { x: 1 }, text(plain))) as unknown[];
  const rec = decodeAdmit(key);
  assert.equal(rec.uniqueKey, 'https://shop.example/p/1?');
  assert.equal(rec.label, 'lbl');
  assert.deepEqual(rec.userData, { x: 1 });
  assert.deepEqual(rec.entry, plain);
  w.close();
});

test('appendRecord writes the same bytes as the line built as a string, at the offset it returns', () => {
  const dir = tmp();
  const file = path.join(dir, 'journal.jsonl');
  const w = JournalWriter.open(file, 0);
  const numbers = [0, 1, 9, 10, 99, 100, 12345, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, -1, -2, -10, -123457, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 60, 0.5];
  const texts = ['"https://shop.example/p/1","2024-01-02"', '"https://shop.example/ünï/✓"', '"a",0,0,null,{"a":[["de","https://shop.example/de"]]}'];
  const want: string[] = [];
  const offsets: number[] = [];
  let expectedOffset = 0;
  for (let i = 0; i < numbers.length; i++) {
    const ints = [0, numbers[i]!, numbers[(i + 3) % numbers.length]!, i, numbers[(i + 7) % numbers.length]!] as const;
    const text = texts[i % texts.length]!;
    const line = '[' + ints.join(',') + ',' + text + ']\n';
    offsets.push(w.appendRecord(...ints, text));
    assert.equal(offsets[i], expectedOffset, line);
    assert.equal(w.pendingLineAt(offsets[i]!), line);
    expectedOffset += Buffer.byteLength(line);
    want.push(line);
  }
  w.flush('[7]\n');
  w.close();
  assert.equal(fs.readFileSync(file, 'utf8'), want.join('') + '[7]\n');
});

test('pending lines are found by offset across batches of thousands of lines, and only until they are written', () => {
  const w = JournalWriter.open(path.join(tmp(), 'journal.jsonl'), 0);
  for (const n of [10_000, 70_000, 3]) {
    const offsets: number[] = [];
    for (let i = 0; i < n; i++) offsets.push(i % 2 ? w.append(`[4,${i}]\n`) : w.appendRecord(REC_ADMIT, i, 1, 0, -1, `"https://shop.example/p/${i}"`));
    assert.equal(w.pendingLines, n);
    for (const i of [0, 1, 4095, 4096, 4097, n >> 1, n - 2, n - 1]) {
      if (i < 0 || i >= n) continue;
      const want = i % 2 ? `[4,${i}]\n` : `[0,${i},1,0,-1,"https://shop.example/p/${i}"]\n`;
      assert.equal(w.pendingLineAt(offsets[i]!), want, `line ${i} of ${n}`);
    }
    assert.equal(w.pendingLineAt(offsets[1]! + 1), undefined, 'not the start of a line');
    w.flush('[7]\n');
    assert.equal(w.pendingLines, 0);
    assert.equal(w.pendingLineAt(offsets[n - 1]!), undefined, 'written: read from the file instead');
  }
  w.close();
});

test('a sitemap URL with lastmod, changefreq and priority costs well under 200 bytes', () => {
  const url = 'https://www.example-shop.com/category/sub-category/product-name-12345.html';
  const line = encodeAdmit(
    123456,
    'sitemap',
    true,
    0,
    -5,
    url,
    url,
    { loc: url, lastmod: '2024-01-15T10:00:00+00:00', changefreq: 'weekly', priority: 0.8 },
    undefined,
    undefined,
  );
  assert.ok(Buffer.byteLength(line) < 140, `${Buffer.byteLength(line)} bytes: ${line}`);
});

test('batches: records of complete batches replay with their offsets; an unfinished last batch is dropped', async () => {
  const dir = tmp();
  const file = path.join(dir, 'journal.jsonl');
  const w = JournalWriter.open(file, 0);
  const o1 = w.append('[4,{"code":"A"}]\n');
  const o2 = w.append('[4,{"code":"B"}]\n');
  w.flush('[7]\n');
  const o3 = w.append('[4,{"code":"C"}]\n');
  w.flush('[6,{"seeded":true},0]\n');
  w.close();
  // A batch the kill interrupted: its lines are all there but its END is not.
  fs.appendFileSync(file, '[4,{"code":"D"}]\n[4,{"code":"E"}]\n');
  const { recs, stats } = await replayAll(file);
  assert.deepEqual(
    recs.map(([r]) => (r[0] === 4 ? (r[1] as { code: string }).code : `cp`)),
    ['A', 'B', 'C', 'cp'],
  );
  assert.deepEqual(
    recs.slice(0, 3).map(([, o]) => o),
    [o1, o2, o3],
  );
  assert.equal(stats.batches, 2);
  assert.equal(stats.droppedBytes, Buffer.byteLength('[4,{"code":"D"}]\n[4,{"code":"E"}]\n'));

  // Reopening for writing cuts the dropped batch off, so new batches follow the last complete one.
  const w2 = JournalWriter.open(file, stats.committedLength);
  w2.append('[4,{"code":"F"}]\n');
  w2.flush('[7]\n');
  w2.close();
  const again = await replayAll(file);
  assert.deepEqual(
    again.recs.filter(([r]) => r[0] === 4).map(([r]) => (r[1] as { code: string }).code),
    ['A', 'B', 'C', 'F'],
  );
  assert.equal(again.stats.droppedBytes, 0);
});

test('a torn last line (no newline) is dropped with its batch, at every byte it could be torn at', async () => {
  const dir = tmp();
  const file = path.join(dir, 'journal.jsonl');
  const w = JournalWriter.open(file, 0);
  w.append('[4,{"code":"A"}]\n');
  w.flush('[7]\n');
  const committed = w.durableLength;
  w.append('[4,{"code":"B","message":"ü"}]\n');
  w.flush('[7]\n');
  w.close();
  const full = fs.readFileSync(file);
  for (let cut = committed; cut < full.length; cut++) {
    fs.writeFileSync(file, full.subarray(0, cut));
    const { recs, stats } = await replayAll(file);
    assert.deepEqual(
      recs.map(([r]) => (r[1] as { code: string }).code),
      ['A'],
      `cut at ${cut}`,
    );
    assert.equal(stats.committedLength, committed);
  }
  fs.writeFileSync(file, full);
  assert.equal((await replayAll(file)).recs.length, 2);
});

test('replayJournalSync sees exactly what replayJournal sees, across chunk boundaries and long lines', async () => {
  const dir = tmp();
  const file = path.join(dir, 'journal.jsonl');
  const w = JournalWriter.open(file, 0);
  const long = 'x'.repeat(5 * 1024 * 1024); // longer than a read chunk
  for (let b = 0; b < 3; b++) {
    for (let i = 0; i < 20000; i++) w.append(`[4,{"code":"C${b}_${i}"}]\n`);
    w.append(`[4,{"code":"L${b}","message":"${long}"}]\n`);
    w.flush('[7]\n');
  }
  w.close();
  const a = await replayAll(file);
  const b: [unknown[], number][] = [];
  const sb = replayJournalSync(file, (r, o) => b.push([r, o]));
  assert.equal(a.recs.length, 3 * 20001);
  assert.equal(b.length, a.recs.length);
  for (let i = 0; i < b.length; i += 997) assert.deepEqual(b[i], a.recs[i]);
  assert.deepEqual(sb, a.stats);
});

test('a failed write is cut back and kept: nothing written is lost, the retry writes the same batch', async () => {
  const dir = tmp();
  const file = path.join(dir, 'journal.jsonl');
  let fail = false;
  const w = JournalWriter.open(file, 0, {
    beforeWrite: () => {
      if (fail) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    },
  });
  w.append('[4,{"code":"A"}]\n');
  w.flush('[7]\n');
  const size = w.durableLength;
  fail = true;
  const off = w.append('[4,{"code":"B"}]\n');
  assert.throws(
    () => w.flush('[7]\n'),
    (e: { code: string; message: string }) => e.code === 'JOURNAL_WRITE_FAILED' && /disk is full/.test(e.message),
  );
  assert.equal(fs.statSync(file).size, size, 'the file still ends after the last complete batch');
  assert.equal(w.pendingLines, 1);
  assert.equal(w.pendingLineAt(off), '[4,{"code":"B"}]\n', 'pending lines can still be read');
  fail = false;
  w.flush('[7]\n');
  w.close();
  const { recs } = await replayAll(file);
  assert.deepEqual(
    recs.map(([r, o]) => [(r[1] as { code: string }).code, o]),
    [
      ['A', 0],
      ['B', off],
    ],
  );
});

test('RecordReader reads records by offset, from the file and from lines not yet written', () => {
  const dir = tmp();
  const file = path.join(dir, 'journal.jsonl');
  const w = JournalWriter.open(file, 0);
  const offs: number[] = [];
  for (let i = 0; i < 5000; i++) offs.push(w.append(`[4,{"code":"R${i}","message":"${'m'.repeat(i % 300)}"}]\n`));
  w.flush('[7]\n');
  const pending = w.append('[4,{"code":"P"}]\n');
  const reader = new RecordReader(file, 4096);
  reader.writer = w;
  for (const i of [0, 1, 4999, 2500, 17, 4998, 3]) assert.equal((reader.read(offs[i]!)![1] as { code: string }).code, `R${i}`);
  for (let i = 0; i < 5000; i++) assert.equal((reader.read(offs[i]!)![1] as { code: string }).code, `R${i}`);
  assert.equal((reader.read(pending)![1] as { code: string }).code, 'P');
  assert.equal(reader.read(w.size + 100), undefined);
  reader.close();
  w.close();
});

test('priorities round trip exactly through the journal, the usual tenths and any other', () => {
  const values = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 0.25, 0.333, 0.30000000000000004, 1e-7];
  for (const priority of values) {
    const entry = { loc: 'http://a.example/p', changefreq: 'daily', priority };
    const line = encodeAdmit(1, 'sitemap', true, 0, -2, entry.loc, entry.loc, entry, undefined, undefined);
    const r = JSON.parse(line) as unknown[];
    assert.equal(r[8], priority, line);
    assert.equal(line.includes(',' + String(priority) + ']'), true, line);
  }
});
