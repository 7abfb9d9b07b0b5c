/** The contract types the window uses, re-exported from shared/contract.ts with a few helpers. */
import type { UrlQuery } from '../../../shared/model.js';
export type { SpinneretApi, ExportResult, EventName, EventPayload } from '../../../shared/contract.js';

/** A CSV filter: a URL query without paging. */
export type ExportFilter = Omit<UrlQuery, 'offset' | 'limit'>;

/** An error answered by main: a stable code and a message for people. */
export interface ApiErrorLike {
  code: string;
  message: string;
}

/** Reads code and message off anything thrown by a transport. */
export function toApiError(err: unknown): ApiErrorLike {
  if (err && typeof err === 'object') {
    const e = err as { code?: unknown; message?: unknown };
    return {
      code: typeof e.code === 'string' ? e.code : 'UNKNOWN',
      message: typeof e.message === 'string' ? e.message : String(err),
    };
  }
  return { code: 'UNKNOWN', message: String(err) };
}
