/**
 * The sitemap vocabularies over XML element events: urlset (with the hreflang, mobile, image, video
 * and news extensions), sitemapindex, RSS 2.0 (and 1.0) and Atom (1.0 and 0.3). Namespace-agnostic:
 * elements are matched by local name and position, so `sit:urlset` or a missing namespace read the same.
 */
import type { HreflangAlternate, SitemapImage, SitemapMobileAlternate, SitemapNews, SitemapUrlEntry, SitemapVideo } from '../../../../shared/model.js';
import { resolveUrl } from '../../frontier/url.js';
import { isW3cDatetime, rfc822LacksZone, rfc822ToIso, w3cDatetimeMs } from './datetime.js';
import { MAX_ENTRY_CHARS, MAX_ENTRY_ITEMS, MAX_FIELD_CHARS, MAX_PROBLEMS_PER_CODE } from './limits.js';
import { clip, type ItemSink } from './sink.js';
import { SimpleUrlMatcher } from './simple-url.js';
import type { Attributes, ElementHandler } from './xml-reader.js';

const SITEMAP_NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
const ATOM_NS = 'http://www.w3.org/2005/Atom';
const ATOM03_NS = 'http://purl.org/atom/ns#';
const CHANGEFREQS = new Set(['always', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', 'never']);
/** What `<priority>` may hold: digits with one optional point, at least one digit (no sign, exponent or hex). */
const PRIORITY = /^(?:\d+(?:\.\d*)?|\.\d+)$/;
const HTTP_SCHEME = /^https?:\/\//i;
/** Whitespace runs in a title (line breaks of a wrapped feed title): one space each. */
const SPACE_RUN = /\s+/g;

// Document kinds.
const K_NONE = 0;
const K_URLSET = 1;
const K_INDEX = 2;
const K_RSS = 3;
const K_ATOM = 4;

// Extension blocks inside a <url>.
const S_NONE = 0;
const S_IMAGE = 1;
const S_VIDEO = 2;
const S_NEWS = 3;

// Captured fields (numbers, not strings: compared on every element).
const F_NONE = 0;
const F_LOC = 1;
const F_LASTMOD = 2;
const F_CHANGEFREQ = 3;
const F_PRIORITY = 4;
const F_IMAGE_LOC = 5;
const F_IMAGE_TITLE = 6;
const F_IMAGE_CAPTION = 7;
const F_VIDEO_THUMBNAIL = 8;
const F_VIDEO_TITLE = 9;
const F_VIDEO_DESCRIPTION = 10;
const F_VIDEO_CONTENT = 11;
const F_VIDEO_PLAYER = 12;
const F_VIDEO_DURATION = 13;
const F_VIDEO_DATE = 14;
const F_NEWS_NAME = 15;
const F_NEWS_LANGUAGE = 16;
const F_NEWS_DATE = 17;
const F_NEWS_TITLE = 18;
/** Text directly inside an index's <sitemap>, kept only to explain a missing <loc>. */
const F_BARE = 19;
/** A feed item's <title>. */
const F_TITLE = 20;
/** A feed entry's second and third choice of date: Atom's <published> (0.3: <issued>), then 0.3's <created>. */
const F_PUBLISHED = 21;
const F_CREATED = 22;

const FIELD_NAMES: Record<number, string> = {
  [F_LASTMOD]: '<lastmod>',
  [F_CHANGEFREQ]: '<changefreq>',
  [F_PRIORITY]: '<priority>',
  [F_IMAGE_LOC]: '<image:loc>',
  [F_IMAGE_TITLE]: '<image:title>',
  [F_IMAGE_CAPTION]: '<image:caption>',
  [F_VIDEO_THUMBNAIL]: '<video:thumbnail_loc>',
  [F_VIDEO_TITLE]: '<video:title>',
  [F_VIDEO_DESCRIPTION]: '<video:description>',
  [F_VIDEO_CONTENT]: '<video:content_loc>',
  [F_VIDEO_PLAYER]: '<video:player_loc>',
  [F_VIDEO_DURATION]: '<video:duration>',
  [F_VIDEO_DATE]: '<video:publication_date>',
  [F_NEWS_NAME]: '<news:name>',
  [F_NEWS_LANGUAGE]: '<news:language>',
  [F_NEWS_DATE]: '<news:publication_date>',
  [F_NEWS_TITLE]: '<news:title>',
  [F_BARE]: 'text',
  [F_TITLE]: '<title>',
  [F_PUBLISHED]: '<published>',
  [F_CREATED]: '<created>',
};

interface VideoDraft extends SitemapVideo {
  durationText?: string;
}

export class SitemapXmlHandler implements ElementHandler {
  capturing = false;

  private kind = K_NONE;
  private rootName = '';

  // the open entry (<url>, <sitemap>, <item>, <entry>); entryDepth -1 when none
  private entryDepth = -1;
  private loc: string | undefined;
  private locOverflowed = false;
  private lastmod: string | undefined;
  private changefreq: string | undefined;
  private priority: string | undefined;
  private alternates: HreflangAlternate[] | undefined;
  private mobile: SitemapMobileAlternate[] | undefined;
  private images: SitemapImage[] | undefined;
  private videos: VideoDraft[] | undefined;
  private news: SitemapNews | undefined;
  private atomLinks: string[] | undefined;
  private title: string | undefined;
  private published: string | undefined;
  private created: string | undefined;
  private bareText: string | undefined;
  /** Problems found inside the entry, reported once its URL is known: the first of each code, and how many there were. */
  private deferred: [code: string, message: string][] | undefined;
  private deferredCounts: Map<string, number> | undefined;
  /** Alternates, images, videos and links the entry holds, the characters of their text, and whether one was left out. */
  private entryItems = 0;
  private entryChars = 0;
  private entryFull = false;

  // an extension block inside the entry
  private sub = S_NONE;
  private subDepth = -1;
  private image: Partial<SitemapImage> | undefined;
  private video: VideoDraft | undefined;
  private inPublication = false;

  // the field whose text is being captured
  private field = F_NONE;
  private fieldDepth = -1;
  private text_ = '';
  private overflowed = false;

  private readonly simple = new SimpleUrlMatcher();

  constructor(private readonly sink: ItemSink) {}

  /** A usual `<url>` of a urlset, read whole (simple-url.ts). */
  matchWhole(buffer: string, at: number): number {
    if (this.kind !== K_URLSET || this.entryDepth !== -1 || this.field !== F_NONE) return -1;
    return this.simple.match(buffer, at);
  }

  /** What openElement('url'), its fields and closeElement would have done. */
  takeWhole(): void {
    const m = this.simple;
    this.startEntry(1);
    this.loc = m.loc;
    this.lastmod = m.lastmod;
    this.changefreq = m.changefreq;
    this.priority = m.priority;
    this.alternates = m.alternates;
    this.images = m.images;
    this.endEntry();
  }

  wantsAttributes(local: string): boolean {
    return local === 'link';
  }

  openElement(qname: string, local: string, depth: number, attrs: Attributes | null): void {
    if (depth === 0) {
      this.openRoot(qname, local, attrs ?? {});
      return;
    }
    if (this.field === F_BARE) this.stopCapture(); // the <sitemap> has child elements: no bare text to explain
    if (this.field !== F_NONE) return; // markup inside a field: its text is still the field's
    switch (this.kind) {
      case K_URLSET:
        if (depth === 1) {
          if (local === 'url') this.startEntry(1);
          else if (local === 'sitemap') this.wrongEntry('<sitemap>', 'a urlset', 'a sitemap index');
        } else if (this.entryDepth === 1) {
          this.openInUrl(local, depth, attrs);
        }
        return;
      case K_INDEX:
        if (depth === 1) {
          if (local === 'sitemap') {
            this.startEntry(1);
            this.capture(F_BARE, 1);
          } else if (local === 'url') {
            this.wrongEntry('<url>', 'a sitemap index', 'a urlset');
          }
        } else if (depth === 2 && this.entryDepth === 1) {
          if (local === 'loc') this.capture(F_LOC, depth);
          else if (local === 'lastmod') this.capture(F_LASTMOD, depth);
        }
        return;
      case K_RSS:
        if (this.entryDepth === -1) {
          if (local === 'item') this.startEntry(depth);
        } else if (depth === this.entryDepth + 1) {
          if (local === 'link') {
            const href = attrs?.href; // <atom:link href> inside an item
            if (href === undefined) this.capture(F_LOC, depth);
            else if (this.loc === undefined) this.loc = href.trim();
          } else if (local === 'pubDate') {
            this.capture(F_LASTMOD, depth);
          } else if (local === 'title') {
            this.capture(F_TITLE, depth);
          }
        }
        return;
      case K_ATOM:
        if (depth === 1) {
          if (local === 'entry') this.startEntry(1);
        } else if (depth === 2 && this.entryDepth === 1) {
          switch (local) {
            case 'link':
              return this.atomLink(attrs ?? {});
            case 'title':
              return this.capture(F_TITLE, depth);
            // Atom 1.0 dates an entry by <updated>, else <published>; Atom 0.3 by <modified>, <issued>, <created>.
            case 'updated':
            case 'modified':
              return this.capture(F_LASTMOD, depth);
            case 'published':
            case 'issued':
              return this.capture(F_PUBLISHED, depth);
            case 'created':
              return this.capture(F_CREATED, depth);
          }
        }
        return;
    }
  }

  text(s: string): void {
    if (this.overflowed) return;
    if (this.text_.length + s.length > MAX_FIELD_CHARS) {
      this.overflowed = true;
      this.text_ += s.slice(0, MAX_FIELD_CHARS - this.text_.length);
    } else {
      this.text_ += s;
    }
  }

  closeElement(_local: string, depth: number): void {
    if (this.field !== F_NONE && depth === this.fieldDepth) this.endField();
    if (depth === this.entryDepth) {
      this.endEntry();
    } else if (this.sub !== S_NONE) {
      if (depth === this.subDepth) this.endSub();
      else if (this.inPublication && depth === this.subDepth + 1) this.inPublication = false;
    }
  }

  interrupted(): void {
    if (this.entryDepth === -1) return;
    if (this.field !== F_NONE) this.stopCapture(); // a field cut short is not kept
    if (this.sub !== S_NONE) this.sub = S_NONE;
    if (this.loc !== undefined || this.atomLinks !== undefined) this.endEntry();
  }

  // ------------------------------------------------------------ root

  private openRoot(qname: string, local: string, attrs: Attributes): void {
    this.rootName = qname;
    let ns: string | undefined;
    switch (local) {
      case 'urlset':
        this.kind = K_URLSET;
        this.sink.type = 'urlset';
        ns = SITEMAP_NS;
        break;
      case 'sitemapindex':
        this.kind = K_INDEX;
        this.sink.type = 'sitemapindex';
        ns = SITEMAP_NS;
        break;
      case 'rss':
      case 'RDF': // RSS 1.0
        this.kind = K_RSS;
        this.sink.type = 'rss';
        break;
      case 'feed':
        this.kind = K_ATOM;
        this.sink.type = 'atom';
        ns = ATOM_NS;
        break;
      default:
        this.sink.type = 'unknown';
        this.sink.stop(
          'NOT_A_SITEMAP',
          `The root element is <${qname}>${local === 'html' ? ' (an HTML page)' : ''}${this.sink.servedAs}, not <urlset>, <sitemapindex>, <rss> or <feed>: this is not a sitemap. Check the sitemap address.`,
        );
        return;
    }
    if (ns === undefined) return;
    const colon = qname.indexOf(':');
    const declared = attrs[colon === -1 ? 'xmlns' : `xmlns:${qname.slice(0, colon)}`];
    if (declared !== ns && !(this.kind === K_ATOM && declared === ATOM03_NS)) {
      this.sink.problem(
        'WRONG_NAMESPACE',
        declared === undefined
          ? `<${qname}> declares no namespace; the protocol expects "${ns}". Read anyway, but some search engines may reject it.`
          : `<${qname}> declares the namespace "${clip(declared)}" instead of "${ns}". Read anyway, but some search engines may reject it.`,
      );
    }
  }

  private wrongEntry(element: string, inside: string, belongs: string): void {
    this.sink.problem('WRONG_ENTRY_KIND', `A ${element} entry in ${inside} (<${this.rootName}>) was skipped: it belongs in ${belongs}.`);
  }

  // ------------------------------------------------------------ <url>

  private openInUrl(local: string, depth: number, attrs: Attributes | null): void {
    if (depth === 2) {
      switch (local) {
        case 'loc':
          return this.capture(F_LOC, depth);
        case 'lastmod':
          return this.capture(F_LASTMOD, depth);
        case 'changefreq':
          return this.capture(F_CHANGEFREQ, depth);
        case 'priority':
          return this.capture(F_PRIORITY, depth);
        case 'link':
          return this.alternate(attrs ?? {});
        case 'image':
          this.image = {};
          return this.startSub(S_IMAGE, depth);
        case 'video':
          this.video = {};
          return this.startSub(S_VIDEO, depth);
        case 'news':
          this.news = {};
          return this.startSub(S_NEWS, depth);
      }
      return; // <mobile:mobile>, PageMaps and other extensions: nothing to read
    }
    if (depth === 3) {
      switch (this.sub) {
        case S_IMAGE:
          if (local === 'loc') this.capture(F_IMAGE_LOC, depth);
          else if (local === 'title') this.capture(F_IMAGE_TITLE, depth);
          else if (local === 'caption') this.capture(F_IMAGE_CAPTION, depth);
          return;
        case S_VIDEO:
          switch (local) {
            case 'thumbnail_loc':
              return this.capture(F_VIDEO_THUMBNAIL, depth);
            case 'title':
              return this.capture(F_VIDEO_TITLE, depth);
            case 'description':
              return this.capture(F_VIDEO_DESCRIPTION, depth);
            case 'content_loc':
              return this.capture(F_VIDEO_CONTENT, depth);
            case 'player_loc':
              return this.capture(F_VIDEO_PLAYER, depth);
            case 'duration':
              return this.capture(F_VIDEO_DURATION, depth);
            case 'publication_date':
              return this.capture(F_VIDEO_DATE, depth);
          }
          return;
        case S_NEWS:
          if (local === 'publication') this.inPublication = true;
          else if (local === 'publication_date') this.capture(F_NEWS_DATE, depth);
          else if (local === 'title') this.capture(F_NEWS_TITLE, depth);
          return;
      }
      return;
    }
    if (depth === 4 && this.inPublication) {
      if (local === 'name') this.capture(F_NEWS_NAME, depth);
      else if (local === 'language') this.capture(F_NEWS_LANGUAGE, depth);
    }
  }

  private alternate(attrs: Attributes): void {
    if ((attrs.rel ?? '').trim().toLowerCase() !== 'alternate') return;
    const lang = attrs.hreflang?.trim();
    const href = attrs.href?.trim();
    const media = attrs.media?.trim();
    if (!lang && media) {
      // No hreflang but a media query: Google's annotation of a separate mobile URL, not a language version.
      if (!href || !HTTP_SCHEME.test(href)) {
        this.defer(
          'INVALID_ALTERNATE',
          `An <xhtml:link rel="alternate" media="${clip(media)}"> (a mobile version) needs an absolute href (found href="${clip(href ?? '')}"); skipped.`,
        );
        return;
      }
      if (this.admit(href.length + media.length)) (this.mobile ??= []).push({ href, media });
      return;
    }
    if (!lang || !href || !HTTP_SCHEME.test(href)) {
      this.defer(
        'INVALID_ALTERNATE',
        `An <xhtml:link rel="alternate"> needs hreflang and an absolute href (found hreflang="${clip(lang ?? '')}", href="${clip(href ?? '')}"); skipped.`,
      );
      return;
    }
    if (this.admit(lang.length + href.length)) (this.alternates ??= []).push({ lang, href });
  }

  private startSub(sub: number, depth: number): void {
    this.sub = sub;
    this.subDepth = depth;
  }

  private endSub(): void {
    if (this.sub === S_IMAGE) {
      const image = this.image!;
      if (image.loc === undefined) this.defer('MISSING_IMAGE_LOC', 'An <image:image> without <image:loc> was skipped.');
      else if (this.admit(textLength(image))) (this.images ??= []).push(image as SitemapImage);
      this.image = undefined;
    } else if (this.sub === S_VIDEO) {
      if (this.admit(textLength(this.video!))) (this.videos ??= []).push(this.video!);
      this.video = undefined;
    }
    this.sub = S_NONE;
    this.inPublication = false;
  }

  // ------------------------------------------------------------ Atom

  private atomLink(attrs: Attributes): void {
    const rel = (attrs.rel ?? 'alternate').trim().toLowerCase();
    if (rel !== 'alternate') return;
    const href = (attrs.href ?? '').trim();
    // Atom hrefs may be relative to the feed; sitemap <loc>s may not.
    const url = resolveUrl(href, this.sink.sitemapUrl) ?? href;
    const links = (this.atomLinks ??= []);
    if (!links.includes(url) && this.admit(url.length)) links.push(url);
  }

  // ------------------------------------------------------------ fields

  private capture(field: number, depth: number): void {
    this.field = field;
    this.fieldDepth = depth;
    this.text_ = '';
    this.overflowed = false;
    this.capturing = true;
  }

  private stopCapture(): void {
    this.field = F_NONE;
    this.fieldDepth = -1;
    this.capturing = false;
    this.text_ = '';
  }

  private endField(): void {
    const field = this.field;
    const value = this.text_.trim();
    const overflowed = this.overflowed;
    this.stopCapture();
    if (field === F_LOC) {
      if (this.loc === undefined) {
        this.loc = value;
        this.locOverflowed = overflowed;
      } else {
        this.defer('MULTIPLE_LOC', `The entry has a second <loc> "${clip(value)}"; only the first was kept.`);
      }
      return;
    }
    if (overflowed) {
      this.defer('FIELD_TOO_LONG', `${FIELD_NAMES[field]} is longer than ${MAX_FIELD_CHARS} characters; it was cut.`);
    }
    switch (field) {
      case F_LASTMOD:
        this.lastmod = value;
        return;
      case F_CHANGEFREQ:
        this.changefreq = value;
        return;
      case F_PRIORITY:
        this.priority = value;
        return;
      case F_IMAGE_LOC:
        if (value !== '') this.image!.loc = value;
        return;
      case F_IMAGE_TITLE:
        if (value !== '') this.image!.title = value;
        return;
      case F_IMAGE_CAPTION:
        if (value !== '') this.image!.caption = value;
        return;
      case F_VIDEO_THUMBNAIL:
        if (value !== '') this.video!.thumbnailLoc = value;
        return;
      case F_VIDEO_TITLE:
        if (value !== '') this.video!.title = value;
        return;
      case F_VIDEO_DESCRIPTION:
        if (value !== '') this.video!.description = value;
        return;
      case F_VIDEO_CONTENT:
        if (value !== '') this.video!.contentLoc = value;
        return;
      case F_VIDEO_PLAYER:
        if (value !== '') this.video!.playerLoc = value;
        return;
      case F_VIDEO_DURATION:
        this.video!.durationText = value;
        return;
      case F_VIDEO_DATE:
        if (value !== '') this.video!.publicationDate = value;
        return;
      case F_NEWS_NAME:
        if (value !== '') this.news!.publicationName = value;
        return;
      case F_NEWS_LANGUAGE:
        if (value !== '') this.news!.publicationLanguage = value;
        return;
      case F_NEWS_DATE:
        if (value !== '') this.news!.publicationDate = value;
        return;
      case F_NEWS_TITLE:
        if (value !== '') this.news!.title = value;
        return;
      case F_BARE:
        this.bareText = value;
        return;
      case F_TITLE:
        if (this.title === undefined && value !== '') this.title = value.replace(SPACE_RUN, ' ');
        return;
      case F_PUBLISHED:
        this.published = value;
        return;
      case F_CREATED:
        this.created = value;
        return;
    }
  }

  private defer(code: string, message: string): void {
    // Kept up to the number the sitemap lists of a code: an entry with a million broken alternates holds 100.
    const counts = (this.deferredCounts ??= new Map());
    const n = (counts.get(code) ?? 0) + 1;
    counts.set(code, n);
    if (n <= MAX_PROBLEMS_PER_CODE) (this.deferred ??= []).push([code, message]);
  }

  /**
   * Whether the entry may hold one more alternate, image, video or link of `chars` characters;
   * past MAX_ENTRY_ITEMS or MAX_ENTRY_CHARS it is left out, and the entry says so once.
   */
  private admit(chars: number): boolean {
    this.entryItems++;
    this.entryChars += chars;
    if (this.entryItems <= MAX_ENTRY_ITEMS && this.entryChars <= MAX_ENTRY_CHARS) return true;
    if (!this.entryFull) {
      this.entryFull = true;
      this.defer(
        'ENTRY_TOO_LARGE',
        `The entry holds more than ${MAX_ENTRY_ITEMS.toLocaleString('en-US')} alternates, images, videos and links, or more than ${MAX_ENTRY_CHARS / 1024 / 1024} MiB of their text; the rest were left out.`,
      );
    }
    return false;
  }

  // ------------------------------------------------------------ entries

  private startEntry(depth: number): void {
    this.entryDepth = depth;
    this.loc = undefined;
    this.locOverflowed = false;
    this.lastmod = undefined;
    this.changefreq = undefined;
    this.priority = undefined;
    this.alternates = undefined;
    this.mobile = undefined;
    this.images = undefined;
    this.videos = undefined;
    this.news = undefined;
    this.atomLinks = undefined;
    this.title = undefined;
    this.published = undefined;
    this.created = undefined;
    this.bareText = undefined;
    this.deferred = undefined;
    this.deferredCounts = undefined;
    this.entryItems = 0;
    this.entryChars = 0;
    this.entryFull = false;
    this.sub = S_NONE;
    this.subDepth = -1;
    this.inPublication = false;
  }

  private endEntry(): void {
    this.entryDepth = -1;
    this.sub = S_NONE;
    switch (this.kind) {
      case K_URLSET:
        return this.endUrl();
      case K_INDEX:
        return this.endIndexEntry();
      case K_RSS:
        return this.endFeedEntry('<item>', '<link>', rssDate);
      case K_ATOM:
        return this.endFeedEntry('<entry>', '<link href>', atomDate);
    }
  }

  private endUrl(): void {
    if (this.loc === undefined) {
      this.sink.problem('MISSING_LOC', 'A <url> entry has no <loc>; it was skipped.');
      return;
    }
    const loc = this.sink.checkLoc(this.loc, '<loc>', this.locOverflowed);
    if (loc === null) return;
    const entry: SitemapUrlEntry = { loc };
    if (this.lastmod !== undefined) {
      if (!Number.isNaN(w3cDatetimeMs(this.lastmod))) entry.lastmod = this.lastmod;
      else this.invalidLastmod(loc, this.lastmod, entry);
    }
    if (this.changefreq !== undefined) {
      entry.changefreq = this.changefreq;
      if (!CHANGEFREQS.has(this.changefreq) && !CHANGEFREQS.has(this.changefreq.toLowerCase())) {
        this.sink.problem(
          'INVALID_CHANGEFREQ',
          `<changefreq> "${clip(this.changefreq)}" of ${loc} is not one of always, hourly, daily, weekly, monthly, yearly, never.`,
          loc,
        );
      }
    }
    if (this.priority !== undefined) {
      const p = PRIORITY.test(this.priority) ? Number(this.priority) : NaN;
      if (p >= 0 && p <= 1) {
        entry.priority = p;
      } else {
        this.sink.problem('INVALID_PRIORITY', `<priority> "${clip(this.priority)}" of ${loc} is not a number from 0.0 to 1.0; it was left out.`, loc);
      }
    }
    if (this.alternates !== undefined) entry.alternates = this.alternates;
    if (this.mobile !== undefined) entry.mobile = this.mobile;
    if (this.images !== undefined) entry.images = this.images;
    if (this.videos !== undefined) entry.videos = this.videos.map((v) => this.finishVideo(v, loc));
    if (this.news !== undefined) {
      entry.news = this.news;
      if (this.news.publicationName === undefined) {
        this.sink.problem(
          'NEWS_MISSING_NAME',
          `The <news:news> of ${loc} has no (or an empty) <news:publication><news:name>; Google News requires the publication's name.`,
          loc,
        );
      }
    }
    this.reportDeferred(loc);
    this.sink.url(entry);
  }

  private finishVideo(draft: VideoDraft, loc: string): SitemapVideo {
    const { durationText, ...video } = draft;
    if (durationText !== undefined) {
      if (/^\d+$/.test(durationText)) {
        video.duration = Number(durationText);
      } else {
        this.sink.problem(
          'INVALID_VIDEO_DURATION',
          `<video:duration> "${clip(durationText)}" of ${loc} is not a whole number of seconds; it was left out.`,
          loc,
        );
      }
    }
    return video;
  }

  private endIndexEntry(): void {
    if (this.loc === undefined) {
      const bare = this.bareText ?? '';
      this.sink.problem(
        'MISSING_LOC',
        bare === ''
          ? 'A <sitemap> entry of the index has no <loc>; it was skipped.'
          : `A <sitemap> entry of the index has no <loc> (it holds the bare text "${clip(bare)}"; the protocol requires <loc>); it was skipped.`,
        HTTP_SCHEME.test(bare) ? clip(bare) : undefined,
      );
      return;
    }
    const loc = this.sink.checkLoc(this.loc, '<loc>', this.locOverflowed);
    if (loc === null) return;
    let lastmod: string | undefined;
    if (this.lastmod !== undefined) {
      if (isW3cDatetime(this.lastmod)) lastmod = this.lastmod;
      else {
        const holder: { lastmod?: string } = {};
        this.invalidLastmod(loc, this.lastmod, holder);
        lastmod = holder.lastmod;
      }
    }
    this.reportDeferred(loc);
    this.sink.child(loc, lastmod);
  }

  /** RSS <item> and Atom <entry>: one URL per link, the item's date as lastmod, its title. */
  private endFeedEntry(element: string, linkName: string, toLastmod: (raw: string) => string | null): void {
    const links = this.atomLinks ?? (this.loc !== undefined ? [this.loc] : []);
    if (links.length === 0) {
      this.sink.problem('MISSING_LOC', `A feed ${element} has no ${linkName}; it was skipped.`);
      return;
    }
    const date = firstDate(this.lastmod, this.published, this.created);
    for (const link of links) {
      const loc = this.sink.checkLoc(link, linkName, this.locOverflowed);
      if (loc === null) continue;
      const entry: SitemapUrlEntry = { loc };
      if (date !== undefined) {
        const iso = toLastmod(date);
        if (iso !== null) entry.lastmod = iso;
        else this.invalidLastmod(loc, date, entry);
      }
      if (this.title !== undefined) entry.title = this.title;
      this.reportDeferred(loc);
      this.sink.url(entry);
    }
  }

  /** Reports an invalid date and keeps the raw value (an analyst wants to see what was written). */
  private invalidLastmod(loc: string, raw: string, target: { lastmod?: string }): void {
    this.sink.problem(
      'INVALID_LASTMOD',
      raw === ''
        ? `The date of ${loc} is empty.`
        : this.kind === K_RSS
          ? rfc822LacksZone(raw)
            ? `The <pubDate> "${clip(raw)}" of ${loc} has no time zone (RFC 822 requires one, like "GMT" or "+0200"), so its instant is unknown; kept as written.`
            : `The <pubDate> "${clip(raw)}" of ${loc} is not an RFC 822 date (like "Sat, 07 Sep 2002 09:42:31 GMT"); kept as written.`
          : `The date "${clip(raw)}" of ${loc} is not a W3C Datetime (YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDThh:mm[:ss]±hh:mm/Z); kept as written.`,
      loc,
    );
    if (raw !== '') target.lastmod = raw;
  }

  private reportDeferred(loc: string): void {
    if (this.deferred === undefined) return;
    for (const [code, message] of this.deferred) this.sink.problem(code, `${message} (entry ${loc})`, loc);
    this.deferred = undefined;
    const counts = this.deferredCounts!;
    this.deferredCounts = undefined;
    // The rest only count towards the sitemap's "… and N more" (its first 100 of the code are listed already).
    for (const [code, n] of counts) {
      for (let i = MAX_PROBLEMS_PER_CODE; i < n; i++) this.sink.problem(code, `Another ${code} of the entry ${loc}.`, loc);
    }
  }
}

/** Characters of an image's or a video's text fields. */
function textLength(o: object): number {
  let n = 0;
  for (const v of Object.values(o)) if (typeof v === 'string') n += v.length;
  return n;
}

/** A feed entry's date by preference: the first given that is not empty, else an empty one (reported as such). */
function firstDate(...dates: (string | undefined)[]): string | undefined {
  let empty: string | undefined;
  for (const d of dates) {
    if (d === undefined) continue;
    if (d !== '') return d;
    empty = d;
  }
  return empty;
}

function rssDate(raw: string): string | null {
  return rfc822ToIso(raw);
}

function atomDate(raw: string): string | null {
  return isW3cDatetime(raw) ? raw : null;
}
