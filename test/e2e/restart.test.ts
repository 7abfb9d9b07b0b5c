/**
 * A crawl paused in the window survives a restart of the browser-mode server process and resumes
 * from the window: the sidebar offers Resume, what was fetched before is not fetched again.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startTestSite, type TestSite } from '../fixtures/site.js';
import { buildRenderer, counter, launchBrowser, openPage, screenshot, skipReason, startServer, tempDir, waitFor, type ServerProcess } from './harness.js';

const skip = skipReason();
let site: TestSite;
let state: { path: string; remove(): Promise<void> };
let rendererDir: string;
let browser: Browser;
const servers: ServerProcess[] = [];

before(async () => {
  if (skip) return;
  rendererDir = await buildRenderer();
  site = await startTestSite({ scenario: 'large', pages: 240, sitemapUrls: 120, perSitemap: 60, pageDelayMs: 60 });
  state = await tempDir('spinneret-e2e-restart-');
  browser = await launchBrowser();
});

after(async () => {
  if (skip) return;
  await browser?.close();
  for (const s of servers) await s.stop();
  await site?.close();
  await state?.remove();
});

test('pause, restart the server process, resume from the window', { skip: skip ?? false }, async () => {
  const first = await startServer({ stateDir: state.path, rendererDir });
  servers.push(first);
  const a = await openPage(browser, first.url);
  await a.page.waitForSelector('#f-start');
  await a.page.fill('#f-start', site.url('/'));
  await a.page.click('.advanced summary');
  await a.page.fill('#f-concurrency', '2');
  await a.page.fill('#f-perHostConcurrency', '2');
  await a.page.click('[data-testid=create-start]');
  await waitFor('pages to be fetched', async () => (await counter(a.page, 'fetched')) >= 20);
  await a.page.click('[data-action=pause]');
  await waitFor('the crawl to pause', async () => (await a.page.getAttribute('.toolbar .pill', 'data-status')) === 'paused');
  await a.page.waitForTimeout(300);
  const before = { discovered: await counter(a.page, 'discovered'), fetched: await counter(a.page, 'fetched') };
  assert.ok(before.fetched < site.expected.discovered.length, 'paused before the end');
  const hitsAtPause = site.log.length;
  assert.equal(await first.stop(), 0, first.output());
  await a.page.context().close();

  const second = await startServer({ stateDir: state.path, rendererDir });
  servers.push(second);
  const b = await openPage(browser, second.url);
  const item = b.page.locator('.crawl-item');
  await waitFor('the crawl in the sidebar', () => item.count());
  assert.equal(await item.getAttribute('data-status'), 'paused');
  assert.equal(await counter(b.page, 'fetched'), before.fetched, 'counts come back from disk');
  assert.equal(await counter(b.page, 'discovered'), before.discovered);
  assert.equal(site.log.length, hitsAtPause, 'nothing fetched while the crawl was paused');
  // The Issues tab counts the reopened crawl's audit before the Issues view is ever opened.
  await waitFor('the issue count on its tab', () => b.page.locator('[data-testid=tab-count-issues]').count(), 10_000);
  await screenshot(b.page, 'restart-paused');
  await b.page.click('[data-testid=sidebar-resume]');
  await waitFor('the crawl to finish', async () => (await item.getAttribute('data-status')) === 'finished', 120_000, 250);
  await b.page.waitForTimeout(300);

  assert.ok((await counter(b.page, 'discovered')) >= site.expected.discovered.length);
  assert.equal(await counter(b.page, 'queued'), 0);
  // Pause lets requests in flight finish, so nothing fetched before the restart is fetched again.
  for (const [path, n] of site.hits) if (path.startsWith('/l/')) assert.equal(n, 1, `${path} fetched ${n} times`);
  for (const p of site.expected.discovered) if (p.startsWith('/l/')) assert.equal(site.hits.get(p), 1, `${p} fetched once`);
  assert.deepEqual(b.problems, []);
});
