/**
 * The links export's table: one row per `<a href>`/`<area href>` link of a crawled page, written by
 * the project's one CSV writer (csv.ts: same encoding, formula guard and backpressure as the URLs).
 */
import { LINK_FINDING_CODES, type PageLinkRow } from '../../../shared/model.js';
import { ServiceError } from '../errors.js';
import type { LinksExport } from '../types.js';
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

/**
 * Throws what a links export refuses whatever the crawl holds (options that do not go together, a
 * finding without a links export), so the window, browser mode and the CLI refuse it before a file is made.
 */
export function checkLinksExport(opts: LinksExport): void {
  const { urlId, direction, finding } = opts;
  if (finding !== undefined) {
    if (urlId !== undefined || direction !== undefined) {
      throw new ServiceError(
        'BAD_QUERY',
        "A finding's links export holds every link to the finding's URLs: give the finding alone, without a URL or direction.",
      );
    }
    if (!LINK_FINDING_CODES.includes(finding)) {
      throw new ServiceError(
        'BAD_QUERY',
        `"${String(finding)}" has no links export: only ${LINK_FINDING_CODES.join(', ')} (findings whose URLs pages link to) have one. Export its URLs with the URL CSV.`,
      );
    }
    return;
  }
  if (urlId === undefined && direction !== undefined) {
    throw new ServiceError(
      'BAD_QUERY',
      `A links export with direction "${String(direction)}" needs the URL (urlId) whose links to export; without both, every link is exported.`,
    );
  }
}
