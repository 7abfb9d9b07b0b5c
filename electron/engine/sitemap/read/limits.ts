/**
 * Size limits for reading one sitemap: the protocol's, and the hard caps that keep memory bounded.
 */
import type { SitemapLimits } from '../../types.js';

/** sitemaps.org: a sitemap may be at most 50 MiB uncompressed. Past it: SITEMAP_TOO_LARGE (reading goes on). */
export const PROTOCOL_MAX_BYTES = 52_428_800;

/** sitemaps.org: at most 50,000 URLs per sitemap (and 50,000 sitemaps per index). */
export const PROTOCOL_MAX_URLS = 50_000;

/** Defaults: inflation hard-stops at 200 MiB (headroom over the protocol's 50 MiB); 50,000 entries. */
export const DEFAULT_SITEMAP_LIMITS: SitemapLimits = {
  maxUncompressedBytes: 200 * 1024 * 1024,
  maxUrlsPerSitemap: PROTOCOL_MAX_URLS,
};

/** Longest text kept for one field (`<loc>`, a title, a line of a text sitemap). */
export const MAX_FIELD_CHARS = 8 * 1024;

/** Longest single XML token (tag, comment, attribute) held while it is read; past it the document is refused. */
export const MAX_TOKEN_CHARS = 4 * 1024 * 1024;

/**
 * Bounds of one element, far above any real sitemap (a `<urlset>` declares a dozen namespaces, an
 * `<xhtml:link>` has three attributes): past one the document is refused with ELEMENT_TOO_LARGE.
 * Each attribute is its own token, so MAX_TOKEN_CHARS alone let a start tag grow without end.
 */
/** Attributes of one start tag. */
export const MAX_ELEMENT_ATTRIBUTES = 1_000;
/** Characters of one start tag's attribute names and values together, as written. */
export const MAX_ATTRIBUTES_CHARS = 256 * 1024;
/** Characters of one start tag, from its `<` to its `>`. */
export const MAX_TAG_CHARS = 1024 * 1024;
/** Elements open at once (a sitemap nests five deep at most): past it, NESTING_TOO_DEEP. */
export const MAX_ELEMENT_DEPTH = 100;

/**
 * What one entry may hold: its alternates (hreflang and mobile), images, videos and links together,
 * and the characters of their text (Google reads up to 1,000 images a URL). Past either, the rest
 * are left out with one ENTRY_TOO_LARGE on the entry, which is kept.
 */
export const MAX_ENTRY_ITEMS = 5_000;
export const MAX_ENTRY_CHARS = 1024 * 1024;

/** Per-entry problems reported per code per sitemap; the rest are counted in one summary problem. */
export const MAX_PROBLEMS_PER_CODE = 100;

/** Items per batch yielded by streamSitemap. */
export const DEFAULT_BATCH_SIZE = 500;

/** Fills in the defaults for the limits a caller left out. */
export function resolveLimits(limits: Partial<SitemapLimits> | undefined): SitemapLimits {
  return {
    maxUncompressedBytes: limits?.maxUncompressedBytes ?? DEFAULT_SITEMAP_LIMITS.maxUncompressedBytes,
    maxUrlsPerSitemap: limits?.maxUrlsPerSitemap ?? DEFAULT_SITEMAP_LIMITS.maxUrlsPerSitemap,
  };
}
