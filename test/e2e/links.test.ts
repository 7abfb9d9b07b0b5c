/**
 * Links, click depth, indexability and the page findings in the window (issue 22), end to end in
 * headless Chromium through browser mode, on a crawl of the realistic site: the link columns are
 * chosen and show what the rows hold ("none" for a URL no link reaches); the Page data filter narrows
 * the table to the planted noindex pages; a page finding exports as CSV; a broken URL's inlinks are
 * listed, open the linking page, and export as CSV; the Overview's indexability card and click-depth
 * chart match the service's figures. "No click depth" (the checkbox, the chart's "none" bar) lists the
 * URLs no chain of links reaches. Screenshots of each view (copied to $SHOTS_DIR when set).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { UrlRow } from '../../shared/model.js';
import { localDate } from '../../electron/renderer-host/downloads.js';
import { SPECIAL, startRealSite, type RealSite } from '../fixtures/real-site/site.js';
import { parseCsv } from '../service/helpers.js';
import {
  buildRenderer,
  crawlToEnd,
  launchBrowser,
  openPage,
  screenshot,
  skipReason,
  startServer,
  tempDir,
  urlTotal,
  waitFor,
  type ServerProcess,
} from './harness.js';

const skip = skipReason();
const CRAWL = 'Hearth links';

let site: RealSite;
let state: { path: string; remove(): Promise<void> };
let server: ServerProcess;
let browser: Browser;
let page: Page;
let problems: string[];
/** The service's rows of the site, by path: what the window must show. */
let rows: Map<string, UrlRow>;
/** Every URL of the crawl (the off-site ones too). */
let allRows: UrlRow[];

before(async () => {
  if (skip) return;
  site = await startRealSite();
  state = await tempDir('spinneret-e2e-links-');
  const settings = { startUrl: site.url('/'), retries: 0, timeoutMs: 2000, connectTimeoutMs: 2000, concurrency: 8, perHostConcurrency: 8 };
  const [rendererDir, all] = await Promise.all([buildRenderer(), crawlToEnd(state.path, CRAWL, settings)]);
  allRows = all;
  rows = new Map(all.filter((r) => r.url.startsWith(site.origin)).map((r) => [r.url.slice(site.origin.length), r]));
  server = await startServer({ stateDir: state.path, rendererDir });
  browser = await launchBrowser();
  ({ page, problems } = await openPage(browser, server.url));
  await page.waitForSelector('[data-tab=urls]');
});

after(async () => {
  if (skip) return;
  await browser?.close();
  await server?.stop();
  await site?.close();
  await state?.remove();
});

const table = '[data-testid=url-table]';

/** A screenshot in test-artifacts/screenshots, and in $SHOTS_DIR too when it is set. */
async function shot(name: string): Promise<void> {
  const path = await screenshot(page, name);
  const dir = process.env.SHOTS_DIR;
  if (dir) {
    await mkdir(dir, { recursive: true });
    await copyFile(path, join(dir, basename(path)));
  }
}

/** Every URL the table lists under its filter (few enough to be on screen at once), as paths. */
async function listedPaths(): Promise<string[]> {
  await waitFor('the rows', async () => (await page.locator(`${table} .vrow.placeholder`).count()) === 0, 10_000);
  const urls = await page.locator(`${table} .vrow .url-cell`).evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? ''));
  return urls.map((u) => u.slice(site.origin.length)).sort();
}

async function search(text: string, expectTotal?: number): Promise<void> {
  await page.fill('[data-testid=url-search]', text);
  await waitFor(
    `the table for "${text}"`,
    async () => (expectTotal === undefined ? true : (await urlTotal(page)) === expectTotal) && !(await page.locator('.loading-rows').count()),
    10_000,
  );
}

/** The cell of one column in the row of one path. */
async function cellOf(path: string, col: string): Promise<string> {
  await search(site.url(path));
  const row = page.locator(`${table} .vrow`, { has: page.locator(`.url-cell[title="${site.url(path)}"]`) });
  await waitFor(`the row of ${path}`, async () => (await row.count()) === 1, 10_000);
  return row.locator(`.vcell[data-col=${col}]`).innerText();
}

async function download(click: () => Promise<void>): Promise<{ name: string; csv: string[][] }> {
  const [d] = await Promise.all([page.waitForEvent('download'), click()]);
  return { name: d.suggestedFilename(), csv: parseCsv(await readFile((await d.path())!, 'utf8')) };
}

test('the link columns are chosen, sort, and show what the rows hold; no click depth reads "none", never 0', { skip: skip ?? false }, async () => {
  await page.click('[data-tab=urls]');
  await page.click('[data-testid=columns-button]');
  for (const col of ['inlinks', 'uniqueInlinks', 'outlinksInternal', 'outlinksExternal', 'clickDepth'])
    assert.equal(await page.locator(`[data-testid=columns-menu] [data-col="${col}"]`).count(), 1, `the chooser offers ${col}`);
  for (const col of ['inlinks', 'uniqueInlinks', 'clickDepth']) await page.check(`[data-testid=columns-menu] [data-col="${col}"]`);
  // Out of the way, so the link columns are on screen beside the URL.
  for (const col of ['source', 'contentType', 'lastmod', 'title']) await page.uncheck(`[data-testid=columns-menu] [data-col="${col}"]`);
  await page.keyboard.press('Escape');

  const home = rows.get('/')!;
  assert.equal(home.clickDepth, 0, 'the service: the start URL is at click depth 0');
  assert.equal(await cellOf('/', 'clickDepth'), '0');
  const terms = rows.get(SPECIAL.notFoundFooter)!;
  assert.ok((terms.uniqueInlinks ?? 0) > 10, `the footer's 404 is linked from many pages (${terms.uniqueInlinks})`);
  assert.equal(await cellOf(SPECIAL.notFoundFooter, 'inlinks'), terms.inlinks!.toLocaleString('en-US'));
  assert.equal(await cellOf(SPECIAL.notFoundFooter, 'uniqueInlinks'), terms.uniqueInlinks!.toLocaleString('en-US'));
  assert.equal(await cellOf(SPECIAL.notFoundFooter, 'clickDepth'), String(terms.clickDepth));
  // Listed by a sitemap only: no chain of links reaches it.
  const listedOnly = rows.get(SPECIAL.discontinuedProduct)!;
  assert.equal(listedOnly.clickDepth, undefined);
  assert.equal(await cellOf(SPECIAL.discontinuedProduct, 'clickDepth'), 'none');

  // Sorted by inlinks, most first: the footer's and header's targets lead.
  await search('', allRows.length);
  await page.click(`${table} .vth[data-col=inlinks]`);
  await page.click(`${table} .vth[data-col=inlinks]`);
  await waitFor(
    'sorted by inlinks, descending',
    async () => (await page.getAttribute(`${table} .vth[data-col=inlinks]`, 'aria-sort')) === 'descending',
    10_000,
  );
  // The rows come in after the header says so: wait for their cells, not only for no placeholder.
  const most = allRows.map((r) => r.inlinks ?? 0).sort((a, b) => b - a);
  const firstFive = () =>
    page
      .locator(`${table} .vrow:not(.placeholder) .vcell[data-col=inlinks]`)
      .evaluateAll((els) => els.slice(0, 5).map((e) => Number((e.textContent ?? '').replace(/,/g, ''))));
  await waitFor('the sorted rows', async () => JSON.stringify(await firstFive()) === JSON.stringify(most.slice(0, 5)), 10_000).catch(() => {});
  assert.deepEqual(await firstFive(), most.slice(0, 5));

  // A click-depth range: the chip says it, and the rows are those of the service at depth 1 or 2.
  await page.click('[data-testid=filter-page]');
  await page.fill('[data-testid=filter-clickdepth-min]', '1');
  await page.fill('[data-testid=filter-clickdepth-max]', '2');
  await page.click('[data-testid=filter-clickdepth-apply]');
  await page.keyboard.press('Escape');
  const near = allRows.filter((r) => r.clickDepth === 1 || r.clickDepth === 2).length;
  await waitFor(`${near} URLs at click depth 1 or 2`, async () => (await urlTotal(page)) === near, 10_000);
  assert.equal((await page.locator('[data-testid=chip-clickDepth]').innerText()).replace(/\s+/g, ' ').trim(), 'Click depth: 1 to 2');
  await waitFor('the rows', async () => (await page.locator(`${table} .vrow.placeholder`).count()) === 0, 10_000);
  const depthsShown = await page.locator(`${table} .vrow .vcell[data-col=clickDepth]`).allInnerTexts();
  assert.ok(depthsShown.length > 0 && depthsShown.every((d) => d === '1' || d === '2'), depthsShown.join(' '));
  await shot('links-table-columns');

  // "No click depth" in place of the range: the URLs no chain of links reaches, as the service says.
  await page.click('[data-testid=filter-page]');
  await page.check('[data-testid=filter-noclickdepth]');
  const unreached = allRows.filter((r) => r.clickDepth === undefined).length;
  assert.ok(unreached > 0, 'the site has URLs listed only by sitemaps');
  await waitFor(`${unreached} URLs without a click depth`, async () => (await urlTotal(page)) === unreached, 10_000);
  assert.equal(await page.inputValue('[data-testid=filter-clickdepth-min]'), '', 'checking it clears the range');
  assert.equal(await page.inputValue('[data-testid=filter-clickdepth-max]'), '');
  assert.equal((await page.locator('[data-testid=chip-clickDepth]').innerText()).replace(/\s+/g, ' ').trim(), 'Click depth: none');
  assert.match(await page.innerText('[data-testid=filter-page]'), /Page data:\s*1 filter/);
  await shot('links-page-filters-no-depth');
  await waitFor('the rows', async () => (await page.locator(`${table} .vrow.placeholder`).count()) === 0, 10_000);
  const noneShown = await page.locator(`${table} .vrow .vcell[data-col=clickDepth]`).allInnerTexts();
  assert.ok(noneShown.length > 0 && noneShown.every((d) => d === 'none'), noneShown.join(' '));
  // A range unchecks it again.
  await page.fill('[data-testid=filter-clickdepth-max]', '0');
  await page.click('[data-testid=filter-clickdepth-apply]');
  await waitFor('the start URL alone at depth 0', async () => (await urlTotal(page)) === 1, 10_000);
  assert.equal(await page.isChecked('[data-testid=filter-noclickdepth]'), false, 'a range unchecks it');
  await page.keyboard.press('Escape');
  assert.equal((await page.locator('[data-testid=chip-clickDepth]').innerText()).replace(/\s+/g, ' ').trim(), 'Click depth: at most 0');
  await page.click('[data-testid=clear-filters]');
});

test('the Page data filter: non-indexable for the reason noindex lists exactly the planted noindex pages', { skip: skip ?? false }, async () => {
  const planted = Object.entries(site.expected.fields)
    .filter(([, f]) => f.indexabilityReason === 'noindex')
    .map(([p]) => p)
    .sort();
  assert.ok(planted.length >= 4, `the site plants noindex pages (${planted.length})`);
  await page.click('[data-testid=columns-button]');
  await page.check('[data-testid=columns-menu] [data-col="indexabilityReason"]');
  await page.keyboard.press('Escape');
  await page.click('[data-testid=filter-page]');
  await page.click('[data-testid=filter-indexability-non-indexable]');
  await waitFor('the non-indexable URLs', async () => (await page.locator('[data-testid=chip-indexability]').innerText()).includes('Non-indexable'), 10_000);
  const nonIndexable = allRows.filter((r) => r.indexability === 'non-indexable').length;
  await waitFor(`${nonIndexable} non-indexable URLs`, async () => (await urlTotal(page)) === nonIndexable, 10_000);
  await page.check('[data-testid=filter-reasons] input[data-value=noindex]');
  await waitFor(`${planted.length} noindex URLs`, async () => (await urlTotal(page)) === planted.length, 10_000);
  assert.equal((await page.locator('[data-testid=chip-indexability]').innerText()).replace(/\s+/g, ' ').trim(), 'Indexability: Non-indexable (noindex)');
  await page.keyboard.press('Escape');
  assert.deepEqual(await listedPaths(), planted);
  const reasons = await page.locator(`${table} .vrow .vcell[data-col=indexabilityReason]`).allInnerTexts();
  assert.deepEqual([...new Set(reasons)], ['noindex']);
  await shot('links-table-filtered');

  // Another page filter stacks as a chip of its own; the empty table says which filters are applied.
  await page.click('[data-testid=filter-page]');
  await page.fill('[data-testid=filter-clickdepth-min]', '40');
  await page.click('[data-testid=filter-clickdepth-apply]');
  await page.keyboard.press('Escape');
  await waitFor('no URL at click depth 40 or more', async () => (await urlTotal(page)) === 0, 10_000);
  assert.equal((await page.locator('[data-testid=chip-clickDepth]').innerText()).replace(/\s+/g, ' ').trim(), 'Click depth: at least 40');
  await waitFor(
    'the empty table names its filters',
    async () => (await page.getAttribute('[data-testid=without-clickDepth]', 'data-total')) === String(planted.length),
    10_000,
  );
  await shot('links-table-empty');
  await page.click('[data-testid=clear-filters]');
  await waitFor('every URL', async () => (await urlTotal(page)) === allRows.length, 10_000);
});

test(
  "a broken internal link: the finding exports as CSV, and its target's inlinks are listed, open their page and export",
  { skip: skip ?? false },
  async () => {
    await page.click('[data-tab=issues]');
    const finding = page.locator('[data-testid=finding-BROKEN_INTERNAL_LINK]');
    await finding.waitFor({ timeout: 15_000 });
    // The targets: crawled URLs answering 4xx/5xx (or failing) that crawled pages link to.
    const targets = [...rows.entries()]
      .filter(([, r]) => (r.uniqueInlinks ?? 0) > 0 && ((r.status ?? 0) >= 400 || r.state === 'error'))
      .map(([p]) => p)
      .sort();
    assert.ok(targets.includes(SPECIAL.notFoundFooter) && targets.includes(SPECIAL.brokenProduct), `the planted broken targets: ${targets.join(' ')}`);
    // The list may still be catching up with the finished crawl's audit: its count is waited for.
    const countOf = (code: string) => page.getAttribute(`.issue-row[data-code=${code}]`, 'data-count', { timeout: 1000 }).catch(() => null);
    await waitFor('the broken-link count', async () => (await countOf('BROKEN_INTERNAL_LINK')) === String(targets.length), 10_000);
    await shot('links-issues');
    // The page findings sit with the sitemap ones: each a row with a severity, a count and what to do.
    const pageCodes = [
      'BROKEN_INTERNAL_LINK',
      'LINK_TO_REDIRECT',
      'LINKED_NON_INDEXABLE',
      'MISSING_TITLE',
      'DUPLICATE_TITLE',
      'MISSING_META_DESCRIPTION',
      'DUPLICATE_META_DESCRIPTION',
      'MISSING_H1',
      'MULTIPLE_H1',
    ];
    for (const code of pageCodes) {
      const row = page.locator(`.issue-group .issue-row[data-code=${code}]`);
      assert.equal(await row.count(), 1, `${code} is listed`);
      assert.ok((await row.locator('.issue-expl').first().innerText()).length > 20, `${code} says what to do`);
    }
    // The planted page without an H1 is one of MISSING_H1's URLs (the row counts it).
    const missingH1 = Object.values(site.expected.fields).filter((f) => f.h1Count !== undefined && (f.h1Count === 0 || f.h1 === '')).length;
    await waitFor('the missing-H1 count', async () => (await countOf('MISSING_H1')) === String(missingH1), 10_000);
    await page.locator('.issue-row[data-code=MISSING_H1]').scrollIntoViewIfNeeded();
    await shot('links-issues-page-findings');
    const exported = await download(() => page.click('[data-testid=export-BROKEN_INTERNAL_LINK]'));
    const day = localDate(new Date());
    assert.match(exported.name, new RegExp(`^Hearth-links-BROKEN_INTERNAL_LINK-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
    assert.ok(exported.name.includes(day) || exported.name.includes(localDate(new Date(Date.now() - 60_000))));
    const [header, ...lines] = exported.csv.filter((r) => r.length > 1);
    const urlCol = header!.indexOf('url');
    assert.deepEqual(lines.map((l) => l[urlCol]!.slice(site.origin.length)).sort(), targets);
    // Links CSV: every link to those targets, with the page it is on: as many as their inlinks.
    const linksOut = await download(() => page.click('[data-testid=export-links-BROKEN_INTERNAL_LINK]'));
    assert.match(linksOut.name, /^Hearth-links-BROKEN_INTERNAL_LINK-links-\d{4}-\d{2}-\d{2}\.csv$/);
    const [linksHeader, ...findingLinks] = linksOut.csv.filter((r) => r.length > 1);
    assert.deepEqual(linksHeader, ['source', 'target', 'anchor', 'target_status', 'nofollow', 'external']);
    assert.equal(
      findingLinks.length,
      targets.reduce((n, p) => n + rows.get(p)!.inlinks!, 0),
    );
    assert.deepEqual([...new Set(findingLinks.map((l) => l[1]!.slice(site.origin.length)))].sort(), targets);

    // One click from the finding: its URLs; selecting one shows the pages that link to it.
    await finding.click();
    await waitFor("the finding's URLs", async () => (await urlTotal(page)) === targets.length, 10_000);
    await page.click(`${table} .url-cell[title="${site.url(SPECIAL.notFoundFooter)}"]`);
    const terms = rows.get(SPECIAL.notFoundFooter)!;
    await page.waitForSelector('[data-testid=detail-links] [data-testid=links-total]');
    assert.equal(await page.getAttribute('[data-testid=links-total]', 'data-total'), String(terms.inlinks));
    const first = page.locator('[data-testid=link-row]').first();
    assert.equal(await first.getAttribute('data-anchor'), 'Terms', 'the footer link says "Terms"');
    const pages = await page.locator('[data-testid=link-row]').count();
    assert.equal(pages, Math.min(25, terms.inlinks!), 'a page of 25 links at most');
    if (terms.inlinks! > 25) {
      await page.click('[data-testid=links-next]');
      await waitFor('the second page', async () => (await page.innerText('[data-testid=links-total]')).startsWith('26–'), 10_000);
      await page.click('[data-testid=links-prev]');
      await waitFor('the first page again', async () => (await page.innerText('[data-testid=links-total]')).startsWith('1–'), 10_000);
    }
    await shot('links-detail-inlinks');

    const inlinks = await download(() => page.click('[data-testid=links-export]'));
    assert.match(inlinks.name, new RegExp(`^Hearth-links-inlinks-${terms.id}-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
    const [h, ...links] = inlinks.csv.filter((r) => r.length > 1);
    assert.deepEqual(h, ['source', 'target', 'anchor', 'target_status', 'nofollow', 'external']);
    assert.equal(links.length, terms.inlinks);
    assert.deepEqual([...new Set(links.map((l) => l[1]))], [site.url(SPECIAL.notFoundFooter)]);
    assert.deepEqual([...new Set(links.map((l) => l[3]))], ['404']);
    assert.equal(new Set(links.map((l) => l[0])).size, terms.uniqueInlinks, 'one source per linking page');

    // An inlink's page opens in the detail pane: its own outlinks list the 404 with its status.
    const from = (await first.getAttribute('data-url'))!;
    await first.locator('.link-url').click();
    await waitFor(
      `the detail of ${from}`,
      async () =>
        (await page
          .locator('[data-testid=url-detail] .detail-url')
          .innerText()
          .catch(() => '')) === from,
      10_000,
    );
    await page.click('[data-testid=links-tab-out]');
    const broken = page.locator(`[data-testid=link-row][data-url="${site.url(SPECIAL.notFoundFooter)}"]`);
    const out = rows.get(from.slice(site.origin.length))!;
    if (out.outlinksInternal! + (out.outlinksExternal ?? 0) <= 25) {
      await broken.first().waitFor({ timeout: 10_000 });
      assert.equal(await broken.first().getAttribute('data-status'), '404');
    }
    await shot('links-detail-outlinks');
    // Back: the 404 whose inlink opened this page.
    await page.click('[data-testid=detail-back]');
    await waitFor(
      'the detail of the 404 again',
      async () =>
        (await page
          .locator('[data-testid=url-detail] .detail-url')
          .innerText()
          .catch(() => '')) === site.url(SPECIAL.notFoundFooter),
      10_000,
    );
    assert.equal(await page.locator('[data-testid=detail-back]').count(), 0, 'nothing further back');
    await page.click('[data-testid=url-detail] [aria-label="Close details"]');
  },
);

test('the Overview: indexability by reason and the click-depth chart, each clickable into the table', { skip: skip ?? false }, async () => {
  await page.click('[data-tab=overview]');
  await page.waitForSelector('[data-testid=indexability-card] [data-testid=idx-indexable]');
  const all = allRows;
  const indexable = all.filter((r) => r.indexability === 'indexable').length;
  const non = all.filter((r) => r.indexability === 'non-indexable').length;
  assert.equal(await page.getAttribute('[data-testid=idx-indexable]', 'data-value'), String(indexable));
  assert.equal(await page.getAttribute('[data-testid=idx-non-indexable]', 'data-value'), String(non));
  const depths = new Map<number, number>();
  for (const r of all) if (r.clickDepth !== undefined) depths.set(r.clickDepth, (depths.get(r.clickDepth) ?? 0) + 1);
  const bars = await page
    .locator('[data-testid=depth-card] .depth-bar')
    .evaluateAll((els) => els.map((e) => [e.getAttribute('data-depth'), Number(e.getAttribute('data-value'))]));
  const deepest = Math.max(...depths.keys());
  for (let d = 0; d <= deepest; d++) assert.deepEqual(bars[d], [String(d), depths.get(d) ?? 0], `depth ${d}`);
  await shot('links-overview');

  // A reason opens the table filtered by it.
  const noindex = all.filter((r) => r.indexabilityReason === 'noindex').length;
  await page.locator('[data-testid=idx-reasons] .barlist-row', { hasText: 'noindex' }).click();
  await waitFor('the table filtered by noindex', async () => (await urlTotal(page)) === noindex, 10_000);
  assert.equal(await page.locator('[data-testid=filter-chips] .chip').count(), 1);
  // A depth's bar opens its URLs.
  await page.click('[data-tab=overview]');
  await page.locator('[data-testid=depth-card] .depth-bar[data-depth="1"]').click();
  await waitFor('the URLs at click depth 1', async () => (await urlTotal(page)) === depths.get(1), 10_000);
  assert.equal((await page.locator('[data-testid=chip-clickDepth]').innerText()).replace(/\s+/g, ' ').trim(), 'Click depth: 1');
  // The "none" bar lists the URLs without a click depth, in place of the depth.
  const unreached = all.filter((r) => r.clickDepth === undefined).length;
  await page.click('[data-tab=overview]');
  const noneBar = page.locator('[data-testid=depth-card] .depth-bar[data-depth="none"]');
  assert.equal(await noneBar.getAttribute('data-value'), String(unreached), 'the none bar counts them');
  assert.equal(await noneBar.getAttribute('role'), 'button', 'and is clickable');
  assert.match((await noneBar.locator('title').textContent()) ?? '', /No click depth: .* \(click to list them\)$/);
  await noneBar.click();
  await waitFor('the URLs without a click depth', async () => (await urlTotal(page)) === unreached, 10_000);
  assert.equal((await page.locator('[data-testid=chip-clickDepth]').innerText()).replace(/\s+/g, ' ').trim(), 'Click depth: none');
  assert.equal(await page.locator('[data-testid=filter-chips] .chip').count(), 1, 'the depth 1 filter is gone');
  await page.click('[data-testid=clear-filters]');
  assert.deepEqual(problems, [], 'no page errors or CSP violations');
});

test('the export menu exports every link of the crawl', { skip: skip ?? false }, async () => {
  await page.click('[data-action=export]');
  const all = await download(() => page.click('[data-export=links]'));
  assert.match(all.name, /^Hearth-links-links-\d{4}-\d{2}-\d{2}\.csv$/);
  const [h, ...links] = all.csv.filter((r) => r.length > 1);
  assert.deepEqual(h, ['source', 'target', 'anchor', 'target_status', 'nofollow', 'external']);
  // Every outlink of every page is one row.
  const total = allRows.reduce((a, r) => a + (r.outlinksInternal ?? 0) + (r.outlinksExternal ?? 0), 0);
  assert.equal(links.length, total);
  assert.ok(
    links.some((l) => l[5] === 'true' || l[5] === '1'),
    'the off-site links are marked external',
  );
});

test('the Errors view counts the pages that answered 4xx and 5xx, each one click from the table', { skip: skip ?? false }, async () => {
  await page.click('[data-tab=errors]');
  for (const cls of ['4xx', '5xx'] as const) {
    const want = allRows.filter((r) => r.status !== undefined && String(r.status)[0] === cls[0]).length;
    assert.ok(want > 0, `the site plants ${cls} pages`);
    const chip = page.locator(`[data-testid=errors-${cls}]`);
    await waitFor(`${want} ${cls} counted`, async () => (await chip.locator('.summary-num').innerText()).trim() === String(want), 10_000);
    await chip.click();
    await waitFor(`the ${cls} URLs in the table`, async () => (await urlTotal(page)) === want, 10_000);
    const statuses = await page.locator(`${table} .vrow .vcell[data-col=status]`).allInnerTexts();
    assert.ok(statuses.length === want && statuses.every((t) => t.trim()[0] === cls[0]), statuses.join());
    await page.click('[data-testid=clear-filters]');
    await page.click('[data-tab=errors]');
  }
  await shot('errors-status-chips');
});
