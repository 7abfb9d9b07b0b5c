/**
 * The output side of parsing one sitemap: checks each loc, counts entries, caps problems, records
 * the one fatal problem, and hands items to the caller in document order.
 */
import type { Problem, SitemapType, SitemapUrlEntry } from '../../../../shared/model.js';
import type { SitemapItem, SitemapLimits, SitemapSummary } from '../../types.js';
import { inSitemapScope, resolveUrl } from '../../frontier/url.js';
import { MAX_FIELD_CHARS } from './limits.js';
import { ProblemLog } from './problem-log.js';

const HTTP_SCHEME = /^https?:\/\//i;

export class ItemSink {
  type: SitemapType = 'unknown';
  urlCount = 0;
  childCount = 0;
  fatal: Problem | undefined;
  /** ` (served as text/html)` when the Content-Type is known: for messages that say what the body is. */
  servedAs = '';
  /** Set when nothing more is to be read (a fatal problem, or content after the root element). */
  stopped = false;
  private readonly problems: ProblemLog;
  private tooManyReported = false;

  constructor(
    readonly sitemapUrl: string,
    readonly limits: SitemapLimits,
    private readonly onItem: (item: SitemapItem) => void,
    /** Where entries must lie: the sitemap's own folder, or a whole host the sitemap was cross-submitted for. */
    readonly scopeUrl: string = sitemapUrl,
  ) {
    this.problems = new ProblemLog((problem) => this.onItem({ kind: 'problem', problem }));
  }

  /** Reports a per-entry or document problem (capped per code). */
  problem(code: string, message: string, url?: string): void {
    this.problems.report(url === undefined ? { code, message } : { code, message, url });
  }

  /** Stops reading with a fatal problem; it is yielded as an item too. The first fatal wins. */
  stop(code: string, message: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.fatal = { code, message };
    this.onItem({ kind: 'problem', problem: this.fatal });
  }

  /** Stops reading without a fatal problem (the document is complete; what follows is ignored). */
  halt(): void {
    this.stopped = true;
  }

  /**
   * Checks a listed URL (already trimmed): returns it when it is an absolute http(s) URL, reporting
   * URL_OUT_OF_SCOPE when it lies outside the sitemap's location; null (and a problem) otherwise.
   * `what` names the element for messages (`<loc>`, `line 12`); `overflowed` says the text was cut at MAX_FIELD_CHARS.
   */
  checkLoc(loc: string, what: string, overflowed = false): string | null {
    if (overflowed || loc.length > MAX_FIELD_CHARS) {
      this.problem('LOC_TOO_LONG', `A ${what} longer than ${MAX_FIELD_CHARS} characters was skipped.`, clip(loc));
      return null;
    }
    // U+FFFD is what decoding made of bytes that are not UTF-8, of `&#0;` or of a surrogate: the
    // URL the server meant is unknown, and the one written would be fetched as %EF%BF%BD.
    if (loc.indexOf('\uFFFD') !== -1) {
      this.problem(
        'INVALID_URL',
        `${capitalise(what)} "${clip(loc)}" holds characters that cannot be read (bytes that are not UTF-8, \`&#0;\` or a surrogate code point, decoded as U+FFFD); skipped.`,
        clip(loc),
      );
      return null;
    }
    // inSitemapScope parses the URL only when its fast path fails, so it doubles as the cheap validity check.
    if (inSitemapScope(loc, this.scopeUrl)) return loc;
    if (!HTTP_SCHEME.test(loc) || resolveUrl(loc, this.sitemapUrl) === null) {
      this.problem(
        'INVALID_URL',
        loc === ''
          ? `An empty ${what} was skipped.`
          : `${capitalise(what)} "${clip(loc)}" is not an absolute http(s) URL; skipped (sitemaps must list full URLs).`,
        clip(loc),
      );
      return null;
    }
    this.problem(
      'URL_OUT_OF_SCOPE',
      this.scopeUrl === this.sitemapUrl
        ? `${loc} lies outside this sitemap's location (${this.sitemapUrl}); search engines ignore it unless robots.txt announces the sitemap.`
        : `${loc} lies outside ${this.scopeUrl}, the host whose robots.txt announces this sitemap; search engines ignore it.`,
      loc,
    );
    return loc;
  }

  /** Emits a URL entry. */
  url(entry: SitemapUrlEntry): void {
    this.urlCount++;
    if (this.urlCount > this.limits.maxUrlsPerSitemap) this.tooMany('URLs');
    this.onItem({ kind: 'url', entry });
  }

  /** Emits a child sitemap of an index. */
  child(loc: string, lastmod: string | undefined): void {
    this.childCount++;
    if (this.childCount > this.limits.maxUrlsPerSitemap) this.tooMany('sitemaps');
    this.onItem(lastmod === undefined ? { kind: 'sitemap', loc } : { kind: 'sitemap', loc, lastmod });
  }

  private tooMany(what: string): void {
    if (this.tooManyReported) return;
    this.tooManyReported = true;
    this.problem(
      'TOO_MANY_URLS',
      `This sitemap lists more than ${this.limits.maxUrlsPerSitemap.toLocaleString('en-US')} ${what} (the protocol's limit); search engines may ignore the rest. Reading goes on.`,
    );
  }

  /** Emits the "… and N more" summaries. Call once, at the end. */
  finish(): void {
    this.problems.flush();
  }

  /** The summary so far. */
  summary(gzip: boolean, uncompressedBytes: number): SitemapSummary {
    const s: SitemapSummary = {
      type: this.type,
      gzip,
      uncompressedBytes,
      urlCount: this.urlCount,
      childCount: this.childCount,
    };
    if (this.fatal) s.fatal = this.fatal;
    return s;
  }
}

/** Shortens a value quoted in a message. */
export function clip(s: string): string {
  return s.length > 200 ? s.slice(0, 200) + '…' : s;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
