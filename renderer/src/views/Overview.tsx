/** Overview: counters, rate and ETA, progress bars, and the charts an analyst reads at a glance. */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { crawlRunningMs, type CrawlSummary, type PageStats, type RequestSource, type StatusClass } from '../../../shared/model.js';
import { toApiError } from '../api/types.js';
import { BarList, DepthChart, DiscoveryChart, Donut, Legend, type BarDatum } from '../components/Charts.js';
import { PartialCrawlNotice, ProgressBar } from '../components/Bits.js';
import { Icon } from '../components/Icon.js';
import { formatCount, formatDuration, formatPercent, formatRate } from '../logic/format.js';
import { etaSeconds, fetchProgress, sitemapProgress } from '../logic/progress.js';
import { depthBars } from '../logic/chart.js';
import { INDEXABILITY_REASON_LABEL } from '../logic/labels.js';
import { depthDrill, emptyFilter, indexabilityDrill } from '../logic/url-query.js';
import { getApi, openCompare, setFilter, setTab, useApp } from '../store/app-store.js';
import { displayName } from '../logic/crawls.js';

const EMPTY: never[] = [];

export function Overview({ crawl }: { crawl: CrawlSummary }) {
  const points = useApp((s) => s.byCrawl[crawl.id]?.history) ?? EMPTY;
  const c = crawl.counters;
  const eta = etaSeconds(crawl);
  const fetchP = fetchProgress(c);
  const smP = sitemapProgress(c);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (crawl.status !== 'running') return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [crawl.status]);
  const ms = crawlRunningMs(crawl, now);
  const elapsed = ms === null ? null : ms / 1000;

  /** Jumps to the URL table narrowed to one slice of a chart. */
  const drill = (patch: Partial<ReturnType<typeof emptyFilter>>) => () => {
    setFilter(crawl.id, () => ({ ...emptyFilter(), ...patch }));
    setTab('urls');
  };

  const statusData: BarDatum[] = (
    [
      ['2xx', '2xx', 'tone-2xx'],
      ['3xx', '3xx', 'tone-3xx'],
      ['4xx', '4xx', 'tone-4xx'],
      ['5xx', '5xx', 'tone-5xx'],
      ['other', 'Other', 'tone-other'],
    ] as [Exclude<StatusClass, 'none'>, string, string][]
  ).map(([k, label, tone]) => ({ key: k, label, value: c.byStatusClass[k], tone, onClick: drill({ statusClasses: [k] }) }));
  const sourceData: BarDatum[] = (
    [
      ['sitemap', 'Sitemaps'],
      ['link', 'Links'],
      ['redirect', 'Redirects'],
      ['canonical', 'Canonicals'],
      ['hreflang', 'hreflang'],
      ['reference', 'Other references'],
      ['start', 'Start URL'],
      ['robots', 'robots.txt'],
    ] as [RequestSource, string][]
  )
    .filter(([k]) => k === 'sitemap' || k === 'link' || (c.bySource[k] ?? 0) > 0)
    .map(([k, label]) => ({ key: k, label, value: c.bySource[k], tone: `tone-src-${k}`, onClick: drill({ sources: [k] }) }));
  const stateData: BarDatum[] = [
    { key: 'queued', label: 'Queued', value: c.queued, tone: 'tone-queued', onClick: drill({ states: ['queued'] }) },
    { key: 'fetching', label: 'Fetching', value: c.fetching, tone: 'tone-fetching' },
    { key: 'done', label: 'Fetched', value: c.fetched, tone: 'tone-2xx', onClick: drill({ states: ['done'] }) },
    { key: 'listed', label: 'Not fetched', value: c.listed, tone: 'tone-listed', onClick: drill({ states: ['listed'] }) },
    { key: 'blocked', label: 'Blocked', value: c.blocked, tone: 'tone-blocked', onClick: drill({ states: ['blocked'] }) },
    { key: 'error', label: 'Fetch failed', value: c.errors, tone: 'tone-5xx', onClick: drill({ states: ['error'] }) },
  ];

  return (
    <div className="page-scroll">
      <div className="overview">
        <PartialCrawlNotice crawl={crawl} />
        {crawl.error && (
          <div className={`banner ${crawl.status === 'failed' ? 'banner-error' : 'banner-warn'}`} role="alert">
            <Icon name="alert" />
            <div>
              <strong>{crawl.status === 'failed' ? 'The crawl failed' : 'The crawl stopped on its own'}:</strong> {crawl.error.message}
              <span className="muted mono"> ({crawl.error.code})</span>
            </div>
          </div>
        )}
        {crawl.damaged && (
          <div className="banner banner-error" role="alert">
            <Icon name="alert" />
            <div>This crawl's folder is missing journal files: what is shown is what could be read. It cannot be resumed.</div>
          </div>
        )}
        {crawl.baseId && <RecrawlBanner crawl={crawl} />}
        <div className="stats" data-testid="counters">
          <Stat label="Discovered" value={c.discovered} testid="stat-discovered" strong />
          <Stat label="Queued" value={c.queued} testid="stat-queued" />
          <Stat label="Fetched" value={c.fetched} testid="stat-fetched" />
          <Stat label="Not fetched" sub="recorded only" value={c.listed} testid="stat-listed" />
          <Stat label="Blocked" value={c.blocked} testid="stat-blocked" tone={c.blocked ? 'warn' : undefined} />
          <Stat label="Fetch failed" sub="no answer" value={c.errors} testid="stat-errors" tone={c.errors ? 'error' : undefined} />
          <Stat label="Duplicates" sub="counted once" value={c.duplicates} testid="stat-duplicates" />
          <div className="stat">
            <div className="stat-label">Rate</div>
            <div className="stat-value num" data-testid="stat-rate">
              {crawl.status === 'running' ? formatRate(crawl.rate) : '—'}
            </div>
            <div className="stat-sub">
              {crawl.status === 'running' ? (
                <>ETA {eta === null ? '—' : `≥ ${formatDuration(eta)}`}</>
              ) : crawl.status === 'paused' ? (
                'paused'
              ) : elapsed !== null ? (
                <>took {formatDuration(elapsed)}</>
              ) : (
                'not started'
              )}
            </div>
          </div>
        </div>

        <div className="progress-grid">
          <div className="card progress-card">
            <div className="card-head">
              <span className="card-title">Sitemap streaming</span>
              <span className="num muted">
                {formatCount(smP.done)} / {formatCount(smP.total)} sitemaps
                {c.sitemaps.failed > 0 && <span className="text-error"> · {formatCount(c.sitemaps.failed)} failed</span>}
              </span>
            </div>
            <ProgressBar value={crawl.status === 'finished' && smP.total > 0 ? 1 : smP.value} tone="accent" label="Sitemap streaming" />
            <div
              className="progress-foot muted"
              data-testid="sitemap-first-found"
              title="URLs a sitemap was the first to name. A URL found first elsewhere (the start URL, a link) and listed later counts under its first source; the URL table's In sitemap filter counts every listed URL."
            >
              {formatCount(c.bySource.sitemap)} URLs found first in sitemaps · {formatPercent(smP.done, smP.total)}
            </div>
          </div>
          <div className="card progress-card">
            <div className="card-head">
              <span className="card-title">Page fetching</span>
              <span className="num muted">
                {crawl.settings.fetchPages ? `${formatCount(fetchP.done)} / ${formatCount(fetchP.total)} URLs` : 'off: sitemap listing only'}
              </span>
            </div>
            <ProgressBar value={crawl.settings.fetchPages ? fetchP.value : 0} tone="ok" label="Page fetching" />
            <div className="progress-foot muted">
              {crawl.settings.fetchPages
                ? `${formatCount(c.fetching)} in flight · ${formatCount(c.queued)} queued · ${formatPercent(fetchP.done, fetchP.total)}`
                : `${formatCount(c.listed)} URLs listed without fetching`}
            </div>
          </div>
        </div>

        <div className="chart-grid">
          <div className="card chart-card wide">
            <div className="card-head">
              <span className="card-title">Discovery over time</span>
              <span className="legend">
                <span className="legend-key key-disc" /> discovered <span className="legend-key key-handled" /> handled
              </span>
            </div>
            {points.length > 1 ? (
              <Measured>{(w) => <DiscoveryChart points={points} width={w} />}</Measured>
            ) : (
              <div className="chart-empty muted">
                {crawl.status === 'running' ? 'Collecting points…' : 'Recorded from live progress while the crawl runs in this window.'}
              </div>
            )}
          </div>
          <div className="card chart-card">
            <div className="card-head">
              <span className="card-title">HTTP status classes</span>
            </div>
            <div className="donut-row">
              <Donut data={statusData} centerLabel="answered" />
              <Legend data={statusData} />
            </div>
          </div>
          {crawl.settings.fetchPages && <PageStatsCards crawl={crawl} />}
          <div className="card chart-card">
            <div className="card-head">
              <span className="card-title">URLs by source</span>
              <span className="muted small">first discovery</span>
            </div>
            <BarList data={sourceData} />
          </div>
          <div className="card chart-card">
            <div className="card-head">
              <span className="card-title">URLs by state</span>
            </div>
            <BarList data={stateData} total={c.discovered} />
          </div>
          <div className="card chart-card">
            <div className="card-head">
              <span className="card-title">Settings</span>
            </div>
            <dl className="kv">
              <dt>Mode</dt>
              <dd>{!crawl.settings.fetchPages ? 'Sitemap listing only' : crawl.settings.followLinks ? 'Fetch pages, follow links' : 'Fetch listed pages'}</dd>
              <dt>Scope</dt>
              <dd>{crawl.settings.scope === 'host' ? 'Same host' : crawl.settings.scope === 'domain' ? 'Same domain' : 'Any host'}</dd>
              <dt>Concurrency</dt>
              <dd className="num">
                {crawl.settings.concurrency} ({crawl.settings.perHostConcurrency} per host) · {crawl.settings.delayMs} ms delay
              </dd>
              <dt>Limits</dt>
              <dd>
                depth {crawl.settings.maxDepth ?? '∞'} · {crawl.settings.maxUrls === null ? 'no URL limit' : `${formatCount(crawl.settings.maxUrls)} URLs max`}
              </dd>
              <dt>robots.txt</dt>
              <dd>{crawl.settings.respectRobots ? 'respected' : 'ignored'}</dd>
              <dt>User agent</dt>
              <dd className="mono ellipsis" title={crawl.settings.userAgent}>
                {crawl.settings.userAgent}
              </dd>
            </dl>
          </div>
        </div>
      </div>
    </div>
  );
}

function Stat({
  label,
  sub,
  value,
  testid,
  tone,
  strong,
}: {
  label: string;
  sub?: string;
  value: number;
  testid: string;
  tone?: 'warn' | 'error';
  strong?: boolean;
}) {
  return (
    <div className={`stat${tone ? ` stat-${tone}` : ''}${strong ? ' stat-strong' : ''}`}>
      <div className="stat-label">{label}</div>
      <div className="stat-value num" data-testid={testid} data-value={value}>
        {formatCount(value)}
      </div>
      {sub && <div className="stat-sub">{sub}</div>}
    </div>
  );
}

/** Gives its child the width it has, re-measured on resize (for the SVG chart). */
function Measured({ children }: { children: (width: number) => ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [w, setW] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setW(el.clientWidth));
    ro.observe(el);
    setW(el.clientWidth);
    return () => ro.disconnect();
  }, []);
  return (
    <div ref={ref} className="measured">
      {w > 0 && children(w)}
    </div>
  );
}

/** While a crawl runs its page figures are asked for at most this often. */
const STATS_REFRESH_MS = 2000;

/**
 * The crawl's page figures (getPageStats), reloaded as a live crawl moves on, at most every
 * STATS_REFRESH_MS; at once when its status changes (a finished crawl shows its final figures).
 */
function usePageStats(crawl: CrawlSummary): { stats: PageStats | null; error: string | null } {
  const version = useApp((s) => s.byCrawl[crawl.id]?.urlVersion ?? 0);
  const [stats, setStats] = useState<{ id: string; stats: PageStats } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const last = useRef(0);
  const lastStatus = useRef(crawl.status);
  /** The latest request: an answer to an older one is not shown (nor is a request called off by a newer change). */
  const latest = useRef(0);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const statusChanged = lastStatus.current !== crawl.status;
    lastStatus.current = crawl.status;
    const wait = statusChanged ? 0 : last.current + STATS_REFRESH_MS - Date.now();
    if (wait > 0) {
      // Too soon: once, a little later, so the last change of a crawl is never missed.
      const t = setTimeout(() => setTick((n) => n + 1), wait);
      return () => clearTimeout(t);
    }
    last.current = Date.now();
    const mine = ++latest.current;
    getApi()
      .getPageStats({ id: crawl.id })
      .then(
        (st) => {
          if (mine !== latest.current) return;
          setStats({ id: crawl.id, stats: st });
          setError(null);
        },
        (err) => mine === latest.current && setError(toApiError(err).message),
      );
  }, [crawl.id, version, crawl.status, tick]);
  return { stats: stats && stats.id === crawl.id ? stats.stats : null, error };
}

/** The indexability card and the click-depth chart, from the service's page figures. */
function PageStatsCards({ crawl }: { crawl: CrawlSummary }) {
  const { stats, error } = usePageStats(crawl);
  const filter = useApp((s) => s.byCrawl[crawl.id]?.filter) ?? emptyFilter();
  const go = (to: Parameters<typeof indexabilityDrill>[1]) => () => {
    setFilter(crawl.id, () => indexabilityDrill(filter, to));
    setTab('urls');
  };
  // A depth's bar lists its URLs; the "none" bar (null) those without a click depth.
  const pickDepth = (d: number | null) => {
    setFilter(crawl.id, (f) => depthDrill(f, d));
    setTab('urls');
  };
  const nonIndexable = stats ? stats.nonIndexable.reduce((a, r) => a + r.count, 0) : 0;
  const handled = stats ? stats.indexable + nonIndexable : 0;
  const reasons: BarDatum[] = (stats?.nonIndexable ?? [])
    .filter((r) => r.count > 0)
    .sort((a, b) => b.count - a.count)
    .map((r) => ({ key: r.reason, label: INDEXABILITY_REASON_LABEL[r.reason], value: r.count, tone: 'tone-idx-reason', onClick: go(r.reason) }));
  const bars = stats ? depthBars(stats.clickDepth, stats.noClickDepth) : [];
  const placeholder = (text: string) => <div className="chart-empty muted">{text}</div>;
  return (
    <>
      <div className="card chart-card wide" data-testid="depth-card">
        <div className="card-head">
          <span className="card-title">URLs by click depth</span>
          <span className="muted small" data-testid="depth-note">
            {crawl.status === 'running' || crawl.status === 'paused'
              ? 'so far: depths settle as pages are read · click a bar to list its URLs'
              : 'fewest link clicks from the start URL · click a bar to list its URLs'}
          </span>
        </div>
        {error && !stats ? (
          placeholder(`Could not read the page figures: ${error}`)
        ) : !stats ? (
          placeholder('Reading…')
        ) : bars.length === 0 ? (
          placeholder(crawl.status === 'running' ? 'No page reached by links yet…' : 'No URL of this crawl has a click depth.')
        ) : (
          <Measured>{(w) => <DepthChart bars={bars} width={w} onPick={pickDepth} />}</Measured>
        )}
      </div>
      <div className="card chart-card idx-card" data-testid="indexability-card">
        <div className="card-head">
          <span className="card-title">Indexability</span>
          <span className="muted small">{stats ? `${formatCount(handled)} handled URLs` : ''}</span>
        </div>
        {!stats ? (
          <div className="muted small">{error ? `Could not read the page figures: ${error}` : 'Reading…'}</div>
        ) : (
          <>
            <div className="idx-split">
              <button
                type="button"
                className="idx-stat idx-ok"
                onClick={go('indexable')}
                disabled={stats.indexable === 0}
                data-testid="idx-indexable"
                data-value={stats.indexable}
                title="Show the indexable URLs"
              >
                <span className="stat-label">Indexable</span>
                <span className="idx-value num">{formatCount(stats.indexable)}</span>
                <span className="muted small num">{formatPercent(stats.indexable, handled)}</span>
              </button>
              <button
                type="button"
                className="idx-stat idx-no"
                onClick={go('non-indexable')}
                disabled={nonIndexable === 0}
                data-testid="idx-non-indexable"
                data-value={nonIndexable}
                title="Show the non-indexable URLs"
              >
                <span className="stat-label">Non-indexable</span>
                <span className="idx-value num">{formatCount(nonIndexable)}</span>
                <span className="muted small num">{formatPercent(nonIndexable, handled)}</span>
              </button>
            </div>
            {handled > 0 && (
              <div className="idx-bar" aria-hidden="true">
                <span className="idx-bar-ok" style={{ width: `${(stats.indexable / handled) * 100}%` }} />
                <span className="idx-bar-no" style={{ width: `${(nonIndexable / handled) * 100}%` }} />
              </div>
            )}
            {reasons.length > 0 ? (
              <>
                <div className="idx-reasons-title">Why not indexable</div>
                <div data-testid="idx-reasons">
                  <BarList data={reasons} total={nonIndexable} />
                </div>
              </>
            ) : (
              <div className="muted small">{handled === 0 ? 'No URL handled yet.' : 'Every handled URL is indexable.'}</div>
            )}
          </>
        )}
      </div>
    </>
  );
}

/**
 * A recrawl: which crawl it reuses, how many of its URLs kept that crawl's result (a 304, or not
 * fetched by a changed-only recrawl; a click lists them), and its comparison with that crawl.
 */
function RecrawlBanner({ crawl }: { crawl: CrawlSummary }) {
  const base = useApp((s) => s.crawls.find((c) => c.id === crawl.baseId));
  const version = useApp((s) => s.byCrawl[crawl.id]?.urlVersion ?? 0);
  const [carried, setCarried] = useState<number | null>(null);
  useEffect(() => {
    let alive = true;
    getApi()
      .queryUrls({ id: crawl.id, query: { offset: 0, limit: 0, carriedOver: true } })
      .then(
        (p) => alive && setCarried(p.total),
        () => alive && setCarried(null), // only a figure: the table says the same
      );
    return () => {
      alive = false;
    };
  }, [crawl.id, version, crawl.status]);
  return (
    <div className="banner banner-info recrawl-banner" data-testid="recrawl-banner" data-carried={carried ?? ''}>
      <Icon name="recrawl" />
      <div>
        {crawl.changedOnly ? 'A changed-only recrawl' : 'A recrawl'} of <strong>{base ? displayName(base) : 'a deleted crawl'}</strong>
        {carried !== null && (
          <>
            :{' '}
            <button
              type="button"
              className="link-btn"
              onClick={() => {
                setFilter(crawl.id, () => ({ ...emptyFilter(), carriedOver: 'yes' }));
                setTab('urls');
              }}
            >
              {formatCount(carried)} of {formatCount(crawl.counters.discovered)} URLs
            </button>{' '}
            kept that crawl&rsquo;s result (304 Not Modified{crawl.changedOnly ? ', or not fetched because nothing said they changed' : ''}).
          </>
        )}
      </div>
      {base && crawl.status !== 'running' && (
        <button type="button" className="btn btn-small" onClick={() => openCompare({ oldId: base.id, newId: crawl.id })} data-testid="recrawl-compare">
          Compare with previous
        </button>
      )}
    </div>
  );
}
