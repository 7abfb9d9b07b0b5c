/**
 * Ctrl-C as a terminal sends it — to the whole process group, through `npm run crawl` as users run
 * it — with the CLI crawling a slow local site: one press pauses (requests in flight finish, the
 * summary and the resume command are printed), even when it reaches the process twice; a second
 * press quits at once with 130.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSite } from './fixtures/site.js';
import { assertComplete, pagesFetched, run, sleep, start, until } from './cli-processes.js';

describe('Ctrl-C', { timeout: 120_000 }, () => {
  it('Ctrl-C through `npm run crawl` pauses: requests in flight finish, the summary and the resume command are printed', async () => {
    const site = await startTestSite({ scenario: 'large', pages: 30, sitemapUrls: 20, perSitemap: 10, pageDelayMs: 400 });
    const dir = mkdtempSync(join(tmpdir(), 'spinneret-cli-proc-'));
    try {
      const crawl = start([site.url('/'), '--state-dir', dir, '--concurrency', '2'], 'npm');
      await until(() => /Crawl (\S+) \(/.test(crawl.out()) && pagesFetched(site) >= 3, 'the crawl to fetch pages');
      const id = /Crawl (\S+) \(/.exec(crawl.out())![1]!;
      crawl.signal('SIGINT');
      await until(() => /Pausing/.test(crawl.out()), 'the pause to begin');
      const pausing = Date.now();
      const ended = await crawl.ended;
      // npm's `sh -c` (dash) dies of the SIGINT it got once its child is done; bash's exits 0 like the CLI.
      assert.ok(ended.code === 0 || ended.signal === 'SIGINT', JSON.stringify(ended));
      const out = crawl.out();
      assert.match(out, /Pausing: letting requests in flight finish/);
      assert.match(out, new RegExp(`Crawl ${id}: paused`));
      assert.match(out, new RegExp(`Paused\\. Resume with: npm run crawl -- resume ${id} --state-dir`));
      const late = site.log.filter((l) => l.path.startsWith('/l/') && l.at > pausing + 250);
      assert.deepEqual(late, [], 'no request begun once it pauses (those in flight finish)');

      const list = await run(['list', '--state-dir', dir]);
      assert.match(list.out, new RegExp(`^${id}\\s+paused`, 'm'), list.out);
      const resumed = await run(['resume', id, '--state-dir', dir, '--out', join(dir, 'all.csv')]);
      assert.equal(resumed.code, 0, resumed.err);
      assertComplete(site, join(dir, 'all.csv'));
      for (const [p, n] of site.hits) if (p.startsWith('/l/')) assert.ok(n <= 2, `${p} fetched ${n} times`);
    } finally {
      await site.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('one Ctrl-C delivered twice is one press and exits 0 paused; a second press quits at once with 130', async () => {
    const site = await startTestSite({ scenario: 'large', pages: 30, sitemapUrls: 20, perSitemap: 10, pageDelayMs: 6000 });
    const dir = mkdtempSync(join(tmpdir(), 'spinneret-cli-proc-'));
    try {
      const crawl = start([site.url('/'), '--state-dir', dir, '--concurrency', '2']);
      await until(() => /Crawl (\S+) \(/.test(crawl.out()) && pagesFetched(site) >= 2, 'page requests in flight');
      const id = /Crawl (\S+) \(/.exec(crawl.out())![1]!;
      // npm and tsx pass the terminal's signal on to a child that got it already.
      crawl.signal('SIGINT');
      await sleep(15);
      crawl.signal('SIGINT');
      await sleep(1000);
      assert.equal(crawl.child.exitCode, null, `still pausing (the pages take 6 s): ${crawl.out()}${crawl.err()}`);
      assert.match(crawl.out(), /Pausing: letting requests in flight finish/);
      const pressed = Date.now();
      crawl.signal('SIGINT');
      const { code } = await crawl.ended;
      assert.equal(code, 130, crawl.out() + crawl.err());
      assert.ok(Date.now() - pressed < 3000, 'at once, not after the requests in flight');
      assert.match(crawl.err(), /quitting at once/);

      const list = await run(['list', '--state-dir', dir]);
      assert.match(list.out, new RegExp(`^${id}\\s+paused`, 'm'), 'an interrupted crawl is listed paused');
    } finally {
      await site.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
