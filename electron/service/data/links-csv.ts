/**
 * The links export's table: one row per `<a href>`/`<area href>` link of a crawled page, written by
 * the project's one CSV writer (csv.ts: same encoding, formula guard and backpressure as the URLs).
 */
import type { PageLinkRow } from '../../../shared/model.js';
import { guardCell } from './csv.js';

/**
 * The header, exactly, in this order: the one list of the links export's columns (the CLI's help
 * prints it, and a test holds the README's line to it).
 */
export const LINK_CSV_COLUMNS = ['source', 'target', 'anchor', 'target_status', 'nofollow', 'external'] as const;

/**
 * What target_status says: the target's HTTP status when it answered; `error` (the fetch failed)
 * or `blocked` (robots.txt) when it was handled without one; empty when the crawl has no answer for
 * it (still queued, listed only, outside the scope, or not in the crawl at all).
 */
export function targetStatus(link: PageLinkRow): string {
  if (link.toStatus !== undefined) return String(link.toStatus);
  return link.toState === 'error' || link.toState === 'blocked' ? link.toState : '';
}

/** The cells of one link, in LINK_CSV_COLUMNS order, guarded against formula injection. */
export function linkCsvCells(link: PageLinkRow): string[] {
  return [
    guardCell(link.fromUrl),
    guardCell(link.toUrl),
    guardCell(link.anchor),
    targetStatus(link),
    link.nofollow ? 'true' : 'false',
    link.external ? 'true' : 'false',
  ];
}
