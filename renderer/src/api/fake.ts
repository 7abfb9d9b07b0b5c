/**
 * A tiny in-page stand-in for the contract, for developing the window without a backend (?fake=1).
 * It simulates one site: robots.txt → an index → a few sitemaps, pages fetched at a steady rate.
 * Never used in Electron or browser mode.
 */
import type {
  AuditFinding,
  CrawlCounters,
  CrawlLogEntry,
  CrawlSettings,
  CrawlSummary,
  ProgressEvent,
  SitemapNode,
  UrlDetail,
  UrlQuery,
  UrlRow,
} from '../../../shared/model.js';
import { DEFAULT_SETTINGS, emptyCounters } from '../../../shared/model.js';
import type { EventName, SpinneretApi } from './types.js';

const DEFAULTS: CrawlSettings = { ...DEFAULT_SETTINGS };

interface SimCrawl {
  summary: CrawlSummary;
  rows: UrlRow[];
  nodes: SitemapNode[];
  log: CrawlLogEntry[];
  cursor: number;
  pendingNodes: SitemapNode[];
  pendingLog: CrawlLogEntry[];
  timer?: ReturnType<typeof setInterval>;
}

/** A few findings the simulated site has, for developing the Issues view. */
const FAKE_FINDINGS: (Omit<AuditFinding, 'count' | 'measured' | 'subject'> & { needsPages: boolean; has(r: UrlRow): boolean })[] = [
  {
    code: 'SITEMAP_URL_4XX',
    severity: 'critical',
    title: 'Sitemap URLs answering 4xx',
    explanation: 'Remove these URLs from the sitemaps, or restore the pages.',
    needsPages: true,
    has: (r) => r.inSitemaps.length > 0 && (r.status ?? 0) >= 400 && (r.status ?? 0) < 500,
  },
  {
    code: 'SITEMAP_URL_REDIRECT',
    severity: 'warning',
    title: 'Sitemap URLs that redirect',
    explanation: 'List the final URL instead of the one that redirects.',
    needsPages: true,
    has: (r) => r.inSitemaps.length > 0 && r.redirectTo !== undefined,
  },
  {
    code: 'INDEXABLE_NOT_IN_SITEMAP',
    severity: 'warning',
    title: 'Indexable pages missing from the sitemaps',
    explanation: 'Add these pages to a sitemap, or make them non-indexable if they should not rank.',
    needsPages: true,
    has: (r) => r.inSitemaps.length === 0 && r.status === 200,
  },
  {
    code: 'URL_IN_MULTIPLE_SITEMAPS',
    severity: 'notice',
    title: 'URLs listed in more than one sitemap',
    explanation: 'List each URL in one sitemap only.',
    needsPages: false,
    has: (r) => r.inSitemaps.length > 1,
  },
];

const TITLES = ['Blue widget', 'Garden hose 20m', 'How we ship', 'Returns policy', 'Spring sale', 'Contact us', 'Careers', 'Widget care guide'];

function plan(origin: string): { nodes: SitemapNode[]; urls: { url: string; sitemap?: string; lastmod?: string }[] } {
  const node = (id: string, parentId: string | null, type: SitemapNode['type'], extra: Partial<SitemapNode> = {}): SitemapNode => ({
    id,
    url: id,
    parentId,
    type,
    state: 'pending',
    bytes: 0,
    uncompressedBytes: 0,
    gzip: false,
    urlCount: 0,
    childCount: 0,
    problems: [],
    ...extra,
  });
  const robots = `${origin}/robots.txt`;
  const index = `${origin}/sitemap_index.xml`;
  const maps = [
    { id: `${origin}/sitemaps/products-1.xml.gz`, n: 1400, gz: true },
    { id: `${origin}/sitemaps/products-2.xml.gz`, n: 900, gz: true },
    { id: `${origin}/sitemaps/blog.xml`, n: 320, gz: false },
    { id: `${origin}/sitemaps/pages.xml`, n: 48, gz: false },
  ];
  const nodes = [
    node(robots, null, 'robots', { childCount: 2 }),
    node(index, robots, 'sitemapindex', { childCount: maps.length + 1 }),
    ...maps.map((m) => node(m.id, index, 'urlset', { gzip: m.gz, lastmod: '2024-05-02T08:00:00Z', urlCount: m.n })),
    node(`${origin}/sitemaps/legacy.xml`, index, 'urlset', { lastmod: '2019-01-01' }),
    node(`${origin}/news-sitemap.xml`, robots, 'urlset', { urlCount: 25 }),
  ];
  const urls: { url: string; sitemap?: string; lastmod?: string }[] = [{ url: `${origin}/` }];
  for (const m of maps) {
    const kind = m.id.includes('products') ? 'products' : m.id.includes('blog') ? 'blog' : 'pages';
    for (let i = 0; i < m.n; i++) urls.push({ url: `${origin}/${kind}/${kind === 'products' ? `item-${urls.length}` : `post-${i}`}`, sitemap: m.id, lastmod: `2024-0${1 + (i % 9)}-1${i % 10}` });
  }
  for (let i = 0; i < 25; i++) urls.push({ url: `${origin}/news/story-${i}`, sitemap: `${origin}/news-sitemap.xml`, lastmod: '2024-05-03' });
  for (let i = 0; i < 400; i++) urls.push({ url: `${origin}/tag/${['red', 'blue', 'sale', 'new'][i % 4]}?page=${i}` });
  return { nodes, urls };
}

/** Builds the fake API. */
export function createFakeApi(): SpinneretApi {
  const listeners = new Map<EventName, Set<(p: unknown) => void>>();
  const emit = (event: EventName, payload: unknown) => listeners.get(event)?.forEach((cb) => cb(payload));
  const crawls = new Map<string, SimCrawl>();
  let defaults = { ...DEFAULTS };
  let seq = 1;

  const summaryOf = (c: SimCrawl) => structuredClone(c.summary);
  const find = (id: string) => {
    const c = crawls.get(id);
    if (!c) throw Object.assign(new Error(`No crawl with id ${id}.`), { code: 'NOT_FOUND' });
    return c;
  };

  function recount(c: SimCrawl): void {
    const k: CrawlCounters = emptyCounters();
    for (const r of c.rows) {
      k.discovered++;
      k.bySource[r.source]++;
      if (r.state === 'queued') k.queued++;
      if (r.state === 'fetching') k.fetching++;
      if (r.state === 'done') k.fetched++;
      if (r.state === 'error') k.errors++;
      if (r.state === 'blocked') k.blocked++;
      if (r.state === 'listed') k.listed++;
      if (r.status !== undefined) {
        const cls = r.status < 300 ? '2xx' : r.status < 400 ? '3xx' : r.status < 500 ? '4xx' : '5xx';
        k.byStatusClass[cls]++;
      }
    }
    k.duplicates = Math.floor(k.discovered * 0.37);
    k.sitemaps = {
      total: c.nodes.filter((n) => n.type !== 'robots').length,
      done: c.nodes.filter((n) => n.type !== 'robots' && n.state === 'done').length,
      failed: c.nodes.filter((n) => n.state === 'error').length,
    };
    c.summary.counters = k;
  }

  function tick(c: SimCrawl, all: ReturnType<typeof plan>): void {
    const s = c.summary;
    const now = Date.now();
    // Stream one sitemap per tick, then admit its URLs.
    const next = c.nodes.find((n) => n.state === 'pending');
    if (next) {
      next.state = next.url.endsWith('legacy.xml') ? 'error' : 'done';
      next.httpStatus = next.state === 'error' ? 404 : 200;
      next.bytes = next.type === 'robots' ? 412 : next.gzip ? 48_000 + next.urlCount * 19 : 2_400 + next.urlCount * 140;
      next.uncompressedBytes = next.gzip ? next.urlCount * 160 : next.bytes;
      if (next.url.includes('blog.xml')) next.problems = [{ code: 'LASTMOD_INVALID', message: 'lastmod "2024-13-01" is not a W3C date', url: `${next.url}` }];
      if (next.state === 'error') {
        next.problems = [{ code: 'HTTP_404', message: 'The sitemap answered 404 Not Found.' }];
        c.pendingLog.push({ at: now, level: 'error', code: 'SITEMAP_HTTP_ERROR', message: 'Sitemap answered 404 Not Found', url: next.url });
      }
      c.pendingNodes.push({ ...next });
      for (const u of all.urls) {
        if (u.sitemap === next.id) admit(c, u.url, 'sitemap', u.sitemap, u.lastmod);
      }
      if (c.rows.length === 0) admit(c, all.urls[0]!.url, 'start');
    }
    // Fetch a batch of queued URLs.
    let budget = 45;
    for (let i = c.cursor; i < c.rows.length && budget > 0; i++) {
      const r = c.rows[i]!;
      if (r.state !== 'queued') continue;
      budget--;
      c.cursor = i;
      if (r.url.includes('/tag/')) {
        r.state = 'blocked';
        r.blockedByRobots = true;
        continue;
      }
      r.state = 'done';
      r.status = r.id % 97 === 0 ? 404 : r.id % 61 === 0 ? 301 : r.id % 331 === 0 ? 503 : 200;
      r.contentType = 'text/html; charset=utf-8';
      r.title = `${TITLES[r.id % TITLES.length]} — Example Store`;
      if (r.status === 301) r.redirectTo = `${r.url}/`;
      if (r.status === 503) {
        r.state = 'error';
        r.error = { code: 'HTTP_503', message: 'Service Unavailable after 2 retries' };
        c.pendingLog.push({ at: now, level: 'error', code: 'FETCH_FAILED', message: 'Service Unavailable (503) after 2 retries', url: r.url });
      }
      if (r.id % 11 === 0 && c.rows.length < all.urls.length) {
        const tag = all.urls.find((u, j) => j > c.rows.length && !u.sitemap);
        if (tag) admit(c, tag.url, 'link', undefined, undefined, r.url);
      }
    }
    recount(c);
    const k = s.counters;
    s.rate = 40 + Math.random() * 12;
    if (!next && k.queued === 0) {
      s.status = 'finished';
      s.finishedAt = now;
      s.rate = 0;
      clearInterval(c.timer);
    }
    s.updatedAt = now;
    const e: ProgressEvent = { crawlId: s.id, status: s.status, counters: structuredClone(k), rate: s.rate, nodes: c.pendingNodes.splice(0), log: c.pendingLog.splice(0), at: now };
    c.log.push(...e.log);
    emit('progress', e);
    if (s.status === 'finished') emit('crawlFinished', summaryOf(c));
  }

  function admit(c: SimCrawl, url: string, source: UrlRow['source'], sitemap?: string, lastmod?: string, from?: string): void {
    c.rows.push({
      id: c.rows.length,
      url,
      state: c.summary.settings.fetchPages ? 'queued' : 'listed',
      source,
      depth: source === 'link' ? 2 : 0,
      discoveredFrom: from ?? sitemap,
      inSitemaps: sitemap ? [sitemap] : [],
      lastmod,
      changefreq: sitemap ? 'weekly' : undefined,
      priority: sitemap ? 0.8 : undefined,
    });
  }

  function run(c: SimCrawl): void {
    const origin = new URL(c.summary.startUrl || 'https://www.example-store.com/').origin;
    const all = plan(origin);
    if (c.nodes.length === 0) {
      c.nodes = all.nodes.map((n) => ({ ...n, urlCount: n.type === 'urlset' ? n.urlCount : 0 }));
      c.pendingNodes.push(...c.nodes.map((n) => ({ ...n })));
      c.pendingLog.push({ at: Date.now(), level: 'info', code: 'ROBOTS_OK', message: 'robots.txt read: 2 Sitemap lines, 1 group' });
    }
    c.summary.status = 'running';
    c.summary.startedAt ??= Date.now();
    c.timer = setInterval(() => tick(c, all), 250);
  }

  function matches(r: UrlRow, q: UrlQuery): boolean {
    if (q.states?.length && !q.states.includes(r.state)) return false;
    if (q.sources?.length && !q.sources.includes(r.source)) return false;
    if (q.statusClasses?.length) {
      const cls = r.status === undefined ? 'none' : r.status < 300 ? '2xx' : r.status < 400 ? '3xx' : r.status < 500 ? '4xx' : '5xx';
      if (!q.statusClasses.includes(cls)) return false;
    }
    if (q.inSitemap !== undefined && q.inSitemap !== r.inSitemaps.length > 0) return false;
    if (q.blocked !== undefined && q.blocked !== !!r.blockedByRobots) return false;
    if (q.sitemapId && !r.inSitemaps.includes(q.sitemapId)) return false;
    if (q.finding && !FAKE_FINDINGS.find((f) => f.code === q.finding)?.has(r)) return false;
    if (q.search) {
      const s = q.search.toLowerCase();
      if (!r.url.toLowerCase().includes(s) && !(r.title ?? '').toLowerCase().includes(s)) return false;
    }
    return true;
  }

  const delay = <T,>(v: T): Promise<T> => new Promise((res) => setTimeout(() => res(structuredClone(v)), 20));

  const api = {
    async listCrawls() {
      return delay([...crawls.values()].map(summaryOf));
    },
    async getCrawl({ id }: { id: string }) {
      return delay(summaryOf(find(id)));
    },
    async createCrawl({ name, settings }: { name?: string; settings: Partial<CrawlSettings> & { startUrl: string } }) {
      const id = `c${seq++}`;
      const now = Date.now();
      const s: CrawlSummary = {
        id,
        name: name ?? '',
        startUrl: settings.startUrl,
        settings: { ...defaults, ...settings },
        status: 'created',
        counters: emptyCounters(),
        createdAt: now,
        updatedAt: now,
        rate: 0,
      };
      crawls.set(id, { summary: s, rows: [], nodes: [], log: [], cursor: 0, pendingNodes: [], pendingLog: [] });
      return delay(s);
    },
    async renameCrawl({ id, name }: { id: string; name: string }) {
      const c = find(id);
      c.summary.name = name;
      return delay(summaryOf(c));
    },
    async startCrawl({ id }: { id: string }) {
      const c = find(id);
      run(c);
      return delay(summaryOf(c));
    },
    async pauseCrawl({ id }: { id: string }) {
      const c = find(id);
      clearInterval(c.timer);
      c.summary.status = 'paused';
      c.summary.rate = 0;
      return delay(summaryOf(c));
    },
    async resumeCrawl({ id }: { id: string }) {
      const c = find(id);
      run(c);
      return delay(summaryOf(c));
    },
    async stopCrawl({ id }: { id: string }) {
      const c = find(id);
      clearInterval(c.timer);
      c.summary.status = 'finished';
      c.summary.finishedAt = Date.now();
      return delay(summaryOf(c));
    },
    async deleteCrawl({ id }: { id: string }) {
      clearInterval(find(id).timer);
      crawls.delete(id);
      return delay(null);
    },
    async queryUrls({ id, query }: { id: string; query: UrlQuery }) {
      const c = find(id);
      let rows = c.rows.filter((r) => matches(r, query));
      if (query.sort) {
        const { key, dir } = query.sort;
        const m = dir === 'asc' ? 1 : -1;
        rows = [...rows].sort((a, b) => (String(a[key] ?? '') < String(b[key] ?? '') ? -m : String(a[key] ?? '') > String(b[key] ?? '') ? m : 0));
      }
      return delay({ total: rows.length, rows: rows.slice(query.offset, query.offset + query.limit) });
    },
    async getUrl({ id, urlId }: { id: string; urlId: number }) {
      const r = find(id).rows[urlId];
      if (!r) throw Object.assign(new Error(`No URL ${urlId}.`), { code: 'NOT_FOUND' });
      const d: UrlDetail = {
        ...r,
        discoveries: [
          ...r.inSitemaps.map((s) => ({ source: 'sitemap' as const, from: s })),
          { source: 'link', from: `${new URL(r.url).origin}/` },
          { source: 'link', from: `${new URL(r.url).origin}/products/` },
        ],
        sitemapEntry: r.inSitemaps.length
          ? { loc: r.url, lastmod: r.lastmod, changefreq: 'weekly', priority: 0.8, alternates: [{ lang: 'de-DE', href: r.url.replace('.com/', '.com/de/') }], images: [{ loc: `${r.url}.jpg` }] }
          : undefined,
        result:
          r.state === 'done' || r.state === 'error'
            ? {
                status: r.status,
                contentType: r.contentType,
                title: r.title,
                canonical: r.url,
                metaRobots: r.id % 13 === 0 ? 'noindex, follow' : 'index, follow',
                hreflang: [
                  { lang: 'en-GB', href: r.url },
                  { lang: 'x-default', href: r.url },
                ],
                redirectChain: r.redirectTo ? [{ url: r.url, status: 301 }] : undefined,
                redirectTo: r.redirectTo,
                bytes: 31_000 + r.id * 7,
                durationMs: 120 + (r.id % 200),
                fetchedAt: Date.now(),
                error: r.error,
              }
            : undefined,
      };
      return delay(d);
    },
    async getSitemapChildren({ id, parentId }: { id: string; parentId: string | null }) {
      return delay(find(id).nodes.filter((n) => n.parentId === parentId));
    },
    async getLog({ id, offset, limit }: { id: string; offset: number; limit: number }) {
      const log = find(id).log;
      return delay({ total: log.length, rows: log.slice(offset, offset + limit) });
    },
    async getFindings({ id }: { id: string }) {
      const c = find(id);
      const pages = c.summary.settings.fetchPages;
      return delay(
        FAKE_FINDINGS.map(({ has, ...f }): AuditFinding => {
          const measured = !f.needsPages || pages;
          return { ...f, subject: 'url', measured, count: measured ? c.rows.filter(has).length : 0, ...(measured ? {} : { notMeasuredReason: 'Pages were not fetched (a sitemap-listing run).' }) };
        }),
      );
    },
    async getFindingUrls({ id, code, offset, limit }: { id: string; code: string; offset: number; limit: number }) {
      const has = FAKE_FINDINGS.find((f) => f.code === code)?.has;
      if (!has) throw Object.assign(new Error(`"${code}" is not an audit finding.`), { code: 'BAD_QUERY' });
      const urls = find(id).rows.filter(has).map((r) => r.url);
      return delay({ total: urls.length, urls: urls.slice(offset, offset + limit) });
    },
    async exportCsv({ id }: { id: string }) {
      return delay({ rows: find(id).rows.length, path: '/home/analyst/Downloads/export.csv' });
    },
    async getDefaults() {
      return delay(defaults);
    },
    async setDefaults({ patch }: { patch: Partial<CrawlSettings> }) {
      defaults = { ...defaults, ...patch };
      return delay(defaults);
    },
    on(event: EventName, cb: (p: unknown) => void) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(cb);
      return () => set.delete(cb);
    },
  };
  return api as unknown as SpinneretApi;
}
