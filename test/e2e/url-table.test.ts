/**
 * The URL table an analyst works in, end to end in headless Chromium through browser mode, on a
 * crawl of the local audit site: choosing and sizing columns (remembered across a reload), sorting
 * by every column, the exact status filter, filter chips (a tree node's replaces a finding's and the
 * other way round), the empty table naming its filters, and export names. Screenshots of the column
 * chooser, the chips and an empty result.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import type { UrlRow } from '../../shared/model.js';
import { CSV_COLUMNS } from '../../electron/service/data/csv.js';
import { localDate } from '../../electron/renderer-host/downloads.js';
import { expectedAudit, startAuditSite, type AuditSite } from '../fixtures/audit-site.js';
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
/** Every row of the crawl, as the service answers them (the truth the window is checked against). */
let rows: UrlRow[];

before(async () => {
  if (skip) return;
  site = await startAuditSite();
  state = await tempDir('spinneret-e2e-table-');
  const [rendererDir] = await Promise.all([buildRenderer(), crawlAuditSite()]);
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

/** A full crawl of the audit site, made by the service in the folder the server opens. */
async function crawlAuditSite(): Promise<void> {
  const settings = { startUrl: site.url('/'), retries: 0, timeoutMs: 2000, connectTimeoutMs: 2000, concurrency: 6, perHostConcurrency: 6 };
  rows = await crawlToEnd(state.path, 'Audit site', settings);
}

const table = '[data-testid=url-table]';
const headers = (p: Page) => p.locator(`${table} .vth`).evaluateAll((els) => els.map((e) => e.getAttribute('data-col')));
const headerWidth = (p: Page, col: string) => p.locator(`${table} .vth[data-col="${col}"]`).evaluate((e) => e.getBoundingClientRect().width);
const tableUrls = (p: Page) => p.locator(`${table} .vcell[data-col=url] .url-cell`).evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? '').sort());
const chipKinds = (p: Page) => p.locator('[data-testid=filter-chips] .chip').evaluateAll((els) => els.map((e) => e.getAttribute('data-chip')));
const everyUrl = () => waitFor('every URL', async () => (await urlTotal(page)) === rows.length, 10_000);

async function openUrls(): Promise<void> {
  await page.click('[data-tab=urls]');
  await page.waitForSelector(`${table} .vrow .url-cell`);
}

async function exactStatus(codes: string): Promise<void> {
  await page.click('[data-testid=filter-status]');
  await page.fill('[data-testid=filter-status-codes]', codes);
  await page.click('[data-testid=filter-status-apply]');
  await page.keyboard.press('Escape');
}

/** The columns a new user sees, in order. */
const DEFAULT_HEADERS = ['id', 'url', 'state', 'source', 'clickDepth', 'status', 'indexability', 'contentType', 'inSitemaps', 'lastmod', 'title'];

test('columns: hide one, show one, drag one wider; a reload keeps all three', { skip: skip ?? false }, async () => {
  await page.waitForSelector('[data-tab=urls]');
  await openUrls();
  assert.deepEqual(await headers(page), DEFAULT_HEADERS);
  await page.click('[data-testid=columns-button]');
  assert.equal(await page.isDisabled('[data-testid=columns-menu] [data-col=url]'), true, 'the URL column is always shown');
  await page.click('[data-testid=columns-menu] [data-col=contentType]');
  await page.click('[data-testid=columns-menu] [data-col=canonical]');
  await screenshot(page, 'url-table-columns');
  await page.keyboard.press('Escape');
  await waitFor('the menu to close', async () => (await page.locator('[data-testid=columns-menu]').count()) === 0);
  const chosen = ['id', 'url', 'state', 'source', 'clickDepth', 'status', 'indexability', 'inSitemaps', 'lastmod', 'title', 'canonical'];
  assert.deepEqual(await headers(page), chosen);
  // A self-canonical page says so; one canonicalised elsewhere shows where.
  const cell = (path: string) =>
    page.locator(`${table} .vrow`, { has: page.locator(`.vcell[data-col=url] [title="${site.url(path)}"]`) }).locator('.vcell[data-col=canonical]');
  assert.equal(await cell('/self-canonical.html').innerText(), 'self');
  assert.equal(await cell('/canonicalised.html').innerText(), site.url('/ok-2.html'));

  // Drag the Status header's right edge 50 px to the right.
  const before = await headerWidth(page, 'status');
  const grip = (await page.locator(`${table} [data-resize=status]`).boundingBox())!;
  await page.mouse.move(grip.x + grip.width / 2, grip.y + grip.height / 2);
  await page.mouse.down();
  await page.mouse.move(grip.x + grip.width / 2 + 25, grip.y + grip.height / 2, { steps: 3 });
  await page.mouse.move(grip.x + grip.width / 2 + 50, grip.y + grip.height / 2, { steps: 3 });
  await page.mouse.up();
  const wider = await headerWidth(page, 'status');
  assert.ok(Math.abs(wider - (before + 50)) <= 2, `${before} px + 50 ≈ ${wider} px`);
  assert.equal(await page.getAttribute(`${table} .vth[data-col=status]`, 'aria-sort'), null, 'letting go of the edge does not sort');
  const cellWidth = await page
    .locator(`${table} .vrow .vcell[data-col=status]`)
    .first()
    .evaluate((e) => e.getBoundingClientRect().width);
  assert.ok(Math.abs(cellWidth - wider) <= 1, 'the rows follow the header');

  await page.reload();
  await openUrls();
  assert.deepEqual(await headers(page), chosen, 'the chosen columns, after a reload');
  assert.ok(Math.abs((await headerWidth(page, 'status')) - wider) <= 1, 'and the dragged width');
});

test('every column sorts, and "Reset columns" brings the defaults back', { skip: skip ?? false }, async () => {
  await page.click('[data-testid=columns-button]');
  const hidden = await page
    .locator('[data-testid=columns-menu] input[type=checkbox]:not(:checked)')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-col')));
  for (const col of hidden) await page.check(`[data-testid=columns-menu] [data-col="${col}"]`);
  await page.keyboard.press('Escape');
  const cols = await headers(page);
  assert.equal(cols.length, 36, 'every column is shown (17, the 13 of page data, the 5 of links and carried over)');
  // Last column first: each click sorts a new column ascending (the table starts sorted by #).
  for (const col of [...cols].reverse()) {
    await page.click(`${table} .vth[data-col="${col}"]`);
    await waitFor(`sorted by ${col}`, async () => (await page.getAttribute(`${table} .vth[data-col="${col}"]`, 'aria-sort')) === 'ascending', 10_000);
    await waitFor(
      `rows sorted by ${col}`,
      async () => (await page.locator(`${table} .vrow.placeholder`).count()) === 0 && (await page.locator(`${table} .vrow`).count()) > 0,
      10_000,
    );
    assert.equal(await page.locator('.inline-error, .empty-error').count(), 0, `sorting by ${col} failed`);
  }
  // Sorted by content type: the rows with one first, in order.
  await page.click(`${table} .vth[data-col=contentType]`);
  await waitFor('sorted by content type', async () => (await page.getAttribute(`${table} .vth[data-col=contentType]`, 'aria-sort')) === 'ascending', 10_000);
  await waitFor(
    'the first rows',
    async () =>
      (await page.locator(`${table} .vrow.placeholder`).count()) === 0 && (await page.locator(`${table} .vrow .vcell[data-col=contentType]`).count()) > 0,
  );
  const types = await page.locator(`${table} .vrow .vcell[data-col=contentType]`).allInnerTexts();
  const want = rows
    .map((r) => r.contentType)
    .filter((t): t is string => t !== undefined)
    .sort();
  assert.deepEqual(types.slice(0, Math.min(want.length, 10)), want.slice(0, Math.min(want.length, 10)));

  await page.click('[data-testid=columns-button]');
  await page.click('[data-testid=columns-reset]');
  await page.keyboard.press('Escape');
  assert.deepEqual(await headers(page), DEFAULT_HEADERS);
  await page.click(`${table} .vth[data-col=id]`); // back to the crawl's order
});

test('the exact status filter: 404 is a status of its own, a chip says so', { skip: skip ?? false }, async () => {
  const gone = rows
    .filter((r) => r.status === 404)
    .map((r) => r.url)
    .sort();
  const broken = rows
    .filter((r) => r.status === 404 || r.status === 500)
    .map((r) => r.url)
    .sort();
  assert.ok(gone.length >= 2 && broken.length > gone.length, 'the site has 404s and a 500');
  await exactStatus('404');
  await waitFor('the 404s', async () => (await urlTotal(page)) === gone.length, 10_000);
  assert.deepEqual(await tableUrls(page), gone);
  assert.deepEqual(
    await page.locator(`${table} .vrow .http`).allInnerTexts(),
    gone.map(() => '404'),
  );
  assert.equal(await page.innerText('[data-testid=chip-status] .chip-value'), '404');
  await exactStatus('404, 500');
  await waitFor('the 404s and the 500', async () => (await urlTotal(page)) === broken.length, 10_000);
  assert.deepEqual(await tableUrls(page), broken);
  // Not a status: said, and the filter stays as it was.
  await page.click('[data-testid=filter-status]');
  await page.fill('[data-testid=filter-status-codes]', '404, 4xx');
  await page.click('[data-testid=filter-status-apply]');
  assert.match(await page.innerText('.status-menu [role=alert]'), /"4xx" is not an HTTP status/);
  await page.keyboard.press('Escape');
  assert.equal(await urlTotal(page), broken.length);
  await page.click('[data-testid=chip-status] .chip-x');
  await everyUrl();
});

test('a finding, then a tree node: the node replaces the finding, and back', { skip: skip ?? false }, async () => {
  const expected = expectedAudit(site.origin, 'full');
  const code = 'SITEMAP_URL_4XX';
  await page.click('[data-tab=issues]');
  await page.click(`[data-testid=finding-${code}]`);
  await page.waitForSelector('[data-testid=finding-chip]');
  await waitFor('the finding', async () => (await urlTotal(page)) === expected[code]!.urls.length, 10_000);

  const main = site.url('/sitemap-main.xml');
  const listed = rows
    .filter((r) => r.inSitemaps.includes(main))
    .map((r) => r.url)
    .sort();
  await page.click('[data-tab=sitemaps]');
  await page.click(`[data-testid=sitemap-tree] .tree-name [title="${main}"]`);
  await page.waitForSelector('[data-testid=node-panel]');
  await openUrls();
  await waitFor('the sitemap chip alone', async () => JSON.stringify(await chipKinds(page)) === '["sitemap"]', 10_000);
  await waitFor('what the sitemap lists', async () => (await urlTotal(page)) === listed.length, 10_000);
  assert.deepEqual(await tableUrls(page), listed);

  // A search of the table's own stays when another node is picked; the screenshot shows both chips.
  await page.fill('[data-testid=url-search]', '.html');
  await waitFor('the search chip', async () => JSON.stringify(await chipKinds(page)) === '["sitemap","search"]', 10_000);
  await screenshot(page, 'url-table-chips');

  await page.click('[data-tab=issues]');
  await page.click(`[data-testid=finding-${code}]`);
  await waitFor('the finding chip alone', async () => JSON.stringify(await chipKinds(page)) === '["finding"]', 10_000);
  assert.equal(await page.getAttribute('[data-testid=finding-chip]', 'data-code'), code);
  await waitFor('the finding again', async () => (await urlTotal(page)) === expected[code]!.urls.length, 10_000);
  await page.click('[data-testid=finding-chip] .chip-x');
  await everyUrl();
});

test('no URL matches: the filters are named, with what removing each would show, and one click clears them', { skip: skip ?? false }, async () => {
  const main = site.url('/sitemap-main.xml');
  const listed = rows.filter((r) => r.inSitemaps.includes(main)).length;
  await page.click('[data-tab=sitemaps]');
  await page.click(`[data-testid=sitemap-tree] .tree-name [title="${main}"]`);
  await openUrls();
  await exactStatus('418');
  await page.waitForSelector('[data-testid=empty-filters]');
  assert.equal(await urlTotal(page), 0);
  assert.match(await page.innerText(`${table} .empty`), /No URLs match these filters[\s\S]*Listed by:\s*sitemap-main\.xml[\s\S]*Status:\s*418/);
  await waitFor('what each removal shows', async () => (await page.getAttribute('[data-testid=without-status]', 'data-total')) !== '', 10_000);
  assert.equal(await page.getAttribute('[data-testid=without-status]', 'data-total'), String(listed));
  await waitFor('the other removal', async () => (await page.getAttribute('[data-testid=without-sitemap]', 'data-total')) === '0', 10_000);
  await screenshot(page, 'url-table-empty');
  await page.click('[data-testid=empty-clear]');
  await everyUrl();
  assert.equal(await page.locator('[data-testid=filter-chips] .chip').count(), 0);
});

test("exports are named for the crawl, what they hold and the day; none takes an earlier one's name", { skip: skip ?? false }, async () => {
  const days = [localDate(new Date())];
  const named = async (click: () => Promise<void>) => {
    const [download] = await Promise.all([page.waitForEvent('download'), click()]);
    const text = await readFile((await download.path())!, 'utf8');
    return { name: download.suggestedFilename(), header: text.split(/\r?\n/)[0] };
  };
  await page.click('[data-tab=issues]');
  const first = await named(() => page.click('[data-testid=export-SITEMAP_URL_5XX]'));
  const second = await named(() => page.click('[data-testid=export-SITEMAP_URL_5XX]'));
  await page.click('[data-action=export]');
  const all = await named(() => page.click('[data-export=all]'));
  await openUrls();
  await exactStatus('404');
  await waitFor('the 404s', async () => (await urlTotal(page)) < rows.length, 10_000);
  await page.click('[data-action=export]');
  const filtered = await named(() => page.click('[data-export=filter]'));
  days.push(localDate(new Date()));
  const day = days.find((d) => first.name.endsWith(`${d}.csv`)) ?? days[0];
  assert.equal(first.name, `Audit-site-SITEMAP_URL_5XX-${day}.csv`);
  assert.equal(second.name, `Audit-site-SITEMAP_URL_5XX-${day}-2.csv`);
  assert.equal(all.name, `Audit-site-urls-${day}.csv`);
  assert.equal(filtered.name, `Audit-site-filtered-${day}.csv`);
  for (const f of [first, second, all, filtered]) assert.equal(f.header, CSV_COLUMNS.join(','), `${f.name}: the CSV's header`);
  assert.deepEqual(problems, [], 'no page errors or CSP violations');
});
