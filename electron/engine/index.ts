/**
 * The engine's front door: what the service, the CLI and the benchmark may use. Everything else under
 * electron/engine is internal and may change without notice (ESLint's import rules hold the service to
 * this file). Plain Node: nothing here knows Electron, IPC or React.
 */

// The crawler and the interfaces it is driven through.
export { Crawler, type CrawlerOptions } from './crawler/crawler.js';
export {
  EngineError,
  type CrawlerCheckpoint,
  type CrawlerHooks,
  type CrawlerRunState,
  type Discovery,
  type HttpFetcher,
  type KeyValueStore,
  type ListingWire,
  type RecordedLink,
  type Request,
  type RequestInit,
  type ResultFacts,
  // Recrawl: what the service's base index answers the crawler with.
  type CarriedLink,
  type CarriedPage,
  type CarriedSitemap,
  type RecrawlBase,
  type SitemapItem,
  type Validators,
} from './types.js';

// The frontier: the queue the service rebuilds a crawl into from its journal, and URL identity.
export { MemoryRequestQueue } from './frontier/request-queue.js';
export { inSitemapScope, tryUniqueKey } from './frontier/url.js';

// Sitemaps: the list's checkpoint, the protocol's limits, dates, an entry's compact JSON and a listing's wire form (the journal's).
export type { SitemapListResume, SitemapRequestListState } from './sitemap/request-list.js';
export { PROTOCOL_MAX_BYTES, PROTOCOL_MAX_URLS } from './sitemap/read/limits.js';
export { w3cDatetimeMs } from './sitemap/read/datetime.js';
export { decodeEntry, encodeTail, entryExtra, type EntryExtra } from './sitemap/read/entry-codec.js';

// Page reading: robots meta and X-Robots-Tag directives.
export { parseRobotsDirectives } from './links/links.js';

// Growable typed columns, for the service's per-URL tables.
export { column, ensureCapacity, widened } from './compact/typed-growth.js';
export { SparseColumn } from './compact/sparse-column.js';
export { StringIndex } from './compact/string-index.js';

// The benchmark's tokenizer and parser passes read sitemaps the way the crawler does.
export { INFLATE_CHUNK, createSitemapParser, streamSitemap } from './sitemap/read/stream.js';
export { streamSitemapInWorker } from './sitemap/worker/worker-stream.js';
