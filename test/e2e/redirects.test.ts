/**
 * Redirects in the window, end to end in headless Chromium through browser mode: a full crawl of the
 * audit site lists the chain and the loop in the Issues view, shows each redirecting URL with its own 3xx in the URL table and in the status chart,
 * the detail pane walks the chain hop by hop (and names a loop). Screenshots of each.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startAuditSite, type AuditSite } from '../fixtures/audit-site.js';
import {
  buildRenderer,
  launchBrowser,
  openPage,
  screenshot,
  skipReason,
  startServer,
  tempDir,
  urlTotal,
  waitFor,
  crawlToEnd,
  type ServerProcess,
} from './harness.js';

const skip = skipReason();

let site: AuditSite;
let state: { path: string; remove(): Promise<void> };
let server: ServerProcess;
let browser: Browser;
let page: Page;
let problems: string[];

before(async () => {
  if (skip) return;
  site = await startAuditSite();
  state = await tempDir('spinneret-e2e-redirects-');
  const [rendererDir] = await Promise.all([buildRenderer(), crawl()]);
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

async function crawl(): Promise<void> {
  const settings = { startUrl: site.url('/'), retries: 0, timeoutMs: 2000, connectTimeoutMs: 2000, concurrency: 6, perHostConcurrency: 6 };
  await crawlToEnd(state.path, 'Audit site', settings);
}

async function openDetail(path: string): Promise<void> {
  await page.click('[data-tab=urls]');
  await page.fill('[data-testid=url-search]', path);
  await waitFor(
    `one row for ${path}`,
    async () => (await urlTotal(page)) === 1 && ((await page.getAttribute('[data-testid=url-table] .url-cell', 'title')) ?? '').endsWith(path),
    10_000,
  );
  await page.click('[data-testid=url-table] .url-cell');
  await waitFor(
    `the detail of ${path}`,
    async () =>
      (
        await page
          .locator('[data-testid=url-detail] .detail-url')
          .innerText()
          .catch(() => '')
      ).includes(path),
    10_000,
  );
}

test('the Issues view lists the redirect chain and the loop with their URLs', { skip: skip ?? false }, async () => {
  await page.click('[data-tab=issues]');
  await page.waitForSelector('[data-testid=issues][data-computing=false] .issue-row');
  assert.equal(await page.getAttribute('.issue-row[data-code=REDIRECT_CHAIN]', 'data-count'), '1');
  assert.equal(await page.getAttribute('.issue-row[data-code=REDIRECT_LOOP]', 'data-count'), '2');
  await screenshot(page, 'redirects-issues');
  await page.click('[data-testid=finding-REDIRECT_LOOP]');
  await waitFor('the loop URLs', async () => (await urlTotal(page)) === 2, 10_000);
  await page.click('[data-testid=finding-chip] .chip-x');
});

test('the status chart counts the redirects themselves: 3xx', { skip: skip ?? false }, async () => {
  await page.waitForSelector('[data-tab=overview]');
  await page.click('[data-tab=overview]');
  // /moved.html, /chain-1.html, /chain-2.html, /loop-1.html, /loop-2.html each answer 301.
  const threes = await waitFor('the 3xx legend', async () => Number(await page.getAttribute('.legend-row[data-key="3xx"]', 'data-value')) || null);
  assert.equal(threes, 5);
  await screenshot(page, 'redirects-overview');
});

test('a redirecting URL keeps its 301 in the table; the detail walks its chain hop by hop', { skip: skip ?? false }, async () => {
  await openDetail('/chain-1.html');
  assert.equal(await page.innerText('[data-testid=url-table] .http'), '301');
  await page.waitForSelector('[data-testid=detail-chain]');
  const steps = await page
    .locator('[data-testid=detail-chain] .chain li')
    .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-status')} ${new URL(e.querySelector('a')!.getAttribute('href')!).pathname}`));
  assert.deepEqual(steps, ['301 /chain-1.html', '301 /chain-2.html', '200 /ok-2.html']);
  assert.match(await page.innerText('[data-testid=detail-chain]'), /Redirect chain \(2 hops\)/i);
  const codes = await page.locator('[data-testid=detail-findings] .detail-finding').evaluateAll((els) => els.map((e) => e.getAttribute('data-code')));
  assert.ok(codes.includes('REDIRECT_CHAIN') && codes.includes('SITEMAP_URL_REDIRECT'), codes.join());
  await screenshot(page, 'redirects-chain-detail');
  await page.click('[data-testid=url-detail] [aria-label="Close details"]');
});

test('a loop keeps each URL’s 301, shows the REDIRECT_LOOP error and ends the chain on the URL met again', { skip: skip ?? false }, async () => {
  await openDetail('/loop-1.html');
  await page.waitForSelector('[data-testid=detail-chain]');
  const steps = await page
    .locator('[data-testid=detail-chain] .chain li')
    .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-status')} ${new URL(e.querySelector('a')!.getAttribute('href')!).pathname}`));
  assert.deepEqual(steps, ['301 /loop-1.html', '301 /loop-2.html', '301 /loop-1.html']);
  assert.match(await page.innerText('[data-testid=detail-chain]'), /Redirect loop/i);
  assert.match(await page.innerText('[data-testid=url-detail] .banner-error'), /REDIRECT_LOOP/);
  await screenshot(page, 'redirects-loop-detail');
  await page.click('[data-testid=url-detail] [aria-label="Close details"]');
  await page.fill('[data-testid=url-search]', '');
});

test('no page error or CSP violation on the way', { skip: skip ?? false }, () => {
  assert.deepEqual(problems, []);
});
