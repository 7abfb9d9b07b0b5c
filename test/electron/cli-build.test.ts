/**
 * The built CLI (dist/electron/cli.js, as `npm run build` makes it) finds its sitemap parse worker
 * beside it and crawls with it; without the worker file it says so once and crawls the same URLs.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestSite, type TestSite } from '../fixtures/site.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function run(cli: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('built CLI and its parse worker', () => {
  let out = '';
  let site: TestSite;
  before(async () => {
    out = mkdtempSync(join(tmpdir(), 'spinneret-cli-build-'));
    const built = spawnSync(process.execPath, ['scripts/build.mjs', '--only', 'cli', '--outdir', out], { cwd: root, encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
    site = await startTestSite({ scenario: 'full' });
  });
  after(async () => {
    await site?.close();
    rmSync(out, { recursive: true, force: true });
  });

  async function crawl(name: string) {
    const dir = join(out, name);
    const r = await run(join(out, 'electron', 'cli.js'), [site.url('/'), '--state-dir', dir, '--out', join(dir, 'urls.csv'), '--concurrency', '4']);
    assert.equal(r.code, 0, r.stderr);
    const urls = readFileSync(join(dir, 'urls.csv'), 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[0]!);
    return { ...r, urls: urls.sort() };
  }

  it('is built beside cli.js, used without a warning, and its absence only slows the ingest', async () => {
    const worker = join(out, 'electron', 'parse-worker.js');
    assert.ok(existsSync(worker), 'the build writes parse-worker.js beside cli.js');
    const withWorker = await crawl('with');
    assert.doesNotMatch(withWorker.stderr, /SPINNERET_NO_PARSE_WORKER/);
    for (const p of site.expected.discovered) assert.ok(withWorker.urls.includes(site.url(p)), p);

    rmSync(worker);
    const without = await crawl('without');
    assert.match(without.stderr, /SPINNERET_NO_PARSE_WORKER.*parse-worker\.js is missing/);
    assert.deepEqual(without.urls, withWorker.urls);
  });
});
