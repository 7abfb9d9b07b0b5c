/**
 * `npm run serve` (electron/web/index.ts) as a process: bad arguments, a missing renderer build, and a
 * full run: it prints the tokened URL, serves the page, and Ctrl-C stops it cleanly.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fakeRendererDir } from '../contract/transports.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const web = ['--import', 'tsx', 'electron/web/index.ts'];

/** `npm run serve` on `state`: resolves once it prints its tokened URL. */
async function serve(state: string, renderer: string) {
  const child = spawn(process.execPath, [...web, '--renderer-dir', renderer, '--state-dir', state], { cwd: root });
  let out = '';
  child.stdout.setEncoding('utf8');
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(out);
      if (m) resolve(m[0]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${out}`)));
  });
  return {
    url,
    output: () => out,
    /** Ctrl-C; resolves with the exit code. */
    stop: () => {
      child.kill('SIGINT');
      return closed;
    },
    kill: () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

describe('npm run serve', () => {
  it('refuses bad arguments with usage, exit 2', () => {
    for (const args of [
      ['--port', 'abc'],
      ['--port', '70000'],
      ['--host', '0.0.0.0'],
    ]) {
      const res = spawnSync(process.execPath, [...web, ...args], { cwd: root, encoding: 'utf8' });
      assert.equal(res.status, 2, args.join(' '));
      assert.match(res.stderr, /spinneret serve:/);
      assert.doesNotMatch(res.stderr, /\n\s+at /, 'no stack trace');
    }
  });

  it('says to build first when the renderer is missing, exit 1', async () => {
    const state = await mkdtemp(join(tmpdir(), 'spinneret-serve-'));
    try {
      const res = spawnSync(process.execPath, [...web, '--renderer-dir', join(state, 'nothing'), '--state-dir', state], { cwd: root, encoding: 'utf8' });
      assert.equal(res.status, 1);
      assert.match(res.stderr, /npm run build/);
    } finally {
      await rm(state, { recursive: true, force: true });
    }
  });

  it('prints the tokened URL, serves the page, and stops on Ctrl-C', { timeout: 30_000 }, async () => {
    const state = await mkdtemp(join(tmpdir(), 'spinneret-serve-'));
    const renderer = await fakeRendererDir();
    let running: Awaited<ReturnType<typeof serve>> | undefined;
    try {
      running = await serve(state, renderer);
      const { url } = running;
      assert.ok(running.output().includes(state), 'names the state dir');
      assert.equal((await fetch(url)).status, 200);
      assert.equal((await fetch(url.replace(/\?token=.*/, ''))).status, 401);
      assert.equal(await running.stop(), 0);
      assert.match(running.output(), /Stopped/);
    } finally {
      running?.kill();
      await rm(state, { recursive: true, force: true });
      await rm(renderer, { recursive: true, force: true });
    }
  });

  it('serves the same URL after a restart (a reloaded page reconnects), a new one when the port is taken', { timeout: 60_000 }, async () => {
    const state = await mkdtemp(join(tmpdir(), 'spinneret-serve-'));
    const renderer = await fakeRendererDir();
    try {
      const first = await serve(state, renderer);
      await first.stop();
      const saved = await stat(join(state, 'serve.json'));
      assert.equal(saved.mode & 0o777, 0o600, 'the token file is readable by its owner only');
      const second = await serve(state, renderer);
      assert.equal(second.url, first.url, 'the same port and token');
      assert.equal((await fetch(second.url)).status, 200);
      // Its port taken meanwhile (here: by itself, still running): the same token on a free port.
      const third = await serve(state, renderer);
      assert.notEqual(third.url, second.url);
      assert.equal(new URL(third.url).searchParams.get('token'), new URL(first.url).searchParams.get('token'));
      await third.stop();
      await second.stop();
      // A damaged file is ignored: a new token.
      await writeFile(join(state, 'serve.json'), '{"port": "x", "token": 1}');
      const fourth = await serve(state, renderer);
      assert.notEqual(new URL(fourth.url).searchParams.get('token'), new URL(first.url).searchParams.get('token'));
      await fourth.stop();
    } finally {
      await rm(state, { recursive: true, force: true });
      await rm(renderer, { recursive: true, force: true });
    }
  });
});
