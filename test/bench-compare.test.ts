/**
 * bench/compare.ts on a small generated pair of crawls (the fake crawler: 3,000 sitemap URLs, then
 * the same sitemaps with 300 lastmods moved, 100 URLs dropped and 50 added): the figures are there and
 * sane, the changed rows exact, and the comparison is computed afresh each time (not read back).
 * Speed and memory are the benchmark's to report, not asserted here.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareBench } from '../bench/compare.js';
import { createCrawlService } from '../electron/service/index.js';
import { FakeCrawler, sitemapPlan, type FakePlan } from './service/fake-crawler.js';
import { settled, tempDir } from './service/helpers.js';

const ORIGIN = 'http://bench.invalid';

describe('compareBench', () => {
  it('measures one fresh comparison of two crawls', { timeout: 60_000 }, async () => {
    const before = sitemapPlan(ORIGIN, 3000, 3);
    const after = structuredClone(before);
    for (const sm of after) {
      sm.entries = sm.entries.filter((e) => !/item-(\d+)\./.test(e.loc) || Number(/item-(\d+)\./.exec(e.loc)![1]) % 30 !== 7);
    }
    for (const sm of after) for (const e of sm.entries) if (Number(/item-(\d+)\./.exec(e.loc)![1]) % 10 === 3) e.lastmod = '2025-02-02';
    for (let i = 0; i < 50; i++) after[0]!.entries.push({ loc: `${ORIGIN}/product/new-${i}.html` });
    let plan: FakePlan = { origin: ORIGIN, sitemaps: before, fetchPages: false, step: 500 };
    const service = createCrawlService({ stateDir: tempDir('spinneret-bench-compare-'), scheduler: false, crawlerFactory: (o) => new FakeCrawler(o, plan) });
    try {
      const crawl = async () => {
        const c = service.create({ settings: { startUrl: `${ORIGIN}/`, fetchPages: false } });
        const done = settled(service, c.id);
        await service.start(c.id);
        assert.equal((await done).status, 'finished');
        return c.id;
      };
      const oldId = await crawl();
      plan = { ...plan, sitemaps: after };
      const newId = await crawl();
      const r = await compareBench(service, oldId, newId);
      // 100 dropped (i % 30 === 7), 50 added, 300 lastmods moved (i % 10 === 3; none of them dropped).
      assert.equal(r.changedRows, 100 + 50 + 300);
      assert.ok(r.ms > 0 && Number.isFinite(r.ms));
      assert.ok(r.peakRssMB > 10 && Number.isFinite(r.peakRssMB));
      assert.ok(Number.isFinite(r.rssGrowthMB));
      const first = (await service.compare(oldId, newId)).computedAt;
      await new Promise((res) => setTimeout(res, 5));
      await compareBench(service, oldId, newId);
      assert.ok((await service.compare(oldId, newId)).computedAt > first, 'computed again, not read back');
    } finally {
      await service.close();
    }
  });
});
