/**
 * The live URL table: virtualised, pulled a page at a time, with the columns the analyst chose (and
 * sized), filters named by chips, search and a detail pane.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { CrawlSummary, UrlRow, UrlSortKey } from '../../../shared/model.js';
import { EmptyState, ErrorState } from '../components/Bits.js';
import { ColumnChooser } from '../components/ColumnChooser.js';
import { Icon } from '../components/Icon.js';
import { MultiSelect, TriToggle } from '../components/MultiSelect.js';
import { PageFilters } from '../components/PageFilters.js';
import { StatusFilter } from '../components/StatusFilter.js';
import { VirtualTable, type Column } from '../components/VirtualTable.js';
import { useColumnPrefs } from '../hooks/useColumnPrefs.js';
import { usePagedRows } from '../hooks/usePagedRows.js';
import { defaultPrefs, resizeColumn, toggleColumn, visibleColumns, widthOf } from '../logic/columns.js';
import { formatCount } from '../logic/format.js';
import {
  ALL_SOURCES,
  ALL_STATES,
  emptyFilter,
  filterChips,
  filterKey,
  isFiltered,
  nextSort,
  pageQuery,
  removeChip,
  type FilterChip,
} from '../logic/url-query.js';
import { SOURCE_LABEL, STATE_LABEL } from '../logic/labels.js';
import { clearFilters, getApi, loadFindings, selectNode, selectUrl, setFilter, useApp } from '../store/app-store.js';
import { UrlDetailPane } from './UrlDetail.js';
import { RECRAWL_COLUMNS, RECRAWL_COLUMNS_KEY, URL_COLUMNS, URL_COLUMNS_KEY } from './url-columns.js';

/**
 * A recrawl's table has a column choice of its own, with "Carried over" shown until the analyst
 * hides it (keyed: switching between a recrawl and another crawl reads the other choice).
 */
export function UrlsView({ crawl }: { crawl: CrawlSummary }) {
  const recrawl = !!crawl.baseId;
  return (
    <UrlsTable
      key={recrawl ? 'recrawl' : 'crawl'}
      crawl={crawl}
      columnsKey={recrawl ? RECRAWL_COLUMNS_KEY : URL_COLUMNS_KEY}
      all={recrawl ? RECRAWL_COLUMNS : URL_COLUMNS}
    />
  );
}

function UrlsTable({ crawl, columnsKey, all }: { crawl: CrawlSummary; columnsKey: string; all: typeof URL_COLUMNS }) {
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

  const [prefs, updatePrefs] = useColumnPrefs(columnsKey, all);
  const shown = useMemo(() => visibleColumns(prefs, all), [prefs, all]);
  const columns: Column[] = shown.map((c) => ({
    id: c.key,
    label: c.label,
    width: widthOf(prefs, c),
    sortKey: c.key,
    align: c.align,
    title: `${c.description}. Click to sort.`,
    grow: c.grow && prefs.widths[c.key] === undefined,
  }));
  const toggle = (key: UrlSortKey) => {
    // Hiding the column the table is sorted by: back to the crawl's order, not a sort nobody can see.
    if (filter.sort.key === key && prefs.shown.includes(key)) setFilter(crawl.id, (f) => ({ ...f, sort: emptyFilter().sort }));
    updatePrefs((p) => toggleColumn(p, all, key));
  };
  const initial = defaultPrefs(all);
  const customised = Object.keys(prefs.widths).length > 0 || prefs.shown.join() !== initial.shown.join();

  const renderCells = (i: number) => {
    const r = paged.row(i);
    return r ? shown.map((c) => c.cell(r)) : null;
  };

  const choose = (i: number) => {
    const r = paged.row(i);
    setActiveIndex(i);
    if (r) selectUrl(crawl.id, r.id);
  };
  const clearAll = () => clearFilters(crawl.id);
  const chips = filterChips(filter);

  return (
    <div className={`urls${selected !== null ? ' with-detail' : ''}`}>
      <FilterBar crawl={crawl} />
      <div className={`chipbar${chips.length ? ' filtered' : ''}`} data-testid="filter-chips" aria-label="Filters applied">
        {chips.length > 0 ? (
          <>
            <span className="chipbar-label">{chips.length === 1 ? 'Filtered by' : 'Filtered by all of'}</span>
            <Chips crawlId={crawl.id} chips={chips} testIds />
            <button type="button" className="link-btn" onClick={clearAll} data-testid="clear-filters">
              Clear all
            </button>
          </>
        ) : (
          <span className="muted">No filter: every URL the crawl found</span>
        )}
        <span className="filterbar-count num" data-testid="url-count" data-total={paged.total ?? ''}>
          {paged.total === null ? '…' : `${formatCount(paged.total)} ${paged.total === 1 ? 'URL' : 'URLs'}`}
          {isFiltered(filter) && paged.total !== null && <span className="muted"> of {formatCount(crawl.counters.discovered)}</span>}
        </span>
        <ColumnChooser
          columns={all}
          shown={prefs.shown}
          onToggle={(k) => toggle(k as UrlSortKey)}
          onReset={() => updatePrefs(() => defaultPrefs(all))}
          canReset={customised}
        />
      </div>
      <div className="urls-body">
        <div className="urls-table">
          {paged.error && paged.total === null ? (
            <ErrorState title="Could not load the URLs" message={paged.error} onRetry={paged.retry} />
          ) : (
            <VirtualTable
              ariaLabel="URLs"
              testId="url-table"
              columns={columns}
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
              onResize={(id, width) => updatePrefs((p) => resizeColumn(p, id, width))}
              onRangeChange={paged.setRange}
              resetKey={key}
              empty={
                paged.loading ? (
                  <div className="loading-rows" role="status">
                    Loading URLs…
                  </div>
                ) : isFiltered(filter) ? (
                  <NoMatches crawl={crawl} chips={chips} onClearAll={clearAll} />
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

/**
 * The table is empty under its filters: which ones, each with how many URLs its removal would bring
 * back (asked of the service once), and a way to clear them all.
 */
function NoMatches({ crawl, chips, onClearAll }: { crawl: CrawlSummary; chips: FilterChip[]; onClearAll(): void }) {
  const filter = useApp((s) => s.byCrawl[crawl.id]?.filter) ?? emptyFilter();
  const key = filterKey(filter);
  const [without, setWithout] = useState<Partial<Record<FilterChip['kind'], number>>>({});
  useEffect(() => {
    let alive = true;
    setWithout({});
    for (const c of filterChips(filter)) {
      getApi()
        .queryUrls({ id: crawl.id, query: pageQuery(removeChip(filter, c.kind), 0, 0) })
        .then(
          (page) => alive && setWithout((w) => ({ ...w, [c.kind]: page.total })),
          () => {}, // only a hint: the chips say what is applied either way
        );
    }
    return () => {
      alive = false;
    };
    // The key stands for the filter.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, crawl.id]);
  const live = crawl.status === 'running';
  return (
    <EmptyState title="No URLs match these filters" icon="filter">
      <span data-testid="empty-filters">{chips.length === 1 ? 'This filter is applied:' : `These ${chips.length} filters are applied together:`}</span>
      <Chips crawlId={crawl.id} chips={chips} notes={without} column />
      {live && <span>The crawl is still running: matching URLs may still come.</span>}
      <button type="button" className="btn" onClick={onClearAll} data-testid="empty-clear">
        Clear {chips.length === 1 ? 'the filter' : 'all filters'}
      </button>
    </EmptyState>
  );
}

/** Each applied filter in words, with a × that removes it (and, in `notes`, how many URLs that would show). */
function Chips({
  crawlId,
  chips,
  testIds = false,
  notes,
  column = false,
}: {
  crawlId: string;
  chips: FilterChip[];
  testIds?: boolean;
  notes?: Partial<Record<FilterChip['kind'], number>>;
  column?: boolean;
}) {
  const remove = (kind: FilterChip['kind']) => {
    // The sitemap filter is the tree's selection: removing it deselects the node too.
    if (kind === 'sitemap') selectNode(crawlId, null);
    else setFilter(crawlId, (f) => removeChip(f, kind));
  };
  const testId = (kind: FilterChip['kind']) =>
    !testIds ? undefined : kind === 'finding' ? 'finding-chip' : kind === 'sitemap' ? 'sitemap-chip' : `chip-${kind}`;
  return (
    <span className={`chips${column ? ' chips-column' : ''}`}>
      {chips.map((c) => (
        <span key={c.kind} className="chip-line">
          <span className={`chip chip-${c.kind}`} data-testid={testId(c.kind)} data-chip={c.kind} data-code={c.code} title={c.title}>
            {c.kind === 'finding' ? <Icon name="flag" size={12} /> : c.kind === 'sitemap' ? <Icon name="sitemap" size={12} /> : null}
            <span className="chip-label">{c.label}:</span>
            <span className="chip-value">{c.value}</span>
            <button type="button" className="chip-x" aria-label={`Remove the filter ${c.label}: ${c.value}`} onClick={() => remove(c.kind)}>
              <Icon name="close" size={11} />
            </button>
          </span>
          {notes && (
            <span className="chip-note muted small" data-testid={`without-${c.kind}`} data-total={notes[c.kind] ?? ''}>
              {notes[c.kind] === undefined ? '' : `without it: ${formatCount(notes[c.kind])} ${notes[c.kind] === 1 ? 'URL' : 'URLs'}`}
            </span>
          )}
        </span>
      ))}
    </span>
  );
}

function FilterBar({ crawl }: { crawl: CrawlSummary }) {
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
      <StatusFilter classes={filter.statusClasses} codes={filter.statuses} onChange={(p) => upd(p)} />
      <TriToggle label="In sitemap" value={filter.inSitemap} onChange={(inSitemap) => upd({ inSitemap })} yes="Yes" no="No" testId="filter-insitemap" />
      <TriToggle label="Blocked" value={filter.blocked} onChange={(blocked) => upd({ blocked })} yes="Yes" no="No" testId="filter-blocked" />
      {(crawl.baseId || filter.carriedOver !== 'any') && (
        <TriToggle label="Carried over" value={filter.carriedOver} onChange={(carriedOver) => upd({ carriedOver })} yes="Yes" no="No" testId="filter-carried" />
      )}
      <PageFilters filter={filter} onChange={upd} />
    </div>
  );
}
