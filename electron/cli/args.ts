/**
 * Parses the headless CLI's arguments into a command. Pure: no I/O, so every refusal is testable.
 */
import { parseArgs } from 'node:util';
import { LINK_FINDING_CODES, type CrawlSettings, type IndexabilityReason, type Range, type ScopeMode, type UrlFilter } from '../../shared/model.js';
import { IndexabilityReasonSchema } from '../../shared/contract.js';
import { FINDING_DEFINITIONS } from '../service/audit/definitions.js';
import { CSV_COLUMNS } from '../service/data/csv.js';
import { checkLinksExport, LINK_CSV_COLUMNS } from '../service/data/links-csv.js';
import type { FailOn } from './recrawl.js';

export class UsageError extends Error {
  readonly code = 'BAD_ARGUMENT';
}

/** `export --links`: every link of the crawl, one URL's (by id or by URL) in one direction, or a finding's. */
export interface LinksChoice {
  /** A URL id of the crawl, or a URL to look up in it; absent: every link. */
  url?: number | string;
  direction?: 'in' | 'out';
  /** A code of LINK_FINDING_CODES: every link to that finding's URLs. */
  finding?: string;
}

export type CliCommand =
  | {
      kind: 'crawl';
      settings: Partial<CrawlSettings> & Pick<CrawlSettings, 'startUrl'>;
      name?: string;
      stateDir?: string;
      out?: string;
      quiet: boolean;
      /** List mode: the file of URLs (one a line, or a CSV's first column). */
      list?: string;
    }
  | { kind: 'export-crawl'; id: string; file: string; stateDir?: string }
  | { kind: 'import-crawl'; file: string; stateDir?: string }
  | { kind: 'list'; stateDir?: string }
  | { kind: 'resume'; id?: string; stateDir?: string; out?: string; quiet: boolean }
  | { kind: 'export'; id: string; out: string; stateDir?: string; links?: LinksChoice; filter?: UrlFilter }
  | { kind: 'delete'; id: string; stateDir?: string }
  | { kind: 'audit'; id: string; stateDir?: string; out?: string; json: boolean; finding?: string }
  | { kind: 'compare'; oldId: string; newId: string; stateDir?: string; out?: string; json: boolean }
  | { kind: 'recrawl'; id: string; changedOnly: boolean; failOn: FailOn; json: boolean; quiet: boolean; stateDir?: string }
  | { kind: 'help' };

export const USAGE = `Usage:
  npm run crawl -- <url> [options]            crawl a site (robots.txt, its sitemaps, its pages)
  npm run crawl -- --sitemap URL [options]    start from a sitemap directly (robots.txt discovery skipped)
  npm run crawl -- crawl --list FILE [--follow-links] [options]   list mode: fetch the URLs of a file
  npm run crawl -- list [--state-dir DIR]
  npm run crawl -- resume [ID] [--state-dir DIR] [--out FILE.csv]
  npm run crawl -- export ID --out FILE.csv [URL filters] [--state-dir DIR]
  npm run crawl -- export ID --links [--url ID|URL [--direction in|out]] --out FILE.csv [--state-dir DIR]
  npm run crawl -- export ID --links --finding CODE --out FILE.csv [--state-dir DIR]
  npm run crawl -- delete ID [--state-dir DIR]
  npm run crawl -- export-crawl ID FILE.spinneret [--state-dir DIR]   save a crawl as one file
  npm run crawl -- import-crawl FILE.spinneret [--state-dir DIR]      open a crawl file as a new crawl
  npm run crawl -- audit ID [--state-dir DIR] [--json | --out FILE.csv]
  npm run crawl -- audit ID --finding CODE --out FILE.csv [--state-dir DIR]
  npm run crawl -- compare OLD NEW [--json] [--out diff.csv] [--state-dir DIR]   what changed between two crawls
  npm run crawl -- recrawl ID [--changed-only] [--fail-on CODES|critical|warning] [--json] [--state-dir DIR]
                                              crawl ID again, then print what changed since (exit 3: worse)

Crawl options:
  --sitemap URL         a sitemap to start from (repeatable)
  --state-dir DIR       where crawls are kept (default: the app's own data folder)
  --out FILE.csv        write the URLs to a CSV file when the crawl ends
  --name NAME           a name for the crawl
  --concurrency N       requests in flight at once (default 8)
  --max-urls N          stop admitting URLs after N
  --max-depth N         follow links at most N clicks from the start URL
  --no-pages            list sitemaps only: fetch robots.txt and sitemaps, no pages
  --no-links            fetch pages but do not follow their links
  --no-sitemaps         links only: discover pages by following links, as a browser would
  --include RE          only URLs matching this regular expression (repeatable)
  --exclude RE          skip URLs matching this regular expression (repeatable)
  --user-agent UA       the User-Agent header (robots.txt rules are matched against it)
  --scope host|domain|any   which links to follow (default host)
  --ignore-robots       do not apply robots.txt rules
  --delay MS            minimum delay between two requests to one host
  --timeout MS          one attempt of a page or robots.txt, headers and body (default 15000)
  --idle-timeout MS     the longest wait for a byte of any response (default 30000)
  --sitemap-timeout MS  one attempt of a sitemap, headers and body (default 600000)
  --quiet               no progress output
  --list FILE           list mode: fetch the URLs of FILE (one a line, or a CSV's first column), not a site
  --follow-links        with --list: follow the links of the listed pages (within the list's hosts)

Export options:
  --links               export links (one row per <a href>) instead of URLs: every link of the crawl
  --url ID|URL          with --links: only this URL's links (its id in the crawl, or the URL itself)
  --direction in|out    with --url: the links to it (in, the default) or the links on its page (out)
  --finding CODE        with --links: every link to the URLs of that finding, one of
                        ${LINK_FINDING_CODES.join(', ')}

URL filters of export (those of the URL table; given together, a URL must match each):
  --status CODE[,CODE…]       exact HTTP statuses (404 is not 410)
  --indexability indexable|non-indexable
  --reason R[,R…]             non-indexable for one of these reasons:
${wrapList(IndexabilityReasonSchema.options, ', ', 100, ' '.repeat(30))}
  --click-depth N|MIN..MAX|none
                              click depth in a range (MIN.. or ..MAX: open at one end); none: the
                              URLs without one (no chain of links from the start URL reaches them)
  --inlinks N|MIN..MAX        inlinks (every link to the URL) in a range
  --meta-description has|missing
  --h1 has|missing            fetched 2xx HTML pages with, or without, a non-empty one

Recrawl options:
  --changed-only        fetch only URLs that are new, whose sitemap lastmod moved, or that failed last
                        time; every other URL keeps its last answer (carried over, no request)
  --fail-on WHAT        which findings make the exit code 3 when their count rose: critical (the
                        default: any critical finding), warning (critical or warning ones), or a
                        comma-separated list of finding codes
  --json                print the comparison as JSON

Audit options:
  --json                print the findings as JSON
  --out FILE.csv        write the findings table as CSV
  --finding CODE        with --out: export the URLs of one finding (the columns of export)

URL CSV columns (export, --out of a crawl or resume, audit --finding), in this order:
${wrapList(CSV_COLUMNS, ',', 100, '  ')}

Links CSV columns (export --links), in this order:
${wrapList(LINK_CSV_COLUMNS, ',', 100, '  ')}

Exit codes: 0 done (or paused by Ctrl-C), 1 the crawl failed or another error, 2 bad usage or an
unknown crawl, 3 recrawl: the findings chosen by --fail-on got worse than in the crawl recrawled.
`;

/** `items` joined by `sep`, in lines of at most `width` characters (a line ends after a separator). */
function wrapList(items: readonly string[], sep: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = indent;
  items.forEach((item, i) => {
    const piece = item + (i < items.length - 1 ? sep : '');
    if (line.length > indent.length && line.length + piece.length > width) {
      lines.push(line.trimEnd());
      line = indent;
    }
    line += piece;
  });
  lines.push(line);
  return lines.join('\n');
}

const SUBCOMMANDS = new Set(['list', 'resume', 'export', 'delete', 'audit', 'compare', 'recrawl', 'help', 'export-crawl', 'import-crawl']);

/** Turns argv (after `npm run crawl --`) into a command, or throws UsageError with a message. */
export function parseCli(argv: string[]): CliCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        sitemap: { type: 'string', multiple: true },
        list: { type: 'string' },
        'follow-links': { type: 'boolean' },
        'state-dir': { type: 'string' },
        out: { type: 'string' },
        name: { type: 'string' },
        concurrency: { type: 'string' },
        'max-urls': { type: 'string' },
        'max-depth': { type: 'string' },
        'no-pages': { type: 'boolean' },
        'no-links': { type: 'boolean' },
        'no-sitemaps': { type: 'boolean' },
        include: { type: 'string', multiple: true },
        exclude: { type: 'string', multiple: true },
        'user-agent': { type: 'string' },
        scope: { type: 'string' },
        'ignore-robots': { type: 'boolean' },
        delay: { type: 'string' },
        timeout: { type: 'string' },
        'idle-timeout': { type: 'string' },
        'sitemap-timeout': { type: 'string' },
        quiet: { type: 'boolean' },
        json: { type: 'boolean' },
        finding: { type: 'string' },
        links: { type: 'boolean' },
        status: { type: 'string' },
        indexability: { type: 'string' },
        reason: { type: 'string' },
        'click-depth': { type: 'string' },
        inlinks: { type: 'string' },
        'meta-description': { type: 'string' },
        h1: { type: 'string' },
        url: { type: 'string' },
        direction: { type: 'string' },
        'changed-only': { type: 'boolean' },
        'fail-on': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values: v, positionals } = parsed;
  if (v.help) return { kind: 'help' };
  const stateDir = v['state-dir'];
  // `crawl URL` and `crawl --list FILE` are the crawl without a subcommand, named.
  if (positionals[0] === 'crawl') positionals.shift();
  const first = positionals[0];
  if ((v.list !== undefined || v['follow-links']) && first && SUBCOMMANDS.has(first)) {
    throw new UsageError(`--list and --follow-links belong to a list crawl (npm run crawl -- crawl --list FILE), not to ${first}.`);
  }

  if (
    (first !== 'audit' && !(first === 'export' && v.links) && v.finding !== undefined) ||
    (v.json && first !== 'audit' && first !== 'compare' && first !== 'recrawl')
  ) {
    throw new UsageError('--json belongs to the audit, compare and recrawl commands, --finding to audit (and to export --links).');
  }
  if (first !== 'recrawl' && (v['changed-only'] || v['fail-on'] !== undefined)) {
    throw new UsageError('--changed-only and --fail-on belong to the recrawl command: npm run crawl -- recrawl ID --changed-only');
  }
  if (first !== 'export' && (v.links || v.url !== undefined || v.direction !== undefined)) {
    throw new UsageError('--links, --url and --direction belong to the export command: npm run crawl -- export ID --links --out FILE.csv');
  }
  const filter = urlFilter(v);
  if (filter && (first !== 'export' || v.links)) {
    throw new UsageError(
      `${Object.keys(filter).map(flagOf).join(', ')}: URL filters belong to the export of URLs (npm run crawl -- export ID --out FILE.csv --status 404), not to ${v.links ? '--links' : first && SUBCOMMANDS.has(first) ? first : 'a crawl'}.`,
    );
  }
  if (first && SUBCOMMANDS.has(first)) {
    const rest = positionals.slice(1);
    switch (first) {
      case 'help':
        return { kind: 'help' };
      case 'list':
        noMore(rest, 0, 'list');
        return { kind: 'list', stateDir };
      case 'resume':
        noMore(rest, 1, 'resume');
        return { kind: 'resume', id: rest[0], stateDir, out: v.out, quiet: !!v.quiet };
      case 'export':
        noMore(rest, 1, 'export');
        if (!rest[0]) throw new UsageError('export needs the crawl ID: npm run crawl -- export ID --out FILE.csv');
        if (!v.out) throw new UsageError('export needs --out FILE.csv');
        if (v.links || v.url !== undefined || v.direction !== undefined) {
          return { kind: 'export', id: rest[0], out: v.out, stateDir, links: linksChoice(!!v.links, v.url, v.direction, v.finding) };
        }
        return filter ? { kind: 'export', id: rest[0], out: v.out, stateDir, filter } : { kind: 'export', id: rest[0], out: v.out, stateDir };
      case 'delete':
        noMore(rest, 1, 'delete');
        if (!rest[0]) throw new UsageError('delete needs the crawl ID: npm run crawl -- delete ID');
        return { kind: 'delete', id: rest[0], stateDir };
      case 'export-crawl':
        noMore(rest, 2, 'export-crawl');
        if (!rest[0] || !rest[1]) throw new UsageError('export-crawl needs the crawl ID and a file: npm run crawl -- export-crawl ID FILE.spinneret');
        return { kind: 'export-crawl', id: rest[0], file: rest[1], stateDir };
      case 'import-crawl':
        noMore(rest, 1, 'import-crawl');
        if (!rest[0]) throw new UsageError('import-crawl needs the crawl file: npm run crawl -- import-crawl FILE.spinneret');
        return { kind: 'import-crawl', file: rest[0], stateDir };
      case 'compare':
        noMore(rest, 2, 'compare');
        if (!rest[0] || !rest[1]) throw new UsageError('compare needs two crawl IDs, the older first: npm run crawl -- compare OLD NEW');
        return { kind: 'compare', oldId: rest[0], newId: rest[1], stateDir, out: v.out, json: !!v.json };
      case 'recrawl':
        noMore(rest, 1, 'recrawl');
        if (!rest[0]) throw new UsageError('recrawl needs the ID of the crawl to crawl again: npm run crawl -- recrawl ID');
        return {
          kind: 'recrawl',
          id: rest[0],
          changedOnly: !!v['changed-only'],
          failOn: failOn(v['fail-on']),
          json: !!v.json,
          quiet: !!v.quiet || !!v.json,
          stateDir,
        };
      case 'audit':
        noMore(rest, 1, 'audit');
        if (!rest[0]) throw new UsageError('audit needs the crawl ID: npm run crawl -- audit ID');
        return { kind: 'audit', id: rest[0], stateDir, out: v.out, json: !!v.json, ...auditFinding(v.finding, v.out, !!v.json) };
    }
  }

  noMore(positionals.slice(1), 0, 'a crawl (one start URL)');
  const sitemaps = (v.sitemap ?? []).map((u) => httpUrl(u, '--sitemap'));
  if (v['follow-links'] && v.list === undefined)
    throw new UsageError('--follow-links belongs to a list crawl: add --list FILE (a site crawl follows links unless --no-links).');
  if (v.list !== undefined) {
    if (!v.list.trim()) throw new UsageError('--list takes a file of URLs: npm run crawl -- crawl --list urls.txt');
    if (first) throw new UsageError(`A list crawl fetches the URLs of its file: drop the start URL "${first}", or put it in the list.`);
    if (v['no-sitemaps'] || v['no-links'] || v['no-pages']) {
      throw new UsageError(
        '--no-sitemaps, --no-links and --no-pages are for a site crawl; a list crawl fetches its URLs and follows links only with --follow-links.',
      );
    }
  }
  const startUrl = first ? httpUrl(first, 'the start URL') : '';
  if (!startUrl && sitemaps.length === 0 && v.list === undefined) {
    throw new UsageError('Give a start URL (npm run crawl -- https://example.org/) or --sitemap URL.');
  }
  const settings: CliCommand & { kind: 'crawl' } = {
    kind: 'crawl',
    settings: { startUrl, sitemapUrls: sitemaps },
    name: v.name,
    stateDir,
    out: v.out,
    quiet: !!v.quiet,
  };
  const s = settings.settings;
  if (v.concurrency !== undefined) s.concurrency = int(v.concurrency, '--concurrency', 1, 256);
  if (v['max-urls'] !== undefined) s.maxUrls = int(v['max-urls'], '--max-urls', 1, Number.MAX_SAFE_INTEGER);
  if (v['max-depth'] !== undefined) s.maxDepth = int(v['max-depth'], '--max-depth', 0, 10_000);
  if (v.delay !== undefined) s.delayMs = int(v.delay, '--delay', 0, 3_600_000);
  if (v.timeout !== undefined) s.timeoutMs = int(v.timeout, '--timeout', 100, 3_600_000);
  if (v['idle-timeout'] !== undefined) s.idleTimeoutMs = int(v['idle-timeout'], '--idle-timeout', 100, 3_600_000);
  if (v['sitemap-timeout'] !== undefined) s.sitemapTimeoutMs = int(v['sitemap-timeout'], '--sitemap-timeout', 100, 3_600_000);
  if (v['no-pages']) s.fetchPages = false;
  if (v['no-links']) s.followLinks = false;
  if (v['no-sitemaps']) {
    if (sitemaps.length) throw new UsageError('--no-sitemaps cannot be combined with --sitemap.');
    if (v['no-pages']) throw new UsageError('--no-sitemaps with --no-pages would find nothing: drop one of them.');
    s.useSitemaps = false;
  }
  if (v.include) s.include = v.include.map((p) => pattern(p, '--include'));
  if (v.exclude) s.exclude = v.exclude.map((p) => pattern(p, '--exclude'));
  if (v['user-agent'] !== undefined) {
    if (!v['user-agent'].trim()) throw new UsageError('--user-agent must not be empty.');
    s.userAgent = v['user-agent'];
  }
  if (v.scope !== undefined) {
    if (!['host', 'domain', 'any'].includes(v.scope)) throw new UsageError(`--scope must be host, domain or any (got "${v.scope}").`);
    s.scope = v.scope as ScopeMode;
  }
  if (v['ignore-robots']) s.respectRobots = false;
  if (v.list !== undefined) {
    s.mode = 'list';
    s.followLinks = !!v['follow-links'];
    settings.list = v.list;
  }
  return settings;
}

const FILTER_FLAGS: Record<string, string> = {
  statuses: '--status',
  indexability: '--indexability',
  indexabilityReasons: '--reason',
  clickDepth: '--click-depth',
  noClickDepth: '--click-depth none',
  inlinks: '--inlinks',
  metaDescription: '--meta-description',
  h1: '--h1',
};
const flagOf = (key: string) => FILTER_FLAGS[key] ?? key;

/** The URL filters given (as the URL table's query has them), or undefined when none is. */
function urlFilter(v: Record<string, string | boolean | string[] | undefined>): UrlFilter | undefined {
  const f: UrlFilter = {};
  const str = (k: string) => v[k] as string | undefined;
  if (str('status') !== undefined) {
    f.statuses = list(str('status')!, '--status').map((c) => int(c, '--status', 100, 999));
  }
  if (str('indexability') !== undefined) {
    const x = str('indexability')!.trim();
    if (x !== 'indexable' && x !== 'non-indexable') throw new UsageError(`--indexability must be indexable or non-indexable (got "${x}").`);
    f.indexability = x;
  }
  if (str('reason') !== undefined) {
    f.indexabilityReasons = list(str('reason')!, '--reason').map((r) => {
      if (!(IndexabilityReasonSchema.options as readonly string[]).includes(r)) {
        throw new UsageError(`--reason "${r}" is not a reason a URL is non-indexable. Known: ${IndexabilityReasonSchema.options.join(', ')}.`);
      }
      return r as IndexabilityReason;
    });
  }
  const depth = str('click-depth');
  if (depth !== undefined) {
    if (depth.trim().toLowerCase() === 'none') f.noClickDepth = true;
    else f.clickDepth = range(depth, '--click-depth', 'none (the URLs without a click depth)');
  }
  if (str('inlinks') !== undefined) f.inlinks = range(str('inlinks')!, '--inlinks');
  for (const [flag, key] of [
    ['meta-description', 'metaDescription'],
    ['h1', 'h1'],
  ] as const) {
    const x = str(flag)?.trim();
    if (x === undefined) continue;
    if (x !== 'has' && x !== 'missing') throw new UsageError(`--${flag} must be has or missing (got "${x}").`);
    f[key] = x;
  }
  return Object.keys(f).length ? f : undefined;
}

/** A comma-separated list, none of it empty. */
function list(value: string, flag: string): string[] {
  const items = value.split(',').map((x) => x.trim());
  if (items.some((x) => !x)) throw new UsageError(`${flag} takes a comma-separated list without empty items (got "${value}").`);
  return items;
}

/** `N` (exactly N), `MIN..MAX`, `MIN..` or `..MAX`: whole numbers, MIN ≤ MAX. `other`: another form the flag takes, for its error. */
function range(value: string, flag: string, other?: string): Range {
  const t = value.trim();
  const m = /^(\d*)\.\.(\d*)$/.exec(t);
  const forms = other ? `N, MIN..MAX, MIN.. or ..MAX in whole numbers, or ${other}` : 'N, MIN..MAX, MIN.. or ..MAX in whole numbers';
  const usage = `${flag} takes ${forms} (got "${value}").`;
  if (!m) {
    if (!/^\d+$/.test(t)) throw new UsageError(usage);
    const n = int(t, flag, 0, 0xffff_ffff);
    return { min: n, max: n };
  }
  if (!m[1] && !m[2]) throw new UsageError(usage);
  const r: Range = {};
  if (m[1]) r.min = int(m[1], flag, 0, 0xffff_ffff);
  if (m[2]) r.max = int(m[2], flag, 0, 0xffff_ffff);
  if (r.min !== undefined && r.max !== undefined && r.min > r.max) throw new UsageError(`${flag}: ${r.min} is above ${r.max}; write MIN..MAX.`);
  return r;
}

/** Checks --url (an id or an http(s) URL), --direction (in or out, with --url) and --finding, all with --links. */
function linksChoice(links: boolean, url: string | undefined, direction: string | undefined, finding: string | undefined): LinksChoice {
  if (!links) throw new UsageError('--url and --direction choose which links to export: add --links.');
  const choice: LinksChoice = {};
  if (finding !== undefined) {
    const code = finding.trim().toUpperCase();
    try {
      checkLinksExport({ finding: code, ...(url !== undefined ? { urlId: 0 } : {}), ...(direction === 'in' || direction === 'out' ? { direction } : {}) });
    } catch (e) {
      throw new UsageError(`--finding: ${(e as Error).message}`);
    }
    return { finding: code };
  }
  if (url !== undefined) {
    const t = url.trim();
    choice.url = /^\d+$/.test(t) ? int(t, '--url', 0, 0xffff_ffff) : httpUrl(t, '--url');
  }
  if (direction !== undefined) {
    if (choice.url === undefined) throw new UsageError('--direction needs --url: it says which links of that URL to export.');
    if (direction !== 'in' && direction !== 'out') {
      throw new UsageError(`--direction must be in (the links to the URL) or out (the links on its page), not "${direction}".`);
    }
    choice.direction = direction;
  }
  return choice;
}

/** Checks --finding (a known code, with --out) and --json (not with --out). */
function auditFinding(code: string | undefined, out: string | undefined, json: boolean): { finding?: string } {
  if (json && out) throw new UsageError('--json prints to the terminal and --out writes a CSV file: choose one.');
  if (code === undefined) return {};
  if (json || !out) throw new UsageError("--finding CODE exports that finding's URLs: give --out FILE.csv (and no --json).");
  const finding = code.trim().toUpperCase();
  if (!FINDING_DEFINITIONS.some((d) => d.code === finding)) {
    throw new UsageError(`--finding "${code}" is not an audit finding. Known codes: ${FINDING_DEFINITIONS.map((d) => d.code).join(', ')}.`);
  }
  return { finding };
}

/** --fail-on: critical (the default), warning, or a comma-separated list of known finding codes. */
function failOn(value: string | undefined): FailOn {
  const t = value?.trim().toLowerCase();
  if (t === undefined || t === 'critical') return { severity: 'critical' };
  if (t === 'warning') return { severity: 'warning' };
  const codes = list(value!, '--fail-on').map((c) => c.toUpperCase());
  const unknown = codes.filter((c) => !FINDING_DEFINITIONS.some((d) => d.code === c));
  if (unknown.length) {
    const known = FINDING_DEFINITIONS.map((d) => d.code).join(', ');
    throw new UsageError(`--fail-on takes critical, warning or finding codes; ${unknown.join(', ')} is not one. Known codes: ${known}.`);
  }
  return { codes };
}

function noMore(rest: string[], allowed: number, what: string): void {
  if (rest.length > allowed) throw new UsageError(`Unexpected argument "${rest[allowed]}" for ${what}.`);
}

function httpUrl(value: string, what: string): string {
  let u: URL;
  try {
    u = new URL(value.trim());
  } catch {
    throw new UsageError(`${what} "${value}" is not a valid URL: write it in full, e.g. https://example.org/`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new UsageError(`${what} "${value}" must be an http:// or https:// address.`);
  }
  return u.href;
}

function int(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} takes a whole number from ${min} to ${max} (got "${value}").`);
  }
  return n;
}

function pattern(p: string, flag: string): string {
  try {
    new RegExp(p);
  } catch (err) {
    throw new UsageError(`${flag} "${p}" is not a valid regular expression: ${(err as Error).message}`);
  }
  return p;
}
