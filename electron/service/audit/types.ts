/**
 * Types of the sitemap audit: finding codes, their definitions, and the Finding reported.
 * The Finding shape is the shared model's AuditFinding (the renderer and the contract use it too).
 */
import type { AuditFinding, AuditSeverity } from '../../../shared/model.js';

export type Finding = AuditFinding;
export type Severity = AuditSeverity;

/** Findings about URLs of the crawl; their members are URL ids. Order = bit position in a URL's mask. */
export const URL_FINDING_CODES = [
  'SITEMAP_URL_4XX',
  'SITEMAP_URL_5XX',
  'SITEMAP_URL_REDIRECT',
  'SITEMAP_URL_TIMEOUT',
  'SITEMAP_URL_ERROR',
  'SITEMAP_URL_NOINDEX',
  'SITEMAP_URL_CANONICALISED',
  'SITEMAP_URL_BLOCKED',
  'INDEXABLE_NOT_IN_SITEMAP',
  'SITEMAP_ORPHAN',
  'URL_IN_MULTIPLE_SITEMAPS',
  'DUPLICATE_IN_SITEMAP',
  'SITEMAP_URL_OUT_OF_SCOPE',
  'SITEMAP_HOST_VARIANT',
  'SITEMAP_INVALID_LASTMOD',
  'SITEMAP_FUTURE_LASTMOD',
  'HREFLANG_NOT_RECIPROCAL',
  'HREFLANG_TARGET_NOT_200',
  'HREFLANG_INVALID_CODE',
  'HREFLANG_NO_SELF',
  'HREFLANG_TARGET_NOT_INDEXABLE',
  'REDIRECT_CHAIN',
  'REDIRECT_LOOP',
  // Page findings (issue 22): bits 23–31 of the 32-bit mask (the last one its sign bit: masks are bits, never compared as numbers).
  'BROKEN_INTERNAL_LINK',
  'LINK_TO_REDIRECT',
  'LINKED_NON_INDEXABLE',
  'MISSING_TITLE',
  'DUPLICATE_TITLE',
  'MISSING_META_DESCRIPTION',
  'DUPLICATE_META_DESCRIPTION',
  'MISSING_H1',
  'MULTIPLE_H1',
] as const;

/** Findings about sitemap documents; their members are sitemap URLs. Order = bit position in a node's mask. */
export const SITEMAP_FINDING_CODES = [
  'SITEMAP_NOT_200',
  'NOT_A_SITEMAP',
  'SITEMAP_EMPTY',
  'SITEMAP_TOO_MANY_URLS',
  'SITEMAP_TOO_LARGE',
  'NESTED_INDEX',
  'SITEMAP_NOT_IN_ROBOTS',
  'SITEMAP_UNIFORM_LASTMOD',
] as const;

/**
 * "Is lastmod true?" (issue 23): URL findings that weigh a listed URL's lastmod against the evidence
 * (its Last-Modified header; across two crawls, its content hash). Their members are URL ids; they
 * have a mask of their own (the 32-bit URL mask has no room left), see LASTMOD in engine.ts.
 */
export const LASTMOD_FINDING_CODES = ['LASTMOD_AFTER_LAST_MODIFIED', 'LASTMOD_FAKE_FRESH', 'LASTMOD_STALE'] as const;
export type LastmodFindingCode = (typeof LASTMOD_FINDING_CODES)[number];

export type UrlFindingCode = (typeof URL_FINDING_CODES)[number];

/** The page findings (issue 22): about links between crawled pages and their on-page fields. */
export const PAGE_FINDING_CODES: readonly UrlFindingCode[] = URL_FINDING_CODES.slice(URL_FINDING_CODES.indexOf('BROKEN_INTERNAL_LINK'));
export type SitemapFindingCode = (typeof SITEMAP_FINDING_CODES)[number];
export type FindingCode = UrlFindingCode | LastmodFindingCode | SitemapFindingCode;

/**
 * What a finding needs from the crawl to be measured:
 * 'none' — sitemaps alone; 'pages' — page fetches; 'links' — page fetches with links followed;
 * 'robots' — robots.txt read for its Sitemap: lines; 'previous' — page fetches and a previous crawl
 * of the site (a recrawl: AuditEngineOptions.previous).
 */
export type FindingNeeds = 'none' | 'pages' | 'links' | 'robots' | 'previous';

/** What the previous crawl knew of one URL, for the cross-crawl lastmod findings. */
export interface PreviousUrlFacts {
  /**
   * The lastmod its sitemaps gave it: the latest valid one among its listings (fold them with
   * laterLastmod, engine.ts), as written. A value that is not a W3C Datetime is no evidence.
   */
  lastmod?: string;
  /** The same as an instant (ms since 1970 UTC), which wins over `lastmod` when given (PreviousFacts gives it). */
  lastmodMs?: number;
  /** The contentHash (facts `ch`) of its latest result, when that was a 2xx HTML page. */
  contentHash?: string;
}

/**
 * The previous crawl's facts of a URL by its uniqueKey; undefined when that crawl did not have it.
 * Called once per listing with a lastmod and once per result: it should answer from an index (a Map or
 * the recrawl's base index), not a scan.
 */
export type PreviousCrawlLookup = (uniqueKey: string) => PreviousUrlFacts | undefined;

/** The fixed part of a finding: everything but its count and whether it was measured. */
export interface FindingDefinition {
  code: FindingCode;
  severity: Severity;
  title: string;
  explanation: string;
  subject: 'url' | 'sitemap';
  needs: FindingNeeds;
}

/** How far a sitemap's lastmods agree with the evidence (SitemapNode.lastmodTrust). */
export interface LastmodTrust {
  /** Its listed URLs with a valid lastmod and evidence to judge it by (Last-Modified; previous crawl's lastmod and content). */
  judged: number;
  /** Those in none of LASTMOD_AFTER_LAST_MODIFIED, LASTMOD_FAKE_FRESH, LASTMOD_STALE. */
  agree: number;
}

/** The findings of one sitemap (a badge in the tree): its own codes, and listings it holds per URL code. */
export interface SitemapBadge {
  code: FindingCode;
  /** 1 for a sitemap finding; for a URL finding, how many of this sitemap's listings have the problem. */
  count: number;
}
