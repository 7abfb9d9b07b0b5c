/**
 * The page side of the service (issue 22) over a real crawl of the realistic site
 * (test/fixtures/real-site): the URL table's page filters (indexability and its reasons, click-depth
 * and inlinks ranges, has/misses a meta description or H1), each in and out and combined, checked
 * against the site's spec where it says (indexability, on-page fields) and against the rows
 * otherwise; sorting by every new column in both directions; getLinks and exportLinks with their
 * errors; getPageStats against the rows, after a reopen too; and a crawl that fetches no page, where
 * those filters match nothing without failing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { CrawlSettings, IndexabilityReason, UrlQuery, UrlRow, UrlSortKey } from '../../shared/model.js';
import { IndexabilityReasonSchema } from '../../shared/contract.js';
import { createCrawlService, type LocalCrawlService } from '../../electron/service/index.js';
import { ServiceError } from '../../electron/service/errors.js';
import { LINK_CSV_COLUMNS } from '../../electron/service/data/links-csv.js';
import { SPECIAL, startRealSite, type RealSite } from '../fixtures/real-site/site.js';
import { allRows, parseCsv, settled, tempDir } from './helpers.js';

type Filter = Omit<UrlQuery, 'offset' | 'limit'>;

function settings(site: RealSite, extra: Partial<CrawlSettings> = {}): Partial<CrawlSettings> & { startUrl: string } {
  return {
    startUrl: site.url('/'),
    userAgent: 'SpinneretRealSite/1.0',
    concurrency: 8,
    perHostConcurrency: 8,
    timeoutMs: 2000,
    connectTimeoutMs: 2000,
    retries: 0,
    ...extra,
  };
}

async function finished(service: LocalCrawlService, s: Partial<CrawlSettings> & { startUrl: string }): Promise<string> {
  const id = service.create({ settings: s }).id;
  const end = settled(service, id);
  await service.start(id);
  const summary = await end;
  assert.equal(summary.status, 'finished', JSON.stringify(summary.error));
  return id;
}

/** Every matching URL's id, in the view's order. */
function idsOf(service: LocalCrawlService, id: string, f: Filter): number[] {
  const out: number[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = service.queryUrls(id, { ...f, offset, limit: 1000 });
    out.push(...page.rows.map((r) => r.id));
    if (offset + 1000 >= page.total) return out;
  }
}

async function text(write: (out: Writable) => Promise<{ rows: number }>): Promise<{ rows: number; csv: string[][] }> {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk);
      cb();
    },
  });
  const { rows } = await write(out);
  return { rows, csv: parseCsv(Buffer.concat(chunks).toString('utf8')) };
}

const sortedIds = (rows: UrlRow[]) => rows.map((r) => r.id).sort((a, b) => a - b);

describe('page filters, sorts, links and page stats over a crawl of the realistic site', () => {
  let site: RealSite;
  let dir: string;
  let service: LocalCrawlService;
  let id: string;
  let rows: UrlRow[];
  const pathOf = (url: string) => (url.startsWith(site.origin + '/') ? url.slice(site.origin.length) : url);
  const fieldsOf = (r: UrlRow) => site.expected.fields[pathOf(r.url)];
  const where = (test: (r: UrlRow) => boolean) => sortedIds(rows.filter(test));
  const query = (f: Filter) => idsOf(service, id, f).sort((a, b) => a - b);

  before(async () => {
    site = await startRealSite();
    dir = tempDir();
    service = createCrawlService({ stateDir: dir });
    id = await finished(service, settings(site));
    rows = allRows(service, id);
  });
  after(async () => {
    await service.close();
    await site.close();
  });

  it("filters by indexability and each reason, as the site's spec says", () => {
    const expectIdx = (want: 'indexable' | 'non-indexable') => where((r) => fieldsOf(r)?.indexability === want);
    assert.ok(expectIdx('indexable').length > 20 && expectIdx('non-indexable').length > 5);
    assert.deepEqual(query({ indexability: 'indexable' }), expectIdx('indexable'));
    assert.deepEqual(query({ indexability: 'non-indexable' }), expectIdx('non-indexable'));
    const seen: IndexabilityReason[] = [];
    for (const reason of IndexabilityReasonSchema.options) {
      const want = where((r) => fieldsOf(r)?.indexabilityReason === reason);
      if (want.length) seen.push(reason);
      assert.deepEqual(query({ indexabilityReasons: [reason] }), want, reason);
      assert.deepEqual(query({ indexability: 'indexable', indexabilityReasons: [reason] }), [], `indexable AND ${reason}`);
    }
    assert.ok(seen.length >= 5, `the site has URLs for most reasons: ${seen.join(', ')}`);
    const two = seen.slice(0, 2);
    assert.deepEqual(
      query({ indexabilityReasons: two }),
      where((r) => two.includes(fieldsOf(r)?.indexabilityReason as IndexabilityReason)),
      'two reasons: either',
    );
    // A URL without a result (listed only, off-site) is neither.
    const unhandled = where((r) => r.indexability === undefined);
    assert.ok(unhandled.length > 0, 'the crawl lists URLs it does not fetch');
    for (const i of unhandled) assert.ok(!query({ indexability: 'indexable' }).includes(i) && !query({ indexability: 'non-indexable' }).includes(i));
  });

  it('filters by has / misses a meta description and an H1: fetched 2xx HTML pages only', () => {
    for (const [field, count] of [
      ['metaDescription', 'metaDescriptionCount'],
      ['h1', 'h1Count'],
    ] as const) {
      const pages = rows.filter((r) => fieldsOf(r)?.[count] !== undefined);
      const has = sortedIds(pages.filter((r) => (fieldsOf(r)![field] ?? '') !== ''));
      // Missing: none, or only empty ones. A page whose first is empty but a later one is not is neither here.
      const missing = sortedIds(pages.filter((r) => fieldsOf(r)![count] === 0 || (fieldsOf(r)![field] === '' && fieldsOf(r)![count] === 1)));
      assert.ok(has.length > 10 && missing.length > 0, `${field}: ${has.length} with, ${missing.length} without`);
      const gotHas = query({ [field]: 'has' });
      const gotMissing = query({ [field]: 'missing' });
      const clear = (ids: number[]) => ids.filter((i) => has.includes(i) || missing.includes(i));
      assert.deepEqual(clear(gotHas), has, `${field} has`);
      assert.deepEqual(clear(gotMissing), missing, `${field} missing`);
      // Every page is in exactly one of the two; nothing else is in either.
      assert.deepEqual(
        [...gotHas, ...gotMissing].sort((a, b) => a - b),
        sortedIds(pages),
        field,
      );
    }
    assert.deepEqual(
      query({ metaDescription: 'missing', h1: 'missing' }),
      query({ metaDescription: 'missing' }).filter((i) => query({ h1: 'missing' }).includes(i)),
    );
  });

  it('filters by click-depth and inlinks ranges, inclusive, open at either end', () => {
    const depths = rows.map((r) => r.clickDepth).filter((d): d is number => d !== undefined);
    const deepest = Math.max(...depths);
    assert.ok(deepest >= 2, `click depths up to ${deepest}`);
    assert.deepEqual(
      query({ clickDepth: { max: 0 } }),
      where((r) => r.url === site.url('/')),
      'the start URL alone at 0',
    );
    assert.deepEqual(
      query({ clickDepth: { min: 1, max: 2 } }),
      where((r) => r.clickDepth !== undefined && r.clickDepth >= 1 && r.clickDepth <= 2),
    );
    assert.deepEqual(
      query({ clickDepth: { min: deepest } }),
      where((r) => r.clickDepth === deepest),
    );
    assert.deepEqual(
      query({ clickDepth: {} }),
      where((r) => r.clickDepth !== undefined),
    );
    const none = where((r) => r.clickDepth === undefined);
    assert.ok(none.length > 0, 'some URLs are reached only through sitemaps');
    assert.ok(!query({ clickDepth: { min: 0 } }).some((i) => none.includes(i)));

    assert.deepEqual(
      query({ inlinks: { max: 0 } }),
      where((r) => r.inlinks === 0),
    );
    assert.deepEqual(
      query({ inlinks: { min: 10 } }),
      where((r) => (r.inlinks ?? -1) >= 10),
    );
    assert.deepEqual(
      query({ inlinks: { min: 2, max: 5 } }),
      where((r) => r.inlinks !== undefined && r.inlinks >= 2 && r.inlinks <= 5),
    );
    assert.ok(query({ inlinks: { min: 10 } }).length > 0 && query({ inlinks: { max: 0 } }).length > 0);
    assert.throws(
      () => service.queryUrls(id, { offset: 0, limit: 10, inlinks: { min: 5, max: 1 } }),
      (e: unknown) => e instanceof ServiceError && e.code === 'BAD_QUERY' && /inlinks/.test(e.message),
    );
  });

  it("lists the URLs without a click depth (the Overview's none bar), their complement, and refuses a range with it", async () => {
    const stats = await service.getPageStats(id);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const urlOf = (i: number) => byId.get(i)!.url;
    const none = query({ noClickDepth: true });
    assert.equal(service.queryUrls(id, { offset: 0, limit: 0, noClickDepth: true }).total, stats.noClickDepth, "getPageStats' count");
    assert.deepEqual(
      none,
      where((r) => r.clickDepth === undefined),
    );
    const paths = new Set(none.map((i) => pathOf(urlOf(i))));
    for (const p of [SPECIAL.discontinuedProduct, SPECIAL.orphan404, SPECIAL.orphan200]) assert.ok(paths.has(p), `${p} is listed only: no link reaches it`);
    assert.ok(!paths.has('/'), 'the start URL has click depth 0');
    const some = query({ noClickDepth: false });
    assert.deepEqual(some, query({ clickDepth: {} }), 'false: the URLs that have a click depth');
    assert.equal(none.length + some.length, rows.length, 'together: every URL once');
    assert.deepEqual(
      query({ noClickDepth: false, clickDepth: { min: 1, max: 2 } }),
      query({ clickDepth: { min: 1, max: 2 } }),
      'false with a range: the range',
    );
    assert.deepEqual(
      query({ noClickDepth: true, inSitemap: true }),
      where((r) => r.clickDepth === undefined && r.inSitemaps.length > 0),
      'with another filter by AND',
    );
    assert.deepEqual(
      idsOf(service, id, { noClickDepth: true, sort: { key: 'url', dir: 'desc' } }),
      [...none].sort((a, b) => (urlOf(a) < urlOf(b) ? 1 : -1)),
      'sorted',
    );
    for (const clickDepth of [{ min: 1 }, {}]) {
      assert.throws(
        () => service.queryUrls(id, { offset: 0, limit: 10, noClickDepth: true, clickDepth }),
        (e: unknown) => e instanceof ServiceError && e.code === 'BAD_QUERY' && /noClickDepth.*clickDepth.*never both match/.test(e.message),
        JSON.stringify(clickDepth),
      );
    }
    // The CSV of the filtered view holds the same URLs.
    const file = await text((out) => service.exportCsv(id, out, { noClickDepth: true }));
    assert.equal(file.rows, none.length);
    assert.deepEqual(
      file.csv
        .slice(1)
        .filter((l) => l.length > 1)
        .map((l) => l[0]),
      none.map(urlOf),
    );
    await assert.rejects(
      () => service.exportCsv(id, new Writable({ write: (_c, _e, cb) => cb() }), { noClickDepth: true, clickDepth: { max: 3 } }),
      (e: unknown) => e instanceof ServiceError && e.code === 'BAD_QUERY',
    );
  });

  it('combines the page filters with each other and with the older ones by AND', () => {
    const cases: [Filter, (r: UrlRow) => boolean][] = [
      [
        { indexability: 'indexable', h1: 'has', statuses: [200] },
        (r) => fieldsOf(r)?.indexability === 'indexable' && (fieldsOf(r)?.h1 ?? '') !== '' && r.status === 200,
      ],
      [
        { indexability: 'non-indexable', clickDepth: { max: 2 } },
        (r) => fieldsOf(r)?.indexability === 'non-indexable' && r.clickDepth !== undefined && r.clickDepth <= 2,
      ],
      [
        { inlinks: { min: 1 }, inSitemap: false, statusClasses: ['4xx'] },
        (r) => (r.inlinks ?? 0) >= 1 && r.inSitemaps.length === 0 && r.status! >= 400 && r.status! < 500,
      ],
      [
        { metaDescription: 'has', clickDepth: { min: 1 }, indexabilityReasons: ['canonicalised', 'noindex'] },
        (r) =>
          (fieldsOf(r)?.metaDescription ?? '') !== '' &&
          (r.clickDepth ?? -1) >= 1 &&
          ['canonicalised', 'noindex'].includes(fieldsOf(r)?.indexabilityReason ?? ''),
      ],
    ];
    for (const [f, test] of cases) assert.deepEqual(query(f), where(test), JSON.stringify(f));
  });

  it('sorts by each new column both ways, as the rows read, URLs without the value last', () => {
    const keys: UrlSortKey[] = ['inlinks', 'uniqueInlinks', 'outlinksInternal', 'outlinksExternal', 'clickDepth', 'indexability', 'indexabilityReason'];
    for (const key of keys) {
      const present = rows.filter((r) => r[key] !== undefined);
      const absent = rows.filter((r) => r[key] === undefined).map((r) => r.id);
      const asc = [...present].sort((a, b) => {
        const va = a[key] as number | string;
        const vb = b[key] as number | string;
        return va < vb ? -1 : va > vb ? 1 : a.id - b.id;
      });
      assert.ok(present.length > 0, key);
      assert.deepEqual(idsOf(service, id, { sort: { key, dir: 'asc' } }), [...asc.map((r) => r.id), ...absent], `${key} asc`);
      assert.deepEqual(idsOf(service, id, { sort: { key, dir: 'desc' } }), [...asc.reverse().map((r) => r.id), ...absent], `${key} desc`);
    }
  });

  it("answers a URL's inlinks and outlinks, and refuses a bad URL or direction with a code", async () => {
    const linked = rows.filter((r) => (r.inlinks ?? 0) > 0);
    for (const r of linked.slice(0, 10)) {
      const inl = await service.getLinks(id, r.id, 'in', 0, 5000);
      assert.equal(inl.total, r.inlinks, r.url);
      assert.equal(new Set(inl.rows.map((l) => l.fromId)).size, r.uniqueInlinks, `${r.url}: distinct linking pages`);
      assert.ok(inl.rows.every((l) => l.toUrl === r.url));
    }
    const home = rows.find((r) => r.url === site.url('/'))!;
    const out = await service.getLinks(id, home.id, 'out', 0, 5000);
    assert.equal(out.rows.filter((l) => !l.external).length, home.outlinksInternal);
    assert.equal(out.rows.filter((l) => l.external).length, home.outlinksExternal);
    const page = await service.getLinks(id, home.id, 'out', 2, 3);
    assert.deepEqual(page.rows, out.rows.slice(2, 5));

    const code = (c: string) => (e: unknown) => e instanceof ServiceError && e.code === c;
    await assert.rejects(service.getLinks(id, rows.length, 'in', 0, 10), code('NOT_FOUND'));
    await assert.rejects(service.getLinks(id, -1, 'in', 0, 10), code('NOT_FOUND'));
    await assert.rejects(service.getLinks(id, 0, 'up' as 'in', 0, 10), code('BAD_QUERY'));
    await assert.rejects(service.getLinks(id, 0, 'in', 0, 5001), code('BAD_QUERY'));
    await assert.rejects(service.getLinks('no-such-crawl', 0, 'in', 0, 10), code('NOT_FOUND'));
    const sink = new Writable({ write: (_c, _e, cb) => cb() });
    await assert.rejects(service.exportLinks(id, sink, { urlId: rows.length }), code('NOT_FOUND'));
    await assert.rejects(service.exportLinks(id, sink, { direction: 'out' }), code('BAD_QUERY'));
  });

  it("exports every link, or one URL's, as CSV with the columns of LINK_CSV_COLUMNS", async () => {
    const all = await text((out) => service.exportLinks(id, out));
    assert.deepEqual(all.csv[0], [...LINK_CSV_COLUMNS]);
    assert.equal(all.csv.length, all.rows + 1);
    let outs = 0;
    for (const r of rows) outs += (await service.getLinks(id, r.id, 'out', 0, 0)).total;
    assert.equal(all.rows, outs, "every page's links, once");
    const byUrl = new Map(rows.map((r) => [r.url, r]));
    for (const [source, target, , status, nofollow, external] of all.csv.slice(1)) {
      assert.ok(byUrl.has(source!), source);
      assert.ok(nofollow === 'true' || nofollow === 'false');
      assert.ok(external === 'true' || external === 'false');
      const t = byUrl.get(target!);
      if (t?.status !== undefined) assert.equal(status, String(t.status), target);
      else if (t?.state === 'error' || t?.state === 'blocked') assert.equal(status, t.state, target);
      else assert.equal(status, '', target);
    }
    assert.ok(
      all.csv.some((l) => l[5] === 'true'),
      'an external link',
    );

    const target = rows.filter((r) => (r.inlinks ?? 0) > 1)[0]!;
    const inl = await text((out) => service.exportLinks(id, out, { urlId: target.id }));
    assert.equal(inl.rows, target.inlinks);
    assert.ok(inl.csv.slice(1).every((l) => l[1] === target.url));
    const home = rows.find((r) => r.url === site.url('/'))!;
    const outl = await text((out) => service.exportLinks(id, out, { urlId: home.id, direction: 'out' }));
    assert.equal(outl.rows, (home.outlinksInternal ?? 0) + (home.outlinksExternal ?? 0));
    assert.deepEqual(
      outl.csv.slice(1),
      all.csv.slice(1).filter((l) => l[0] === home.url),
    );
  });

  it('lists and exports a duplicate finding group by group, as the finding does', async () => {
    await service.auditReady(id);
    for (const code of ['DUPLICATE_TITLE', 'DUPLICATE_META_DESCRIPTION'] as const) {
      const listed = service.findingUrls(id, code, 0, 1000).urls;
      const file = await text((out) => service.exportCsv(id, out, { finding: code }));
      const col = file.csv[0]!.indexOf(code === 'DUPLICATE_TITLE' ? 'title' : 'meta_description');
      const lines = file.csv.slice(1);
      assert.deepEqual(
        lines.map((l) => l[0]),
        listed,
        code,
      );
      // The URL table, unsorted, shows them in the same order; sorted, it sorts.
      const table = service.queryUrls(id, { offset: 0, limit: 1000, finding: code });
      assert.deepEqual(
        table.rows.map((r) => r.url),
        listed,
        `${code} in the table`,
      );
      const byIdRows = service.queryUrls(id, { offset: 0, limit: 1000, finding: code, sort: { key: 'id', dir: 'asc' } }).rows;
      assert.deepEqual(
        byIdRows.map((r) => r.id),
        [...byIdRows.map((r) => r.id)].sort((x, y) => x - y),
      );
      // Each text's pages are adjacent: a text seen once never comes back after another.
      const texts = lines.map((l) => l[col]!.trim());
      const done = new Set<string>();
      texts.forEach((t, i) => {
        if (i > 0 && texts[i - 1] !== t) done.add(texts[i - 1]!);
        assert.ok(!done.has(t), `${code}: "${t}" comes back at line ${i + 2}`);
      });
      assert.ok(new Set(texts).size >= 2, `${code}: the site has two groups or more`);
      // In id order (the URL table's) the groups interleave: the export does not follow it by chance.
      const byId = [...lines].sort((x, y) => byUrl(x[0]!) - byUrl(y[0]!)).map((l) => l[col]!.trim());
      assert.ok(
        byId.some((t, i) => i > 1 && t !== byId[i - 1] && byId.slice(0, i - 1).includes(t)),
        `${code}: the fixture's groups interleave by id`,
      );
    }
    function byUrl(url: string): number {
      return rows.find((r) => r.url === url)!.id;
    }
  });

  it('counts page stats that add up to the rows, and the same after a reopen', async () => {
    const stats = await service.getPageStats(id);
    const handled = rows.filter((r) => r.indexability !== undefined);
    assert.equal(stats.indexable + stats.nonIndexable.reduce((n, x) => n + x.count, 0), handled.length, 'every handled URL once');
    assert.equal(stats.indexable, rows.filter((r) => r.indexability === 'indexable').length);
    assert.deepEqual(
      stats.nonIndexable.map((x) => x.reason),
      IndexabilityReasonSchema.options,
    );
    for (const { reason, count } of stats.nonIndexable) {
      assert.equal(count, rows.filter((r) => r.indexabilityReason === reason).length, reason);
      assert.equal(count, Object.values(site.expected.fields).filter((f) => f.indexabilityReason === reason).length, `${reason}, as the spec says`);
    }
    assert.equal(stats.clickDepth.reduce((n, x) => n + x, 0) + stats.noClickDepth, rows.length);
    stats.clickDepth.forEach((n, d) => assert.equal(n, rows.filter((r) => r.clickDepth === d).length, `depth ${d}`));
    assert.equal(stats.noClickDepth, rows.filter((r) => r.clickDepth === undefined).length);

    const again = createCrawlService({ stateDir: dir });
    try {
      assert.deepEqual(await again.getPageStats(id), stats, 'a reopened crawl waits for its audit');
      assert.deepEqual(idsOf(again, id, { indexability: 'non-indexable' }), idsOf(service, id, { indexability: 'non-indexable' }));
    } finally {
      await again.close();
    }
  });
});

describe('a crawl that fetches no page', () => {
  it('matches nothing by what it cannot measure, without failing, and has no click depth', async () => {
    const site = await startRealSite();
    const service = createCrawlService({ stateDir: tempDir() });
    try {
      const id = await finished(service, settings(site, { fetchPages: false }));
      const n = service.queryUrls(id, { offset: 0, limit: 0 }).total;
      assert.ok(n > 50, `${n} URLs listed`);
      for (const f of [{ clickDepth: { min: 0 } }, { inlinks: { max: 0 } }, { inlinks: {} }, { h1: 'missing' }, { metaDescription: 'has' }] as Filter[]) {
        assert.equal(service.queryUrls(id, { offset: 0, limit: 10, ...f }).total, 0, JSON.stringify(f));
      }
      assert.deepEqual(idsOf(service, id, { sort: { key: 'clickDepth', dir: 'desc' } }), [...Array(n).keys()], 'nothing to sort by: id order');
      const stats = await service.getPageStats(id);
      assert.deepEqual(stats.clickDepth, []);
      assert.equal(stats.noClickDepth, n);
      // No link followed: no URL is reached by links, so every URL has no click depth (as counted).
      assert.equal(service.queryUrls(id, { offset: 0, limit: 0, noClickDepth: true }).total, n, 'no click depth: every URL');
      assert.equal(service.queryUrls(id, { offset: 0, limit: 0, noClickDepth: false }).total, 0, 'a click depth: none');
      const links = await text((out) => service.exportLinks(id, out));
      assert.equal(links.rows, 0);
      assert.deepEqual(links.csv, [[...LINK_CSV_COLUMNS]], 'the header alone');
    } finally {
      await service.close();
      await site.close();
    }
  });
});
