/**
 * Indexability: whether a search engine may index a URL as the crawl saw it, and if not, the one
 * reason that rules it out first. The one rule: the URL table, its CSV and the URL detail show
 * `indexabilityOf`, and the audit's "indexable" (INDEXABLE_NOT_IN_SITEMAP) and its noindex and
 * canonical checks are made of the same pieces (isHtmlType, saysNoindex, canonicalisedElsewhere).
 *
 * Precedence, first match wins (README, "The CSV"; audit/README.md, "Indexable"):
 *   1. blocked-by-robots  robots.txt disallows it (state `blocked`): never fetched
 *   2. fetch-error        the fetch failed (state `error`: timeout, reset, body too large…)
 *   3. redirect           a 3xx answer (or a `redirectTo`, as journals of older versions wrote)
 *   4. client-error       4xx
 *   5. server-error       5xx
 *   6. fetch-error        no status, or one outside 200–599: no usable answer
 *   7. noindex            a 2xx whose meta robots or X-Robots-Tag says noindex or none (any user agent)
 *   8. not-html           a 2xx whose Content-Type is not text/html or application/xhtml+xml
 *   9. canonicalised      a 2xx HTML page whose canonical parses to another URL (another uniqueKey)
 *  otherwise indexable.
 * The answer's own facts go first (nothing is read of a page that was never fetched, or that did not
 * answer 2xx); noindex goes before not-html because it is a directive that holds for any file (a PDF's
 * X-Robots-Tag); a canonical is only read from HTML. A URL without a result (queued, listed only) has
 * no indexability.
 */
import type { IndexabilityReason, UrlResult } from '../../../shared/model.js';
import { parseRobotsDirectives, tryUniqueKey } from '../../engine/index.js';

export interface IndexabilityVerdict {
  indexability: 'indexable' | 'non-indexable';
  /** Present when non-indexable. */
  reason?: IndexabilityReason;
}

const INDEXABLE: IndexabilityVerdict = Object.freeze({ indexability: 'indexable' });
const NON: Readonly<Record<IndexabilityReason, IndexabilityVerdict>> = Object.freeze({
  noindex: Object.freeze({ indexability: 'non-indexable', reason: 'noindex' }),
  canonicalised: Object.freeze({ indexability: 'non-indexable', reason: 'canonicalised' }),
  redirect: Object.freeze({ indexability: 'non-indexable', reason: 'redirect' }),
  'client-error': Object.freeze({ indexability: 'non-indexable', reason: 'client-error' }),
  'server-error': Object.freeze({ indexability: 'non-indexable', reason: 'server-error' }),
  'blocked-by-robots': Object.freeze({ indexability: 'non-indexable', reason: 'blocked-by-robots' }),
  'fetch-error': Object.freeze({ indexability: 'non-indexable', reason: 'fetch-error' }),
  'not-html': Object.freeze({ indexability: 'non-indexable', reason: 'not-html' }),
});

/**
 * The indexability of a URL whose latest result is `result`, handled in `state`; `uniqueKey` is the
 * URL's own (a canonical naming it is no canonicalisation). The objects returned are shared: frozen.
 */
export function indexabilityOf(state: 'done' | 'error' | 'blocked', result: UrlResult, uniqueKey: string): IndexabilityVerdict {
  if (state === 'blocked') return NON['blocked-by-robots'];
  if (state === 'error') return NON['fetch-error'];
  const status = result.status;
  if (result.redirectTo !== undefined || (status !== undefined && status >= 300 && status < 400)) return NON.redirect;
  if (status !== undefined && status >= 400 && status < 500) return NON['client-error'];
  if (status !== undefined && status >= 500 && status < 600) return NON['server-error'];
  if (status === undefined || status < 200 || status >= 300) return NON['fetch-error'];
  if (saysNoindex(result)) return NON.noindex;
  if (!isHtmlType(result.contentType)) return NON['not-html'];
  if (canonicalisedElsewhere(result.canonical, uniqueKey)) return NON.canonicalised;
  return INDEXABLE;
}

const HTML_TYPE = /\b(?:text\/html|application\/xhtml\+xml)\b/i;

/** Whether a Content-Type says HTML (text/html or application/xhtml+xml, any parameters). */
export function isHtmlType(contentType: string | undefined): boolean {
  return contentType !== undefined && HTML_TYPE.test(contentType);
}

/** Whether meta robots or X-Robots-Tag says noindex (or none), for any user agent. */
export function saysNoindex(r: Pick<UrlResult, 'metaRobots' | 'xRobotsTag'>): boolean {
  return (!!r.metaRobots && parseRobotsDirectives(r.metaRobots).noindex) || (!!r.xRobotsTag && parseRobotsDirectives(r.xRobotsTag).noindex);
}

/**
 * Whether a page's canonical names another URL than the one whose uniqueKey is `ownKey`. An
 * unparsable canonical is ignored by search engines: treated as absent.
 */
export function canonicalisedElsewhere(canonical: string | undefined, ownKey: string | undefined): boolean {
  if (canonical === undefined) return false;
  const key = tryUniqueKey(canonical);
  return key !== null && key !== ownKey;
}
