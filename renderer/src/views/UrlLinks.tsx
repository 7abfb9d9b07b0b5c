/**
 * A URL's inlinks and outlinks in its detail pane: a page of links at a time from the service
 * (getLinks), each with the other page (a click opens its detail), the anchor text, nofollow and
 * external badges and, for outlinks, the target's status; each list exports to CSV.
 */
import { useEffect, useState } from 'react';
import type { LinkDirection, LinkPage, PageLinkRow } from '../../../shared/model.js';
import { toApiError } from '../api/types.js';
import { HttpStatus, UrlLink } from '../components/Bits.js';
import { Icon } from '../components/Icon.js';
import { formatCount } from '../logic/format.js';
import { STATE_LABEL } from '../logic/labels.js';
import { exportLinks, getApi, openLinkedUrl, useApp } from '../store/app-store.js';

/** Links per page of the list: enough to scan, few enough for the narrow pane. */
export const LINKS_PAGE = 25;

export function UrlLinks({
  crawlId,
  urlId,
  counts,
  refresh,
}: {
  crawlId: string;
  urlId: number;
  /** The row's counts, shown on the tabs until the lists answer. */
  counts: { in?: number; out?: number };
  /** Changes when a live crawl may have added links. */
  refresh: number;
}) {
  const [dir, setDir] = useState<LinkDirection>('in');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<(LinkPage & { dir: LinkDirection; offset: number }) | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const busy = useApp((s) => !!s.byCrawl[crawlId]?.busy);
  useEffect(() => {
    let alive = true;
    setError(null);
    getApi()
      .getLinks({ id: crawlId, urlId, direction: dir, offset, limit: LINKS_PAGE })
      .then(
        (p) => alive && setPage({ ...p, dir, offset }),
        (err) => alive && setError(toApiError(err).message),
      );
    return () => {
      alive = false;
    };
  }, [crawlId, urlId, dir, offset, refresh, attempt]);
  const current = page && page.dir === dir ? page : null;
  const total = current?.total ?? counts[dir];
  const pick = (d: LinkDirection) => {
    setDir(d);
    setOffset(0);
  };
  const tabCount = (d: LinkDirection) => (page && page.dir === d ? page.total : counts[d]);
  const open = (id: number | undefined) => id !== undefined && id !== urlId && openLinkedUrl(crawlId, id);
  return (
    <section className="detail-section links" data-testid="detail-links">
      <div className="links-head">
        <div className="links-tabs" role="tablist" aria-label="Links">
          {(['in', 'out'] as const).map((d) => (
            <button
              key={d}
              type="button"
              role="tab"
              aria-selected={dir === d}
              className={`links-tab${dir === d ? ' selected' : ''}`}
              onClick={() => pick(d)}
              data-testid={`links-tab-${d}`}
            >
              {d === 'in' ? 'Inlinks' : 'Outlinks'}
              {tabCount(d) !== undefined && <span className="tab-count">{formatCount(tabCount(d)!)}</span>}
            </button>
          ))}
        </div>
        <button
          type="button"
          className="link-btn small"
          disabled={busy || !total}
          onClick={() => void exportLinks(crawlId, { urlId, direction: dir })}
          data-testid="links-export"
          title={
            dir === 'in'
              ? 'Every link to this URL as CSV: source, target, anchor, target status'
              : "This page's links as CSV: source, target, anchor, target status"
          }
        >
          <Icon name="download" size={12} /> Export CSV
        </button>
      </div>
      {error ? (
        <div className="small text-error" role="alert">
          Could not load the links: {error}{' '}
          <button type="button" className="link-btn" onClick={() => setAttempt((a) => a + 1)}>
            Retry
          </button>
        </div>
      ) : !current ? (
        <div className="muted small">Loading the links…</div>
      ) : current.total === 0 ? (
        <div className="muted small" data-testid="links-none">
          {dir === 'in' ? 'No crawled page links here.' : 'No links on this page (or it was not fetched as HTML).'}
        </div>
      ) : (
        <>
          <div className="links-range muted small" data-testid="links-total" data-total={current.total}>
            {formatCount(current.offset + 1)}–{formatCount(current.offset + current.rows.length)} of {formatCount(current.total)}{' '}
            {dir === 'in' ? (current.total === 1 ? 'link to this URL' : 'links to this URL') : current.total === 1 ? 'link on this page' : 'links on this page'}
          </div>
          <ul className="link-list">
            {current.rows.map((l, i) => (
              <LinkRow key={`${current.offset + i}`} link={l} dir={dir} onOpen={open} />
            ))}
          </ul>
          {current.total > LINKS_PAGE && (
            <div className="links-pager">
              <button
                type="button"
                className="btn btn-small"
                disabled={offset === 0}
                onClick={() => setOffset(Math.max(0, offset - LINKS_PAGE))}
                data-testid="links-prev"
              >
                Previous
              </button>
              <span className="muted small">
                page {Math.floor(offset / LINKS_PAGE) + 1} of {Math.ceil(current.total / LINKS_PAGE)}
              </span>
              <button
                type="button"
                className="btn btn-small"
                disabled={offset + LINKS_PAGE >= current.total}
                onClick={() => setOffset(offset + LINKS_PAGE)}
                data-testid="links-next"
              >
                Next
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}

/** One link: the other page, its anchor, its badges, and (outlinks) where it leads. */
function LinkRow({ link: l, dir, onOpen }: { link: PageLinkRow; dir: LinkDirection; onOpen(id: number | undefined): void }) {
  const otherUrl = dir === 'in' ? l.fromUrl : l.toUrl;
  const otherId = dir === 'in' ? l.fromId : l.toId;
  return (
    <li className="link-row" data-testid="link-row" data-url={otherUrl} data-anchor={l.anchor} data-status={l.toStatus ?? ''}>
      <div className="link-line">
        {dir === 'out' && (
          <span className="link-status">
            {l.toStatus !== undefined ? <HttpStatus status={l.toStatus} /> : <span className="muted small">{l.toState ? STATE_LABEL[l.toState] : '—'}</span>}
          </span>
        )}
        {otherId !== undefined ? (
          <button type="button" className="link-btn link-url" title={`${otherUrl}\nShow its details`} onClick={() => onOpen(otherId)}>
            {otherUrl}
          </button>
        ) : (
          <span className="link-url">
            <UrlLink url={otherUrl} />
          </span>
        )}
      </div>
      <div className="link-meta">
        {l.anchor === '' ? (
          <span className="muted link-anchor">(no anchor text)</span>
        ) : (
          <span className="link-anchor" title={l.anchor}>
            “{l.anchor}”
          </span>
        )}
        {l.nofollow && (
          <span className="badge badge-warn" title="rel=nofollow on the link, or nofollow in the page's meta robots / X-Robots-Tag">
            nofollow
          </span>
        )}
        {l.external && (
          <span className="badge badge-muted" title="Outside the crawl's scope">
            external
          </span>
        )}
      </div>
    </li>
  );
}
