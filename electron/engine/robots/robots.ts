/**
 * robots.txt per RFC 9309, with the Google parser's documented leniencies (the conformance suite
 * in ../shared/conformance/robots-ctc.json is Google's): missing colons, common key typos,
 * `index.html` allowing its directory, `*` followed by more text still being the global agent.
 */
import type { RobotsTxt } from '../types.js';

/** One allow/disallow line, pattern already percent-normalised. */
interface Rule {
  pattern: string;
  allow: boolean;
  /** Pattern length in octets: the longest match wins. */
  priority: number;
  /** A final `$`: the path must end where the pattern does. */
  anchored: boolean;
  /** The pattern (without a final `$`) split at `*`: one piece when it has no wildcard. */
  pieces: string[];
}

/** Consecutive user-agent lines and the rules that follow them. */
interface Group {
  /** Lowercased product tokens named by the group (the `*` agent is kept in `global`). */
  agents: string[];
  global: boolean;
  rules: Rule[];
  crawlDelay?: number;
}

/**
 * How much of a robots.txt is read: RFC 9309 asks for at least 500 KiB. Past this many characters
 * the body is cut at the last complete line, so a rule is never read half-written.
 */
export const MAX_ROBOTS_CHARS = 512 * 1024;

/** Parses a robots.txt body. `robotsUrl` resolves relative Sitemap: lines. Never throws. */
export function parseRobotsTxt(body: string, robotsUrl: string): RobotsTxt {
  const groups: Group[] = [];
  const sitemaps: string[] = [];
  const seenSitemaps = new Set<string>();
  let current: Group | null = null;
  // A user-agent line after a rule starts a new group; consecutive ones share a group.
  let sawRule = false;

  let text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  if (text.length > MAX_ROBOTS_CHARS) text = cutAtLastLine(text, MAX_ROBOTS_CHARS);

  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const kv = keyAndValue(rawLine);
    if (kv === null) continue;
    const key = keyKind(kv.key);
    const value = kv.value;
    switch (key) {
      case 'user-agent': {
        if (current === null || sawRule) {
          current = { agents: [], global: false, rules: [] };
          groups.push(current);
          sawRule = false;
        }
        if (value.charCodeAt(0) === 42 /* * */ && (value.length === 1 || isSpace(value.charCodeAt(1)))) {
          current.global = true;
        } else {
          const token = /^[A-Za-z_-]*/.exec(value)![0].toLowerCase();
          if (token !== '') current.agents.push(token);
        }
        break;
      }
      case 'allow':
      case 'disallow': {
        if (current === null) break; // rules before any user-agent line belong to no group
        sawRule = true;
        if (value === '') break; // an empty pattern matches nothing (RFC 9309 2.2.2)
        const pattern = normalizePattern(value);
        current.rules.push(compileRule(pattern, key === 'allow'));
        if (key === 'allow') {
          // Google: allowing /dir/index.htm(l) allows /dir/ as well.
          const slash = pattern.lastIndexOf('/');
          if (slash !== -1 && pattern.startsWith('/index.htm', slash)) {
            const dir = pattern.slice(0, slash + 1) + '$';
            current.rules.push(compileRule(dir, true));
          }
        }
        break;
      }
      case 'crawl-delay': {
        if (current === null) break;
        // Counts as a rule line, so `User-agent: a / Crawl-delay: 5 / User-agent: b / Crawl-delay: 1`
        // gives each agent its own delay (Google ignores the key; merging would give b a's delay).
        sawRule = true;
        if (current.crawlDelay !== undefined) break;
        const n = Number(value);
        if (value !== '' && Number.isFinite(n) && n >= 0) current.crawlDelay = n;
        break;
      }
      case 'sitemap': {
        const abs = resolveSitemap(value, robotsUrl);
        if (abs !== null && !seenSitemaps.has(abs)) {
          seenSitemaps.add(abs);
          sitemaps.push(abs);
        }
        break;
      }
      default:
        break; // unknown keys are ignored (RFC 9309 2.2.4)
    }
  }
  return new ParsedRobots(groups, sitemaps);
}

/** The groups that apply to one product token, merged. */
interface Selection {
  rules: Rule[];
  crawlDelay?: number;
}

class ParsedRobots implements RobotsTxt {
  private readonly byToken = new Map<string, Selection>();
  private readonly byAgent = new Map<string, Selection>();

  constructor(
    private readonly groups: Group[],
    readonly sitemaps: string[],
  ) {}

  isAllowed(url: string, userAgent: string): boolean {
    const path = normalizeUrlPath(pathParamsQuery(url ?? ''));
    if (path === '/robots.txt') return true;
    const { rules } = this.select(userAgent ?? '');
    let allow = 0;
    let disallow = 0;
    for (const rule of rules) {
      if (rule.allow ? rule.priority <= allow : rule.priority <= disallow) continue;
      if (!matches(path, rule)) continue;
      if (rule.allow) allow = rule.priority;
      else disallow = rule.priority;
    }
    // Longest match wins; on a tie Allow wins (RFC 9309 2.2.2).
    return disallow <= allow;
  }

  crawlDelay(userAgent: string): number | undefined {
    return this.select(userAgent ?? '').crawlDelay;
  }

  /** Groups naming the agent's product token; else the `*` groups; else nothing (all allowed). */
  private select(userAgent: string): Selection {
    const cached = this.byAgent.get(userAgent);
    if (cached) return cached;
    const token = productToken(userAgent);
    let sel = this.byToken.get(token);
    if (sel) return sel;
    let chosen = token === '' ? [] : this.groups.filter((g) => g.agents.includes(token));
    if (chosen.length === 0) chosen = this.groups.filter((g) => g.global);
    sel = {
      rules: chosen.flatMap((g) => g.rules),
      crawlDelay: chosen.find((g) => g.crawlDelay !== undefined)?.crawlDelay,
    };
    if (this.byToken.size < 64) {
      this.byToken.set(token, sel);
      this.byAgent.set(userAgent, sel);
    }
    return sel;
  }
}

/**
 * The product token a user agent is matched by, lowercased: `Spinneret/1.2 (+https://…)` →
 * `spinneret`, `Spinneret (+https://…)` → `spinneret`. A string of several bare words such as
 * `Foo Bar` is not reduced to `foo` (Google's suite expects it to match no group); it is kept whole
 * and so only the `*` group applies to it.
 */
function productToken(userAgent: string): string {
  const ua = userAgent.trim();
  const m = /^([^\s/]+)(?:\/|\s*\(|$)/.exec(ua);
  return (m ? m[1]! : ua).toLowerCase();
}

// ---------------------------------------------------------------- lines

const KEYS: Record<string, 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'crawl-delay'> = {
  'user-agent': 'user-agent',
  useragent: 'user-agent',
  'user agent': 'user-agent',
  allow: 'allow',
  disallow: 'disallow',
  // Frequent typos accepted by Google's parser.
  dissallow: 'disallow',
  dissalow: 'disallow',
  disalow: 'disallow',
  diasllow: 'disallow',
  disallaw: 'disallow',
  sitemap: 'sitemap',
  'site-map': 'sitemap',
  'crawl-delay': 'crawl-delay',
  crawldelay: 'crawl-delay',
};

function keyKind(key: string): string | undefined {
  return KEYS[key.toLowerCase()];
}

/** Whitespace as the robots.txt grammar knows it (not JS trim(), which also eats U+FEFF). */
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 11 || c === 12 || c === 10 || c === 13;
}

function stripSpace(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isSpace(s.charCodeAt(a))) a++;
  while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/**
 * `key: value` with the comment cut off and whitespace trimmed. As in Google's parser, a line
 * without a colon is accepted when it is exactly two words (`disallow /`).
 */
function keyAndValue(line: string): { key: string; value: string } | null {
  const hash = line.indexOf('#');
  const content = stripSpace(hash === -1 ? line : line.slice(0, hash));
  if (content === '') return null;
  let sep = content.indexOf(':');
  let valueStart = sep + 1;
  if (sep === -1) {
    const ws = /[ \t]+/.exec(content);
    if (ws === null) return null;
    sep = ws.index;
    valueStart = sep + ws[0].length;
    if (/[ \t]/.test(content.slice(valueStart))) return null; // more than two words
  }
  const key = stripSpace(content.slice(0, sep));
  if (key === '') return null;
  return { key, value: stripSpace(content.slice(valueStart)) };
}

function cutAtLastLine(text: string, max: number): string {
  const head = text.slice(0, max);
  const end = Math.max(head.lastIndexOf('\n'), head.lastIndexOf('\r'));
  return end === -1 ? '' : head.slice(0, end);
}

function resolveSitemap(value: string, robotsUrl: string): string | null {
  if (value === '') return null;
  try {
    const u = robotsUrl ? new URL(value, robotsUrl) : new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- matching

const HEX = '0123456789ABCDEF';

/**
 * A rule's pattern as matched: non-ASCII characters escaped as UTF-8 `%XX`, existing escapes in
 * uppercase hex. Other characters stay as written (`%62` is not decoded: Google's suite expects
 * `/foo/bar/%62%61%7A` not to match `/foo/bar/baz`).
 */
function normalizePattern(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 37 /* % */ && isHex(value.charCodeAt(i + 1)) && isHex(value.charCodeAt(i + 2))) {
      out += '%' + value[i + 1]!.toUpperCase() + value[i + 2]!.toUpperCase();
      i += 2;
    } else if (c >= 0x80) {
      const cp = value.codePointAt(i)!;
      if (cp > 0xffff) i++;
      for (const byte of Buffer.from(String.fromCodePoint(cp), 'utf8')) out += '%' + HEX[byte >> 4] + HEX[byte & 15];
    } else {
      out += value[i];
    }
  }
  return out;
}

/**
 * The URL side: escapes in uppercase hex. Raw non-ASCII is matched as it stands (Google's suite
 * expects a raw `ツ` not to match a rule for `%E3%83%84`); URLs the crawler builds are
 * WHATWG-serialised and so already escaped.
 */
function normalizeUrlPath(path: string): string {
  if (!path.includes('%')) return path;
  return path.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => '%' + h.toUpperCase());
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/**
 * Path, params and query of a URL, without the fragment; `/` when there is none (also for an
 * empty string). A port of Google's GetPathParamsQuery, so odd inputs never throw.
 */
function pathParamsQuery(url: string): string {
  let searchStart = 0;
  if (url.startsWith('//')) searchStart = 2;
  const earlyPath = pathDelimiter(url, searchStart);
  let protocolEnd = url.indexOf('://', searchStart);
  if (earlyPath !== -1 && (protocolEnd === -1 || earlyPath < protocolEnd)) protocolEnd = -1;
  protocolEnd = protocolEnd === -1 ? searchStart : protocolEnd + 3;
  const pathStart = pathDelimiter(url, protocolEnd);
  if (pathStart === -1) return '/';
  const hash = url.indexOf('#', searchStart);
  if (hash !== -1 && hash < pathStart) return '/';
  const pathEnd = hash === -1 ? url.length : hash;
  const path = url.slice(pathStart, pathEnd);
  return url.charCodeAt(pathStart) === 47 /* / */ ? path : '/' + path;
}

/** Index of the first `/`, `?` or `;` from `from`, or -1. */
function pathDelimiter(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 47 || c === 63 || c === 59) return i;
  }
  return -1;
}

function compileRule(pattern: string, allow: boolean): Rule {
  const anchored = pattern.charCodeAt(pattern.length - 1) === 36; /* $ */
  const body = anchored ? pattern.slice(0, -1) : pattern;
  return { pattern, allow, priority: pattern.length, anchored, pieces: body.split('*') };
}

/**
 * Whether a rule's pattern matches the start of the path: `*` is any run of characters, a final
 * `$` anchors the end; everything else (a `$` elsewhere too) is literal. Greedy leftmost search of
 * each piece, linear in the path; no regular expressions, so hostile patterns cannot backtrack.
 */
function matches(path: string, rule: Rule): boolean {
  const pieces = rule.pieces;
  const first = pieces[0]!;
  if (pieces.length === 1) return rule.anchored ? path === first : path.startsWith(first);
  if (!path.startsWith(first)) return false;
  let pos = first.length;
  const lastIndex = pieces.length - 1;
  for (let i = 1; i < lastIndex; i++) {
    const piece = pieces[i]!;
    if (piece === '') continue;
    const at = path.indexOf(piece, pos);
    if (at === -1) return false;
    pos = at + piece.length;
  }
  const last = pieces[lastIndex]!;
  if (rule.anchored) return path.length - last.length >= pos && path.endsWith(last);
  return last === '' || path.indexOf(last, pos) !== -1;
}
