/** Small shared pieces: status pill, progress bar, empty/error states, external links. */
import type { ReactNode } from 'react';
import type { CrawlStatus, CrawlSummary } from '../../../shared/model.js';
import { statusLabel } from '../logic/actions.js';
import { remainingCount } from '../logic/progress.js';
import { formatCount, isWebUrl } from '../logic/format.js';
import { Icon } from './Icon.js';

export function StatusPill({ status, damaged, stopped }: { status: CrawlStatus; damaged?: boolean; stopped?: boolean }) {
  if (damaged) return <span className="pill pill-failed">Damaged</span>;
  // Ended by Stop: finished, with a partial crawl.
  if (stopped && status === 'finished') {
    return (
      <span className="pill pill-stopped" data-status={status} data-stopped="true" title="Stopped before its work was done: a partial crawl">
        Stopped
      </span>
    );
  }
  return (
    <span className={`pill pill-${status}`} data-status={status}>
      {status === 'running' && <span className="pulse" aria-hidden="true" />}
      {statusLabel(status)}
    </span>
  );
}

/**
 * Says when a crawl's figures are those of a partial crawl: stopped before its work was done, or
 * (`live`: the Issues view) still running or paused. Nothing for a crawl that finished its work.
 */
export function PartialCrawlNotice({ crawl, live = false }: { crawl: CrawlSummary; live?: boolean }) {
  const c = crawl.counters;
  const left = remainingCount(c);
  const unread = Math.max(0, c.sitemaps.total - c.sitemaps.done - c.sitemaps.failed);
  const what = [
    left > 0 ? `${formatCount(left)} ${left === 1 ? 'URL' : 'URLs'} still queued` : '',
    unread > 0 ? `${formatCount(unread)} ${unread === 1 ? 'sitemap' : 'sitemaps'} unread` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  const whole = 'orphans, click depth, inlinks and pages missing from the sitemaps';
  if (crawl.status === 'finished' && crawl.stopped) {
    return (
      <div className="banner banner-warn small" role="status" data-testid="partial-crawl" data-why="stopped">
        <Icon name="alert" size={14} />
        <div>
          <strong>Stopped before it was done</strong>
          {what ? `: ${what}.` : '.'} Findings about the whole site ({whole}) are as far as the crawl got.
        </div>
      </div>
    );
  }
  if (!live || (crawl.status !== 'running' && crawl.status !== 'paused')) return null;
  return (
    <div className="banner small" role="status" data-testid="partial-crawl" data-why={crawl.status}>
      <Icon name="alert" size={14} />
      <div>
        The crawl is {crawl.status === 'running' ? 'running' : 'paused'}
        {what ? ` (${what})` : ''}: these are the findings so far. Those about the whole site ({whole}) settle when it finishes.
      </div>
    </div>
  );
}

/** A horizontal progress bar; `value` 0..1. */
export function ProgressBar({
  value,
  tone = 'accent',
  label,
  indeterminate,
}: {
  value: number;
  tone?: 'accent' | 'ok' | 'muted' | 'warn';
  label?: string;
  indeterminate?: boolean;
}) {
  const pct = Math.round(Math.max(0, Math.min(1, value)) * 1000) / 10;
  return (
    <div
      className={`bar bar-${tone}${indeterminate ? ' bar-indeterminate' : ''}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={pct}
    >
      <div className="bar-fill" style={{ width: `${pct}%` }} />
    </div>
  );
}

export function EmptyState({ title, children, icon = 'list' }: { title: string; children?: ReactNode; icon?: Parameters<typeof Icon>[0]['name'] }) {
  return (
    <div className="empty" role="status">
      <div className="empty-icon">
        <Icon name={icon} size={22} />
      </div>
      <div className="empty-title">{title}</div>
      {children && <div className="empty-body">{children}</div>}
    </div>
  );
}

export function ErrorState({ title, message, onRetry }: { title: string; message: string; onRetry?: () => void }) {
  return (
    <div className="empty empty-error" role="alert">
      <div className="empty-icon">
        <Icon name="alert" size={22} />
      </div>
      <div className="empty-title">{title}</div>
      <div className="empty-body">{message}</div>
      {onRetry && (
        <button type="button" className="btn" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Spinner({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status">
      <Icon name="spinner" className="spin" />
      <span>{label}</span>
    </div>
  );
}

/** A crawled URL: a link that opens outside the app for http(s), plain text otherwise. Never HTML. */
export function UrlLink({ url, children }: { url: string; children?: ReactNode }) {
  if (!isWebUrl(url)) return <span className="mono">{children ?? url}</span>;
  return (
    <a className="url-link" href={url} target="_blank" rel="noopener noreferrer" title={url}>
      {children ?? url}
    </a>
  );
}

/** The colour class for an HTTP status. */
export function statusTone(status: number | undefined): string {
  if (status === undefined) return 'st-none';
  if (status >= 200 && status < 300) return 'st-2xx';
  if (status >= 300 && status < 400) return 'st-3xx';
  if (status >= 400 && status < 500) return 'st-4xx';
  if (status >= 500 && status < 600) return 'st-5xx';
  return 'st-other';
}

export function HttpStatus({ status }: { status: number | undefined }) {
  if (status === undefined) return <span className="muted">—</span>;
  return <span className={`http ${statusTone(status)}`}>{status}</span>;
}

export function Kbd({ children }: { children: ReactNode }) {
  return <kbd className="kbd">{children}</kbd>;
}
