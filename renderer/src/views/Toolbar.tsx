/** The crawl toolbar: name and state, Start/Pause/Resume/Stop/Export, and the view tabs. */
import { useEffect, useRef } from 'react';
import type { CrawlSummary } from '../../../shared/model.js';
import { Icon } from '../components/Icon.js';
import { Kbd, StatusPill, UrlLink } from '../components/Bits.js';
import { actionsFor } from '../logic/actions.js';
import { displayName } from '../logic/crawls.js';
import { formatCount, formatDateTime } from '../logic/format.js';
import { describeFilter, emptyFilter, filterToQuery, isFiltered } from '../logic/url-query.js';
import { issueSummary } from '../logic/issues.js';
import { compareCrawl, exportCsv, exportLinks, runAction, saveCrawlFile, selectCrawl, setExportMenu, setTab, useApp, type Tab } from '../store/app-store.js';
import { comparable, defaultPair } from '../logic/compare.js';
import { baseOf } from '../logic/recrawl.js';
import { RecrawlMenu } from './RecrawlMenu.js';
import { useFindings } from './IssuesView.js';
import { modKey } from './shortcuts.js';

export function Toolbar({ crawl }: { crawl: CrawlSummary }) {
  const busy = useApp((s) => s.byCrawl[crawl.id]?.busy);
  const a = actionsFor(crawl, !!busy);
  const name = displayName(crawl);
  const base = useApp((s) => baseOf(s.crawls, crawl));
  const hasPair = useApp((s) => defaultPair(s.crawls, crawl.id) !== null);
  return (
    <div className="toolbar">
      <div className="toolbar-title">
        <div className="title-row">
          <h1 title={name}>{name}</h1>
          <StatusPill status={crawl.status} damaged={crawl.damaged} stopped={crawl.stopped} />
          {busy && <span className="muted busy-note">{busyLabel(busy)}…</span>}
        </div>
        <div className="subtitle">
          {crawl.startUrl ? (
            <>
              <UrlLink url={crawl.startUrl} />
              {crawl.siteUrl && (
                <span data-testid="site-url" title={`The start URL redirects to ${crawl.siteUrl}: that site is crawled`}>
                  {' → '}
                  <UrlLink url={crawl.siteUrl} />
                </span>
              )}
            </>
          ) : crawl.settings.mode === 'list' ? (
            <span>List of {formatCount(crawl.listSize ?? 0)} URLs</span>
          ) : (
            <span>{crawl.settings.sitemapUrls.length} sitemap URLs</span>
          )}
          <span className="dot">·</span>
          {crawl.baseId && (
            <>
              <span data-testid="recrawl-of">
                {crawl.changedOnly ? 'Changed-only recrawl of ' : 'Recrawl of '}
                {base ? (
                  <button type="button" className="link-btn" onClick={() => selectCrawl(base.id)} title="Open the crawl this one recrawls">
                    {displayName(base)}
                  </button>
                ) : (
                  <span className="muted">a deleted crawl</span>
                )}
              </span>
              <span className="dot">·</span>
            </>
          )}
          {crawl.imported && (
            <>
              <span title={`Opened ${formatDateTime(crawl.imported.at)} from ${crawl.imported.file}`} data-testid="imported-from">
                Opened from {crawl.imported.file}
              </span>
              <span className="dot">·</span>
            </>
          )}
          {crawl.settings.mode === 'list' && crawl.startUrl && (
            <>
              <span>List of {formatCount(crawl.listSize ?? 0)} URLs</span>
              <span className="dot">·</span>
            </>
          )}
          <span>Created {formatDateTime(crawl.createdAt)}</span>
          {crawl.finishedAt && (
            <>
              <span className="dot">·</span>
              <span>
                {crawl.stopped ? 'Stopped' : 'Finished'} {formatDateTime(crawl.finishedAt)}
              </span>
            </>
          )}
        </div>
      </div>
      <div className="toolbar-actions" role="toolbar" aria-label="Crawl controls">
        <button
          type="button"
          className="btn"
          disabled={!comparable(crawl)}
          onClick={() => compareCrawl(crawl.id)}
          data-action="compare"
          title={
            !comparable(crawl)
              ? 'A crawl can be compared once it has run and is not running'
              : hasPair
                ? 'Compare with the previous crawl of this site (or the one it recrawls)'
                : 'Compare with another crawl: pick it in the Compare view'
          }
        >
          <Icon name="compare" size={14} /> Compare
        </button>
        <RecrawlMenu crawl={crawl} />
        {/* A finished or failed crawl is over: Crawl again starts another. */}
        {crawl.status !== 'finished' && crawl.status !== 'failed' && (
          <>
            {crawl.status === 'created' || a.start ? (
              <button
                type="button"
                className="btn btn-primary"
                disabled={!a.start}
                onClick={() => void runAction(crawl.id, 'start')}
                data-action="start"
                title={`Start (${modKey}+P)`}
              >
                <Icon name="play" size={14} /> Start
              </button>
            ) : crawl.status === 'paused' ? (
              <button
                type="button"
                className="btn btn-primary"
                disabled={!a.resume}
                onClick={() => void runAction(crawl.id, 'resume')}
                data-action="resume"
                title={`Resume (${modKey}+P)`}
              >
                <Icon name="play" size={14} /> Resume
              </button>
            ) : (
              <button
                type="button"
                className="btn"
                disabled={!a.pause}
                onClick={() => void runAction(crawl.id, 'pause')}
                data-action="pause"
                title={`Pause (${modKey}+P)`}
              >
                <Icon name="pause" size={14} /> Pause
              </button>
            )}
            <button
              type="button"
              className="btn"
              disabled={!a.stop}
              onClick={() => void runAction(crawl.id, 'stop')}
              data-action="stop"
              title="Stop for good: the crawl ends with what it has"
            >
              <Icon name="stop" size={14} /> Stop
            </button>
          </>
        )}
        <ExportButton crawl={crawl} enabled={a.export} />
      </div>
    </div>
  );
}

function busyLabel(b: string): string {
  return (
    {
      start: 'Starting',
      pause: 'Pausing',
      resume: 'Resuming',
      stop: 'Stopping',
      export: 'Exporting',
      delete: 'Deleting',
      rename: 'Renaming',
      recrawl: 'Starting the recrawl',
      schedule: 'Saving the schedule',
      save: 'Saving the crawl file',
    }[b] ?? b
  );
}

function ExportButton({ crawl, enabled }: { crawl: CrawlSummary; enabled: boolean }) {
  const open = useApp((s) => s.exportMenuOpen);
  const filter = useApp((s) => s.byCrawl[crawl.id]?.filter) ?? emptyFilter();
  const ref = useRef<HTMLDivElement>(null);
  const filtered = isFiltered(filter);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) setExportMenu(false);
    };
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && setExportMenu(false);
    document.addEventListener('mousedown', close);
    document.addEventListener('keydown', esc);
    return () => {
      document.removeEventListener('mousedown', close);
      document.removeEventListener('keydown', esc);
    };
  }, [open]);
  return (
    <div className="menu-anchor" ref={ref}>
      <button
        type="button"
        className="btn"
        disabled={!enabled}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setExportMenu(!open)}
        data-action="export"
        title={`Export CSV (${modKey}+E)`}
      >
        <Icon name="download" size={14} /> Export CSV <Icon name="chevronDown" size={12} />
      </button>
      {open && (
        <div className="menu" role="menu">
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            disabled={!filtered}
            onClick={() => void exportCsv(crawl.id, filterToQuery(filter))}
            data-export="filter"
          >
            <span>Current filter</span>
            <span className="menu-note">{filtered ? describeFilter(filter) : 'No filter is set in the URLs view'}</span>
          </button>
          <button type="button" role="menuitem" className="menu-item" onClick={() => void exportCsv(crawl.id, undefined)} data-export="all">
            <span>All URLs</span>
            <span className="menu-note">{formatCount(crawl.counters.discovered)} URLs, every column of the CLI's CSV</span>
          </button>
          {crawl.settings.fetchPages && (
            <button type="button" role="menuitem" className="menu-item" onClick={() => void exportLinks(crawl.id)} data-export="links">
              <span>All links</span>
              <span className="menu-note">Every link between crawled pages: source, target, anchor, target status, nofollow, external</span>
            </button>
          )}
          <div className="menu-section">Crawl file</div>
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            disabled={crawl.status === 'running'}
            onClick={() => {
              setExportMenu(false);
              void saveCrawlFile(crawl.id);
            }}
            data-export="crawl-file"
          >
            <span>Save crawl as file…</span>
            <span className="menu-note">
              {crawl.status === 'running'
                ? 'Pause or stop the crawl first'
                : 'Everything this crawl holds, in one .spinneret file: open it with Open crawl file… on any computer'}
            </span>
          </button>
          <div className="menu-foot">
            <Kbd>{modKey}</Kbd>+<Kbd>E</Kbd> exports the current filter, or everything when there is none
          </div>
        </div>
      )}
    </div>
  );
}

const TABS: { id: Tab; label: string; icon: Parameters<typeof Icon>[0]['name'] }[] = [
  { id: 'overview', label: 'Overview', icon: 'gauge' },
  { id: 'urls', label: 'URLs', icon: 'list' },
  { id: 'sitemaps', label: 'Sitemaps', icon: 'sitemap' },
  { id: 'issues', label: 'Issues', icon: 'flag' },
  { id: 'errors', label: 'Errors', icon: 'alert' },
];

export function Tabs({ crawl }: { crawl: CrawlSummary }) {
  const tab = useApp((s) => s.tab);
  // The tab's count, and the findings' titles the other views show: loaded with the crawl (its Overview opens
  // it and waits for its audit anyway), live while it runs.
  const findings = useFindings(crawl);
  const issues = issueSummary(findings?.list);
  const c = crawl.counters;
  const counts: Record<Tab, number | null> = {
    overview: null,
    urls: c.discovered,
    sitemaps: c.sitemaps.total,
    // None while a reopened crawl's audit is rebuilt: a partial count would read as the crawl's.
    issues: findings?.list && !findings.computing ? issues.count : null,
    // What the Errors view lists: fetches that failed, sitemaps that failed, and 4xx and 5xx answers.
    errors: c.errors + c.sitemaps.failed + c.byStatusClass['4xx'] + c.byStatusClass['5xx'],
  };
  const tone = (t: Tab) =>
    t === 'errors' && counts.errors! > 0
      ? ' tab-count-error'
      : t === 'issues' && issues.worst === 'critical'
        ? ' tab-count-error'
        : t === 'issues' && issues.worst === 'warning'
          ? ' tab-count-warn'
          : '';
  return (
    <nav className="tabs" role="tablist" aria-label="Views">
      {TABS.map((t) => (
        <button
          type="button"
          role="tab"
          key={t.id}
          aria-selected={tab === t.id}
          className={`tab${tab === t.id ? ' selected' : ''}`}
          onClick={() => setTab(t.id)}
          data-tab={t.id}
        >
          <Icon name={t.icon} size={14} />
          {t.label}
          {counts[t.id] !== null && (
            <span className={`tab-count${tone(t.id)}`} data-testid={`tab-count-${t.id}`}>
              {formatCount(counts[t.id])}
            </span>
          )}
        </button>
      ))}
    </nav>
  );
}
