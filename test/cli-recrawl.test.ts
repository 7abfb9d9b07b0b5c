/**
 * `npm run crawl -- recrawl ID [--changed-only] [--fail-on …] [--json]`, in process, on the realistic
 * site served with validators: the arguments and their refusals, the comparison printed at the end,
 * and exit code 3 when the chosen findings got worse (a listed page that answers 404 now raises the
 * critical SITEMAP_URL_4XX), 0 when they did not.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { CompareSummarySchema, CrawlSummarySchema } from '../shared/contract.js';
import { runCli, type CliIo } from '../electron/cli/cli.js';
import { parseCli, USAGE } from '../electron/cli/args.js';
import { EXIT_WORSE } from '../electron/cli/recrawl.js';
import { createCrawlService } from '../electron/service/index.js';
import { startRealSite, type RealSite } from './fixtures/real-site/site.js';

function io(): CliIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  return { stdout, stderr, onInterrupt: () => () => {}, out: () => out, err: () => err };
}

/** A listed page of the site that answers 200 in the base crawl and 404 in the recrawl. */
const BROKEN = '/about/';

describe('CLI recrawl', { timeout: 180_000 }, () => {
  let site: RealSite;
  let dir: string;
  let baseId: string;
  before(async () => {
    site = await startRealSite({ conditional: 'honour' });
    dir = mkdtempSync(join(tmpdir(), 'spinneret-cli-recrawl-'));
    const service = createCrawlService({ stateDir: dir, scheduler: false });
    const c = service.create({ name: 'weekly', settings: { startUrl: site.url('/'), timeoutMs: 2000, retries: 0, concurrency: 8, perHostConcurrency: 8 } });
    await new Promise<void>((resolve) => {
      service.on('finished', (s) => s.id === c.id && resolve());
      void service.start(c.id);
    });
    const row = service.queryUrls(c.id, { offset: 0, limit: 10, search: BROKEN }).rows.find((r) => r.url === site.url(BROKEN));
    assert.ok(row && row.status === 200 && row.inSitemaps.length > 0, `${BROKEN} is a listed 200 page`);
    baseId = c.id;
    await service.close();
  });
  after(async () => {
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('parses recrawl ID with --changed-only, --fail-on and --json, and refuses the rest', () => {
    assert.deepEqual(parseCli(['recrawl', 'a']), {
      kind: 'recrawl',
      id: 'a',
      changedOnly: false,
      failOn: { severity: 'critical' },
      json: false,
      quiet: false,
      stateDir: undefined,
    });
    assert.deepEqual(parseCli(['recrawl', 'a', '--changed-only', '--fail-on', 'warning', '--json', '--state-dir', 's']), {
      kind: 'recrawl',
      id: 'a',
      changedOnly: true,
      failOn: { severity: 'warning' },
      json: true,
      quiet: true,
      stateDir: 's',
    });
    assert.deepEqual((parseCli(['recrawl', 'a', '--fail-on', 'sitemap_url_4xx,MISSING_H1']) as { failOn: unknown }).failOn, {
      codes: ['SITEMAP_URL_4XX', 'MISSING_H1'],
    });
    assert.throws(() => parseCli(['recrawl']), /recrawl needs the ID/);
    assert.throws(() => parseCli(['recrawl', 'a', 'b']), /Unexpected argument "b"/);
    assert.throws(() => parseCli(['recrawl', 'a', '--fail-on', 'NO_SUCH']), /NO_SUCH is not one/);
    assert.throws(() => parseCli(['list', '--changed-only']), /belong to the recrawl command/);
    assert.throws(() => parseCli(['audit', 'a', '--fail-on', 'critical']), /belong to the recrawl command/);
    assert.match(USAGE, /recrawl ID \[--changed-only\]/);
    assert.match(USAGE, /3 recrawl: the findings chosen by --fail-on got worse/);
  });

  it('an unknown crawl is refused with exit code 2', async () => {
    const t = io();
    assert.equal(await runCli(['recrawl', 'nope', '--state-dir', dir], t), 2);
    assert.match(t.err(), /NOT_FOUND/);
  });

  it('exits 0 when nothing got worse, 3 when a critical finding rose, and --fail-on picks the findings', async () => {
    const same = io();
    assert.equal(await runCli(['recrawl', baseId, '--state-dir', dir, '--quiet'], same), 0, same.err());
    assert.match(same.out(), /Compared crawl /);
    assert.match(same.out(), /Nothing worse than last time \(critical findings\)/);

    // A listed page answers 404 from now on: SITEMAP_URL_4XX (critical) rises.
    const spec = structuredClone(site.spec);
    spec.pages.find((p) => p.path === BROKEN)!.status = 404;
    site.serve(spec);
    const worse = io();
    assert.equal(await runCli(['recrawl', baseId, '--state-dir', dir, '--quiet'], worse), EXIT_WORSE, worse.err());
    assert.match(worse.out(), /Worse than last time \(critical findings\): .*SITEMAP_URL_4XX/);
    assert.match(worse.out(), /SITEMAP_URL_4XX +\d+ -> \d+/);

    const other = io();
    assert.equal(await runCli(['recrawl', baseId, '--state-dir', dir, '--quiet', '--fail-on', 'MISSING_H1', '--changed-only'], other), 0, other.err());
    assert.match(other.out(), /, changed only/);

    const json = io();
    assert.equal(await runCli(['recrawl', baseId, '--state-dir', dir, '--json', '--fail-on', 'SITEMAP_URL_4XX'], json), EXIT_WORSE, json.err());
    const parsed = JSON.parse(json.out()) as { crawl: unknown; comparison: unknown; worse: string[] };
    const crawl = CrawlSummarySchema.parse(parsed.crawl);
    assert.equal(crawl.baseId, baseId);
    CompareSummarySchema.parse(parsed.comparison);
    assert.deepEqual(parsed.worse, ['SITEMAP_URL_4XX']);
  });
});
