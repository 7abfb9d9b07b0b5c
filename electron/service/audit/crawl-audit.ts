/**
 * The sitemap audit as the service serves it: the AuditEngine of one crawl built from its settings,
 * findings with the reason they were not measured, tree nodes with their badges, and the finding
 * filter of the URL table. The engine itself (audit/engine.ts) is fed by CrawlData and the crawler
 * hooks; this module only reads it.
 */
import type { AuditBadge, AuditFinding, CrawlSettings, SitemapNode } from '../../../shared/model.js';
import { AuditEngine, type UrlKeys } from './engine.js';
import { FINDING_DEFINITIONS, definitionOf } from './definitions.js';
import type { FindingDefinition, PreviousCrawlLookup } from './types.js';
import { ServiceError } from '../errors.js';

/**
 * The audit engine for a crawl with these settings, finding URLs through `keys` (the frontier).
 * `previous`: in a recrawl, the base crawl's lastmod and content hash per uniqueKey (the cross-crawl
 * lastmod findings are measured only with it).
 */
export function createAudit(settings: CrawlSettings, now: () => number, keys?: UrlKeys, previous?: PreviousCrawlLookup): AuditEngine {
  return new AuditEngine({
    // The crawl's own scheme and host: the start URL, or the first sitemap when there is none.
    crawlUrl: settings.startUrl || settings.sitemapUrls[0] || 'http://invalid.invalid/',
    pagesCrawled: settings.fetchPages,
    linksFollowed: settings.fetchPages && settings.followLinks,
    now,
    keys,
    previous,
  });
}

/** Why a finding that needs `needs` was not measured by a crawl with these settings. */
export function notMeasuredReason(d: FindingDefinition, settings: CrawlSettings): string {
  switch (d.needs) {
    case 'pages':
      return 'Pages were not fetched (a sitemap-listing run): crawl with page fetching on to measure it.';
    case 'links':
      return settings.fetchPages
        ? 'Links of the pages were not followed: crawl with link following on to measure it.'
        : 'Pages were not fetched (a sitemap-listing run), so no links were followed.';
    case 'previous':
      return settings.fetchPages
        ? 'Needs a previous crawl: use Crawl again on a finished crawl of this site to compare lastmods and content.'
        : 'Pages were not fetched (a sitemap-listing run), so their content could not be compared.';
    case 'robots':
      return settings.sitemapUrls.length > 0
        ? 'The crawl started from sitemaps given directly, so robots.txt was not read for its Sitemap: lines.'
        : 'robots.txt has not been read yet.';
    default:
      return 'Not measured.';
  }
}

/** Every finding of the audit, each not-measured one with its reason. */
export function findingsOf(audit: AuditEngine, settings: CrawlSettings): AuditFinding[] {
  return audit.findings().map((f) => (f.measured ? f : { ...f, notMeasuredReason: notMeasuredReason(definitionOf(f.code)!, settings) }));
}

/** The definition of a finding code, or ServiceError BAD_QUERY listing the known codes. */
export function findingDefinition(code: string): FindingDefinition {
  const d = typeof code === 'string' ? definitionOf(code) : undefined;
  if (!d) {
    throw new ServiceError('BAD_QUERY', `"${String(code)}" is not an audit finding; known codes: ${FINDING_DEFINITIONS.map((x) => x.code).join(', ')}.`);
  }
  return d;
}

/** A copy of `node` carrying its audit badges and lastmod trust (the tree's own node is left as the crawler made it). */
export function withBadges(audit: AuditEngine, node: SitemapNode): SitemapNode {
  if (node.type === 'robots') return node;
  const badges = audit.sitemapBadges(node.id);
  const trust = audit.lastmodTrust(node.id);
  // A node carried from another crawl brings no trust of its own: only this crawl's evidence counts.
  if (badges.length === 0 && trust === undefined && node.lastmodTrust === undefined) return node;
  const out: SitemapNode = { ...node };
  delete out.lastmodTrust;
  if (badges.length > 0) out.findings = badges.map((b): AuditBadge => ({ code: b.code, severity: definitionOf(b.code)!.severity, count: b.count }));
  if (trust !== undefined) out.lastmodTrust = trust;
  return out;
}
