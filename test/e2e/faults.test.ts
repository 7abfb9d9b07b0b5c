/**
 * Bad input in the window, in headless Chromium through browser mode: the new-crawl form's
 * timeouts, and a sitemap with more problems than its node stores, whose detail shows the count of
 * every code and the problem that ended it. Screenshots of both.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startLocalServer, type LocalServer } from '../fixtures/server.js';
import { buildRenderer, launchBrowser, openPage, screenshot, skipReason, startServer, tempDir, waitFor, type ServerProcess } from './harness.js';

const skip = skipReason();

let site: LocalServer;
let state: { path: string; remove(): Promise<void> };
let rendererDir: string;
let server: ServerProcess;
let browser: Browser;
let page: Page;
let problems: string[];

/** 150 entries with a bad lastmod, 150 with a bad priority, then the document breaks off. */
function troubled(origin: string): string {
  let s = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n';
  for (let i = 0; i < 150; i++) s += `<url><loc>${origin}/l/${i}</loc><lastmod>someday</lastmod></url>\n`;
  for (let i = 0; i < 150; i++) s += `<url><loc>${origin}/q/${i}</loc><priority>7</priority></url>\n`;
  return s + `<url><loc>${origin}/last`;
}

before(async () => {
  if (skip) return;
  rendererDir = await buildRenderer();
  site = await startLocalServer(({ res, path }, s) => {
    const body = path === '/robots.txt' ? `User-agent: *\nAllow: /\nSitemap: ${s.origin}/bad.xml\n` : path === '/bad.xml' ? troubled(s.origin) : null;
    res.writeHead(body === null ? 404 : 200, { 'content-type': path === '/bad.xml' ? 'application/xml' : 'text/plain' });
    res.end(body ?? 'not found');
  });
  state = await tempDir('spinneret-e2e-faults-');
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

test('the new-crawl form has the idle and sitemap timeouts, checked as you type', { skip: skip ?? false }, async () => {
  await page.waitForSelector('#f-start');
  await page.fill('#f-start', site.origin + '/');
  await page.click('.advanced summary');
  assert.equal(await page.inputValue('#f-idleTimeoutMs'), '30000');
  assert.equal(await page.inputValue('#f-sitemapTimeoutMs'), '600000');
  await page.fill('#f-sitemapTimeoutMs', '10');
  assert.match(await page.locator('.field-error').first().innerText(), /Sitemap timeout must be between 1,000 and 3,600,000/);
  await page.fill('#f-sitemapTimeoutMs', '900,000');
  await page.fill('#f-idleTimeoutMs', '20000');
  assert.equal(await page.locator('.field-error').count(), 0);
  await page.click('[data-mode=sitemaps]');
  assert.equal(await page.getAttribute('[data-mode=sitemaps]', 'aria-checked'), 'true');
  await page.fill('#f-name', 'Hostile sitemap');
  await page.locator('#f-sitemapTimeoutMs').scrollIntoViewIfNeeded();
  await screenshot(page, 'new-crawl-timeouts');
  await page.click('[data-testid=create-start]');
  await waitFor('the crawl to finish', async () => (await statusOf(page)) === 'finished', 60_000, 250);
});

test("a sitemap's detail counts every problem by code and keeps the one that ended it", { skip: skip ?? false }, async () => {
  await page.click('[data-tab=sitemaps]');
  const row = page.locator('[data-testid=sitemap-tree] .vrow', { has: page.locator(`.tree-name [title="${site.origin}/bad.xml"]`) });
  await waitFor('the sitemap in the tree', () => row.count());
  await row.click();
  await page.waitForSelector('[data-testid=node-panel]');
  const counts = Object.fromEntries(
    await page.locator('[data-testid=problem-group]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-code'), Number(e.getAttribute('data-count'))])),
  );
  assert.deepEqual(counts, { INVALID_LASTMOD: 150, TOO_MANY_PROBLEMS: 1, MALFORMED_XML: 1, INVALID_PRIORITY: 150 });
  assert.match(await page.locator('[data-testid=node-panel]').innerText(), /INVALID_PRIORITY\s*× 150/);
  await screenshot(page, 'sitemap-problem-counts');
  // The problems the node does not list are in the crawl log.
  await page.click('[data-tab=errors]');
  await waitFor('the crawl log', async () => /log entr(y|ies)/.test(await page.locator('[data-testid=log-count]').innerText()));
  await waitFor('the sitemap problems in the log', () => page.locator('[data-testid=log-table] .vrow', { hasText: 'INVALID_PRIORITY' }).count());
  assert.deepEqual(problems, []);
});
