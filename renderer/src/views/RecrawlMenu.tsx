/**
 * The toolbar's "Crawl again" menu: recrawl now (all URLs, or changed only), and a schedule that
 * recrawls the crawl every day or week while Spinneret runs, with when it runs next.
 */
import { useEffect, useState } from 'react';
import type { CrawlSummary } from '../../../shared/model.js';
import { Icon } from '../components/Icon.js';
import { usePopover } from '../hooks/usePopover.js';
import { canRecrawl, formatUntil, scheduleText } from '../logic/recrawl.js';
import { formatDateTime } from '../logic/format.js';
import { recrawl, setSchedule, useApp } from '../store/app-store.js';

export function RecrawlMenu({ crawl }: { crawl: CrawlSummary }) {
  const busy = useApp((s) => s.byCrawl[crawl.id]?.busy);
  const { open, setOpen, ref } = usePopover();
  const [changedOnly, setChangedOnly] = useState(crawl.schedule?.changedOnly ?? false);
  useEffect(() => setChangedOnly(crawl.schedule?.changedOnly ?? false), [crawl.id, crawl.schedule?.changedOnly]);
  const can = canRecrawl(crawl);
  const every = crawl.schedule?.every ?? null;
  const now = Date.now();
  return (
    <div className="menu-anchor" ref={ref}>
      <button
        type="button"
        className="btn"
        disabled={!can.ok || !!busy}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-action="recrawl"
        title={can.ok ? 'Crawl again, now or on a schedule, reusing what this crawl learned' : can.why}
      >
        <Icon name="recrawl" size={14} /> Crawl again {every && <span className="badge badge-info">{every}</span>} <Icon name="chevronDown" size={12} />
      </button>
      {open && (
        <div className="menu menu-wide" role="menu" data-testid="recrawl-menu">
          <label className="menu-check menu-check-wide">
            <input type="checkbox" checked={changedOnly} onChange={(e) => setChangedOnly(e.target.checked)} data-testid="recrawl-changed-only" />
            <span>
              Changed only
              <span className="menu-note">Fetch only URLs that are new, whose lastmod moved, or that failed last time; keep the others' results.</span>
            </span>
          </label>
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            onClick={() => {
              setOpen(false);
              void recrawl(crawl.id, changedOnly);
            }}
            data-testid="recrawl-now"
          >
            <span>Crawl again now{changedOnly ? ' (changed only)' : ''}</span>
            <span className="menu-note">
              A new crawl of the same settings: pages and sitemaps that answer 304 Not Modified keep their results. Compared with this one when it finishes.
            </span>
          </button>
          <div className="menu-section">Recrawl on a schedule</div>
          <div className="menu-row">
            <div className="seg" role="radiogroup" aria-label="Recrawl schedule">
              {([null, 'daily', 'weekly'] as const).map((e) => (
                <button
                  key={e ?? 'off'}
                  type="button"
                  role="radio"
                  aria-checked={every === e}
                  className={`seg-btn${every === e ? ' selected' : ''}`}
                  disabled={!!busy || (e !== null && !can.ok)}
                  onClick={() => void setSchedule(crawl.id, e, changedOnly)}
                  data-schedule={e ?? 'off'}
                >
                  {e === null ? 'Off' : e === 'daily' ? 'Daily' : 'Weekly'}
                </button>
              ))}
            </div>
          </div>
          <div className="menu-foot" data-testid="schedule-note">
            {crawl.schedule ? (
              <>
                {scheduleText(crawl.schedule)}. Next run{' '}
                <strong data-testid="schedule-next" data-at={crawl.schedule.nextAt}>
                  {formatDateTime(crawl.schedule.nextAt)} ({formatUntil(crawl.schedule.nextAt, now)})
                </strong>
                . Runs while Spinneret is open; a run missed while it was closed starts when it opens.
                {crawl.schedule.changedOnly !== changedOnly && <> Pick the schedule again to apply “changed only”.</>}
              </>
            ) : (
              'Not scheduled. Spinneret recrawls while it runs, and tells you when findings got worse.'
            )}
          </div>
        </div>
      )}
    </div>
  );
}
