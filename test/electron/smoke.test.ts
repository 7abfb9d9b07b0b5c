/**
 * The Electron smoke test (Playwright `_electron`): launch the built app, the window shows our page,
 * the page is isolated from Node, and a crawl of the local test site runs through window.spinneret.
 * Runs where the Electron binary is installed; elsewhere it skips and says why.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findElectronBinary } from '../../scripts/electron-binary.mjs';
import { startTestSite } from '../fixtures/site.js';
import type { CrawlSummary } from '../../shared/model.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

it('Electron: launches, shows the window, runs a crawl of the local test site', { timeout: 180_000 }, async (t) => {
  const electron = findElectronBinary();
  if (electron.error !== undefined) {
    t.skip(`Electron binary not installed: ${electron.error.split('\n')[0]} (run \`npm rebuild electron\` with network access to run this test)`);
    return;
  }
  const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, encoding: 'utf8' });
  assert.equal(built.status, 0, `npm run build failed:\n${built.stdout}\n${built.stderr}`);

  const { _electron } = await import('playwright-core');
  const stateDir = await mkdtemp(join(tmpdir(), 'spinneret-electron-'));
  const site = await startTestSite({ scenario: 'no-robots' });
  // Chromium refuses to run as root with its sandbox; CI containers often are root.
  const rootUser = process.platform === 'linux' && process.getuid?.() === 0;
  const app = await _electron.launch({
    executablePath: electron.path,
    args: [...(rootUser ? ['--no-sandbox'] : []), root],
    env: { ...process.env, SPINNERET_STATE_DIR: stateDir, ELECTRON_ENABLE_LOGGING: '1' },
  });
  try {
    const win = await app.firstWindow();
    await win.waitForLoadState('domcontentloaded');
    assert.equal(await win.title(), 'Spinneret');
    assert.match(win.url(), /^app:\/\/spinneret\//);
    const isolation = await win.evaluate(() => ({
      require: typeof (globalThis as { require?: unknown }).require,
      process: typeof (globalThis as { process?: unknown }).process,
      api: Object.keys((globalThis as unknown as { spinneret: object }).spinneret).length,
    }));
    assert.deepEqual(isolation, { require: 'undefined', process: 'undefined', api: isolation.api });
    assert.ok(isolation.api > 10, 'window.spinneret is there');

    const summary = await win.evaluate(async (startUrl) => {
      const api = (globalThis as unknown as { spinneret: import('../../shared/contract.js').SpinneretApi }).spinneret;
      const crawl = await api.createCrawl({ name: 'Smoke', settings: { startUrl } });
      return new Promise<CrawlSummary>((resolve) => {
        const off = api.on('crawlFinished', (s) => {
          if (s.id !== crawl.id) return;
          off();
          resolve(s);
        });
        void api.startCrawl({ id: crawl.id });
      });
    }, site.url('/'));
    assert.equal(summary.status, 'finished');
    assert.ok(summary.counters.discovered >= site.expected.discovered.length, `found ${summary.counters.discovered}`);
    await mkdir(join(root, 'test-artifacts'), { recursive: true });
    await win.screenshot({ path: join(root, 'test-artifacts', 'electron-smoke.png') });
  } finally {
    await app.close();
    await site.close();
    await rm(stateDir, { recursive: true, force: true });
  }
});
