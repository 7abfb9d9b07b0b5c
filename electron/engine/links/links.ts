/**
 * What a crawler reads from an HTML page: links (with their anchor text), canonical, hreflang, meta
 * robots, title, base, and the on-page fields an analyst audits with: meta description, H1s,
 * `<html lang>` and a word count.
 * A streaming tokenizer (htmlparser2's callback Parser), one pass: no DOM is built and nothing is executed.
 */
import { createHash, type Hash } from 'node:crypto';
import { Parser } from 'htmlparser2';
import type { HreflangAlternate } from '../../../shared/model.js';
import type { PageInfo, PageLink } from '../types.js';
import { resolveUrl } from '../frontier/url.js';

/** A link as written, resolved once the document's base URL is known. */
interface RawLink {
  href: string;
  tag: PageLink['tag'];
  rel?: string;
  nofollow: boolean;
  /** `<a>`/`<area>` only: the anchor text, collapsed and cut (see PageLink.anchor). */
  anchor?: string;
}

/** `<link rel>` values that point at another URL of the site (not stylesheets or icons). */
const LINK_RELS = new Set(['canonical', 'alternate', 'next', 'prev', 'amphtml']);

/** Characters kept of an anchor text (and of an image's alt standing in for one). */
export const MAX_ANCHOR_CHARS = 256;
/** Characters kept of the meta description and of the first H1. */
export const MAX_FIELD_CHARS = 1024;

/**
 * Elements whose content a browser never shows as the page's text: raw text (script, style, title),
 * inert content (template; noscript, since a browser with scripts on does not parse it; iframe,
 * noembed, noframes fallbacks). Nothing inside them is a word, an anchor text, an H1 or a meta
 * description.
 */
const UNSHOWN = new Set(['script', 'style', 'title', 'template', 'noscript', 'iframe', 'noembed', 'noframes']);

/**
 * Elements that may stand in `<head>`. Any other start tag (or text that is not whitespace) ends the
 * head, as the HTML parser does (`<head><p>Hi` puts "Hi" in the body); `</head>` and `<body>` do too.
 */
const HEAD_CONTENT = new Set(['html', 'head', 'base', 'basefont', 'bgsound', 'link', 'meta', 'title', 'noscript', 'noframes', 'style', 'script', 'template']);

/**
 * Page chrome: what a site repeats on every page around its main text (a date in the footer, the
 * navigation). Text inside them is no part of PageInfo.contentHash; nav is left out of the word count too.
 */
const CHROME = new Set(['nav', 'header', 'footer', 'aside']);

/**
 * Phrasing elements that do not break a word: `Hel<b>lo</b>` is one word, as rendered. Every other
 * tag (a block, a `<br>`, an `<img>`, an unknown element) separates the text on its two sides, so
 * minified `<li>Home</li><li>About</li>` is two words.
 */
const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'big',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'ins',
  'kbd',
  'label',
  'mark',
  'nobr',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'sup',
  'time',
  'tt',
  'u',
  'var',
]);

/**
 * Reads an HTML page. Links come in document order, each absolute URL once (an occurrence that is
 * followable makes the link followable; the first non-empty anchor text is kept). As in browsers,
 * the first `<base href>` is the base of every relative URL of the document, including those
 * written before it. The on-page fields follow what a browser's parser builds where it is cheap to:
 * see PageInfo for each one's definition.
 */
export function extractPageInfo(html: string, pageUrl: string): PageInfo {
  const raw: RawLink[] = [];
  const rawHreflang: { lang: string; href: string }[] = [];
  let rawCanonical: string | undefined;
  let baseHrefRaw: string | undefined;
  const robots: string[] = [];
  let title: string | undefined;
  let inTitle = false;
  let titleText = '';
  let svgDepth = 0;

  // Where the parser is: inside UNSHOWN elements, <nav>, the document's <head>.
  let unshownDepth = 0;
  let navDepth = 0;
  /** Open header, footer, aside and nav elements (CHROME). */
  let chromeDepth = 0;
  let inHead = false;
  /** True once a <head> can no longer start: it was seen, or the body has begun. */
  let headSeen = false;
  let lang: string | undefined;
  let metaDescription: string | undefined;
  let metaDescriptionCount = 0;
  let h1: string | undefined;
  let h1Count = 0;
  /** The first H1's text while it is read (null otherwise), and the svg depth it opened at. */
  let h1Text: string | null = null;
  let h1Svg = 0;
  /** The open <a> whose anchor text is read, its text, the depths it opened at, its fallbacks. */
  let anchorLink: RawLink | null = null;
  let anchorText = '';
  let anchorUnshown = 0;
  let anchorSvg = 0;
  let anchorAlt: string | undefined;
  let anchorLabel: string | undefined;
  const words = new WordCounter();
  const mainText = new TextHasher();

  const endH1 = () => {
    if (h1Text === null) return;
    h1 = clip(collapse(h1Text), MAX_FIELD_CHARS);
    h1Text = null;
  };
  const endAnchor = () => {
    if (anchorLink === null) return;
    let text = collapse(anchorText);
    if (text === '' && anchorAlt !== undefined) text = collapse(anchorAlt);
    if (text === '' && anchorLabel !== undefined) text = collapse(anchorLabel);
    anchorLink.anchor = clip(text, MAX_ANCHOR_CHARS);
    anchorLink = null;
  };
  /** A tag other than an inline one separates words (and the words of an H1 or anchor text). */
  const boundary = (name: string) => {
    if (INLINE.has(name)) return;
    words.break();
    mainText.break();
    if (h1Text !== null) h1Text += ' ';
    if (anchorLink !== null) anchorText += ' ';
  };

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        boundary(name);
        if (name === 'head') {
          if (!headSeen) inHead = true;
          headSeen = true;
        } else if (!HEAD_CONTENT.has(name)) {
          inHead = false;
          headSeen = true;
        }
        switch (name) {
          case 'a':
          case 'area': {
            // An <a> inside an open <a> closes it, as browsers' parsers do.
            if (name === 'a') endAnchor();
            if (attrs.href === undefined) break;
            const rel = relTokens(attrs.rel);
            const link: RawLink = { href: attrs.href, tag: name, rel: attrs.rel, nofollow: rel.includes('nofollow') };
            raw.push(link);
            if (name === 'area') {
              const alt = collapse(attrs.alt ?? '');
              link.anchor = clip(alt !== '' ? alt : collapse(attrs['aria-label'] ?? ''), MAX_ANCHOR_CHARS);
            } else {
              anchorLink = link;
              anchorText = '';
              anchorUnshown = unshownDepth;
              anchorSvg = svgDepth;
              anchorAlt = undefined;
              anchorLabel = attrs['aria-label'];
            }
            break;
          }
          case 'img':
            if (anchorLink !== null && anchorAlt === undefined && attrs.alt !== undefined && /\S/.test(attrs.alt)) {
              anchorAlt = attrs.alt;
            }
            break;
          case 'link': {
            if (attrs.href === undefined) break;
            const rel = relTokens(attrs.rel);
            if (rel.includes('canonical') && rawCanonical === undefined) rawCanonical = attrs.href;
            if (rel.includes('alternate') && attrs.hreflang !== undefined) {
              rawHreflang.push({ lang: attrs.hreflang.trim(), href: attrs.href });
            }
            if (rel.some((r) => LINK_RELS.has(r))) {
              raw.push({ href: attrs.href, tag: 'link', rel: attrs.rel, nofollow: rel.includes('nofollow') });
            }
            break;
          }
          case 'iframe':
          case 'frame':
            if (attrs.src !== undefined) raw.push({ href: attrs.src, tag: name, nofollow: false });
            break;
          case 'base':
            if (baseHrefRaw === undefined && attrs.href !== undefined) baseHrefRaw = attrs.href;
            break;
          case 'meta': {
            const metaName = attrs.name === undefined ? '' : attrs.name.trim().toLowerCase();
            if (metaName === 'robots' && attrs.content !== undefined) {
              robots.push(attrs.content.trim());
            } else if (metaName === 'description' && unshownDepth === 0) {
              // Inside <svg> too: <meta> ends foreign content in a browser's parser.
              if (metaDescriptionCount++ === 0) metaDescription = clip(collapse(attrs.content ?? ''), MAX_FIELD_CHARS);
            }
            break;
          }
          case 'html':
            // A second <html> adds the attributes the first lacks, as in browsers.
            if (lang === undefined && attrs.lang !== undefined && unshownDepth === 0 && svgDepth === 0) {
              lang = attrs.lang.trim();
            }
            break;
          case 'title':
            if (title === undefined && svgDepth === 0) {
              inTitle = true;
              titleText = '';
            }
            break;
          case 'svg':
            svgDepth++;
            break;
          case 'nav':
            navDepth++;
            break;
          case 'h1':
          case 'h2':
          case 'h3':
          case 'h4':
          case 'h5':
          case 'h6':
            // A heading opened inside the first H1 ends it (browsers close the H1 there).
            endH1();
            // Inside <svg> too: a heading ends foreign content in a browser's parser, so it is an HTML H1.
            if (name === 'h1' && unshownDepth === 0 && h1Count++ === 0) {
              h1Text = '';
              h1Svg = svgDepth;
            }
            break;
        }
        if (UNSHOWN.has(name)) unshownDepth++;
        if (CHROME.has(name)) chromeDepth++;
      },
      ontext(text) {
        if (inTitle) titleText += text;
        if (anchorLink !== null && unshownDepth === anchorUnshown && svgDepth === anchorSvg) {
          if (anchorText.length < MAX_ANCHOR_CHARS * 8) anchorText += text;
        }
        if (unshownDepth > 0) return;
        if (h1Text !== null && svgDepth === h1Svg && h1Text.length < MAX_FIELD_CHARS * 8) h1Text += text;
        if (inHead || !headSeen) {
          // Text that is not whitespace ends the head (or rules out a later one): it is the body's.
          if (!/\S/.test(text)) return;
          inHead = false;
          headSeen = true;
        }
        if (svgDepth > 0) return;
        if (chromeDepth === 0) mainText.add(text);
        if (navDepth > 0) return;
        words.add(text);
      },
      onclosetag(name) {
        boundary(name);
        if (UNSHOWN.has(name) && unshownDepth > 0) unshownDepth--;
        if (CHROME.has(name) && chromeDepth > 0) chromeDepth--;
        if (name === 'title' && inTitle) {
          inTitle = false;
          title = titleText.replace(/\s+/g, ' ').trim();
        } else if (name === 'svg' && svgDepth > 0) {
          svgDepth--;
        } else if (name === 'nav' && navDepth > 0) {
          navDepth--;
        } else if (name === 'head') {
          inHead = false;
        } else if (name === 'a') {
          endAnchor();
        } else if (name.length === 2 && name[0] === 'h' && name[1]! >= '1' && name[1]! <= '6') {
          endH1();
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  if (inTitle) title = titleText.replace(/\s+/g, ' ').trim(); // unclosed <title> at end of document

  // The document base: the first <base href>, resolved against the page; ignored when not http(s).
  const baseHref = baseHrefRaw === undefined ? undefined : (resolveUrl(baseHrefRaw, pageUrl) ?? undefined);
  const base = baseHref ?? pageUrl;
  const metaNofollow = robots.some((r) => parseRobotsDirectives(r).nofollow);

  const links: PageLink[] = [];
  const anchors: PageLink[] = [];
  const byUrl = new Map<string, PageLink>();
  for (const r of raw) {
    const url = resolveUrl(r.href, base);
    if (url === null) continue;
    const nofollow = r.nofollow || metaNofollow;
    const isAnchor = r.tag === 'a' || r.tag === 'area';
    if (isAnchor) anchors.push({ url, tag: r.tag, nofollow, anchor: r.anchor ?? '' });
    const seen = byUrl.get(url);
    if (seen) {
      if (!nofollow) seen.nofollow = false;
      // An anchor to a URL also named by a <link> (rel=next and the pagination link) is an inlink.
      if (isAnchor && seen.tag !== 'a' && seen.tag !== 'area') {
        seen.tag = r.tag;
        if (r.rel !== undefined) seen.rel = r.rel;
        else delete seen.rel;
        seen.anchor = r.anchor ?? '';
      } else if (isAnchor && seen.anchor === '' && r.anchor) {
        seen.anchor = r.anchor;
      }
      continue;
    }
    const link: PageLink = { url, tag: r.tag, nofollow };
    if (r.rel !== undefined) link.rel = r.rel;
    if (isAnchor) link.anchor = r.anchor ?? '';
    byUrl.set(url, link);
    links.push(link);
  }

  const hreflang: HreflangAlternate[] = [];
  for (const h of rawHreflang) {
    const href = resolveUrl(h.href, base);
    if (href !== null && h.lang !== '') hreflang.push({ lang: h.lang, href });
  }

  const info: PageInfo = { links, anchors, hreflang, metaDescriptionCount, h1Count, wordCount: words.words, contentHash: mainText.digest() };
  if (title !== undefined) info.title = title;
  if (rawCanonical !== undefined) {
    const canonical = resolveUrl(rawCanonical, base);
    if (canonical !== null) info.canonical = canonical;
  }
  if (robots.length > 0) info.metaRobots = robots.join(', ');
  if (baseHref !== undefined) info.baseHref = baseHref;
  if (metaDescription !== undefined) info.metaDescription = metaDescription;
  if (h1 !== undefined) info.h1 = h1;
  if (lang !== undefined) info.lang = lang;
  return info;
}

function relTokens(rel: string | undefined): string[] {
  return rel === undefined ? [] : rel.toLowerCase().split(/\s+/).filter(Boolean);
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The first `max` UTF-16 units of `text`, never half a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return text.slice(0, end).trimEnd();
}

// ---------------------------------------------------------------- words

/** Character classes of the word counter. */
const LETTER = 1; // \p{L}, \p{N}, \p{M}: part of a word
const UNSPACED = 2; // Han, Hiragana, Katakana: a word each
const JOINER = 3; // ' ’ ‐ - . , : joins two runs of letters into one word
const OTHER = 4;

const LETTER_RE = /^[\p{L}\p{N}\p{M}]$/u;
const UNSPACED_RE = /^[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]$/u;
const JOINERS = new Set(["'", '\u2019', '\u2010', '-', '.', ',']);

/** Class of each UTF-16 unit, filled in the first time a unit is seen (0: not yet). */
const unitClass = new Uint8Array(0x10000);
/** Classes of characters outside the BMP, by code point. */
const astralClass = new Map<number, number>();

function classify(ch: string): number {
  if (UNSPACED_RE.test(ch)) return UNSPACED;
  if (LETTER_RE.test(ch)) return LETTER;
  return JOINERS.has(ch) ? JOINER : OTHER;
}

/**
 * Counts words as text arrives in pieces (a word may span two pieces: `caf` + `&eacute;`).
 * A word: a run of letters, digits and combining marks (`\p{L}\p{N}\p{M}`, any script), where an
 * apostrophe, hyphen, period or comma between two of them does not split it: "don't",
 * "state-of-the-art", "3.14", "1,000" and "example.com" are one word each; "—", "|" or "&" none.
 * CJK: Chinese and Japanese (Han, Hiragana, Katakana) count one word per character; Korean and others by runs.
 */
class WordCounter {
  words = 0;
  /** 0: outside a word; 1: in a word; 2: in a word, just after a joiner. */
  private state = 0;

  add(text: string): void {
    let state = this.state;
    let words = this.words;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      let cls = unitClass[unit]!;
      if (cls === 0) {
        if (unit < 0xd800 || unit > 0xdfff) {
          unitClass[unit] = cls = classify(text[i]!);
        } else {
          // A surrogate pair is one character, classified by its code point; a lone surrogate is none.
          const cp = text.codePointAt(i)!;
          if (cp > 0xffff) {
            i++;
            cls = astralClass.get(cp) ?? 0;
            if (cls === 0) astralClass.set(cp, (cls = classify(String.fromCodePoint(cp))));
          } else {
            cls = OTHER;
          }
        }
      }
      if (cls === LETTER) {
        if (state === 0) words++;
        state = 1;
      } else if (cls === JOINER) {
        state = state === 1 ? 2 : 0;
      } else {
        if (cls === UNSPACED) words++;
        state = 0;
      }
    }
    this.state = state;
    this.words = words;
  }

  /** A word boundary that is not in the text (a block tag). */
  break(): void {
    this.state = 0;
  }
}

// ---------------------------------------------------------------- main text hash

/** What collapses to one space: a run of two or more whitespace characters, or one that is not a space (a lone space stays as it is, unreplaced: 4× faster). */
const WHITESPACE = /\s{2,}|[^\S ]/g;
/** Characters of normalised text buffered before they are fed to the hash. */
const HASH_CHUNK = 64 * 1024;

/**
 * SHA-256 of the main text as it arrives in pieces, whitespace collapsed: runs of whitespace (`\s`,
 * NBSP included) and tag boundaries (see WordCounter) are one space between two pieces of text, none
 * at either end. So `<p>a</p>\n <p>b</p>` and `<p>a</p><p>b</p>` both hash "a b".
 */
class TextHasher {
  private readonly hash: Hash = createHash('sha256');
  private buf = '';
  private started = false;
  private space = false;

  add(text: string): void {
    if (text.length === 0) return;
    // Every space left is one collapsed run of whitespace (a literal space is whitespace too).
    const collapsed = text.replace(WHITESPACE, ' ');
    const leading = collapsed.charCodeAt(0) === 32;
    const trailing = collapsed.length > 1 && collapsed.charCodeAt(collapsed.length - 1) === 32;
    if (leading) this.space = true;
    if (collapsed.length === 1 && leading) return;
    this.emit(leading || trailing ? collapsed.slice(leading ? 1 : 0, trailing ? -1 : undefined) : collapsed);
    if (trailing) this.space = true;
  }

  break(): void {
    this.space = true;
  }

  private emit(piece: string): void {
    if (this.started && this.space) this.buf += ' ';
    this.buf += piece;
    this.started = true;
    this.space = false;
    if (this.buf.length >= HASH_CHUNK) {
      // Never half a surrogate pair per update: its halves would each hash as U+FFFD.
      const last = this.buf.charCodeAt(this.buf.length - 1);
      const keep = last >= 0xd800 && last <= 0xdbff ? 1 : 0;
      this.hash.update(this.buf.slice(0, this.buf.length - keep), 'utf8');
      this.buf = keep === 1 ? this.buf.slice(-1) : '';
    }
  }

  /** base64url, 43 characters. */
  digest(): string {
    this.hash.update(this.buf, 'utf8');
    this.buf = '';
    return this.hash.digest('base64url');
  }
}

/** PageInfo.contentHash of a main text given whole: SHA-256 (base64url) of it, whitespace collapsed. */
export function mainTextHash(text: string): string {
  const h = new TextHasher();
  h.add(text);
  return h.digest();
}

/** Words in `text`, as PageInfo.wordCount counts them (see WordCounter). */
export function countWords(text: string): number {
  const counter = new WordCounter();
  counter.add(text);
  return counter.words;
}

// ---------------------------------------------------------------- robots directives

/** Directives that take a value after a colon, so `name: value` is not a user-agent prefix. */
const VALUED_DIRECTIVES = new Set(['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview']);

/**
 * Reads a meta robots content or an X-Robots-Tag header value: `noindex`, `nofollow`, `none`,
 * any case and spacing. A user-agent prefix (`googlebot: noindex, nofollow`) scopes the directives
 * after it until the next prefix. Without `userAgent`, scoped directives count whatever their
 * agent; with it, only unscoped ones and those scoped to that product token count.
 */
export function parseRobotsDirectives(value: string, userAgent?: string): { noindex: boolean; nofollow: boolean } {
  const agent = userAgent === undefined ? undefined : userAgent.trim().split(/[\s/]/)[0]!.toLowerCase();
  let noindex = false;
  let nofollow = false;
  let scope: string | undefined;
  for (const part of value.toLowerCase().split(',')) {
    let token = part.trim();
    const colon = token.indexOf(':');
    if (colon !== -1) {
      const name = token.slice(0, colon).trim();
      if (!VALUED_DIRECTIVES.has(name)) {
        scope = name;
        token = token.slice(colon + 1).trim();
      }
    }
    if (agent !== undefined && scope !== undefined && scope !== agent) continue;
    if (token === 'noindex') noindex = true;
    else if (token === 'nofollow') nofollow = true;
    else if (token === 'none') noindex = nofollow = true;
  }
  return { noindex, nofollow };
}
