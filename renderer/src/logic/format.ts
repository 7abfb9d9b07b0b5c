/** Number, size, time and URL formatting for the analyst's tables and cards. */

const intFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/** 1234567 → "1,234,567"; undefined → "—". */
export function formatCount(n: number | undefined | null): string {
  if (n === undefined || n === null || !Number.isFinite(n)) return '—';
  return intFmt.format(n);
}

/** 1234567 → "1.2M", 12345 → "12.3k": for chart axes and compact badges. */
export function formatCompact(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${oneDecimal.format(n / 1e9)}B`;
  if (abs >= 1e6) return `${oneDecimal.format(n / 1e6)}M`;
  if (abs >= 1e4) return `${oneDecimal.format(n / 1e3)}k`;
  return intFmt.format(n);
}

/** Bytes in binary units: 0 B, 980 B, 12.4 KB, 3.1 MB. */
export function formatBytes(n: number | undefined | null): string {
  if (n === undefined || n === null || !Number.isFinite(n)) return '—';
  if (n < 1024) return `${intFmt.format(n)} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 ? intFmt.format(v) : oneDecimal.format(v)} ${units[i]}`;
}

/** URLs per second: "0/s", "3.4/s", "120/s". */
export function formatRate(rate: number): string {
  if (!Number.isFinite(rate) || rate <= 0) return '0/s';
  return `${rate >= 100 ? intFmt.format(rate) : oneDecimal.format(rate)}/s`;
}

/** A duration in seconds: "45s", "12m 03s", "3h 04m", "2d 5h". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${String(m % 60).padStart(2, '0')}m`;
  const d = Math.floor(h / 24);
  return `${d}d ${h % 24}h`;
}

/** A timestamp as local date and time, "2024-05-01 14:03:22". */
export function formatDateTime(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '—';
  const d = new Date(ms);
  const p = (x: number) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A timestamp as local time of day, "14:03:22". */
export function formatClock(ms: number): string {
  const d = new Date(ms);
  const p = (x: number) => String(x).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** "3 minutes ago" style relative time against `now`. */
export function formatAgo(ms: number | undefined, now: number): string {
  if (ms === undefined) return '—';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 10) return 'just now';
  if (s < 60) return `${s}s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.round(h / 24)} days ago`;
}

/** A compact age for narrow places: "now", "5m", "3h", "4d". */
export function formatAgeShort(ms: number | undefined, now: number): string {
  if (ms === undefined) return '—';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return 'now';
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/** A fraction as a percentage, "42%" (one decimal under 10%). */
export function formatPercent(part: number, whole: number): string {
  if (!(whole > 0)) return '0%';
  const pct = (part / whole) * 100;
  return `${pct < 10 && pct > 0 ? oneDecimal.format(pct) : intFmt.format(pct)}%`;
}

/** True for addresses safe to open in a browser tab: http(s) only, never javascript: or data:. */
export function isWebUrl(url: string | undefined): url is string {
  return !!url && /^https?:\/\/[^\s]/i.test(url);
}

/** A URL without its scheme, for narrow cells: "https://a.com/x" → "a.com/x". */
export function stripScheme(url: string): string {
  return url.replace(/^https?:\/\//i, '');
}

/** The path (and query) of a URL relative to its origin, or the URL itself when it is not one. */
export function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}` || '/';
  } catch {
    return url;
  }
}

/** The last path segment of a URL ("sitemap-1.xml.gz"), or its host for a bare origin. */
export function lastSegment(url: string): string {
  try {
    const u = new URL(url);
    const segs = u.pathname.split('/').filter(Boolean);
    return segs.length ? decodeSafe(segs[segs.length - 1]!) + u.search : u.host;
  } catch {
    return url;
  }
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
