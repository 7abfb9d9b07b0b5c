/**
 * A small in-memory CrawlService for transport tests that must not depend on the engine: it keeps
 * crawls in a map, "crawls" a fixed list of URLs on start (the first links to each other one), and
 * emits the service's events.
 */
import { EventEmitter } from 'node:events';
import type { Writable } from 'node:stream';
import { DEFAULT_SETTINGS, emptyCounters, type CrawlSettings, type CrawlSummary, type PageLinkRow, type UrlRow } from '../../shared/model.js';
import type { CrawlService, CrawlServiceEvents, NewCrawl } from '../../electron/service/types.js';

class CodedError extends Error {
  constructor(
    public readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const DEFAULTS: CrawlSettings = {
  ...DEFAULT_SETTINGS,
  concurrency: 4,
  perHostConcurrency: 2,
  userAgent: 'Spinneret-test',
  timeoutMs: 10_000,
  retries: 1,
  maxBodyBytes: 1 << 20,
};

/** An in-memory CrawlService with `pages` URLs per crawl. */
export function createFakeService(pages = 3): CrawlService & { closed: boolean } {
  const emitter = new EventEmitter();
  const crawls = new Map<string, CrawlSummary>();
  const rows = new Map<string, UrlRow[]>();
  let defaults = { ...DEFAULTS };
  let nextId = 1;
  const must = (id: string) => {
    const c = crawls.get(id);
    if (!c) throw new CodedError('NOT_FOUND', `No crawl with id ${id}.`);
    return c;
  };
  const finish = (c: CrawlSummary) => {
    const list: UrlRow[] = [];
    for (let i = 0; i < pages; i++) {
      list.push({ id: i, url: `${c.startUrl}p${i}`, state: 'done', source: i ? 'link' : 'start', depth: i ? 1 : 0, inSitemaps: [], status: 200 });
    }
    rows.set(c.id, list);
    c.counters = { ...emptyCounters(), discovered: pages, fetched: pages };
    c.counters.byStatusClass['2xx'] = pages;
    c.status = 'finished';
    c.finishedAt = Date.now();
    emitter.emit('progress', { crawlId: c.id, status: c.status, counters: c.counters, rate: 0, nodes: [], log: [], at: Date.now() });
    emitter.emit('finished', { ...c });
  };
  /** Page 0 links to every other page; no other page has links. */
  const linksOf = (id: string, urlId: number, direction: 'in' | 'out'): PageLinkRow[] => {
    const list = rows.get(must(id).id) ?? [];
    if (!list[urlId]) throw new CodedError('NOT_FOUND', `No URL ${urlId} in crawl ${id}.`);
    const link = (to: UrlRow): PageLinkRow => ({
      fromId: 0,
      fromUrl: list[0]!.url,
      toId: to.id,
      toUrl: to.url,
      anchor: `page ${to.id}`,
      toState: 'done',
      toStatus: 200,
    });
    if (direction === 'out') return urlId === 0 ? list.slice(1).map(link) : [];
    return urlId === 0 ? [] : [link(list[urlId]!)];
  };
  const service: CrawlService & { closed: boolean } = {
    closed: false,
    list: () => [...crawls.values()].map((c) => ({ ...c })),
    get: (id) => ({ ...must(id) }),
    create(input: NewCrawl) {
      if (!/^https?:\/\//.test(input.settings.startUrl)) {
        throw new CodedError('BAD_SETTINGS', 'The start URL must be an http(s) address.');
      }
      const now = Date.now();
      const id = `c${nextId++}`;
      const c: CrawlSummary = {
        id,
        name: input.name ?? input.settings.startUrl,
        startUrl: input.settings.startUrl,
        settings: { ...defaults, ...input.settings },
        status: 'created',
        counters: emptyCounters(),
        createdAt: now,
        updatedAt: now,
        rate: 0,
      };
      crawls.set(id, c);
      return { ...c };
    },
    rename(id, name) {
      must(id).name = name;
      return { ...must(id) };
    },
    async start(id) {
      const c = must(id);
      c.status = 'running';
      c.startedAt = Date.now();
      setImmediate(() => finish(c));
      return { ...c };
    },
    async pause(id) {
      must(id).status = 'paused';
      return { ...must(id) };
    },
    async resume(id) {
      return service.start(id);
    },
    async stop(id) {
      must(id).status = 'finished';
      return { ...must(id) };
    },
    async delete(id) {
      must(id);
      crawls.delete(id);
    },
    queryUrls(id, query) {
      must(id);
      const all = rows.get(id) ?? [];
      return { total: all.length, rows: all.slice(query.offset, query.offset + query.limit) };
    },
    getUrl(id, urlId) {
      const row = (rows.get(must(id).id) ?? [])[urlId];
      if (!row) throw new CodedError('NOT_FOUND', `No URL ${urlId} in crawl ${id}.`);
      return { ...row, discoveries: [{ source: row.source }] };
    },
    sitemapTree: (id) => (must(id), []),
    log: (id) => (must(id), { total: 0, rows: [] }),
    getFindings: (id) => (must(id), []),
    auditReady: async (id) => void must(id),
    findingUrls: (id) => (must(id), { total: 0, urls: [] }),
    async exportCsv(id, out: Writable) {
      const list = rows.get(must(id).id) ?? [];
      out.write('url,status\n');
      for (const r of list) out.write(`${r.url},${r.status ?? ''}\n`);
      return { rows: list.length };
    },
    async getLinks(id, urlId, direction, offset, limit) {
      const all = linksOf(id, urlId, direction);
      return { total: all.length, rows: all.slice(offset, offset + limit) };
    },
    async exportLinks(id, out: Writable, opts = {}) {
      const all = opts.urlId === undefined ? linksOf(id, 0, 'out') : linksOf(id, opts.urlId, opts.direction ?? 'in');
      out.write('source,target\n');
      for (const l of all) out.write(`${l.fromUrl},${l.toUrl}\n`);
      return { rows: all.length };
    },
    async getPageStats(id) {
      const n = (rows.get(must(id).id) ?? []).length;
      return { indexable: n, nonIndexable: [], clickDepth: n ? [1, n - 1] : [], noClickDepth: 0 };
    },
    // Issue 23's methods: the contract tests call them through the real service; here they say so.
    recrawl: (id) => Promise.reject(new CodedError('NOT_IMPLEMENTED', `The fake service does not recrawl ${must(id).id}.`)),
    compare: (oldId) => Promise.reject(new CodedError('NOT_IMPLEMENTED', `The fake service does not compare ${must(oldId).id}.`)),
    compareRows: (oldId) => Promise.reject(new CodedError('NOT_IMPLEMENTED', `The fake service does not compare ${must(oldId).id}.`)),
    exportCompare: (oldId) => Promise.reject(new CodedError('NOT_IMPLEMENTED', `The fake service does not compare ${must(oldId).id}.`)),
    setSchedule(id) {
      throw new CodedError('NOT_IMPLEMENTED', `The fake service does not schedule ${must(id).id}.`);
    },
    exportCrawlFile: (id) => Promise.reject(new CodedError('NOT_IMPLEMENTED', `The fake service does not save ${must(id).id}.`)),
    importCrawlFile: (_input, fileName) => Promise.reject(new CodedError('NOT_IMPLEMENTED', `The fake service does not open ${fileName}.`)),
    getDefaults: () => ({ ...defaults }),
    setDefaults(patch) {
      defaults = { ...defaults, ...patch };
      return { ...defaults };
    },
    on<E extends keyof CrawlServiceEvents>(event: E, listener: CrawlServiceEvents[E]) {
      emitter.on(event, listener);
      return () => void emitter.off(event, listener);
    },
    async close() {
      service.closed = true;
    },
  };
  return service;
}
