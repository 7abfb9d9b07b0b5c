/** The sitemap tree: robots.txt → indexes → sitemaps, loaded lazily, growing live; a node filters the URLs. */
import { useEffect, useMemo, useRef } from 'react';
import type { CrawlSummary, Problem, SitemapNode } from '../../../shared/model.js';
import { EmptyState, ErrorState, HttpStatus, Spinner, UrlLink } from '../components/Bits.js';
import { Icon } from '../components/Icon.js';
import { VirtualTable, type Column } from '../components/VirtualTable.js';
import { formatBytes, formatCount, lastSegment } from '../logic/format.js';
import { emptyTree, groupProblems, problemCount, visibleRows } from '../logic/tree.js';
import { badgeSummary, SEVERITY_TONE } from '../logic/issues.js';
import { trustText, trustTone } from '../logic/compare.js';
import { loadChildren, selectNode, setTab, showFinding, toggleNode, useApp } from '../store/app-store.js';

const COLUMNS: Column[] = [
  { id: 'name', label: 'Sitemap', width: 228, grow: true },
  { id: 'type', label: 'Type', width: 80 },
  { id: 'http', label: 'HTTP', width: 54, align: 'right' },
  { id: 'urls', label: 'URLs', width: 84, align: 'right', title: 'URL entries read (a URL written twice counts twice), or child sitemaps listed by an index' },
  { id: 'size', label: 'Size', width: 90, align: 'right', title: 'Inflated size; hover for the bytes on the wire' },
  { id: 'gzip', label: 'Gzip', width: 58, align: 'center' },
  { id: 'lastmod', label: 'Lastmod', width: 96, title: "The index's <lastmod> for this sitemap" },
  { id: 'problems', label: 'Problems', width: 130 },
  {
    id: 'trust',
    label: 'Lastmod trust',
    width: 128,
    align: 'right',
    title: 'Of its URLs with a lastmod and evidence to judge it by (Last-Modified; in a recrawl, the base crawl), how many agree',
  },
  { id: 'audit', label: 'Issues', width: 70, align: 'right', title: 'Audit findings of this sitemap and of the entries it lists, coloured by the worst' },
];

const TYPE_LABEL: Record<SitemapNode['type'], string> = {
  robots: 'robots.txt',
  sitemapindex: 'Index',
  urlset: 'URL set',
  text: 'Text',
  rss: 'RSS',
  atom: 'Atom',
  unknown: '—',
};

export function SitemapTree({ crawl }: { crawl: CrawlSummary }) {
  const tree = useApp((s) => s.byCrawl[crawl.id]?.tree) ?? emptyTree();
  const error = useApp((s) => s.byCrawl[crawl.id]?.treeError);
  const selectedId = useApp((s) => s.byCrawl[crawl.id]?.selectedNode ?? null);
  const rows = useMemo(() => visibleRows(tree), [tree]);
  const rootsLoaded = !!tree.children[''];
  const autoOpened = useRef(new Set<string>());

  useEffect(() => {
    void loadChildren(crawl.id, null);
  }, [crawl.id]);
  // Open robots.txt and the indexes under it once, so the analyst sees the shape at a glance.
  useEffect(() => {
    for (const r of rows) {
      if (r.depth > 1 || !r.expandable || autoOpened.current.has(r.node.id)) continue;
      if (r.depth === 0 || r.node.type === 'sitemapindex') {
        autoOpened.current.add(r.node.id);
        if (tree.expanded[r.node.id] === undefined) toggleNode(crawl.id, r.node.id, true);
      }
    }
  }, [rows, tree.expanded, crawl.id]);

  const selected = selectedId ? tree.nodes[selectedId] : undefined;
  const activeIndex = selectedId ? rows.findIndex((r) => r.node.id === selectedId) : -1;

  const renderCells = (i: number) => {
    const row = rows[i]!;
    const n = row.node;
    // A node counts every problem by code (it stores only the first hundred or so).
    const own = problemTotal(n);
    const probs = row.expanded ? own : problemCount(tree, n.id) - n.problems.length + own;
    return [
      <span className="tree-name" style={{ paddingLeft: row.depth * 18 }}>
        {row.expandable ? (
          <button
            type="button"
            className="caret"
            aria-label={row.expanded ? 'Collapse' : 'Expand'}
            aria-expanded={row.expanded}
            onClick={(e) => {
              e.stopPropagation();
              toggleNode(crawl.id, n.id, !row.expanded);
            }}
          >
            <Icon name={row.expanded ? 'chevronDown' : 'chevronRight'} size={12} />
          </button>
        ) : (
          <span className="caret-space" />
        )}
        <NodeIcon node={n} />
        <span className="ellipsis" title={n.url}>
          {n.type === 'robots' ? n.url : lastSegment(n.url)}
        </span>
        {n.carriedOver && (
          <span
            className="badge badge-muted"
            data-testid="node-carried-over"
            title="Carried over: the sitemap answered 304 Not Modified (or its index lastmod and validators said unchanged), so it was not read again; its entries come from the base crawl"
          >
            304
          </span>
        )}
        {row.loading && <Icon name="spinner" size={12} className="spin muted" />}
      </span>,
      <span className={`type type-${n.type}`}>{TYPE_LABEL[n.type]}</span>,
      n.state === 'pending' ? (
        <span className="muted">…</span>
      ) : n.state === 'fetching' ? (
        <Icon name="spinner" size={12} className="spin muted" />
      ) : (
        <HttpStatus status={n.httpStatus} />
      ),
      <span className="num" data-testid="node-count" data-count={n.type === 'sitemapindex' || n.type === 'robots' ? n.childCount : n.urlCount}>
        {n.type === 'sitemapindex' ? (
          <span title={`${n.childCount} ${n.childCount === 1 ? 'sitemap' : 'sitemaps'}`}>
            {formatCount(n.childCount)} {n.childCount === 1 ? 'map' : 'maps'}
          </span>
        ) : n.type === 'robots' ? (
          <span title={`${n.childCount} Sitemap ${n.childCount === 1 ? 'line' : 'lines'}`}>
            {formatCount(n.childCount)} {n.childCount === 1 ? 'map' : 'maps'}
          </span>
        ) : (
          formatCount(n.urlCount)
        )}
      </span>,
      <span className="num" title={n.gzip ? `${formatBytes(n.bytes)} on the wire, ${formatBytes(n.uncompressedBytes)} inflated` : undefined}>
        {n.state === 'done' || n.bytes > 0 ? formatBytes(n.gzip ? n.uncompressedBytes : n.bytes) : ''}
      </span>,
      n.gzip ? <span className="badge badge-muted">gz</span> : <span />,
      <span className="mono-num ellipsis" title={n.lastmod}>
        {n.lastmod?.slice(0, 10) ?? ''}
      </span>,
      <Problems node={n} count={probs} />,
      <Trust node={n} />,
      <AuditBadge crawlId={crawl.id} node={n} />,
    ];
  };

  if (error && !rootsLoaded)
    return <ErrorState title="Could not load the sitemap tree" message={error} onRetry={() => void loadChildren(crawl.id, null, true)} />;
  if (!rootsLoaded) return <Spinner label="Loading the sitemap tree…" />;
  return (
    <div className={`tree${selected ? ' with-node' : ''}`}>
      <div className="tree-table">
        <VirtualTable
          ariaLabel="Sitemap tree"
          testId="sitemap-tree"
          columns={COLUMNS}
          count={rows.length}
          renderCells={renderCells}
          rowKey={(i) => rows[i]!.node.id}
          rowClass={(i) =>
            `tree-row${rows[i]!.node.problems.length || rows[i]!.node.state === 'error' ? ' has-problem' : ''}${rows[i]!.node.id === selectedId ? ' selected' : ''}`
          }
          activeIndex={activeIndex >= 0 ? activeIndex : null}
          onRowClick={(i) => selectNode(crawl.id, rows[i]!.node.id === selectedId ? null : rows[i]!.node)}
          onRowDoubleClick={(i) => {
            selectNode(crawl.id, rows[i]!.node);
            setTab('urls');
          }}
          onMove={(d) => {
            const next = rows[Math.max(0, Math.min(rows.length - 1, activeIndex + d))];
            if (next) selectNode(crawl.id, next.node);
          }}
          empty={
            <EmptyState title="No sitemaps yet" icon="sitemap">
              {crawl.status === 'created'
                ? 'Start the crawl: robots.txt and the sitemaps it names appear here as they are read.'
                : crawl.status === 'running'
                  ? 'Waiting for robots.txt…'
                  : 'This crawl found no robots.txt and no sitemaps.'}
            </EmptyState>
          }
        />
      </div>
      {selected && <NodePanel crawlId={crawl.id} node={selected} />}
    </div>
  );
}

function NodeIcon({ node }: { node: SitemapNode }) {
  const tone = node.state === 'error' ? 'text-error' : node.type === 'robots' ? 'muted' : 'text-accent';
  return <Icon name={node.type === 'robots' ? 'list' : node.type === 'sitemapindex' ? 'sitemap' : 'list'} size={13} className={tone} />;
}

function Problems({ node, count }: { node: SitemapNode; count: number }) {
  if (node.state === 'error' && node.problems.length === 0) {
    return <span className="badge badge-error">fetch failed</span>;
  }
  if (count === 0) return <span className="muted">—</span>;
  const first = node.problems[0];
  return (
    <span className="problems" title={node.problems.map((p) => `${p.code}: ${p.message}`).join('\n') || `${count} problems below this node`}>
      <span className={`badge ${node.state === 'error' ? 'badge-error' : 'badge-warn'}`}>{count}</span>
      <span className="ellipsis small">{first ? first.code : 'in children'}</span>
    </span>
  );
}

/** The node's lastmod trust as a share, coloured; the counts on hover. */
function Trust({ node }: { node: SitemapNode }) {
  const text = trustText(node.lastmodTrust);
  if (!text) return <span className="muted">—</span>;
  return (
    <span
      className={`num trust trust-${trustTone(node.lastmodTrust)}`}
      data-testid="node-trust"
      data-agree={node.lastmodTrust!.agree}
      data-judged={node.lastmodTrust!.judged}
      title={`lastmod trust ${text}: of ${formatCount(node.lastmodTrust!.judged)} URLs whose lastmod could be judged, ${formatCount(node.lastmodTrust!.agree)} agree with the evidence`}
    >
      {text}
    </span>
  );
}

/** The node's audit findings as one badge: their sum, coloured by the worst; the list in the tooltip. */
function AuditBadge({ crawlId, node }: { crawlId: string; node: SitemapNode }) {
  const titles = useApp((s) => s.byCrawl[crawlId]?.findings?.list);
  const sum = badgeSummary(node.findings);
  if (!sum) return <span className="muted">—</span>;
  const titleOf = (code: string) => titles?.find((f) => f.code === code)?.title ?? code;
  return (
    <span
      className={`badge ${SEVERITY_TONE[sum.worst]}`}
      data-testid="node-issues"
      data-total={sum.total}
      data-severity={sum.worst}
      title={node.findings!.map((f) => `${titleOf(f.code)}: ${formatCount(f.count)}`).join('\n')}
    >
      {formatCount(sum.total)}
    </span>
  );
}

/** The node panel's list of audit findings, with their titles once the findings are loaded (the tabs load them). */
function NodeFindings({ crawlId, node }: { crawlId: string; node: SitemapNode }) {
  const titles = useApp((s) => s.byCrawl[crawlId]?.findings?.list);
  if (!node.findings?.length) return null;
  const titleOf = (code: string) => titles?.find((f) => f.code === code)?.title;
  return (
    <div className="node-findings" data-testid="node-findings">
      <div className="section-label">Audit findings</div>
      <ul className="plain-list">
        {node.findings.map((f) => (
          <li key={f.code}>
            <span className={`badge ${SEVERITY_TONE[f.severity]}`}>{formatCount(f.count)}</span>{' '}
            <button
              type="button"
              className="link-btn"
              onClick={() => showFinding(crawlId, { code: f.code, title: titleOf(f.code) ?? f.code }, node)}
              title="Show the URLs this sitemap lists that have this finding"
            >
              {titleOf(f.code) ?? f.code}
            </button>{' '}
            <span className="mono muted small">{f.code}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Every problem of a node, however many it stores. */
function problemTotal(node: SitemapNode): number {
  if (!node.problemCounts) return node.problems.length;
  let total = 0;
  for (const n of Object.values(node.problemCounts)) total += n;
  return total;
}

/**
 * A node's problems by code: how many of each (problemCounts, which counts those it did not store
 * too) and those stored, for their message and URLs. Codes with none stored come last.
 */
function problemGroups(node: SitemapNode): { code: string; count: number; items: Problem[] }[] {
  const counts = node.problemCounts;
  const groups = groupProblems(node.problems).map((g) => ({ ...g, count: counts?.[g.code] ?? g.items.length }));
  if (counts) {
    const listed = new Set(groups.map((g) => g.code));
    for (const [code, count] of Object.entries(counts)) if (!listed.has(code)) groups.push({ code, count, items: [] });
  }
  return groups;
}

function NodePanel({ crawlId, node }: { crawlId: string; node: SitemapNode }) {
  return (
    <div className="node-panel" data-testid="node-panel">
      <div className="node-panel-head">
        <div className="node-panel-title">
          <span className={`type type-${node.type}`}>{TYPE_LABEL[node.type]}</span>
          <UrlLink url={node.url} />
          {node.finalUrl && node.finalUrl !== node.url && (
            <span className="muted small" data-testid="node-redirects" title={(node.redirectChain ?? []).map((h) => `${h.status} ${h.url}`).join('\n')}>
              → redirected
              {node.redirectChain && node.redirectChain.length > 1
                ? ` (${node.redirectChain.length} hops: ${node.redirectChain.map((h) => h.status).join(' → ')})`
                : node.redirectChain?.length === 1
                  ? ` (${node.redirectChain[0]!.status})`
                  : ''}{' '}
              to <UrlLink url={node.finalUrl} />
            </span>
          )}
        </div>
        <div className="node-panel-actions">
          {node.type !== 'robots' && node.type !== 'sitemapindex' && (
            <button
              type="button"
              className="btn btn-primary btn-small"
              onClick={() => setTab('urls')}
              data-testid="show-node-urls"
              title="The URL table, narrowed to the distinct URLs this sitemap lists (a URL written twice is one row)"
            >
              Show its URLs
            </button>
          )}
          <button type="button" className="icon-btn" onClick={() => selectNode(crawlId, null)} aria-label="Clear the selection">
            <Icon name="close" size={14} />
          </button>
        </div>
      </div>
      <div className="node-facts">
        <span>
          State <strong>{node.state}</strong>
        </span>
        <span>
          HTTP <HttpStatus status={node.httpStatus} />
        </span>
        <span title={node.type === 'sitemapindex' ? undefined : 'URL entries read: a URL written twice counts twice'}>
          {node.type === 'sitemapindex' ? 'Sitemaps' : 'URL entries'}{' '}
          <strong className="num">{formatCount(node.type === 'sitemapindex' ? node.childCount : node.urlCount)}</strong>
        </span>
        <span>
          Size <strong className="num">{formatBytes(node.bytes)}</strong>
          {node.gzip && <span className="muted"> gzip, {formatBytes(node.uncompressedBytes)} inflated</span>}
        </span>
        {node.lastmod && (
          <span>
            Lastmod <strong className="mono">{node.lastmod}</strong>
          </span>
        )}
        {trustText(node.lastmodTrust) && (
          <span className="trust-badge" data-testid="node-panel-trust" title="Of its URLs with a lastmod and evidence to judge it by, how many agree">
            lastmod trust <strong className={`num trust-${trustTone(node.lastmodTrust)}`}>{trustText(node.lastmodTrust)}</strong>
          </span>
        )}
        {node.carriedOver && (
          <span className="badge badge-muted" title="Not read again: its entries come from the base crawl">
            Carried over (304)
          </span>
        )}
      </div>
      {node.problems.length > 0 ? (
        <ul className="problem-list">
          {problemGroups(node).map((g) => (
            <li key={g.code} className="problem-group" data-testid="problem-group" data-code={g.code} data-count={g.count}>
              <div>
                <span className={`badge ${node.state === 'error' ? 'badge-error' : 'badge-warn'} mono`}>{g.code}</span>
                {g.count > 1 && <span className="muted small"> × {formatCount(g.count)}</span>}{' '}
                {g.items[0]?.message ?? <span className="muted">Not listed on the node: see the crawl log (Errors).</span>}
              </div>
              {g.items.some((p) => p.url) && (
                <div className="problem-urls">
                  {g.items
                    .filter((p) => p.url)
                    .slice(0, 4)
                    .map((p, i) => (
                      <UrlLink key={i} url={p.url!} />
                    ))}
                  {g.items.length > 4 && <span className="muted small">…and {formatCount(g.items.length - 4)} more</span>}
                </div>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <div className="muted small">No problems reading this {node.type === 'robots' ? 'file' : 'sitemap'}.</div>
      )}
      <NodeFindings crawlId={crawlId} node={node} />
      <div className="hint">
        The URL table is filtered to what this node and the sitemaps under it listed, in place of an earlier node or issue. Double-click a node to jump there
        {node.findings?.length ? '; pick an audit finding above for the URLs of this sitemap that have it' : ''}.
      </div>
    </div>
  );
}
