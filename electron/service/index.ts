/** The crawl service: what the CLI, Electron main and browser mode import. */
export { createCrawlService, type CrawlServiceOptions, type LocalCrawlService } from './service.js';
export { ServiceError, type ServiceErrorCode } from './errors.js';
export { openCatalogStore } from './catalog/store.js';
export { checkLinksExport } from './data/links-csv.js';
export { BUILTIN_DEFAULTS, DEFAULT_USER_AGENT, validateSettings } from './catalog/settings.js';
export type { CrawlService, CrawlServiceEvents, NewCrawl } from './types.js';
export type { CrawlerFactory, CrawlerLike } from './crawl-runtime.js';
