/**
 * Checks on one sitemap entry that need no fetch: its date, and whether it is written on another
 * scheme or www/apex variant of the crawled site.
 */
import { w3cDatetimeMs } from '../../engine/index.js';

/** A lastmod this far past "now" is in the future (time zones and clock skew stay below it). */
export const FUTURE_SLACK_MS = 24 * 60 * 60 * 1000;

export type LastmodVerdict = 'ok' | 'invalid' | 'future';

/** Whether a lastmod is a valid W3C Datetime, and not more than a day after `now`. */
export function lastmodVerdict(lastmod: string, now: number): LastmodVerdict {
  const ms = w3cDatetimeMs(lastmod);
  if (Number.isNaN(ms)) return 'invalid';
  return ms > now + FUTURE_SLACK_MS ? 'future' : 'ok';
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
    if (url.startsWith(this.originSlash)) return false;
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
