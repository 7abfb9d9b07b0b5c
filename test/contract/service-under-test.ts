/**
 * The CrawlService the contract suite runs against, and the crawl settings it uses.
 */
import type { CrawlSettings } from '../../shared/model.js';
import type { CrawlService } from '../../electron/service/types.js';
import { createFakeService } from './fake-service.js';

export interface ContractService {
  service: CrawlService;
  /** Settings for a crawl that finishes quickly. */
  settings(): Partial<CrawlSettings> & { startUrl: string };
  /** URLs such a crawl finds at least. */
  expectedUrls: number;
  close(): Promise<void>;
}

/** The service under test. */
export async function contractService(): Promise<ContractService> {
  const service = createFakeService(3);
  return {
    service,
    // Never fetched: the fake service makes its rows up.
    settings: () => ({ startUrl: 'http://127.0.0.1:9/' }),
    expectedUrls: 3,
    close: () => service.close(),
  };
}
