/**
 * The benchmark site's content, generated deterministically: a sitemap index of gzipped 50,000-entry
 * urlsets (lastmod, changefreq, priority, some hreflang alternates and images, a few URLs listed
 * twice), a tail urlset read after the measured part, and the linked HTML pages.
 * Sitemaps are built once, in memory, so serving them costs nothing but the copy.
 */
import { gzipSync } from 'node:zlib';

/** What the site is asked to hold. */
export interface SiteSpec {
  /** Origin the sitemaps and their URLs name (`http://localhost:1234`). */
  origin: string;
  /** Distinct URLs listed by the measured sitemaps (the HTML pages included). */
  urls: number;
  /** Linked HTML pages (`/` and /p/1.html …), also listed first in the sitemaps. */
  pages: number;
  /** Distinct URLs of the tail sitemap, listed after the measured ones. */
  tail: number;
  /** Entries per sitemap (protocol maximum: 50,000). */
  perSitemap?: number;
}

/** One gzipped sitemap ready to serve. */
export interface BuiltSitemap {
  path: string;
  gz: Buffer;
  /** Inflated size. */
  bytes: number;
  /** `<url>` entries (duplicates included). */
  entries: number;
}

export interface BuiltSite {
  robots: Buffer;
  index: Buffer;
  /** The measured urlsets, in index order. */
  sitemaps: BuiltSitemap[];
  tail: BuiltSitemap;
  /** Distinct URLs over the measured urlsets. */
  distinct: number;
  /** Entries that repeat a URL of the previous urlset. */
  duplicates: number;
}

export const PER_SITEMAP = 50_000;
/** Entries of each urlset after the first that repeat URLs of the one before (a product in two categories). */
const REPEATS_PER_SITEMAP = 500;

const CATEGORIES = [
  'garden-tools',
  'kitchen-appliances',
  'mens-shoes',
  'womens-jackets',
  'office-chairs',
  'led-lighting',
  'camping-gear',
  'kids-toys',
  'bathroom-fittings',
  'power-tools',
  'running-shoes',
  'bedding-sets',
];
const ADJECTIVES = ['stainless', 'compact', 'premium', 'classic', 'wireless', 'foldable', 'organic', 'heavy-duty', 'slim', 'vintage'];
const NOUNS = ['rake', 'kettle', 'sneaker', 'parka', 'armchair', 'bulb', 'tent', 'puzzle', 'faucet', 'drill', 'trainer', 'duvet'];
const FREQS = ['daily', 'weekly', 'monthly', 'yearly'];
const LANGS = ['de-de', 'fr-fr', 'es-es', 'it-it'];

/** Path of product URL number `i` (deterministic, ~60–90 characters with the origin). */
export function productPath(i: number): string {
  const cat = CATEGORIES[i % CATEGORIES.length]!;
  const slug = `${ADJECTIVES[(i >>> 3) % ADJECTIVES.length]}-${NOUNS[(i * 7) % NOUNS.length]}`;
  const q = i % 9 === 0 ? `?variant=${i % 5}&amp;size=m` : '';
  return `/products/${cat}/${slug}-${i}${q}`;
}

/** Path of HTML page `i`: `/` for 0, /p/<i>.html otherwise. */
export function pagePath(i: number): string {
  return i === 0 ? '/' : `/p/${i}.html`;
}

/** Path of URL number `i` of the listing: the pages first, then products. */
function listedPath(i: number, pages: number): string {
  return i < pages ? pagePath(i) : productPath(i - pages);
}

function entryXml(origin: string, path: string, n: number): string {
  const day = String((n % 28) + 1).padStart(2, '0');
  const month = String((n % 12) + 1).padStart(2, '0');
  let s = `<url><loc>${origin}${path}</loc>`;
  s +=
    n % 4 === 0
      ? `<lastmod>2024-${month}-${day}</lastmod>`
      : `<lastmod>2024-${month}-${day}T${String(n % 24).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}:00+00:00</lastmod>`;
  s += `<changefreq>${FREQS[n % FREQS.length]}</changefreq><priority>0.${(n % 9) + 1}</priority>`;
  if (n % 5 === 0) {
    // hreflang alternates on one URL in five (language folders of the same host).
    const a = LANGS[n % LANGS.length]!;
    const b = LANGS[(n + 1) % LANGS.length]!;
    s += `<xhtml:link rel="alternate" hreflang="${a}" href="${origin}/${a.slice(0, 2)}${path}"/>`;
    s += `<xhtml:link rel="alternate" hreflang="${b}" href="${origin}/${b.slice(0, 2)}${path}"/>`;
  }
  if (n % 10 === 0) {
    s += `<image:image><image:loc>${origin}/img/${n}.jpg</image:loc><image:title>Product ${n}</image:title></image:image>`;
  }
  return s + '</url>\n';
}

const URLSET_OPEN =
  '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" ' +
  'xmlns:xhtml="http://www.w3.org/1999/xhtml" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n';
const URLSET_CLOSE = '</urlset>\n';

function buildUrlset(path: string, body: string[]): BuiltSitemap {
  const xml = Buffer.from(URLSET_OPEN + body.join('') + URLSET_CLOSE, 'utf8');
  return { path, gz: gzipSync(xml), bytes: xml.length, entries: body.length };
}

/** Builds the whole site: robots.txt, the index, the measured urlsets and the tail. */
export function buildSite(spec: SiteSpec): BuiltSite {
  const per = spec.perSitemap ?? PER_SITEMAP;
  const { origin, urls, pages } = spec;
  if (pages > urls) throw new Error(`--pages (${pages}) cannot exceed --urls (${urls}): the pages are listed in the sitemaps.`);
  const sitemaps: BuiltSitemap[] = [];
  let next = 0; // next new URL number
  let prevStart = 0;
  let duplicates = 0;
  for (let k = 0; next < urls; k++) {
    const body: string[] = [];
    if (k > 0) {
      // A few URLs of the previous sitemap again: the frontier must count them once.
      for (let r = 0; r < REPEATS_PER_SITEMAP && body.length < per; r++) {
        const n = prevStart + ((r * 97) % Math.max(1, next - prevStart));
        body.push(entryXml(origin, listedPath(n, pages), n));
        duplicates++;
      }
    }
    const start = next;
    while (body.length < per && next < urls) {
      body.push(entryXml(origin, listedPath(next, pages), next));
      next++;
    }
    prevStart = start;
    sitemaps.push(buildUrlset(`/sitemap-products-${k + 1}.xml.gz`, body));
  }

  const tailBody: string[] = [];
  for (let i = 0; i < spec.tail; i++) tailBody.push(entryXml(origin, `/late/arrival-${i}`, i));
  const tail = buildUrlset('/sitemap-tail.xml.gz', tailBody);

  let index = '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n';
  for (const s of [...sitemaps, tail]) {
    index += `<sitemap><loc>${origin}${s.path}</loc><lastmod>2024-06-01T00:00:00+00:00</lastmod></sitemap>\n`;
  }
  index += '</sitemapindex>\n';
  const robots = `User-agent: *\nDisallow: /cart/\nAllow: /\n\nSitemap: ${origin}/sitemap_index.xml\n`;
  return { robots: Buffer.from(robots), index: Buffer.from(index), sitemaps, tail, distinct: urls, duplicates };
}

/** Links per page: children in a 10-ary tree (so a crawl from `/` reaches every page) plus related pages. */
const CHILDREN = 10;
const RELATED = 12;

/** The HTML of page `i` of `pages` (about 4 KB, ~25 links, title, canonical, some hreflang). */
export function pageHtml(origin: string, i: number, pages: number): string {
  const path = pagePath(i);
  const links: string[] = [];
  for (let c = i * CHILDREN + 1; c <= i * CHILDREN + CHILDREN && c < pages; c++) {
    links.push(`<li><a href="${pagePath(c)}">Page ${c}</a></li>`);
  }
  for (let r = 1; r <= RELATED; r++) {
    const j = (i * 7919 + r * 104729) % pages;
    links.push(`<li><a href="${origin}${pagePath(j)}">Related ${j}</a></li>`);
  }
  const hreflang =
    i % 4 === 0 ? `<link rel="alternate" hreflang="en" href="${origin}${path}">\n<link rel="alternate" hreflang="x-default" href="${origin}${path}">\n` : '';
  const para =
    'Spinneret benchmark page. Durable goods for home and garden, delivered in two working days, with free returns ' +
    'within thirty days and a two-year warranty on every item we sell. ';
  return (
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n' +
    `<title>Benchmark page ${i} | Spinneret Shop</title>\n` +
    `<meta name="description" content="Page ${i} of the Spinneret benchmark site.">\n` +
    `<link rel="canonical" href="${origin}${path}">\n${hreflang}` +
    '</head><body>\n' +
    '<header><nav><a href="/">Home</a> <a href="/p/1.html">New in</a> <a href="/cart/">Cart</a></nav></header>\n' +
    `<main><h1>Page ${i}</h1>\n<p>${para.repeat(8)}</p>\n<ul>\n${links.join('\n')}\n</ul></main>\n` +
    '<footer><p>© Spinneret benchmark</p></footer>\n</body></html>\n'
  );
}
