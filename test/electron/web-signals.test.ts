/**
 * `npm run serve` (electron/web/index.ts) and Ctrl-C with a crawl running: one press — even delivered
 * twice, as npm and tsx pass the terminal's signal on — pauses it and exits 0; a second press quits
 * at once with 130.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSite } from '../fixtures/site.js';
import { listed, serveWithCrawl, sleep } from './serve-process.js';

describe('npm run serve and Ctrl-C', { timeout: 90_000 }, () => {
  it('one Ctrl-C, delivered twice, pauses the running crawl and exits 0', async () => {
    const site = await startTestSite({ scenario: 'large', pages: 40, sitemapUrls: 20, perSitemap: 10, pageDelayMs: 500 });
    const state = await mkdtemp(join(tmpdir(), 'spinneret-serve-sig-'));
    const s = await serveWithCrawl(site, state);
    try {
      s.api.close();
      // The second one as tsx's relay sends it: some tens of ms after the terminal's.
      s.signal('SIGINT');
      await sleep(80);
      s.signal('SIGINT');
      const ended = await s.ended;
      assert.deepEqual(ended, { code: 0, signal: null }, s.out());
      assert.match(s.out(), /Pausing running crawls/);
      assert.match(s.out(), /Stopped\./);
      assert.equal(await listed(state, s.id), 'paused');
    } finally {
      if (s.child.exitCode === null) s.child.kill('SIGKILL');
      await s.cleanup();
      await site.close();
      await rm(state, { recursive: true, force: true });
    }
  });

  it('a second Ctrl-C while it pauses quits at once with 130', async () => {
    const site = await startTestSite({ scenario: 'large', pages: 40, sitemapUrls: 20, perSitemap: 10, pageDelayMs: 6000 });
    const state = await mkdtemp(join(tmpdir(), 'spinneret-serve-sig-'));
    const s = await serveWithCrawl(site, state);
    try {
      s.api.close();
      s.signal('SIGINT');
      await sleep(800);
      assert.equal(s.child.exitCode, null, `still pausing: ${s.out()}`);
      const pressed = Date.now();
      s.signal('SIGINT');
      const ended = await s.ended;
      assert.equal(ended.code, 130, s.out());
      assert.ok(Date.now() - pressed < 3000, 'at once');
      assert.match(s.out(), /quitting at once/);
    } finally {
      if (s.child.exitCode === null) s.child.kill('SIGKILL');
      await s.cleanup();
      await site.close();
      await rm(state, { recursive: true, force: true });
    }
  });
});
