/**
 * The URL table's columns: the one list to add a column to. Each is a field of the contract's UrlRow
 * (its key is the field's name, which is also its sort key: every column sorts), with its header,
 * default width, whether it is shown until the analyst chooses otherwise, and how a cell shows it.
 */
import type { ReactNode } from 'react';
import type { UrlRow, UrlSortKey } from '../../../shared/model.js';
import { HttpStatus } from '../components/Bits.js';
import type { ColumnMeta } from '../logic/columns.js';
import { SOURCE_HINT, SOURCE_LABEL, STATE_LABEL } from '../logic/labels.js';

export interface UrlColumn extends ColumnMeta {
  key: UrlSortKey;
  label: string;
  /** What the column holds, for the header's tooltip and the column chooser. */
  description: string;
  align?: 'right' | 'center';
  /** Takes the width left over while the analyst has not dragged it. */
  grow?: boolean;
  cell(row: UrlRow): ReactNode;
}

const none = <span className="muted">—</span>;

/** A URL in a cell: the whole of it on hover. */
function urlCell(url: string | undefined, self?: string): ReactNode {
  if (url === undefined) return '';
  if (self !== undefined && url === self) {
    return (
      <span className="muted" title={url}>
        self
      </span>
    );
  }
  return (
    <span className="url-cell" title={url}>
      {url}
    </span>
  );
}

export const URL_COLUMNS: UrlColumn[] = [
  {
    key: 'id',
    label: '#',
    width: 64,
    shown: true,
    align: 'right',
    description: 'The order the crawl found the URL in',
    cell: (r) => <span className="num muted">{r.id}</span>,
  },
  { key: 'url', label: 'URL', width: 380, shown: true, required: true, grow: true, description: 'The URL', cell: (r) => urlCell(r.url) },
  {
    key: 'state',
    label: 'State',
    width: 82,
    shown: true,
    description: 'Queued, fetched, failed, blocked by robots.txt, or listed only',
    cell: (r) => <span className={`state state-${r.state}`}>{STATE_LABEL[r.state]}</span>,
  },
  {
    key: 'source',
    label: 'Source',
    width: 80,
    shown: true,
    description: 'How the crawl first found the URL',
    cell: (r) => (
      <span className={`src src-${r.source}`} title={SOURCE_HINT[r.source]}>
        {SOURCE_LABEL[r.source]}
      </span>
    ),
  },
  {
    key: 'depth',
    label: 'Depth',
    width: 66,
    shown: true,
    align: 'right',
    description: 'Link depth from the start URL where it was first found (sitemap entries: 0)',
    cell: (r) => <span className="num">{r.depth}</span>,
  },
  {
    key: 'status',
    label: 'Status',
    width: 68,
    shown: true,
    align: 'right',
    description: 'The HTTP status it answered with',
    cell: (r) => <HttpStatus status={r.status} />,
  },
  {
    key: 'contentType',
    label: 'Content type',
    width: 150,
    shown: true,
    description: 'The Content-Type header of the answer',
    cell: (r) => (
      <span className="muted ellipsis" title={r.contentType}>
        {r.contentType ?? ''}
      </span>
    ),
  },
  {
    key: 'inSitemaps',
    label: 'In sitemaps',
    width: 100,
    shown: true,
    align: 'right',
    description: 'How many sitemaps list the URL',
    cell: (r) =>
      r.inSitemaps.length ? (
        <span className="num" title={r.inSitemaps.join('\n')}>
          {r.inSitemaps.length}
        </span>
      ) : (
        none
      ),
  },
  {
    key: 'lastmod',
    label: 'Lastmod',
    width: 160,
    shown: true,
    description: "The sitemap entry's <lastmod>",
    cell: (r) => <span className="mono-num ellipsis">{r.lastmod ?? ''}</span>,
  },
  {
    key: 'changefreq',
    label: 'Changefreq',
    width: 90,
    shown: false,
    description: "The sitemap entry's <changefreq>",
    cell: (r) => <span className="muted">{r.changefreq ?? ''}</span>,
  },
  {
    key: 'priority',
    label: 'Priority',
    width: 72,
    shown: false,
    align: 'right',
    description: "The sitemap entry's <priority>",
    cell: (r) => <span className="num">{r.priority === undefined ? '' : String(r.priority)}</span>,
  },
  {
    key: 'title',
    label: 'Title',
    width: 320,
    shown: true,
    description: "The page's <title>",
    cell: (r) => (
      <span className="ellipsis" title={r.title}>
        {r.title ?? ''}
      </span>
    ),
  },
  {
    key: 'redirectTo',
    label: 'Redirects to',
    width: 260,
    shown: false,
    description: 'Where a 3xx answer points (its Location)',
    cell: (r) => urlCell(r.redirectTo),
  },
  {
    key: 'canonical',
    label: 'Canonical',
    width: 260,
    shown: false,
    description: 'The page\'s canonical URL ("self" when it is the URL itself)',
    cell: (r) => urlCell(r.canonical, r.url),
  },
  {
    key: 'discoveredFrom',
    label: 'Found on',
    width: 260,
    shown: false,
    description: 'The page or sitemap that first led to the URL',
    cell: (r) => urlCell(r.discoveredFrom),
  },
  {
    key: 'blockedByRobots',
    label: 'Blocked',
    width: 70,
    shown: false,
    description: 'Disallowed by robots.txt',
    cell: (r) => (r.blockedByRobots ? <span className="badge badge-warn">robots.txt</span> : ''),
  },
  {
    key: 'error',
    label: 'Error',
    width: 170,
    shown: false,
    description: 'Why the fetch failed (timeout, connection reset, too large…)',
    cell: (r) =>
      r.error ? (
        <span className="text-error ellipsis mono small" title={r.error.message}>
          {r.error.code}
        </span>
      ) : (
        ''
      ),
  },
];

/** Where the analyst's choice of URL columns is kept (localStorage). */
export const URL_COLUMNS_KEY = 'spinneret.urlTable.columns';
