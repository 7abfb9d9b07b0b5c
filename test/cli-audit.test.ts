/**
 * `npm run crawl -- audit ID`, in process: the findings table (not-measured rows shown as such), JSON,
 * the table as CSV, and one finding's URLs exported with the columns of `export`; unknown codes and
 * crawls refused with exit 2. The crawl is a sitemap-listing run of the audit site made through the
 * service in the same state folder, so the expected findings come from the site's data.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { AuditFinding } from '../shared/model.js';
import { runCli, type CliIo } from '../electron/cli/cli.js';
import { AUDIT_CSV_COLUMNS } from '../electron/cli/audit-format.js';
import { CSV_COLUMNS } from '../electron/service/data/csv.js';
import { createCrawlService } from '../electron/service/index.js';
import { expectedAudit, startAuditSite, type AuditSite } from './fixtures/audit-site.js';
import { parseCsv } from './service/helpers.js';
import { PAGE_FINDING_CODES } from '../electron/service/audit/types.js';

/** The audit site's listing run, and the page findings (issue 22), which a listing run cannot measure. */
function listingAudit(origin: string): ReturnType<typeof expectedAudit> {
  const out = expectedAudit(origin, 'listing');
  for (const code of PAGE_FINDING_CODES) out[code] = { measured: false, urls: [] };
  return out;
}

function io(): CliIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  return { stdout, stderr, onInterrupt: () => () => {}, out: () => out, err: () => err };
}

describe('CLI audit', () => {
  let site: AuditSite;
  let dir: string;
  let id: string;
  before(async () => {
    site = await startAuditSite();
    dir = mkdtempSync(join(tmpdir(), 'spinneret-cli-audit-'));
    const service = createCrawlService({ stateDir: dir });
    // No page is fetched, so a generous timeout: a busy machine must not cut a sitemap short.
    const c = service.create({
      settings: { startUrl: site.url('/'), fetchPages: false, retries: 0, timeoutMs: 10_000, concurrency: 6, perHostConcurrency: 6 },
    });
    id = c.id;
    await new Promise<void>((resolve) => {
      service.on('finished', (s) => s.id === id && resolve());
      void service.start(id);
    });
    await service.close();
  });
  after(async () => {
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the findings table: severity, code, count, explanation; not-measured ones say so and why', async () => {
    const t = io();
    assert.equal(await runCli(['audit', id, '--state-dir', dir], t), 0, t.err());
    const expected = listingAudit(site.origin);
    const out = t.out();
    const found = Object.values(expected).filter((f) => f.measured && f.urls.length > 0).length;
    assert.match(out, new RegExp(`^Audit of crawl ${id} \\(finished\\): ${found} of 43 findings with problems, 26 not measured`));
    assert.match(out, /^SEVERITY\s+CODE\s+COUNT\s+EXPLANATION$/m);
    for (const [code, ex] of Object.entries(expected)) {
      const line = out.split('\n').find((l) => l.split(/\s+/)[1] === code);
      assert.ok(line, `a line for ${code}`);
      if (ex.measured) assert.match(line, new RegExp(`^(critical|warning|notice)\\s+${code}\\s+${ex.urls.length}\\s+\\S`), line);
      else assert.match(line, new RegExp(`^(critical|warning|notice)\\s+${code}\\s+not measured\\s+Pages were not fetched`), line);
    }
    assert.match(out, /^critical\s+SITEMAP_URL_4XX/m, 'critical first');
  });

  it('--json prints every finding; --out writes the table as CSV', async () => {
    const t = io();
    assert.equal(await runCli(['audit', id, '--state-dir', dir, '--json'], t), 0, t.err());
    const json = JSON.parse(t.out()) as { crawl: { id: string }; findings: AuditFinding[] };
    assert.equal(json.crawl.id, id);
    const expected = listingAudit(site.origin);
    assert.deepEqual(
      Object.fromEntries(json.findings.map((f) => [f.code, [f.measured, f.count]])),
      Object.fromEntries(Object.entries(expected).map(([code, ex]) => [code, [ex.measured, ex.urls.length]])),
    );

    const file = join(dir, 'findings.csv');
    const c = io();
    assert.equal(await runCli(['audit', id, '--state-dir', dir, '--out', file], c), 0, c.err());
    assert.match(c.out(), /Wrote 43 findings/);
    const [header, ...rows] = parseCsv(readFileSync(file, 'utf8'));
    assert.deepEqual(header, [...AUDIT_CSV_COLUMNS]);
    assert.equal(rows.length, 43);
    const dup = rows.find((r) => r[1] === 'DUPLICATE_IN_SITEMAP')!;
    assert.deepEqual([dup[0], dup[4], dup[5]], ['notice', String(expected.DUPLICATE_IN_SITEMAP!.urls.length), 'true']);
    const gone = rows.find((r) => r[1] === 'SITEMAP_URL_4XX')!;
    assert.deepEqual([gone[4], gone[5]], ['0', 'false']);
    assert.match(gone[7]!, /not fetched/);
  });

  it("--finding CODE --out FILE.csv exports exactly that finding's URLs, with the columns of export", async () => {
    const file = join(dir, 'dup.csv');
    const t = io();
    // Codes are matched whatever their case.
    assert.equal(await runCli(['audit', id, '--state-dir', dir, '--finding', 'duplicate_in_sitemap', '--out', file], t), 0, t.err());
    const [header, ...rows] = parseCsv(readFileSync(file, 'utf8'));
    assert.deepEqual(header, [...CSV_COLUMNS]);
    assert.deepEqual(rows.map((r) => r[0]).sort(), expectedAudit(site.origin, 'listing').DUPLICATE_IN_SITEMAP!.urls);
    assert.match(t.out(), new RegExp(`Wrote ${rows.length} rows \\(DUPLICATE_IN_SITEMAP\\)`));
  });

  it('refuses an unknown code, an unknown crawl and contradictory options with exit 2', async () => {
    const bad = io();
    assert.equal(await runCli(['audit', id, '--state-dir', dir, '--finding', 'NOPE', '--out', join(dir, 'x.csv')], bad), 2);
    assert.match(bad.err(), /"NOPE" is not an audit finding\. Known codes: SITEMAP_URL_4XX, .*SITEMAP_NOT_IN_ROBOTS/);
    const missing = io();
    assert.equal(await runCli(['audit', 'no-such-crawl', '--state-dir', dir], missing), 2);
    assert.match(missing.err(), /NOT_FOUND/);
    for (const argv of [
      ['audit'],
      ['audit', id, '--json', '--out', 'x.csv'],
      ['audit', id, '--finding', 'SITEMAP_ORPHAN'],
      ['audit', id, '--finding', 'SITEMAP_ORPHAN', '--json'],
      [site.url('/'), '--json'],
    ]) {
      const t = io();
      assert.equal(await runCli([...argv, '--state-dir', dir], t), 2, argv.join(' '));
      assert.match(t.err(), /audit|--json|--finding/, argv.join(' '));
    }
  });
});
