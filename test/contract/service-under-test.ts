/**
 * The CrawlService the contract suite runs against: the REAL service (electron/service) in a temp
 * state dir, crawling the local test site ('no-robots': a small tree of pages, no network).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CrawlSettings } from '../../shared/model.js';
import type { CrawlService } from '../../electron/service/types.js';
import { createCrawlService } from '../../electron/service/index.js';
import { startTestSite, type TestSite } from '../fixtures/site.js';

export interface ContractService {
  service: CrawlService;
  stateDir: string;
  /** Settings for a crawl that finishes quickly. */
  settings(): Partial<CrawlSettings> & { startUrl: string };
  /** URLs such a crawl finds at least. */
  expectedUrls: number;
  close(): Promise<void>;
}

/** A real CrawlService in a fresh temp state dir (no site). */
export async function realService(): Promise<ContractService> {
  const stateDir = await mkdtemp(join(tmpdir(), 'spinneret-contract-'));
  const service = createCrawlService({ stateDir });
  return {
    service,
    stateDir,
    settings: () => {
      throw new Error('realService() has no site: pass your own settings');
    },
    expectedUrls: 0,
    async close() {
      await service.close();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/** The service under test, with a local test site to crawl. */
export async function contractService(): Promise<ContractService> {
  const site: TestSite = await startTestSite({ scenario: 'no-robots' });
  const real = await realService();
  return {
    ...real,
    settings: () => ({ startUrl: site.url('/'), concurrency: 4, perHostConcurrency: 4, delayMs: 0, retries: 0 }),
    expectedUrls: site.expected.discovered.length,
    async close() {
      await real.close();
      await site.close();
    },
  };
}
