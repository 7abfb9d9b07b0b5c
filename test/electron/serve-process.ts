/**
 * Browser mode (electron/web/index.ts) as a process group of its own, with a crawl of a test site started
 * over its WebSocket (test/electron/web-signals.test.ts, web-lock.test.ts).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { webSocketUrlFor } from '../../shared/contract.js';
import { connectApi, fakeRendererDir } from '../contract/transports.js';
import type { TestSite } from '../fixtures/site.js';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Browser mode as its own process group, with a crawl of `site` started over the WebSocket. */
export async function serveWithCrawl(site: TestSite, state: string) {
  const renderer = await fakeRendererDir();
  const child = spawn(process.execPath, ['--import', 'tsx', 'electron/web/index.ts', '--renderer-dir', renderer, '--state-dir', state], {
    cwd: root,
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('close', (code, signal) => r({ code, signal })));
  await until(() => /Open:\s+http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/.test(out), 'the URL');
  const api = connectApi(webSocketUrlFor(/Open:\s+(\S+)/.exec(out)![1]!));
  const crawl = await api.createCrawl({ settings: { startUrl: site.url('/'), concurrency: 2 } });
  await api.startCrawl({ id: crawl.id });
  await until(() => site.log.filter((l) => l.path.startsWith('/l/')).length >= 2, 'pages requested');
  return {
    child,
    ended,
    api,
    id: crawl.id,
    out: () => out,
    signal: (sig: NodeJS.Signals) => process.kill(-child.pid!, sig),
    cleanup: () => rm(renderer, { recursive: true, force: true }),
  };
}

/** The crawl's status as the CLI lists it. */
export function listed(state: string, id: string): Promise<string> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, ['--import', 'tsx', 'electron/cli/cli.ts', 'list', '--state-dir', state], { cwd: root });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.once('close', () => resolve(new RegExp(`^${id}\\s+(\\S+)`, 'm').exec(out)?.[1] ?? out));
  });
}
