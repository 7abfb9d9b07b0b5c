/**
 * The shortcut for the usual `<url>` of a urlset: `<url>`, then `<loc>`, `<lastmod>`, `<changefreq>`
 * and `<priority>` (each at most once, any order, no prefix, no attribute), plain text in each (no
 * markup, no entity but `&amp;`), whitespace between, `</url>`, all within one decoded chunk; in the
 * usual order, hreflang alternates too (`<xhtml:link rel="alternate" hreflang=".." href=".."/>`). Such an
 * element is read here in one regular-expression match (the usual order) or a few native searches
 * (any other order) instead of some 60 trips through the tokenizer's
 * state machine and a dozen reader and handler callbacks; it yields exactly the field values those
 * would (text decoded and trimmed). Anything else, or anything odd, is declined and read the usual
 * way, which also reports its problems. test/engine/sitemap-shortcut.test.ts checks the two ways
 * agree over the conformance sitemaps and random documents, in random chunks.
 */
import type { HreflangAlternate, SitemapImage } from '../../../../shared/model.js';
import { MAX_ENTRY_CHARS, MAX_ENTRY_ITEMS, MAX_FIELD_CHARS } from './limits.js';

const LT = 0x3c;
const SLASH = 0x2f;

const FIELDS = ['loc', 'lastmod', 'changefreq', 'priority'] as const;
/** `name>` of each field, to compare after the `<` and after the `</`. */
const TAGS = FIELDS.map((f) => f + '>');

/** An entity other than `&amp;`. */
const OTHER_ENTITY = /&(?!amp;)/;

/** A field's text as the matcher takes it: no markup, no entity but `&amp;`. */
const TEXT = '[^<&]*(?:&amp;[^<&]*)*';
const SPACE = '[ \\t\\n\\r]*';
const SPACES = '[ \\t\\n\\r]+';
/** An attribute value as the matcher takes it: no markup, no entity. */
const VALUE = '[^"<&]*';
/** One hreflang alternate as sitemap generators write it (rel, hreflang, href, in that order, double quotes). */
const LINK = `<xhtml:link${SPACES}rel="alternate"${SPACES}hreflang="(${VALUE})"${SPACES}href="(${VALUE})"${SPACE}/>`;
/** A pattern with its capturing groups made non-capturing. */
function uncaptured(pattern: string): string {
  return pattern.replace(/\((?!\?)/g, '(?:');
}
/**
 * A run of `item`s (each followed by whitespace), captured whole as group `group`, and atomic: a
 * lookahead captures the longest run and a backreference takes it, so a failing match never tries
 * shorter runs. Without that, a <url> with n links and then anything unexpected tried every split
 * of the links between the two runs: n² link matches before declining.
 */
function run(item: string, group: number): string {
  return `(?=((?:${uncaptured(item)}${SPACE})*))\\${group}`;
}
const LINKS_EACH = new RegExp(LINK, 'g');
/** One image (loc, then title and caption, each optional). */
const IMAGE = `<image:image>${SPACE}<image:loc>(${TEXT})</image:loc>${SPACE}(?:<image:title>(${TEXT})</image:title>${SPACE})?(?:<image:caption>(${TEXT})</image:caption>${SPACE})?</image:image>`;
const IMAGES_EACH = new RegExp(IMAGE, 'g');
/**
 * The usual <url> in the usual order (loc, then lastmod, changefreq, priority, each optional, with
 * hreflang alternates after the loc or after the rest, then images), in one native match: twice as
 * fast as the general scan below, which takes the other orders of the four fields and nothing else.
 * Groups: 1 loc, 2 links, 3 lastmod, 4 changefreq, 5 priority, 6 links, 7 images.
 */
const USUAL = new RegExp(
  `<url>${SPACE}<loc>(${TEXT})</loc>${SPACE}${run(LINK, 2)}(?:<lastmod>(${TEXT})</lastmod>${SPACE})?(?:<changefreq>(${TEXT})</changefreq>${SPACE})?(?:<priority>(${TEXT})</priority>${SPACE})?${run(LINK, 6)}${run(IMAGE, 7)}</url>`,
  'y',
);
const HTTP_SCHEME = /^https?:\/\//i;

/**
 * The alternates of a run of links, as the handler would take them (values trimmed); null when one
 * would be a problem (no hreflang, or no absolute href) or too long: the usual way reports it.
 */
function alternates(run: string, into: HreflangAlternate[]): HreflangAlternate[] | null {
  if (run === '') return into;
  LINKS_EACH.lastIndex = 0;
  for (let m = LINKS_EACH.exec(run); m !== null; m = LINKS_EACH.exec(run)) {
    if (m[1]!.length > MAX_FIELD_CHARS || m[2]!.length > MAX_FIELD_CHARS) return null;
    const lang = m[1]!.trim();
    const href = m[2]!.trim();
    if (lang === '' || href === '' || !HTTP_SCHEME.test(href)) return null;
    into.push({ lang, href });
  }
  return into;
}

/**
 * The images of a run, as the handler would take them (values decoded and trimmed, empty ones
 * left out); null when one would be a problem (no loc) or a field is too long: the usual way reports it.
 */
function images(run: string): SitemapImage[] | null {
  const out: SitemapImage[] = [];
  IMAGES_EACH.lastIndex = 0;
  for (let m = IMAGES_EACH.exec(run); m !== null; m = IMAGES_EACH.exec(run)) {
    const loc = optional(m[1]);
    const title = optional(m[2]);
    const caption = optional(m[3]);
    if (!loc || title === null || caption === null) return null;
    const image: SitemapImage = { loc };
    if (title) image.title = title;
    if (caption) image.caption = caption;
    out.push(image);
  }
  return out;
}

/** A field's value: `&amp;` decoded, trimmed (as the reader's text and the handler's trim make it). */
function value(text: string): string {
  return (text.indexOf('&') === -1 ? text : text.replaceAll('&amp;', '&')).trim();
}

/** An optional field's value, or undefined; null when it is too long for the shortcut. */
function optional(text: string | undefined): string | undefined | null {
  if (text === undefined) return undefined;
  return text.length > MAX_FIELD_CHARS ? null : value(text);
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;
}

/** Whether `buf` holds `tag` at `at` (short strings: compared in place, no slice). */
function tagAt(buf: string, at: number, tag: string): boolean {
  for (let i = 0; i < tag.length; i++) if (buf.charCodeAt(at + i) !== tag.charCodeAt(i)) return false;
  return true;
}

/** Which field's `name>` is at `at`, or -1. */
function fieldAt(buf: string, at: number): number {
  switch (buf.charCodeAt(at)) {
    case 0x6c: // l
      return tagAt(buf, at, 'loc>') ? 0 : tagAt(buf, at, 'lastmod>') ? 1 : -1;
    case 0x63: // c
      return tagAt(buf, at, 'changefreq>') ? 2 : -1;
    case 0x70: // p
      return tagAt(buf, at, 'priority>') ? 3 : -1;
  }
  return -1;
}

export class SimpleUrlMatcher {
  /** The fields of the last element matched (trimmed, decoded; undefined when absent). */
  loc: string | undefined;
  lastmod: string | undefined;
  changefreq: string | undefined;
  priority: string | undefined;
  alternates: HreflangAlternate[] | undefined;
  images: SitemapImage[] | undefined;

  /**
   * At a `<` at `at` in `buf`: the end (just past `</url>`) of a usual `<url>` starting there, its
   * fields kept in this object; -1 (fields undefined) when it is not one or does not end in `buf`.
   */
  match(buf: string, at: number): number {
    this.loc = this.lastmod = this.changefreq = this.priority = this.alternates = this.images = undefined;
    if (!tagAt(buf, at, '<url>')) return -1;
    USUAL.lastIndex = at;
    const r = USUAL.exec(buf);
    if (r !== null) {
      const end = USUAL.lastIndex;
      // An entry past its bounds is read the usual way, which keeps what they allow and says so.
      if (end - at > MAX_ENTRY_CHARS) return this.decline();
      const lastmod = optional(r[3]);
      const changefreq = optional(r[4]);
      const priority = optional(r[5]);
      if (r[1]!.length > MAX_FIELD_CHARS || lastmod === null || changefreq === null || priority === null) return -1;
      if (r[2] !== '' || r[6] !== '') {
        const alts = alternates(r[2]!, []);
        if (alts === null || alternates(r[6]!, alts) === null) return this.decline();
        this.alternates = alts;
      }
      if (r[7] !== '') {
        const imgs = images(r[7]!);
        if (imgs === null) return this.decline();
        this.images = imgs;
      }
      if ((this.alternates?.length ?? 0) + (this.images?.length ?? 0) > MAX_ENTRY_ITEMS) return this.decline();
      this.loc = value(r[1]!);
      this.lastmod = lastmod;
      this.changefreq = changefreq;
      this.priority = priority;
      return end;
    }
    const close = buf.indexOf('</url>', at + 5);
    if (close === -1) return -1;
    let p = at + 5;
    for (;;) {
      while (p < close && isSpace(buf.charCodeAt(p))) p++;
      if (p === close) break;
      if (buf.charCodeAt(p) !== LT) return this.decline();
      const f = fieldAt(buf, p + 1);
      if (f === -1) return this.decline();
      const tag = TAGS[f]!;
      const start = p + 1 + tag.length;
      const end = buf.indexOf('<', start);
      // The text runs to `</name>`, inside the <url>.
      if (end === -1 || end >= close || buf.charCodeAt(end + 1) !== SLASH || !tagAt(buf, end + 2, tag)) return this.decline();
      if (end - start > MAX_FIELD_CHARS) return this.decline();
      const text = buf.slice(start, end);
      if (OTHER_ENTITY.test(text)) return this.decline();
      const v = value(text);
      switch (f) {
        case 0:
          if (this.loc !== undefined) return this.decline();
          this.loc = v;
          break;
        case 1:
          if (this.lastmod !== undefined) return this.decline();
          this.lastmod = v;
          break;
        case 2:
          if (this.changefreq !== undefined) return this.decline();
          this.changefreq = v;
          break;
        default:
          if (this.priority !== undefined) return this.decline();
          this.priority = v;
      }
      p = end + 2 + tag.length;
    }
    // No <loc>: read the usual way, which reports it.
    if (this.loc === undefined) return this.decline();
    return close + 6;
  }

  private decline(): -1 {
    this.loc = this.lastmod = this.changefreq = this.priority = this.alternates = this.images = undefined;
    return -1;
  }
}
