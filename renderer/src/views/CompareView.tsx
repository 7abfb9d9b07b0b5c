/**
 * The Compare view: two crawls of one site side by side. A summary (URLs added, removed, changed;
 * which fields changed; sitemaps; findings before → after with the URLs that entered or left them),
 * the sitemaps across the two crawls, and a virtualised table of the changed URLs with filters, a
 * before/after detail and a CSV export. A figure clicked in the summary or the sitemaps filters the table.
 */
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { CompareField, CompareRow, CompareSitemap, CompareSummary, CrawlSummary, RequestSource } from '../../../shared/model.js';
import { EmptyState, ErrorState, HttpStatus, Spinner, UrlLink } from '../components/Bits.js';
import { Icon } from '../components/Icon.js';
import { MultiSelect } from '../components/MultiSelect.js';
import { VirtualTable, type Column } from '../components/VirtualTable.js';
import { usePagedRows } from '../hooks/usePagedRows.js';
import {
  CHANGE_LABEL,
  COMPARE_FIELDS,
  FIELD_LABEL,
  changedFields,
  compareChips,
  compareFilterKey,
  compareQuery,
  fieldsText,
  isCompareFiltered,
  isWorse,
  pickerGroups,
  removeCompareChip,
  sideValue,
  signed,
  siteKey,
  sortFindings,
  trustText,
  trustTone,
} from '../logic/compare.js';
import { displayName } from '../logic/crawls.js';
import { formatBytes, formatCount, formatDateTime, lastSegment, pathOf } from '../logic/format.js';
import { SOURCE_LABEL } from '../logic/labels.js';
import { ALL_SOURCES, emptyFilter } from '../logic/url-query.js';
import {
  drillCompareTo,
  exportCompare,
  getApi,
  loadCompare,
  openCompare,
  selectCompareRow,
  selectCrawl,
  selectUrl,
  setCompareFilter,
  setCompareTab,
  setFilter,
  setTab,
  swapCompare,
  useApp,
  type CompareTab,
} from '../store/app-store.js';

export function CompareView() {
  const cmp = useApp((s) => s.compare);
  const crawls = useApp((s) => s.crawls);
  const oldCrawl = crawls.find((c) => c.id === cmp.oldId);
  const newCrawl = crawls.find((c) => c.id === cmp.newId);
  const summary = cmp.summary;
  return (
    <div className="compare" data-testid="compare-view">
      <CompareHeader oldCrawl={oldCrawl} newCrawl={newCrawl} crawls={crawls} />
      {!oldCrawl || !newCrawl ? (
        <EmptyState title="Pick the two crawls to compare" icon="compare">
          Choose the crawl before and the crawl after above: two crawls of the same site, such as a crawl and its recrawl, or the crawls before and after a
          migration.
        </EmptyState>
      ) : oldCrawl.id === newCrawl.id ? (
        <EmptyState title="Pick two different crawls" icon="compare">
          Before and after are the same crawl.
        </EmptyState>
      ) : cmp.error ? (
        <ErrorState title="Could not compare these crawls" message={`${cmp.error.message} (${cmp.error.code})`} onRetry={() => void loadCompare()} />
      ) : !summary ? (
        <Spinner label="Comparing the two crawls…" />
      ) : (
        <>
          <CompareTabs summary={summary} tab={cmp.tab} />
          <div className="view" role="tabpanel" data-compare-tab={cmp.tab}>
            {cmp.tab === 'summary' && <SummaryPane summary={summary} />}
            {cmp.tab === 'sitemaps' && <SitemapsPane summary={summary} />}
            {cmp.tab === 'urls' && <UrlsPane summary={summary} />}
          </div>
        </>
      )}
    </div>
  );
}

// ---------------------------------------------------------------- header: which crawls

function CompareHeader({ oldCrawl, newCrawl, crawls }: { oldCrawl?: CrawlSummary; newCrawl?: CrawlSummary; crawls: CrawlSummary[] }) {
  const cmp = useApp((s) => s.compare);
  const busy = useApp((s) => (cmp.newId ? s.byCrawl[cmp.newId]?.busy : undefined));
  const otherSite = oldCrawl && newCrawl && siteKey(oldCrawl) !== siteKey(newCrawl);
  const ready = !!cmp.summary && !cmp.loading;
  return (
    <div className="toolbar compare-toolbar">
      <div className="toolbar-title">
        <div className="title-row">
          <h1>Compare crawls</h1>
          {cmp.loading && <span className="muted busy-note">Comparing…</span>}
          {busy === 'export' && <span className="muted busy-note">Exporting…</span>}
        </div>
        <div className="compare-pickers">
          <CrawlPicker
            label="Before"
            value={cmp.oldId}
            other={cmp.newId}
            crawls={crawls}
            onChange={(id) => openCompare({ oldId: id, newId: cmp.newId })}
            testId="compare-old"
          />
          <button
            type="button"
            className="icon-btn"
            onClick={swapCompare}
            title="Swap before and after"
            aria-label="Swap before and after"
            data-testid="compare-swap"
          >
            <Icon name="compare" size={14} />
          </button>
          <CrawlPicker
            label="After"
            value={cmp.newId}
            other={cmp.oldId}
            crawls={crawls}
            onChange={(id) => openCompare({ oldId: cmp.oldId, newId: id })}
            testId="compare-new"
          />
          {otherSite && (
            <span className="badge badge-warn" title="The start hosts differ: most URLs will show as added and removed">
              different sites
            </span>
          )}
          {oldCrawl && newCrawl && oldCrawl.createdAt > newCrawl.createdAt && (
            <span className="badge badge-muted" title="The crawl before was made after the crawl after: swap them to read the changes forward">
              before is newer
            </span>
          )}
        </div>
      </div>
      <div className="toolbar-actions">
        <button
          type="button"
          className="btn"
          disabled={!ready || !!busy}
          onClick={() => void exportCompare()}
          data-action="export-compare"
          title="The changed URLs of the table's filter as CSV: one row per URL, before and after columns"
        >
          <Icon name="download" size={14} /> Export CSV
        </button>
        {newCrawl && (
          <button type="button" className="btn btn-ghost" onClick={() => selectCrawl(newCrawl.id)} title="Back to the crawl" data-testid="compare-close">
            <Icon name="close" size={14} /> Close
          </button>
        )}
      </div>
    </div>
  );
}

function CrawlPicker({
  label,
  value,
  other,
  crawls,
  onChange,
  testId,
}: {
  label: string;
  value: string | null;
  other: string | null;
  crawls: CrawlSummary[];
  onChange(id: string): void;
  testId: string;
}) {
  const groups = pickerGroups(crawls, other ?? value);
  const option = (c: CrawlSummary) => (
    <option key={c.id} value={c.id} disabled={c.id === other}>
      {displayName(c)} · {formatDateTime(c.finishedAt ?? c.createdAt)}
      {c.baseId ? ' · recrawl' : ''}
      {c.imported ? ' · from file' : ''}
      {c.status === 'running' ? ' · running' : ''}
    </option>
  );
  return (
    <label className="filter-btn filter-select compare-picker">
      <span className="filter-label">{label}:</span>
      <select value={value ?? ''} onChange={(e) => e.target.value && onChange(e.target.value)} aria-label={`Crawl ${label.toLowerCase()}`} data-testid={testId}>
        {!value && <option value="">Choose a crawl…</option>}
        {groups.sameSite.length > 0 && <optgroup label="This site">{groups.sameSite.map(option)}</optgroup>}
        {groups.others.length > 0 && <optgroup label="Other sites">{groups.others.map(option)}</optgroup>}
      </select>
      <Icon name="chevronDown" size={11} />
    </label>
  );
}

function CompareTabs({ summary, tab }: { summary: CompareSummary; tab: CompareTab }) {
  const u = summary.urls;
  const sc = summary.sitemapCounts;
  const tabs: { id: CompareTab; label: string; count: number | null; icon: Parameters<typeof Icon>[0]['name'] }[] = [
    { id: 'summary', label: 'Summary', count: null, icon: 'gauge' },
    { id: 'sitemaps', label: 'Sitemaps', count: sc.added + sc.removed + sc.changed, icon: 'sitemap' },
    { id: 'urls', label: 'Changed URLs', count: u.added + u.removed + u.changed, icon: 'list' },
  ];
  return (
    <nav className="tabs" role="tablist" aria-label="Comparison">
      {tabs.map((t) => (
        <button
          type="button"
          role="tab"
          key={t.id}
          aria-selected={tab === t.id}
          className={`tab${tab === t.id ? ' selected' : ''}`}
          onClick={() => setCompareTab(t.id)}
          data-compare-tab={t.id}
        >
          <Icon name={t.icon} size={14} />
          {t.label}
          {t.count !== null && <span className="tab-count">{formatCount(t.count)}</span>}
        </button>
      ))}
    </nav>
  );
}

// ---------------------------------------------------------------- summary

function SummaryPane({ summary }: { summary: CompareSummary }) {
  const u = summary.urls;
  const fields = changedFields(summary);
  const maxField = Math.max(1, ...fields.map((f) => f.changed));
  const sc = summary.sitemapCounts;
  const findings = sortFindings(summary);
  const moved = findings.filter((f) => f.measured && (f.before !== f.after || f.entered > 0 || f.left > 0));
  const still = findings.filter((f) => !moved.includes(f));
  const [showAll, setShowAll] = useState(false);
  const sources = summary.bySource.filter((s) => s.before + s.after > 0);
  return (
    <div className="page-scroll">
      <div className="overview compare-summary">
        {summary.worse.length > 0 && (
          <div className="banner banner-warn" role="alert" data-testid="compare-worse">
            <Icon name="alert" />
            <div>
              <strong>
                {summary.worse.length} {summary.worse.length === 1 ? 'finding got' : 'findings got'} worse
              </strong>{' '}
              since {summary.oldName || 'the crawl before'}:{' '}
              {summary.worse.map((code) => summary.findings.find((f) => f.code === code)?.title ?? code).join(', ')}.
            </div>
          </div>
        )}
        <div className="stats stats-6" data-testid="compare-counts">
          <CmpStat label="URLs before" value={u.before} testid="cmp-before" />
          <CmpStat label="URLs after" value={u.after} testid="cmp-after" sub={signed(u.after - u.before)} />
          <CmpStat
            label="Added"
            value={u.added}
            testid="cmp-added"
            tone={u.added ? 'ok' : undefined}
            onClick={u.added ? () => drillCompareTo({ change: 'added' }) : undefined}
          />
          <CmpStat
            label="Removed"
            value={u.removed}
            testid="cmp-removed"
            tone={u.removed ? 'error' : undefined}
            onClick={u.removed ? () => drillCompareTo({ change: 'removed' }) : undefined}
          />
          <CmpStat
            label="Changed"
            value={u.changed}
            testid="cmp-changed"
            tone={u.changed ? 'warn' : undefined}
            onClick={u.changed ? () => drillCompareTo({ change: 'changed' }) : undefined}
          />
          <CmpStat label="Unchanged" value={u.unchanged} testid="cmp-unchanged" />
        </div>

        <div className="compare-grid">
          <section className="card chart-card" data-testid="compare-fields">
            <div className="card-head">
              <span className="card-title">Fields changed</span>
              <span className="muted small">on URLs in both crawls</span>
            </div>
            {fields.length === 0 ? (
              <div className="muted small">No URL held by both crawls changed in any field.</div>
            ) : (
              <div className="barlist">
                {fields.map((f) => (
                  <button
                    key={f.field}
                    type="button"
                    className="barlist-row clickable cmp-bar"
                    onClick={() => drillCompareTo({ field: f.field })}
                    data-field={f.field}
                    data-count={f.changed}
                    title={`Show the ${formatCount(f.changed)} URLs whose ${FIELD_LABEL[f.field].toLowerCase()} changed`}
                  >
                    <span className="barlist-label">{FIELD_LABEL[f.field]}</span>
                    <span className="barlist-track">
                      <span className="barlist-fill tone-3xx" style={{ width: `${(f.changed / maxField) * 100}%` }} />
                    </span>
                    <span className="barlist-value num">{formatCount(f.changed)}</span>
                  </button>
                ))}
              </div>
            )}
          </section>

          <section className="card chart-card" data-testid="compare-sources">
            <div className="card-head">
              <span className="card-title">URLs by how they were found</span>
            </div>
            <table className="cmp-table">
              <thead>
                <tr>
                  <th>Source</th>
                  <th className="al-right">Before</th>
                  <th className="al-right">After</th>
                  <th className="al-right">Added</th>
                  <th className="al-right">Removed</th>
                </tr>
              </thead>
              <tbody>
                {sources.map((s) => (
                  <tr key={s.source} data-source={s.source}>
                    <td>{SOURCE_LABEL[s.source]}</td>
                    <td className="num al-right">{formatCount(s.before)}</td>
                    <td className="num al-right">{formatCount(s.after)}</td>
                    <td className="al-right">
                      <CountLink
                        n={s.added}
                        tone="ok"
                        onClick={() => drillSource(s.source, 'added')}
                        title={`URLs found through ${SOURCE_LABEL[s.source]} that are new`}
                      />
                    </td>
                    <td className="al-right">
                      <CountLink
                        n={s.removed}
                        tone="error"
                        onClick={() => drillSource(s.source, 'removed')}
                        title={`URLs found through ${SOURCE_LABEL[s.source]} that are gone`}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>

          <section className="card chart-card" data-testid="compare-sitemap-counts">
            <div className="card-head">
              <span className="card-title">Sitemaps</span>
              <button type="button" className="link-btn small" onClick={() => setCompareTab('sitemaps')}>
                See each sitemap
              </button>
            </div>
            <div className="cmp-sitemap-counts">
              <span data-testid="cmp-sitemaps-added" data-value={sc.added}>
                <strong className={`num${sc.added ? ' text-ok' : ''}`}>{formatCount(sc.added)}</strong> appeared
              </span>
              <span data-testid="cmp-sitemaps-removed" data-value={sc.removed}>
                <strong className={`num${sc.removed ? ' text-error' : ''}`}>{formatCount(sc.removed)}</strong> disappeared
              </span>
              <span data-testid="cmp-sitemaps-changed" data-value={sc.changed}>
                <strong className={`num${sc.changed ? ' text-warn' : ''}`}>{formatCount(sc.changed)}</strong> changed
              </span>
              <span data-testid="cmp-sitemaps-unchanged" data-value={sc.unchanged}>
                <strong className="num">{formatCount(sc.unchanged)}</strong> unchanged
              </span>
            </div>
            <ul className="plain-list cmp-sitemap-moves">
              {summary.sitemaps
                .filter((m) => m.change !== 'unchanged')
                .slice(0, 6)
                .map((m) => (
                  <li key={m.url}>
                    <ChangeBadge change={m.change} />{' '}
                    <span className="mono small" title={m.url}>
                      {lastSegment(m.url)}
                    </span>
                    {m.urlsAdded > 0 && (
                      <button type="button" className="link-btn small text-ok" onClick={() => drillCompareTo({ sitemap: m.url })}>
                        +{formatCount(m.urlsAdded)}
                      </button>
                    )}
                    {m.urlsRemoved > 0 && (
                      <button type="button" className="link-btn small text-error" onClick={() => drillCompareTo({ sitemap: m.url })}>
                        −{formatCount(m.urlsRemoved)}
                      </button>
                    )}
                  </li>
                ))}
            </ul>
          </section>
        </div>

        <section className="card compare-findings" data-testid="compare-findings">
          <div className="card-head">
            <span className="card-title">Audit findings, before → after</span>
            <span className="muted small">entered: affected now, not before · left: affected before, not now</span>
          </div>
          <table className="cmp-table" hidden={moved.length === 0 && !showAll}>
            <thead>
              <tr>
                <th>Finding</th>
                <th className="al-right">Before</th>
                <th />
                <th className="al-right">After</th>
                <th className="al-right">Entered</th>
                <th className="al-right">Left</th>
              </tr>
            </thead>
            <tbody>
              {(showAll ? [...moved, ...still] : moved).map((f) => {
                const worse = isWorse(summary, f);
                const drill = (moved: 'entered' | 'left') => () => drillCompareTo({ finding: { code: f.code, moved, title: f.title } });
                return (
                  <tr
                    key={f.code}
                    className={`${worse ? 'cmp-worse' : ''}${f.measured ? '' : ' muted'}`}
                    data-code={f.code}
                    data-before={f.before}
                    data-after={f.after}
                    data-worse={worse}
                  >
                    <td>
                      <span className={`sev-dot sev-${f.severity}`} aria-hidden="true" /> {f.title} <span className="mono muted small">{f.code}</span>
                      {worse && <span className="badge badge-error cmp-worse-badge">worse</span>}
                      {!f.measured && <span className="badge badge-muted">not measured</span>}
                    </td>
                    <td className="num al-right">{f.measured ? formatCount(f.before) : '—'}</td>
                    <td className="al-center muted">→</td>
                    <td className={`num al-right${worse ? ' text-error' : f.after < f.before ? ' text-ok' : ''}`}>{f.measured ? formatCount(f.after) : '—'}</td>
                    <td className="al-right">
                      {f.subject === 'url' ? (
                        <CountLink
                          n={f.entered}
                          tone="error"
                          onClick={drill('entered')}
                          title="Show the URLs that have this finding now and did not before"
                          testId={`entered-${f.code}`}
                        />
                      ) : (
                        <span className="num">{f.entered ? `+${formatCount(f.entered)}` : '0'}</span>
                      )}
                    </td>
                    <td className="al-right">
                      {f.subject === 'url' ? (
                        <CountLink
                          n={f.left}
                          tone="ok"
                          onClick={drill('left')}
                          title="Show the URLs that had this finding before and do not now"
                          testId={`left-${f.code}`}
                        />
                      ) : (
                        <span className="num">{f.left ? `−${formatCount(f.left)}` : '0'}</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {moved.length === 0 && <div className="muted small cmp-none">No finding moved between the two crawls.</div>}
          {still.length > 0 && (
            <button type="button" className="link-btn small" onClick={() => setShowAll(!showAll)}>
              {showAll ? 'Show only the findings that moved' : `Show the ${still.length} findings that did not move`}
            </button>
          )}
        </section>
        <div className="muted small">
          Compared {formatDateTime(summary.computedAt)}: “{summary.oldName}” before, “{summary.newName}” after. URLs are matched as the crawls hold them; the
          main text is compared by its SHA-256.
        </div>
      </div>
    </div>
  );
}

function drillSource(source: RequestSource, change: 'added' | 'removed'): void {
  drillCompareTo({ change });
  setCompareFilter((f) => ({ ...f, sources: [source] }));
  setCompareTab('urls');
}

function CmpStat({
  label,
  value,
  sub,
  tone,
  onClick,
  testid,
}: {
  label: string;
  value: number;
  sub?: string;
  tone?: 'ok' | 'warn' | 'error';
  onClick?: () => void;
  testid: string;
}) {
  const body = (
    <>
      <div className="stat-label">{label}</div>
      <div className="stat-value num">{formatCount(value)}</div>
      {sub !== undefined && <div className="stat-sub">{sub === '0' ? 'as many as before' : `${sub} since before`}</div>}
    </>
  );
  return onClick ? (
    <button
      type="button"
      className={`stat stat-btn${tone ? ` stat-${tone}` : ''}`}
      onClick={onClick}
      data-testid={testid}
      data-value={value}
      title={`Show the ${label.toLowerCase()} URLs`}
    >
      {body}
    </button>
  ) : (
    <div className={`stat${tone ? ` stat-${tone}` : ''}`} data-testid={testid} data-value={value}>
      {body}
    </div>
  );
}

function CountLink({ n, tone, onClick, title, testId }: { n: number; tone: 'ok' | 'error'; onClick(): void; title: string; testId?: string }) {
  if (n === 0) return <span className="num muted">0</span>;
  return (
    <button type="button" className={`link-btn num text-${tone}`} onClick={onClick} title={title} data-testid={testId} data-count={n}>
      {formatCount(n)}
    </button>
  );
}

function ChangeBadge({ change }: { change: CompareSitemap['change'] | CompareRow['change'] }) {
  const tone = change === 'added' ? 'badge-ok' : change === 'removed' ? 'badge-error' : change === 'changed' ? 'badge-warn' : 'badge-muted';
  const label = change === 'unchanged' ? 'Unchanged' : CHANGE_LABEL[change];
  return (
    <span className={`badge ${tone}`} data-change={change}>
      {label}
    </span>
  );
}

// ---------------------------------------------------------------- sitemaps

const SITEMAP_COLUMNS: Column[] = [
  { id: 'change', label: 'Change', width: 106 },
  { id: 'url', label: 'Sitemap', width: 260, grow: true },
  { id: 'urls', label: 'URLs before → after', width: 150, align: 'right', title: 'URL entries (or child sitemaps of an index) in each crawl' },
  { id: 'gained', label: 'Gained', width: 74, align: 'right', title: 'URLs it lists now and did not before: click for them' },
  { id: 'lost', label: 'Lost', width: 66, align: 'right', title: 'URLs it listed before and does not now: click for them' },
  { id: 'status', label: 'HTTP', width: 90, align: 'right' },
  { id: 'problems', label: 'Problems', width: 90, align: 'right' },
  { id: 'trust', label: 'Lastmod trust', width: 170, title: 'Of its URLs with a lastmod and evidence to judge it by, how many agree (before → after)' },
];

function SitemapsPane({ summary }: { summary: CompareSummary }) {
  const rows = summary.sitemaps;
  const [active, setActive] = useState<number | null>(null);
  const arrow = (a: ReactNode, b: ReactNode) => (
    <span className="cmp-arrow">
      {a}
      <span className="muted">→</span>
      {b}
    </span>
  );
  const renderCells = (i: number) => {
    const m = rows[i]!;
    const b = m.before;
    const a = m.after;
    const count = (x?: typeof b) =>
      !x ? (
        <span className="muted">—</span>
      ) : x.type === 'sitemapindex' ? (
        <span className="muted">index</span>
      ) : (
        <span className="num">{formatCount(x.urlCount)}</span>
      );
    const trust = (x?: typeof b) => {
      const t = trustText(x?.lastmodTrust);
      return t ? <span className={`num trust trust-${trustTone(x?.lastmodTrust)}`}>{t.split(' ')[0]}</span> : <span className="muted">—</span>;
    };
    return [
      <ChangeBadge change={m.change} />,
      <span className="url-cell" title={`${m.url}\nSize ${b ? formatBytes(b.bytes) : '—'} → ${a ? formatBytes(a.bytes) : '—'}`}>
        {pathOf(m.url)}
      </span>,
      arrow(count(b), count(a)),
      m.urlsAdded > 0 ? (
        <button
          type="button"
          className="link-btn num text-ok"
          onClick={() => drillCompareTo({ sitemap: m.url })}
          data-testid="sitemap-gained"
          data-count={m.urlsAdded}
        >
          +{formatCount(m.urlsAdded)}
        </button>
      ) : (
        <span className="muted num">0</span>
      ),
      m.urlsRemoved > 0 ? (
        <button
          type="button"
          className="link-btn num text-error"
          onClick={() => drillCompareTo({ sitemap: m.url })}
          data-testid="sitemap-lost"
          data-count={m.urlsRemoved}
        >
          −{formatCount(m.urlsRemoved)}
        </button>
      ) : (
        <span className="muted num">0</span>
      ),
      arrow(
        b ? <HttpStatus status={b.httpStatus} /> : <span className="muted">—</span>,
        a ? <HttpStatus status={a.httpStatus} /> : <span className="muted">—</span>,
      ),
      arrow(<ProblemCount n={b?.problems} />, <ProblemCount n={a?.problems} />),
      <span className="cmp-arrow" title={`before: ${trustText(b?.lastmodTrust) ?? 'not judged'}\nafter: ${trustText(a?.lastmodTrust) ?? 'not judged'}`}>
        {trust(b)}
        <span className="muted">→</span>
        {trust(a)}
      </span>,
    ];
  };
  return (
    <div className="tree">
      <div className="tree-table">
        <VirtualTable
          ariaLabel="Sitemaps compared"
          testId="compare-sitemaps"
          columns={SITEMAP_COLUMNS}
          count={rows.length}
          renderCells={renderCells}
          rowKey={(i) => rows[i]!.url}
          rowClass={(i) => `cmp-sitemap-row cmp-${rows[i]!.change}`}
          activeIndex={active}
          onRowClick={setActive}
          onMove={(d) => setActive(Math.max(0, Math.min(rows.length - 1, (active ?? -1) + d)))}
          empty={<EmptyState title="No sitemaps in either crawl" icon="sitemap" />}
        />
      </div>
      <div className="hint cmp-hint">
        Sitemaps that appeared, disappeared or changed (type, state, status, URL count, size or problems) come first. Click a gained or lost count for those
        URLs.
      </div>
    </div>
  );
}

function ProblemCount({ n }: { n: number | undefined }) {
  if (n === undefined) return <span className="muted">—</span>;
  return n === 0 ? <span className="muted num">0</span> : <span className="badge badge-warn num">{formatCount(n)}</span>;
}

// ---------------------------------------------------------------- changed URLs

const URL_COLUMNS: Column[] = [
  { id: 'change', label: 'Change', width: 92 },
  { id: 'url', label: 'URL', width: 340, grow: true },
  { id: 'fields', label: 'What changed', width: 220 },
  { id: 'status', label: 'Status', width: 100, align: 'right', title: 'HTTP status before → after' },
  { id: 'source', label: 'Source', width: 84 },
  { id: 'title', label: 'Title (after, else before)', width: 240 },
];

const FIELD_OPTIONS = COMPARE_FIELDS.map((f) => ({ value: f, label: FIELD_LABEL[f] }));

function UrlsPane({ summary }: { summary: CompareSummary }) {
  const cmp = useApp((s) => s.compare);
  const { oldId, newId, filter, selected } = cmp;
  const key = `${oldId}|${newId}|${summary.computedAt}|${compareFilterKey(filter)}`;
  const fetchPage = useCallback(
    (offset: number, limit: number) => getApi().getCompareRows({ oldId: oldId!, newId: newId!, query: compareQuery(filter, offset, limit) }),
    // The key captures the pair and the filter.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [key],
  );
  const paged = usePagedRows<CompareRow>({ resetKey: key, version: 0, fetchPage });
  const total = paged.total ?? 0;
  const [active, setActive] = useState<number | null>(null);
  useEffect(() => setActive(null), [key]);
  const chips = compareChips(filter);
  const all = summary.urls.added + summary.urls.removed + summary.urls.changed;

  const renderCells = (i: number) => {
    const r = paged.row(i);
    if (!r) return null;
    const b = r.before;
    const a = r.after;
    const side = a ?? b;
    return [
      <ChangeBadge change={r.change} />,
      <span className="url-cell" title={r.url}>
        {r.url}
      </span>,
      r.change === 'changed' ? (
        <span className="ellipsis" title={r.fields.map((f) => FIELD_LABEL[f]).join(', ')}>
          {fieldsText(r.fields)}
        </span>
      ) : (
        <span className="muted">{r.change === 'added' ? 'new in the crawl after' : 'gone from the crawl after'}</span>
      ),
      <span className="cmp-arrow">
        {b ? <HttpStatus status={b.status} /> : <span className="muted">—</span>}
        <span className="muted">→</span>
        {a ? <HttpStatus status={a.status} /> : <span className="muted">—</span>}
      </span>,
      side ? <span className={`src src-${side.source}`}>{SOURCE_LABEL[side.source]}</span> : '',
      <span className="ellipsis" title={side?.title}>
        {side?.title ?? ''}
      </span>,
    ];
  };
  const choose = (i: number) => {
    setActive(i);
    const r = paged.row(i);
    if (r) selectCompareRow(r);
  };

  return (
    <div className={`urls${selected ? ' with-detail' : ''}`}>
      <CompareFilterBar />
      <div className={`chipbar${chips.length ? ' filtered' : ''}`} data-testid="compare-chips">
        {chips.length ? (
          <>
            <span className="chipbar-label">{chips.length === 1 ? 'Filtered by' : 'Filtered by all of'}</span>
            <span className="chips">
              {chips.map((c) => (
                <span key={c.kind} className={`chip chip-${c.kind}`} data-chip={c.kind} title={c.title}>
                  <span className="chip-label">{c.label}:</span>
                  <span className="chip-value">{c.value}</span>
                  <button
                    type="button"
                    className="chip-x"
                    aria-label={`Remove the filter ${c.label}: ${c.value}`}
                    onClick={() => setCompareFilter((f) => removeCompareChip(f, c.kind))}
                  >
                    <Icon name="close" size={11} />
                  </button>
                </span>
              ))}
            </span>
            <button
              type="button"
              className="link-btn"
              onClick={() => setCompareFilter((f) => ({ ...f, change: null, field: null, sources: [], sitemap: null, finding: null, search: '' }))}
              data-testid="compare-clear"
            >
              Clear all
            </button>
          </>
        ) : (
          <span className="muted">No filter: every URL added, removed or changed</span>
        )}
        <span className="filterbar-count num" data-testid="compare-count" data-total={paged.total ?? ''}>
          {paged.total === null ? '…' : `${formatCount(paged.total)} ${paged.total === 1 ? 'URL' : 'URLs'}`}
          {isCompareFiltered(filter) && paged.total !== null && <span className="muted"> of {formatCount(all)}</span>}
        </span>
      </div>
      <div className="urls-body">
        <div className="urls-table">
          {paged.error && paged.total === null ? (
            <ErrorState title="Could not load the changed URLs" message={paged.error} onRetry={paged.retry} />
          ) : (
            <VirtualTable
              ariaLabel="Changed URLs"
              testId="compare-table"
              columns={URL_COLUMNS}
              count={total}
              renderCells={renderCells}
              rowKey={(i) => paged.row(i)?.url ?? `p${i}`}
              rowClass={(i) => (paged.row(i) && paged.row(i)!.url === selected?.url ? 'selected' : '')}
              activeIndex={active}
              onRowClick={choose}
              onMove={(d) => choose(Math.max(0, Math.min(total - 1, (active ?? -1) + d)))}
              onRangeChange={paged.setRange}
              resetKey={key}
              empty={
                paged.loading ? (
                  <div className="loading-rows" role="status">
                    Loading the changed URLs…
                  </div>
                ) : isCompareFiltered(filter) ? (
                  <EmptyState title="No changed URL matches these filters" icon="filter">
                    <button
                      type="button"
                      className="btn"
                      onClick={() => setCompareFilter((f) => ({ ...f, change: null, field: null, sources: [], sitemap: null, finding: null, search: '' }))}
                    >
                      Clear the filters
                    </button>
                  </EmptyState>
                ) : (
                  <EmptyState title="Nothing changed" icon="compare">
                    Both crawls hold the same URLs, and no compared field of any of them differs.
                  </EmptyState>
                )
              }
            />
          )}
        </div>
        {selected && <CompareDetail row={selected} summary={summary} />}
      </div>
    </div>
  );
}

function CompareFilterBar() {
  const filter = useApp((s) => s.compare.filter);
  const [search, setSearch] = useState(filter.search);
  useEffect(() => {
    if (search === filter.search) return;
    const t = setTimeout(() => setCompareFilter((f) => ({ ...f, search })), 250);
    return () => clearTimeout(t);
  }, [search, filter.search]);
  useEffect(() => setSearch(filter.search), [filter.search]);
  const sourceOpts = useMemo(() => ALL_SOURCES.map((s) => ({ value: s, label: SOURCE_LABEL[s] })), []);
  return (
    <div className="filterbar">
      <div className="search">
        <Icon name="search" size={14} />
        <input
          type="search"
          placeholder="Search URL"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && setCompareFilter((f) => ({ ...f, search }))}
          aria-label="Search changed URLs"
          data-testid="compare-search"
        />
      </div>
      <label className={`filter-btn filter-select${filter.change ? ' active' : ''}`}>
        <span className="filter-label">Change:</span>
        <select
          value={filter.change ?? ''}
          onChange={(e) =>
            setCompareFilter((f) => ({
              ...f,
              change: (e.target.value || null) as typeof f.change,
              ...(e.target.value && e.target.value !== 'changed' ? { field: null } : {}),
            }))
          }
          aria-label="Change"
          data-testid="compare-filter-change"
        >
          <option value="">Any</option>
          <option value="added">Added</option>
          <option value="removed">Removed</option>
          <option value="changed">Changed</option>
        </select>
        <Icon name="chevronDown" size={11} />
      </label>
      <label className={`filter-btn filter-select${filter.field ? ' active' : ''}`}>
        <span className="filter-label">Field:</span>
        <select
          value={filter.field ?? ''}
          onChange={(e) =>
            setCompareFilter((f) => ({
              ...f,
              field: (e.target.value || null) as CompareField | null,
              ...(e.target.value ? { change: 'changed' as const } : {}),
            }))
          }
          aria-label="Changed field"
          data-testid="compare-filter-field"
        >
          <option value="">Any</option>
          {FIELD_OPTIONS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
        <Icon name="chevronDown" size={11} />
      </label>
      <MultiSelect
        label="Source"
        options={sourceOpts}
        selected={filter.sources}
        onChange={(sources) => setCompareFilter((f) => ({ ...f, sources }))}
        testId="compare-filter-source"
      />
      <SitemapFilter />
      <FindingFilter />
    </div>
  );
}

/** The sitemap filter as a select of the sitemaps that gained or lost URLs. */
function SitemapFilter() {
  const filter = useApp((s) => s.compare.filter);
  const sitemaps = useApp((s) => s.compare.summary?.sitemaps);
  const moved = (sitemaps ?? []).filter((m) => m.urlsAdded + m.urlsRemoved > 0);
  if (moved.length === 0 && !filter.sitemap) return null;
  return (
    <label className={`filter-btn filter-select${filter.sitemap ? ' active' : ''}`}>
      <span className="filter-label">Sitemap:</span>
      <select
        value={filter.sitemap ?? ''}
        onChange={(e) => setCompareFilter((f) => ({ ...f, sitemap: e.target.value || null }))}
        aria-label="Sitemap gained or lost"
        data-testid="compare-filter-sitemap"
      >
        <option value="">Any</option>
        {moved.map((m) => (
          <option key={m.url} value={m.url}>
            {lastSegment(m.url)} (+{m.urlsAdded} −{m.urlsRemoved})
          </option>
        ))}
        {filter.sitemap && !moved.some((m) => m.url === filter.sitemap) && <option value={filter.sitemap}>{lastSegment(filter.sitemap)}</option>}
      </select>
      <Icon name="chevronDown" size={11} />
    </label>
  );
}

/** Entered or left one finding: a select of the URL findings that moved. */
function FindingFilter() {
  const filter = useApp((s) => s.compare.filter);
  const findings = useApp((s) => s.compare.summary?.findings);
  const moved = (findings ?? []).filter((f) => f.subject === 'url' && f.entered + f.left > 0);
  if (moved.length === 0 && !filter.finding) return null;
  const value = filter.finding ? `${filter.finding.moved}:${filter.finding.code}` : '';
  return (
    <label className={`filter-btn filter-select${filter.finding ? ' active' : ''}`}>
      <span className="filter-label">Finding:</span>
      <select
        value={value}
        onChange={(e) => {
          const [moved, code] = e.target.value.split(':') as ['entered' | 'left', string];
          const f = findings?.find((x) => x.code === code);
          setCompareFilter((x) => ({ ...x, finding: e.target.value ? { code, moved, title: f?.title ?? code } : null }));
        }}
        aria-label="Finding entered or left"
        data-testid="compare-filter-finding"
      >
        <option value="">Any</option>
        {moved.flatMap((f) => [
          f.entered > 0 ? (
            <option key={`e${f.code}`} value={`entered:${f.code}`}>
              Entered: {f.title} ({f.entered})
            </option>
          ) : null,
          f.left > 0 ? (
            <option key={`l${f.code}`} value={`left:${f.code}`}>
              Left: {f.title} ({f.left})
            </option>
          ) : null,
        ])}
        {filter.finding && !moved.some((f) => f.code === filter.finding!.code) && <option value={value}>{filter.finding.title}</option>}
      </select>
      <Icon name="chevronDown" size={11} />
    </label>
  );
}

/** One changed URL, before and after, field by field; the fields that differ marked. */
function CompareDetail({ row, summary }: { row: CompareRow; summary: CompareSummary }) {
  const changed = new Set(row.fields);
  const b = row.before;
  const a = row.after;
  const cell = (side: typeof b, f: CompareField) => {
    if (!side) return <span className="muted">—</span>;
    if (f === 'content') return <span className="muted">{changed.has('content') ? (side === b ? 'as before' : 'changed') : 'same'}</span>;
    const v = sideValue(side, f);
    if (v === '') return <span className="muted">(none)</span>;
    if (f === 'status') return <HttpStatus status={side.status} />;
    if (f === 'inSitemaps' || f === 'hreflang') {
      return (
        <span className="cmp-lines">
          {v.split('\n').map((line, i) => (
            <span key={i} className="mono small" title={line}>
              {f === 'inSitemaps' ? lastSegment(line) : line}
            </span>
          ))}
        </span>
      );
    }
    return <span title={v}>{v}</span>;
  };
  return (
    <aside className="detail cmp-detail" aria-label="Before and after" data-testid="compare-detail">
      <div className="detail-head">
        <span className="section-label">Before → after</span>
        <button type="button" className="icon-btn" onClick={() => selectCompareRow(null)} aria-label="Close the detail">
          <Icon name="close" size={14} />
        </button>
      </div>
      <div className="detail-body">
        <div className="detail-url">
          <UrlLink url={row.url} />
        </div>
        <div className="detail-tags">
          <ChangeBadge change={row.change} />
          {row.change === 'changed' && (
            <span className="muted small">{row.fields.length === 1 ? '1 field differs' : `${row.fields.length} fields differ`}</span>
          )}
          {(b?.carriedOver || a?.carriedOver) && <span className="badge badge-muted">carried over</span>}
        </div>
        <table className="cmp-table cmp-sides">
          <thead>
            <tr>
              <th />
              <th>Before</th>
              <th>After</th>
            </tr>
          </thead>
          <tbody>
            {COMPARE_FIELDS.map((f) => (
              <tr key={f} className={changed.has(f) ? 'cmp-changed' : ''} data-field={f} data-changed={changed.has(f)}>
                <th scope="row">{FIELD_LABEL[f]}</th>
                <td>{cell(b, f)}</td>
                <td>{cell(a, f)}</td>
              </tr>
            ))}
            <tr>
              <th scope="row">Last-Modified</th>
              <td>{b?.lastModified ?? <span className="muted">(none)</span>}</td>
              <td>{a?.lastModified ?? <span className="muted">(none)</span>}</td>
            </tr>
          </tbody>
        </table>
        <div className="hint">
          Before: {summary.oldName}. After: {summary.newName}. Open the URL in either crawl for its whole detail:{' '}
          {b && (
            <button type="button" className="link-btn" onClick={() => openInCrawl(summary.oldId, row.url, b.id)}>
              before
            </button>
          )}
          {b && a && ' · '}
          {a && (
            <button type="button" className="link-btn" onClick={() => openInCrawl(summary.newId, row.url, a.id)}>
              after
            </button>
          )}
        </div>
      </div>
    </aside>
  );
}

/** Opens one side's crawl on its URL table, searched for the URL, with the URL's detail open. */
function openInCrawl(crawlId: string, url: string, urlId: number): void {
  selectCrawl(crawlId);
  setFilter(crawlId, (f) => ({ ...emptyFilter(), sort: f.sort, search: url }));
  selectUrl(crawlId, urlId);
  setTab('urls');
}
