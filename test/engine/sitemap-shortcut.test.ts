/**
 * The shortcut for usual `<url>` elements (simple-url.ts, taken by the reader through FastTokenizer)
 * must change nothing but speed: the same items, problems and summary as reading every element the
 * usual way, over the conformance sitemaps and random documents, whole and cut into random chunks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { conformanceSitemaps, rng } from './differential.js';
import type { SitemapItem } from '../../electron/engine/types.js';
import { createSitemapParser } from '../../electron/engine/sitemap/read/parser.js';
import { SHORTCUTS } from '../../electron/engine/sitemap/read/xml-reader.js';
import { SimpleUrlMatcher } from '../../electron/engine/sitemap/read/simple-url.js';

const NS =
  'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml" xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"';

/** Elements taken whole, counted across the calls of one read. */
let taken = 0;
const match = SimpleUrlMatcher.prototype.match;
SimpleUrlMatcher.prototype.match = function (this: SimpleUrlMatcher, buf: string, at: number): number {
  const end = match.call(this, buf, at);
  if (end !== -1) taken++;
  return end;
};

/** Items and summary of reading `bytes` in chunks of the given sizes (repeating), shortcut on or off. */
function read(bytes: Buffer, sizes: number[], shortcut: boolean): { items: SitemapItem[]; summary: unknown; taken: number } {
  SHORTCUTS.enabled = shortcut;
  taken = 0;
  try {
    const items: SitemapItem[] = [];
    const parser = createSitemapParser({ url: 'http://www.example.com/sitemap.xml', onItem: (item) => items.push(item) });
    for (let at = 0, i = 0; at < bytes.length && !parser.isDone(); i++) {
      const n = sizes[i % sizes.length]!;
      parser.write(bytes.subarray(at, at + n));
      at += n;
    }
    parser.end();
    return { items, summary: parser.summary(), taken };
  } finally {
    SHORTCUTS.enabled = true;
  }
}

/** Reads both ways and compares; returns how many elements the shortcut took. */
function assertSame(bytes: Buffer, sizes: number[], what: string): number {
  const slow = read(bytes, sizes, false);
  const fast = read(bytes, sizes, true);
  assert.equal(slow.taken, 0);
  assert.deepEqual(fast.items, slow.items, what);
  assert.deepEqual(fast.summary, slow.summary, what);
  return fast.taken;
}

function chunkSizes(rand: () => number, max: number): number[] {
  return Array.from({ length: 50 }, () => 1 + Math.floor(rand() * max));
}

test('the shortcut reads every conformance sitemap as the usual way does, whole and in random chunks', (t) => {
  const sitemaps = conformanceSitemaps(t);
  if (!sitemaps) return;
  const rand = rng(7);
  let took = 0;
  for (const { path, bytes } of sitemaps) {
    took += assertSame(bytes, [bytes.length], path);
    for (const max of [3, 200, 5000]) took += assertSame(bytes, chunkSizes(rand, max), `${path} in chunks of up to ${max}`);
  }
  assert.ok(took > 0, 'the conformance urlsets have usual entries the shortcut takes');
});

/** Pieces of a <url>'s content: the usual, and every oddity the shortcut must leave to the usual way. */
const FIELDS = [
  '<loc>http://www.example.com/a</loc>',
  '<loc>http://www.example.com/b?x=1&amp;y=2</loc>',
  '<loc>  http://www.example.com/c\n</loc>',
  '<loc>http://www.example.com/&lt;d&gt;</loc>',
  '<loc>http://www.example.com/&#101;</loc>',
  '<loc><![CDATA[http://www.example.com/cdata]]></loc>',
  '<loc>http://www.example.com/<!-- c -->e</loc>',
  '<loc>http://other.example.org/out-of-scope</loc>',
  '<loc>not a url</loc>',
  '<loc></loc>',
  '<loc>http://www.example.com/' + 'x'.repeat(9000) + '</loc>',
  '<sm:loc>http://www.example.com/prefixed</sm:loc>',
  '<loc a="1">http://www.example.com/attr</loc>',
  '<loc >http://www.example.com/space</loc >',
  '<loc>http://www.example.com/mismatch</lastmod>',
  '<loc>http://www.example.com/same-length</lox>',
  '<priority>0.5</prioritx>',
  '<lastmod>2024-01-02</lastmod>',
  '<lastmod>2024-01-02T03:04:05+00:00</lastmod>',
  '<lastmod>yesterday</lastmod>',
  '<lastmod></lastmod>',
  '<changefreq>daily</changefreq>',
  '<changefreq>Sometimes</changefreq>',
  '<priority>0.5</priority>',
  '<priority>1.5</priority>',
  '<priority>high</priority>',
  '<xhtml:link rel="alternate" hreflang="de" href="http://www.example.com/de/a"/>',
  '<xhtml:link rel="alternate" hreflang=" fr-CA " href=" http://www.example.com/fr/a "  />',
  '<xhtml:link rel="alternate" hreflang="" href="http://www.example.com/empty-lang"/>',
  '<xhtml:link rel="alternate" hreflang="de" href="/relative"/>',
  '<xhtml:link rel="alternate" hreflang="de" href="http://www.example.com/a?b&amp;c"/>',
  '<xhtml:link rel="canonical" hreflang="de" href="http://www.example.com/canonical"/>',
  "<xhtml:link rel='alternate' hreflang='de' href='http://www.example.com/single'/>",
  '<xhtml:link href="http://www.example.com/order" hreflang="de" rel="alternate"/>',
  '<xhtml:link rel="alternate" hreflang="de" href="http://www.example.com/x" media="y"/>',
  '<x:link rel="alternate" hreflang="de" href="http://www.example.com/other-prefix"/>',
  '<xhtml:link rel="alternate" hreflang="de" href="http://www.example.com/open"></xhtml:link>',
  '<image:image><image:loc>http://www.example.com/i.jpg</image:loc></image:image>',
  '<image:image>\n <image:loc> http://www.example.com/j.jpg </image:loc><image:title>A &amp; B</image:title><image:caption></image:caption></image:image>',
  '<image:image><image:title>no loc</image:title></image:image>',
  '<image:image><image:loc></image:loc></image:image>',
  '<image:image><image:caption>c</image:caption><image:loc>http://www.example.com/order.jpg</image:loc></image:image>',
  '<image:image><image:loc>http://www.example.com/k.jpg</image:loc><image:title>&lt;t&gt;</image:title></image:image>',
  '<unknown>text<nested/></unknown>',
  'stray text',
  '\n  ',
  ' ',
  '\t',
];

const USUAL = ['<lastmod>2024-01-02</lastmod>', '<changefreq>daily</changefreq>', '<priority>0.5</priority>'];
const LINKS = FIELDS.filter((f) => f.startsWith('<xhtml:link')).slice(0, 2); // the two an alternate is taken with
const IMAGES = FIELDS.filter((f) => f.startsWith('<image:image>')).slice(0, 2); // the two an image is taken with

test('the shortcut reads random urlsets of usual and odd entries as the usual way does, in random chunks', () => {
  let took = 0;
  for (let doc = 0; doc < 300; doc++) {
    const rand = rng(500 + doc);
    let xml = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset ${NS}>\n`;
    const urls = 1 + Math.floor(rand() * 12);
    for (let u = 0; u < urls; u++) {
      const open = rand() < 0.9 ? '<url>' : rand() < 0.5 ? '<url >' : '<sm:url>';
      const close = open === '<sm:url>' ? '</sm:url>' : '</url>';
      let body = '';
      if (rand() < 0.5) {
        // A usual entry: a loc, then some of the usual fields in any order, maybe spaced.
        const parts = [FIELDS[Math.floor(rand() * 3)]!, ...USUAL.filter(() => rand() < 0.6)].sort(() => rand() - 0.5);
        // hreflang alternates after the loc or at the end, as generators write them
        const links = LINKS.filter(() => rand() < 0.4);
        if (rand() < 0.5) parts.splice(parts.indexOf(parts.find((p) => p.includes('<loc>'))!) + 1, 0, ...links);
        else parts.push(...links);
        if (rand() < 0.3) parts.push(...IMAGES.filter(() => rand() < 0.7));
        body = parts.join(rand() < 0.5 ? '' : '\n    ');
      } else {
        const n = Math.floor(rand() * 6);
        for (let i = 0; i < n; i++) body += FIELDS[Math.floor(rand() * FIELDS.length)]!;
      }
      xml += open + body + (rand() < 0.97 ? close : '') + (rand() < 0.5 ? '\n' : '');
    }
    if (rand() < 0.9) xml += '</urlset>\n';
    const bytes = Buffer.from(xml);
    took += assertSame(bytes, [bytes.length], `document ${doc}: ${xml.slice(0, 300)}`);
    took += assertSame(bytes, chunkSizes(rand, 1 + Math.floor(rand() * 120)), `document ${doc} in chunks: ${xml.slice(0, 300)}`);
  }
  assert.ok(took > 300, `the shortcut took ${took} elements`);
});

test('the shortcut takes the usual entry, and declines what it must leave to the usual way', () => {
  const m = new SimpleUrlMatcher();
  const usual = '<url>\n <loc> http://e.com/a?b=1&amp;c=2 </loc><priority>0.5</priority>\n<lastmod>2024-01-02</lastmod><changefreq>daily</changefreq></url>';
  assert.equal(m.match(usual, 0), usual.length);
  assert.deepEqual([m.loc, m.lastmod, m.changefreq, m.priority, m.alternates], ['http://e.com/a?b=1&c=2', '2024-01-02', 'daily', '0.5', undefined]);
  const linked =
    '<url><loc>http://e.com/a</loc><xhtml:link rel="alternate" hreflang="de" href="http://e.com/de/a"/>\n' +
    '<lastmod>2024-01-02</lastmod><xhtml:link rel="alternate" hreflang=" fr " href="http://e.com/fr/a" /></url>';
  assert.equal(m.match(linked, 0), linked.length);
  assert.deepEqual(m.alternates, [
    { lang: 'de', href: 'http://e.com/de/a' },
    { lang: 'fr', href: 'http://e.com/fr/a' },
  ]);
  const pictured =
    '<url><loc>http://e.com/a</loc><image:image><image:loc>http://e.com/1.jpg</image:loc><image:title> One </image:title></image:image>' +
    '<image:image><image:loc>http://e.com/2.jpg</image:loc><image:title> </image:title><image:caption></image:caption></image:image></url>';
  assert.equal(m.match(pictured, 0), pictured.length);
  assert.deepEqual(m.images, [{ loc: 'http://e.com/1.jpg', title: 'One' }, { loc: 'http://e.com/2.jpg' }]);
  for (const odd of [
    '<url><loc>http://e.com/a</loc><loc>http://e.com/b</loc></url>', // a second <loc>: MULTIPLE_LOC
    '<url><lastmod>2024-01-02</lastmod></url>', // no <loc>: MISSING_LOC
    '<url><loc>http://e.com/&lt;</loc></url>',
    '<url><loc>http://e.com/a</loc>', // ends in a later chunk
    '<url><loc>http://e.com/a</loc>x</url>',
    '<url><sm:loc>http://e.com/a</sm:loc></url>',
    '<url ><loc>http://e.com/a</loc></url>',
    '<url><loc>http://e.com/a</lox></url>', // a mismatched end tag: MALFORMED_XML
    '<url><loc>http://e.com/a</loc><xhtml:link rel="alternate" hreflang="de" href="/de"/></url>', // INVALID_ALTERNATE
    '<url><loc>http://e.com/a</loc><xhtml:link rel="alternate" hreflang="" href="http://e.com/de"/></url>',
    '<url><loc>http://e.com/a</loc><image:image><image:title>t</image:title></image:image></url>', // MISSING_IMAGE_LOC
    '<url><loc>http://e.com/a</loc><image:image><image:loc> </image:loc></image:image></url>', // an empty one: the same
    '<url><loc>http://e.com/a</loc><image:image><image:loc>http://e.com/i.jpg</image:loc></image:image><lastmod>2024-01-02</lastmod></url>',
  ]) {
    assert.equal(m.match(odd, 0), -1, odd);
    assert.equal(m.loc, undefined);
  }
});

test('many hreflang links and then something unexpected: reading time grows with the size, not with the links per <url>', () => {
  // Documents of the same size whose <url>s hold n links, then an element the shortcut does not
  // take: it declines each, and the usual reading takes them. When the two runs of links in its
  // pattern could share them out every way, a <url> cost n² link matches and the document n times more.
  const link = (i: number) => `<xhtml:link rel="alternate" hreflang="l${i}" href="http://e.com/l/${i}"/>\n`;
  const doc = (n: number) => {
    let url = '<url><loc>http://e.com/a</loc>\n';
    for (let i = 0; i < n; i++) url += link(i);
    url += '<foo/></url>\n';
    const parts = [`<urlset ${NS}>\n`];
    for (let size = 0; size < 2_000_000; size += url.length) parts.push(url);
    parts.push('</urlset>\n');
    return Buffer.from(parts.join(''));
  };
  const ms = (bytes: Buffer) => {
    let best = Infinity;
    for (let k = 0; k < 3; k++) {
      const t0 = performance.now();
      const p = createSitemapParser({ url: 'http://e.com/sitemap.xml', onItem: () => {} });
      p.write(bytes);
      p.end();
      best = Math.min(best, performance.now() - t0);
      assert.equal(p.summary().fatal, undefined);
    }
    return best;
  };
  const few = doc(50);
  const many = doc(800);
  ms(few); // warm up
  const ratio = ms(many) / ms(few);
  assert.ok(ratio < 3, `800 links per <url> took ${ratio.toFixed(1)} times as long as 50 for the same 2 MB (quadratic: 16)`);
});
