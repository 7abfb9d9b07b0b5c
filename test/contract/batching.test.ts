/**
 * Event batching end to end: a real crawl of thousands of URLs, watched through the browser-mode
 * WebSocket (real sockets) and through IPC doubles, produces at most 5 progress events a second per
 * crawl, and its counters only grow.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EventPayload } from '../../shared/contract.js';
import { startTestSite, type TestSite } from '../fixtures/site.js';
import { ipcTransport, wsTransport, type Transport } from './transports.js';
import { realService, type ContractService } from './service-under-test.js';

/** Largest number of events inside any window of `ms` milliseconds, by their own timestamps. */
function maxInWindow(stamps: number[], ms: number): number {
  let best = 0;
  for (let i = 0, j = 0; j < stamps.length; j++) {
    while (stamps[j] - stamps[i] >= ms) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

describe('progress batching', () => {
  let site: TestSite;
  before(async () => {
    site = await startTestSite({ scenario: 'large', pages: 2500, sitemapUrls: 2500, perSitemap: 500 });
  });
  after(() => site.close());

  for (const [label, make] of [
    ['WebSocket', wsTransport],
    ['IPC', ipcTransport],
  ] as const) {
    it(`a crawl of thousands of URLs sends at most 5 progress events a second (${label})`, { timeout: 120_000 }, async (tc) => {
      let sut: ContractService | undefined;
      let t: Transport | undefined;
      try {
        sut = await realService();
        t = await make(sut.service);
        const api = t.api;
        const crawl = await api.createCrawl({
          name: 'Batching',
          settings: { startUrl: site.url('/'), concurrency: 16, perHostConcurrency: 16, delayMs: 0 },
        });
        const events: EventPayload<'progress'>[] = [];
        const offProgress = api.on('progress', (p) => {
          if (p.crawlId === crawl.id) events.push(p);
        });
        const finished = new Promise<EventPayload<'crawlFinished'>>((resolve) => {
          const off = api.on('crawlFinished', (s) => {
            if (s.id === crawl.id) {
              off();
              resolve(s);
            }
          });
        });
        await api.startCrawl({ id: crawl.id });
        const summary = await finished;
        // A round trip after the end: any batch already sent has arrived.
        await api.listCrawls();
        offProgress();

        const span = events.length ? events.at(-1)!.at - events[0].at : 0;
        tc.diagnostic(`${summary.counters.discovered} URLs, ${events.length} progress events over ${span} ms`);
        assert.ok(summary.counters.discovered >= 2500, `a crawl of thousands of URLs (${summary.counters.discovered})`);
        assert.ok(events.length >= 1, 'progress was reported');
        const stamps = events.map((e) => e.at);
        assert.deepEqual(
          stamps,
          [...stamps].sort((a, b) => a - b),
          'events arrive in order',
        );
        // `at` is wall-clock milliseconds while the service spaces events on a monotonic clock: allow
        // 1 ms of rounding per gap (5 gaps) so a true 5-per-second stream is never miscounted.
        const worst = maxInWindow(stamps, 1000 - 5);
        assert.ok(worst <= 5, `at most 5 progress events in any second, saw ${worst} (${events.length} events for ${summary.counters.discovered} URLs)`);
        assert.ok(events.length < summary.counters.discovered / 10, 'batched, not one event per URL');
        for (let i = 1; i < events.length; i++) {
          assert.ok(events[i].counters.discovered >= events[i - 1].counters.discovered, 'counters never go back');
        }
        assert.ok(events.at(-1)!.counters.discovered <= summary.counters.discovered);
        assert.deepEqual(t.eventsOffContract(), [], 'every event parses strictly against the contract');
      } finally {
        await t?.close();
        await sut?.close();
      }
    });
  }
});
