/**
 * Quit with a crawl running, as the app does it: main's before-quit hook closes the REAL service
 * (pause + checkpoint) before the app exits; the next launch (a new service on the same folder,
 * wired to IPC again) lists the crawl as paused, and resuming it over IPC finishes it.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCrawlService } from '../../electron/service/index.js';
import { closeBeforeQuit } from '../../electron/main/quit.js';
import { startTestSite } from '../fixtures/site.js';
import { ipcTransport } from '../contract/transports.js';

it('quit pauses and checkpoints running crawls; the next launch shows them paused and resumes them', { timeout: 60_000 }, async () => {
  const stateDir = await mkdtemp(join(tmpdir(), 'spinneret-quit-'));
  // Slow pages keep the crawl running while we quit.
  const site = await startTestSite({ scenario: 'no-robots', pageDelayMs: 150 });
  try {
    // ---- first launch
    const first = createCrawlService({ stateDir });
    const ipc1 = await ipcTransport(first);
    const crawl = await ipc1.api.createCrawl({ name: 'Overnight', settings: { startUrl: site.url('/'), concurrency: 1, perHostConcurrency: 1 } });
    let sawRunning!: () => void;
    const running = new Promise<void>((r) => (sawRunning = r));
    ipc1.api.on('progress', (p) => {
      if (p.crawlId === crawl.id && p.status === 'running' && p.counters.fetched >= 1) sawRunning();
    });
    await ipc1.api.startCrawl({ id: crawl.id });
    await running;

    let quitListener!: (e: { preventDefault(): void }) => void;
    let quitted!: () => void;
    const quit = new Promise<void>((r) => (quitted = r));
    closeBeforeQuit({ on: (_e, l) => void (quitListener = l), quit: () => quitted() }, () => first.close());
    let held = false;
    quitListener({ preventDefault: () => void (held = true) });
    assert.equal(held, true, 'the quit waits for the checkpoint');
    await quit;
    await ipc1.close();
    const fetchedBeforeQuit = site.log.length;

    // ---- next launch
    const second = createCrawlService({ stateDir });
    const ipc2 = await ipcTransport(second);
    try {
      const listed = (await ipc2.api.listCrawls()).find((c) => c.id === crawl.id);
      assert.ok(listed, 'the crawl is still there');
      assert.equal(listed.status, 'paused');
      assert.ok(listed.counters.fetched >= 1 && listed.counters.fetched < site.expected.discovered.length, 'it stopped part way');
      const done = new Promise<number>((resolve) => {
        const off = ipc2.api.on('crawlFinished', (s) => {
          if (s.id !== crawl.id) return;
          off();
          resolve(s.counters.discovered);
        });
      });
      await ipc2.api.resumeCrawl({ id: crawl.id });
      assert.ok((await done) >= site.expected.discovered.length);
      assert.ok(site.log.length > fetchedBeforeQuit, 'the resume fetched the rest');
    } finally {
      await ipc2.close();
      await second.close();
    }
  } finally {
    await site.close();
    await rm(stateDir, { recursive: true, force: true });
  }
});
