/**
 * The analyst's window end to end, in headless Chromium through browser mode, against the local
 * test site: create a crawl, watch it grow, pause (counts freeze), resume, finish; the sitemap tree
 * with the right URL counts; a node click filters the table; search; the detail pane; the errors
 * view; and Export gives the same CSV as the CLI's export of that crawl. Screenshots of each view.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestSite, type TestSite } from '../fixtures/site.js';
import {
  buildRenderer,
  counter,
  launchBrowser,
  openPage,
  runCli,
  screenshot,
  skipReason,
  startServer,
  tempDir,
  waitFor,
  type ServerProcess,
} from './harness.js';

const skip = skipReason();

let site: TestSite;
let state: { path: string; remove(): Promise<void> };
let rendererDir: string;
let server: ServerProcess;
let browser: Browser;
let page: Page;
let problems: string[];

before(async () => {
  if (skip) return;
  rendererDir = await buildRenderer();
  // Pages answer slowly enough for the test to see the crawl grow and to pause it mid-way.
  site = await startTestSite({ scenario: 'full', pageDelayMs: 120, slowMs: 2500 });
  state = await tempDir('spinneret-e2e-state-');
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

const statusOf = (p: Page) => p.getAttribute('.toolbar .pill', 'data-status');
const urlTotal = async (p: Page) => Number(await p.getAttribute('[data-testid=url-count]', 'data-total'));
const text = (p: Page, sel: string) => p.locator(sel).first().innerText();

/** The tree row whose name cell shows `url`. */
const treeRow = (p: Page, url: string) => p.locator('[data-testid=sitemap-tree] .vrow', { has: p.locator(`.tree-name [title="${url}"]`) });

test('new crawl form: validation as you type, then create and start', { skip: skip ?? false }, async () => {
  await page.waitForSelector('#f-start');
  await page.fill('#f-start', 'not a site');
  assert.match(await text(page, '.field-error'), /spaces/);
  await page.fill('#f-start', site.origin.replace('http://', ''));
  assert.match(await text(page, '.field-error'), /http:\/\/ or https:\/\//);
  await page.click('[data-testid=use-suggestion]');
  await page.fill('#f-start', site.url('/'));
  assert.equal(await page.locator('.field-error').count(), 0);
  await page.click('.advanced summary');
  await page.fill('#f-concurrency', '0');
  assert.match(await text(page, '.field-error'), /Concurrency must be between 1/);
  await page.fill('#f-concurrency', '2');
  await page.fill('#f-perHostConcurrency', '2');
  await page.fill('#f-timeoutMs', '1000');
  await page.fill('#f-retries', '1');
  await page.fill('#f-name', 'Test site');
  await page.evaluate(`document.querySelector('.page-scroll').scrollTop = 0`);
  await screenshot(page, 'new-crawl');
  await page.click('[data-testid=create-start]');
  await waitFor('the crawl to run', async () => (await statusOf(page)) === 'running' || (await statusOf(page)) === 'finished');
  assert.equal(await text(page, '.toolbar h1'), 'Test site');
  assert.equal(await page.locator('.crawl-item').count(), 1);
});

test('the URL count grows while it runs; pause freezes the counts; resume finishes', { skip: skip ?? false }, async () => {
  const first = await waitFor('URLs to be found', () => counter(page, 'discovered'));
  await waitFor('the discovered count to grow', async () => (await counter(page, 'discovered')) > first);
  const fetched0 = await counter(page, 'fetched');
  await waitFor('pages to be fetched', async () => (await counter(page, 'fetched')) > fetched0);
  await waitFor('a few progress points for the chart', () => page.locator('.linechart').count());
  await screenshot(page, 'overview-running');

  // The live table grows too.
  await page.click('[data-tab=urls]');
  const rows0 = await waitFor('the URL table to load', () => urlTotal(page));
  await waitFor('the URL table to grow', async () => (await urlTotal(page)) > rows0);
  assert.equal(await statusOf(page), 'running', 'the site is slow enough to still be running');

  await page.keyboard.press('Control+p'); // the pause/resume shortcut
  await waitFor('the crawl to pause', async () => (await statusOf(page)) === 'paused');
  assert.equal(await page.isEnabled('[data-action=resume]'), true);
  assert.equal(await page.isEnabled('[data-action=stop]'), true);
  await page.click('[data-tab=overview]');
  await page.waitForTimeout(400); // let the last progress event land
  const frozen = { discovered: await counter(page, 'discovered'), fetched: await counter(page, 'fetched'), queued: await counter(page, 'queued') };
  assert.ok(frozen.queued > 0, 'paused with work left');
  await page.waitForTimeout(1500);
  assert.deepEqual({ discovered: await counter(page, 'discovered'), fetched: await counter(page, 'fetched'), queued: await counter(page, 'queued') }, frozen);
  await screenshot(page, 'overview-paused');
  // The Issues view says its counts are those of a crawl not done yet.
  await page.click('[data-tab=issues]');
  await page.waitForSelector('[data-testid=partial-crawl][data-why=paused]');
  assert.match(await page.innerText('[data-testid=partial-crawl]'), /The crawl is paused \([\d,]+ URLs? still queued.*\): these are the findings so far/);
  await page.click('[data-tab=overview]');
  assert.equal(await page.locator('[data-testid=partial-crawl]').count(), 0, 'the Overview shows its live counts as they are');

  await page.click('[data-action=resume]');
  await waitFor('the crawl to finish', async () => (await statusOf(page)) === 'finished', 120_000, 250);
  assert.ok((await counter(page, 'fetched')) > frozen.fetched);
  assert.equal(await counter(page, 'queued'), 0);
  for (const action of ['start', 'pause', 'stop'] as const) {
    const sel = `[data-action=${action}]`;
    if (await page.locator(sel).count()) assert.equal(await page.isEnabled(sel), false, `${action} is off when finished`);
  }
  assert.equal(await page.isEnabled('[data-action=export]'), true);
  // Every URL the site must yield is counted.
  assert.ok((await counter(page, 'discovered')) >= site.expected.discovered.length);
  await screenshot(page, 'overview');
});

test('the sitemap tree shows robots.txt, the index and its children with the right URL counts', { skip: skip ?? false }, async () => {
  await page.click('[data-tab=sitemaps]');
  const index = site.expected.sitemaps.find((s) => s.path === '/sitemap_index.xml')!;
  await waitFor('the index to be expanded', () => treeRow(page, site.url(index.path)).count());
  const countOf = async (url: string) => Number(await treeRow(page, url).locator('[data-testid=node-count]').getAttribute('data-count'));
  assert.equal(await treeRow(page, site.url('/robots.txt')).count(), 1);
  assert.equal(await countOf(site.url(index.path)), index.childCount);
  const children = site.expected.sitemaps.filter((s) => s.via === 'index' && s.from === index.path);
  assert.ok(children.length >= 5);
  for (const child of children) {
    await waitFor(`${child.path} in the tree`, () => treeRow(page, site.url(child.path)).count());
    const want = child.type === 'sitemapindex' ? child.childCount : child.urlCount;
    assert.equal(await countOf(site.url(child.path)), want, `${child.path} count`);
    if (child.state === 'error') {
      assert.ok(await treeRow(page, site.url(child.path)).locator('.badge').count(), `${child.path} has a problem badge`);
    }
  }
  const missing = children.find((c) => c.path === '/sitemaps/missing.xml')!;
  assert.equal(await treeRow(page, site.url(missing.path)).locator('.http').innerText(), String(missing.httpStatus));
});

test('a node click filters the URL table to the URLs it listed', { skip: skip ?? false }, async () => {
  const pages = site.expected.sitemaps.find((s) => s.path === '/sitemaps/pages.xml.gz')!;
  await treeRow(page, site.url(pages.path)).locator('.type').click();
  await page.waitForSelector('[data-testid=node-panel]');
  await screenshot(page, 'sitemap-tree');
  await page.click('[data-tab=urls]'); // the node click alone set the filter
  await page.waitForSelector('[data-testid=sitemap-chip]');
  const listed = new Set(pages.urls.map((p) => site.url(p)));
  await waitFor('the filtered count', async () => (await urlTotal(page)) === listed.size, 10_000);
  const shown = await page.locator('[data-testid=url-table] .vrow .url-cell').allInnerTexts();
  assert.ok(shown.length > 0);
  for (const u of shown) assert.ok(listed.has(u), `${u} is listed by pages.xml.gz`);
  await page.click('[data-testid=sitemap-chip] .chip-x');
  await waitFor('the filter to clear', async () => (await urlTotal(page)) === (await counterFromTab(page)), 10_000);
});

/** The URLs tab's own count of every URL. */
async function counterFromTab(p: Page): Promise<number> {
  return Number((await p.locator('[data-tab=urls] .tab-count').innerText()).replace(/,/g, ''));
}

test('search finds a URL; the detail pane shows every source that found it', { skip: skip ?? false }, async () => {
  await page.fill('[data-testid=url-search]', 'latin1');
  await waitFor('one match', async () => (await urlTotal(page)) === 1, 10_000);
  assert.equal(await text(page, '[data-testid=url-table] .vrow .url-cell'), site.url('/latin1.html'));

  await page.fill('[data-testid=url-search]', 'page/7.html');
  await waitFor(
    'one match',
    async () => (await urlTotal(page)) === 1 && (await text(page, '[data-testid=url-table] .vrow .url-cell')) === site.url('/page/7.html'),
    10_000,
  );
  await page.click('[data-testid=url-table] .vrow');
  await page.waitForSelector('[data-testid=detail-discoveries]');
  // Two sitemaps and three linking pages: all five discoveries.
  assert.equal(await page.locator('[data-testid=detail-discoveries] li.found-by').count(), 5);
  assert.equal(await page.locator('[data-testid=url-detail] .detail-url').innerText(), site.url('/page/7.html'));
  await page.fill('[data-testid=url-search]', '');
  await waitFor('the search to clear', async () => (await urlTotal(page)) > 1, 10_000);
  // Sorted by URL, the rich sitemap entry of /page/1.html (lastmod, hreflang, image) for the screenshot.
  await page.click('[data-testid=url-table] [data-col=url]');
  await waitFor('the sort by URL', async () => (await page.getAttribute('[data-testid=url-table] [data-col=url]', 'aria-sort')) === 'ascending');
  const row = page.locator('[data-testid=url-table] .vrow', { has: page.locator(`.url-cell[title="${site.url('/page/1.html')}"]`) });
  await waitFor('/page/1.html in view', () => row.count(), 10_000);
  await row.click();
  await waitFor(
    'its detail',
    async () =>
      (await page
        .locator('[data-testid=url-detail] .detail-url')
        .innerText()
        .catch(() => '')) === site.url('/page/1.html'),
    10_000,
  );
  const urls = await page.locator('[data-testid=url-table] .vrow .url-cell').allInnerTexts();
  assert.deepEqual(urls, [...urls].sort(), 'rows come sorted by URL');
  await screenshot(page, 'urls-detail');
  await page.click('[data-testid=url-table] [data-col=id]');
  await page.click('[data-testid=url-detail] [aria-label="Close details"]');
});

test('the errors view lists what went wrong with the URL and the reason', { skip: skip ?? false }, async () => {
  await page.click('[data-tab=errors]');
  await waitFor('log entries', async () => Number((await text(page, '[data-testid=log-count]')).replace(/\D/g, '')) > 0, 10_000);
  const missing = site.url('/sitemaps/missing.xml');
  const row = page.locator('[data-testid=log-table] .vrow', { has: page.locator(`a[title="${missing}"]`) });
  await waitFor('the 404 sitemap in the log', () => row.count(), 10_000);
  assert.match(await row.first().innerText(), /404/);
  await row.first().click();
  await page.waitForSelector('[data-testid=log-detail]');
  assert.match(await text(page, '[data-testid=log-detail]'), /404/);
  await screenshot(page, 'errors');
});

test('rename a crawl; create one without starting it; delete it after confirming', { skip: skip ?? false }, async () => {
  const first = page.locator('.crawl-item').first();
  await first.locator('.crawl-name').dblclick();
  await page.fill('.rename-input', 'Renamed site');
  await page.keyboard.press('Enter');
  await waitFor('the new name', async () => (await text(page, '.toolbar h1')) === 'Renamed site', 10_000);

  await page.click('[data-testid=new-crawl]');
  await page.fill('#f-start', site.url('/page/1.html'));
  await page.click('[data-mode=sitemaps]');
  await page.getByRole('button', { name: 'Create without starting' }).click();
  await waitFor('the second crawl', async () => (await page.locator('.crawl-item').count()) === 2, 10_000);
  assert.equal(await statusOf(page), 'created');
  assert.equal(await page.isEnabled('[data-action=start]'), true, 'a new crawl can start');
  assert.equal(await page.isEnabled('[data-action=stop]'), false);
  assert.equal(await page.isEnabled('[data-action=export]'), false, 'nothing to export yet');
  const created = page.locator('.crawl-item[data-status=created]');
  await created.hover();
  await created.locator('.icon-btn.danger').click();
  await page.waitForSelector('[role=alertdialog]');
  await page.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await page.locator('.crawl-item').count(), 2, 'cancel keeps it');
  await created.hover();
  await created.locator('.icon-btn.danger').click();
  await page.click('[data-testid=confirm]');
  await waitFor('the crawl to go', async () => (await page.locator('.crawl-item').count()) === 1, 10_000);
  assert.equal(await text(page, '.toolbar h1'), 'Renamed site', 'the remaining crawl is selected');
});

test('Export CSV of the current filter has exactly the filtered rows', { skip: skip ?? false }, async () => {
  await page.click('[data-tab=urls]');
  await page.fill('[data-testid=url-search]', '/page/');
  await waitFor(
    'the filter',
    async () => {
      const n = await urlTotal(page);
      return n > 1 && n < (await counterFromTab(page));
    },
    10_000,
  );
  const total = await urlTotal(page);
  await page.keyboard.press('Control+e'); // the export shortcut: the current filter when there is one
  const download = await page.waitForEvent('download');
  const csv = (await readFile((await download.path())!, 'utf8')).trimEnd().split(/\r?\n/);
  assert.equal(csv.length - 1, total);
  for (const line of csv.slice(1)) assert.match(line, /^"?http:\/\/127\.0\.0\.1:\d+\/[^,]*page\//, line);
  await page.fill('[data-testid=url-search]', '');
});

test('Export CSV of everything equals the CLI export of the same crawl', { skip: skip ?? false }, async () => {
  await page.click('[data-tab=overview]');
  await page.click('[data-action=export]');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-export=all]')]);
  const fromUi = await readFile((await download.path())!, 'utf8');
  const crawlId = (await page.getAttribute('.crawl-item', 'data-crawl-id'))!;
  assert.deepEqual(problems, [], 'no page errors or CSP violations');
  // Close the server first so that the CLI is the only process touching the state dir.
  await server.stop();
  const out = join(state.path, 'cli-export.csv');
  const cli = await runCli(['export', crawlId, '--out', out, '--state-dir', state.path]);
  assert.equal(cli.code, 0, cli.out);
  const fromCli = await readFile(out, 'utf8');
  const lines = fromUi.trimEnd().split(/\r?\n/);
  assert.ok(lines[0]!.startsWith('url,source,depth,'), lines[0]);
  assert.ok(lines.length - 1 >= site.expected.discovered.length, `${lines.length - 1} rows`);
  assert.equal(fromUi, fromCli);
});
