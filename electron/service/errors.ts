/**
 * ServiceError: what CrawlService throws. The code is stable (callers and the contract switch on it),
 * the message says what to do about it.
 */
import type { CrawlError } from '../../shared/model.js';

export type ServiceErrorCode =
  | 'NOT_FOUND' // no crawl with that id
  | 'BAD_SETTINGS' // settings failed validation; the message names the field
  | 'BAD_STATE' // the crawl's status does not allow the action (resume of a finished crawl, …)
  | 'BAD_QUERY' // a URL query out of range
  | 'DAMAGED' // the crawl's folder is missing its journals or they cannot be read
  | 'JOURNAL_WRITE_FAILED' // the journal could not be written (disk full, permission)
  | 'CATALOG_UNREADABLE' // the catalog file can neither be read nor moved aside
  | 'CRAWL_LOCKED' // another process has the crawl open for writing (run/resume)
  | 'SETTINGS_LOST' // the crawl's settings are gone (no catalog entry, no meta.json): it cannot run
  | 'BAD_LIST' // a list-mode crawl's URL list holds no URL, or a line that is none (the message names it)
  | 'BAD_CRAWL_FILE' // a crawl file is damaged, truncated or not one (nothing is imported)
  | 'NOT_IMPLEMENTED' // work in progress (issue 23): never in a release
  | 'CLOSED'; // the service was closed

export class ServiceError extends Error implements CrawlError {
  constructor(
    public readonly code: ServiceErrorCode | (string & {}),
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ServiceError';
  }
}

/** A CrawlError (code + message) from anything thrown. */
export function toCrawlError(err: unknown, fallback: string): CrawlError {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(e.code) ? e.code : fallback;
  const message = typeof e?.message === 'string' && e.message ? e.message : String(err);
  return { code, message };
}
