/**
 * A crawl of 200,000 URLs (a sitemap listing of the local 'large' site: four 50,000-URL sitemaps)
 * loads in the window and its table scrolls end to end with only a bounded number of rows in the DOM.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestSite, type TestSite } from '../fixtures/site.js';
import { buildRenderer, launchBrowser, openPage, screenshot, skipReason, startServer, tempDir, waitFor, type ServerProcess } from './harness.js';

const URLS = 200_000;
/** "No more than a few hundred rows in the DOM at any time." */
const MAX_DOM_ROWS = 200;

const skip = skipReason();
let site: TestSite;
let state: { path: string; remove(): Promise<void> };
let server: ServerProcess;
let browser: Browser;

before(async () => {
  if (skip) return;
  const rendererDir = await buildRenderer();
  site = await startTestSite({ scenario: 'large', pages: 0, sitemapUrls: URLS, perSitemap: 50_000 });
  state = await tempDir('spinneret-e2e-big-');
  server = await startServer({ stateDir: state.path, rendererDir });
  browser = await launchBrowser();
});

after(async () => {
  if (skip) return;
  await browser?.close();
  await server?.stop();
  await site?.close();
  await state?.remove();
});

/** True when every row in the DOM has its data (no placeholder while its page loads). */
const settled = (page: Page) => page.evaluate<boolean>(`document.querySelectorAll('[data-testid=url-table] .vrow.placeholder').length === 0`);

test(`the URL table scrolls through ${URLS.toLocaleString('en-US')} URLs with a bounded DOM`, { skip: skip ?? false, timeout: 600_000 }, async (t) => {
  const { page, problems } = await openPage(browser, server.url);
  await page.waitForSelector('#f-start');
  await page.fill('#f-start', site.url('/'));
  await page.click('[data-mode=sitemaps]');
  await page.click('[data-testid=create-start]');
  await waitFor('the sitemap listing to finish', async () => (await page.getAttribute('.toolbar .pill', 'data-status')) === 'finished', 300_000, 500);

  await page.click('[data-tab=urls]');
  await waitFor(`${URLS} rows`, async () => Number(await page.getAttribute('[data-testid=url-count]', 'data-total')) === URLS);

  // Record the largest number of rows ever present, on every DOM change.
  await page.evaluate(`(() => {
    const table = document.querySelector('[data-testid=url-table]');
    window.maxRows = 0;
    const count = () => { window.maxRows = Math.max(window.maxRows, table.querySelectorAll('.vrow').length); };
    new MutationObserver(count).observe(table, { childList: true, subtree: true });
    count();
  })()`);

  const table = page.locator('[data-testid=url-table]');
  const scrollHeight = await table.evaluate((el) => el.scrollHeight);
  assert.ok(scrollHeight > URLS * 20, `the scroll area stands for every row (${scrollHeight}px)`);

  // Wheel scrolling at the top, as a person would.
  await table.hover();
  for (let i = 0; i < 10; i++) await page.mouse.wheel(0, 600);
  await waitFor('rows after wheel scrolling', () => settled(page));

  // Then jump through the whole list, top to bottom, letting each stop load.
  const steps = 40;
  let lastFirst = -1;
  for (let s = 0; s <= steps; s++) {
    const top = await table.evaluate((el, f) => {
      el.scrollTop = (el.scrollHeight - el.clientHeight) * f;
      return el.scrollTop;
    }, s / steps);
    // The row at the top of the view, give or take the rows rendered beyond it: wait for the window
    // to get there (a read right after scrolling may still see the last stop's window re-rendered).
    const atTop = Math.floor((top / scrollHeight) * URLS);
    const firstIndex = async () => Number(await page.locator('[data-testid=url-table] .vrow').first().getAttribute('data-index'));
    await waitFor(`rows at ${s}/${steps}`, async () => (await settled(page)) && Math.abs((await firstIndex()) - atTop) <= MAX_DOM_ROWS, 30_000, 50);
    const first = await firstIndex();
    assert.ok(first >= lastFirst, 'the window moves down the list');
    lastFirst = first;
  }

  // At the bottom: the last row is the 200,000th and carries its data.
  const last = page.locator(`[data-testid=url-table] .vrow[data-index="${URLS - 1}"]`);
  await waitFor('the last row', () => last.count());
  assert.match(await last.locator('.url-cell').innerText(), new RegExp(`^${site.origin}/l/\\d+\\.html$`));
  await table.evaluate((el) => {
    el.scrollTop = el.scrollHeight / 2;
  });
  await waitFor('rows in the middle', () => settled(page));
  await screenshot(page, 'urls-200k');

  const maxRows = await page.evaluate<number>('window.maxRows');
  t.diagnostic(`largest number of rows in the DOM while scrolling ${URLS} URLs: ${maxRows}`);
  assert.ok(maxRows > 20, `rows were rendered (${maxRows})`);
  assert.ok(maxRows <= MAX_DOM_ROWS, `at most ${MAX_DOM_ROWS} rows in the DOM at any time, saw ${maxRows}`);
  assert.deepEqual(problems, []);
});
