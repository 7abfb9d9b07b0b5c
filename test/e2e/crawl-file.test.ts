/**
 * Crawl files end to end, in headless Chromium through browser mode: a crawl of the realistic site is
 * saved with Export → "Save crawl as file…" (a download), opened again with "Open crawl file…" (picked
 * in the page, its bytes posted to the upload URL the service hands out): a new crawl, marked as
 * opened from that file, holding the same URLs, and compared with the original it shows no change.
 * A damaged file (a byte flipped) and a foreign one are refused with a clear error, and the crawl
 * list is left as it was. Screenshots of the opened crawl and the refusal.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startRealSite, type RealSite } from '../fixtures/real-site/site.js';
import {
  SCREENSHOTS,
  buildRenderer,
  crawlToEnd,
  launchBrowser,
  openPage,
  screenshot,
  skipReason,
  startServer,
  tempDir,
  waitFor,
  type ServerProcess,
} from './harness.js';

const skip = skipReason();

let site: RealSite;
let state: { path: string; remove(): Promise<void> };
let server: ServerProcess;
let browser: Browser;
let page: Page;
let problems: string[];
let rows: number;
let saved: string;

before(async () => {
  if (skip) return;
  site = await startRealSite();
  state = await tempDir('spinneret-e2e-crawl-file-');
  const [rendererDir, crawled] = await Promise.all([
    buildRenderer(),
    crawlToEnd(state.path, 'Hearth & Acre', { startUrl: site.url('/'), retries: 0, timeoutMs: 2000, concurrency: 6, perHostConcurrency: 6 }),
  ]);
  rows = crawled.length;
  server = await startServer({ stateDir: state.path, rendererDir });
  browser = await launchBrowser();
  ({ page, problems } = await openPage(browser, server.url));
});

after(async () => {
  if (skip) return;
  await browser?.close();
  await server?.stop();
  await site?.close();
  await state?.remove();
});

const items = (p: Page) => p.locator('.crawl-item').count();

test('Save crawl as file downloads the crawl; Open crawl file opens it as a new crawl, marked, with the same URLs', { skip: skip ?? false }, async () => {
  await page.waitForSelector('.crawl-item');
  const originalId = (await page.getAttribute('.crawl-item', 'data-crawl-id'))!;
  await page.click('[data-action=export]');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-export=crawl-file]')]);
  saved = join(state.path, download.suggestedFilename() || 'saved.spinneret');
  await download.saveAs(saved);
  assert.ok((await readFile(saved)).length > 1000, 'a crawl file with something in it');

  await page.setInputFiles('[data-testid=open-crawl-input]', saved);
  await waitFor('the opened crawl', async () => (await items(page)) === 2, 30_000);
  const opened = page.locator('.crawl-item.selected');
  const openedId = (await opened.getAttribute('data-crawl-id'))!;
  assert.notEqual(openedId, originalId, 'a new id');
  assert.equal(await opened.locator('[data-mark=imported]').count(), 1, 'marked in the list');
  assert.match(await page.innerText('[data-testid=imported-from]'), new RegExp(`Opened from ${download.suggestedFilename().replace(/[.]/g, '\\.')}`));
  await page.click('[data-tab=urls]');
  await waitFor('its URLs', async () => Number(await page.getAttribute('[data-testid=url-count]', 'data-total')) === rows, 10_000);
  await screenshot(page, 'crawl-file-opened');

  // Compared with the crawl it was saved from: nothing added, removed or changed.
  await page.click('[data-action=compare]');
  await page.waitForSelector('[data-testid=compare-counts], [data-testid=compare-view] .empty');
  assert.equal(await page.locator('[data-testid=compare-view] .empty').count(), 0, await page.innerText('[data-testid=compare-view]'));
  await page.selectOption('[data-testid=compare-old]', originalId);
  await page.waitForSelector('[data-testid=compare-counts]');
  await waitFor(
    'the comparison',
    async () => (await page.inputValue('[data-testid=compare-new]')) === openedId && (await page.inputValue('[data-testid=compare-old]')) === originalId,
  );
  await waitFor('no change', async () => Number(await page.getAttribute('[data-testid=cmp-unchanged]', 'data-value')) === rows, 10_000);
  for (const k of ['added', 'removed', 'changed']) assert.equal(await page.getAttribute(`[data-testid=cmp-${k}]`, 'data-value'), '0', k);
});

test('a damaged file and a foreign one are refused with a clear error; the list is left as it was', { skip: skip ?? false }, async () => {
  const bytes = await readFile(saved);
  bytes[Math.floor(bytes.length / 2)] ^= 0xff;
  const damaged = join(state.path, 'damaged.spinneret');
  await writeFile(damaged, bytes);
  await page.setInputFiles('[data-testid=open-crawl-input]', damaged);
  const toast = await page.waitForSelector('.toast-error', { timeout: 30_000 });
  assert.match(await toast.innerText(), /Could not open "damaged\.spinneret": .+ Nothing was imported\./s);
  // Not the harness's screenshot(): it clicks the toasts away first, and the toast is the point here.
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, 'crawl-file-refused.png') });
  assert.equal(await items(page), 2);

  const foreign = join(state.path, 'notes.spinneret');
  await writeFile(foreign, 'just some notes, not a crawl\n');
  await page.setInputFiles('[data-testid=open-crawl-input]', foreign);
  await waitFor('the second refusal', async () => /Could not open "notes\.spinneret"/.test(await page.innerText('.toasts')), 30_000);
  assert.equal(await items(page), 2);
  // The browser logs the refusals' 400 answers; nothing else may go wrong.
  assert.deepEqual(
    problems.filter((p) => !/status of 400/.test(p)),
    [],
    'no page errors or CSP violations',
  );
});
