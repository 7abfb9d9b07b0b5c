/** Everything known about one URL: sources, sitemaps, redirects, canonical, hreflang, robots, errors. */
import { useEffect, useState, type ReactNode } from 'react';
import type { HreflangCheck, IndexabilityReason, RedirectWalk, UrlDetail } from '../../../shared/model.js';
import { ErrorState, HttpStatus, Spinner, UrlLink } from '../components/Bits.js';
import { Icon } from '../components/Icon.js';
import { toApiError } from '../api/types.js';
import { formatBytes, formatCount, formatDateTime } from '../logic/format.js';
import { backUrl, getApi, loadFindings, showFinding, useApp } from '../store/app-store.js';
import { INDEXABILITY_REASON_LABEL, SOURCE_HINT, SOURCE_LABEL, STATE_LABEL } from '../logic/labels.js';
import { SEVERITY_TONE } from '../logic/issues.js';
import { UrlLinks } from './UrlLinks.js';

export function UrlDetailPane({ crawlId, urlId, live, version, onClose }: { crawlId: string; urlId: number; live: boolean; version: number; onClose(): void }) {
  const [detail, setDetail] = useState<UrlDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const settled = detail && detail.id === urlId && !['queued', 'fetching'].includes(detail.state);
  // Refresh while the URL is still waiting to be fetched; once handled it does not change much.
  const refreshKey = live && !settled ? Math.floor(version / 5) : 0;
  useEffect(() => {
    let alive = true;
    getApi()
      .getUrl({ id: crawlId, urlId })
      .then(
        (d) => {
          if (!alive) return;
          setDetail(d);
          setError(null);
        },
        (err) => alive && setError(toApiError(err).message),
      );
    return () => {
      alive = false;
    };
  }, [crawlId, urlId, attempt, refreshKey]);
  const d = detail && detail.id === urlId ? detail : null;
  const back = useApp((s) => s.byCrawl[crawlId]?.detailTrail?.at(-1));
  return (
    <aside className="detail" aria-label="URL details" data-testid="url-detail">
      <div className="detail-head">
        {back !== undefined && (
          <button
            type="button"
            className="link-btn small detail-back"
            onClick={() => backUrl(crawlId)}
            data-testid="detail-back"
            title="Back to the URL whose link opened this one"
          >
            <Icon name="chevronRight" size={11} className="flip" /> #{back}
          </button>
        )}
        <span className="section-label">URL #{urlId}</span>
        <button type="button" className="icon-btn" onClick={onClose} aria-label="Close details" title="Close (Esc)">
          <Icon name="close" size={14} />
        </button>
      </div>
      {error && !d ? (
        <ErrorState title="Could not load this URL" message={error} onRetry={() => setAttempt((a) => a + 1)} />
      ) : !d ? (
        <Spinner />
      ) : (
        <DetailBody key={d.id} d={d} crawlId={crawlId} linksRefresh={live ? Math.floor(version / 10) : 0} />
      )}
    </aside>
  );
}

/** Sources listed before "Show all": a page linked from every nav would otherwise fill the pane. */
const SOURCES_SHOWN = 12;

/** "1 sitemap · 74 links" when the list is long enough to need a summary. */
function sourceSummary(list: UrlDetail['discoveries']): string | null {
  if (list.length <= SOURCES_SHOWN) return null;
  const by = new Map<string, number>();
  for (const x of list) by.set(x.source, (by.get(x.source) ?? 0) + 1);
  const words: Record<string, [string, string]> = {
    sitemap: ['sitemap', 'sitemaps'],
    link: ['link', 'links'],
    start: ['start URL', 'start URLs'],
    robots: ['robots.txt', 'robots.txt'],
    redirect: ['redirect', 'redirects'],
    canonical: ['canonical', 'canonicals'],
    hreflang: ['hreflang link', 'hreflang links'],
    reference: ['other reference', 'other references'],
  };
  return [...by].map(([s, n]) => `${n.toLocaleString('en-US')} ${words[s]?.[n === 1 ? 0 : 1] ?? s}`).join(' · ');
}

const WALK_END: Record<RedirectWalk['end'], string> = {
  final: '',
  loop: 'Redirect loop: this URL was already on the chain.',
  'not-fetched': 'Not fetched (yet, or out of the crawl: scope, robots.txt, a limit).',
  'not-crawled': 'Not in this crawl.',
  'too-long': 'Chain cut here: too many hops to show.',
};

/** The chain from this URL along the crawl's own rows: each hop's status, then where it ends. */
function RedirectChain({ walk }: { walk: RedirectWalk }) {
  const hops = walk.steps.length - 1;
  const title = walk.end === 'loop' ? 'Redirect loop' : `Redirect chain (${hops} ${hops === 1 ? 'hop' : 'hops'})`;
  return (
    <Section title={title} testId="detail-chain">
      <ol className="chain">
        {walk.steps.map((s, i) => {
          const last = i === walk.steps.length - 1;
          return (
            <li key={i} className={last && walk.end === 'loop' ? 'chain-loop' : undefined} data-status={s.status ?? ''}>
              {s.status !== undefined ? <HttpStatus status={s.status} /> : <span className="muted">{s.state ? STATE_LABEL[s.state] : '—'}</span>}{' '}
              <UrlLink url={s.url} />
            </li>
          );
        })}
      </ol>
      {walk.end !== 'final' && <div className={`small ${walk.end === 'loop' ? 'text-error' : 'muted'}`}>{WALK_END[walk.end]}</div>}
    </Section>
  );
}

/** The reasons HREFLANG_TARGET_NOT_INDEXABLE finds an alternate not indexable for (its status says the others). */
const TARGET_REASONS = new Set<IndexabilityReason>(['noindex', 'canonicalised']);

/**
 * The URL's hreflang alternates, each with what the audit's hreflang findings judge: the code, the
 * alternate's answer, and whether it names this URL back.
 */
function HreflangAlternates({ alternates }: { alternates: HreflangCheck[] }) {
  return (
    <Section title={`hreflang alternates (${alternates.length})`} testId="detail-hreflang">
      <table className="mini-table">
        <tbody>
          {alternates.map((a, i) => (
            <tr key={i} data-lang={a.lang}>
              <td className="mono nowrap">
                {a.lang}
                {!a.validCode && (
                  <>
                    {' '}
                    <span className="badge badge-warn" title="Not x-default, nor an ISO 639-1 language with an optional script and ISO 3166-1 region">
                      invalid code
                    </span>
                  </>
                )}
              </td>
              <td>
                <UrlLink url={a.href} />
              </td>
              <td className="muted small">{a.from}</td>
              <td className="nowrap">
                {a.status !== undefined ? (
                  <HttpStatus status={a.status} />
                ) : (
                  <span className="muted small">{a.state ? STATE_LABEL[a.state] : 'not in this crawl'}</span>
                )}
                {a.indexabilityReason !== undefined && !a.self && TARGET_REASONS.has(a.indexabilityReason) && (
                  <>
                    {' '}
                    <span className="badge badge-warn" title="Not indexable: hreflang should name the canonical, indexable version">
                      {INDEXABILITY_REASON_LABEL[a.indexabilityReason]}
                    </span>
                  </>
                )}
              </td>
              <td className="small" data-testid="hreflang-return">
                {a.self ? (
                  <span className="muted">this URL</span>
                ) : a.namesBack ? (
                  <span title="Its page or sitemap entry names this URL back">names it back</span>
                ) : (
                  <span className="text-error" title="Neither its page nor its sitemap entries name this URL: search engines ignore a one-way hreflang">
                    no return link
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

/** The audit findings of one URL, named and coloured by the crawl's findings (loaded once). */
function UrlFindings({ crawlId, codes }: { crawlId: string; codes: string[] }) {
  const list = useApp((s) => s.byCrawl[crawlId]?.findings?.list);
  useEffect(() => {
    if (codes.length) void loadFindings(crawlId);
  }, [crawlId, codes.length]);
  return (
    <Section title={`Issues (${codes.length})`} testId="detail-findings">
      {codes.length === 0 ? (
        <div className="muted small">The audit found nothing wrong with this URL.</div>
      ) : (
        <ul className="plain-list">
          {codes.map((code) => {
            const f = list?.find((x) => x.code === code);
            return (
              <li key={code} className="detail-finding" data-code={code}>
                <span className={`sev-dot sev-${f?.severity ?? 'none'}`} aria-hidden="true" />
                <button
                  type="button"
                  className="link-btn"
                  onClick={() => showFinding(crawlId, { code, title: f?.title ?? code })}
                  title={f?.explanation ?? 'Show every URL with this finding'}
                >
                  {f?.title ?? code}
                </button>
                {f && <span className={`badge ${SEVERITY_TONE[f.severity]}`}>{f.severity}</span>}
              </li>
            );
          })}
        </ul>
      )}
    </Section>
  );
}

function DetailBody({ d, crawlId, linksRefresh }: { d: UrlDetail; crawlId: string; linksRefresh: number }) {
  const [allSources, setAllSources] = useState(false);
  const r = d.result ?? {};
  const entry = d.sitemapEntry;
  const alternates = d.alternates ?? [];
  const hreflangFirst = alternates.length > 0 && (d.findings ?? []).some((code) => code.startsWith('HREFLANG_'));
  const canonical = r.canonical ?? d.canonical;
  // Hops followed inside one fetch (journals written before redirects became rows of their own).
  const chain = r.redirectChain ?? [];
  const walk = d.redirectWalk;
  const err = r.error ?? d.error;
  return (
    <div className="detail-body">
      <div className="detail-url">
        <UrlLink url={d.url} />
      </div>
      <div className="detail-tags">
        <span className={`state state-${d.state}`}>{STATE_LABEL[d.state]}</span>
        <HttpStatus status={r.status ?? d.status} />
        {/* The service's one rule (indexability.ts), not a guess of its own. */}
        {d.indexability === 'indexable' && (
          <span className="badge badge-info" data-testid="detail-indexability">
            Indexable
          </span>
        )}
        {d.indexability === 'non-indexable' && (
          <span className="badge badge-warn" data-testid="detail-indexability">
            Non-indexable{d.indexabilityReason ? `: ${INDEXABILITY_REASON_LABEL[d.indexabilityReason]}` : ''}
          </span>
        )}
        {(d.carriedOver || r.carriedOver) && (
          <span
            className="badge badge-muted"
            data-testid="detail-carried-over"
            title="This recrawl kept the base crawl's result for this URL instead of fetching it anew"
          >
            {r.notModified ? 'Carried over: 304 Not Modified' : 'Carried over: not fetched (changed only)'}
          </span>
        )}
      </div>

      {err && (
        <div className="banner banner-error small">
          <Icon name="alert" size={14} />
          <div>
            <strong className="mono">{err.code}</strong> {err.message}
          </div>
        </div>
      )}

      {d.findings && <UrlFindings crawlId={crawlId} codes={d.findings} />}
      {/* An hreflang finding is read beside the alternates it is about: right under the findings. */}
      {hreflangFirst && <HreflangAlternates alternates={alternates} />}

      {/* Crawls that fetch pages count links: the lists themselves, a page at a time. */}
      {(d.inlinks !== undefined || d.outlinksInternal !== undefined) && (
        <UrlLinks
          crawlId={crawlId}
          urlId={d.id}
          counts={{ in: d.inlinks, out: d.outlinksInternal === undefined ? undefined : d.outlinksInternal + (d.outlinksExternal ?? 0) }}
          refresh={linksRefresh}
        />
      )}

      <Section title="Response">
        <Kv k="Title" v={r.title ?? d.title} />
        <Kv k="Content type" v={r.contentType ?? d.contentType} mono />
        <Kv k="Response time" v={responseTime(d)} note={d.responseTimeMs === undefined && r.durationMs !== undefined ? 'to the headers' : undefined} />
        <Kv k="Size" v={d.sizeBytes !== undefined ? formatBytes(d.sizeBytes) : r.bytes !== undefined ? formatBytes(r.bytes) : undefined} />
        <Kv
          k="Transferred"
          v={d.transferredBytes !== undefined ? formatBytes(d.transferredBytes) : undefined}
          note={d.transferredBytes !== undefined && d.sizeBytes !== undefined && d.transferredBytes < d.sizeBytes ? 'compressed' : undefined}
        />
        <Kv k="Last-Modified" v={d.lastModified} mono />
        <Kv k="ETag" v={d.etag} mono />
        <Kv k="Fetched at" v={r.fetchedAt ? formatDateTime(r.fetchedAt) : undefined} />
        <Kv k="Discovery depth" v={String(d.depth)} note="hops on the path it was first found by" />
        <Kv
          k="Click depth"
          v={d.clickDepth !== undefined ? String(d.clickDepth) : d.inlinks !== undefined ? 'none' : undefined}
          note={d.clickDepth === undefined && d.inlinks !== undefined ? 'no chain of links from the start URL reaches it' : undefined}
        />
        {d.inlinks !== undefined && (
          <Kv
            k="Inlinks"
            v={formatCount(d.inlinks)}
            note={d.uniqueInlinks !== undefined ? `from ${formatCount(d.uniqueInlinks)} ${d.uniqueInlinks === 1 ? 'page' : 'pages'}` : undefined}
          />
        )}
        {d.outlinksInternal !== undefined && (
          <Kv k="Outlinks" v={`${formatCount(d.outlinksInternal)} internal · ${formatCount(d.outlinksExternal ?? 0)} external`} />
        )}
      </Section>

      {d.wordCount !== undefined && (
        <Section title="Page" testId="detail-page">
          <Kv k="Meta description" v={pageText(d.metaDescription)} note={countNote(d.metaDescriptionCount, 'meta descriptions')} />
          <Kv k="H1" v={pageText(d.h1)} note={countNote(d.h1Count, 'H1s')} />
          <Kv k="Language" v={d.lang === undefined ? 'none (no <html lang>)' : d.lang === '' ? '(empty)' : d.lang} mono={!!d.lang} />
          <Kv k="Words" v={d.wordCount.toLocaleString('en-US')} />
        </Section>
      )}

      <Section title="Indexing">
        <Kv
          k="Indexability"
          v={d.indexability === undefined ? undefined : d.indexability === 'indexable' ? 'Indexable' : 'Non-indexable'}
          note={d.indexabilityReason && INDEXABILITY_REASON_LABEL[d.indexabilityReason]}
        />
        <Kv k="Canonical" v={canonical ? <UrlLink url={canonical} /> : undefined} note={canonical === d.url ? 'self' : undefined} />
        <Kv k="Meta robots" v={r.metaRobots} mono />
        <Kv k="X-Robots-Tag" v={r.xRobotsTag} mono />
        <Kv k="robots.txt" v={(r.blockedByRobots ?? d.blockedByRobots) ? 'Disallowed' : d.state === 'listed' ? 'Not checked (not fetched)' : 'Allowed'} />
      </Section>

      <Section title={`Sitemaps (${d.inSitemaps.length})`}>
        {d.inSitemaps.length === 0 ? (
          <div className="muted small">Not listed in any sitemap.</div>
        ) : (
          <ul className="plain-list">
            {d.inSitemaps.map((s) => (
              <li key={s}>
                <UrlLink url={s} />
              </li>
            ))}
          </ul>
        )}
        {entry && (
          <div className="kv-inline">
            {entry.title !== undefined && <Kv k="Feed title" v={entry.title} />}
            <Kv k="lastmod" v={entry.lastmod} mono />
            <Kv k="changefreq" v={entry.changefreq} />
            <Kv k="priority" v={entry.priority !== undefined ? String(entry.priority) : undefined} />
            <Kv k="Images" v={entry.images?.length ? String(entry.images.length) : undefined} />
            <Kv k="Videos" v={entry.videos?.length ? String(entry.videos.length) : undefined} />
            <Kv k="News" v={entry.news?.title ?? entry.news?.publicationName} />
            {entry.mobile?.map((m, i) => (
              <Kv key={`m${i}`} k="Mobile URL" v={<UrlLink url={m.href} />} note={m.media} />
            ))}
          </div>
        )}
      </Section>

      {walk ? (
        <RedirectChain walk={walk} />
      ) : (
        (chain.length > 0 || r.redirectTo || d.redirectTo) && (
          <Section title="Redirect chain">
            <ol className="chain">
              {chain.map((h, i) => (
                <li key={i}>
                  <HttpStatus status={h.status} /> <UrlLink url={h.url} />
                </li>
              ))}
              {(r.redirectTo ?? d.redirectTo) && (
                <li>
                  <span className="muted">→</span> <UrlLink url={(r.redirectTo ?? d.redirectTo)!} />
                </li>
              )}
            </ol>
          </Section>
        )
      )}

      {alternates.length > 0 && !hreflangFirst && <HreflangAlternates alternates={alternates} />}
      <Section title={`Found by (${d.discoveries.length})`} testId="detail-discoveries">
        {d.discoveries.length === 0 ? (
          <div className="muted small">—</div>
        ) : (
          <ul className="plain-list">
            {sourceSummary(d.discoveries) && <li className="muted small summary-line">{sourceSummary(d.discoveries)}</li>}
            {(allSources ? d.discoveries : d.discoveries.slice(0, SOURCES_SHOWN)).map((x, i) => (
              <li key={`${x.source}${i}`} className="found-by">
                <span className={`src src-${x.source}`} title={SOURCE_HINT[x.source]}>
                  {SOURCE_LABEL[x.source]}
                </span>
                {x.from ? <UrlLink url={x.from} /> : <span className="muted">{x.source === 'start' ? 'the start URL' : '—'}</span>}
              </li>
            ))}
            {!allSources && d.discoveries.length > SOURCES_SHOWN && (
              <li className="more-line">
                <button type="button" className="link-btn" onClick={() => setAllSources(true)}>
                  Show all {d.discoveries.length.toLocaleString('en-US')}
                </button>
              </li>
            )}
          </ul>
        )}
      </Section>
    </div>
  );
}

/** The response time, or (older journals) the time to the headers. */
function responseTime(d: UrlDetail): string | undefined {
  if (d.responseTimeMs !== undefined) return `${d.responseTimeMs.toLocaleString('en-US')} ms`;
  return d.result?.durationMs !== undefined ? `${Math.round(d.result.durationMs)} ms` : undefined;
}

/** A meta description's or an H1's text: "missing" or "(empty)" said plainly. */
function pageText(text: string | undefined): ReactNode {
  if (text === undefined) return <span className="text-error">missing</span>;
  if (text === '') return <span className="muted">(empty)</span>;
  return text;
}

/** "2 meta descriptions" when the page has more than one. */
function countNote(n: number | undefined, what: string): string | undefined {
  return n !== undefined && n > 1 ? `${n} ${what} on the page` : undefined;
}

function Section({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <section className="detail-section" data-testid={testId}>
      <h3>{title}</h3>
      {children}
    </section>
  );
}

function Kv({ k, v, mono, note }: { k: string; v: ReactNode | undefined; mono?: boolean; note?: string }) {
  return (
    <div className="kv-row">
      <span className="kv-k">{k}</span>
      <span className={`kv-v${mono ? ' mono' : ''}`}>
        {v === undefined || v === '' ? <span className="muted">—</span> : v}
        {note && <span className="muted small"> ({note})</span>}
      </span>
    </div>
  );
}
