/**
 * A sitemap that arrives slowly (as over a real network): the list hands entries out while more
 * bytes are still on their way. A kill at any moment — here the state dir copied every few ms, as a
 * kill would leave it — must resume to the same URLs, none lost, none counted twice. This needs the
 * crawler's checkpoint, taken between two macrotasks, never to count an entry as handed out before
 * its admission has been reported.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import { createCrawlService } from '../../electron/service/index.js';
import { settled, snapshotDir, tempDir } from './helpers.js';

const N = 3000;

/** robots.txt → /s.xml; the first read of /s.xml trickles in 40 entries every 4 ms, later reads are quick. */
async function trickleSite() {
  let reads = 0;
  const server = http.createServer((req, res) => {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url === '/robots.txt') return res.end(`User-agent: *\nAllow: /\nSitemap: ${origin}/s.xml\n`);
    if (req.url !== '/s.xml') {
      res.statusCode = 404;
      return res.end();
    }
    const slow = reads++ === 0;
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.write('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    let i = 0;
    const chunk = () => {
      let s = '';
      for (let k = 0; k < 37 && i < N; k++, i++) s += `<url><loc>${origin}/p/${i}</loc></url>`;
      res.write(s);
      if (i < N) setTimeout(chunk, slow ? 4 : 0);
      else res.end('</urlset>');
    };
    chunk();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

test('a kill while a slow sitemap streams in resumes to the same URLs', async () => {
  const site = await trickleSite();
  try {
    const dir = tempDir();
    const service = createCrawlService({ stateDir: dir });
    const id = service.create({ settings: { startUrl: site.origin + '/', fetchPages: false } }).id;
    const snapshots: string[] = [];
    const timer = setInterval(() => snapshots.push(snapshotDir(dir)), 7);
    const end = settled(service, id);
    await service.start(id);
    await end;
    clearInterval(timer);
    assert.equal(service.get(id).counters.discovered, N);
    await service.close();

    let resumed = 0;
    for (const [i, snap] of snapshots.entries()) {
      const s = createCrawlService({ stateDir: snap });
      if (s.get(id).status !== 'paused') {
        await s.close();
        continue;
      }
      const done = settled(s, id);
      await s.resume(id);
      const c = (await done).counters;
      resumed++;
      assert.deepEqual({ discovered: c.discovered, listed: c.listed, duplicates: c.duplicates }, { discovered: N, listed: N, duplicates: 0 }, `snapshot ${i}`);
      await s.close();
      fs.rmSync(snap, { recursive: true, force: true });
    }
    assert.ok(resumed >= 5, `${resumed} snapshots taken while the sitemap streamed`);
  } finally {
    await site.close();
  }
});
