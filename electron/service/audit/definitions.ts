/**
 * The catalogue of audit findings: code, severity, title, one actionable line, subject and what
 * the crawl must have done to measure it. The order here is the order findings are reported in.
 * README.md beside this file defines each finding precisely.
 */
import type { FindingCode, FindingDefinition } from './types.js';

export const FINDING_DEFINITIONS: readonly FindingDefinition[] = [
  // ---------------------------------------------------------------- critical
  {
    code: 'SITEMAP_URL_4XX',
    severity: 'critical',
    title: 'Sitemap URLs answering 4xx',
    explanation: 'Remove these URLs from the sitemaps, or restore the pages: search engines only want live pages listed.',
    subject: 'url',
    needs: 'pages',
  },
  {
    code: 'SITEMAP_URL_5XX',
    severity: 'critical',
    title: 'Sitemap URLs answering 5xx',
    explanation: 'Fix the server errors on these listed pages; repeated 5xx make search engines crawl the site less.',
    subject: 'url',
    needs: 'pages',
  },
  {
    code: 'SITEMAP_URL_NOINDEX',
    severity: 'critical',
    title: 'Sitemap URLs marked noindex',
    explanation: 'These listed pages say noindex (meta robots or X-Robots-Tag): drop them from the sitemaps or remove the noindex.',
    subject: 'url',
    needs: 'pages',
  },
  {
    code: 'SITEMAP_URL_BLOCKED',
    severity: 'critical',
    title: 'Sitemap URLs blocked by robots.txt',
    explanation: 'robots.txt forbids fetching these listed URLs: unblock them or remove them from the sitemaps.',
    subject: 'url',
    needs: 'pages',
  },
  {
    code: 'SITEMAP_NOT_200',
    severity: 'critical',
    title: 'Sitemaps not answering 200',
    explanation: 'These sitemaps answered another status or no answer at all: fix their address or the server, or stop announcing them.',
    subject: 'sitemap',
    needs: 'none',
  },
  {
    code: 'NOT_A_SITEMAP',
    severity: 'critical',
    title: 'Not a readable sitemap',
    explanation: 'These addresses answered 200 with something that is not a well-formed sitemap (HTML, broken XML, bad gzip): fix the file.',
    subject: 'sitemap',
    needs: 'none',
  },
  {
    code: 'SITEMAP_TOO_MANY_URLS',
    severity: 'critical',
    title: 'Sitemaps with more than 50,000 URLs',
    explanation: 'Split these sitemaps into files of at most 50,000 URLs under a sitemap index; search engines may ignore the rest.',
    subject: 'sitemap',
    needs: 'none',
  },
  {
    code: 'SITEMAP_TOO_LARGE',
    severity: 'critical',
    title: 'Sitemaps larger than 50 MB uncompressed',
    explanation: 'Split these sitemaps so each is at most 50 MiB uncompressed; search engines may refuse larger files.',
    subject: 'sitemap',
    needs: 'none',
  },
  // ---------------------------------------------------------------- warning
  {
    code: 'SITEMAP_URL_REDIRECT',
    severity: 'warning',
    title: 'Sitemap URLs that redirect',
    explanation: 'List the redirect targets instead of these URLs: sitemaps should name final addresses only.',
    subject: 'url',
    needs: 'pages',
  },
  {
    code: 'SITEMAP_URL_TIMEOUT',
    severity: 'warning',
    title: 'Sitemap URLs that timed out',
    explanation: 'These listed pages did not answer in time: check the server’s speed for them, then crawl again.',
    subject: 'url',
    needs: 'pages',
  },
  {
    code: 'SITEMAP_URL_ERROR',
    severity: 'warning',
    title: 'Sitemap URLs that failed to load',
    explanation: 'Fetching these listed URLs failed (connection, TLS, body too large…): see each URL’s error and fix the cause.',
    subject: 'url',
    needs: 'pages',
  },
  {
    code: 'SITEMAP_URL_CANONICALISED',
    severity: 'warning',
    title: 'Sitemap URLs canonicalised elsewhere',
    explanation: 'These listed pages name another URL as canonical: list the canonical URL instead, or fix the canonical tag.',
    subject: 'url',
    needs: 'pages',
  },
  {
    code: 'INDEXABLE_NOT_IN_SITEMAP',
    severity: 'warning',
    title: 'Indexable pages missing from the sitemaps',
    explanation: 'These crawled pages are indexable but in no sitemap: add them, or noindex/canonicalise them if they should not rank.',
    subject: 'url',
    needs: 'pages',
  },
  {
    code: 'SITEMAP_URL_OUT_OF_SCOPE',
    severity: 'warning',
    title: 'Sitemap URLs outside the sitemap’s location',
    explanation: 'A sitemap may only list URLs on its own scheme, host and under its folder: move these entries to a sitemap that covers them.',
    subject: 'url',
    needs: 'none',
  },
  {
    code: 'SITEMAP_HOST_VARIANT',
    severity: 'warning',
    title: 'Sitemap URLs on another scheme or host variant',
    explanation: 'These entries use http/https or www/apex unlike the crawled site: list the preferred variant only.',
    subject: 'url',
    needs: 'none',
  },
  {
    code: 'SITEMAP_INVALID_LASTMOD',
    severity: 'warning',
    title: 'Invalid lastmod dates',
    explanation: 'Write <lastmod> as a W3C Datetime (2024-05-31 or 2024-05-31T12:00:00+00:00); invalid dates are ignored.',
    subject: 'url',
    needs: 'none',
  },
  {
    code: 'NESTED_INDEX',
    severity: 'warning',
    title: 'Sitemap indexes inside sitemap indexes',
    explanation: 'An index may only list sitemaps, not other indexes: search engines do not follow nested indexes. Flatten them.',
    subject: 'sitemap',
    needs: 'none',
  },
  {
    code: 'SITEMAP_EMPTY',
    severity: 'warning',
    title: 'Empty sitemaps',
    explanation: 'These sitemaps list no URL and no sitemap: fill them or stop announcing them.',
    subject: 'sitemap',
    needs: 'none',
  },
  {
    code: 'HREFLANG_NOT_RECIPROCAL',
    severity: 'warning',
    title: 'hreflang alternates without a return link',
    explanation: 'Each alternate must list this URL back in its own sitemap entry; search engines ignore one-way hreflang.',
    subject: 'url',
    needs: 'none',
  },
  {
    code: 'HREFLANG_TARGET_NOT_200',
    severity: 'warning',
    title: 'hreflang alternates that do not answer 200',
    explanation: 'These URLs’ sitemap alternates redirect, fail or answer an error: point hreflang at live, final URLs.',
    subject: 'url',
    needs: 'pages',
  },
  {
    code: 'HREFLANG_INVALID_CODE',
    severity: 'warning',
    title: 'Invalid hreflang language or region codes',
    explanation: 'Use an ISO 639-1 language, optionally with an ISO 3166-1 region (en, en-GB, zh-Hant) or x-default.',
    subject: 'url',
    needs: 'none',
  },
  // ---------------------------------------------------------------- notice
  {
    code: 'SITEMAP_ORPHAN',
    severity: 'notice',
    title: 'Orphan sitemap URLs',
    explanation: 'No crawled page links to these listed URLs: link them from the site if they matter, or drop them.',
    subject: 'url',
    needs: 'links',
  },
  {
    code: 'URL_IN_MULTIPLE_SITEMAPS',
    severity: 'notice',
    title: 'URLs listed in more than one sitemap',
    explanation: 'List each URL in one sitemap only, so its lastmod and alternates cannot disagree.',
    subject: 'url',
    needs: 'none',
  },
  {
    code: 'DUPLICATE_IN_SITEMAP',
    severity: 'notice',
    title: 'URLs listed twice in one sitemap',
    explanation: 'Remove the repeated entries: each URL should appear once in a sitemap.',
    subject: 'url',
    needs: 'none',
  },
  {
    code: 'SITEMAP_FUTURE_LASTMOD',
    severity: 'notice',
    title: 'lastmod dates in the future',
    explanation: 'These <lastmod> dates lie more than a day ahead: write the real last modification date, or search engines stop trusting it.',
    subject: 'url',
    needs: 'none',
  },
  {
    code: 'SITEMAP_NOT_IN_ROBOTS',
    severity: 'notice',
    title: 'Sitemaps not announced in robots.txt',
    explanation: 'Add a Sitemap: line to robots.txt for these sitemaps (or for an index that lists them) so every search engine finds them.',
    subject: 'sitemap',
    needs: 'robots',
  },
];

/** The definition of a code, or undefined for an unknown code. */
export function definitionOf(code: string): FindingDefinition | undefined {
  return BY_CODE.get(code as FindingCode);
}

const BY_CODE = new Map(FINDING_DEFINITIONS.map((d) => [d.code, d]));
