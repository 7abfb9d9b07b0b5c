/**
 * The CLI as real processes, each in a process group of its own so that a test can signal the group
 * as a terminal's Ctrl-C does (test/cli-lock.test.ts, test/cli-interrupt.test.ts).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestSite } from './fixtures/site.js';

export const root = fileURLToPath(new URL('..', import.meta.url));
const CLI = ['--import', 'tsx', join(root, 'electron/cli/cli.ts')];
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Proc {
  child: ChildProcess;
  out(): string;
  err(): string;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Signals the process group, as a terminal's Ctrl-C does. */
  signal(sig: NodeJS.Signals): void;
}

/** Starts the CLI in a process group of its own: `node --import tsx electron/cli/cli.ts`, or `npm run crawl --`. */
export function start(args: string[], how: 'node' | 'npm' = 'node'): Proc {
  const [cmd, argv] = how === 'npm' ? (['npm', ['run', '--silent', 'crawl', '--', ...args]] as const) : ([process.execPath, [...CLI, ...args]] as const);
  const child = spawn(cmd, argv, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, out: () => out, err: () => err, ended, signal: (sig) => process.kill(-child.pid!, sig) };
}

export async function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const p = start(args);
  const { code } = await p.ended;
  return { code, out: p.out(), err: p.err() };
}

export async function until(cond: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export const pagesFetched = (site: TestSite) => site.log.filter((l) => l.path.startsWith('/l/')).length;
export const csvUrls = (file: string) =>
  readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => l.split(',')[0]);

export function assertComplete(site: TestSite, file: string): void {
  const urls = csvUrls(file);
  for (const p of site.expected.discovered) assert.ok(urls.includes(site.url(p)), `${p} in the CSV`);
  assert.equal(new Set(urls).size, urls.length, 'each URL once');
}
