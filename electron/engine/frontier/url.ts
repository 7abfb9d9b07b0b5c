/**
 * URL identity for the crawl: the SEO-grade uniqueKey, resolution of links, scope checks.
 *
 * uniqueKey keeps everything a search engine treats as a different URL (query order, trailing
 * slash, path case) and folds only what is the same resource by definition (scheme/host case,
 * default port, fragment, dot segments, percent-encoding spelling).
 *
 * A URL already spelled as its own key (most sitemap entries) is recognised by a pattern and kept as
 * it is, without WHATWG parsing, which would otherwise be done for every URL of a large sitemap; the
 * tests check that this fast path never disagrees with the full normalisation.
 */
import { EngineError } from '../types.js';

// ---------------------------------------------------------------- uniqueKey

/**
 * A URL that WHATWG serialisation would leave byte for byte unchanged, and that has nothing for
 * the percent-encoding pass to do: lowercase http(s) scheme, lowercase ASCII host whose last label
 * starts with a letter (so it is no IPv4 shorthand) and no `xn--` label (punycode is validated by
 * the slow path), an optional port, a path of characters WHATWG never escapes, an optional query.
 * No `%`, `#`, `\`, whitespace, quotes or non-ASCII. Dot segments and ports are checked after the match.
 */
const FAST_PATH = /^https?:\/\/(?:[a-z0-9-]+\.)*[a-z][a-z0-9-]*\.?(?::\d{1,5})?\/[A-Za-z0-9\-._~!$&()*+,;=:@/]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/?]*)?$/;
/** A `.` or `..` path segment. */
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;
/** An `xn--` label anywhere in the authority. */
const PUNYCODE_LABEL = /[/.]xn--/;

/**
 * The uniqueKey of a URL: lowercase scheme and host, no default port, no fragment, dot segments
 * resolved, percent-encoding normalised (unreserved characters decoded, other escapes in uppercase
 * hex, raw spaces and non-ASCII escaped), IDN host in punycode, empty path as `/`.
 * Query order, trailing slashes and path case are kept.
 * An empty query (`/p?`) is dropped: `/p?` and `/p` are one key (every common server answers both
 * with the same resource, and a stray `?` is a template artefact, not a page).
 * Throws EngineError INVALID_URL for an unparsable or non-http(s) URL.
 */
export function toUniqueKey(url: string): string {
  if (isFastPathCanonical(url)) return url;
  return toUniqueKeyFull(url);
}

/** toUniqueKey, or null when the URL is not a valid http(s) URL. */
export function tryUniqueKey(url: string): string | null {
  if (isFastPathCanonical(url)) return url;
  try {
    return toUniqueKeyFull(url);
  } catch {
    return null;
  }
}

/**
 * The last URL isFastPathCanonical accepted: a sitemap's loc is checked by the scope test and again
 * for its uniqueKey, and the second check is then one comparison.
 */
let lastCanonical = '';

/**
 * True when `url` is already its own uniqueKey and needs no parsing (the common sitemap case). Such
 * a URL is plain ASCII without quotes, backslashes or control characters (FAST_PATH's characters),
 * so it goes into JSON text as it is.
 */
export function isFastPathCanonical(url: string): boolean {
  if (url === lastCanonical) return true;
  if (!isCanonicalSpelling(url)) return false;
  lastCanonical = url;
  return true;
}

/**
 * `scheme://authority/` of the last URL whose scheme and authority passed isCanonicalSpelling: a URL
 * starting with it needs only its path and query checked (a sitemap's URLs share one origin).
 */
let lastOriginSlash = '';
/** FAST_PATH's path and query, matched from a given index (sticky) to the end. */
const PATH_AND_QUERY = /[A-Za-z0-9\-._~!$&()*+,;=:@/]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/?]*)?$/y;

function isCanonicalSpelling(url: string): boolean {
  let pathStart: number;
  if (lastOriginSlash !== '' && url.slice(0, lastOriginSlash.length) === lastOriginSlash) {
    pathStart = lastOriginSlash.length - 1;
    PATH_AND_QUERY.lastIndex = pathStart + 1;
    if (!PATH_AND_QUERY.test(url)) return false;
  } else {
    if (!FAST_PATH.test(url)) return false;
    const start = authorityStart(url);
    pathStart = url.indexOf('/', start);
    const authority = url.slice(start - 1, pathStart);
    if (PUNYCODE_LABEL.test(authority)) return false;
    const colon = authority.indexOf(':');
    if (colon !== -1) {
      const portText = authority.slice(colon + 1);
      const port = Number(portText);
      if (portText.charCodeAt(0) === 48 /* leading 0 */ || port > 65535) return false;
      if (port === (start === 8 ? 443 : 80)) return false;
    }
    lastOriginSlash = url.slice(0, pathStart + 1);
  }
  // A path with no "/." has no dot segment: found in place, without cutting the path out (a string
  // made per URL, a million at a time, for the rare path that has one).
  if (hasDotSegment(url, pathStart)) return false;
  // An empty query is dropped by the full path.
  return url.indexOf('?', pathStart) !== url.length - 1;
}

/**
 * The full normalisation, without the fast path. Exported so tests can check that the fast path
 * never disagrees with it.
 */
export function toUniqueKeyFull(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch (cause) {
    throw new EngineError('INVALID_URL', `Not a valid URL: "${clip(url)}". Enter an absolute http(s) address.`, {
      cause,
    });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new EngineError('INVALID_URL', `Only http and https URLs can be crawled, not "${clip(url)}" (${u.protocol.slice(0, -1)}).`);
  }
  // WHATWG has lowercased scheme and host, dropped default ports, resolved dot segments and
  // escaped spaces and non-ASCII; what is left is the spelling of existing escapes.
  const path = u.pathname.includes('%') ? normalizeEscapes(u.pathname) : u.pathname;
  let search = u.search;
  if (search.includes('%')) search = normalizeEscapes(search);
  const userinfo = u.username || u.password ? `${u.username}${u.password ? ':' + u.password : ''}@` : '';
  return `${u.protocol}//${userinfo}${u.host}${path}${search}`;
}

/** Decodes `%XX` of unreserved characters and uppercases the hex of every other escape. */
function normalizeEscapes(s: string): string {
  let out = '';
  let last = 0;
  for (let i = s.indexOf('%'); i !== -1; i = s.indexOf('%', i + 1)) {
    const h = hexValue(s.charCodeAt(i + 1));
    const l = hexValue(s.charCodeAt(i + 2));
    if (h < 0 || l < 0) continue; // a lone % stays as written (WHATWG keeps it too)
    const code = h * 16 + l;
    out += s.slice(last, i) + (isUnreserved(code) ? String.fromCharCode(code) : '%' + HEX[h] + HEX[l]);
    last = i + 3;
    i += 2;
  }
  return last === 0 ? s : out + s.slice(last);
}

const HEX = '0123456789ABCDEF';

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** RFC 3986 unreserved: A-Z a-z 0-9 - . _ ~ */
function isUnreserved(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 46 || c === 95 || c === 126;
}

function clip(s: string): string {
  return s.length > 200 ? s.slice(0, 200) + '…' : s;
}

// ---------------------------------------------------------------- resolution

/** Leading/trailing ASCII whitespace and C0 controls, as the HTML spec strips from attribute URLs. */
const EDGE_SPACE = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
const INNER_TAB_NEWLINE = /[\t\n\r]/g;
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

/**
 * Resolves an href against a base as a browser does (edges trimmed, tabs and newlines inside
 * removed). Returns the absolute http(s) URL (fragment kept), or null for javascript:, mailto:,
 * tel:, data: and other schemes, an empty href, or anything unparsable.
 */
export function resolveUrl(href: string, base: string): string | null {
  // Most links: already absolute and canonical, or root-relative on a canonical base (the WHATWG
  // result is then the text itself, or the base's origin before it).
  if (isFastPathCanonical(href)) return href;
  if (href.charCodeAt(0) === 47 /* / */ && ROOT_RELATIVE.test(href) && !hasDotSegment(href, 0)) {
    const origin = canonicalOriginOf(base);
    if (origin !== null) return origin + href;
  }
  const cleaned = href.replace(EDGE_SPACE, '').replace(INNER_TAB_NEWLINE, '');
  if (cleaned === '') return null;
  const scheme = SCHEME.exec(cleaned);
  if (scheme) {
    const s = scheme[1]!.toLowerCase();
    if (s !== 'http' && s !== 'https') return null;
  }
  let u: URL;
  try {
    u = new URL(cleaned, base);
  } catch {
    return null;
  }
  return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
}

/** A root-relative href (not `//host`) of characters WHATWG never escapes in a path or query, no fragment. */
const ROOT_RELATIVE = /^\/(?!\/)[A-Za-z0-9\-._~!$&()*+,;=:@/]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/?]*)?$/;

/** Whether the path of `url` from `pathStart` (up to its query) has a `.` or `..` segment. */
function hasDotSegment(url: string, pathStart: number): boolean {
  const q = url.indexOf('?', pathStart);
  const dot = url.indexOf('/.', pathStart);
  return dot !== -1 && (q === -1 || dot < q) && DOT_SEGMENT.test(q === -1 ? url.slice(pathStart) : url.slice(pathStart, q));
}

/** Where the authority of a URL starting `http://` or `https://` begins. */
function authorityStart(url: string): number {
  return url.charCodeAt(4) === 115 /* s */ ? 8 : 7;
}

/** `scheme://host[:port]` of a URL spelled as its own uniqueKey, read from the text; null for any other URL. */
function canonicalOriginOf(url: string): string | null {
  return isFastPathCanonical(url) ? url.slice(0, url.indexOf('/', authorityStart(url))) : null;
}

/**
 * The host name of a URL spelled as its own uniqueKey, read from the text (its host is lowercase
 * ASCII without userinfo or brackets: what WHATWG's hostname gives); null for any other URL.
 */
export function canonicalHostOf(url: string): string | null {
  if (!isFastPathCanonical(url)) return null;
  const start = authorityStart(url);
  const slash = url.indexOf('/', start);
  const colon = url.indexOf(':', start);
  return url.slice(start, colon !== -1 && colon < slash ? colon : slash);
}

/** True for a parsable absolute http(s) URL. */
export function isHttpUrl(s: string): boolean {
  if (typeof s !== 'string' || !/^\s*https?:/i.test(s)) return false;
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

function parseHttp(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch (cause) {
    throw new EngineError('INVALID_URL', `Not a valid URL: "${clip(url)}". Enter an absolute http(s) address.`, {
      cause,
    });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new EngineError('INVALID_URL', `Only http and https URLs are supported, not "${clip(url)}".`);
  }
  return u;
}

/** The lowercase host name (no port, punycode for IDN). Throws INVALID_URL. */
export function hostOf(url: string): string {
  return parseHttp(url).hostname;
}

/** `scheme://host[:port]` with the default port dropped. Throws INVALID_URL. */
export function originOf(url: string): string {
  return parseHttp(url).origin;
}

/** The robots.txt that governs a URL: `<origin>/robots.txt`. Throws INVALID_URL. */
export function robotsUrlFor(url: string): string {
  return originOf(url) + '/robots.txt';
}

// ---------------------------------------------------------------- scope

/** Memo of the last sitemap's scope prefix: entries are checked in long runs against one sitemap. */
let lastSitemap: { url: string; origin: string; dir: string } | null = null;

/**
 * The sitemaps.org location rule: an entry must have the sitemap's scheme, host and port, and a
 * path under the sitemap's directory (`/catalog/sitemap.xml` may list `/catalog/**` only; a
 * sitemap at the root may list the whole host). False when either URL is invalid.
 */
export function inSitemapScope(entryUrl: string, sitemapUrl: string): boolean {
  if (lastSitemap === null || lastSitemap.url !== sitemapUrl) {
    let s: URL;
    try {
      s = new URL(sitemapUrl);
    } catch {
      return false;
    }
    lastSitemap = { url: sitemapUrl, origin: s.origin, dir: s.pathname.slice(0, s.pathname.lastIndexOf('/') + 1) };
  }
  const { origin, dir } = lastSitemap;
  // Fast accept: the entry is literally spelled under the sitemap's directory.
  const dirEnd = origin.length + dir.length;
  if (entryUrl.slice(0, origin.length) === origin && entryUrl.slice(origin.length, dirEnd) === dir && isFastPathCanonical(entryUrl)) {
    return true;
  }
  let e: URL;
  try {
    e = new URL(entryUrl);
  } catch {
    return false;
  }
  return e.origin === origin && e.origin !== 'null' && e.pathname.startsWith(dir);
}
