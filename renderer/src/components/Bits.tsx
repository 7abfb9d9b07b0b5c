/** Small shared pieces: status pill, progress bar, empty/error states, external links. */
import type { ReactNode } from 'react';
import type { CrawlStatus } from '../../../shared/model.js';
import { statusLabel } from '../logic/actions.js';
import { isWebUrl } from '../logic/format.js';
import { Icon } from './Icon.js';

export function StatusPill({ status, damaged }: { status: CrawlStatus; damaged?: boolean }) {
  if (damaged) return <span className="pill pill-failed">Damaged</span>;
  return (
    <span className={`pill pill-${status}`} data-status={status}>
      {status === 'running' && <span className="pulse" aria-hidden="true" />}
      {statusLabel(status)}
    </span>
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
