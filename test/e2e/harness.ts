/**
 * End-to-end harness: builds the renderer, runs browser mode (`electron/web/index.ts`) as a real server
 * process against a state dir, drives headless Chromium with playwright-core, runs the CLI.
 * Everything on 127.0.0.1; nothing outside is ever requested.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { CrawlSettings, UrlRow } from '../../shared/model.js';
import { createCrawlService } from '../../electron/service/index.js';
import { allRows } from '../service/helpers.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, 'test-artifacts', 'screenshots');

/** Why the browser tests cannot run here, or null when they can. */
export function skipReason(): string | null {
  if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
  return null;
}

/** Builds the renderer into a fresh folder of its own (parallel test files never share one). */
export async function buildRenderer(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'spinneret-renderer-'));
  const { build } = await import('vite');
  await build({
    configFile: join(ROOT, 'renderer', 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, sourcemap: false },
  });
  return outDir;
}

export interface ServerProcess {
  /** The page URL with its token. */
  url: string;
  child: ChildProcess;
  output(): string;
  /** Ctrl-C: running crawls pause and checkpoint, then the process exits. */
  stop(): Promise<number | null>;
}

/** Starts `npm run serve`'s entry point as its own process and waits for the URL it prints. */
export async function startServer(opts: { stateDir: string; rendererDir: string }): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'electron', 'web', 'index.ts'), '--port', '0', '--state-dir', opts.stateDir, '--renderer-dir', opts.rendererDir],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`browser mode did not print its URL in 30 s:\n${out}`)), 30_000);
    const check = () => {
      const m = /Open:\s+(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`browser mode exited (${code}) before it was ready:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Runs the headless CLI (`npm run crawl -- …`) and resolves with its exit code and output. */
export function runCli(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'electron', 'cli', 'cli.ts'), ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    child.once('exit', (code) => resolve({ code, out }));
  });
}

/** Headless Chromium, as the project always drives it (never a downloaded browser). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

/** A 1280×800 page that fails the test on any page error or CSP violation. */
export async function openPage(browser: Browser, url: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/favicon/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  await page.goto(url);
  return { page, problems };
}

/** Saves a screenshot of the page to test-artifacts/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  // Transient toasts would hide part of the view.
  // Always the first one still shown: a toast that closed by itself must not leave a click waiting for it.
  const close = page.locator('.toast .icon-btn').first();
  for (let i = 0; i < 10 && (await close.count()) > 0; i++) await close.click({ timeout: 1000 }).catch(() => {});
  await page.screenshot({ path });
  return path;
}

/** A fresh temporary folder, removed by the returned function. */
export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** The integer a counter card shows (its data-value). */
export async function counter(page: Page, name: string): Promise<number> {
  return Number(await page.getAttribute(`[data-testid="stat-${name}"]`, 'data-value'));
}

/** Polls `fn` until it returns a truthy value; throws with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, fn: () => Promise<T> | T, timeoutMs = 30_000, everyMs = 100): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} (last: ${String(last)})`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The URL table's total, as its counter states it. */
export async function urlTotal(page: Page): Promise<number> {
  return Number(await page.getAttribute('[data-testid=url-count]', 'data-total'));
}

/**
 * One crawl made to its end by the service, in the state folder the server will open; resolves to
 * every row of it, as the service answers them (the truth the window is checked against).
 */
export async function crawlToEnd(stateDir: string, name: string, settings: Partial<CrawlSettings> & { startUrl: string }): Promise<UrlRow[]> {
  const service = createCrawlService({ stateDir });
  try {
    const c = service.create({ name, settings });
    await new Promise<void>((resolve) => {
      service.on('finished', (s) => s.id === c.id && resolve());
      void service.start(c.id);
    });
    return allRows(service, c.id);
  } finally {
    await service.close();
  }
}
