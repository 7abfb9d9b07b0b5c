/**
 * One contract suite, run against both transports: Electron IPC (main wiring + preload on doubles)
 * and browser mode's WebSocket (real sockets). Every result is also parsed strictly against the
 * contract's schema by the dispatcher (checkResults), so a shape drift (a key missing, or one the
 * contract does not declare) fails here as INTERNAL; every event is parsed the same way by the
 * transport (eventsOffContract).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, IndexabilityReasonSchema, TransportErrorCode, type EventPayload } from '../../shared/contract.js';
import { LINK_CSV_COLUMNS } from '../../electron/service/data/links-csv.js';
import { FINDING_DEFINITIONS } from '../../electron/service/audit/definitions.js';
import { localDate } from '../../electron/renderer-host/downloads.js';
import { LINK_FINDING_CODES, MAX_PAGE } from '../../shared/model.js';
import type { CrawlService } from '../../electron/service/types.js';
import { ipcTransport, wsTransport, type Transport } from './transports.js';
import { contractService, type ContractService } from './service-under-test.js';
import { startTestSite } from '../fixtures/site.js';
import { parseCsv } from '../service/helpers.js';

const transports: [string, (s: CrawlService) => Promise<Transport>][] = [
  ['IPC (ipcMain/ipcRenderer doubles)', ipcTransport],
  ['WebSocket (real sockets)', wsTransport],
];

for (const [label, make] of transports) {
  describe(`contract over ${label}`, () => {
    let sut: ContractService;
    let t: Transport;
    before(async () => {
      sut = await contractService();
      t = await make(sut.service);
    });
    after(async () => {
      await t.close();
      await sut.close();
    });

    /** Creates a crawl of the test site (or with other settings) and waits until it has finished. */
    async function finishedCrawl(name: string, settings = sut.settings()) {
      const crawl = await t.api.createCrawl({ name, settings });
      const done = new Promise<EventPayload<'crawlFinished'>>((resolve) => {
        const off = t.api.on('crawlFinished', (s) => {
          if (s.id === crawl.id) {
            off();
            resolve(s);
          }
        });
      });
      await t.api.startCrawl({ id: crawl.id });
      return done;
    }

    it('creates, lists, reads and renames crawls', async () => {
      const before = await t.api.listCrawls();
      const created = await t.api.createCrawl({ name: 'First', settings: sut.settings() });
      assert.equal(created.name, 'First');
      assert.equal(created.status, 'created');
      const listed = await t.api.listCrawls();
      assert.equal(listed.length, before.length + 1);
      assert.ok(listed.some((c) => c.id === created.id));
      assert.equal((await t.api.getCrawl({ id: created.id })).startUrl, created.startUrl);
      const renamed = await t.api.renameCrawl({ id: created.id, name: 'Renamed' });
      assert.equal(renamed.name, 'Renamed');
      assert.equal((await t.api.getCrawl({ id: created.id })).name, 'Renamed');
    });

    it('refuses invalid arguments with INVALID_ARGS, naming the field', async () => {
      const bad: [string, unknown, RegExp][] = [
        ['getCrawl', {}, /id/],
        ['getCrawl', { id: 42 }, /id/],
        ['getCrawl', 'c1', /./],
        ['getCrawl', null, /./],
        ['createCrawl', { settings: {} }, /startUrl/],
        ['createCrawl', { settings: { startUrl: 'http://x.test/', concurrency: 'ten' } }, /concurrency/],
        ['createCrawl', { settings: { startUrl: 'http://x.test/', unknownSetting: true } }, /unknownSetting|Unrecognized/i],
        ['queryUrls', { id: 'c1', query: { offset: -1, limit: 10 } }, /offset/],
        ['queryUrls', { id: 'c1', query: { offset: 0, limit: MAX_PAGE + 1 } }, /limit/],
        ['queryUrls', { id: 'c1', query: { offset: 0, limit: 10, sort: { key: 'password', dir: 'asc' } } }, /sort/],
        ['getUrl', { id: 'c1', urlId: 1.5 }, /urlId/],
        ['getSitemapChildren', { id: 'c1' }, /parentId/],
        ['listCrawls', { sneaky: 1 }, /./],
        ['setDefaults', { patch: { maxUrls: -5 } }, /maxUrls/],
      ];
      for (const [method, args, field] of bad) {
        const res = await t.raw(method, args);
        assert.equal(res.ok, false, `${method}(${JSON.stringify(args)}) should be refused`);
        if (!res.ok) {
          assert.equal(res.error.code, TransportErrorCode.INVALID_ARGS, `${method}: ${res.error.message}`);
          assert.match(res.error.message, field);
          assert.match(res.error.message, new RegExp(method));
        }
      }
    });

    it('refuses unknown methods, including Object.prototype names', async () => {
      for (const method of ['dropDatabase', '__proto__', 'constructor', 'hasOwnProperty', 'toString', '']) {
        const res = await t.raw(method, {});
        assert.equal(res.ok, false);
        if (!res.ok) assert.equal(res.error.code, TransportErrorCode.UNKNOWN_METHOD, method);
      }
    });

    it('refuses callers that are not our page', async () => {
      const intrusions = await t.intrusions();
      assert.ok(intrusions.length >= 4);
      for (const { label, result, httpStatus } of intrusions) {
        assert.equal(result.ok, false, `${label} must be refused`);
        if (result.ok) continue;
        if (t.name === 'ipc') {
          assert.equal(result.error.code, TransportErrorCode.FORBIDDEN_SENDER, label);
        } else {
          // The upgrade is refused, so the page's client sees the socket close.
          assert.equal(result.error.code, TransportErrorCode.DISCONNECTED, label);
          assert.ok(httpStatus === 401 || httpStatus === 403, `${label}: HTTP ${httpStatus}`);
          if (/token/.test(label)) assert.equal(httpStatus, 401, label);
        }
      }
    });

    it('passes service errors through with their own code, as ApiError', async () => {
      await assert.rejects(t.api.getCrawl({ id: 'no-such-crawl' }), (e: unknown) => {
        assert.ok(e instanceof ApiError);
        assert.notEqual(e.code, TransportErrorCode.INTERNAL);
        assert.match(e.code, /^[A-Z][A-Z0-9_]+$/);
        assert.ok(e.message.length > 0);
        return true;
      });
      await assert.rejects(t.api.createCrawl({ settings: { startUrl: 'notaurl' } }), (e: unknown) => e instanceof ApiError && e.code === 'BAD_SETTINGS');
    });

    it('gets and sets default settings', async () => {
      const defaults = await t.api.getDefaults();
      const updated = await t.api.setDefaults({ patch: { userAgent: 'Contract-Test/1.0', concurrency: 3 } });
      assert.equal(updated.userAgent, 'Contract-Test/1.0');
      assert.equal(updated.concurrency, 3);
      assert.equal((await t.api.getDefaults()).userAgent, 'Contract-Test/1.0');
      assert.equal(updated.scope, defaults.scope);
      await t.api.setDefaults({ patch: { userAgent: defaults.userAgent, concurrency: defaults.concurrency } });
    });

    it('runs a crawl: progress and crawlFinished events, then its URLs, tree and log', async () => {
      const progress: EventPayload<'progress'>[] = [];
      let sawFinalProgress!: () => void;
      const finalProgress = new Promise<void>((r) => (sawFinalProgress = r));
      const off = t.api.on('progress', (p) => {
        progress.push(p);
        if (p.status === 'finished') sawFinalProgress();
      });
      // The status change is pushed as a progress batch too (possibly just after crawlFinished).
      const [finished] = await Promise.all([finishedCrawl('Events'), finalProgress]);
      off();
      assert.equal(finished.status, 'finished');
      const mine = progress.filter((p) => p.crawlId === finished.id);
      assert.ok(mine.length >= 1, 'at least one progress event');
      assert.equal(mine.at(-1)!.status, 'finished');
      assert.ok(mine.at(-1)!.counters.discovered >= sut.expectedUrls, 'counters arrive with progress');
      assert.ok(finished.counters.discovered >= sut.expectedUrls);

      const page = await t.api.queryUrls({ id: finished.id, query: { offset: 0, limit: 2, sort: { key: 'id', dir: 'asc' } } });
      assert.ok(page.total >= sut.expectedUrls);
      assert.equal(page.rows.length, 2);
      const detail = await t.api.getUrl({ id: finished.id, urlId: page.rows[0].id });
      assert.equal(detail.url, page.rows[0].url);
      assert.ok(Array.isArray(await t.api.getSitemapChildren({ id: finished.id, parentId: null })));
      const log = await t.api.getLog({ id: finished.id, offset: 0, limit: 50 });
      assert.ok(log.total >= log.rows.length);

      // After unsubscribing, nothing more is delivered to that listener.
      const count = progress.length;
      await finishedCrawl('Events again');
      assert.equal(progress.length, count);
    });

    it('recrawls a finished crawl: a crawl with its baseId, then recrawlFinished; carried-over rows filter', async () => {
      const base = await finishedCrawl('Recrawl base');
      const events: EventPayload<'recrawlFinished'>[] = [];
      const got = new Promise<EventPayload<'recrawlFinished'>>((resolve) => {
        const off = t.api.on('recrawlFinished', (e) => {
          events.push(e);
          if (e.baseId === base.id) {
            off();
            resolve(e);
          }
        });
      });
      const again = await t.api.recrawl({ id: base.id, changedOnly: true });
      assert.equal(again.baseId, base.id);
      assert.equal(again.changedOnly, true);
      const e = await got;
      assert.equal(e.crawl.id, again.id);
      assert.equal(e.crawl.status, 'finished');
      assert.equal(e.scheduled, false);
      assert.ok(Array.isArray(e.worse));
      // Changed-only: what did not fail and whose lastmod did not move is carried over, no request.
      const carried = await t.api.queryUrls({ id: again.id, query: { offset: 0, limit: 5, carriedOver: true } });
      const fetched = await t.api.queryUrls({ id: again.id, query: { offset: 0, limit: 0, carriedOver: false } });
      assert.ok(carried.total > 0, 'some rows carried over');
      assert.equal(carried.total + fetched.total, (await t.api.queryUrls({ id: again.id, query: { offset: 0, limit: 0 } })).total);
      assert.ok(carried.rows.every((r) => r.carriedOver === true));
      await assert.rejects(t.api.recrawl({ id: 'no-such-crawl' }), (err: unknown) => err instanceof ApiError && err.code === 'NOT_FOUND');
    });

    it('reports the sitemap audit; a finding filters the URL table, the detail names its findings', async () => {
      const crawl = await finishedCrawl('Audit');
      const findings = await t.api.getFindings({ id: crawl.id });
      assert.equal(findings.length, FINDING_DEFINITIONS.length, 'every finding of the catalogue');
      const order = ['critical', 'warning', 'notice'];
      for (let i = 1; i < findings.length; i++) assert.ok(order.indexOf(findings[i - 1]!.severity) <= order.indexOf(findings[i]!.severity), 'critical first');
      // The test site's pages are in no sitemap: they are indexable pages missing from the sitemaps.
      const missing = findings.find((f) => f.code === 'INDEXABLE_NOT_IN_SITEMAP')!;
      assert.ok(missing.measured && missing.count > 0, JSON.stringify(missing));
      const filtered = await t.api.queryUrls({ id: crawl.id, query: { offset: 0, limit: MAX_PAGE, finding: missing.code } });
      assert.equal(filtered.total, missing.count);
      const members = await t.api.getFindingUrls({ id: crawl.id, code: missing.code, offset: 0, limit: MAX_PAGE });
      assert.equal(members.total, missing.count);
      assert.deepEqual(filtered.rows.map((r) => r.url).sort(), [...members.urls].sort());
      const detail = await t.api.getUrl({ id: crawl.id, urlId: filtered.rows[0]!.id });
      assert.ok(detail.findings?.includes(missing.code), JSON.stringify(detail.findings));
      const { rows } = await t.exportCsv(crawl.id, { finding: missing.code });
      assert.equal(rows, missing.count, 'the export of a finding has its URLs');

      await assert.rejects(
        t.api.queryUrls({ id: crawl.id, query: { offset: 0, limit: 10, finding: 'NOT_A_FINDING' } }),
        (e: unknown) => e instanceof ApiError && e.code === 'BAD_QUERY' && /INDEXABLE_NOT_IN_SITEMAP/.test(e.message),
      );
      await assert.rejects(t.api.getFindings({ id: 'no-such-crawl' }), (e: unknown) => e instanceof ApiError && e.code === 'NOT_FOUND');
      const res = await t.raw('getFindingUrls', { id: crawl.id, code: '', offset: 0, limit: 10 });
      assert.equal(res.ok, false);
      if (!res.ok) assert.equal(res.error.code, TransportErrorCode.INVALID_ARGS);
    });

    it('answers within the contract about every URL, sitemap and finding of a site with all of them', async () => {
      // The full test site: sitemap indexes, gzip, feeds, images, hreflang, redirects, robots.txt
      // rules, errors. Each answer is parsed strictly by the dispatcher: a drift rejects as INTERNAL.
      const site = await startTestSite({ scenario: 'full', slowMs: 50 });
      try {
        const crawl = await finishedCrawl('Full', { startUrl: site.url('/'), concurrency: 8, perHostConcurrency: 8, delayMs: 0, retries: 0, timeoutMs: 2000 });
        const page = await t.api.queryUrls({ id: crawl.id, query: { offset: 0, limit: MAX_PAGE } });
        assert.ok(page.total > 20 && page.total === page.rows.length, `${page.total} URLs`);
        const details = await Promise.all(page.rows.map((r) => t.api.getUrl({ id: crawl.id, urlId: r.id })));
        assert.ok(
          details.some((d) => d.sitemapEntry?.images?.length),
          'an entry with images',
        );
        assert.ok(
          details.some((d) => d.redirectWalk),
          'a redirect',
        );
        assert.ok(
          details.some((d) => d.result?.hreflang?.length),
          'a page with hreflang',
        );
        const walk = async (parentId: string | null): Promise<number> => {
          let n = 0;
          for (const node of await t.api.getSitemapChildren({ id: crawl.id, parentId })) n += 1 + (await walk(node.id));
          return n;
        };
        assert.ok((await walk(null)) > 3, 'a tree of sitemaps');
        await t.api.getLog({ id: crawl.id, offset: 0, limit: MAX_PAGE });
        for (const f of await t.api.getFindings({ id: crawl.id })) await t.api.getFindingUrls({ id: crawl.id, code: f.code, offset: 0, limit: 10 });
      } finally {
        await site.close();
      }
    });

    it('exports CSV through its own path (save dialog or download)', async () => {
      const crawl = await finishedCrawl('Export');
      const { rows, text } = await t.exportCsv(crawl.id);
      const lines = text.trim().split(/\r?\n/);
      assert.ok(rows >= sut.expectedUrls);
      assert.equal(lines.length, rows + 1, 'a header and one line per row');
      assert.match(lines[0], /url/i);
      await assert.rejects(t.api.exportCsv({ id: 'no-such-crawl' }), ApiError);
    });

    it("answers a URL's links, exports links through its own path, and the page stats", async () => {
      const crawl = await finishedCrawl('Links');
      const { rows } = await t.api.queryUrls({ id: crawl.id, query: { offset: 0, limit: MAX_PAGE } });
      const home = rows.find((r) => r.url === sut.settings().startUrl)!;
      assert.ok(home, 'the start URL is a row');
      // Outlinks: the home page's own links, each from it.
      const out = await t.api.getLinks({ id: crawl.id, urlId: home.id, direction: 'out', offset: 0, limit: MAX_PAGE });
      assert.ok(out.total > 0 && out.rows.length === out.total, `home has ${out.total} links`);
      assert.ok(out.rows.every((l) => l.fromId === home.id && l.fromUrl === home.url));
      // Inlinks: as many as the row counts, each to the URL; a page of them is a page.
      const linked = rows.filter((r) => (r.inlinks ?? 0) > 0);
      assert.ok(linked.length > 0, 'some URL has inlinks');
      let allLinks = 0;
      for (const r of rows) allLinks += (await t.api.getLinks({ id: crawl.id, urlId: r.id, direction: 'out', offset: 0, limit: 0 })).total;
      for (const r of linked.slice(0, 5)) {
        const inl = await t.api.getLinks({ id: crawl.id, urlId: r.id, direction: 'in', offset: 0, limit: MAX_PAGE });
        assert.equal(inl.total, r.inlinks, r.url);
        assert.ok(
          inl.rows.every((l) => l.toUrl === r.url && l.fromId !== r.id),
          r.url,
        );
        const one = await t.api.getLinks({ id: crawl.id, urlId: r.id, direction: 'in', offset: inl.total - 1, limit: 1 });
        assert.deepEqual(one.rows, inl.rows.slice(-1));
      }

      // Exports: every link of the crawl, one URL's inlinks, one URL's outlinks.
      const day = localDate(new Date());
      const all = await t.exportLinks(crawl.id);
      assert.equal(all.rows, allLinks, 'every link of every page');
      const lines = all.text.trim().split('\n');
      assert.equal(lines[0], LINK_CSV_COLUMNS.join(','));
      assert.equal(lines.length, all.rows + 1);
      assert.equal(all.fileName, `Links-links-${day}.csv`);
      const target = linked[0]!;
      const inl = await t.exportLinks(crawl.id, { urlId: target.id });
      assert.equal(inl.rows, target.inlinks);
      assert.equal(inl.fileName, `Links-inlinks-${target.id}-${day}.csv`);
      const outl = await t.exportLinks(crawl.id, { urlId: home.id, direction: 'out' });
      assert.equal(outl.rows, out.total);
      assert.equal(outl.fileName, `Links-outlinks-${home.id}-${day}.csv`);
      // A link finding: every inlink of its URLs, as many as their rows count.
      const findings = await t.api.getFindings({ id: crawl.id });
      for (const code of LINK_FINDING_CODES) {
        const f = findings.find((x) => x.code === code)!;
        const urls = new Set((await t.api.getFindingUrls({ id: crawl.id, code, offset: 0, limit: MAX_PAGE })).urls);
        const bad = await t.exportLinks(crawl.id, { finding: code });
        assert.equal(
          bad.rows,
          rows.filter((r) => urls.has(r.url)).reduce((n, r) => n + (r.inlinks ?? 0), 0),
          `${code}: ${f.count} URLs' inlinks`,
        );
        assert.equal(bad.fileName, `Links-${code}-links-${day}.csv`);
        assert.ok(
          parseCsv(bad.text)
            .slice(1)
            .filter((l) => l.length > 1)
            .every((l) => urls.has(l[1]!)),
          `${code}: every row links to one of its URLs`,
        );
      }
      await assert.rejects(
        t.api.exportLinks({ id: crawl.id, finding: 'MISSING_TITLE' }),
        (e: unknown) => e instanceof ApiError && e.code === 'BAD_QUERY' && /no links export/.test(e.message),
      );

      // Bad input: a URL the crawl does not hold, a direction that is not one.
      for (const call of [
        () => t.api.getLinks({ id: crawl.id, urlId: 1_000_000, direction: 'in', offset: 0, limit: 10 }),
        () => t.api.exportLinks({ id: crawl.id, urlId: 1_000_000 }),
        () => t.api.getLinks({ id: 'no-such-crawl', urlId: 0, direction: 'in', offset: 0, limit: 10 }),
        () => t.api.exportLinks({ id: 'no-such-crawl' }),
        () => t.api.getPageStats({ id: 'no-such-crawl' }),
      ]) {
        await assert.rejects(call(), (e: unknown) => e instanceof ApiError && e.code === 'NOT_FOUND');
      }
      await assert.rejects(
        t.api.exportLinks({ id: crawl.id, direction: 'out' }),
        (e: unknown) => e instanceof ApiError && e.code === 'BAD_QUERY' && /urlId/.test(e.message),
      );
      for (const [method, args] of [
        ['getLinks', { id: crawl.id, urlId: 0, direction: 'sideways', offset: 0, limit: 10 }],
        ['getLinks', { id: crawl.id, urlId: 0, direction: 'in', offset: 0, limit: MAX_PAGE + 1 }],
        ['exportLinks', { id: crawl.id, direction: 'up' }],
      ] as const) {
        const res = await t.raw(method, args);
        assert.ok(!res.ok && res.error.code === TransportErrorCode.INVALID_ARGS, `${method} ${JSON.stringify(args)}: ${JSON.stringify(res)}`);
      }

      // Page stats: the counts add up to the rows they come from.
      const stats = await t.api.getPageStats({ id: crawl.id });
      const handled = rows.filter((r) => r.indexability !== undefined);
      assert.equal(stats.indexable + stats.nonIndexable.reduce((n, x) => n + x.count, 0), handled.length);
      assert.equal(stats.indexable, handled.filter((r) => r.indexability === 'indexable').length);
      assert.deepEqual(
        stats.nonIndexable.map((x) => x.reason),
        IndexabilityReasonSchema.options,
        'every reason, in order',
      );
      for (const { reason, count } of stats.nonIndexable) assert.equal(count, rows.filter((r) => r.indexabilityReason === reason).length, reason);
      assert.equal(stats.clickDepth.reduce((n, x) => n + x, 0) + stats.noClickDepth, rows.length);
      stats.clickDepth.forEach((n, d) => assert.equal(n, rows.filter((r) => r.clickDepth === d).length, `click depth ${d}`));
      assert.equal(stats.clickDepth[0], 1, 'the start URL alone at 0');
    });

    it('deletes a crawl', async () => {
      const crawl = await t.api.createCrawl({ settings: sut.settings() });
      assert.equal(await t.api.deleteCrawl({ id: crawl.id }), null);
      await assert.rejects(t.api.getCrawl({ id: crawl.id }), ApiError);
      assert.ok(!(await t.api.listCrawls()).some((c) => c.id === crawl.id));
    });

    // Last: by now every kind of event the service sends has crossed this transport.
    it('sent only events that parse strictly against the contract', () => {
      assert.deepEqual(t.eventsOffContract(), []);
    });
  });
}
