/**
 * The transports of issue 23's exports and imports, with a real service over list crawls of the
 * realistic site. Electron main (driven with dialog and notification doubles): a comparison's CSV
 * and a crawl file through the save dialog, opening a crawl file through the open dialog, the
 * notification of a recrawl whose findings got worse. Browser mode: the same exports as one-time
 * downloads, a crawl file opened through a one-time, token-guarded, size-limited, expiring upload URL
 * answering the contract's envelope, and a createCrawl carrying a list of over 2 MiB.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { request } from 'node:http';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { webSocketUrlFor } from '../../shared/contract.js';
import type { CrawlSummary } from '../../shared/model.js';
import { createCrawlService, type LocalCrawlService } from '../../electron/service/index.js';
import type { CrawlService, CrawlServiceEvents } from '../../electron/service/types.js';
import { CRAWL_FILE_MAGIC } from '../../electron/service/crawl-file.js';
import { exportCompareWithDialog, exportCrawlFileWithDialog, importCrawlFileWithDialog } from '../../electron/main/export.js';
import { wireMain, worseNotification } from '../../electron/main/wiring.js';
import { localDate } from '../../electron/renderer-host/downloads.js';
import { startWebServer, type WebServer } from '../../electron/web/server.js';
import { connectApi, fakeRendererDir } from '../contract/transports.js';
import { startRealSite, type RealSite } from '../fixtures/real-site/site.js';

const TIMEOUT = { timeout: 60_000 };

function collect(): { out: Writable; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  return {
    out: new Writable({
      write(c: Buffer, _e, cb) {
        chunks.push(c);
        cb();
      },
    }),
    bytes: () => Buffer.concat(chunks),
  };
}

function http(port: number, path: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer | Buffer[] } = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    const body = opts.body;
    if (Array.isArray(body)) for (const b of body) req.write(b);
    else if (body) req.write(body);
    req.end();
  });
}

describe('issue 23 transports', () => {
  let site: RealSite;
  let service: LocalCrawlService;
  let stateDir: string;
  let dir: string;
  let older: CrawlSummary;
  let newer: CrawlSummary;

  async function listCrawl(name: string, paths: string[]): Promise<CrawlSummary> {
    const c = service.create({
      name,
      settings: { startUrl: '', mode: 'list', userAgent: 'SpinneretT/1.0', retries: 0 },
      list: paths.map((p) => site.url(p)).join('\n'),
    });
    const done = new Promise<CrawlSummary>((resolve) => {
      const off = service.on('finished', (s) => s.id === c.id && (off(), resolve(s)));
    });
    await service.start(c.id);
    return done;
  }

  before(async () => {
    site = await startRealSite();
    stateDir = await mkdtemp(join(tmpdir(), 'spinneret-t23-state-'));
    dir = await mkdtemp(join(tmpdir(), 'spinneret-t23-docs-'));
    service = createCrawlService({ stateDir });
    older = await listCrawl('Shop before', ['/', '/about/', '/contact/', '/shop/']);
    newer = await listCrawl('Shop after', ['/', '/about/', '/faq/', '/landing/black-friday-2019/']);
  });
  after(async () => {
    await service.close();
    await site.close();
    await rm(stateDir, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  });

  describe('Electron main', () => {
    it('saves a crawl file through the save dialog (.spinneret), and opens it through the open dialog', TIMEOUT, async () => {
      let asked: { defaultPath: string; filters: { extensions: string[] }[] } | undefined;
      const target = join(dir, 'saved.spinneret');
      const res = await exportCrawlFileWithDialog(service, async (o) => ((asked = o), { canceled: false, filePath: target }), dir, newer.id);
      assert.equal(asked!.defaultPath, join(dir, `Shop-after-${localDate(new Date())}.spinneret`));
      assert.deepEqual(asked!.filters[0]!.extensions, ['spinneret']);
      assert.equal(res.path, target);
      assert.equal(res.rows, newer.counters.discovered);
      const bytes = await readFile(target);
      assert.equal(bytes.subarray(0, CRAWL_FILE_MAGIC.length).toString(), CRAWL_FILE_MAGIC);
      assert.deepEqual(await exportCrawlFileWithDialog(service, async () => ({ canceled: true }), dir, newer.id), { rows: 0, canceled: true });

      // A failed save leaves no file, not even its .part.
      const broken: CrawlService = {
        ...service,
        get: (id) => service.get(id),
        exportCrawlFile: async (_id, out) => {
          out.write('SPINNERET-CRAWL 1\nhalf');
          throw Object.assign(new Error('disk full'), { code: 'EXPORT_FAILED' });
        },
      };
      await assert.rejects(
        exportCrawlFileWithDialog(broken, async () => ({ canceled: false, filePath: join(dir, 'failed.spinneret') }), dir, newer.id),
        /disk full/,
      );
      assert.deepEqual((await readdir(dir)).sort(), ['saved.spinneret']);

      let openAsked: { filters: { extensions: string[] }[]; properties: string[] } | undefined;
      const before = service.list().length;
      const opened = await importCrawlFileWithDialog(service, async (o) => ((openAsked = o), { canceled: false, filePaths: [target] }), dir);
      assert.deepEqual(openAsked!.filters[0]!.extensions, ['spinneret']);
      assert.deepEqual(openAsked!.properties, ['openFile']);
      assert.equal(opened.crawl?.imported?.file, 'saved.spinneret');
      assert.equal(opened.crawl?.name, 'Shop after');
      assert.equal(service.list().length, before + 1);
      assert.deepEqual(await importCrawlFileWithDialog(service, async () => ({ canceled: true, filePaths: [] }), dir), { canceled: true });

      const foreign = join(dir, 'notes.spinneret');
      await writeFile(foreign, 'just some notes\n');
      await assert.rejects(
        importCrawlFileWithDialog(service, async () => ({ canceled: false, filePaths: [foreign] }), dir),
        (e: Error & { code?: string }) => e.code === 'BAD_CRAWL_FILE' && /not a Spinneret crawl file/.test(e.message),
      );
      assert.equal(service.list().length, before + 1);
      await service.delete(opened.crawl!.id);
      await rm(foreign);
      await rm(target);
    });

    it("exports a comparison's CSV through the save dialog", TIMEOUT, async () => {
      let asked: { defaultPath: string } | undefined;
      const target = join(dir, 'diff.csv');
      const res = await exportCompareWithDialog(service, async (o) => ((asked = o), { canceled: false, filePath: target }), dir, older.id, newer.id, undefined);
      assert.equal(asked!.defaultPath, join(dir, `Shop-after-compare-${localDate(new Date())}.csv`));
      const direct = collect();
      const rows = await service.exportCompare(older.id, newer.id, direct.out);
      assert.equal(res.rows, rows.rows);
      assert.ok(res.rows >= 4, `${res.rows} changed URLs`);
      assert.equal(await readFile(target, 'utf8'), direct.bytes().toString('utf8'));
      await exportCompareWithDialog(service, async (o) => ((asked = o), { canceled: true }), dir, older.id, newer.id, { change: 'added' });
      assert.equal(asked!.defaultPath, join(dir, `Shop-after-compare-added-${localDate(new Date())}.csv`));
      await rm(target);
    });

    it('shows a desktop notification when a recrawl finishes with findings worse, and only then', () => {
      const emitter = new EventEmitter();
      const fake = {
        ...service,
        on: <E extends keyof CrawlServiceEvents>(event: E, l: CrawlServiceEvents[E]) => {
          emitter.on(event, l as (...a: unknown[]) => void);
          return () => void emitter.off(event, l as (...a: unknown[]) => void);
        },
      } as CrawlService;
      const shown: { title: string; body: string }[] = [];
      const { dispose } = wireMain({
        service: fake,
        ipcMain: { handle: () => undefined, removeHandler: () => undefined },
        windows: () => [],
        showSaveDialog: async () => ({ canceled: true }),
        showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
        notify: (n) => shown.push(n),
        documentsDir: dir,
      });
      emitter.emit('recrawlFinished', { crawl: newer, baseId: older.id, scheduled: true, worse: [] });
      assert.equal(shown.length, 0);
      emitter.emit('recrawlFinished', { crawl: newer, baseId: older.id, scheduled: true, worse: ['PAGE_4XX', 'SITEMAP_URL_4XX'] });
      assert.deepEqual(shown, [worseNotification({ crawl: newer, scheduled: true, worse: ['PAGE_4XX', 'SITEMAP_URL_4XX'] })]);
      assert.match(shown[0]!.title, /Scheduled recrawl of Shop after: findings got worse/);
      assert.match(shown[0]!.body, /2 findings rose since the last crawl: PAGE_4XX, SITEMAP_URL_4XX/);
      dispose();
      emitter.emit('recrawlFinished', { crawl: newer, baseId: older.id, scheduled: false, worse: ['PAGE_4XX'] });
      assert.equal(shown.length, 1, 'nothing after dispose');
      assert.equal(emitter.listenerCount('recrawlFinished'), 0);
    });
  });

  describe('browser mode', () => {
    let server: WebServer;
    let small: WebServer;
    let rendererDir: string;
    let origin: string;
    let file: Buffer;

    before(async () => {
      rendererDir = await fakeRendererDir();
      server = await startWebServer({ service, rendererDir, checkResults: true, uploadTtlMs: 2000 });
      small = await startWebServer({ service, rendererDir, maxUploadBytes: 1000 });
      origin = `http://127.0.0.1:${server.port}`;
      const c = collect();
      await service.exportCrawlFile(newer.id, c.out);
      file = c.bytes();
    });
    after(async () => {
      await server.close();
      await small.close();
      await rm(rendererDir, { recursive: true, force: true });
    });

    async function uploadUrl(s: WebServer): Promise<string> {
      const api = connectApi(webSocketUrlFor(s.url));
      try {
        const res = await api.importCrawl({});
        assert.match(res.uploadUrl ?? '', /^\/upload\/[\w-]{20,}\?token=/);
        return res.uploadUrl!;
      } finally {
        api.close();
      }
    }

    it('saves a crawl file and a comparison as one-time downloads', TIMEOUT, async () => {
      const api = connectApi(webSocketUrlFor(server.url));
      try {
        const saved = await api.exportCrawlFile({ id: newer.id });
        assert.equal(saved.rows, newer.counters.discovered);
        const dl = await http(server.port, saved.downloadUrl!);
        assert.equal(dl.status, 200);
        assert.equal(dl.headers['content-type'], 'application/octet-stream');
        assert.match(String(dl.headers['content-disposition']), new RegExp(`filename="Shop-after-${localDate(new Date())}(-\\d+)?\\.spinneret"`));
        assert.equal(dl.body.subarray(0, CRAWL_FILE_MAGIC.length).toString(), CRAWL_FILE_MAGIC);
        assert.equal((await http(server.port, saved.downloadUrl!)).status, 404, 'once only');

        const cmp = await api.exportCompare({ oldId: older.id, newId: newer.id });
        const csv = await http(server.port, cmp.downloadUrl!);
        assert.equal(csv.status, 200);
        assert.match(String(csv.headers['content-type']), /text\/csv/);
        const direct = collect();
        await service.exportCompare(older.id, newer.id, direct.out);
        assert.equal(csv.body.toString(), direct.bytes().toString());
      } finally {
        api.close();
      }
    });

    it('opens a crawl file POSTed to a one-time upload URL, answering the envelope', TIMEOUT, async () => {
      const url = await uploadUrl(server);
      const count = service.list().length;
      const res = await http(server.port, url + '&name=shop.spinneret', {
        method: 'POST',
        headers: { Origin: origin, 'Content-Type': 'application/octet-stream' },
        body: file,
      });
      assert.equal(res.status, 200);
      assert.match(String(res.headers['content-type']), /application\/json/);
      const env = JSON.parse(res.body.toString()) as { ok: true; value: CrawlSummary };
      assert.equal(env.ok, true);
      assert.equal(env.value.imported?.file, 'shop.spinneret');
      assert.equal(env.value.name, 'Shop after');
      assert.equal(service.list().length, count + 1);
      // Good once.
      const again = await http(server.port, url, { method: 'POST', headers: { Origin: origin }, body: file });
      assert.equal(again.status, 404);
      assert.equal(JSON.parse(again.body.toString()).error.code, 'NOT_FOUND');
      assert.equal(service.list().length, count + 1);
      await service.delete(env.value.id);
    });

    it('refuses a wrong token, a missing or foreign Origin, a wrong method, a damaged file, an expired URL', TIMEOUT, async () => {
      const count = service.list().length;
      const url = await uploadUrl(server);
      const wrongToken = url.replace(/token=[^&]+/, 'token=nope');
      let r = await http(server.port, wrongToken, { method: 'POST', headers: { Origin: origin }, body: file });
      assert.equal(r.status, 401);
      assert.equal(JSON.parse(r.body.toString()).ok, false);
      r = await http(server.port, url, { method: 'POST', body: file });
      assert.equal(r.status, 403, 'no Origin: not the page');
      r = await http(server.port, url, { method: 'POST', headers: { Origin: 'http://evil.example' }, body: file });
      assert.equal(r.status, 403);
      r = await http(server.port, url, { method: 'POST', headers: { Origin: origin, Host: 'evil.example' }, body: file });
      assert.equal(r.status, 403);
      r = await http(server.port, url, { headers: { Origin: origin } });
      assert.equal(r.status, 405);
      // None of those used the URL up; a damaged file does, and is refused with what is wrong.
      const cut = file.subarray(0, Math.floor(file.length / 2));
      r = await http(server.port, url, { method: 'POST', headers: { Origin: origin }, body: cut });
      assert.equal(r.status, 400);
      const env = JSON.parse(r.body.toString()) as { ok: false; error: { code: string; message: string } };
      assert.equal(env.error.code, 'BAD_CRAWL_FILE');
      assert.match(env.error.message, /truncated/);
      assert.equal(service.list().length, count);

      const late = await uploadUrl(server);
      await new Promise((res) => setTimeout(res, 2100));
      r = await http(server.port, late, { method: 'POST', headers: { Origin: origin }, body: file });
      assert.equal(r.status, 404, 'expired');
      assert.equal(service.list().length, count);
    });

    it('cuts an upload past its size limit, declared or not', TIMEOUT, async () => {
      const count = service.list().length;
      const o = `http://127.0.0.1:${small.port}`;
      let r = await http(small.port, await uploadUrl(small), { method: 'POST', headers: { Origin: o, 'Content-Length': String(file.length) }, body: file });
      assert.equal(r.status, 413);
      assert.equal(JSON.parse(r.body.toString()).error.code, 'TOO_LARGE');
      // Chunked, no Content-Length: cut once past the limit.
      r = await http(small.port, await uploadUrl(small), {
        method: 'POST',
        headers: { Origin: o, 'Transfer-Encoding': 'chunked' },
        body: [file.subarray(0, 600), file.subarray(600)],
      });
      assert.equal(r.status, 413);
      assert.equal(service.list().length, count);
      assert.deepEqual(await readdir(join(stateDir, 'crawls')).then((d) => d.length), count);
    });

    it('carries a createCrawl with a list past the old 1 MiB message limit over the WebSocket', TIMEOUT, async () => {
      const api = connectApi(webSocketUrlFor(server.url));
      try {
        const lines: string[] = [];
        for (let i = 0, length = 0; length < 2 * 1024 * 1024; i++) {
          lines.push(`${site.origin}/shop/item-${i}-${'x'.repeat(20)}/`);
          length += lines[i]!.length + 1;
        }
        const list = lines.join('\n');
        assert.ok(list.length > 2 * 1024 * 1024);
        const c = await api.createCrawl({ settings: { startUrl: '', mode: 'list' }, list });
        assert.equal(c.listSize, lines.length);
        assert.equal(c.status, 'created');
        await service.delete(c.id);
      } finally {
        api.close();
      }
    });
  });
});
