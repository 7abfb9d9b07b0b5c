/**
 * Issues: the audit (sitemap and page findings) grouped by severity, each finding with its count and what to do about it.
 * A URL finding opens the URL table filtered to it; a sitemap finding lists its sitemaps first. A finding
 * about linked URLs (LINK_FINDING_CODES) also exports the links to them: the pages to fix.
 * Findings the crawl could not measure are shown apart, greyed, with the reason.
 */
import { useEffect, useRef, useState } from 'react';
import { LINK_FINDING_CODES, type AuditFinding, type CrawlSummary, type FindingUrlPage } from '../../../shared/model.js';
import { toApiError } from '../api/types.js';
import { EmptyState, ErrorState, PartialCrawlNotice, Spinner, UrlLink } from '../components/Bits.js';
import { Icon } from '../components/Icon.js';
import { formatCount } from '../logic/format.js';
import { countNoun, groupFindings, issueSummary, SEVERITY_LABEL, SEVERITY_TONE, type FindingGroup } from '../logic/issues.js';
import { exportCsv, exportLinks, getApi, loadFindings, showFinding, useApp } from '../store/app-store.js';

/** Sitemaps listed inline under a sitemap finding (the rest are counted). */
const SITEMAPS_SHOWN = 50;

/** The crawl's findings, loaded and reloaded as a live crawl moves on. */
export function useFindings(crawl: CrawlSummary) {
  const version = useApp((s) => s.byCrawl[crawl.id]?.urlVersion ?? 0);
  const state = useApp((s) => s.byCrawl[crawl.id]?.findings);
  const status = useRef(crawl.status);
  useEffect(() => {
    // A new status (a crawl finishing) is read at once: its findings may change with no progress after.
    const changed = status.current !== crawl.status;
    status.current = crawl.status;
    void loadFindings(crawl.id, changed);
  }, [crawl.id, version, crawl.status]);
  return state;
}

export function IssuesView({ crawl }: { crawl: CrawlSummary }) {
  const state = useFindings(crawl);
  const busy = useApp((s) => s.byCrawl[crawl.id]?.busy);
  const [open, setOpen] = useState<string | null>(null);
  const list = state?.list ?? null;

  if (!list) {
    if (state?.error) return <ErrorState title="Could not load the audit" message={state.error} onRetry={() => void loadFindings(crawl.id, true)} />;
    return <Spinner label="Reading the audit…" />;
  }
  if (crawl.status === 'created') {
    return (
      <EmptyState title="No audit yet" icon="alert">
        Start the crawl: the audit fills in as sitemaps and pages are read.
      </EmptyState>
    );
  }
  const { groups, notMeasured } = groupFindings(list);
  const { count } = issueSummary(list);
  const exportFinding = (f: AuditFinding) => void exportCsv(crawl.id, { finding: f.code });

  return (
    <div className="issues page-scroll" data-testid="issues" data-computing={state?.computing ? 'true' : 'false'}>
      <div className="issues-summary">
        {groups.map((g) => (
          <span key={g.severity} className="summary-chip static" data-testid={`issues-${g.severity}`} data-count={g.withProblems}>
            <span className={`sev-dot sev-${g.severity}`} aria-hidden="true" />
            <span className="summary-num num">{g.withProblems}</span> {SEVERITY_LABEL[g.severity].toLowerCase()}
          </span>
        ))}
        {notMeasured.length > 0 && (
          <span className="summary-chip static muted" data-testid="issues-not-measured">
            <span className="summary-num num">{notMeasured.length}</span> not measured
          </span>
        )}
        <span className="filterbar-count muted small">
          {crawl.status === 'running' ? 'Updates live while the crawl runs' : `${count} of ${list.length} checks found problems`}
          {state?.error && <span className="text-error"> · refresh failed: {state.error}</span>}
        </span>
      </div>
      <PartialCrawlNotice crawl={crawl} live />
      {state?.computing && (
        <div className="issues-computing banner small" role="status" data-testid="issues-computing">
          <Icon name="spinner" size={14} className="spin" />
          <div>Rebuilding the audit of this reopened crawl from its journal: the counts below are what it has found so far.</div>
        </div>
      )}
      {count === 0 && !state?.computing && (
        <div className="issues-clean banner small">
          <Icon name="list" size={14} />
          <div>{crawl.status === 'running' ? 'No problems found so far.' : 'No problems found in what this crawl could measure.'}</div>
        </div>
      )}
      {groups.map((g) => (
        <Group key={g.severity} group={g}>
          {g.findings.map((f) => (
            <FindingRow
              key={f.code}
              crawlId={crawl.id}
              finding={f}
              open={open === f.code}
              onToggle={() => setOpen(open === f.code ? null : f.code)}
              onExport={() => exportFinding(f)}
              exporting={!!busy}
            />
          ))}
        </Group>
      ))}
      {notMeasured.length > 0 && (
        <section className="issue-group issue-group-unmeasured" data-testid="issues-unmeasured">
          <h2>
            Not measured <span className="muted small">{notMeasured.length} checks this crawl cannot answer</span>
          </h2>
          <ul className="issue-list">
            {notMeasured.map((f) => (
              <li key={f.code} className="issue-row unmeasured" data-code={f.code}>
                <div className="issue-main static">
                  <span className="issue-count badge badge-muted">—</span>
                  <span className="issue-text">
                    <span className="issue-title">{f.title}</span> <span className="mono muted">{f.code}</span>
                    <span className="issue-expl">{f.notMeasuredReason ?? 'Not measured by this crawl.'}</span>
                  </span>
                </div>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

function Group({ group, children }: { group: FindingGroup; children: React.ReactNode }) {
  if (group.findings.length === 0) return null;
  return (
    <section className={`issue-group issue-group-${group.severity}`} data-severity={group.severity}>
      <h2>
        <span className={`sev-dot sev-${group.severity}`} aria-hidden="true" />
        {SEVERITY_LABEL[group.severity]}{' '}
        <span className="muted small">
          {group.withProblems} of {group.findings.length} with problems
        </span>
      </h2>
      <ul className="issue-list">{children}</ul>
    </section>
  );
}

function FindingRow({
  crawlId,
  finding: f,
  open,
  onToggle,
  onExport,
  exporting,
}: {
  crawlId: string;
  finding: AuditFinding;
  open: boolean;
  onToggle(): void;
  onExport(): void;
  exporting: boolean;
}) {
  const clean = f.count === 0;
  const isSitemap = f.subject === 'sitemap';
  const linkFinding = LINK_FINDING_CODES.includes(f.code);
  const select = () => (isSitemap ? onToggle() : showFinding(crawlId, f));
  return (
    <li className={`issue-row${clean ? ' clean' : ''}${open ? ' open' : ''}`} data-code={f.code} data-count={f.count}>
      <button
        type="button"
        className="issue-main"
        disabled={clean}
        onClick={select}
        aria-expanded={isSitemap ? open : undefined}
        data-testid={`finding-${f.code}`}
      >
        <span className={`issue-count badge ${clean ? 'badge-muted' : SEVERITY_TONE[f.severity]}`}>{formatCount(f.count)}</span>
        <span className="issue-text">
          <span className="issue-title">{f.title}</span> <span className="mono muted">{f.code}</span>
          <span className="issue-expl">{f.explanation}</span>
          {!clean && linkFinding && (
            <span className="issue-expl muted">Open a URL of the list: its detail lists the pages that link to it; Links CSV exports them all.</span>
          )}
        </span>
        {!clean && (
          <span className="issue-go muted small">
            {formatCount(f.count)} {countNoun(f)} <Icon name={isSitemap ? (open ? 'chevronDown' : 'chevronRight') : 'chevronRight'} size={12} />
          </span>
        )}
      </button>
      {!clean && (
        <div className="issue-actions">
          {isSitemap && (
            <button
              type="button"
              className="link-btn"
              onClick={() => showFinding(crawlId, f)}
              title="The URL table, narrowed to the URLs these sitemaps listed"
            >
              URLs they list
            </button>
          )}
          <button
            type="button"
            className="link-btn"
            onClick={onExport}
            disabled={exporting}
            data-testid={`export-${f.code}`}
            title={isSitemap ? 'Export the URLs these sitemaps listed as CSV' : 'Export these URLs as CSV'}
          >
            <Icon name="download" size={12} /> CSV
          </button>
          {linkFinding && (
            <button
              type="button"
              className="link-btn"
              onClick={() => void exportLinks(crawlId, { finding: f.code })}
              disabled={exporting}
              data-testid={`export-links-${f.code}`}
              title="Export every link to these URLs as CSV: the page it is on, its anchor, the target's status"
            >
              <Icon name="download" size={12} /> Links CSV
            </button>
          )}
        </div>
      )}
      {open && isSitemap && <SitemapList crawlId={crawlId} code={f.code} count={f.count} />}
    </li>
  );
}

/** The sitemaps a sitemap finding affects, fetched when the row opens. */
function SitemapList({ crawlId, code, count }: { crawlId: string; code: string; count: number }) {
  const [page, setPage] = useState<FindingUrlPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let alive = true;
    getApi()
      .getFindingUrls({ id: crawlId, code, offset: 0, limit: SITEMAPS_SHOWN })
      .then(
        (p) => alive && setPage(p),
        (err) => alive && setError(toApiError(err).message),
      );
    return () => {
      alive = false;
    };
  }, [crawlId, code, count]);
  if (error) return <div className="issue-sitemaps text-error small">Could not list the sitemaps: {error}</div>;
  if (!page) return <div className="issue-sitemaps muted small">Loading the sitemaps…</div>;
  return (
    <ul className="issue-sitemaps plain-list" data-testid={`sitemaps-${code}`}>
      {page.urls.map((u) => (
        <li key={u}>
          <Icon name="sitemap" size={12} className="muted" /> <UrlLink url={u} />
        </li>
      ))}
      {page.total > page.urls.length && (
        <li className="muted small">…and {formatCount(page.total - page.urls.length)} more (Sitemaps tab: the badges show them all)</li>
      )}
    </ul>
  );
}
