/**
 * Browser mode's HTTP side: token on the page and downloads, Host/Origin checks, static files kept
 * inside the renderer folder, security headers, malformed socket messages, one-time downloads.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { rm } from 'node:fs/promises';
import WebSocket from 'ws';
import { webSocketUrlFor } from '../../shared/contract.js';
import { startWebServer, type WebServer } from '../../electron/web/server.js';
import { localDate } from '../../electron/renderer-host/downloads.js';
import { createFakeService } from '../contract/fake-service.js';
import { fakeRendererDir } from '../contract/transports.js';

/** A raw GET, so the test controls the Host and Origin headers. */
function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('browser mode server', () => {
  let server: WebServer;
  let rendererDir: string;
  const service = createFakeService(5);

  before(async () => {
    rendererDir = await fakeRendererDir();
    server = await startWebServer({ service, rendererDir });
  });
  after(async () => {
    await server.close();
    await rm(rendererDir, { recursive: true, force: true });
  });

  it('binds to 127.0.0.1 and prints a URL with a long random token', () => {
    const url = new URL(server.url);
    assert.equal(url.hostname, '127.0.0.1');
    assert.equal(url.searchParams.get('token'), server.token);
    assert.ok(server.token.length >= 40);
  });

  it('serves the page only with the token, with CSP and no-referrer', async () => {
    assert.equal((await get(server.port, '/')).status, 401);
    assert.equal((await get(server.port, '/?token=wrong')).status, 401);
    assert.equal((await get(server.port, '/index.html')).status, 401);
    // Other spellings of the page's path name the same file: no token, no page either.
    for (const path of ['/%69ndex.html', '/index%2ehtml', '//index.html', '/assets/../index.html', '/index.html/', '/INDEX.HTML']) {
      const res = await get(server.port, path);
      assert.equal(res.status, 401, path);
      assert.doesNotMatch(res.body, /Spinneret/, path);
    }
    const page = await get(server.port, `/?token=${server.token}`);
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'/);
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.match(page.body, /Spinneret/);
  });

  it('serves assets, nothing outside the renderer folder, GET only', async () => {
    const js = await get(server.port, '/assets/app.js');
    assert.equal(js.status, 200);
    assert.match(String(js.headers['content-type']), /javascript/);
    for (const path of ['/../package.json', '/%2e%2e/package.json', '/assets/..%2f..%2fpackage.json', '/assets/%00.js', '/nope.js']) {
      assert.equal((await get(server.port, path)).status, 404, path);
    }
    assert.equal((await get(server.port, `/?token=${server.token}`, {}, 'POST')).status, 405);
  });

  it('refuses other Hosts (DNS rebinding) and other Origins', async () => {
    const ok = `/?token=${server.token}`;
    assert.equal((await get(server.port, ok, { Host: `localhost:${server.port}` })).status, 200);
    assert.equal((await get(server.port, ok, { Host: `attacker.test:${server.port}` })).status, 403);
    assert.equal((await get(server.port, ok, { Host: `127.0.0.1:1` })).status, 403);
    assert.equal((await get(server.port, ok, { Origin: 'http://attacker.test' })).status, 403);
  });

  it('answers malformed socket messages with BAD_MESSAGE and keeps the socket', async () => {
    const ws = new WebSocket(webSocketUrlFor(server.url));
    await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
    const answers: { id: number; result: { ok: boolean; error?: { code: string } } }[] = [];
    ws.on('message', (d) => answers.push(JSON.parse(String(d))));
    ws.send('not json');
    ws.send(JSON.stringify({ type: 'call', id: 7 }));
    ws.send(JSON.stringify({ type: 'call', id: 8, method: 'listCrawls' }));
    while (answers.length < 3) await new Promise((r) => setTimeout(r, 5));
    ws.close();
    assert.deepEqual(
      answers.map((a) => [a.id, a.result.ok, a.result.error?.code]),
      [
        [-1, false, 'BAD_MESSAGE'],
        [7, false, 'BAD_MESSAGE'],
        [8, true, undefined],
      ],
    );
  });

  it('offers a CSV export once, with the token, as an attachment', async () => {
    const crawl = service.create({ name: 'Shop', settings: { startUrl: 'http://127.0.0.1:9/' } });
    await service.start(crawl.id);
    await new Promise((r) => setImmediate(r));
    const res = await server.dispatch('exportCsv', { id: crawl.id });
    assert.ok(res.ok);
    const { rows, downloadUrl } = res.value as { rows: number; downloadUrl: string };
    assert.equal(rows, 5);
    const path = downloadUrl;
    assert.equal((await get(server.port, path.replace(/\?token=.*/, ''))).status, 401);
    assert.equal((await get(server.port, path.replace(/token=.*/, 'token=wrong'))).status, 401);
    const file = await get(server.port, path);
    assert.equal(file.status, 200);
    assert.equal(String(file.headers['content-disposition']), `attachment; filename="Shop-urls-${localDate(new Date())}.csv"`);
    assert.match(String(file.headers['content-type']), /text\/csv/);
    assert.equal(file.body.trim().split('\n').length, 6);
    assert.equal((await get(server.port, path)).status, 404, 'one time only');
    // Exported again: a name of its own, so the browser never saves over the first file.
    const again = await server.dispatch('exportCsv', { id: crawl.id });
    assert.ok(again.ok);
    const second = await get(server.port, (again.value as { downloadUrl: string }).downloadUrl);
    assert.equal(String(second.headers['content-disposition']), `attachment; filename="Shop-urls-${localDate(new Date())}-2.csv"`);
  });

  it('offers a links export the same way, named for what it holds', async () => {
    const crawl = service.create({ name: 'Links', settings: { startUrl: 'http://127.0.0.1:9/' } });
    await service.start(crawl.id);
    await new Promise((r) => setImmediate(r));
    const day = localDate(new Date());
    const cases: [Record<string, unknown>, string, number][] = [
      [{}, `Links-links-${day}.csv`, 4],
      [{ urlId: 3 }, `Links-inlinks-3-${day}.csv`, 1],
      [{ urlId: 0, direction: 'out' }, `Links-outlinks-0-${day}.csv`, 4],
      [{}, `Links-links-${day}-2.csv`, 4],
    ];
    for (const [args, name, rows] of cases) {
      const res = await server.dispatch('exportLinks', { id: crawl.id, ...args });
      assert.ok(res.ok, JSON.stringify(res));
      const value = res.value as { rows: number; downloadUrl: string };
      assert.equal(value.rows, rows, JSON.stringify(args));
      assert.equal((await get(server.port, value.downloadUrl.replace(/token=.*/, 'token=wrong'))).status, 401);
      const file = await get(server.port, value.downloadUrl);
      assert.equal(file.status, 200);
      assert.equal(String(file.headers['content-disposition']), `attachment; filename="${name}"`);
      assert.equal(file.body.trim().split('\n').length, rows + 1);
      assert.equal((await get(server.port, value.downloadUrl)).status, 404, 'one time only');
    }
    const missing = await server.dispatch('exportLinks', { id: crawl.id, urlId: 99 });
    assert.ok(!missing.ok && missing.error.code === 'NOT_FOUND', JSON.stringify(missing));
    const unknown = await server.dispatch('exportLinks', { id: 'nope' });
    assert.ok(!unknown.ok && unknown.error.code === 'NOT_FOUND', JSON.stringify(unknown));
  });
});
