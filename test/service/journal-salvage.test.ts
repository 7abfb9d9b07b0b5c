/**
 * A journal damaged in the middle (journal-salvage.ts): every record before the damage and every
 * later one that is consistent is kept, ids renumbered past lost admissions; what refers to lost
 * records is dropped (or, for a URL, loses only that reference); the loss is counted and located.
 * A crawl with such a journal opens, exports and audits; resuming it rewrites the journal first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { runCli } from '../../electron/cli/cli.js';
import { createCrawlService, type LocalCrawlService } from '../../electron/service/index.js';
import { BatchReplayer, replayJournal, type ReplayStats } from '../../electron/service/journal/reader.js';
import { repairJournal } from '../../electron/service/journal/writer.js';
import { ResumeLedger } from '../../electron/service/journal/resume-ledger.js';
import { MAX_PAGE, type UrlRow } from '../../shared/model.js';
import { FakeCrawler, sitemapPlan, type FakePlan } from './fake-crawler.js';
import { allRows, csvOf, parseCsv, settled, tempDir } from './helpers.js';

// ---------------------------------------------------------------- the records

const A = 'http://a.test';
/** A small journal: a start URL, a sitemap's nine URLs, their results, a DUP, a link found on page 4. */
function journalLines(): string[] {
  const lines = [`[0,0,0,0,-1,"${A}/"]`, `[5,0,"${A}/sitemap.xml"]`];
  for (let i = 1; i <= 9; i++) lines.push(`[0,${i},2,0,-2,"${A}/${i}","2024-01-0${i}"]`);
  lines.push('[7]');
  for (let i = 0; i <= 9; i++) lines.push(`[2,${i},1,{"status":200,"title":"T${i}"}]`);
  lines.push('[1,3,2,-2,"2024-02-03"]', `[0,10,3,1,4,"${A}/10"]`, '[2,10,1,{"status":200}]', '[6,{"seeded":true},0]');
  lines.push('[4,{"at":1,"level":"info","message":"after"}]', '[7]');
  return lines;
}

/** Replays `lines` (newline-terminated) as the journal of a fresh folder. */
async function replayLines(lines: string[]): Promise<{ recs: unknown[][]; stats: ReplayStats; file: string }> {
  const file = path.join(tempDir(), 'journal.jsonl');
  fs.writeFileSync(file, lines.map((l) => l + '\n').join(''));
  const recs: unknown[][] = [];
  const stats = await replayJournal(file, (r) => recs.push(r));
  return { recs, stats, file };
}

const admits = (recs: unknown[][]) => recs.filter((r) => r[0] === 0).map((r) => [r[1], r[5], r[4]]);
const results = (recs: unknown[][]) => recs.filter((r) => r[0] === 2).map((r) => [r[1], (r[3] as { title?: string }).title]);

test('a sound journal passes through unchanged, with nothing counted', async () => {
  const lines = journalLines();
  const { recs, stats } = await replayLines(lines);
  assert.deepEqual(
    recs,
    lines.filter((l) => l !== '[7]').map((l) => JSON.parse(l)),
  );
  assert.deepEqual(stats.salvage, { badLines: 0, droppedRecords: 0, lostUrls: 0, clearedRefs: 0, firstLine: 0, lastLine: 0, firstByte: 0, lastByte: 0 });
});

test('a garbled ADMIT: later ids move down, its RESULT is dropped, a URL found on it keeps its place without the reference', async () => {
  const lines = journalLines();
  const at = lines.findIndex((l) => l.startsWith('[0,4,'));
  lines[at] = lines[at]!.slice(0, 9) + '\u0000\u00ff' + lines[at]!.slice(11);
  const { recs, stats, file } = await replayLines(lines);
  assert.deepEqual(admits(recs), [
    [0, `${A}/`, -1],
    [1, `${A}/1`, -2],
    [2, `${A}/2`, -2],
    [3, `${A}/3`, -2],
    [4, `${A}/5`, -2],
    [5, `${A}/6`, -2],
    [6, `${A}/7`, -2],
    [7, `${A}/8`, -2],
    [8, `${A}/9`, -2],
    [9, `${A}/10`, -1], // found on the lost page 4: kept, without where it was found
  ]);
  assert.deepEqual(results(recs), [
    [0, 'T0'],
    [1, 'T1'],
    [2, 'T2'],
    [3, 'T3'],
    [4, 'T5'],
    [5, 'T6'],
    [6, 'T7'],
    [7, 'T8'],
    [8, 'T9'],
    [9, undefined],
  ]);
  assert.deepEqual(
    recs.filter((r) => r[0] === 1).map((r) => r[1]),
    [3],
    'the DUP of a kept URL is kept',
  );
  assert.ok(
    recs.some((r) => r[0] === 4),
    'records after the damage are kept',
  );
  const offset = Buffer.byteLength(
    lines
      .slice(0, at)
      .map((l) => l + '\n')
      .join(''),
  );
  assert.deepEqual(stats.salvage, {
    badLines: 1,
    droppedRecords: 1, // RESULT of the lost URL
    lostUrls: 1,
    clearedRefs: 1,
    firstLine: at + 1,
    lastLine: at + 1,
    firstByte: offset,
    lastByte: offset + Buffer.byteLength(lines[at]! + '\n'),
  });

  // Rewritten as salvaged: the same records, the ids dense, nothing left to salvage, the loss logged.
  const { stats: before, kept } = await repairJournal(
    file,
    (st, keptAt) => ({ at: 2, level: 'warning', code: 'JOURNAL_SALVAGED', message: `${st.salvage.lostUrls} lost, kept ${keptAt}` }),
    1234,
  );
  assert.equal(before.salvage.lostUrls, 1);
  assert.equal(kept, path.join(path.dirname(file), 'journal.damaged-1234.jsonl'));
  assert.equal(fs.readFileSync(kept, 'utf8'), lines.map((l) => l + '\n').join(''), 'the damaged journal is kept as it was');
  const again: unknown[][] = [];
  const after = await replayJournal(file, (r) => again.push(r));
  assert.equal(after.salvage.badLines + after.salvage.droppedRecords + after.salvage.clearedRefs, 0);
  assert.deepEqual(again.slice(0, -1), recs);
  assert.deepEqual(again.at(-1), [4, { at: 2, level: 'warning', code: 'JOURNAL_SALVAGED', message: `1 lost, kept ${kept}` }]);
  assert.equal(after.droppedBytes, 0);
});

test('an ADMIT whose id itself is damaged is dropped, and the next one takes the id it skips', async () => {
  const lines = journalLines();
  const at = lines.findIndex((l) => l.startsWith('[0,5,'));
  lines[at] = lines[at]!.replace('[0,5,', '[0,95,');
  const { recs, stats } = await replayLines(lines);
  assert.deepEqual(
    admits(recs).map(([id, url]) => [id, url]),
    [
      [0, `${A}/`],
      [1, `${A}/1`],
      [2, `${A}/2`],
      [3, `${A}/3`],
      [4, `${A}/4`],
      [5, `${A}/6`],
      [6, `${A}/7`],
      [7, `${A}/8`],
      [8, `${A}/9`],
      [9, `${A}/10`],
    ],
  );
  assert.deepEqual(
    results(recs).map(([, t]) => t),
    ['T0', 'T1', 'T2', 'T3', 'T4', 'T6', 'T7', 'T8', 'T9', undefined],
  );
  assert.equal(stats.salvage.badLines, 1, 'the ADMIT with the damaged id');
  assert.equal(stats.salvage.lostUrls, 1);
  assert.equal(stats.salvage.droppedRecords, 1, 'the RESULT of its URL');
  assert.equal(stats.salvage.firstLine, at + 1);
  // An id going back is damage too, never a second URL with one id.
  const back = journalLines();
  back[back.findIndex((l) => l.startsWith('[0,6,'))] = `[0,2,2,0,-2,"${A}/6"]`;
  const b = await replayLines(back);
  assert.deepEqual(
    admits(b.recs).map(([, url]) => url),
    [`${A}/`, `${A}/1`, `${A}/2`, `${A}/3`, `${A}/4`, `${A}/5`, `${A}/7`, `${A}/8`, `${A}/9`, `${A}/10`],
  );
});

test('a lost FROM definition: the URLs it named are kept without it, a DUP naming it is dropped', async () => {
  const lines = journalLines();
  lines[1] = '[5,0,"' + A + '/sitemap.xm';
  const { recs, stats } = await replayLines(lines);
  assert.equal(admits(recs).length, 11);
  assert.ok(
    admits(recs)
      .slice(1, 10)
      .every(([, , from]) => from === -1),
  );
  assert.deepEqual(
    recs.filter((r) => r[0] === 1),
    [],
  );
  assert.deepEqual([stats.salvage.badLines, stats.salvage.droppedRecords, stats.salvage.clearedRefs, stats.salvage.lostUrls], [1, 1, 9, 0]);
});

test('records of other shapes are damage: a type out of range, an END with more in it, a RESULT without its result', async () => {
  const lines = journalLines();
  lines[lines.findIndex((l) => l.startsWith('[0,2,'))] = `[8,2,2,0,-2,"${A}/2"]`;
  lines[lines.indexOf('[7]')] = '[7,1]';
  lines[lines.findIndex((l) => l.startsWith('[2,7,'))] = '[2,7,1,200]';
  const { recs, stats } = await replayLines(lines);
  assert.equal(stats.salvage.badLines, 3);
  assert.equal(stats.salvage.lostUrls, 1);
  assert.deepEqual(
    admits(recs)
      .map(([, url]) => url)
      .slice(0, 3),
    [`${A}/`, `${A}/1`, `${A}/3`],
  );
  assert.equal(results(recs).length, 9);
});

test('damage in a last batch that never ended is dropped with that batch, not counted as damage', async () => {
  const lines = journalLines();
  lines.push(`[0,11,3,1,4,"${A}/11"]`, 'garbage', '[2,11,1,{}]');
  const { stats } = await replayLines(lines);
  assert.equal(stats.salvage.badLines, 0);
  assert.ok(stats.droppedBytes > 0);
});

test('a checkpoint whose resume count exceeds what salvage kept covers what there is', () => {
  const ledger = new ResumeLedger();
  ledger.pushSitemap(1, 0, false);
  ledger.pushSitemap(2, 0, true);
  const covered: number[] = [];
  ledger.coverSitemap(5, (id) => covered.push(id));
  assert.deepEqual(covered, []);
  assert.equal(ledger.remaining, 2);
  assert.equal(ledger.match('sitemap', 1, 0), 'absorb');
});

test('BatchReplayer hands each batch end on after the batch', () => {
  const seen: string[] = [];
  const r = new BatchReplayer(
    (rec) => seen.push(String(rec[0])),
    (end) => seen.push(`end${end[0]}`),
  );
  const buf = Buffer.from('[4,{}]\n[7]\n[4,{}]\n[6,{}]\n');
  r.feed(buf, buf.length, 0);
  assert.deepEqual(seen, ['4', 'end7', '4', '6', 'end6']);
});

// ---------------------------------------------------------------- crawls

const ORIGIN = 'http://shop.test';
const plan = (extra: Partial<FakePlan> = {}): FakePlan => ({ origin: ORIGIN, sitemaps: sitemapPlan(ORIGIN, 200, 4), fetchPages: true, ...extra });
const open = (dir: string, p: FakePlan = plan()): LocalCrawlService => createCrawlService({ stateDir: dir, crawlerFactory: (o) => new FakeCrawler(o, p) });
const byUrl = (rows: UrlRow[]) => new Map(rows.map(({ id: _id, ...r }) => [r.url, r]));

/** Flips bytes inside the ADMIT line of `url` (its id and source), as a bad sector would. */
function damageAdmit(journal: string, url: string): number {
  const buf = fs.readFileSync(journal);
  const at = buf.indexOf(`,"${url}"`);
  const lineStart = buf.lastIndexOf(10, at) + 1;
  assert.equal(buf[lineStart + 1], 0x30, 'an ADMIT line');
  for (let i = lineStart + 3; i < lineStart + 7; i++) buf[i] ^= 0x5a;
  fs.writeFileSync(journal, buf);
  return buf.subarray(0, lineStart).filter((b) => b === 10).length + 1;
}

test('a finished crawl with bytes flipped mid-journal opens, exports and audits all its other URLs, and says what was lost', async () => {
  const dir = tempDir();
  const s = open(dir);
  const id = s.create({ settings: { startUrl: ORIGIN + '/' } }).id;
  const end = settled(s, id);
  await s.start(id);
  await end;
  const rows = allRows(s, id);
  const csv = parseCsv(await csvOf(s, id));
  await s.close();
  const lost = `${ORIGIN}/product/item-101.html`;
  const journal = path.join(dir, 'crawls', id, 'journal.jsonl');
  const line = damageAdmit(journal, lost);
  const size = fs.statSync(journal).size;

  const s2 = open(dir);
  const summary = s2.list().find((c) => c.id === id)!;
  assert.equal(summary.damaged, undefined);
  const after = allRows(s2, id);
  const want = byUrl(rows);
  want.delete(lost);
  assert.deepEqual(byUrl(after), want, 'every other URL, as it was');
  assert.deepEqual(
    after.map((r) => r.id),
    after.map((_, i) => i),
    'ids dense',
  );
  const csvAfter = parseCsv(await csvOf(s2, id));
  assert.deepEqual(
    csvAfter,
    csv.filter((r) => r[0] !== lost),
    'the export has every other URL',
  );
  await s2.auditReady(id);
  assert.ok(s2.getFindings(id).length > 0);
  const w = s2.warnings().find((x) => x.code === 'JOURNAL_DAMAGED_LINES');
  assert.ok(w, JSON.stringify(s2.warnings()));
  assert.match(
    w.message,
    new RegExp(`1 damaged line at line ${line} \\(byte \\d+\\) and 1 later record that depended on it were dropped: 1 URL lost; everything else was kept`),
  );
  assert.match(w.message, /repaired when the crawl is resumed/);
  await s2.close();

  // The CLI exports it too, and says what was lost.
  const err = new PassThrough();
  let said = '';
  err.on('data', (d) => (said += d));
  const out = path.join(dir, 'cli.csv');
  const code = await runCli(
    ['export', id, '--out', out, '--state-dir', dir],
    { stdout: new PassThrough(), stderr: err, onInterrupt: () => () => {} },
    { openService: (d) => open(d) },
  );
  assert.equal(code, 0, said);
  assert.match(said, /^spinneret: warning: The journal of crawl \S+ \("shop\.test"\) is damaged: 1 damaged line at line \d+/m);
  assert.equal(parseCsv(fs.readFileSync(out, 'utf8')).length, csv.length - 1);
  assert.equal(fs.statSync(journal).size, size, 'reading leaves the journal as it is');
});

test('a paused crawl with a damaged journal resumes: the journal is rewritten first, the damaged one kept, the loss in the log', async () => {
  const dir = tempDir();
  let service: LocalCrawlService | null = null;
  let paused = false;
  let crawlId = '';
  const pausing = plan({
    onYield: (events) => {
      if (!paused && events > 300 && service) {
        paused = true;
        void service.pause(crawlId);
      }
    },
  });
  const s = open(dir, pausing);
  service = s;
  crawlId = s.create({ settings: { startUrl: ORIGIN + '/' } }).id;
  await s.start(crawlId);
  for (let i = 0; i < 500 && s.get(crawlId).status !== 'paused'; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(s.get(crawlId).status, 'paused');
  const before = allRows(s, crawlId);
  await s.close();
  const lost = before[40]!.url;
  const journal = path.join(dir, 'crawls', crawlId, 'journal.jsonl');
  damageAdmit(journal, lost);

  const s2 = open(dir);
  const end = settled(s2, crawlId);
  await s2.resume(crawlId);
  assert.equal((await end).status, 'finished');
  const w = s2.warnings().find((x) => x.code === 'JOURNAL_SALVAGED');
  assert.ok(w, JSON.stringify(s2.warnings()));
  assert.match(w.message, /1 URL lost/);
  const kept = fs.readdirSync(path.dirname(journal)).filter((f) => /^journal\.damaged-\d+\.jsonl$/.test(f));
  assert.equal(kept.length, 1);
  assert.ok(w.message.includes(path.join(path.dirname(journal), kept[0]!)));
  const rows = allRows(s2, crawlId);
  await s2.close();

  // Reopened: a sound journal, the same rows, the salvage in the crawl's log.
  const s3 = open(dir);
  assert.deepEqual(allRows(s3, crawlId), rows);
  assert.equal(s3.warnings().filter((x) => /JOURNAL/.test(x.code ?? '')).length, 0, JSON.stringify(s3.warnings()));
  const log = s3.log(crawlId, 0, MAX_PAGE).rows;
  assert.ok(log.some((e) => e.code === 'JOURNAL_SALVAGED' && /1 URL lost/.test(e.message)));
  const urls = new Set(rows.map((r) => r.url));
  assert.equal(urls.size, rows.length, 'each URL once');
  assert.equal(urls.has(lost), false, 'the lost URL stays lost (the sitemap it came from was read before)');
  for (const r of before) if (r.url !== lost) assert.ok(urls.has(r.url), r.url);
  for (const r of rows) assert.equal(r.state, 'done', r.url);
  await s3.close();
});
