/**
 * A URL's page data in the window (issue 22), end to end in headless Chromium through browser mode, on
 * a crawl of the realistic site: the URL detail shows indexability (and why not), the meta
 * description, H1, lang and word count — missing, empty and repeated ones said plainly — and the
 * response time, sizes, Last-Modified and ETag; the table offers them as columns to choose.
 * Screenshots of the detail of an odd page and of the chosen columns.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { UrlRow } from '../../shared/model.js';
import { SPECIAL_FIELDS, startRealSite, type RealSite } from '../fixtures/real-site/site.js';
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

let site: RealSite;
let state: { path: string; remove(): Promise<void> };
let server: ServerProcess;
let browser: Browser;
let page: Page;
let problems: string[];
let rows: Map<string, UrlRow>;

before(async () => {
  if (skip) return;
  site = await startRealSite();
  state = await tempDir('spinneret-e2e-page-data-');
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
  const settings = { startUrl: site.url('/'), retries: 0, timeoutMs: 2000, connectTimeoutMs: 2000, concurrency: 8, perHostConcurrency: 8 };
  rows = new Map((await crawlToEnd(state.path, 'Hearth & Acre', settings)).map((r) => [r.url.slice(site.origin.length), r]));
}

const table = '[data-testid=url-table]';
/** The detail pane's value of one key (its Kv row). */
const kv = (k: string) => page.locator('[data-testid=url-detail] .kv-row', { has: page.locator(`.kv-k:text-is("${k}")`) }).locator('.kv-v');

async function openDetail(path: string): Promise<void> {
  await page.click('[data-tab=urls]');
  await page.fill('[data-testid=url-search]', site.url(path));
  await waitFor(
    `one row for ${path}`,
    async () => (await urlTotal(page)) >= 1 && (await page.locator(`${table} .url-cell[title="${site.url(path)}"]`).count()) === 1,
    10_000,
  );
  await page.click(`${table} .url-cell[title="${site.url(path)}"]`);
  await waitFor(
    `the detail of ${path}`,
    async () =>
      (await page
        .locator('[data-testid=url-detail] .detail-url')
        .innerText()
        .catch(() => '')) === site.url(path),
    10_000,
  );
}

test('the URL detail: a page with two meta descriptions and two H1s says so, with its lang, words, time and size', { skip: skip ?? false }, async () => {
  await page.waitForSelector('[data-tab=urls]');
  const faq = rows.get(SPECIAL_FIELDS.repeated)!;
  await openDetail(SPECIAL_FIELDS.repeated);
  await page.waitForSelector('[data-testid=detail-page]');
  assert.equal(await page.innerText('[data-testid=detail-indexability]'), 'Indexable');
  assert.equal(await kv('Meta description').innerText(), 'Questions and answers: delivery, returns, care. (2 meta descriptions on the page)');
  assert.equal(await kv('H1').innerText(), 'FAQ (2 H1s on the page)');
  assert.equal(await kv('Language').innerText(), 'en-GB');
  assert.equal(await kv('Words').innerText(), String(faq.wordCount));
  assert.equal(await kv('Response time').innerText(), `${faq.responseTimeMs!.toLocaleString('en-US')} ms`);
  assert.match(await kv('Size').innerText(), /^2\.2 KB$/);
  assert.match(await kv('Transferred').innerText(), /^2\.2 KB$/);
  await screenshot(page, 'page-data-detail');
});

test('the URL detail: missing and empty fields, validators, and why a URL is not indexable', { skip: skip ?? false }, async () => {
  await openDetail(SPECIAL_FIELDS.noDescription);
  await page.waitForSelector('[data-testid=detail-page]');
  assert.equal(await kv('Meta description').innerText(), 'missing');
  assert.equal(await kv('Language').innerText(), 'none (no <html lang>)');
  await openDetail(SPECIAL_FIELDS.emptyFields);
  await page.waitForSelector('[data-testid=detail-page]');
  assert.equal(await kv('Meta description').innerText(), '(empty)');
  assert.equal(await kv('H1').innerText(), '(empty)');
  await openDetail('/shop/garden/compact-hose/');
  assert.equal(await kv('ETag').innerText(), rows.get('/shop/garden/compact-hose/')!.etag);
  assert.equal(await kv('Last-Modified').innerText(), rows.get('/shop/garden/compact-hose/')!.lastModified);
  await openDetail('/blog/tag/garden/');
  assert.equal(await page.innerText('[data-testid=detail-indexability]'), 'Non-indexable: noindex');
  assert.equal(await kv('Indexability').innerText(), 'Non-indexable (noindex)');
  await openDetail('/promo');
  assert.equal(await page.innerText('[data-testid=detail-indexability]'), 'Non-indexable: Redirect');
  assert.equal(await page.locator('[data-testid=detail-page]').count(), 0, 'a redirect has no page fields');
  await page.click('[data-testid=url-detail] [aria-label="Close details"]');
});

test('the table: the page data are columns to choose, and show what the rows hold', { skip: skip ?? false }, async () => {
  await page.fill('[data-testid=url-search]', site.url('/faq/'));
  await waitFor('the FAQ row', async () => (await urlTotal(page)) === 1, 10_000);
  await page.click('[data-testid=columns-button]');
  const offered = await page.locator('[data-testid=columns-menu] input[type=checkbox]').evaluateAll((els) => els.map((e) => e.getAttribute('data-col')));
  for (const col of [
    'indexability',
    'indexabilityReason',
    'metaDescription',
    'metaDescriptionCount',
    'h1',
    'h1Count',
    'lang',
    'wordCount',
    'responseTimeMs',
    'sizeBytes',
    'transferredBytes',
    'lastModified',
    'etag',
  ])
    assert.ok(offered.includes(col), `the chooser offers ${col}`);
  for (const col of ['indexability', 'metaDescriptionCount', 'h1Count', 'wordCount', 'responseTimeMs'])
    await page.check(`[data-testid=columns-menu] [data-col="${col}"]`);
  await screenshot(page, 'page-data-columns');
  await page.keyboard.press('Escape');
  const cell = (col: string) => page.locator(`${table} .vrow .vcell[data-col=${col}]`).first().innerText();
  const faq = rows.get('/faq/')!;
  assert.deepEqual(
    [await cell('indexability'), await cell('metaDescriptionCount'), await cell('h1Count'), await cell('wordCount'), await cell('responseTimeMs')],
    ['Indexable', '2', '2', String(faq.wordCount), `${faq.responseTimeMs!.toLocaleString('en-US')} ms`],
  );
  await page.fill('[data-testid=url-search]', '');
  await waitFor('every URL', async () => (await urlTotal(page)) === rows.size, 10_000);
  // For the screenshot: the page data beside the URL, the usual columns out of the way.
  await page.click('[data-testid=columns-button]');
  for (const col of ['state', 'source', 'depth', 'contentType', 'inSitemaps', 'lastmod', 'title'])
    await page.uncheck(`[data-testid=columns-menu] [data-col="${col}"]`);
  for (const col of ['indexabilityReason', 'h1', 'sizeBytes']) await page.check(`[data-testid=columns-menu] [data-col="${col}"]`);
  await page.keyboard.press('Escape');
  await page.click(`${table} .vth[data-col=wordCount]`);
  await waitFor('sorted by words', async () => (await page.getAttribute(`${table} .vth[data-col=wordCount]`, 'aria-sort')) === 'ascending', 10_000);
  await waitFor('the first rows', async () => (await page.locator(`${table} .vrow.placeholder`).count()) === 0);
  await screenshot(page, 'page-data-table');
  assert.deepEqual(problems, []);
});
