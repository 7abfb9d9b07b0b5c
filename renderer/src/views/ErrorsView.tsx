/** What went wrong: robots.txt unreachable, malformed sitemaps, timeouts… with the URL and the reason. */
import { useCallback, useState } from 'react';
import type { CrawlLogEntry, CrawlSummary } from '../../../shared/model.js';
import { EmptyState, ErrorState, UrlLink } from '../components/Bits.js';
import { VirtualTable, type Column } from '../components/VirtualTable.js';
import { usePagedRows } from '../hooks/usePagedRows.js';
import { formatCount, formatDateTime } from '../logic/format.js';
import { getApi, setFilter, setTab, useApp } from '../store/app-store.js';
import { emptyFilter } from '../logic/url-query.js';

const COLUMNS: Column[] = [
  { id: 'at', label: 'Time', width: 150 },
  { id: 'level', label: 'Level', width: 66 },
  { id: 'code', label: 'Code', width: 170 },
  { id: 'url', label: 'URL', width: 290 },
  { id: 'message', label: 'Reason', width: 300, grow: true },
];

/** The answers the view counts beside the crawl's own failures: class, label (one, more), status range. */
const STATUS_CHIPS = [
  ['4xx', ['client error (4xx)', 'client errors (4xx)'], '400–499'],
  ['5xx', ['server error (5xx)', 'server errors (5xx)'], '500–599'],
] as const;

export function ErrorsView({ crawl }: { crawl: CrawlSummary }) {
  const version = useApp((s) => s.byCrawl[crawl.id]?.logVersion ?? 0);
  const fetchPage = useCallback((offset: number, limit: number) => getApi().getLog({ id: crawl.id, offset, limit }), [crawl.id]);
  const paged = usePagedRows<CrawlLogEntry>({ resetKey: crawl.id, version, fetchPage, pageSize: 200 });
  const total = paged.total ?? 0;
  const c = crawl.counters;
  const [active, setActive] = useState<number | null>(null);
  const entry = active !== null ? paged.row(active) : undefined;
  const renderCells = (i: number) => {
    const e = paged.row(i);
    if (!e) return null;
    return [
      <span className="mono-num">{formatDateTime(e.at)}</span>,
      <span className={`level level-${e.level}`}>{e.level}</span>,
      <span className="mono ellipsis" title={e.code}>
        {e.code}
      </span>,
      e.url ? <UrlLink url={e.url} /> : <span className="muted">—</span>,
      <span className="ellipsis" title={e.message}>
        {e.message}
      </span>,
    ];
  };
  const drill = (states: ('error' | 'blocked')[]) => {
    setFilter(crawl.id, () => ({ ...emptyFilter(), states }));
    setTab('urls');
  };
  const drillStatus = (cls: '4xx' | '5xx') => {
    setFilter(crawl.id, () => ({ ...emptyFilter(), statusClasses: [cls] }));
    setTab('urls');
  };
  return (
    <div className="errors">
      <div className="errors-summary">
        <button type="button" className="summary-chip" onClick={() => drill(['error'])} disabled={c.errors === 0}>
          <span className="summary-num num text-error">{formatCount(c.errors)}</span> {c.errors === 1 ? 'URL' : 'URLs'} failed
        </button>
        <button type="button" className="summary-chip" onClick={() => drill(['blocked'])} disabled={c.blocked === 0}>
          <span className="summary-num num text-warn">{formatCount(c.blocked)}</span> blocked by robots.txt
        </button>
        <span className="summary-chip static">
          <span className="summary-num num text-error">{formatCount(c.sitemaps.failed)}</span> {c.sitemaps.failed === 1 ? 'sitemap' : 'sitemaps'} failed
        </span>
        {/* Answers, not failures of the crawl: listed here too, as an analyst looks for them here. */}
        {STATUS_CHIPS.map(([cls, label, range]) => (
          <button
            key={cls}
            type="button"
            className="summary-chip"
            onClick={() => drillStatus(cls)}
            disabled={c.byStatusClass[cls] === 0}
            data-testid={`errors-${cls}`}
            title={`URLs that answered ${range}: open them in the URL table`}
          >
            <span className="summary-num num text-error">{formatCount(c.byStatusClass[cls])}</span> {label[c.byStatusClass[cls] === 1 ? 0 : 1]}
          </button>
        ))}
        <span className="filterbar-count num" data-testid="log-count">
          {paged.total === null ? '…' : `${formatCount(total)} ${total === 1 ? 'log entry' : 'log entries'}`}
        </span>
      </div>
      <div className="errors-table">
        {paged.error && paged.total === null ? (
          <ErrorState title="Could not load the log" message={paged.error} onRetry={paged.retry} />
        ) : (
          <VirtualTable
            ariaLabel="Crawl log"
            testId="log-table"
            columns={COLUMNS}
            count={total}
            rowHeight={26}
            renderCells={renderCells}
            rowClass={(i) => `log-${paged.row(i)?.level ?? 'x'}`}
            activeIndex={active}
            onRowClick={(i) => setActive(i === active ? null : i)}
            onMove={(d) => setActive(Math.max(0, Math.min(total - 1, (active ?? -1) + d)))}
            onRangeChange={paged.setRange}
            resetKey={crawl.id}
            empty={
              paged.loading ? (
                <div className="loading-rows" role="status">
                  Loading the log…
                </div>
              ) : (
                <EmptyState title="Nothing logged" icon="alert">
                  {crawl.status === 'created'
                    ? 'Problems show here once the crawl runs.'
                    : 'No errors or warnings were logged for this crawl. Pages that answered 4xx or 5xx are counted above; Issues lists broken links and redirect loops.'}
                </EmptyState>
              )
            }
          />
        )}
      </div>
      {entry && (
        <div className="log-detail" data-testid="log-detail">
          <div className="log-detail-head">
            <span className={`level level-${entry.level}`}>{entry.level}</span>
            <span className="mono">{entry.code}</span>
            <span className="muted small">{formatDateTime(entry.at)}</span>
          </div>
          <div className="log-detail-message">{entry.message}</div>
          {entry.url && <UrlLink url={entry.url} />}
        </div>
      )}
    </div>
  );
}
