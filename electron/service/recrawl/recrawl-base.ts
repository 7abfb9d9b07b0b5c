/**
 * The engine's RecrawlBase over a BaseIndex: which validators a recrawl sends, what it keeps on a 304,
 * and, in changed-only mode, which URLs it does not fetch at all.
 *
 * Changed-only fetches a URL when it is new (the base does not hold it), when its first sitemap
 * listing's lastmod differs from the base's (a URL with none, listed or not, has none on that side;
 * one not listed yet when it is fetched, found by a link first, counts as having none), or when it
 * failed in the base (an error, a 5xx, blocked, or never fetched); every other URL keeps its base
 * answer. Validators are sent only for a base answer that was 2xx. A URL the
 * base read as a sitemap is always fetched: its answer is a sitemap to read, not a result to keep.
 */
import type { CarriedPage, RecrawlBase, Request } from '../../engine/index.js';
import { B_DONE, type BaseIndex } from './base-index.js';

export interface RecrawlBaseOptions {
  index: BaseIndex;
  changedOnly: boolean;
  /** The new crawl's latest sitemap lastmod of a URL so far in seconds (0: unparsable); undefined when no sitemap listed it yet. */
  lastmodOf(uniqueKey: string): number | undefined;
}

/** A RecrawlBase answering from `o.index`. */
export function createRecrawlBase(o: RecrawlBaseOptions): RecrawlBase {
  const ix = o.index;
  const page = (key: string): number | undefined => (ix.isSitemap(key) ? undefined : ix.idOf(key));
  return {
    validators(key) {
      const id = page(key);
      return id === undefined ? undefined : ix.validators(id);
    },
    carried(key): Promise<CarriedPage | undefined> {
      const id = page(key);
      return Promise.resolve(id === undefined ? undefined : ix.carried(id));
    },
    unchanged: o.changedOnly
      ? (req: Request) => {
          const id = page(req.uniqueKey);
          if (id === undefined || ix.stateOf(id) !== B_DONE) return false;
          const status = ix.statusOf(id);
          if (status === 0 || status >= 500) return false;
          // No lastmod (not listed, or listed without one) is 0 on both sides.
          return (ix.lastmodOf(id) ?? 0) === (o.lastmodOf(req.uniqueKey) ?? 0);
        }
      : undefined,
    sitemapValidators(nodeId) {
      const n = ix.node(nodeId);
      if (!n || (n.state !== 'done' && n.state !== 'error') || (n.etag === undefined && n.lastModified === undefined)) return undefined;
      const v: { etag?: string; lastModified?: string; indexLastmod?: string } = {};
      if (n.etag !== undefined) v.etag = n.etag;
      if (n.lastModified !== undefined) v.lastModified = n.lastModified;
      if (n.lastmod !== undefined) v.indexLastmod = n.lastmod;
      return v;
    },
    carriedSitemap: (nodeId) => ix.carriedSitemap(nodeId),
  };
}
