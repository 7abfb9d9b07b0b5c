/**
 * What a crawler reads from an HTML page: links, canonical, hreflang, meta robots, title, base.
 * A streaming tokenizer (htmlparser2's callback Parser): no DOM is built and nothing is executed.
 */
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
}

/** `<link rel>` values that point at another URL of the site (not stylesheets or icons). */
const LINK_RELS = new Set(['canonical', 'alternate', 'next', 'prev', 'amphtml']);

/**
 * Reads an HTML page. Links come in document order, each absolute URL once (an occurrence that is
 * followable makes the link followable). As in browsers, the first `<base href>` is the base of
 * every relative URL of the document, including those written before it.
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

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        switch (name) {
          case 'a':
          case 'area': {
            if (attrs.href === undefined) break;
            const rel = relTokens(attrs.rel);
            raw.push({ href: attrs.href, tag: name, rel: attrs.rel, nofollow: rel.includes('nofollow') });
            break;
          }
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
          case 'meta':
            if (attrs.name !== undefined && attrs.name.trim().toLowerCase() === 'robots' && attrs.content !== undefined) {
              robots.push(attrs.content.trim());
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
        }
      },
      ontext(text) {
        if (inTitle) titleText += text;
      },
      onclosetag(name) {
        if (name === 'title' && inTitle) {
          inTitle = false;
          title = titleText.replace(/\s+/g, ' ').trim();
        } else if (name === 'svg' && svgDepth > 0) {
          svgDepth--;
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
  const byUrl = new Map<string, PageLink>();
  for (const r of raw) {
    const url = resolveUrl(r.href, base);
    if (url === null) continue;
    const nofollow = r.nofollow || metaNofollow;
    const seen = byUrl.get(url);
    if (seen) {
      if (!nofollow) seen.nofollow = false;
      // An anchor to a URL also named by a <link> (rel=next and the pagination link) is an inlink.
      if ((r.tag === 'a' || r.tag === 'area') && seen.tag !== 'a' && seen.tag !== 'area') {
        seen.tag = r.tag;
        if (r.rel !== undefined) seen.rel = r.rel;
        else delete seen.rel;
      }
      continue;
    }
    const link: PageLink = { url, tag: r.tag, nofollow };
    if (r.rel !== undefined) link.rel = r.rel;
    byUrl.set(url, link);
    links.push(link);
  }

  const hreflang: HreflangAlternate[] = [];
  for (const h of rawHreflang) {
    const href = resolveUrl(h.href, base);
    if (href !== null && h.lang !== '') hreflang.push({ lang: h.lang, href });
  }

  const info: PageInfo = { links, hreflang };
  if (title !== undefined) info.title = title;
  if (rawCanonical !== undefined) {
    const canonical = resolveUrl(rawCanonical, base);
    if (canonical !== null) info.canonical = canonical;
  }
  if (robots.length > 0) info.metaRobots = robots.join(', ');
  if (baseHref !== undefined) info.baseHref = baseHref;
  return info;
}

function relTokens(rel: string | undefined): string[] {
  return rel === undefined ? [] : rel.toLowerCase().split(/\s+/).filter(Boolean);
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
