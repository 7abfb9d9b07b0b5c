/**
 * Crawl files (issue 23): a crawl of the realistic site saved as one file (exportCrawlFile) and
 * opened elsewhere (importCrawlFile) holds the same URLs, rows, findings and CSV, byte for byte; a
 * list crawl keeps its list; a paused one resumes. A truncated, flipped, foreign, future or forged
 * file is refused with BAD_CRAWL_FILE and leaves no folder, catalog entry or staging file behind.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { PassThrough, Readable, Writable } from 'node:stream';
import { createHash } from 'node:crypto';
import { DEFAULT_SETTINGS, type CrawlSettings, type CrawlSummary } from '../../shared/model.js';
import { createCrawlService, type LocalCrawlService } from '../../electron/service/index.js';
import { CRAWL_FILE_MAGIC, importedEntry, writeCrawlFile } from '../../electron/service/crawl-file.js';
import { startRealSite, type RealSite } from '../fixtures/real-site/site.js';
import { allRows, csvOf, settled, tempDir } from './helpers.js';

const TIMEOUT = { timeout: 90_000 };

function settings(site: RealSite): Partial<CrawlSettings> & { startUrl: string } {
  return { startUrl: site.url('/'), userAgent: 'SpinneretFile/1.0', concurrency: 8, timeoutMs: 2000, connectTimeoutMs: 2000, retries: 0 };
}

async function exported(service: LocalCrawlService, id: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(c: Buffer, _e, cb) {
      chunks.push(c);
      cb();
    },
  });
  const { bytes } = await service.exportCrawlFile(id, out);
  const buf = Buffer.concat(chunks);
  assert.equal(bytes, buf.length, 'the byte count is what was written');
  return buf;
}

/** Everything a state folder holds that an import could leave behind: crawl folders, staging, catalog ids. */
function footprint(stateDir: string, service: LocalCrawlService): string {
  const crawls = fs.readdirSync(path.join(stateDir, 'crawls')).sort();
  const importing = fs.existsSync(path.join(stateDir, 'importing')) ? fs.readdirSync(path.join(stateDir, 'importing')) : [];
  return JSON.stringify({ crawls, importing, catalog: service.list().map((c) => c.id) });
}

async function findingsOf(service: LocalCrawlService, id: string) {
  await service.auditReady(id);
  const out: Record<string, { count: number; urls: string[] }> = {};
  for (const f of service.getFindings(id)) {
    out[f.code] = { count: f.count, urls: f.measured ? service.findingUrls(id, f.code, 0, 5000).urls : [] };
  }
  return out;
}

describe('crawl files', () => {
  let site: RealSite;
  let src: LocalCrawlService;
  let srcDir: string;
  let crawlId: string;
  let file: Buffer;

  before(async () => {
    site = await startRealSite();
    srcDir = tempDir();
    src = createCrawlService({ stateDir: srcDir });
    const c = src.create({ name: 'Hearth & Acre', settings: settings(site) });
    const done = settled(src, c.id);
    await src.start(c.id);
    assert.equal((await done).status, 'finished');
    crawlId = c.id;
    file = await exported(src, crawlId);
  });
  after(async () => {
    await src.close();
    await site.close();
  });

  test('a file starts with its magic line, then one gzip stream', () => {
    assert.equal(file.subarray(0, file.indexOf(0x0a)).toString(), `${CRAWL_FILE_MAGIC} 1`);
    const body = zlib.gunzipSync(file.subarray(file.indexOf(0x0a) + 1));
    const manifest = JSON.parse(body.subarray(0, body.indexOf(0x0a)).toString());
    assert.deepEqual(
      manifest.parts.map((p: { name: string }) => p.name),
      ['entry.json', 'journal.jsonl'],
    );
    const journal = fs.readFileSync(path.join(srcDir, 'crawls', crawlId, 'journal.jsonl'));
    assert.equal(manifest.parts[1].length, journal.length);
    const trailer = JSON.parse(body.subarray(body.lastIndexOf(0x0a, body.length - 2) + 1).toString());
    assert.equal(trailer.sha256['journal.jsonl'], createHash('sha256').update(journal).digest('hex'));
    assert.ok(file.length < journal.length / 2, `gzip: ${file.length} of ${journal.length} bytes`);
  });

  test('opened elsewhere: same URLs, rows, findings and CSV (byte-identical); a new id; imported set', TIMEOUT, async () => {
    const dir = tempDir();
    const dst = createCrawlService({ stateDir: dir });
    try {
      const opened = await dst.importCrawlFile(Readable.from([file]), 'hearth.spinneret');
      assert.notEqual(opened.id, crawlId);
      assert.equal(opened.name, 'Hearth & Acre');
      assert.equal(opened.status, 'finished');
      assert.equal(opened.imported?.file, 'hearth.spinneret');
      assert.ok(opened.imported!.at > 0);
      assert.deepEqual(opened.settings, src.get(crawlId).settings);
      assert.deepEqual(opened.counters, src.get(crawlId).counters);
      assert.deepEqual(allRows(dst, opened.id), allRows(src, crawlId));
      assert.equal(await csvOf(dst, opened.id), await csvOf(src, crawlId));
      assert.deepEqual(await findingsOf(dst, opened.id), await findingsOf(src, crawlId));
      assert.deepEqual(dst.sitemapTree(opened.id, null), src.sitemapTree(crawlId, null));
      assert.deepEqual(fs.readdirSync(dir).sort(), ['catalog.json', 'crawls']);
      // It can be saved again: the same parts (its entry differs only by its import).
      const again = await exported(dst, opened.id);
      const third = await dst.importCrawlFile(Readable.from([again]), 'again.spinneret');
      assert.equal(await csvOf(dst, third.id), await csvOf(src, crawlId));
      // It can be recrawled like any other: its results are the base of a new crawl.
      const recrawled = new Promise<CrawlSummary>((resolve) => {
        const off = dst.on('finished', (s) => s.baseId === opened.id && (off(), resolve(s)));
      });
      const re = await dst.recrawl(opened.id);
      assert.equal(re.baseId, opened.id);
      const reDone = await recrawled;
      assert.equal(reDone.status, 'finished');
      assert.equal(allRows(dst, reDone.id).length, allRows(src, crawlId).length);
      // It persists: a new service over the folder lists it, imported.
      await dst.close();
      const reopened = createCrawlService({ stateDir: dir });
      try {
        assert.equal(reopened.get(opened.id).imported?.file, 'hearth.spinneret');
        assert.equal(await csvOf(reopened, opened.id), await csvOf(src, crawlId));
      } finally {
        await reopened.close();
      }
    } finally {
      await dst.close();
    }
  });

  test('opened beside its original, it compares as unchanged', TIMEOUT, async () => {
    const opened = await src.importCrawlFile(Readable.from([file]), 'copy.spinneret');
    try {
      const cmp = await src.compare(crawlId, opened.id);
      assert.equal(cmp.urls.added, 0);
      assert.equal(cmp.urls.removed, 0);
      assert.equal(cmp.urls.changed, 0);
      assert.equal(cmp.urls.unchanged, allRows(src, crawlId).length);
    } finally {
      await src.delete(opened.id);
    }
  });

  test('a list crawl keeps its list; a paused crawl opens paused and resumes to the end', TIMEOUT, async () => {
    const slow = await startRealSite({ pageDelayMs: 30 });
    const a = createCrawlService({ stateDir: tempDir() });
    const b = createCrawlService({ stateDir: tempDir() });
    try {
      const list = site.spec.pages.slice(0, 40).map((p) => slow.url(p.path));
      const c = a.create({ settings: { ...settings(slow), startUrl: '', mode: 'list', concurrency: 2 }, list: list.join('\n') });
      await a.start(c.id);
      while (a.get(c.id).counters.fetched < 8) await new Promise((r) => setTimeout(r, 20));
      await a.pause(c.id);
      await assert.rejects(
        a
          .exportCrawlFile(c.id, new PassThrough())
          .then(() => a.resume(c.id))
          .then(() => a.exportCrawlFile(c.id, new PassThrough())),
        {
          code: 'NOT_READY',
        },
      );
      await a.pause(c.id);
      const saved = await exported(a, c.id);
      const opened = await b.importCrawlFile(Readable.from([saved]), 'list.spinneret');
      assert.equal(opened.status, 'paused');
      assert.equal(opened.listSize, 40);
      assert.equal(opened.settings.mode, 'list');
      const done = settled(b, opened.id);
      await b.resume(opened.id);
      assert.equal((await done).status, 'finished');
      const urls = allRows(b, opened.id)
        .filter((r) => r.source === 'start')
        .map((r) => r.url)
        .sort();
      assert.deepEqual(urls, [...list].sort());
      assert.ok(allRows(b, opened.id).every((r) => r.state !== 'queued'));
    } finally {
      await a.close();
      await b.close();
      await slow.close();
    }
  });

  describe('refused files leave nothing behind', () => {
    const cases: [string, () => Buffer, RegExp][] = [
      ['empty', () => Buffer.alloc(0), /empty/],
      ['foreign (a PNG)', () => Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), /not a Spinneret crawl file/],
      ['foreign (a CSV)', () => Buffer.from('url,status\nhttps://example.com/,200\n'), /not a Spinneret crawl file.*"url,status"/],
      ['a future version', () => Buffer.concat([Buffer.from(`${CRAWL_FILE_MAGIC} 2\n`), file.subarray(file.indexOf(0x0a) + 1)]), /format 2.*newer Spinneret/],
      ['truncated in the middle', () => file.subarray(0, Math.floor(file.length / 2)), /truncated/],
      ['truncated by its last byte', () => file.subarray(0, file.length - 1), /truncated|damaged/],
      ['truncated after its first line', () => file.subarray(0, file.indexOf(0x0a) + 1), /truncated/],
      ['a byte flipped in the compressed body', () => flip(file, Math.floor(file.length * 0.6)), /damaged|truncated/],
      ['a byte flipped in the gzip trailer (CRC)', () => flip(file, file.length - 6), /damaged/],
      ['something appended', () => Buffer.concat([file, zlib.gzipSync('more\n')]), /past its end/],
    ];
    for (const [what, make, message] of cases) {
      test(what, TIMEOUT, async () => {
        const dir = tempDir();
        const dst = createCrawlService({ stateDir: dir });
        try {
          const before = footprint(dir, dst);
          await assert.rejects(dst.importCrawlFile(Readable.from([make()]), 'bad.spinneret'), (err: Error & { code?: string }) => {
            assert.equal(err.code, 'BAD_CRAWL_FILE', err.message);
            assert.match(err.message, message);
            return true;
          });
          assert.equal(footprint(dir, dst), before);
          // The catalog is intact: an existing crawl is still there after a refused one.
          const good = await dst.importCrawlFile(Readable.from([file]), 'good.spinneret');
          await assert.rejects(dst.importCrawlFile(Readable.from([make()]), 'bad.spinneret'), { code: 'BAD_CRAWL_FILE' });
          assert.deepEqual(
            dst.list().map((c) => c.id),
            [good.id],
          );
        } finally {
          await dst.close();
        }
      });
    }

    test('a forged file: consistent checksums, but a part named outside the folder, or a broken journal', TIMEOUT, async () => {
      const dir = tempDir();
      const dst = createCrawlService({ stateDir: dir });
      try {
        const before = footprint(dir, dst);
        const manifest = JSON.stringify({ format: 'spinneret-crawl', version: 1, parts: [{ name: '../../evil.txt', length: 4 }] }) + '\nevil';
        const evil = Buffer.concat([Buffer.from(`${CRAWL_FILE_MAGIC} 1\n`), zlib.gzipSync(manifest)]);
        await assert.rejects(dst.importCrawlFile(Readable.from([evil]), 'evil.spinneret'), /unknown part "..\/..\/evil.txt"/);
        assert.equal(fs.existsSync(path.join(dir, '..', 'evil.txt')), false);

        // A journal of garbage, saved with its true checksum.
        const fake = tempDir();
        fs.writeFileSync(path.join(fake, 'journal.jsonl'), '["nonsense"\nnot json at all\n');
        const entry = { ...src.get(crawlId), id: 'x' };
        const chunks: Buffer[] = [];
        await writeCrawlFile(
          entry,
          fake,
          ['journal.jsonl'],
          new Writable({
            write(c: Buffer, _e, cb) {
              chunks.push(c);
              cb();
            },
          }),
        );
        await assert.rejects(dst.importCrawlFile(Readable.from([Buffer.concat(chunks)]), 'forged.spinneret'), (err: Error & { code?: string }) => {
          assert.equal(err.code, 'BAD_CRAWL_FILE');
          assert.match(err.message, /journal/);
          return true;
        });
        // Bad settings in its entry.
        const chunks2: Buffer[] = [];
        await writeCrawlFile(
          { ...entry, settings: { ...entry.settings, concurrency: -3 } },
          fake,
          [],
          new Writable({
            write(c: Buffer, _e, cb) {
              chunks2.push(c);
              cb();
            },
          }),
        );
        await assert.rejects(
          dst.importCrawlFile(Readable.from([Buffer.concat(chunks2)]), 'forged.spinneret'),
          /settings are not valid here: Setting "concurrency"/,
        );
        assert.equal(footprint(dir, dst), before);
      } finally {
        await dst.close();
      }
    });

    test('an upload that fails part way is refused the same', TIMEOUT, async () => {
      const dir = tempDir();
      const dst = createCrawlService({ stateDir: dir });
      try {
        const before = footprint(dir, dst);
        const input = new Readable({ read() {} });
        input.push(file.subarray(0, 5000));
        setTimeout(() => input.destroy(new Error('connection reset')), 20);
        await assert.rejects(dst.importCrawlFile(input, 'upload.spinneret'), { code: 'BAD_CRAWL_FILE' });
        assert.equal(footprint(dir, dst), before);
      } finally {
        await dst.close();
      }
    });
  });
});

function flip(buf: Buffer, at: number): Buffer {
  const copy = Buffer.from(buf);
  copy[at] = copy[at]! ^ 0x5a;
  return copy;
}

test('a crawl Stop ended is still a stopped (partial) crawl once opened from its file', () => {
  const raw = { name: 'Shop', settings: { ...DEFAULT_SETTINGS, startUrl: 'https://shop.test/' }, status: 'finished', stopped: true };
  const at = { at: 1, file: 'shop.spinneret' };
  assert.equal(importedEntry(raw, at).stopped, true);
  assert.equal(importedEntry({ ...raw, stopped: undefined }, at).stopped, undefined, 'a crawl that did its work');
  assert.equal(importedEntry({ ...raw, status: 'paused' }, at).stopped, undefined, 'only a finished crawl is stopped');
});
