/**
 * Dates in sitemaps: W3C Datetime validation for `<lastmod>`, RFC 822 (RSS pubDate) to ISO 8601.
 */

/**
 * True when `s` is a W3C Datetime, the ISO 8601 profile sitemaps.org allows: YYYY, YYYY-MM,
 * YYYY-MM-DD, or YYYY-MM-DDThh:mm[:ss[.s+]]TZD with TZD = Z | ±hh:mm (a time needs a zone),
 * with real field values (month 1–12, a day the month has, …).
 */
export function isW3cDatetime(s: string): boolean {
  return !Number.isNaN(w3cDatetime(s, false));
}

const DAY_MS = 86_400_000;

/**
 * The instant a W3C Datetime names, in ms since 1970 UTC (the start of the year, month or day for
 * the shorter forms; fractions of a second past the third digit dropped, as Date.parse does), or
 * NaN when `s` is not one (see isW3cDatetime). A leap second (:60) is the next minute's first.
 * Hand-written arithmetic rather than a regex and Date.UTC: the ingest checks and reads each
 * listed URL's lastmod, a million at a time.
 */
export function w3cDatetimeMs(s: string): number {
  // The URL table and the audit each read a listing's lastmod: the second asks for the same string.
  if (s === lastRead) return lastMs;
  lastMs = w3cDatetime(s, true);
  lastRead = s;
  return lastMs;
}

let lastRead = '';
let lastMs = NaN;

/** NaN when `s` is not a W3C Datetime; else its instant when `read`, 0 when not (checking costs less). */
function w3cDatetime(s: string, read: boolean): number {
  const n = s.length;
  if (n < 4) return NaN;
  const hi = two(s, 0);
  const lo = two(s, 2);
  if (hi < 0 || lo < 0) return NaN;
  const year = hi * 100 + lo;
  let month = 1;
  let day = 1;
  if (n > 4) {
    if (s.charCodeAt(4) !== 45 /* - */ || n < 7) return NaN;
    month = two(s, 5);
    if (month < 1 || month > 12) return NaN;
    if (n > 7) {
      if (s.charCodeAt(7) !== 45 || n < 10) return NaN;
      day = two(s, 8);
      if (day < 1 || day > daysInMonth(year, month)) return NaN;
    }
  }
  const date = read ? daysFromCivil(year, month, day) * DAY_MS : 0;
  if (n <= 10) return date;
  // time: Thh:mm, then :ss, then .s+, then the zone
  if (s.charCodeAt(10) !== 84 /* T */ || n < 17) return NaN;
  const hour = two(s, 11);
  const minute = two(s, 14);
  if (s.charCodeAt(13) !== 58 /* : */ || hour < 0 || hour > 23 || minute < 0 || minute > 59) return NaN;
  let ms = hour * 3_600_000 + minute * 60_000;
  let i = 16;
  if (s.charCodeAt(i) === 58) {
    const second = two(s, i + 1);
    if (second < 0 || second > 60) return NaN; // 60: a leap second
    ms += second * 1000;
    i += 3;
    if (s.charCodeAt(i) === 46 /* . */) {
      const from = ++i;
      let scale = 100;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (!isDigit(c)) break;
        ms += (c - 48) * scale;
        scale = scale >= 10 ? scale / 10 : 0;
      }
      if (i === from) return NaN;
    }
  }
  const zone = s.charCodeAt(i);
  if (zone === 90 /* Z */) return i + 1 !== n ? NaN : read ? date + ms : 0;
  if (zone !== 43 /* + */ && zone !== 45 /* - */) return NaN;
  if (n !== i + 6 || s.charCodeAt(i + 3) !== 58) return NaN;
  const zh = two(s, i + 1);
  const zm = two(s, i + 4);
  if (zh < 0 || zh > 23 || zm < 0 || zm > 59) return NaN;
  if (!read) return 0;
  const offset = (zh * 60 + zm) * 60_000;
  return date + ms - (zone === 43 ? offset : -offset);
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The number written by the two ASCII digits at `i`, or -1 (also past the end). */
function two(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** RFC 822 / RFC 2822 date-time as RSS writes it: `Sat, 07 Sep 2002 09:42:31 GMT`, `+0200`, `EST`. */
const RFC822 = /^(?:[A-Za-z]{3},\s*)?(\d{1,2})\s+([A-Za-z]{3})[a-z]*\s+(\d{2}|\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([A-Za-z]{1,5}|[+-]\d{4})?$/;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const ZONES: Record<string, number> = {
  UT: 0,
  UTC: 0,
  GMT: 0,
  Z: 0,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
};

/**
 * An RSS pubDate as an ISO 8601 UTC string (`2002-09-07T09:42:31.000Z`), or null when it is not an
 * RFC 822 date. RFC 822 requires the zone: a date without one names no instant (reading it as UTC
 * would invent one), so it is null too (rfc822LacksZone tells it apart). An ISO date given instead
 * (a common mistake) is accepted when it is a W3C Datetime.
 */
export function rfc822ToIso(s: string): string | null {
  const m = RFC822.exec(s);
  if (m === null) return isW3cDatetime(s) ? s : null;
  const zone = m[7];
  if (zone === undefined) return null;
  const utc = rfc822Fields(m);
  if (Number.isNaN(utc)) return null;
  let offsetMinutes: number;
  if (zone[0] === '+' || zone[0] === '-') {
    const sign = zone[0] === '-' ? -1 : 1;
    offsetMinutes = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5)));
  } else {
    const known = ZONES[zone.toUpperCase()];
    if (known === undefined) return null;
    offsetMinutes = known;
  }
  return new Date(utc - offsetMinutes * 60_000).toISOString();
}

/** True when `s` would be an RFC 822 date but for its missing zone (`05 Jan 17 13:34:55`). */
export function rfc822LacksZone(s: string): boolean {
  const m = RFC822.exec(s);
  return m !== null && m[7] === undefined && !Number.isNaN(rfc822Fields(m));
}

/** The date and time of an RFC822 match as if in UTC (ms), or NaN when a field is out of range. */
function rfc822Fields(m: RegExpExecArray): number {
  const month = MONTHS.indexOf(m[2]!.toLowerCase());
  if (month < 0) return NaN;
  let year = Number(m[3]);
  if (m[3]!.length === 2) year += year < 50 ? 2000 : 1900;
  const day = Number(m[1]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (day < 1 || day > daysInMonth(year, month + 1) || hour > 23 || minute > 59 || second > 60) return NaN;
  return Date.UTC(year, month, day, hour, minute, second);
}
