/**
 * The Issues view end to end, in headless Chromium through browser mode: a full crawl of the local
 * audit site (made with the service in the same state folder, before the server starts) shows each
 * finding's count as the site's data says; clicking a finding opens the URL table filtered to exactly
 * its URLs, with a removable chip; a sitemap finding lists its sitemaps; a finding exports as CSV;
 * the tree shows badges and the detail pane the URL's findings; a sitemap-listing run shows the
 * findings it cannot measure apart, with the reason. Screenshots of each.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { createCrawlService } from '../../electron/service/index.js';
import { FINDING_DEFINITIONS } from '../../electron/service/audit/definitions.js';
import { expectedAudit, expectedUrlBadges, startAuditSite, type AuditSite, type ExpectedFinding } from '../fixtures/audit-site.js';
import { parseCsv } from '../service/helpers.js';
import { buildRenderer, launchBrowser, openPage, screenshot, skipReason, startServer, tempDir, waitFor, type ServerProcess } from './harness.js';

const skip = skipReason();

let site: AuditSite;
let state: { path: string; remove(): Promise<void> };
let rendererDir: string;
let server: ServerProcess;
let browser: Browser;
let page: Page;
let problems: string[];
let expected: Record<string, ExpectedFinding>;
let listingId: string;

before(async () => {
  if (skip) return;
  site = await startAuditSite();
  state = await tempDir('spinneret-e2e-issues-');
  const [dir] = await Promise.all([buildRenderer(), crawlAuditSite()]);
  rendererDir = dir;
  expected = expectedAudit(site.origin, 'full');
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

/**
 * A sitemap-listing run, then a full crawl (the newest: the window opens on it) of the audit site, as
 * the service makes them, in the state folder the server will open.
 */
async function crawlAuditSite(): Promise<void> {
  const service = createCrawlService({ stateDir: state.path });
  const run = async (name: string, fetchPages: boolean) => {
    const c = service.create({
      name,
      settings: {
        startUrl: site.url('/'),
        fetchPages,
        retries: 0,
        timeoutMs: fetchPages ? 2000 : 10_000,
        connectTimeoutMs: 2000,
        concurrency: 6,
        perHostConcurrency: 6,
      },
    });
    await new Promise<void>((resolve) => {
      service.on('finished', (s) => s.id === c.id && resolve());
      void service.start(c.id);
    });
    return c.id;
  };
  listingId = await run('Audit site, sitemaps only', false);
  await new Promise((r) => setTimeout(r, 5)); // a later createdAt
  await run('Audit site', true);
  await service.close();
}

const urlTotal = async (p: Page) => Number(await p.getAttribute('[data-testid=url-count]', 'data-total'));
const tableUrls = (p: Page) => p.locator('[data-testid=url-table] .url-cell').evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? '').sort());
const withProblems = () => Object.entries(expected).filter(([, f]) => f.urls.length > 0);

test('the Issues view shows every finding with its count, grouped by severity', { skip: skip ?? false }, async () => {
  await page.waitForSelector('[data-tab=issues]');
  await page.click('[data-tab=issues]');
  // The server reopened the crawl: its audit is rebuilt in the background, and the view polls until it is complete.
  await page.waitForSelector('[data-testid=issues][data-computing=false] .issue-row');
  for (const [code, f] of Object.entries(expected)) {
    if (!f.measured) continue; // an unmeasured row has no count (below)
    assert.equal(await page.getAttribute(`.issue-row[data-code="${code}"]`, 'data-count'), String(f.urls.length), code);
  }
  // A full first crawl measures everything but what needs a previous crawl (the cross-crawl lastmod findings).
  const notMeasured = Object.entries(expected)
    .filter(([, f]) => !f.measured)
    .map(([c]) => c)
    .sort();
  assert.deepEqual(notMeasured, ['LASTMOD_FAKE_FRESH', 'LASTMOD_STALE']);
  const unmeasuredRows = await page
    .locator('[data-testid=issues-unmeasured] .issue-row')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-code') ?? '').sort());
  assert.deepEqual(unmeasuredRows, notMeasured);
  assert.match(await page.innerText('[data-testid=issues-unmeasured]'), /Needs a previous crawl: use Crawl again/);
  // Critical, then warnings, then notices; the tab counts the findings with problems, in red (there are critical ones).
  assert.deepEqual(await page.locator('.issue-group[data-severity]').evaluateAll((els) => els.map((e) => e.getAttribute('data-severity'))), [
    'critical',
    'warning',
    'notice',
  ]);
  assert.equal(await page.innerText('[data-testid=tab-count-issues]'), String(withProblems().length));
  assert.match((await page.getAttribute('[data-testid=tab-count-issues]', 'class'))!, /tab-count-error/);
  assert.match(await page.innerText('.issue-row[data-code=SITEMAP_URL_4XX]'), /Remove these URLs from the sitemaps/);
  await screenshot(page, 'issues');
});

test('clicking a URL finding filters the table to exactly its URLs, with a removable chip', { skip: skip ?? false }, async () => {
  for (const code of ['SITEMAP_URL_4XX', 'SITEMAP_URL_REDIRECT', 'INDEXABLE_NOT_IN_SITEMAP', 'HREFLANG_NOT_RECIPROCAL']) {
    await page.click('[data-tab=issues]');
    await page.click(`[data-testid=finding-${code}]`);
    await page.waitForSelector('[data-testid=finding-chip]');
    assert.equal(await page.getAttribute('[data-tab=urls]', 'aria-selected'), 'true');
    assert.equal(await page.getAttribute('[data-testid=finding-chip]', 'data-code'), code);
    await waitFor(`${code}: the filtered count`, async () => (await urlTotal(page)) === expected[code]!.urls.length, 10_000);
    await waitFor(`${code}: the filtered rows`, async () => JSON.stringify(await tableUrls(page)) === JSON.stringify(expected[code]!.urls), 10_000);
    if (code === 'SITEMAP_URL_4XX') await screenshot(page, 'issues-filtered-urls');
  }
  await page.click('[data-testid=finding-chip] .chip-x');
  await waitFor('the chip to go', async () => (await page.locator('[data-testid=finding-chip]').count()) === 0);
  await waitFor('every URL again', async () => (await urlTotal(page)) > expected.HREFLANG_NOT_RECIPROCAL!.urls.length, 10_000);
});

test('the detail pane lists the findings of a URL', { skip: skip ?? false }, async () => {
  await page.fill('[data-testid=url-search]', '/moved.html');
  await waitFor('one row', async () => (await urlTotal(page)) === 1, 10_000);
  await page.click('[data-testid=url-table] .url-cell');
  await page.waitForSelector('[data-testid=detail-findings] .detail-finding');
  const codes = await page.locator('[data-testid=detail-findings] .detail-finding').evaluateAll((els) => els.map((e) => e.getAttribute('data-code')));
  // It is listed and linked, and redirects; the catalogue's order (critical first).
  const moved = site.url('/moved.html');
  const want = FINDING_DEFINITIONS.filter((d) => expected[d.code]?.urls.includes(moved)).map((d) => d.code);
  assert.deepEqual(want, ['SITEMAP_URL_REDIRECT', 'LINK_TO_REDIRECT']);
  assert.deepEqual(codes, want);
  assert.match(await page.innerText('[data-testid=detail-findings]'), /Sitemap URLs that redirect|SITEMAP_URL_REDIRECT/);
  await screenshot(page, 'issues-url-detail');
  await page.keyboard.press('Escape');
  await page.fill('[data-testid=url-search]', '');
});

test('the detail pane shows which hreflang alternate is at fault: its code, its answer, its return link', { skip: skip ?? false }, async () => {
  const nextAfterFindings = new Map<string, string | null>();
  /** lang → the row's text after the URL (where it is declared, the answer, the return link), as shown. */
  const rowsOf = async (path: string) => {
    await page.fill('[data-testid=url-search]', path);
    await waitFor(`${path}: its row alone`, async () => JSON.stringify(await tableUrls(page)) === JSON.stringify([site.url(path)]), 10_000);
    await page.click('[data-testid=url-table] .url-cell');
    await page.waitForSelector(`[data-testid=url-detail] .detail-url a[href="${site.url(path)}"]`);
    await page.waitForSelector('[data-testid=detail-hreflang] tr');
    // With an hreflang finding, its alternates come right under the findings; otherwise in their place.
    const next = await page.evaluate(`document.querySelector('[data-testid=detail-findings]')?.nextElementSibling?.getAttribute('data-testid') ?? null`);
    nextAfterFindings.set(path, next as string | null);
    const rows = await page
      .locator('[data-testid=detail-hreflang] tr')
      .evaluateAll((els) => els.map((e) => [...e.querySelectorAll('td')].map((td) => (td.textContent ?? '').replace(/\s+/g, ' ').trim())));
    await page.keyboard.press('Escape');
    return rows;
  };
  // /en/ names /de/ (which names it back), /fr/ (which does not) and itself twice.
  assert.deepEqual(await rowsOf('/en/'), [
    ['en', site.url('/en/'), 'sitemap', '200', 'this URL'],
    ['de', site.url('/de/'), 'sitemap', '200', 'names it back'],
    ['fr', site.url('/fr/'), 'sitemap', '200', 'no return link'],
    ['x-default', site.url('/en/'), 'sitemap', '200', 'this URL'],
  ]);
  assert.ok(expected.HREFLANG_NOT_RECIPROCAL!.urls.includes(site.url('/en/')));
  // /es/ names /en/ with an invalid code, and /en/ does not name it back.
  assert.deepEqual(await rowsOf('/es/'), [
    ['es', site.url('/es/'), 'sitemap', '200', 'this URL'],
    ['en-UK invalid code', site.url('/en/'), 'sitemap', '200', 'no return link'],
  ]);
  // /de/ names /en/, which names it back: no hreflang finding, its alternates further down.
  assert.deepEqual(await rowsOf('/de/'), [
    ['de', site.url('/de/'), 'sitemap', '200', 'this URL'],
    ['en', site.url('/en/'), 'sitemap', '200', 'names it back'],
  ]);
  assert.deepEqual(Object.fromEntries(nextAfterFindings), { '/en/': 'detail-hreflang', '/es/': 'detail-hreflang', '/de/': 'detail-links' });
  await page.fill('[data-testid=url-search]', '');
});

test('a sitemap finding lists its sitemaps; a finding exports as CSV', { skip: skip ?? false }, async () => {
  await page.click('[data-tab=issues]');
  await page.click('[data-testid=finding-SITEMAP_NOT_200]');
  await page.waitForSelector('[data-testid=sitemaps-SITEMAP_NOT_200] a');
  const listed = await page.locator('[data-testid=sitemaps-SITEMAP_NOT_200] a').evaluateAll((els) => els.map((e) => e.getAttribute('href') ?? '').sort());
  assert.deepEqual(listed, expected.SITEMAP_NOT_200!.urls);
  await screenshot(page, 'issues-sitemap-finding');

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-SITEMAP_URL_5XX]')]);
  const [header, ...rows] = parseCsv(await readFile((await download.path())!, 'utf8'));
  assert.equal(header![0], 'url');
  assert.deepEqual(rows.map((r) => r[0]).sort(), expected.SITEMAP_URL_5XX!.urls);
});

test('the sitemap tree shows a badge per sitemap, coloured by its worst finding', { skip: skip ?? false }, async () => {
  await page.click('[data-tab=sitemaps]');
  const row = (path: string) =>
    page.locator('[data-testid=sitemap-tree] .vrow', { has: page.locator(`.tree-name [title="${site.url(path)}"]`) }).locator('[data-testid=node-issues]');
  await waitFor('the tree with badges', () => row('/sitemap-main.xml').count(), 10_000);
  // Five per-listing findings (one each) and the sitemap's URLs with findings of their own.
  const own = Object.values(expectedUrlBadges(site.origin, 'full', '/sitemap-main.xml')).reduce((a, n) => a + n, 0);
  assert.equal(await row('/sitemap-main.xml').getAttribute('data-total'), String(5 + own));
  assert.equal(await row('/sitemap-main.xml').getAttribute('data-severity'), 'critical', 'it lists a 404');
  assert.equal(await row('/sitemap-missing.xml').getAttribute('data-severity'), 'critical');
  await page.click(`[data-testid=sitemap-tree] .tree-name [title="${site.url('/sitemap-main.xml')}"]`);
  await page.waitForSelector('[data-testid=node-findings]');
  await screenshot(page, 'issues-sitemap-tree');
});

test('a sitemap-listing run: what needs page fetches is "not measured", greyed, with the reason', { skip: skip ?? false }, async () => {
  await page.click(`.crawl-item[data-crawl-id="${listingId}"]`);
  await page.click('[data-tab=issues]');
  await page.waitForSelector('[data-testid=issues][data-computing=false] [data-testid=issues-unmeasured] .issue-row');
  const listing = expectedAudit(site.origin, 'listing');
  const unmeasured = Object.entries(listing)
    .filter(([, f]) => !f.measured)
    .map(([code]) => code)
    .sort();
  const shown = await page.locator('[data-testid=issues-unmeasured] .issue-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-code') ?? '').sort());
  assert.deepEqual(shown, unmeasured);
  assert.match(await page.innerText('[data-testid=issues-unmeasured]'), /Pages were not fetched/);
  for (const [code, f] of Object.entries(listing).filter(([, x]) => x.measured)) {
    assert.equal(await page.getAttribute(`.issue-row[data-code="${code}"]`, 'data-count'), String(f.urls.length), code);
  }
  await page.evaluate(`document.querySelector('[data-testid=issues-unmeasured]').scrollIntoView()`);
  await screenshot(page, 'issues-not-measured');
  assert.deepEqual(problems, [], 'no page errors or CSP violations');
});
