/**
 * A sitemap entry's fields as compact JSON array elements: `,lastmod,changefreq,priority,extra`, 0
 * for an absent lastmod or changefreq, null for an absent priority (0.0 is a real one), trailing
 * absents dropped, and `extra` = {a: hreflang [[lang,href]…], i: images, v: videos, n: news,
 * m: mobile alternates [[media,href]…], t: a feed item's title} only when one of them is there.
 * The journal's ADMIT, DUP and DUPS records end with it (journal/format.ts), and the parse worker's
 * URL rows are `[key,"loc"` + it + `]` (worker-protocol.ts): the same text, so the journal can copy an
 * entry the worker wrote (ListingWire) instead of encoding it again.
 */
import type { HreflangAlternate, SitemapImage, SitemapMobileAlternate, SitemapNews, SitemapUrlEntry, SitemapVideo } from '../../../../shared/model.js';

/** The `extra` element: what an entry holds beyond its loc, lastmod, changefreq and priority. */
export interface EntryExtra {
  a?: [string, string][];
  i?: SitemapImage[];
  v?: SitemapVideo[];
  n?: SitemapNews;
  /** Mobile alternates as [media, href]. */
  m?: [string, string][];
  t?: string;
}

/** The entry's hreflang, images, videos, news, mobile alternates and title, compactly; undefined when it has none. */
export function entryExtra(entry: SitemapUrlEntry | undefined): EntryExtra | undefined {
  if (!entry) return undefined;
  let extra: EntryExtra | undefined;
  if (entry.alternates?.length) (extra ??= {}).a = entry.alternates.map((h) => [h.lang, h.href]);
  if (entry.images?.length) (extra ??= {}).i = entry.images;
  if (entry.videos?.length) (extra ??= {}).v = entry.videos;
  if (entry.news) (extra ??= {}).n = entry.news;
  if (entry.mobile?.length) (extra ??= {}).m = entry.mobile.map((m) => [m.media, m.href]);
  if (entry.title !== undefined) (extra ??= {}).t = entry.title;
  return extra;
}

/** `,lastmod,changefreq,priority,extra` with placeholders for absent fields and trailing absents dropped. */
export function encodeTail(entry: SitemapUrlEntry | undefined, extra: EntryExtra | undefined): string {
  const lastmod = entry?.lastmod;
  const changefreq = entry?.changefreq;
  const priority = entry?.priority;
  const hasPriority = priority !== undefined && Number.isFinite(priority);
  const lm = lastmod !== undefined ? JSON.stringify(lastmod) : '0';
  if (extra) {
    const cf = changefreq !== undefined ? JSON.stringify(changefreq) : '0';
    return ',' + lm + ',' + cf + ',' + (hasPriority ? String(priority) : 'null') + ',' + JSON.stringify(extra);
  }
  if (hasPriority) return ',' + lm + ',' + (changefreq !== undefined ? JSON.stringify(changefreq) : '0') + ',' + String(priority);
  if (changefreq !== undefined) return ',' + lm + ',' + JSON.stringify(changefreq);
  if (lastmod !== undefined) return ',' + lm;
  return '';
}

/** The sitemap entry whose fields start at index `tail` of a parsed array (see encodeTail). */
export function decodeEntry(r: unknown[], tail: number, url: string): SitemapUrlEntry {
  const entry: SitemapUrlEntry = { loc: url };
  const lastmod = r[tail];
  const changefreq = r[tail + 1];
  const priority = r[tail + 2];
  const extra = r[tail + 3] as EntryExtra | undefined;
  if (typeof lastmod === 'string') entry.lastmod = lastmod;
  if (typeof changefreq === 'string') entry.changefreq = changefreq;
  if (typeof priority === 'number') entry.priority = priority;
  if (extra) {
    // In the parser's order of the fields (xml-sitemap.ts), so decoded entries compare equal key by key.
    if (typeof extra.t === 'string') entry.title = extra.t;
    if (extra.a) entry.alternates = extra.a.map(([lang, href]): HreflangAlternate => ({ lang, href }));
    if (extra.m) entry.mobile = extra.m.map(([media, href]): SitemapMobileAlternate => ({ href, media }));
    if (extra.i) entry.images = extra.i;
    if (extra.v) entry.videos = extra.v;
    if (extra.n) entry.news = extra.n;
  }
  return entry;
}
