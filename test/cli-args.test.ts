import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseCli, USAGE, UsageError } from '../electron/cli/args.js';
import { CSV_COLUMNS } from '../electron/service/data/csv.js';
import { LINK_CSV_COLUMNS } from '../electron/service/data/links-csv.js';

test('a crawl with every option', () => {
  const cmd = parseCli([
    'https://site.test/',
    '--sitemap',
    'https://site.test/a.xml',
    '--sitemap',
    'https://site.test/b.xml',
    '--state-dir',
    '/tmp/s',
    '--out',
    'x.csv',
    '--concurrency',
    '16',
    '--max-urls',
    '100',
    '--max-depth',
    '3',
    '--no-pages',
    '--no-links',
    '--include',
    '^https://site\\.test/blog',
    '--exclude',
    '\\?sort=',
    '--user-agent',
    'MyBot/1.0',
    '--scope',
    'domain',
    '--ignore-robots',
    '--timeout',
    '20000',
    '--idle-timeout',
    '5000',
    '--sitemap-timeout',
    '900000',
  ]);
  assert.equal(cmd.kind, 'crawl');
  if (cmd.kind !== 'crawl') return;
  assert.deepEqual(cmd.settings, {
    startUrl: 'https://site.test/',
    sitemapUrls: ['https://site.test/a.xml', 'https://site.test/b.xml'],
    concurrency: 16,
    maxUrls: 100,
    maxDepth: 3,
    fetchPages: false,
    followLinks: false,
    include: ['^https://site\\.test/blog'],
    exclude: ['\\?sort='],
    userAgent: 'MyBot/1.0',
    scope: 'domain',
    respectRobots: false,
    timeoutMs: 20_000,
    idleTimeoutMs: 5000,
    sitemapTimeoutMs: 900_000,
  });
  assert.equal(cmd.stateDir, '/tmp/s');
  assert.equal(cmd.out, 'x.csv');
});

test('sitemap URLs alone are a valid start', () => {
  const cmd = parseCli(['--sitemap', 'http://127.0.0.1:8080/sitemap.xml']);
  assert.equal(cmd.kind === 'crawl' && cmd.settings.startUrl, '');
});

test('--no-sitemaps is links-only mode, and refuses combinations that make no sense', () => {
  const cmd = parseCli(['https://site.test/', '--no-sitemaps']);
  assert.equal(cmd.kind === 'crawl' && cmd.settings.useSitemaps, false);
  assert.throws(() => parseCli(['https://site.test/', '--no-sitemaps', '--sitemap', 'https://site.test/s.xml']), /cannot be combined/);
  assert.throws(() => parseCli(['https://site.test/', '--no-sitemaps', '--no-pages']), /would find nothing/);
});

test('subcommands', () => {
  assert.deepEqual(parseCli(['list', '--state-dir', 'd']), { kind: 'list', stateDir: 'd' });
  assert.deepEqual(parseCli(['resume']), { kind: 'resume', id: undefined, stateDir: undefined, out: undefined, quiet: false });
  assert.deepEqual(parseCli(['export', 'abc', '--out', 'f.csv']), { kind: 'export', id: 'abc', out: 'f.csv', stateDir: undefined });
  assert.deepEqual(parseCli(['delete', 'abc']), { kind: 'delete', id: 'abc', stateDir: undefined });
});

test("export --links: every link, or one URL's by id or URL, in or out", () => {
  const base = { kind: 'export', id: 'abc', out: 'l.csv', stateDir: undefined };
  assert.deepEqual(parseCli(['export', 'abc', '--links', '--out', 'l.csv']), { ...base, links: {} });
  assert.deepEqual(parseCli(['export', 'abc', '--links', '--url', '12', '--out', 'l.csv']), { ...base, links: { url: 12 } });
  assert.deepEqual(parseCli(['export', 'abc', '--links', '--url', ' https://Site.test/a ', '--direction', 'out', '--out', 'l.csv']), {
    ...base,
    links: { url: 'https://site.test/a', direction: 'out' },
  });
  assert.deepEqual(parseCli(['export', 'abc', '--links', '--url', '0', '--direction', 'in', '--out', 'l.csv']), {
    ...base,
    links: { url: 0, direction: 'in' },
  });
  assert.deepEqual(parseCli(['export', 'abc', '--links', '--finding', ' broken_internal_link ', '--out', 'l.csv']), {
    ...base,
    links: { finding: 'BROKEN_INTERNAL_LINK' },
  });
});

const filterOf = (argv: string[]) => {
  const cmd = parseCli(argv);
  return cmd.kind === 'export' ? cmd.filter : assert.fail(cmd.kind);
};

test("export takes the URL table's filters", () => {
  const base = { kind: 'export', id: 'abc', out: 'f.csv', stateDir: undefined };
  assert.deepEqual(parseCli(['export', 'abc', '--out', 'f.csv', '--status', '404, 410']), { ...base, filter: { statuses: [404, 410] } });
  assert.deepEqual(
    parseCli([
      'export',
      'abc',
      '--out',
      'f.csv',
      '--indexability',
      'non-indexable',
      '--reason',
      'noindex,canonicalised',
      '--click-depth',
      '2..5',
      '--inlinks',
      '..0',
      '--meta-description',
      'missing',
      '--h1',
      'has',
    ]),
    {
      ...base,
      filter: {
        indexability: 'non-indexable',
        indexabilityReasons: ['noindex', 'canonicalised'],
        clickDepth: { min: 2, max: 5 },
        inlinks: { max: 0 },
        metaDescription: 'missing',
        h1: 'has',
      },
    },
  );
  assert.deepEqual(filterOf(['export', 'abc', '--out', 'f.csv', '--click-depth', '3']), { clickDepth: { min: 3, max: 3 } });
  assert.deepEqual(filterOf(['export', 'abc', '--out', 'f.csv', '--inlinks', '10..']), { inlinks: { min: 10 } });
  assert.deepEqual(filterOf(['export', 'abc', '--out', 'f.csv', '--click-depth', 'none']), { noClickDepth: true }, 'none: the URLs without a click depth');
  assert.deepEqual(filterOf(['export', 'abc', '--out', 'f.csv', '--click-depth', ' None ', '--status', '200']), { statuses: [200], noClickDepth: true });
});

test('the help says --click-depth takes none', () => {
  const at = USAGE.indexOf('  --click-depth N|MIN..MAX|none');
  assert.ok(at >= 0, USAGE);
  const lines = USAGE.slice(at).split('\n').slice(0, 3);
  assert.match(lines.join(' ').replace(/\s+/g, ' '), /none: the URLs without one \(no chain of links from the start URL reaches them\)/);
  for (const line of lines) assert.ok(line.length <= 100, `a line over 100 characters: ${line}`);
});

test('bad arguments are refused with a message a person can act on', () => {
  const bad: [string[], RegExp][] = [
    [[], /start URL/],
    [['not a url'], /not a valid URL/],
    [['ftp://site.test/'], /http:\/\/ or https:\/\//],
    [['https://site.test/', '--concurrency', '0'], /--concurrency takes a whole number/],
    [['https://site.test/', '--max-urls', '1.5'], /--max-urls/],
    [['https://site.test/', '--scope', 'planet'], /--scope must be host, domain or any/],
    [['https://site.test/', '--sitemap-timeout', '10m'], /--sitemap-timeout takes a whole number from 100 to 3600000/],
    [['https://site.test/', '--idle-timeout', '0'], /--idle-timeout takes a whole number/],
    [['https://site.test/', '--include', '(unclosed'], /not a valid regular expression/],
    [['https://site.test/', '--frobnicate'], /frobnicate/],
    [['https://site.test/', 'https://other.test/'], /Unexpected argument/],
    [['export', 'abc'], /--out/],
    [['export', 'abc', '--links'], /--out/],
    [['export', 'abc', '--url', '3', '--out', 'l.csv'], /add --links/],
    [['export', 'abc', '--links', '--direction', 'in', '--out', 'l.csv'], /--direction needs --url/],
    [['export', 'abc', '--links', '--url', '3', '--direction', 'sideways', '--out', 'l.csv'], /--direction must be in .* or out/],
    [['export', 'abc', '--links', '--url', 'page.html', '--out', 'l.csv'], /--url "page.html" is not a valid URL/],
    [['export', 'abc', '--links', '--url', 'ftp://site.test/', '--out', 'l.csv'], /--url .* must be an http/],
    [['export', 'abc', '--links', '--url', '99999999999', '--out', 'l.csv'], /--url takes a whole number/],
    [['export', 'abc', '--links', '--finding', 'MISSING_TITLE', '--out', 'l.csv'], /"MISSING_TITLE" has no links export: only BROKEN_INTERNAL_LINK/],
    [['export', 'abc', '--links', '--finding', 'NO_SUCH', '--out', 'l.csv'], /"NO_SUCH" has no links export/],
    [['export', 'abc', '--links', '--finding', 'LINK_TO_REDIRECT', '--url', '3', '--out', 'l.csv'], /give the finding alone/],
    [['export', 'abc', '--finding', 'LINK_TO_REDIRECT', '--out', 'l.csv'], /--finding to audit \(and to export --links\)/],
    [['https://site.test/', '--links'], /belong to the export command/],
    [['audit', 'abc', '--url', '1'], /belong to the export command/],
    [['export', 'abc', '--out', 'f.csv', '--status', '4xx'], /--status takes a whole number from 100 to 999/],
    [['export', 'abc', '--out', 'f.csv', '--status', '404,'], /--status takes a comma-separated list/],
    [['export', 'abc', '--out', 'f.csv', '--indexability', 'maybe'], /--indexability must be indexable or non-indexable/],
    [['export', 'abc', '--out', 'f.csv', '--reason', 'noindex,lazy'], /--reason "lazy" is not a reason.*canonicalised/],
    [['export', 'abc', '--out', 'f.csv', '--click-depth', '5..2'], /--click-depth: 5 is above 2/],
    [['export', 'abc', '--out', 'f.csv', '--click-depth', '..'], /--click-depth takes N, MIN..MAX/],
    [
      ['export', 'abc', '--out', 'f.csv', '--click-depth', 'nowhere'],
      /--click-depth takes N, MIN..MAX, MIN.. or ..MAX in whole numbers, or none \(the URLs without a click depth\) \(got "nowhere"\)/,
    ],
    [['export', 'abc', '--out', 'f.csv', '--inlinks', 'none'], /--inlinks takes N, MIN..MAX, MIN.. or ..MAX in whole numbers \(got "none"\)/],
    [['https://site.test/', '--click-depth', 'none'], /--click-depth none: URL filters belong to the export of URLs/],
    [['export', 'abc', '--out', 'f.csv', '--inlinks', 'many'], /--inlinks takes N, MIN..MAX/],
    [['export', 'abc', '--out', 'f.csv', '--h1', 'yes'], /--h1 must be has or missing/],
    [['export', 'abc', '--out', 'f.csv', '--links', '--h1', 'has'], /--h1: URL filters belong to the export of URLs.*not to --links/],
    [['https://site.test/', '--status', '404'], /--status: URL filters belong to the export of URLs/],
    [['audit', 'abc', '--indexability', 'indexable'], /not to audit/],
    [['delete'], /crawl ID/],
  ];
  for (const [argv, re] of bad) {
    assert.throws(
      () => parseCli(argv),
      (e: unknown) => e instanceof UsageError && re.test(e.message),
      argv.join(' '),
    );
  }
});

test('the help lists the URL CSV columns, all of them in order, from the one column list', () => {
  const at = USAGE.indexOf('URL CSV columns');
  assert.ok(at >= 0, 'the help has a section for the CSV columns');
  const lines = USAGE.slice(USAGE.indexOf('\n', at) + 1).split('\n');
  const section = lines.slice(
    0,
    lines.findIndex((l) => l.trim() === ''),
  );
  assert.equal(section.map((l) => l.trim()).join(''), CSV_COLUMNS.join(','));
  for (const line of section) assert.ok(line.length <= 100, `a line over 100 characters: ${line}`);
});

test('the help lists the links CSV columns, in order, from the one column list', () => {
  const at = USAGE.indexOf('Links CSV columns');
  assert.ok(at >= 0, 'the help has a section for the links CSV columns');
  const lines = USAGE.slice(USAGE.indexOf('\n', at) + 1).split('\n');
  const section = lines.slice(
    0,
    lines.findIndex((l) => l.trim() === ''),
  );
  assert.equal(section.map((l) => l.trim()).join(''), LINK_CSV_COLUMNS.join(','));
});

test('the README shows the links CSV header exactly as the export writes it', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const shown = /links CSV\s+header is always `([^`]+)`/.exec(readme)?.[1];
  assert.equal(shown, LINK_CSV_COLUMNS.join(','));
});
