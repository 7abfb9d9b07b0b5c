/**
 * Checks on one sitemap entry that need no fetch: its date, and whether it is written on another
 * scheme or www/apex variant of the crawled site.
 */
import { hasPrefix } from '../../engine/prefix.js';
import { isW3cDatetime } from '../../engine/sitemap/datetime.js';
import { parseLastmod } from '../url-store.js';

/** A lastmod this far past "now" is in the future (time zones and clock skew stay below it). */
export const FUTURE_SLACK_MS = 24 * 60 * 60 * 1000;

export type LastmodVerdict = 'ok' | 'invalid' | 'future';

/** Whether a lastmod is a valid W3C Datetime, and not more than a day after `now`. */
export function lastmodVerdict(lastmod: string, now: number): LastmodVerdict {
  if (!isW3cDatetime(lastmod)) return 'invalid';
  // A date (any W3C shape starts with YYYY[-MM[-DD]]) before the day of now − 2 days is in the past
  // whatever its time and offset: a string comparison settles it without parsing (most listings).
  if (lastmod < pastBound(now)) return 'ok';
  // parseLastmod reads the usual shapes without Date.parse (once per listing: 1M at a time).
  const t = parseLastmod(lastmod);
  return Number.isFinite(t) && t > now + FUTURE_SLACK_MS ? 'future' : 'ok';
}

let boundUntil = -Infinity;
let boundFor = 0;
let bound = '';

/** `YYYY-MM-DD` of now − 2 days (UTC), recomputed at most hourly: an older bound is only stricter. */
function pastBound(now: number): string {
  if (now < boundFor || now >= boundUntil) {
    bound = new Date(now - 2 * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
    boundFor = now;
    boundUntil = now + 60 * 60 * 1000;
  }
  return bound;
}

const AUTHORITY = /^(https?):\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i;

/** The crawled site's scheme and host, and a test for entries on another variant of it. */
export class SiteVariants {
  private readonly scheme: string;
  private readonly host: string;
  private readonly bare: string;
  /** `scheme://host[:port]/`: entries starting with it are on the crawled origin (the common case). */
  private readonly originSlash: string;

  constructor(crawlUrl: string) {
    const u = new URL(crawlUrl);
    this.scheme = u.protocol.slice(0, -1);
    this.host = u.hostname;
    this.bare = stripWww(u.hostname);
    this.originSlash = u.origin + '/';
  }

  /**
   * True when `url` is on the same host up to a leading `www.` but another scheme or www-ness
   * than the crawl (http↔https, www↔apex). Another host entirely is not a variant.
   */
  isVariant(url: string): boolean {
    if (hasPrefix(url, this.originSlash)) return false;
    const m = AUTHORITY.exec(url);
    if (m === null) return false;
    const scheme = m[1]!.toLowerCase();
    const host = m[2]!.toLowerCase().replace(/\.$/, '');
    if (stripWww(host) !== this.bare) return false;
    return scheme !== this.scheme || host !== this.host;
  }
}

function stripWww(host: string): string {
  return host.startsWith('www.') ? host.slice(4) : host;
}
