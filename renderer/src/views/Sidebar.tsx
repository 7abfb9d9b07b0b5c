/** The crawls sidebar: every crawl with its status and progress; select, rename, delete, resume. */
import { useEffect, useRef, useState } from 'react';
import type { CrawlSummary } from '../../../shared/model.js';
import { Icon } from '../components/Icon.js';
import { ProgressBar, StatusPill } from '../components/Bits.js';
import { displayName } from '../logic/crawls.js';
import { formatAgeShort, formatAgo, formatCount, formatDateTime, stripScheme } from '../logic/format.js';
import { overallProgress } from '../logic/progress.js';
import { comparable } from '../logic/compare.js';
import { scheduleText } from '../logic/recrawl.js';
import { askDeleteCrawl, compareCrawl, openCrawlFile, renameCrawl, runAction, selectCrawl, showNewCrawl, useApp } from '../store/app-store.js';

export function Sidebar() {
  const crawls = useApp((s) => s.crawls);
  const loaded = useApp((s) => s.crawlsLoaded);
  const selectedId = useApp((s) => s.selectedId);
  const screen = useApp((s) => s.screen);
  const compareOld = useApp((s) => s.compare.oldId);
  const compareNew = useApp((s) => s.compare.newId);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(t);
  }, []);
  return (
    <aside className="sidebar" aria-label="Crawls">
      <div className="brand">
        <svg className="brand-mark" width="22" height="22" viewBox="0 0 24 24" aria-hidden="true">
          <circle cx="12" cy="12" r="10.5" fill="none" stroke="currentColor" strokeWidth="1.6" />
          <path d="M12 1.5v21M1.5 12h21M4.6 4.6l14.8 14.8M19.4 4.6 4.6 19.4" stroke="currentColor" strokeWidth="1" opacity="0.55" />
          <circle cx="12" cy="12" r="5" fill="none" stroke="currentColor" strokeWidth="1.2" />
          <circle cx="12" cy="12" r="1.8" fill="currentColor" />
        </svg>
        <span>Spinneret</span>
      </div>
      <div className="sidebar-head">
        <span className="section-label">Crawls</span>
        <OpenCrawlFile />
        <button
          type="button"
          className={`btn btn-small${screen === 'new' ? ' btn-primary' : ''}`}
          onClick={showNewCrawl}
          title="New crawl (Alt+N)"
          data-testid="new-crawl"
        >
          <Icon name="plus" size={14} /> New
        </button>
      </div>
      <ul className="crawl-list" role="listbox" aria-label="Crawls">
        {loaded && crawls.length === 0 && <li className="crawl-list-empty">No crawls yet. Start one with New.</li>}
        {crawls.map((c) => (
          <CrawlItem
            key={c.id}
            crawl={c}
            selected={screen === 'crawl' && c.id === selectedId}
            side={screen !== 'compare' ? null : c.id === compareOld ? 'old' : c.id === compareNew ? 'new' : null}
            now={now}
          />
        ))}
      </ul>
    </aside>
  );
}

/**
 * "Open crawl file…": Electron shows its own open dialog; a browser picks the file in the page
 * (an <input type=file>), whose bytes are sent to the upload address the service hands out.
 */
function OpenCrawlFile() {
  const transport = useApp((s) => s.transport);
  const importing = useApp((s) => s.importing);
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button
        type="button"
        className="btn btn-small btn-ghost sidebar-open"
        disabled={importing}
        onClick={() => (transport === 'browser' ? input.current?.click() : void openCrawlFile())}
        title="Open crawl file…: a crawl saved with Export → Save crawl as file"
        data-testid="open-crawl-file"
      >
        <Icon name={importing ? 'spinner' : 'upload'} size={14} className={importing ? 'spin' : undefined} /> {importing ? 'Opening…' : 'Open'}
      </button>
      {transport === 'browser' && (
        <input
          ref={input}
          type="file"
          accept=".spinneret,application/octet-stream,application/gzip"
          hidden
          data-testid="open-crawl-input"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) void openCrawlFile(file);
          }}
        />
      )}
    </>
  );
}

function CrawlItem({ crawl, selected, side, now }: { crawl: CrawlSummary; selected: boolean; side: 'old' | 'new' | null; now: number }) {
  const busy = useApp((s) => s.byCrawl[crawl.id]?.busy);
  const [editing, setEditing] = useState(false);
  const name = displayName(crawl);
  const progress = overallProgress(crawl);
  const c = crawl.counters;
  return (
    <li
      className={`crawl-item${selected ? ' selected' : ''}${side ? ' comparing' : ''}`}
      role="option"
      aria-selected={selected}
      data-crawl-id={crawl.id}
      data-status={crawl.status}
      onClick={() => !editing && selectCrawl(crawl.id)}
    >
      <div className="crawl-item-top">
        {editing ? (
          <RenameInput
            initial={crawl.name || name}
            onDone={(value) => {
              setEditing(false);
              if (value !== null && value.trim() && value.trim() !== crawl.name) void renameCrawl(crawl.id, value);
            }}
          />
        ) : (
          <span className="crawl-name" title={name} onDoubleClick={() => setEditing(true)}>
            {name}
          </span>
        )}
        {side && (
          <span className={`badge ${side === 'new' ? 'badge-info' : 'badge-muted'}`} data-testid={`compare-side-${side}`}>
            {side === 'old' ? 'before' : 'after'}
          </span>
        )}
        {crawl.status === 'paused' && (
          <button
            type="button"
            className="btn btn-tiny btn-primary"
            disabled={!!busy}
            onClick={(e) => {
              e.stopPropagation();
              void runAction(crawl.id, 'resume');
            }}
            data-testid="sidebar-resume"
            title="Resume this crawl"
          >
            <Icon name="play" size={12} /> Resume
          </button>
        )}
      </div>
      <div className="crawl-url" title={crawl.startUrl || crawl.settings.sitemapUrls.join('\n')}>
        {crawl.startUrl || crawl.settings.sitemapUrls[0]
          ? stripScheme(crawl.startUrl || crawl.settings.sitemapUrls[0] || '')
          : crawl.settings.mode === 'list'
            ? `List of ${formatCount(crawl.listSize ?? 0)} URLs`
            : ''}
      </div>
      <CrawlMarks crawl={crawl} />
      {crawl.status !== 'created' && (
        <ProgressBar
          value={progress.value}
          tone={crawl.status === 'failed' || crawl.stopped ? 'warn' : crawl.status === 'finished' ? 'ok' : crawl.status === 'paused' ? 'muted' : 'accent'}
          label={`${name} progress`}
        />
      )}
      <div className="crawl-meta">
        <StatusPill status={crawl.status} damaged={crawl.damaged} stopped={crawl.stopped} />
        <span className="num meta-count">{formatCount(c.discovered)} URLs</span>
        <span className="dot">·</span>
        <span className="ago" title={`Last activity ${formatDateTime(crawl.updatedAt)} (${formatAgo(crawl.updatedAt, now)})`}>
          {formatAgeShort(crawl.updatedAt, now)}
        </span>
        <span className="crawl-actions">
          <button
            type="button"
            className="icon-btn"
            title={comparable(crawl) ? 'Compare with another crawl of this site' : 'A crawl can be compared once it has run and is not running'}
            aria-label={`Compare ${name}`}
            disabled={!comparable(crawl)}
            data-testid="sidebar-compare"
            onClick={(e) => {
              e.stopPropagation();
              compareCrawl(crawl.id);
            }}
          >
            <Icon name="compare" size={14} />
          </button>
          <button
            type="button"
            className="icon-btn"
            title="Rename"
            aria-label={`Rename ${name}`}
            onClick={(e) => {
              e.stopPropagation();
              setEditing(true);
            }}
          >
            <Icon name="edit" size={14} />
          </button>
          <button
            type="button"
            className="icon-btn danger"
            aria-label={`Delete ${name}`}
            disabled={crawl.status === 'running' || !!busy}
            title={crawl.status === 'running' ? 'Pause or stop the crawl before deleting it' : 'Delete'}
            onClick={(e) => {
              e.stopPropagation();
              askDeleteCrawl(crawl, name);
            }}
          >
            <Icon name="trash" size={14} />
          </button>
        </span>
      </div>
    </li>
  );
}

function RenameInput({ initial, onDone }: { initial: string; onDone: (value: string | null) => void }) {
  const [value, setValue] = useState(initial);
  const ref = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  useEffect(() => {
    ref.current?.focus();
    ref.current?.select();
  }, []);
  const finish = (v: string | null) => {
    if (done.current) return;
    done.current = true;
    onDone(v);
  };
  return (
    <input
      ref={ref}
      className="rename-input"
      value={value}
      maxLength={200}
      aria-label="Crawl name"
      onClick={(e) => e.stopPropagation()}
      onChange={(e) => setValue(e.target.value)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') finish(value);
        if (e.key === 'Escape') finish(null);
      }}
      onBlur={() => finish(value)}
    />
  );
}

/** What sets a crawl apart in the list: a recrawl, opened from a file, a list crawl, a schedule. */
function CrawlMarks({ crawl }: { crawl: CrawlSummary }) {
  const marks: { key: string; icon: Parameters<typeof Icon>[0]['name']; text: string; title: string }[] = [];
  if (crawl.baseId) {
    marks.push({
      key: 'recrawl',
      icon: 'recrawl',
      text: crawl.changedOnly ? 'recrawl, changed only' : 'recrawl',
      title: 'Crawled again from an earlier crawl: results that answered 304 (or were not fetched) are carried over',
    });
  }
  if (crawl.imported) {
    marks.push({ key: 'imported', icon: 'file', text: 'opened from file', title: `Opened ${formatDateTime(crawl.imported.at)} from ${crawl.imported.file}` });
  }
  if (crawl.settings.mode === 'list' && (crawl.startUrl || crawl.settings.sitemapUrls[0])) {
    marks.push({ key: 'list', icon: 'list', text: `list of ${formatCount(crawl.listSize ?? 0)}`, title: 'A list-mode crawl: it fetched the URLs of a list' });
  }
  if (crawl.schedule) {
    marks.push({
      key: 'schedule',
      icon: 'clock',
      text: crawl.schedule.every,
      title: `${scheduleText(crawl.schedule)}; next ${formatDateTime(crawl.schedule.nextAt)}`,
    });
  }
  if (marks.length === 0) return null;
  return (
    <div className="crawl-marks">
      {marks.map((m) => (
        <span key={m.key} className="crawl-mark" title={m.title} data-mark={m.key}>
          <Icon name={m.icon} size={11} /> {m.text}
        </span>
      ))}
    </div>
  );
}
