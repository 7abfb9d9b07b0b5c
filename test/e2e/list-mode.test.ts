/**
 * List mode end to end, in headless Chromium through browser mode, on the realistic site: New crawl →
 * "A list of URLs"; a line that is no URL is named beside the field before anything is sent; a list
 * pasted (with a comment, a blank line and a repeat) is crawled without following links, so the URL
 * table holds exactly the list, each with the status the site answers; a CSV uploaded in the page is
 * read there (its first column, its header skipped). Screenshots of the form and the crawl.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startRealSite, type RealSite } from '../fixtures/real-site/site.js';
import { buildRenderer, launchBrowser, openPage, screenshot, skipReason, startServer, tempDir, waitFor, type ServerProcess } from './harness.js';

const skip = skipReason();

let site: RealSite;
let state: { path: string; remove(): Promise<void> };
let rendererDir: string;
let server: ServerProcess;
let browser: Browser;
let page: Page;
let problems: string[];

/** Pages with no hreflang and a canonical to themselves, a 404 among them: what a list crawl fetches is the list. */
const LISTED = ['/contact/', '/faq/', '/privacy/', '/old-terms/', '/shop/garden/classic-hose/', '/shipping/'];

before(async () => {
  if (skip) return;
  site = await startRealSite();
  state = await tempDir('spinneret-e2e-list-');
  rendererDir = await buildRenderer();
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

const urlTotal = async (p: Page) => Number(await p.getAttribute('[data-testid=url-count]', 'data-total'));

test('a line that is no URL is named beside the list before anything is sent', { skip: skip ?? false }, async () => {
  await page.waitForSelector('[data-crawl-mode=list]');
  await page.click('[data-crawl-mode=list]');
  assert.equal(await page.locator('#f-start').count(), 0, 'a list needs no start URL');
  assert.equal(await page.isChecked('[data-testid=list-follow-links]'), false, 'links are not followed unless asked');
  await page.fill('[data-testid=list-text]', `${site.url('/contact/')}\n/faq/\n`);
  await page.click('#f-name'); // leaving the field shows its problems
  await waitFor('the list error', async () => /Line 2: "\/faq\/" is not an http:\/\/ or https:\/\/ URL/.test(await page.innerText('[data-testid=list-error]')));
  await page.click('[data-testid=create-start]');
  assert.equal(await page.locator('.crawl-item').count(), 0, 'nothing was created');
  await screenshot(page, 'list-mode-error');
});

test('a pasted list is crawled without its links: the table holds exactly the list', { skip: skip ?? false }, async () => {
  const text = ['# pages to check after the migration', ...LISTED.map((p) => site.url(p)), '', site.url('/faq/')].join('\n');
  await page.fill('[data-testid=list-text]', text);
  await waitFor('the count', async () => (await page.getAttribute('[data-testid=list-count]', 'data-urls')) === String(LISTED.length));
  assert.match(await page.innerText('[data-testid=list-count]'), /6 URLs \(1 repeats dropped\)/);
  assert.equal(await page.locator('[data-testid=list-error]').count(), 0);
  await page.fill('#f-name', 'Migration check');
  await screenshot(page, 'list-mode-form');
  await page.click('[data-testid=create-start]');
  await page.waitForSelector('.toolbar .pill[data-status=finished]', { timeout: 60_000 });
  assert.match(await page.innerText('.toolbar .subtitle'), /List of 6 URLs/);
  await page.click('[data-tab=urls]');
  await waitFor('the rows', async () => (await urlTotal(page)) === LISTED.length, 10_000);
  const urls = await page.locator('[data-testid=url-table] .url-cell').evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? '').sort());
  assert.deepEqual(urls, LISTED.map((p) => site.url(p)).sort());
  // Each with what the site answers: the footer's 404 is one of them.
  const row404 = page.locator('[data-testid=url-table] .vrow', { has: page.locator(`.url-cell[title="${site.url('/old-terms/')}"]`) });
  assert.equal(await row404.locator('[data-col=status]').innerText(), '404');
  // Not one of the pages their links lead to was requested.
  assert.equal(site.hits.get('/about/'), undefined, 'links were not followed');
  assert.match(await page.innerText('.crawl-item.selected'), /list of 6/);
  await screenshot(page, 'list-mode-urls');
});

test('a CSV uploaded in the page is read there: its first column, its header skipped', { skip: skip ?? false }, async () => {
  await page.click('[data-testid=new-crawl]');
  await page.click('[data-crawl-mode=list]');
  const file = join(state.path, 'export.csv');
  await writeFile(file, `Address,Status Code\n${site.url('/contact/')},200\n"${site.url('/faq/')}",200\n${site.url('/shipping/')},200\n`);
  await page.setInputFiles('[data-testid=list-file]', file);
  await waitFor('the file read', async () => (await page.getAttribute('[data-testid=list-count]', 'data-urls')) === '3', 10_000);
  assert.match(await page.innerText('[data-testid=list-count]'), /export\.csv/);
  assert.equal(await page.locator('[data-testid=list-error]').count(), 0);
  assert.deepEqual(problems, [], 'no page errors or CSP violations');
});
