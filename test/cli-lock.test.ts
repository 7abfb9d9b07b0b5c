/**
 * One process per crawl, with the CLI as real processes against a slow local site: a second process
 * is refused the crawl another one runs (with its pid), reading still works meanwhile, resume works
 * once the first pauses, and the lock a killed process left is taken over.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_FILE } from '../electron/service/catalog/crawl-lock.js';
import { startTestSite } from './fixtures/site.js';
import { assertComplete, csvUrls, pagesFetched, run, start, until } from './cli-processes.js';

describe('one process per crawl', { timeout: 120_000 }, () => {
  it('a second process is refused a crawl another one runs; list and export still work; resume works once it pauses', async () => {
    // Slow enough (60 pages of 400 ms, two at a time) that it still runs while the others start.
    const site = await startTestSite({ scenario: 'large', pages: 60, sitemapUrls: 20, perSitemap: 10, pageDelayMs: 400 });
    const dir = mkdtempSync(join(tmpdir(), 'spinneret-cli-proc-'));
    try {
      const first = start([site.url('/'), '--state-dir', dir, '--concurrency', '2']);
      await until(() => /Crawl (\S+) \(/.test(first.out()) && pagesFetched(site) >= 3, 'the first crawl to fetch pages');
      const id = /Crawl (\S+) \(/.exec(first.out())![1]!;
      assert.ok(existsSync(join(dir, 'crawls', id, LOCK_FILE)), 'the running crawl is locked');

      const partial = join(dir, 'partial.csv');
      const [second, list, exported] = await Promise.all([
        run(['resume', id, '--state-dir', dir]),
        run(['list', '--state-dir', dir]),
        run(['export', id, '--out', partial, '--state-dir', dir]),
      ]);
      assert.equal(first.child.exitCode, null, 'the first one still runs');
      assert.equal(second.code, 1, second.out + second.err);
      assert.match(second.err, new RegExp(`CRAWL_LOCKED: crawl ${id} \\(.*\\) is open in another process \\(pid ${first.child.pid}\\)`));
      assert.equal(list.code, 0, list.err);
      assert.match(list.out, new RegExp(`^${id}\\s+running`, 'm'), 'still running in the other process');
      assert.equal(exported.code, 0, exported.err);
      assert.ok(csvUrls(partial).includes(site.url('/')), 'export reads it meanwhile');

      first.signal('SIGINT');
      const { code } = await first.ended;
      assert.equal(code, 0, first.out() + first.err());
      assert.match(first.out(), new RegExp(`Paused\\. Resume with: npm run crawl -- resume ${id} --state-dir`));
      assert.equal(existsSync(join(dir, 'crawls', id, LOCK_FILE)), false, 'released at pause');

      const resumed = await run(['resume', id, '--state-dir', dir, '--out', join(dir, 'all.csv')]);
      assert.equal(resumed.code, 0, resumed.err);
      assert.doesNotMatch(resumed.err, /damaged|warning/i);
      assertComplete(site, join(dir, 'all.csv'));
    } finally {
      await site.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('a crawl whose process was killed is taken over by the next one', async () => {
    const site = await startTestSite({ scenario: 'large', pages: 30, sitemapUrls: 20, perSitemap: 10, pageDelayMs: 150 });
    const dir = mkdtempSync(join(tmpdir(), 'spinneret-cli-proc-'));
    try {
      const first = start([site.url('/'), '--state-dir', dir, '--concurrency', '2']);
      await until(() => /Crawl (\S+) \(/.test(first.out()) && pagesFetched(site) >= 3, 'the crawl to fetch pages');
      const id = /Crawl (\S+) \(/.exec(first.out())![1]!;
      first.signal('SIGKILL');
      await first.ended;
      const lock = join(dir, 'crawls', id, LOCK_FILE);
      assert.equal(JSON.parse(readFileSync(lock, 'utf8')).pid, first.child.pid, "the dead process's lock is left behind");

      const resumed = await run(['resume', id, '--state-dir', dir, '--out', join(dir, 'all.csv')]);
      assert.equal(resumed.code, 0, resumed.err);
      assert.equal(existsSync(lock), false);
      assertComplete(site, join(dir, 'all.csv'));
    } finally {
      await site.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
