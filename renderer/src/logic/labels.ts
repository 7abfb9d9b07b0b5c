/** Words for the model's enums, as the analyst reads them. */
import type { Indexability, IndexabilityReason, RequestSource, StatusClass, UrlState } from '../../../shared/model.js';

export const STATE_LABEL: Record<UrlState, string> = {
  queued: 'Queued',
  fetching: 'Fetching',
  done: 'Fetched',
  error: 'Error',
  blocked: 'Blocked',
  // Recorded without a fetch: page fetching off, out of scope (an off-site link), past a depth or URL limit.
  listed: 'Not fetched',
};

export const SOURCE_LABEL: Record<RequestSource, string> = {
  start: 'Start',
  robots: 'robots',
  sitemap: 'Sitemap',
  link: 'Link',
  redirect: 'Redirect',
  canonical: 'Canonical',
  hreflang: 'hreflang',
  reference: 'Reference',
};

/** What each kind of discovery is, for a tooltip: only a link (`<a>`/`<area>`) makes an inlink. */
export const SOURCE_HINT: Record<RequestSource, string> = {
  start: 'The start URL of the crawl',
  robots: 'Announced by robots.txt',
  sitemap: 'Listed by a sitemap',
  link: 'An <a href> or <area href> of a crawled page: an inlink',
  redirect: "A redirect's Location: the URL it redirects to",
  canonical: "A page's <link rel=canonical> (not an inlink)",
  hreflang: "A page's <link rel=alternate hreflang> (not an inlink)",
  reference: "A page's other <link> (next, prev, amphtml, alternate) or frame src (not an inlink)",
};

export const STATUS_CLASS_LABEL: Record<StatusClass, string> = {
  '2xx': '2xx',
  '3xx': '3xx',
  '4xx': '4xx',
  '5xx': '5xx',
  other: 'Other',
  none: 'No status',
};

export const INDEXABILITY_LABEL: Record<Indexability, string> = {
  indexable: 'Indexable',
  'non-indexable': 'Non-indexable',
};

/** Why a URL is not indexable, in the words of the README's CSV section. */
export const INDEXABILITY_REASON_LABEL: Record<IndexabilityReason, string> = {
  'blocked-by-robots': 'Blocked by robots.txt',
  'fetch-error': 'Fetch error',
  redirect: 'Redirect',
  'client-error': 'Client error (4xx)',
  'server-error': 'Server error (5xx)',
  noindex: 'noindex',
  'not-html': 'Not HTML',
  canonicalised: 'Canonicalised',
};
