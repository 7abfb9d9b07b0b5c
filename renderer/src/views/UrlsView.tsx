/** The live URL table: virtualised, pulled a page at a time, with filters, search and a detail pane. */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { CrawlSummary, UrlRow, UrlSortKey } from '../../../shared/model.js';
import { EmptyState, ErrorState, HttpStatus } from '../components/Bits.js';
import { Icon } from '../components/Icon.js';
import { MultiSelect, TriToggle } from '../components/MultiSelect.js';
import { VirtualTable, type Column } from '../components/VirtualTable.js';
import { usePagedRows } from '../hooks/usePagedRows.js';
import { formatCount, lastSegment } from '../logic/format.js';
import { ALL_SOURCES, ALL_STATES, ALL_STATUS_CLASSES, emptyFilter, filterKey, isFiltered, nextSort, pageQuery } from '../logic/url-query.js';
import { SOURCE_LABEL, STATE_LABEL, STATUS_CLASS_LABEL } from '../logic/labels.js';
import { getApi, loadFindings, selectNode, selectUrl, setFilter, useApp } from '../store/app-store.js';
import { UrlDetailPane } from './UrlDetail.js';

const COLUMNS: Column[] = [
  { id: 'id', label: '#', width: 64, sortKey: 'id', align: 'right' },
  { id: 'url', label: 'URL', width: 380, sortKey: 'url', grow: true },
  { id: 'state', label: 'State', width: 82, sortKey: 'state' },
  { id: 'source', label: 'Source', width: 72, sortKey: 'source' },
  { id: 'depth', label: 'Depth', width: 56, sortKey: 'depth', align: 'right' },
  { id: 'status', label: 'Status', width: 60, sortKey: 'status', align: 'right' },
  { id: 'contentType', label: 'Content type', width: 150 },
  { id: 'inSitemaps', label: 'In sitemaps', width: 90, align: 'right', title: 'How many sitemaps list the URL' },
  { id: 'lastmod', label: 'Lastmod', width: 160, sortKey: 'lastmod' },
  { id: 'title', label: 'Title', width: 320, sortKey: 'title' },
];

export function UrlsView({ crawl }: { crawl: CrawlSummary }) {
  const filter = useApp((s) => s.byCrawl[crawl.id]?.filter) ?? emptyFilter();
  const version = useApp((s) => s.byCrawl[crawl.id]?.urlVersion ?? 0);
  const selected = useApp((s) => s.byCrawl[crawl.id]?.selectedUrl ?? null);
  // A finding filter read while a reopened crawl's audit was still being rebuilt is read again once it is complete.
  const auditPartial = useApp((s) => !!filter.finding && !!s.byCrawl[crawl.id]?.findings?.computing);
  useEffect(() => {
    if (filter.finding) void loadFindings(crawl.id);
  }, [filter.finding, crawl.id]);
  const key = `${crawl.id}|${filterKey(filter)}${auditPartial ? '|partial' : ''}`;
  const fetchPage = useCallback(
    (offset: number, limit: number) => getApi().queryUrls({ id: crawl.id, query: pageQuery(filter, offset, limit) }),
    // The key captures the filter: a new function only when the list changes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [key],
  );
  const live = crawl.status === 'running';
  const paged = usePagedRows<UrlRow>({ resetKey: key, version: live ? version : 0, fetchPage });
  const total = paged.total ?? 0;
  const [activeIndex, setActiveIndex] = useState<number | null>(null);
  useEffect(() => setActiveIndex(null), [key]);

  const renderCells = (i: number) => {
    const r = paged.row(i);
    if (!r) return null;
    return [
      <span className="num muted">{r.id}</span>,
      <span className="url-cell" title={r.url}>
        {r.url}
      </span>,
      <span className={`state state-${r.state}`}>{STATE_LABEL[r.state]}</span>,
      <span className={`src src-${r.source}`}>{SOURCE_LABEL[r.source]}</span>,
      <span className="num">{r.depth}</span>,
      <HttpStatus status={r.status} />,
      <span className="muted ellipsis" title={r.contentType}>
        {r.contentType ?? ''}
      </span>,
      r.inSitemaps.length ? (
        <span className="num" title={r.inSitemaps.join('\n')}>
          {r.inSitemaps.length}
        </span>
      ) : (
        <span className="muted">—</span>
      ),
      <span className="mono-num ellipsis">{r.lastmod ?? ''}</span>,
      <span className="ellipsis" title={r.title}>
        {r.title ?? ''}
      </span>,
    ];
  };

  const choose = (i: number) => {
    const r = paged.row(i);
    setActiveIndex(i);
    if (r) selectUrl(crawl.id, r.id);
  };

  return (
    <div className={`urls${selected !== null ? ' with-detail' : ''}`}>
      <FilterBar crawl={crawl} total={paged.total} />
      <div className="urls-body">
        <div className="urls-table">
          {paged.error && paged.total === null ? (
            <ErrorState title="Could not load the URLs" message={paged.error} onRetry={paged.retry} />
          ) : (
            <VirtualTable
              ariaLabel="URLs"
              testId="url-table"
              columns={COLUMNS}
              count={total}
              renderCells={renderCells}
              rowKey={(i) => paged.row(i)?.id ?? `p${i}`}
              rowClass={(i) => {
                const r = paged.row(i);
                return r && r.id === selected ? 'selected' : '';
              }}
              activeIndex={activeIndex}
              onRowClick={choose}
              onMove={(d) => choose(Math.max(0, Math.min(total - 1, (activeIndex ?? -1) + d)))}
              sort={filter.sort}
              onSort={(k) => setFilter(crawl.id, (f) => ({ ...f, sort: nextSort(f.sort, k as UrlSortKey) }))}
              onRangeChange={paged.setRange}
              resetKey={key}
              empty={
                paged.loading ? (
                  <div className="loading-rows" role="status">
                    Loading URLs…
                  </div>
                ) : isFiltered(filter) ? (
                  <EmptyState title="No URLs match this filter" icon="filter">
                    <button type="button" className="btn" onClick={() => setFilter(crawl.id, (f) => ({ ...emptyFilter(), sort: f.sort }))}>
                      Clear the filter
                    </button>
                  </EmptyState>
                ) : crawl.status === 'created' ? (
                  <EmptyState title="No URLs yet">Start the crawl: URLs appear here as soon as they are found.</EmptyState>
                ) : (
                  <EmptyState title="No URLs yet">{live ? 'Waiting for robots.txt and the first sitemaps…' : 'This crawl found no URLs.'}</EmptyState>
                )
              }
            />
          )}
          {paged.error && paged.total !== null && (
            <div className="inline-error" role="alert">
              Some rows could not be loaded: {paged.error}{' '}
              <button type="button" className="link-btn" onClick={paged.retry}>
                Retry
              </button>
            </div>
          )}
        </div>
        {selected !== null && <UrlDetailPane crawlId={crawl.id} urlId={selected} live={live} version={version} onClose={() => selectUrl(crawl.id, null)} />}
      </div>
    </div>
  );
}

function FilterBar({ crawl, total }: { crawl: CrawlSummary; total: number | null }) {
  const filter = useApp((s) => s.byCrawl[crawl.id]?.filter) ?? emptyFilter();
  const [search, setSearch] = useState(filter.search);
  // Typing is debounced so that each key press does not query main.
  useEffect(() => {
    if (search === filter.search) return;
    const t = setTimeout(() => setFilter(crawl.id, (f) => ({ ...f, search })), 250);
    return () => clearTimeout(t);
  }, [search, filter.search, crawl.id]);
  useEffect(() => setSearch(filter.search), [filter.search]);
  const stateOpts = useMemo(() => ALL_STATES.map((s) => ({ value: s, label: STATE_LABEL[s], tone: `tone-state-${s}` })), []);
  const sourceOpts = useMemo(() => ALL_SOURCES.map((s) => ({ value: s, label: SOURCE_LABEL[s] })), []);
  const statusOpts = useMemo(() => ALL_STATUS_CLASSES.map((s) => ({ value: s, label: STATUS_CLASS_LABEL[s], tone: `tone-${s}` })), []);
  const upd = (patch: Partial<typeof filter>) => setFilter(crawl.id, (f) => ({ ...f, ...patch }));
  return (
    <div className="filterbar">
      <div className="search">
        <Icon name="search" size={14} />
        <input
          type="search"
          placeholder="Search URL or title"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && upd({ search })}
          aria-label="Search URLs"
          data-testid="url-search"
        />
      </div>
      <MultiSelect label="State" options={stateOpts} selected={filter.states} onChange={(states) => upd({ states })} testId="filter-state" />
      <MultiSelect label="Source" options={sourceOpts} selected={filter.sources} onChange={(sources) => upd({ sources })} testId="filter-source" />
      <MultiSelect label="Status" options={statusOpts} selected={filter.statusClasses} onChange={(statusClasses) => upd({ statusClasses })} testId="filter-status" />
      <TriToggle label="In sitemap" value={filter.inSitemap} onChange={(inSitemap) => upd({ inSitemap })} yes="Yes" no="No" testId="filter-insitemap" />
      <TriToggle label="Blocked" value={filter.blocked} onChange={(blocked) => upd({ blocked })} yes="Yes" no="No" testId="filter-blocked" />
      {filter.sitemapId && (
        <span className="chip" data-testid="sitemap-chip" title={filter.sitemapUrl ?? filter.sitemapId}>
          <Icon name="sitemap" size={12} /> {lastSegment(filter.sitemapUrl ?? filter.sitemapId)}
          <button type="button" className="chip-x" aria-label="Remove the sitemap filter" onClick={() => selectNode(crawl.id, null)}>
            <Icon name="close" size={11} />
          </button>
        </span>
      )}
      {filter.finding && (
        <span className="chip" data-testid="finding-chip" data-code={filter.finding} title={`Issue: ${filter.findingTitle ?? ''} (${filter.finding})`}>
          <Icon name="flag" size={12} /> {filter.findingTitle ?? filter.finding}
          <button
            type="button"
            className="chip-x"
            aria-label="Remove the issue filter"
            onClick={() => setFilter(crawl.id, (f) => ({ ...f, finding: null, findingTitle: null }))}
          >
            <Icon name="close" size={11} />
          </button>
        </span>
      )}
      {isFiltered(filter) && (
        <button type="button" className="link-btn" onClick={() => setFilter(crawl.id, (f) => ({ ...emptyFilter(), sort: f.sort }))}>
          Clear all
        </button>
      )}
      <span className="filterbar-count num" data-testid="url-count" data-total={total ?? ''}>
        {total === null ? '…' : `${formatCount(total)} ${total === 1 ? 'URL' : 'URLs'}`}
        {isFiltered(filter) && total !== null && <span className="muted"> of {formatCount(crawl.counters.discovered)}</span>}
      </span>
    </div>
  );
}
