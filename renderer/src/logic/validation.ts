/** Validation of the new-crawl form, as the analyst types: one clear message per field. */
import { DEFAULT_SETTINGS, type CrawlSettings, type ScopeMode } from '../../../shared/model.js';

export interface UrlCheck {
  ok: boolean;
  /** The normalised absolute URL when ok. */
  url?: string;
  error?: string;
  /** A corrected address the form can offer with one click ("did you mean …"). */
  suggestion?: string;
}

/** Checks one crawlable address: absolute, http(s), with a host. */
export function checkHttpUrl(raw: string): UrlCheck {
  const text = raw.trim();
  if (text === '') return { ok: false, error: 'Enter an address, like https://www.example.com/' };
  if (/\s/.test(text)) return { ok: false, error: 'An address cannot contain spaces.' };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text);
  if (!scheme || (!text.includes('//') && !/^(https?|ftp|file|mailto|javascript|data):/i.test(text))) {
    // "example.com/x" or "localhost:8080": no scheme (a host:port looks like one to the parser).
    const suggestion = `https://${text.replace(/^\/+/, '')}`;
    if (parses(suggestion)) {
      return { ok: false, error: 'Start with http:// or https://', suggestion: withSlash(suggestion) };
    }
    return { ok: false, error: 'That is not a web address. It should look like https://www.example.com/' };
  }
  const proto = scheme[1]!.toLowerCase();
  if (proto !== 'http' && proto !== 'https') {
    return { ok: false, error: `Only http:// and https:// addresses can be crawled, not ${proto}:` };
  }
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return { ok: false, error: 'That address is not valid: check the host name for typos.' };
  }
  if (!u.hostname) return { ok: false, error: 'The address has no host name.' };
  if (u.hostname.startsWith('.') || u.hostname.endsWith('..') || u.hostname.includes('..')) {
    return { ok: false, error: `"${u.hostname}" is not a valid host name.` };
  }
  return { ok: true, url: u.toString() };
}

function parses(text: string): boolean {
  try {
    const u = new URL(text);
    return !!u.hostname && !/\s/.test(text);
  } catch {
    return false;
  }
}

function withSlash(text: string): string {
  try {
    return new URL(text).toString();
  } catch {
    return text;
  }
}

/** Splits a textarea into trimmed non-empty lines, keeping each one's 1-based line number. */
export function splitLines(text: string): { line: number; value: string }[] {
  return text
    .split(/\r?\n/)
    .map((value, i) => ({ line: i + 1, value: value.trim() }))
    .filter((l) => l.value !== '');
}

/** Checks a list of sitemap URLs, one a line; errors name the line. */
export function checkSitemapList(text: string): { urls: string[]; errors: string[] } {
  const urls: string[] = [];
  const errors: string[] = [];
  for (const { line, value } of splitLines(text)) {
    const c = checkHttpUrl(value);
    if (c.ok && c.url) urls.push(c.url);
    else errors.push(`Line ${line}: ${c.error}${c.suggestion ? ` (did you mean ${c.suggestion}?)` : ''}`);
  }
  return { urls, errors };
}

/** Checks include/exclude regular expressions, one a line. */
export function checkPatterns(text: string): { patterns: string[]; errors: string[] } {
  const patterns: string[] = [];
  const errors: string[] = [];
  for (const { line, value } of splitLines(text)) {
    try {
      new RegExp(value);
      patterns.push(value);
    } catch (e) {
      errors.push(`Line ${line}: not a valid regular expression (${(e as Error).message.replace(/^Invalid regular expression: /, '')})`);
    }
  }
  return { patterns, errors };
}

/** The form as the analyst edits it: text everywhere a person types. */
export interface CrawlForm {
  /** Spider (from the start URL, robots.txt and sitemaps) or list (the URLs of a list; its text is kept apart). */
  mode: CrawlSettings['mode'];
  name: string;
  startUrl: string;
  /** One sitemap URL a line. */
  sitemapUrls: string;
  fetchPages: boolean;
  followLinks: boolean;
  /** Read robots.txt's sitemaps (off: "links only"). Sent only to a backend whose settings have it. */
  useSitemaps: boolean;
  respectRobots: boolean;
  scope: ScopeMode;
  /** One regular expression a line. */
  include: string;
  exclude: string;
  /** Empty: unlimited. */
  maxDepth: string;
  maxUrls: string;
  concurrency: string;
  perHostConcurrency: string;
  delayMs: string;
  userAgent: string;
  timeoutMs: string;
  idleTimeoutMs: string;
  sitemapTimeoutMs: string;
  retries: string;
}

export type FormErrors = Partial<Record<keyof CrawlForm, string>>;

/** The form's starting values from the saved default settings. */
export function formFromSettings(s: CrawlSettings, name = ''): CrawlForm {
  return {
    mode: s.mode ?? 'spider',
    name,
    startUrl: s.startUrl,
    sitemapUrls: s.sitemapUrls.join('\n'),
    fetchPages: s.fetchPages,
    followLinks: s.followLinks,
    useSitemaps: s.useSitemaps ?? true,
    respectRobots: s.respectRobots,
    scope: s.scope,
    include: s.include.join('\n'),
    exclude: s.exclude.join('\n'),
    maxDepth: s.maxDepth === null ? '' : String(s.maxDepth),
    maxUrls: s.maxUrls === null ? '' : String(s.maxUrls),
    concurrency: String(s.concurrency),
    perHostConcurrency: String(s.perHostConcurrency),
    delayMs: String(s.delayMs),
    userAgent: s.userAgent,
    timeoutMs: String(s.timeoutMs),
    idleTimeoutMs: String(s.idleTimeoutMs ?? DEFAULT_SETTINGS.idleTimeoutMs),
    sitemapTimeoutMs: String(s.sitemapTimeoutMs ?? DEFAULT_SETTINGS.sitemapTimeoutMs),
    retries: String(s.retries),
  };
}

interface IntRule {
  min: number;
  max: number;
  label: string;
  optional?: boolean;
}

const intRules: Partial<Record<keyof CrawlForm, IntRule>> = {
  maxDepth: { min: 0, max: 10_000, label: 'Max depth', optional: true },
  maxUrls: { min: 1, max: 100_000_000, label: 'Max URLs', optional: true },
  concurrency: { min: 1, max: 256, label: 'Concurrency' },
  perHostConcurrency: { min: 1, max: 256, label: 'Per-host concurrency' },
  delayMs: { min: 0, max: 600_000, label: 'Delay' },
  timeoutMs: { min: 1000, max: 600_000, label: 'Timeout' },
  idleTimeoutMs: { min: 1000, max: 600_000, label: 'Idle timeout' },
  sitemapTimeoutMs: { min: 1000, max: 3_600_000, label: 'Sitemap timeout' },
  retries: { min: 0, max: 20, label: 'Retries' },
};

function checkInt(text: string, rule: IntRule): string | undefined {
  const t = text.trim().replace(/[,_ ]/g, '');
  if (t === '') return rule.optional ? undefined : `${rule.label} is required.`;
  if (!/^\d+$/.test(t)) return `${rule.label} must be a whole number${rule.optional ? ' (or empty for no limit)' : ''}.`;
  const n = Number(t);
  if (n < rule.min || n > rule.max) return `${rule.label} must be between ${rule.min.toLocaleString('en-US')} and ${rule.max.toLocaleString('en-US')}.`;
  return undefined;
}

function intOf(text: string): number | null {
  const t = text.trim().replace(/[,_ ]/g, '');
  return t === '' ? null : Number(t);
}

/** Every field's problem, keyed by field; empty when the form can be submitted. */
export function validateForm(f: CrawlForm): FormErrors {
  const errors: FormErrors = {};
  const sitemaps = checkSitemapList(f.mode === 'list' ? '' : f.sitemapUrls);
  if (f.mode === 'list') {
    // The list is the start: a start URL is optional (it names the crawl's site when given).
    if (f.startUrl.trim() !== '') {
      const c = checkHttpUrl(f.startUrl);
      if (!c.ok) errors.startUrl = c.error;
    }
  } else if (f.startUrl.trim() === '') {
    if (!f.useSitemaps) {
      errors.startUrl = 'Links only starts from a page: enter the site address.';
    } else if (sitemaps.urls.length === 0 && sitemaps.errors.length === 0) {
      errors.startUrl = 'Enter the site address, or give sitemap URLs to start from.';
    }
  } else {
    const c = checkHttpUrl(f.startUrl);
    if (!c.ok) errors.startUrl = c.error;
  }
  if (sitemaps.errors.length) errors.sitemapUrls = sitemaps.errors.join('\n');
  const inc = checkPatterns(f.include);
  if (inc.errors.length) errors.include = inc.errors.join('\n');
  const exc = checkPatterns(f.exclude);
  if (exc.errors.length) errors.exclude = exc.errors.join('\n');
  for (const [key, rule] of Object.entries(intRules) as [keyof CrawlForm, IntRule][]) {
    const msg = checkInt(String(f[key]), rule);
    if (msg) errors[key] = msg;
  }
  if (!errors.concurrency && !errors.perHostConcurrency && intOf(f.perHostConcurrency)! > intOf(f.concurrency)!) {
    errors.perHostConcurrency = 'Per-host concurrency cannot be more than the overall concurrency.';
  }
  if (f.userAgent.trim() === '') errors.userAgent = 'Enter a user agent: sites see it in their logs.';
  if (f.name.length > 200) errors.name = 'Keep the name under 200 characters.';
  return errors;
}

/** The settings a valid form stands for (call validateForm first). */
export function settingsFromForm(f: CrawlForm): Omit<CrawlSettings, 'connectTimeoutMs' | 'maxBodyBytes'> {
  const start = f.startUrl.trim();
  const startCheck = start ? checkHttpUrl(start) : undefined;
  const list = f.mode === 'list';
  return {
    mode: f.mode,
    useSitemaps: f.useSitemaps,
    startUrl: startCheck?.url ?? start,
    sitemapUrls: list ? [] : checkSitemapList(f.sitemapUrls).urls,
    fetchPages: f.fetchPages,
    followLinks: f.fetchPages && f.followLinks,
    respectRobots: f.respectRobots,
    scope: f.scope,
    include: checkPatterns(f.include).patterns,
    exclude: checkPatterns(f.exclude).patterns,
    maxDepth: intOf(f.maxDepth),
    maxUrls: intOf(f.maxUrls),
    concurrency: intOf(f.concurrency) ?? 1,
    perHostConcurrency: intOf(f.perHostConcurrency) ?? 1,
    delayMs: intOf(f.delayMs) ?? 0,
    userAgent: f.userAgent.trim(),
    timeoutMs: intOf(f.timeoutMs) ?? 30_000,
    idleTimeoutMs: intOf(f.idleTimeoutMs) ?? DEFAULT_SETTINGS.idleTimeoutMs,
    sitemapTimeoutMs: intOf(f.sitemapTimeoutMs) ?? DEFAULT_SETTINGS.sitemapTimeoutMs,
    retries: intOf(f.retries) ?? 0,
  };
}

/**
 * The settings worth saving as defaults: everything but what names one site, and not the list
 * mode's own choices (its mode and its links option: a list crawl is picked each time).
 */
export function defaultsPatchFromForm(f: CrawlForm): Partial<CrawlSettings> {
  const { startUrl: _s, sitemapUrls: _m, mode: _mode, ...rest } = settingsFromForm(f);
  if (f.mode === 'list') {
    const { followLinks: _f, ...spider } = rest;
    return spider;
  }
  return rest;
}

/**
 * Switches the form between spider and list mode. A list's links are not followed unless asked
 * (the option starts off); back in spider mode they are, as a full crawl does.
 */
export function withCrawlMode(f: CrawlForm, mode: CrawlForm['mode']): CrawlForm {
  if (f.mode === mode) return f;
  return mode === 'list' ? { ...f, mode, fetchPages: true, followLinks: false } : { ...f, mode, followLinks: true };
}

/** A suggested crawl name from the start URL or first sitemap: its host. */
export function suggestName(f: Pick<CrawlForm, 'startUrl' | 'sitemapUrls'>): string {
  const first = f.startUrl.trim() || splitLines(f.sitemapUrls)[0]?.value || '';
  try {
    return new URL(first).host;
  } catch {
    return '';
  }
}
