/**
 * The Compare view end to end, in headless Chromium through browser mode: the realistic site is
 * crawled, changed (test/fixtures/real-site/changed.ts: pages added and removed, a redirect
 * introduced, a sitemap dropped and one added, a title, a canonical and lastmods changed) and
 * crawled again, both by the service in the state folder the server then opens. From the crawl list
 * the newer crawl opens its comparison with the older one: the summary's figures are the two specs'
 * difference, a field's count filters the table to its URLs, a sitemap's gained URLs and a finding's
 * entered URLs too, the before/after detail shows what changed, and Export CSV downloads exactly the
 * filtered rows. Screenshots of each part.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { createCrawlService } from '../../electron/service/index.js';
import type { CompareSummary } from '../../shared/model.js';
import { CHANGES, changedRealSite } from '../fixtures/real-site/changed.js';
import { startRealSite, type RealExpected, type RealSite } from '../fixtures/real-site/site.js';
import { parseCsv } from '../service/helpers.js';
import { buildRenderer, launchBrowser, openPage, screenshot, skipReason, startServer, tempDir, waitFor, type ServerProcess } from './harness.js';

const skip = skipReason();

let site: RealSite;
let state: { path: string; remove(): Promise<void> };
let rendererDir: string;
let server: ServerProcess;
let browser: Browser;
let page: Page;
let problems: string[];
let before1: RealExpected;
let after1: RealExpected;
let oldId: string;
let newId: string;
/** The service's own comparison of the two crawls: what the window must show. */
let truth: CompareSummary;

before(async () => {
  if (skip) return;
  // Validators on every answer, 304s to a recrawl's conditional requests.
  site = await startRealSite({ conditional: 'honour' });
  state = await tempDir('spinneret-e2e-compare-');
  const [dir] = await Promise.all([buildRenderer(), crawlTwice()]);
  rendererDir = dir;
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

/** The site crawled, changed, crawled again; and the service's comparison of the two. */
async function crawlTwice(): Promise<void> {
  const service = createCrawlService({ stateDir: state.path });
  const run = async (name: string) => {
    const c = service.create({ name, settings: { startUrl: site.url('/'), retries: 0, timeoutMs: 2000, concurrency: 6, perHostConcurrency: 6 } });
    await new Promise<void>((resolve) => {
      service.on('finished', (s) => s.id === c.id && resolve());
      void service.start(c.id);
    });
    return c.id;
  };
  try {
    before1 = site.expected;
    oldId = await run('Hearth & Acre');
    site.serve(changedRealSite(site.spec));
    after1 = site.expected;
    await new Promise((r) => setTimeout(r, 5)); // a later createdAt: the window opens on the newer crawl
    newId = await run('Hearth & Acre, weeks later');
    truth = await service.compare(oldId, newId);
  } finally {
    await service.close();
  }
}

const keys = (e: RealExpected) => new Set(Object.keys(e.urls).map((p) => (/^https?:/.test(p) ? p : site.url(p))));
const minus = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x)).sort();
const value = async (p: Page, testid: string) => Number(await p.getAttribute(`[data-testid=${testid}]`, 'data-value'));
const compareTotal = async (p: Page) => Number(await p.getAttribute('[data-testid=compare-count]', 'data-total'));
/** Dismisses the toasts first: the screenshot helper clicks them away, and a click outside closes an open menu. */
async function openMenu(p: Page, button: string, menu: string): Promise<void> {
  for (const close of await p.locator('.toast .icon-btn').all()) await close.click().catch(() => {});
  if (!(await p.isVisible(menu))) await p.click(button);
  await p.waitForSelector(menu);
}
const tableUrls = (p: Page) => p.locator('[data-testid=compare-table] .url-cell').evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? '').sort());

test('from the crawl list, the newer crawl compares with the older one: the summary is the two sites’ difference', { skip: skip ?? false }, async () => {
  await page.waitForSelector(`.crawl-item[data-crawl-id="${newId}"]`);
  await page.locator(`.crawl-item[data-crawl-id="${newId}"]`).hover();
  await page.click(`.crawl-item[data-crawl-id="${newId}"] [data-testid=sidebar-compare]`);
  await page.waitForSelector('[data-testid=compare-counts]');
  assert.equal(await page.inputValue('[data-testid=compare-old]'), oldId, 'the previous crawl of the site is the one before');
  assert.equal(await page.inputValue('[data-testid=compare-new]'), newId);
  assert.equal(await page.locator('[data-testid=compare-side-old]').count(), 1, 'the list marks the crawl before');

  const added = minus(keys(after1), keys(before1));
  const removed = minus(keys(before1), keys(after1));
  // The planted changes: two pages added (one a redirect's target), the two URLs only the dropped sitemap listed gone.
  for (const p of [CHANGES.addedPage, CHANGES.redirectTarget]) assert.ok(added.includes(site.url(p)), p);
  for (const p of CHANGES.removed) assert.ok(removed.includes(site.url(p)), p);
  assert.equal(await value(page, 'cmp-before'), keys(before1).size);
  assert.equal(await value(page, 'cmp-after'), keys(after1).size);
  assert.equal(await value(page, 'cmp-added'), added.length);
  assert.equal(await value(page, 'cmp-removed'), removed.length);
  assert.equal(await value(page, 'cmp-changed'), truth.urls.changed);
  assert.equal(await value(page, 'cmp-unchanged'), truth.urls.unchanged);
  // Per field: what the service counted, each a button; the title changed on /about/ at least.
  for (const f of truth.fields.filter((x) => x.changed > 0)) {
    assert.equal(await page.getAttribute(`[data-testid=compare-fields] [data-field=${f.field}]`, 'data-count'), String(f.changed), f.field);
  }
  assert.ok((truth.fields.find((f) => f.field === 'title')?.changed ?? 0) >= 1);
  // Sitemaps: campaigns.xml disappeared, extras.xml appeared.
  assert.ok((await value(page, 'cmp-sitemaps-removed')) >= 1);
  assert.ok((await value(page, 'cmp-sitemaps-added')) >= 1);
  // Findings before → after, worse ones marked as the service says.
  for (const f of truth.findings.filter((x) => x.measured && (x.before !== x.after || x.entered || x.left))) {
    const row = page.locator(`[data-testid=compare-findings] tr[data-code="${f.code}"]`);
    assert.equal(await row.getAttribute('data-before'), String(f.before), f.code);
    assert.equal(await row.getAttribute('data-after'), String(f.after), f.code);
    assert.equal(await row.getAttribute('data-worse'), String(truth.worse.includes(f.code)), f.code);
  }
  await screenshot(page, 'compare-summary');
});

test('a field’s count filters the changed URLs to it; the detail shows before and after', { skip: skip ?? false }, async () => {
  await page.click('[data-testid=compare-fields] [data-field=title]');
  await page.waitForSelector('[data-testid=compare-table]');
  await waitFor('the title rows', async () => (await compareTotal(page)) === truth.fields.find((f) => f.field === 'title')!.changed, 10_000);
  assert.equal(await page.getAttribute('.chip[data-chip=field]', 'data-chip'), 'field');
  const urls = await waitFor('the rows', async () => {
    const u = await tableUrls(page);
    return u.length ? u : null;
  });
  assert.ok(urls.includes(site.url(CHANGES.retitled)), urls.join('\n'));
  await page.click(`[data-testid=compare-table] .url-cell[title="${site.url(CHANGES.retitled)}"]`);
  await page.waitForSelector('[data-testid=compare-detail]');
  const title = page.locator('[data-testid=compare-detail] tr[data-field=title]');
  assert.equal(await title.getAttribute('data-changed'), 'true');
  assert.match(await title.innerText(), new RegExp(CHANGES.newTitle.replace(/[&]/g, '.')));
  await screenshot(page, 'compare-urls-detail');
});

test('the change filter shows exactly the removed URLs, and search narrows them', { skip: skip ?? false }, async () => {
  await page.click('[data-testid=compare-clear]');
  await page.selectOption('[data-testid=compare-filter-change]', 'removed');
  const removed = minus(keys(before1), keys(after1));
  await waitFor('the removed rows', async () => (await compareTotal(page)) === removed.length, 10_000);
  await waitFor('every removed URL', async () => JSON.stringify(await tableUrls(page)) === JSON.stringify(removed), 10_000);
  await page.fill('[data-testid=compare-search]', '/deals');
  await waitFor('the search', async () => (await compareTotal(page)) === 1, 10_000);
  await page.fill('[data-testid=compare-search]', '');
  await waitFor('the search cleared', async () => (await compareTotal(page)) === removed.length, 10_000);
});

test('Export CSV downloads one row per URL of the filter, with before and after columns', { skip: skip ?? false }, async () => {
  const total = await compareTotal(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-action=export-compare]')]);
  const rows = parseCsv(await readFile((await download.path())!, 'utf8'));
  const [head, ...body] = rows.filter((r) => r.length > 1 || r[0] !== '');
  assert.deepEqual(head!.slice(0, 3), ['url', 'change', 'fields']);
  assert.ok(head!.includes('status_before') && head!.includes('status_after'), head!.join(','));
  assert.equal(body.length, total);
  for (const r of body) assert.equal(r[1], 'removed', r.join(','));
  assert.deepEqual(body.map((r) => r[0]).sort(), minus(keys(before1), keys(after1)));
});

test('a sitemap’s gained URLs and a finding’s entered URLs filter the table', { skip: skip ?? false }, async () => {
  await page.click('[data-compare-tab=sitemaps]');
  await page.waitForSelector('[data-testid=compare-sitemaps] .vrow');
  const extras = site.url(CHANGES.addedSitemap);
  const row = page.locator('[data-testid=compare-sitemaps] .vrow', { has: page.locator(`.url-cell[title^="${extras}"]`) });
  assert.equal(await row.locator('[data-change]').getAttribute('data-change'), 'added');
  await screenshot(page, 'compare-sitemaps');
  const gained = truth.sitemaps.find((m) => m.url === extras)!.urlsAdded;
  assert.equal(gained, 2, 'extras.xml lists the added page and the moved listing');
  await row.locator('[data-testid=sitemap-gained]').click();
  await waitFor('the gained rows', async () => (await compareTotal(page)) === gained, 10_000);
  // The total comes before the rows' page: wait for the rows themselves.
  await waitFor('the added page among them', async () => (await tableUrls(page)).includes(site.url(CHANGES.addedPage)), 10_000);

  const moved = truth.findings.find((f) => f.subject === 'url' && f.entered > 0);
  if (moved) {
    await page.click('[data-compare-tab=summary]');
    await page.click(`[data-testid=entered-${moved.code}]`);
    await waitFor(`${moved.code}: the entered rows`, async () => (await compareTotal(page)) === moved.entered, 10_000);
    assert.equal(await page.getAttribute('.chip[data-chip=finding]', 'data-chip'), 'finding');
  }
  assert.deepEqual(problems, [], 'no page errors or CSP violations');
});

test(
  'Crawl again on the older crawl: 304s carried over, and a notice that findings got worse, with the comparison one click away',
  { skip: skip ?? false },
  async () => {
    // The site answers 304 to the recrawl's validators now: unchanged pages keep their results.
    site.setConditional('honour');
    await page.click(`.crawl-item[data-crawl-id="${oldId}"]`);
    await page.click('[data-action=recrawl]');
    await page.waitForSelector('[data-testid=recrawl-menu]');
    await screenshot(page, 'recrawl-menu');
    await page.click('[data-testid=recrawl-now]');
    await waitFor('the recrawl selected', async () => (await page.locator('.crawl-item').count()) === 3, 10_000);
    const recrawlId = (await page.getAttribute('.crawl-item.selected', 'data-crawl-id'))!;
    assert.notEqual(recrawlId, oldId);
    assert.match(await page.innerText('[data-testid=recrawl-of]'), /Recrawl of Hearth & Acre/);
    // The base crawl's findings are what the changed site made worse (the comparison above says which).
    const notice = await page.waitForSelector('[data-testid=recrawl-notice]', { timeout: 60_000 });
    const worse = (await notice.getAttribute('data-worse'))!.split(' ').sort();
    assert.deepEqual(worse, [...truth.worse].sort());
    // The Overview says how many URLs kept the base's result; that figure lists them.
    await page.click('[data-tab=overview]');
    const carried = await waitFor('the carried-over figure', async () =>
      Number((await page.getAttribute('[data-testid=recrawl-banner]', 'data-carried')) || 0),
    );
    await screenshot(page, 'recrawl-overview');
    await page.click('[data-testid=recrawl-banner] .link-btn');
    await waitFor('carried-over rows', async () => Number(await page.getAttribute('[data-testid=url-count]', 'data-total')) === carried, 10_000);
    assert.equal(await page.inputValue('[data-testid=filter-carried]'), 'yes');
    await page.selectOption('[data-testid=filter-carried]', 'any');
    await page.waitForSelector('[data-testid=url-table] [data-testid=carried-over]');
    await page.selectOption('[data-testid=filter-carried]', 'yes');
    await waitFor('carried-over rows only', async () => {
      const n = Number(await page.getAttribute('[data-testid=url-count]', 'data-total'));
      return n > 0 && n < keys(after1).size;
    });
    await screenshot(page, 'recrawl-carried-over');
    // The sitemaps answered 304: not read again, their entries carried over; each node shows its lastmod trust.
    await page.click('[data-tab=sitemaps]');
    await page.waitForSelector('[data-testid=sitemap-tree] [data-testid=node-carried-over]');
    await screenshot(page, 'recrawl-sitemap-tree');
    await page.click('[data-testid=recrawl-notice] button.btn');
    await page.waitForSelector('[data-testid=compare-counts]');
    assert.equal(await page.inputValue('[data-testid=compare-old]'), oldId);
    assert.equal(await page.inputValue('[data-testid=compare-new]'), recrawlId);
    assert.equal(await page.locator('[data-testid=compare-worse]').count(), 1);
  },
);

test('a schedule: daily, changed only, with its next run; then off', { skip: skip ?? false }, async () => {
  await page.click(`.crawl-item[data-crawl-id="${newId}"]`);
  await openMenu(page, '[data-action=recrawl]', '[data-testid=recrawl-menu]');
  await page.check('[data-testid=recrawl-changed-only]');
  const before = Date.now();
  await page.click('[data-schedule=daily]');
  await page.waitForSelector('[data-testid=schedule-next]');
  const at = Number(await page.getAttribute('[data-testid=schedule-next]', 'data-at'));
  assert.ok(at > before && at <= Date.now() + 24 * 3_600_000 + 60_000, `next run at ${new Date(at).toISOString()}`);
  assert.match(await page.innerText('[data-testid=schedule-note]'), /Recrawls daily, changed URLs only/);
  assert.match(await page.innerText('[data-action=recrawl]'), /daily/);
  await openMenu(page, '[data-action=recrawl]', '[data-testid=recrawl-menu]');
  await screenshot(page, 'recrawl-schedule');
  await openMenu(page, '[data-action=recrawl]', '[data-testid=recrawl-menu]');
  await page.click('[data-schedule=off]');
  await waitFor('the schedule off', async () => /Not scheduled/.test(await page.innerText('[data-testid=schedule-note]')), 10_000);
  assert.equal(await page.locator(`.crawl-item[data-crawl-id="${newId}"] [data-mark=schedule]`).count(), 0);
  assert.deepEqual(problems, [], 'no page errors or CSP violations');
});
