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
  return lastmodVerdictOf(w3cDatetimeMs(lastmod), now);
}

/** lastmodVerdict of a lastmod already parsed to epoch ms (NaN: not a W3C Datetime). */
export function lastmodVerdictOf(ms: number, now: number): LastmodVerdict {
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
    if (url.slice(0, this.originSlash.length) === this.originSlash) return false;
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

// ---------------------------------------------------------------- lastmod against evidence

/** A lastmod more than this after the page's own Last-Modified is LASTMOD_AFTER_LAST_MODIFIED. */
export const LASTMOD_SLACK_MS = 24 * 60 * 60 * 1000;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
/** IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = /^([A-Z][a-z]{2}), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
/** Obsolete RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC850 = /^([A-Z][a-z]{5,8}), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
/** Obsolete asctime: `Sun Nov  6 08:49:37 1994`. */
const ASCTIME = /^([A-Z][a-z]{2}) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/**
 * The instant an HTTP-date names (RFC 7231 §7.1.1.1: IMF-fixdate, or the obsolete RFC 850 and asctime
 * forms a recipient must accept), in ms since 1970 UTC; NaN for anything else: another format, a
 * field out of range, a weekday that is not that date's, or repeated headers joined with ", ".
 * A two-digit RFC 850 year more than 50 years after `nowMs`'s year is the century before.
 */
export function httpDateMs(value: string, nowMs: number = Date.now()): number {
  let weekday: number;
  let day: string;
  let month: string;
  let year: number;
  let time: [string, string, string];
  let m = IMF_FIXDATE.exec(value);
  if (m) {
    weekday = DAYS.indexOf(m[1]!);
    [day, month, year, time] = [m[2]!, m[3]!, Number(m[4]), [m[5]!, m[6]!, m[7]!]];
  } else if ((m = RFC850.exec(value))) {
    weekday = LONG_DAYS.indexOf(m[1]!);
    const nowYear = new Date(nowMs).getUTCFullYear();
    year = Math.floor(nowYear / 100) * 100 + Number(m[4]);
    if (year > nowYear + 50) year -= 100;
    [day, month, time] = [m[2]!, m[3]!, [m[5]!, m[6]!, m[7]!]];
  } else if ((m = ASCTIME.exec(value))) {
    weekday = DAYS.indexOf(m[1]!);
    [month, day, time, year] = [m[2]!, m[3]!.trim(), [m[4]!, m[5]!, m[6]!], Number(m[7])];
  } else return NaN;
  const mon = MONTHS.indexOf(month);
  const d = Number(day);
  const [hh, mm, ss] = time.map(Number) as [number, number, number];
  if (weekday < 0 || mon < 0 || d < 1 || hh > 23 || mm > 59 || ss > 60) return NaN;
  const ms = Date.UTC(year, mon, d, hh, mm, 0) + ss * 1000;
  const date = new Date(Date.UTC(year, mon, d));
  // Day 31 of a 30-day month rolls over: not a date. A weekday that is not that date's: not one either.
  if (date.getUTCMonth() !== mon || date.getUTCDay() !== weekday) return NaN;
  return ms;
}

/**
 * The later of two lastmods, as written (undefined, or a value that is not a W3C Datetime, loses to a
 * valid one): how a URL listed several times is given one lastmod (PreviousUrlFacts.lastmod).
 */
export function laterLastmod(a: string | undefined, b: string | undefined): string | undefined {
  const ma = a === undefined ? NaN : w3cDatetimeMs(a);
  const mb = b === undefined ? NaN : w3cDatetimeMs(b);
  if (Number.isNaN(mb)) return Number.isNaN(ma) ? (a ?? b) : a;
  if (Number.isNaN(ma)) return b;
  return mb > ma ? b : a;
}
