/**
 * The window and the CLI on one state folder: while the CLI runs a crawl, Resume in the window is
 * refused, and the window says so in an alert naming the other process — the same words as the
 * CLI's. Once the CLI pauses it, the window resumes it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startTestSite, type TestSite } from '../fixtures/site.js';
import { ROOT, SCREENSHOTS, buildRenderer, launchBrowser, openPage, skipReason, startServer, tempDir, waitFor, type ServerProcess } from './harness.js';

const skip = skipReason();
let site: TestSite;
let state: { path: string; remove(): Promise<void> };
let rendererDir: string;
let browser: Browser;
let server: ServerProcess | undefined;

before(async () => {
  if (skip) return;
  rendererDir = await buildRenderer();
  site = await startTestSite({ scenario: 'large', pages: 60, sitemapUrls: 30, perSitemap: 15, pageDelayMs: 300 });
  state = await tempDir('spinneret-e2e-lock-');
  browser = await launchBrowser();
});

after(async () => {
  if (skip) return;
  await browser?.close();
  await server?.stop();
  await site?.close();
  await state?.remove();
});

/** The CLI resuming `id` as a process of its own, until it is sent SIGINT. */
function cliResume(id: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'electron', 'cli', 'cli.ts'), 'resume', id, '--state-dir', state.path], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const ended = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  return { child, ended, out: () => out };
}

test('Resume in the window of a crawl the CLI runs: an alert says it is open in the other process', { skip: skip ?? false, timeout: 120_000 }, async () => {
  // A crawl started and paused (Ctrl-C) from the command line.
  const first = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'electron', 'cli', 'cli.ts'), site.url('/'), '--state-dir', state.path, '--concurrency', '2'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  first.stdout.on('data', (d) => (out += d));
  const firstEnded = new Promise<number | null>((r) => first.once('close', (code) => r(code)));
  const id = await waitFor('the CLI crawl to start', () => /Crawl (\S+) \(/.exec(out)?.[1]);
  await waitFor('pages fetched', () => site.log.filter((l) => l.path.startsWith('/l/')).length >= 2);
  first.kill('SIGINT');
  assert.equal(await firstEnded, 0, out);

  server = await startServer({ stateDir: state.path, rendererDir });
  const { page, problems } = await openPage(browser, server.url);
  const item = page.locator('.crawl-item');
  await waitFor('the paused crawl in the sidebar', async () => (await item.getAttribute('data-status')) === 'paused');

  // The CLI resumes it: that process holds the crawl now.
  const fetched = site.log.length;
  const running = cliResume(id);
  await waitFor('the CLI to resume it', () => /Resuming crawl/.test(running.out()) && site.log.length > fetched + 2);
  await page.click('[data-action=resume]');
  const alert = page.locator('.toast-error[role=alert]');
  await waitFor('the alert', () => alert.count());
  const text = (await alert.first().innerText()).replace(/\s+/g, ' ');
  assert.match(text, new RegExp(`Could not resume the crawl: crawl ${id} \\(.*\\) is open in another process \\(pid ${running.child.pid}\\)`));
  // With the alert (harness screenshot() closes toasts first).
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, 'crawl-locked-alert.png') });

  // Paused in the CLI, the window resumes it.
  running.child.kill('SIGINT');
  assert.equal(await running.ended, 0, running.out());
  await page.click('[data-action=resume]');
  await waitFor('the crawl to finish in the window', async () => (await item.getAttribute('data-status')) === 'finished', 90_000, 250);
  assert.deepEqual(problems, []);
});
