/**
 * The CLI's list mode (`crawl --list FILE [--follow-links]`) and crawl files (`export-crawl ID FILE`,
 * `import-crawl FILE`) on the realistic site: the migration check of the README (an old crawl's URL
 * CSV checked against the site), a crawl file round trip into another state folder, refusals.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runCli, type CliIo } from '../electron/cli/cli.js';
import { parseCli, UsageError } from '../electron/cli/args.js';
import { SPECIAL, startRealSite, type RealSite } from './fixtures/real-site/site.js';
import { parseCsv } from './service/helpers.js';

function io(): CliIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  return { stdout, stderr, onInterrupt: () => () => undefined, out: () => out, err: () => err };
}

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'spinneret-cli-list-'));
  dirs.push(d);
  return d;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('CLI arguments: --list, --follow-links, export-crawl, import-crawl', () => {
  it('parses them', () => {
    const c = parseCli(['crawl', '--list', 'urls.txt', '--follow-links', '--concurrency', '2']);
    assert.equal(c.kind, 'crawl');
    assert.equal(c.kind === 'crawl' && c.list, 'urls.txt');
    assert.deepEqual(c.kind === 'crawl' && [c.settings.mode, c.settings.followLinks, c.settings.startUrl], ['list', true, '']);
    const plain = parseCli(['crawl', '--list', 'urls.txt']);
    assert.equal(plain.kind === 'crawl' && plain.settings.followLinks, false);
    assert.deepEqual(parseCli(['export-crawl', 'ID', 'x.spinneret']), { kind: 'export-crawl', id: 'ID', file: 'x.spinneret', stateDir: undefined });
    assert.deepEqual(parseCli(['import-crawl', 'x.spinneret', '--state-dir', '/s']), { kind: 'import-crawl', file: 'x.spinneret', stateDir: '/s' });
    // `crawl URL` is the crawl without a subcommand.
    assert.equal(parseCli(['crawl', 'https://example.org/']).kind, 'crawl');
  });

  it('refuses what does not go together', () => {
    const bad: [string[], RegExp][] = [
      [['crawl', '--follow-links', 'https://example.org/'], /--follow-links belongs to a list crawl/],
      [['crawl', '--list', 'u.txt', 'https://example.org/'], /drop the start URL/],
      [['crawl', '--list', 'u.txt', '--no-links'], /for a site crawl/],
      [['crawl', '--list', ''], /takes a file of URLs/],
      [['export', 'ID', '--out', 'a.csv', '--list', 'u.txt'], /belong to a list crawl/],
      [['export-crawl', 'ID'], /needs the crawl ID and a file/],
      [['import-crawl'], /needs the crawl file/],
      [['import-crawl', 'a', 'b'], /Unexpected argument "b"/],
    ];
    for (const [argv, message] of bad)
      assert.throws(
        () => parseCli(argv),
        (e: Error) => e instanceof UsageError && message.test(e.message),
        argv.join(' '),
      );
  });
});

describe('CLI list mode and crawl files on the realistic site', () => {
  let site: RealSite;
  before(async () => {
    site = await startRealSite();
  });
  after(() => site.close());

  it("checks an old crawl's URL CSV against the site, saves it as a file, opens it elsewhere", { timeout: 90_000 }, async () => {
    const dir = tmp();
    const state = join(dir, 'state');
    // The old site's URLs, as an export of an earlier crawl would list them (a CSV, url first).
    const old = join(dir, 'old-urls.csv');
    const paths = ['/', '/about/', SPECIAL.oldProductUrl, SPECIAL.orphan404, SPECIAL.discontinuedProduct, '/about/'];
    writeFileSync(old, 'url,status,title\n' + paths.map((p, i) => `${site.url(p)},200,"Page ${i}, old"`).join('\n') + '\n');
    const t = io();
    assert.equal(await runCli(['crawl', '--list', old, '--state-dir', state, '--out', join(dir, 'check.csv'), '--quiet'], t), 0, t.err());
    const id = /Crawl (\S+) \(5 URLs of /.exec(t.out())?.[1];
    assert.ok(id, t.out());
    const rows = parseCsv(readFileSync(join(dir, 'check.csv'), 'utf8'));
    const header = rows[0]!;
    const at = (name: string) => header.indexOf(name);
    const status = new Map(rows.slice(1).map((r) => [r[at('url')]!.replace(site.origin, ''), r[at('status')]]));
    assert.equal(status.get('/'), '200');
    assert.equal(status.get(SPECIAL.oldProductUrl), '301');
    assert.equal(status.get(SPECIAL.oldProductTarget), '200', 'the redirect target is checked too');
    assert.equal(status.get(SPECIAL.orphan404), '404');
    assert.equal(status.get(SPECIAL.discontinuedProduct), '410');
    assert.equal(status.get('/shop/'), undefined, 'links were not followed');

    // Saved as one file, opened in another state folder: the same CSV.
    const file = join(dir, 'check.spinneret');
    const ex = io();
    assert.equal(await runCli(['export-crawl', id, file, '--state-dir', state], ex), 0, ex.err());
    assert.match(ex.out(), new RegExp(`Saved crawl ${id} to .*check.spinneret \\(\\d+ bytes\\)`));
    const other = join(dir, 'other');
    const im = io();
    assert.equal(await runCli(['import-crawl', file, '--state-dir', other], im), 0, im.err());
    const newId = /as crawl (\S+) \(/.exec(im.out())?.[1];
    assert.ok(newId && newId !== id, im.out());
    assert.match(im.out(), /finished/);
    const ex2 = io();
    assert.equal(await runCli(['export', newId, '--out', join(dir, 'again.csv'), '--state-dir', other], ex2), 0, ex2.err());
    assert.equal(readFileSync(join(dir, 'again.csv'), 'utf8'), readFileSync(join(dir, 'check.csv'), 'utf8'));

    // A damaged file is refused (exit 1, BAD_CRAWL_FILE) and adds nothing.
    const cut = join(dir, 'cut.spinneret');
    writeFileSync(cut, readFileSync(file).subarray(0, 200));
    const before = readdirSync(join(other, 'crawls')).length;
    const bad = io();
    assert.equal(await runCli(['import-crawl', cut, '--state-dir', other], bad), 1);
    assert.match(bad.err(), /BAD_CRAWL_FILE: The crawl file is truncated/);
    assert.equal(readdirSync(join(other, 'crawls')).length, before);
    // An unknown crawl or a missing file: exit 2, and no file left behind.
    const none = io();
    assert.equal(await runCli(['export-crawl', 'nope', join(dir, 'nope.spinneret'), '--state-dir', state], none), 2);
    assert.equal(existsSync(join(dir, 'nope.spinneret')), false);
    assert.equal(await runCli(['import-crawl', join(dir, 'missing.spinneret'), '--state-dir', other], io()), 2);
  });

  it('follows links with --follow-links; a bad list is BAD_LIST naming its lines (exit 2)', { timeout: 90_000 }, async () => {
    const dir = tmp();
    const list = join(dir, 'urls.txt');
    writeFileSync(list, `# start here\n${site.url('/about/')}\n`);
    const t = io();
    assert.equal(
      await runCli(['crawl', '--list', list, '--follow-links', '--max-urls', '60', '--state-dir', dir, '--out', join(dir, 'f.csv'), '--quiet'], t),
      0,
      t.err(),
    );
    const rows = parseCsv(readFileSync(join(dir, 'f.csv'), 'utf8'));
    assert.ok(rows.length > 40, `${rows.length - 1} URLs`);

    writeFileSync(list, `${site.url('/')}\n/about/\nwww.example.com/x\n`);
    const bad = io();
    assert.equal(await runCli(['crawl', '--list', list, '--state-dir', dir], bad), 2);
    assert.match(
      bad.err(),
      /BAD_LIST: 2 lines of the list in .*urls.txt are not an absolute http\(s\) URL: line 2 \("\/about\/"\), line 3 \("www.example.com\/x"\)/,
    );
  });
});
