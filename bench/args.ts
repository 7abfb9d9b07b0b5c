/**
 * Command-line options of `npm run bench -- …`.
 */
import { resolve } from 'node:path';

export interface BenchArgs {
  /** Distinct URLs in the measured sitemaps. */
  urls: number;
  /** Linked HTML pages for the page crawl. */
  pages: number;
  /** URLs of the tail sitemap, read after the pause (so the paused crawl has something left to fetch). */
  tail: number;
  /** Host name the sitemaps use; it must resolve to 127.0.0.1. */
  host: string;
  /** Page-crawl concurrency. */
  concurrency: number;
  /** Keep the state folders (for inspection) instead of deleting them. */
  keep: boolean;
  /** Print only the JSON line. */
  jsonOnly: boolean;
  /** Parse sitemaps on the engine's thread instead of the parse worker (SPINNERET_PARSE_WORKER=0), to compare. */
  parseOnMain: boolean;
  /** Folder for per-phase CPU profiles and a heap snapshot at N URLs; null: none. */
  profile: string | null;
  /** Phases to run (ingest always runs); figures of the others are left out. For profiling one phase. */
  phases: Set<Phase>;
}

/** recrawl: the ingested crawl recrawled with every sitemap answering 304; compare: it compared with that recrawl (runs recrawl too). */
export const PHASES = ['ingest', 'tokenizer', 'reopen', 'recrawl', 'compare', 'pages'] as const;
export type Phase = (typeof PHASES)[number];

const USAGE =
  'Usage: npm run bench -- [--urls N] [--pages N] [--tail N] [--host NAME] [--concurrency N] [--keep] [--json-only] [--parse-on-main] [--profile DIR] [--only ingest,tokenizer,reopen,recrawl,compare,pages]';

function whole(name: string, value: string | undefined, min: number): number {
  const n = Number(value?.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number ≥ ${min} (got "${value ?? ''}"). ${USAGE}`);
  return n;
}

/** Parses the options; throws with the usage line on a bad one. */
export function parseBenchArgs(argv: string[]): BenchArgs {
  const a: BenchArgs = {
    urls: 1_000_000,
    pages: 20_000,
    tail: -1,
    host: 'localhost',
    concurrency: 32,
    keep: false,
    jsonOnly: false,
    parseOnMain: false,
    profile: null,
    phases: new Set(PHASES),
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const value = () => (eq === -1 ? argv[++i] : arg.slice(eq + 1));
    switch (name) {
      case '--urls':
        a.urls = whole('urls', value(), 1000);
        break;
      case '--pages':
        a.pages = whole('pages', value(), 1);
        break;
      case '--tail':
        a.tail = whole('tail', value(), 1);
        break;
      case '--host':
        a.host = value() ?? '';
        break;
      case '--concurrency':
        a.concurrency = whole('concurrency', value(), 1);
        break;
      case '--keep':
        a.keep = true;
        break;
      case '--parse-on-main':
        a.parseOnMain = true;
        break;
      case '--json-only':
        a.jsonOnly = true;
        break;
      case '--only': {
        const names = (value() ?? '').split(',').filter(Boolean);
        const bad = names.find((n) => !(PHASES as readonly string[]).includes(n));
        if (names.length === 0 || bad !== undefined) throw new Error(`--only takes phases from ${PHASES.join(', ')} (got "${bad ?? ''}"). ${USAGE}`);
        a.phases = new Set(['ingest', ...names] as Phase[]);
        break;
      }
      case '--profile':
        a.profile = value() || null;
        if (!a.profile) throw new Error(`--profile needs a folder. ${USAGE}`);
        a.profile = resolve(a.profile);
        break;
      default:
        throw new Error(`Unknown option "${arg}". ${USAGE}`);
    }
  }
  if (a.pages > a.urls) throw new Error(`--pages (${a.pages}) cannot exceed --urls (${a.urls}): the pages are listed in the sitemaps.`);
  // Enough tail that the pause, taken once N URLs are in, always lands inside it.
  if (a.tail < 0) a.tail = Math.min(50_000, Math.max(10_000, Math.round(a.urls / 10)));
  return a;
}
