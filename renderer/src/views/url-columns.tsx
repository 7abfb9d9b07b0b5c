/**
 * The URL table's columns: the one list to add a column to. Each is a field of the contract's UrlRow
 * (its key is the field's name, which is also its sort key: every column sorts), with its header,
 * default width, whether it is shown until the analyst chooses otherwise, and how a cell shows it.
 */
import type { ReactNode } from 'react';
import type { UrlRow, UrlSortKey } from '../../../shared/model.js';
import { HttpStatus } from '../components/Bits.js';
import type { ColumnMeta } from '../logic/columns.js';
import { formatBytes } from '../logic/format.js';
import { INDEXABILITY_LABEL, INDEXABILITY_REASON_LABEL, SOURCE_HINT, SOURCE_LABEL, STATE_LABEL } from '../logic/labels.js';

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

/** A page's text (meta description, H1) in a cell, the whole of it on hover; a missing or empty one is said to be. */
function textCell(text: string | undefined, count: number | undefined): ReactNode {
  if (text === undefined) return count === 0 ? <span className="muted">(none)</span> : '';
  if (text === '') return <span className="muted">(empty)</span>;
  return (
    <span className="ellipsis" title={text}>
      {text}
    </span>
  );
}

/** A count or a measure, right-aligned; nothing when the URL has none. */
const numCell = (n: number | undefined, unit = '') => (n === undefined ? '' : <span className="num">{n.toLocaleString('en-US') + unit}</span>);

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
    label: 'Discovery depth',
    width: 120,
    shown: false,
    align: 'right',
    description: 'Discovery depth: hops on the path by which it was first found (the start URL and sitemap entries: 0); Click depth is the fewest clicks',
    cell: (r) => <span className="num">{r.depth}</span>,
  },
  {
    key: 'clickDepth',
    label: 'Click depth',
    width: 96,
    shown: true,
    align: 'right',
    description: 'The fewest link clicks from the start URL (each redirect hop counts one); "none" when no chain of links reaches it',
    cell: (r) =>
      r.clickDepth === undefined ? (
        <span className="muted" title="No chain of links from the start URL reaches this URL (found only through sitemaps or other references)">
          none
        </span>
      ) : (
        <span className="num">{r.clickDepth}</span>
      ),
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
    key: 'indexability',
    label: 'Indexability',
    width: 124,
    shown: true,
    description: 'Whether a search engine may index it as crawled (hover for why not)',
    cell: (r) =>
      r.indexability === undefined ? (
        ''
      ) : r.indexability === 'indexable' ? (
        <span>{INDEXABILITY_LABEL.indexable}</span>
      ) : (
        <span className="badge badge-warn" title={r.indexabilityReason && INDEXABILITY_REASON_LABEL[r.indexabilityReason]}>
          {INDEXABILITY_LABEL['non-indexable']}
        </span>
      ),
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
  // Page data (issue 22), hidden until the analyst chooses them (indexability and click depth are shown above). Pages only: the on-page fields of 2xx HTML.
  {
    key: 'indexabilityReason',
    label: 'Reason',
    width: 150,
    shown: false,
    description: 'Why it is not indexable (the first reason that applies): robots.txt, a fetch error, a redirect, 4xx, 5xx, noindex, not HTML, canonicalised',
    cell: (r) => (r.indexabilityReason ? <span className="muted">{INDEXABILITY_REASON_LABEL[r.indexabilityReason]}</span> : ''),
  },
  // Links between crawled pages (issue 22): anchors and image-map areas only.
  {
    key: 'inlinks',
    label: 'Inlinks',
    width: 82,
    shown: false,
    align: 'right',
    description: 'Links from crawled pages to this URL (each link counted, several from one page too)',
    cell: (r) => numCell(r.inlinks),
  },
  {
    key: 'uniqueInlinks',
    label: 'Unique inlinks',
    width: 116,
    shown: false,
    align: 'right',
    description: 'Distinct crawled pages that link to this URL',
    cell: (r) => numCell(r.uniqueInlinks),
  },
  {
    key: 'outlinksInternal',
    label: 'Outlinks (internal)',
    width: 140,
    shown: false,
    align: 'right',
    description: "This page's links to URLs inside the crawl's scope",
    cell: (r) => numCell(r.outlinksInternal),
  },
  {
    key: 'outlinksExternal',
    label: 'Outlinks (external)',
    width: 142,
    shown: false,
    align: 'right',
    description: "This page's links to URLs outside the crawl's scope",
    cell: (r) => numCell(r.outlinksExternal),
  },
  {
    key: 'metaDescription',
    label: 'Meta description',
    width: 280,
    shown: false,
    description: 'The first <meta name="description">',
    cell: (r) => textCell(r.metaDescription, r.metaDescriptionCount),
  },
  {
    key: 'metaDescriptionCount',
    label: 'Descriptions',
    width: 112,
    shown: false,
    align: 'right',
    description: 'How many meta descriptions the page has (0: missing; 2 or more: repeated)',
    cell: (r) => numCell(r.metaDescriptionCount),
  },
  { key: 'h1', label: 'H1', width: 220, shown: false, description: "The page's first <h1>", cell: (r) => textCell(r.h1, r.h1Count) },
  { key: 'h1Count', label: 'H1s', width: 64, shown: false, align: 'right', description: 'How many <h1> the page has', cell: (r) => numCell(r.h1Count) },
  {
    key: 'lang',
    label: 'Lang',
    width: 64,
    shown: false,
    description: 'The page’s <html lang>',
    cell: (r) => (r.lang === undefined ? '' : r.lang === '' ? <span className="muted">(empty)</span> : <span className="mono small">{r.lang}</span>),
  },
  {
    key: 'wordCount',
    label: 'Words',
    width: 84,
    shown: false,
    align: 'right',
    description: 'Words of the visible text (not head, nav, scripts)',
    cell: (r) => numCell(r.wordCount),
  },
  {
    key: 'responseTimeMs',
    label: 'Response time',
    width: 128,
    shown: false,
    align: 'right',
    description: 'From sending the request to the last byte of the body',
    cell: (r) => numCell(r.responseTimeMs, ' ms'),
  },
  {
    key: 'sizeBytes',
    label: 'Size',
    width: 80,
    shown: false,
    align: 'right',
    description: 'The body, uncompressed',
    cell: (r) => (r.sizeBytes === undefined ? '' : <span className="num">{formatBytes(r.sizeBytes)}</span>),
  },
  {
    key: 'transferredBytes',
    label: 'Transferred',
    width: 106,
    shown: false,
    align: 'right',
    description: 'The body as it came over the wire (compressed when it was)',
    cell: (r) => (r.transferredBytes === undefined ? '' : <span className="num">{formatBytes(r.transferredBytes)}</span>),
  },
  {
    key: 'lastModified',
    label: 'Last-Modified',
    width: 200,
    shown: false,
    description: 'The Last-Modified response header',
    cell: (r) => <span className="mono-num ellipsis">{r.lastModified ?? ''}</span>,
  },
  {
    key: 'etag',
    label: 'ETag',
    width: 140,
    shown: false,
    description: 'The ETag response header',
    cell: (r) => (
      <span className="mono small ellipsis" title={r.etag}>
        {r.etag ?? ''}
      </span>
    ),
  },
  // Recrawl (issue 23).
  {
    key: 'carriedOver',
    label: 'Carried over',
    width: 106,
    shown: false,
    description: 'Recrawl: the result was kept from the base crawl (the server answered 304 Not Modified, or a changed-only recrawl did not fetch it)',
    cell: (r) =>
      r.carriedOver ? (
        <span
          className="badge badge-muted"
          data-testid="carried-over"
          title="Kept from the base crawl: 304 Not Modified, or not fetched by a changed-only recrawl"
        >
          carried over
        </span>
      ) : (
        ''
      ),
  },
];

/** Where the analyst's choice of URL columns is kept (localStorage). */
export const URL_COLUMNS_KEY = 'spinneret.urlTable.columns';

/** A recrawl's columns: the same, with "Carried over" shown until the analyst hides it. */
export const RECRAWL_COLUMNS: UrlColumn[] = URL_COLUMNS.filter((c) => c.key !== 'carriedOver').flatMap((c) =>
  c.key === 'status' ? [c, { ...URL_COLUMNS.find((x) => x.key === 'carriedOver')!, shown: true }] : [c],
);

/** Where the analyst's choice of a recrawl's URL columns is kept. */
export const RECRAWL_COLUMNS_KEY = 'spinneret.urlTable.columns.recrawl';
