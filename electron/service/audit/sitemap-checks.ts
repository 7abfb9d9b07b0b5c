/**
 * Checks on one sitemap-tree node: what the node itself says (state, status, counts, the problem
 * codes the sitemap reader recorded) decides its sitemap findings. See README.md for the definitions.
 */
import type { SitemapNode } from '../../../shared/model.js';
import { PROTOCOL_MAX_BYTES, PROTOCOL_MAX_URLS } from '../../engine/index.js';
import { SITEMAP_FINDING_CODES, type SitemapFindingCode } from './types.js';

/** Bit of each sitemap finding in a node's mask. */
export const SITEMAP_BIT = Object.fromEntries(SITEMAP_FINDING_CODES.map((c, i) => [c, 1 << i])) as Record<SitemapFindingCode, number>;

/** Reader problems that mean "answered, but this is no readable sitemap". */
const UNREADABLE = new Set(['NOT_A_SITEMAP', 'MALFORMED_XML', 'DOCTYPE_REFUSED', 'GZIP_ERROR', 'TOKEN_TOO_LARGE']);
/** Reader problems that mean "past the protocol's 50 MiB" (or the harder caps behind it). */
const TOO_LARGE = new Set(['SITEMAP_TOO_LARGE', 'SIZE_LIMIT', 'INFLATE_LIMIT', 'EBODY_TOO_LARGE']);

/**
 * The sitemap findings of one node. `parent` is its tree parent when known; `announced` says
 * whether robots.txt announces it (itself or an ancestor), null when robots.txt was not read.
 */
export function nodeFindingMask(n: SitemapNode, parent: SitemapNode | undefined, announced: boolean | null): number {
  if (n.type === 'robots') return 0;
  let m = 0;
  // Every code the node met: those it stores, and those only counted once it held its maximum.
  const codes = new Set([...n.problems.map((p) => p.code), ...Object.keys(n.problemCounts ?? {})]);
  const attempted = n.state === 'done' || n.state === 'error';
  const unreadable = [...codes].some((c) => UNREADABLE.has(c));

  if (attempted && (n.httpStatus === undefined ? n.state === 'error' : n.httpStatus !== 200)) m |= SITEMAP_BIT.SITEMAP_NOT_200;
  if (unreadable && n.httpStatus !== undefined && n.httpStatus >= 200 && n.httpStatus < 300) m |= SITEMAP_BIT.NOT_A_SITEMAP;
  if (n.state === 'done' && n.urlCount === 0 && n.childCount === 0 && !codes.has('URL_LIMIT_REACHED') && (n.httpStatus === undefined || n.httpStatus === 200)) {
    m |= SITEMAP_BIT.SITEMAP_EMPTY;
  }
  if (codes.has('TOO_MANY_URLS') || n.urlCount > PROTOCOL_MAX_URLS || n.childCount > PROTOCOL_MAX_URLS) {
    m |= SITEMAP_BIT.SITEMAP_TOO_MANY_URLS;
  }
  if ([...codes].some((c) => TOO_LARGE.has(c)) || n.uncompressedBytes > PROTOCOL_MAX_BYTES) m |= SITEMAP_BIT.SITEMAP_TOO_LARGE;
  if (n.type === 'sitemapindex' && parent?.type === 'sitemapindex') m |= SITEMAP_BIT.NESTED_INDEX;
  if (announced === false) m |= SITEMAP_BIT.SITEMAP_NOT_IN_ROBOTS;
  return m;
}
