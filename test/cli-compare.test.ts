/**
 * `npm run crawl -- compare OLD NEW`, in process: the readable summary, --json (the CompareSummary),
 * --out (the CSV of the changed URLs), and refusals. The two crawls are the realistic site and the
 * same site changed (test/fixtures/real-site/changed.ts), made through the service in the same state
 * folder.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { CompareSummarySchema } from '../shared/contract.js';
import { runCli, type CliIo } from '../electron/cli/cli.js';
import { parseCli } from '../electron/cli/args.js';
import { COMPARE_CSV_COLUMNS } from '../electron/service/compare/comparisons.js';
import { createCrawlService } from '../electron/service/index.js';
import { startRealSite, type RealSite } from './fixtures/real-site/site.js';
import { CHANGES, changedRealSite } from './fixtures/real-site/changed.js';
import { parseCsv } from './service/helpers.js';

function io(): CliIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  return { stdout, stderr, onInterrupt: () => () => {}, out: () => out, err: () => err };
}

describe('CLI compare', { timeout: 120_000 }, () => {
  let site: RealSite;
  let dir: string;
  let oldId: string;
  let newId: string;
  before(async () => {
    site = await startRealSite();
    dir = mkdtempSync(join(tmpdir(), 'spinneret-cli-compare-'));
    const service = createCrawlService({ stateDir: dir, scheduler: false });
    const crawl = async (name: string) => {
      const c = service.create({ name, settings: { startUrl: site.url('/'), timeoutMs: 15_000, retries: 0, concurrency: 8, perHostConcurrency: 8 } });
      await new Promise<void>((resolve) => {
        service.on('finished', (s) => s.id === c.id && resolve());
        void service.start(c.id);
      });
      return c.id;
    };
    oldId = await crawl('before');
    site.serve(changedRealSite(site.spec));
    newId = await crawl('after');
    await service.close();
  });
  after(async () => {
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('parses compare OLD NEW with --json and --out, and refuses what is missing', () => {
    assert.deepEqual(parseCli(['compare', 'a', 'b']), { kind: 'compare', oldId: 'a', newId: 'b', stateDir: undefined, out: undefined, json: false });
    assert.deepEqual(parseCli(['compare', 'a', 'b', '--json', '--out', 'd.csv', '--state-dir', 's']), {
      kind: 'compare',
      oldId: 'a',
      newId: 'b',
      stateDir: 's',
      out: 'd.csv',
      json: true,
    });
    assert.throws(() => parseCli(['compare', 'a']), /two crawl IDs/);
    assert.throws(() => parseCli(['compare', 'a', 'b', 'c']), /Unexpected argument "c"/);
    assert.throws(() => parseCli(['compare', 'a', 'b', '--finding', 'X']), /--finding/);
    assert.throws(() => parseCli(['list', '--json']), /--json belongs to the audit, compare/);
  });

  it('prints what changed: URLs, fields, sitemaps, findings worse and better', async () => {
    const t = io();
    assert.equal(await runCli(['compare', oldId, newId, '--state-dir', dir], t), 0, t.err());
    const out = t.out();
    assert.match(out, new RegExp(`Compared crawl ${oldId} \\("before"\\) with ${newId} \\("after"\\)`));
    assert.match(out, /URLs: 235 -> 235: 2 added, 2 removed, 10 changed, 223 unchanged/);
    assert.match(out, /^ {2}lastmod +3$/m);
    assert.match(out, /^ {2}redirect target +1$/m);
    assert.match(out, /Sitemaps: 1 added, 1 removed, 2 changed, 3 unchanged/);
    assert.ok(out.includes(`+ ${site.url(CHANGES.addedSitemap)} (urlset, HTTP 200, 2 entries; URLs +2 -0)`), out);
    assert.ok(out.includes(`- ${site.url(CHANGES.droppedSitemap)} (urlset, HTTP 200, 4 entries; URLs +0 -4)`), out);
    assert.match(out, /Findings worse \(count rose\): \d+\n(.*\n)*? {2}warning +SITEMAP_URL_CANONICALISED {2}2 -> 3 \(1 entered, 0 left\)/);
    assert.match(out, /Findings better \(count fell\): \d+\n(.*\n)*? {2}critical +SITEMAP_URL_4XX {2}\d+ -> \d+ \(0 entered, 1 left\)/);
  });

  it('--json prints the CompareSummary; --out writes the CSV', async () => {
    const t = io();
    const csv = join(dir, 'diff.csv');
    assert.equal(await runCli(['compare', oldId, newId, '--json', '--out', csv, '--state-dir', dir], t), 0, t.err());
    const summary = CompareSummarySchema.parse(JSON.parse(t.out()));
    assert.deepEqual([summary.oldId, summary.newId, summary.urls.changed], [oldId, newId, 10]);
    const rows = parseCsv(readFileSync(csv, 'utf8'));
    assert.deepEqual(rows[0], [...COMPARE_CSV_COLUMNS]);
    assert.equal(rows.length, 1 + 14);
    const shipping = rows.find((r) => r[0] === site.url(CHANGES.redirected))!;
    const col = (name: string) => shipping[COMPARE_CSV_COLUMNS.indexOf(name)];
    assert.deepEqual(
      [shipping[1], shipping[2], col('status_before'), col('status_after'), col('redirect_to_after')],
      ['changed', 'status | redirectTo | indexability | canonical | title | h1', '200', '301', site.url(CHANGES.redirectTarget)],
    );
  });

  it('refuses unknown crawls with exit 2', async () => {
    const t = io();
    assert.equal(await runCli(['compare', oldId, 'nope', '--state-dir', dir], t), 2);
    assert.match(t.err(), /NOT_FOUND: No crawl with id "nope"/);
  });
});
