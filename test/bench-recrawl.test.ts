/**
 * bench/recrawl.ts with the benchmark's own site server (bench/site-server.ts, forked) at 3,000 URLs:
 * a sitemap crawl of the site, then the measured recrawl of it. Every sitemap answers its ETag with
 * 304, so the recrawl carries every urlset and the index over (none is parsed again) and holds the
 * base's URLs. Speed and memory are the benchmark's to report, not asserted here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { recrawlBench } from '../bench/recrawl.js';
import type { SiteCounts, SiteReady, SiteServerConfig } from '../bench/site-server.js';
import { createCrawlService, type LocalCrawlService } from '../electron/service/index.js';
import { settled, tempDir } from './service/helpers.js';

const SITE_SERVER = fileURLToPath(new URL('../bench/site-server.ts', import.meta.url));

function ask(child: ChildProcess): Promise<SiteCounts> {
  return new Promise((resolve) => {
    const on = (m: { type?: string }) => {
      if (m.type !== 'counts') return;
      child.off('message', on);
      resolve(m as SiteCounts);
    };
    child.on('message', on);
    child.send({ type: 'counts' });
  });
}

describe('recrawlBench', { timeout: 120_000 }, () => {
  let child: ChildProcess;
  let ready: SiteReady;
  let service: LocalCrawlService;
  before(async () => {
    child = fork(SITE_SERVER, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    ready = await new Promise<SiteReady>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`site server exited (${code})`)));
      child.on('message', (m: { type?: string }) => m.type === 'ready' && resolve(m as SiteReady));
      child.send({ host: '127.0.0.1', urls: 3000, pages: 10, tail: 50 } satisfies SiteServerConfig);
    });
    child.removeAllListeners('exit');
    service = createCrawlService({ stateDir: tempDir('spinneret-bench-recrawl-'), scheduler: false });
  });
  after(async () => {
    await service.close();
    child.send({ type: 'exit' });
  });

  it('recrawls the site with every sitemap answering 304 and measures it', async () => {
    const base = service.create({ settings: { startUrl: ready.sitemapOrigin + '/', fetchPages: false, followLinks: false } });
    const done = settled(service, base.id);
    await service.start(base.id);
    assert.equal((await done).status, 'finished');
    const baseUrls = service.get(base.id).counters.discovered;
    child.send({ type: 'reset-counts' });
    const r = await recrawlBench(service, base.id, ready);
    assert.ok(r.urls >= ready.distinct && r.urls <= baseUrls, `${r.urls} URLs`);
    assert.equal(r.sitemapsCarried, ready.sitemaps.length + 1, 'every measured urlset and the index carried over');
    assert.ok(r.ms > 0 && Number.isFinite(r.ms));
    assert.ok(r.peakRssMB > 10 && Number.isFinite(r.peakRssMB));
    const counts = await ask(child);
    assert.ok(counts.notModified >= ready.sitemaps.length + 1, `${counts.notModified} answered 304`);
    const s = service.get(r.crawlId);
    assert.equal(s.baseId, base.id);
    assert.ok(s.status === 'paused' || s.status === 'finished', s.status);
  });
});
