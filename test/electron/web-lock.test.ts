/**
 * Browser mode and another process on one state folder: the crawl one runs is listed as running by
 * the other, which is refused resume, pause and delete over the contract (CRAWL_LOCKED, with the
 * owner's pid) and still reads it; the lock is there while it runs and gone once it is paused.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webSocketUrlFor } from '../../shared/contract.js';
import { LOCK_FILE } from '../../electron/service/catalog/crawl-lock.js';
import { connectApi, fakeRendererDir } from '../contract/transports.js';
import { startTestSite } from '../fixtures/site.js';
import { listed, root, serveWithCrawl, until } from './serve-process.js';

describe('browser mode and the crawl lock', { timeout: 90_000 }, () => {
  it('the running crawl is locked while it runs and released when Ctrl-C pauses it', async () => {
    const site = await startTestSite({ scenario: 'large', pages: 40, sitemapUrls: 20, perSitemap: 10, pageDelayMs: 500 });
    const state = await mkdtemp(join(tmpdir(), 'spinneret-serve-lock-'));
    const s = await serveWithCrawl(site, state);
    try {
      assert.ok(existsSync(join(state, 'crawls', s.id, LOCK_FILE)), 'the running crawl is locked');
      s.api.close();
      s.signal('SIGINT');
      assert.deepEqual(await s.ended, { code: 0, signal: null }, s.out());
      assert.equal(await listed(state, s.id), 'paused');
      assert.equal(existsSync(join(state, 'crawls', s.id, LOCK_FILE)), false);
    } finally {
      if (s.child.exitCode === null) s.child.kill('SIGKILL');
      await s.cleanup();
      await site.close();
      await rm(state, { recursive: true, force: true });
    }
  });

  it('a crawl run by another process is refused over the contract with CRAWL_LOCKED and its pid', async () => {
    // Slow pages: it still runs while the second server starts, however loaded the machine.
    const site = await startTestSite({ scenario: 'large', pages: 40, sitemapUrls: 20, perSitemap: 10, pageDelayMs: 2000 });
    const state = await mkdtemp(join(tmpdir(), 'spinneret-serve-sig-'));
    const s = await serveWithCrawl(site, state);
    const renderer = await fakeRendererDir();
    const other = spawn(process.execPath, ['--import', 'tsx', 'electron/web/index.ts', '--renderer-dir', renderer, '--state-dir', state], { cwd: root });
    let out = '';
    other.stdout.on('data', (d) => (out += d));
    try {
      await until(() => /Open:\s+\S+/.test(out), 'the second server');
      const api = connectApi(webSocketUrlFor(/Open:\s+(\S+)/.exec(out)![1]!));
      const [c] = await api.listCrawls();
      assert.equal(c?.status, 'running', 'listed as running: the other process runs it');
      for (const call of [() => api.resumeCrawl({ id: s.id }), () => api.pauseCrawl({ id: s.id }), () => api.deleteCrawl({ id: s.id })]) {
        await assert.rejects(
          call(),
          (e: { code?: string; message?: string }) =>
            e.code === 'CRAWL_LOCKED' && new RegExp(`crawl ${s.id} .* is open in another process \\(pid ${s.child.pid}\\)`).test(e.message ?? ''),
        );
      }
      assert.ok((await api.queryUrls({ id: s.id, query: { offset: 0, limit: 10 } })).total > 0, 'reading works');
      api.close();
    } finally {
      other.kill('SIGKILL');
      s.api.close();
      s.signal('SIGKILL');
      await s.ended;
      await s.cleanup();
      await rm(renderer, { recursive: true, force: true });
      await site.close();
      await rm(state, { recursive: true, force: true });
    }
  });
});
