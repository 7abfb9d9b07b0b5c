/** Words for the model's enums, as the analyst reads them. */
import type { RequestSource, StatusClass, UrlState } from '../../../shared/model.js';

export const STATE_LABEL: Record<UrlState, string> = {
  queued: 'Queued',
  fetching: 'Fetching',
  done: 'Fetched',
  error: 'Error',
  blocked: 'Blocked',
  listed: 'Listed',
};

export const SOURCE_LABEL: Record<RequestSource, string> = { start: 'Start', robots: 'robots', sitemap: 'Sitemap', link: 'Link' };

export const STATUS_CLASS_LABEL: Record<StatusClass, string> = {
  '2xx': '2xx',
  '3xx': '3xx',
  '4xx': '4xx',
  '5xx': '5xx',
  other: 'Other',
  none: 'No status',
};
