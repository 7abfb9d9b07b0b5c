/**
 * The synchronous sitemap parser: XML vocabularies, refusals, faults, limits, text sitemaps,
 * and chunk-boundary independence.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Problem, SitemapUrlEntry } from '../../shared/model.js';
import type { SitemapItem, SitemapLimits, SitemapSummary } from '../../electron/engine/types.js';
import { createSitemapParser } from '../../electron/engine/sitemap/read/parser.js';

const NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';
const SITEMAP = 'http://h.test/sitemap.xml';

interface Parsed {
  items: SitemapItem[];
  summary: SitemapSummary;
  urls: SitemapUrlEntry[];
  locs: string[];
  children: SitemapItem[];
  problems: Problem[];
  codes: string[];
}

/** Parses a document fed in chunks of the given sizes (cycled), or whole. */
function parse(
  doc: string | Buffer,
  opts: { url?: string; scopeUrl?: string; limits?: Partial<SitemapLimits>; chunks?: number[] | ((i: number) => number) } = {},
): Parsed {
  const items: SitemapItem[] = [];
  const p = createSitemapParser({ url: opts.url ?? SITEMAP, scopeUrl: opts.scopeUrl, limits: opts.limits, onItem: (i) => items.push(i) });
  const bytes = typeof doc === 'string' ? Buffer.from(doc, 'utf8') : doc;
  if (opts.chunks === undefined) {
    p.write(bytes);
  } else {
    const size = typeof opts.chunks === 'function' ? opts.chunks : (i: number) => (opts.chunks as number[])[i % (opts.chunks as number[]).length]!;
    for (let at = 0, i = 0; at < bytes.length; i++) {
      const n = Math.max(1, size(i));
      p.write(bytes.subarray(at, at + n));
      at += n;
    }
  }
  p.end();
  const urls = items.flatMap((i) => (i.kind === 'url' ? [i.entry] : []));
  const problems = items.flatMap((i) => (i.kind === 'problem' ? [i.problem] : []));
  return {
    items,
    summary: p.summary(),
    urls,
    locs: urls.map((u) => u.loc),
    children: items.filter((i) => i.kind === 'sitemap'),
    problems,
    codes: problems.map((x) => x.code),
  };
}

function urlset(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset ${NS}>\n${body}\n</urlset>\n`;
}

function urls(n: number, from = 0): string {
  let s = '';
  for (let i = from; i < from + n; i++) s += `  <url><loc>http://h.test/p${i}</loc></url>\n`;
  return s;
}

// ------------------------------------------------------------ encodings, BOM, namespaces

test('a UTF-8 BOM before the XML declaration is skipped', () => {
  const p = parse(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(urlset(urls(2)))]));
  assert.equal(p.summary.type, 'urlset');
  assert.deepEqual(p.locs, ['http://h.test/p0', 'http://h.test/p1']);
  assert.deepEqual(p.problems, []);
});

test('a prefixed sitemap namespace and other prefixes for the extensions are read by local name', () => {
  const doc = `<?xml version="1.0"?>
<s:urlset xmlns:s="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:x="http://www.w3.org/1999/xhtml" xmlns:img="http://www.google.com/schemas/sitemap-image/1.1">
  <s:url><s:loc>http://h.test/a</s:loc><s:lastmod>2024-05-01</s:lastmod>
    <x:link rel="alternate" hreflang="fr" href="http://h.test/fr/a"/>
    <img:image><img:loc>http://h.test/a.png</img:loc></img:image>
  </s:url>
</s:urlset>`;
  const p = parse(doc);
  assert.equal(p.summary.type, 'urlset');
  assert.deepEqual(p.urls, [
    { loc: 'http://h.test/a', lastmod: '2024-05-01', alternates: [{ lang: 'fr', href: 'http://h.test/fr/a' }], images: [{ loc: 'http://h.test/a.png' }] },
  ]);
  assert.deepEqual(p.problems, []);
});

test('a missing or wrong namespace is read anyway, with a WRONG_NAMESPACE notice', () => {
  const missing = parse('<urlset><url><loc>http://h.test/a</loc></url></urlset>');
  assert.deepEqual(missing.locs, ['http://h.test/a']);
  assert.deepEqual(missing.codes, ['WRONG_NAMESPACE']);
  assert.match(missing.problems[0]!.message, /declares no namespace/);
  const wrong = parse('<sitemapindex xmlns="http://example.invalid/ns"><sitemap><loc>http://h.test/s.xml</loc></sitemap></sitemapindex>');
  assert.equal(wrong.children.length, 1);
  assert.deepEqual(wrong.codes, ['WRONG_NAMESPACE']);
  assert.equal(wrong.summary.fatal, undefined);
});

test('a declared non-UTF-8 encoding is decoded as declared and reported', () => {
  const doc = Buffer.concat([
    Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?><urlset ${NS}><url><loc>http://h.test/caf`, 'latin1'),
    Buffer.from([0xe9]), // é in Latin-1
    Buffer.from('</loc></url></urlset>', 'latin1'),
  ]);
  const p = parse(doc);
  assert.deepEqual(p.locs, ['http://h.test/café']);
  assert.deepEqual(p.codes, ['ENCODING_NOT_UTF8']);
});

test('UTF-16 documents (BOM first) are decoded as such in any chunking, never read as single bytes', () => {
  const text = '\ufeff' + urlset(urls(3) + '<url><loc>http://h.test/caf\u00e9/\u65e5</loc></url>');
  const le = Buffer.from(text, 'utf16le');
  const be = Buffer.from(le).swap16();
  const want = ['http://h.test/p0', 'http://h.test/p1', 'http://h.test/p2', 'http://h.test/caf\u00e9/\u65e5'];
  for (const doc of [le, be]) {
    assert.deepEqual(parse(doc).locs, want);
    // Chunks after the first hold byte pairs such as "<\0": all ASCII bytes, but not ASCII text.
    for (const size of [2, 7, 64]) assert.deepEqual(parse(doc, { chunks: [200, size] }).locs, want, `chunks of ${size}`);
  }
});

// ------------------------------------------------------------ <loc> text

test('<loc> is trimmed of whitespace and line breaks; CDATA and entities are decoded', () => {
  const p = parse(
    urlset(`
  <url><loc>
      http://h.test/padded
  </loc></url>
  <url><loc><![CDATA[http://h.test/q?a=1&b=<2>]]></loc></url>
  <url><loc>http://h.test/q?a=1&amp;b=&#50;&#x33;&quot;&apos;&lt;&gt;</loc></url>
  <url><loc> <![CDATA[http://h.test/mixed?x=1]]>&amp;y=2 </loc></url>`),
  );
  assert.deepEqual(p.locs, ['http://h.test/padded', 'http://h.test/q?a=1&b=<2>', `http://h.test/q?a=1&b=23"'<>`, 'http://h.test/mixed?x=1&y=2']);
  assert.deepEqual(p.problems, []);
});

test('only predefined and numeric entities are decoded; an HTML entity stays as written', () => {
  const p = parse(urlset('<url><loc>http://h.test/a&nbsp;b</loc></url>'));
  assert.deepEqual(p.locs, ['http://h.test/a&nbsp;b']);
});

test('relative, empty and non-http <loc>s are INVALID_URL and not items', () => {
  const p = parse(
    urlset('<url><loc>/relative/page</loc></url><url><loc></loc></url><url><loc>ftp://h.test/f</loc></url><url><loc>http://h.test/ok</loc></url>'),
  );
  assert.deepEqual(p.locs, ['http://h.test/ok']);
  assert.deepEqual(p.codes, ['INVALID_URL', 'INVALID_URL', 'INVALID_URL']);
  assert.equal(p.problems[0]!.url, '/relative/page');
  assert.equal(p.summary.urlCount, 1);
});

test('a <loc> over 8 KiB is reported and skipped; reading goes on', () => {
  const long = 'http://h.test/' + 'a'.repeat(9000);
  const p = parse(urlset(`<url><loc>${long}</loc></url>${urls(1)}`));
  assert.deepEqual(p.locs, ['http://h.test/p0']);
  assert.deepEqual(p.codes, ['LOC_TOO_LONG']);
  assert.ok(p.problems[0]!.url!.length < 300, 'the problem quotes a clipped value');
});

test('an hreflang link with an over-long or missing href is INVALID_ALTERNATE; the entry stays', () => {
  const p = parse(
    urlset(
      `<url><loc>http://h.test/a</loc><link rel="alternate" hreflang="de" href="http://h.test/${'d'.repeat(9000)}"/>` +
        '<link rel="alternate" hreflang="fr"/><link rel="alternate" hreflang="it" href="http://h.test/it"/></url>',
    ),
    { chunks: [512] },
  );
  assert.deepEqual(p.urls, [{ loc: 'http://h.test/a', alternates: [{ lang: 'it', href: 'http://h.test/it' }] }]);
  assert.deepEqual(p.codes, ['INVALID_ALTERNATE', 'INVALID_ALTERNATE']);
  assert.equal(p.problems[0]!.url, 'http://h.test/a');
});

test('a <url> without <loc> is MISSING_LOC', () => {
  const p = parse(urlset('<url><lastmod>2024-01-01</lastmod></url>' + urls(1)));
  assert.deepEqual(p.locs, ['http://h.test/p0']);
  assert.deepEqual(p.codes, ['MISSING_LOC']);
});

// ------------------------------------------------------------ entry fields

test('lastmod, changefreq, priority, hreflang, image, video and news are read into the entry', () => {
  const doc = `<urlset ${NS} xmlns:xhtml="http://www.w3.org/1999/xhtml" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
    xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
    xmlns:mobile="http://www.google.com/schemas/sitemap-mobile/1.0">
  <url>
    <loc>http://h.test/full</loc>
    <lastmod>2024-02-29T23:59:59.5+01:00</lastmod>
    <changefreq>weekly</changefreq>
    <priority>0.7</priority>
    <mobile:mobile/>
    <xhtml:link rel="alternate" hreflang="x-default" href="http://h.test/full"/>
    <xhtml:link rel="alternate" hreflang="de-DE" href="http://h.test/de/full"/>
    <image:image><image:loc>http://h.test/i.jpg</image:loc><image:title>T</image:title><image:caption>C &amp; D</image:caption></image:image>
    <video:video>
      <video:thumbnail_loc>http://h.test/t.jpg</video:thumbnail_loc><video:title>V</video:title>
      <video:description>Desc</video:description><video:content_loc>http://h.test/v.mp4</video:content_loc>
      <video:player_loc>http://h.test/player</video:player_loc><video:duration>42</video:duration>
      <video:publication_date>2024-01-01</video:publication_date>
    </video:video>
    <news:news><news:publication><news:name>Paper</news:name><news:language>en</news:language></news:publication>
      <news:publication_date>2024-01-02</news:publication_date><news:title>Headline</news:title></news:news>
  </url>
</urlset>`;
  const p = parse(doc);
  assert.deepEqual(p.problems, []);
  assert.deepEqual(p.urls, [
    {
      loc: 'http://h.test/full',
      lastmod: '2024-02-29T23:59:59.5+01:00',
      changefreq: 'weekly',
      priority: 0.7,
      alternates: [
        { lang: 'x-default', href: 'http://h.test/full' },
        { lang: 'de-DE', href: 'http://h.test/de/full' },
      ],
      images: [{ loc: 'http://h.test/i.jpg', title: 'T', caption: 'C & D' }],
      videos: [
        {
          thumbnailLoc: 'http://h.test/t.jpg',
          title: 'V',
          description: 'Desc',
          contentLoc: 'http://h.test/v.mp4',
          playerLoc: 'http://h.test/player',
          duration: 42,
          publicationDate: '2024-01-01',
        },
      ],
      news: { publicationName: 'Paper', publicationLanguage: 'en', publicationDate: '2024-01-02', title: 'Headline' },
    },
  ]);
});

test('an alternate link with media and no hreflang is a separate mobile URL, kept on the entry and no problem', () => {
  const p = parse(
    `<urlset ${NS} xmlns:xhtml="http://www.w3.org/1999/xhtml"><url><loc>http://h.test/page-1</loc>` +
      '<xhtml:link rel="alternate" media="only screen and (max-width: 640px)" href="http://m.h.test/page-1"/>' +
      '<xhtml:link rel="alternate" hreflang="de" media="only screen and (max-width: 640px)" href="http://m.h.test/de/page-1"/>' +
      '<xhtml:link rel="alternate" media="handheld" href="/relative"/>' +
      '<xhtml:link rel="alternate" href="http://h.test/neither"/></url></urlset>',
  );
  assert.deepEqual(p.urls, [
    {
      loc: 'http://h.test/page-1',
      // with an hreflang it is a language version (of the mobile site), as before
      alternates: [{ lang: 'de', href: 'http://m.h.test/de/page-1' }],
      mobile: [{ href: 'http://m.h.test/page-1', media: 'only screen and (max-width: 640px)' }],
    },
  ]);
  // a mobile link needs an absolute href; a link with neither hreflang nor media is an invalid alternate as before
  assert.deepEqual(p.codes, ['INVALID_ALTERNATE', 'INVALID_ALTERNATE']);
  assert.match(p.problems[0]!.message, /mobile version/);
  assert.match(p.problems[1]!.message, /needs hreflang/);
});

test('a news entry without <news:publication><news:name> is NEWS_MISSING_NAME with its URL; the entry stays', () => {
  const news = (inner: string) => `<news:news>${inner}<news:title>T</news:title></news:news>`;
  const p = parse(
    `<urlset ${NS} xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">` +
      `<url><loc>http://h.test/named</loc>${news('<news:publication><news:name>Paper</news:name><news:language>en</news:language></news:publication>')}</url>` +
      `<url><loc>http://h.test/no-name</loc>${news('<news:publication><news:language>en</news:language></news:publication>')}</url>` +
      `<url><loc>http://h.test/empty-name</loc>${news('<news:publication><news:name> </news:name></news:publication>')}</url>` +
      `<url><loc>http://h.test/no-publication</loc>${news('')}</url>` +
      '<url><loc>http://h.test/no-news</loc></url></urlset>',
  );
  assert.deepEqual(p.locs, [
    'http://h.test/named',
    'http://h.test/no-name',
    'http://h.test/empty-name',
    'http://h.test/no-publication',
    'http://h.test/no-news',
  ]);
  assert.deepEqual(p.urls[1]!.news, { publicationLanguage: 'en', title: 'T' });
  assert.deepEqual(
    p.problems.map((x) => [x.code, x.url]),
    [
      ['NEWS_MISSING_NAME', 'http://h.test/no-name'],
      ['NEWS_MISSING_NAME', 'http://h.test/empty-name'],
      ['NEWS_MISSING_NAME', 'http://h.test/no-publication'],
    ],
  );
});

test('an invalid lastmod is INVALID_LASTMOD with the URL, and the raw value is kept', () => {
  const bad = ['2024-13-01', '2023-02-29', '2024-01-01T10:00', '2024-01-01 10:00:00Z', 'yesterday', '2024-1-5', '2024-01-01T10:00:00+0100'];
  const good = ['2024', '2024-02', '2024-02-29', '2024-01-01T10:00Z', '2024-01-01T10:00:00-05:30', '1997-07-16T19:20:30.45+01:00'];
  const body = [...bad, ...good].map((d, i) => `<url><loc>http://h.test/d${i}</loc><lastmod>${d}</lastmod></url>`).join('');
  const p = parse(urlset(body));
  assert.equal(p.urls.length, bad.length + good.length);
  assert.deepEqual(
    p.urls.map((u) => u.lastmod),
    [...bad, ...good],
  );
  assert.deepEqual(
    p.codes,
    bad.map(() => 'INVALID_LASTMOD'),
  );
  assert.deepEqual(
    p.problems.map((x) => x.url),
    bad.map((_, i) => `http://h.test/d${i}`),
  );
});

test('priority outside 0..1 or not a number is INVALID_PRIORITY and left out; a bad changefreq is reported', () => {
  const p = parse(
    urlset(
      '<url><loc>http://h.test/a</loc><priority>1.5</priority></url>' +
        '<url><loc>http://h.test/b</loc><priority>high</priority></url>' +
        '<url><loc>http://h.test/c</loc><priority> 1.0 </priority><changefreq>sometimes</changefreq></url>' +
        '<url><loc>http://h.test/d</loc><priority>0</priority></url>',
    ),
  );
  assert.deepEqual(
    p.urls.map((u) => u.priority),
    [undefined, undefined, 1, 0],
  );
  assert.deepEqual(p.codes, ['INVALID_PRIORITY', 'INVALID_PRIORITY', 'INVALID_CHANGEFREQ']);
  assert.equal(p.urls[2]!.changefreq, 'sometimes');
});

test('<priority> text: a plain decimal from 0 to 1 is kept, anything else is INVALID_PRIORITY and left out', () => {
  // [text, priority kept] — undefined: left out with INVALID_PRIORITY. Exponents, hex, signs and the
  // empty text are refused (Number alone would take them); whitespace around the number is not.
  const cases: [string, number | undefined][] = [
    ['0.5', 0.5],
    ['1', 1],
    ['1.0', 1],
    ['.5', 0.5],
    ['0', 0],
    [' 0.5 ', 0.5],
    ['\t1\n', 1],
    ['1.', 1],
    ['00.50', 0.5],
    ['0.30000000000000004', 0.30000000000000004],
    ['0.1234567890123456789', Number('0.1234567890123456789')],
    ['1.5', undefined],
    ['-0.1', undefined],
    ['abc', undefined],
    ['', undefined],
    ['5e-1', undefined],
    ['0x1', undefined],
    ['-0', undefined],
    ['+1', undefined],
    ['Infinity', undefined],
    ['.', undefined],
    ['0,5', undefined],
    ['٠.٥', undefined],
    ['1.00000000000000001', 1],
    ['9999999999999999', undefined],
  ];
  // Each in the usual <url> (read by the shortcut) and with an attribute on <priority> (read element by element).
  for (const attr of ['', ' a="1"']) {
    const p = parse(urlset(cases.map(([t], i) => `<url><loc>http://h.test/${i}</loc><priority${attr}>${t}</priority></url>`).join('\n')));
    assert.equal(p.urls.length, cases.length);
    cases.forEach(([t, want], i) => assert.ok(Object.is(p.urls[i]!.priority, want), `${JSON.stringify(t)}${attr}: ${p.urls[i]!.priority}, want ${want}`));
    assert.deepEqual(
      p.problems.map((x) => [x.code, x.url]),
      cases.flatMap(([, want], i) => (want === undefined ? [['INVALID_PRIORITY', `http://h.test/${i}`]] : [])),
    );
  }
});

test('<priority> text: the shortcut and the element-by-element reader agree on every short decimal and random longer ones', () => {
  const texts: string[] = [];
  const all = (prefix: string, left: number): void => {
    texts.push(prefix);
    if (left > 0) for (const c of ['0', '1', '5', '9', '.']) all(prefix + c, left - 1);
  };
  all('', 4);
  let seed = 7;
  const rand = (n: number): number => (seed = (seed * 1103515245 + 12345) >>> 0) % n;
  for (let i = 0; i < 5000; i++) {
    let t = '';
    const len = 1 + rand(20);
    for (let j = 0; j < len; j++) t += rand(12) === 0 ? '.' : String(rand(10));
    texts.push(t);
  }
  const read = (attr: string) =>
    parse(urlset(texts.map((t, i) => `<url><loc>http://h.test/${i}</loc><priority${attr}>${t}</priority></url>`).join('\n'))).urls.map((u) => u.priority);
  const fast = read('');
  const slow = read(' a="1"');
  const PLAIN_DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;
  texts.forEach((t, i) => {
    const n = PLAIN_DECIMAL.test(t) ? Number(t) : NaN;
    const want = n >= 0 && n <= 1 ? n : undefined;
    assert.ok(Object.is(fast[i], want) && Object.is(slow[i], want), `${JSON.stringify(t)}: ${fast[i]} and ${slow[i]}, want ${want}`);
  });
});

test('entries outside the sitemap location are yielded and reported URL_OUT_OF_SCOPE', () => {
  const p = parse(
    urlset(
      '<url><loc>http://h.test/dir/in</loc></url><url><loc>http://h.test/other</loc></url><url><loc>https://h.test/dir/x</loc></url><url><loc>http://elsewhere.test/dir/y</loc></url>',
    ),
    { url: 'http://h.test/dir/sitemap.xml' },
  );
  assert.deepEqual(p.locs, ['http://h.test/dir/in', 'http://h.test/other', 'https://h.test/dir/x', 'http://elsewhere.test/dir/y']);
  assert.deepEqual(p.codes, ['URL_OUT_OF_SCOPE', 'URL_OUT_OF_SCOPE', 'URL_OUT_OF_SCOPE']);
  assert.deepEqual(
    p.problems.map((x) => x.url),
    ['http://h.test/other', 'https://h.test/dir/x', 'http://elsewhere.test/dir/y'],
  );
  assert.equal(p.summary.urlCount, 4);
});

test('a sitemap robots.txt announced may list the whole host (cross-submit scope), but not another host', () => {
  const p = parse(urlset('<url><loc>http://h.test/dir/in</loc></url><url><loc>http://h.test/other</loc></url><url><loc>http://elsewhere.test/y</loc></url>'), {
    url: 'http://h.test/dir/sitemap.xml',
    scopeUrl: 'http://h.test/',
  });
  assert.deepEqual(p.codes, ['URL_OUT_OF_SCOPE']);
  assert.equal(p.problems[0]!.url, 'http://elsewhere.test/y');
  assert.match(p.problems[0]!.message, /robots\.txt announces/);
});

// ------------------------------------------------------------ index, RSS, Atom

test('a sitemap index yields child sitemaps; entries without <loc> are skipped as MISSING_LOC', () => {
  const p = parse(`<sitemapindex ${NS}>
    <sitemap><loc>http://h.test/s1.xml</loc><lastmod>2024-03-01</lastmod></sitemap>
    <sitemap><lastmod>2024-03-02</lastmod></sitemap>
    <sitemap>http://h.test/bare.xml</sitemap>
    <sitemap><loc>http://h.test/s2.xml.gz</loc></sitemap>
    <url><loc>http://h.test/page</loc></url>
  </sitemapindex>`);
  assert.equal(p.summary.type, 'sitemapindex');
  assert.deepEqual(p.children, [
    { kind: 'sitemap', loc: 'http://h.test/s1.xml', lastmod: '2024-03-01' },
    { kind: 'sitemap', loc: 'http://h.test/s2.xml.gz' },
  ]);
  assert.equal(p.summary.childCount, 2);
  assert.equal(p.summary.urlCount, 0);
  assert.deepEqual(p.codes, ['MISSING_LOC', 'MISSING_LOC', 'WRONG_ENTRY_KIND']);
  assert.equal(p.problems[1]!.url, 'http://h.test/bare.xml');
});

test('RSS 2.0: each <item><link> is a URL, pubDate converted to ISO', () => {
  const p = parse(`<?xml version="1.0"?>
<rss version="2.0"><channel><title>T</title><link>http://h.test/</link>
  <item><title>A</title><link>http://h.test/a</link><pubDate>Sat, 07 Sep 2002 09:42:31 GMT</pubDate></item>
  <item><link>http://h.test/b</link><pubDate>Tue, 10 Jun 2003 04:00:00 +0200</pubDate></item>
  <item><link>http://h.test/c</link><pubDate>sometime</pubDate></item>
  <item><title>no link</title></item>
</channel></rss>`);
  assert.equal(p.summary.type, 'rss');
  assert.deepEqual(p.urls, [
    { loc: 'http://h.test/a', lastmod: '2002-09-07T09:42:31.000Z', title: 'A' },
    { loc: 'http://h.test/b', lastmod: '2003-06-10T02:00:00.000Z' },
    { loc: 'http://h.test/c', lastmod: 'sometime' },
  ]);
  assert.deepEqual(p.codes, ['INVALID_LASTMOD', 'MISSING_LOC']);
});

test('Atom: each <entry><link href> (rel alternate or none) with <updated> as lastmod', () => {
  const p = parse(`<feed xmlns="http://www.w3.org/2005/Atom"><title>F</title><link href="http://h.test/" /><updated>2024-01-01T00:00:00Z</updated>
  <entry><link href="/posts/1"/><link rel="edit" href="http://h.test/edit/1"/><updated>2024-01-02T03:04:05Z</updated></entry>
  <entry><updated>2024-01-03T00:00:00Z</updated><link rel="alternate" type="text/html" href="http://h.test/posts/2"/></entry>
  <entry><link rel="self" href="http://h.test/self"/></entry>
</feed>`);
  assert.equal(p.summary.type, 'atom');
  assert.deepEqual(p.urls, [
    { loc: 'http://h.test/posts/1', lastmod: '2024-01-02T03:04:05Z' }, // relative href resolved against the feed
    { loc: 'http://h.test/posts/2', lastmod: '2024-01-03T00:00:00Z' },
  ]);
  assert.deepEqual(p.codes, ['MISSING_LOC']);
});

test('an RSS pubDate without a time zone is INVALID_LASTMOD, kept as written, not read as UTC', () => {
  const p = parse(`<rss version="2.0"><channel>
  <item><link>http://h.test/a</link><pubDate>05 Jan 17 13:34:55</pubDate></item>
  <item><link>http://h.test/b</link><pubDate>Thu, 05 Jan 2017 13:34:55</pubDate></item>
  <item><link>http://h.test/c</link><pubDate>05 Jan 17 13:34:55 +0100</pubDate></item>
</channel></rss>`);
  assert.deepEqual(p.urls, [
    { loc: 'http://h.test/a', lastmod: '05 Jan 17 13:34:55' },
    { loc: 'http://h.test/b', lastmod: 'Thu, 05 Jan 2017 13:34:55' },
    { loc: 'http://h.test/c', lastmod: '2017-01-05T12:34:55.000Z' },
  ]);
  assert.deepEqual(
    p.problems.map((x) => [x.code, x.url]),
    [
      ['INVALID_LASTMOD', 'http://h.test/a'],
      ['INVALID_LASTMOD', 'http://h.test/b'],
    ],
  );
  assert.match(p.problems[0]!.message, /has no time zone/);
});

test('Atom 0.3: <modified>, else <issued>, else <created> is the lastmod; its namespace is no WRONG_NAMESPACE', () => {
  const p = parse(`<?xml version="1.0" encoding="utf-8"?>
<feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>F</title><modified>2003-12-13T18:30:02Z</modified>
  <entry><title>All three</title><link rel="alternate" type="text/html" href="http://h.test/1"/>
    <created>2003-12-13T08:29:29-04:00</created><issued>2003-12-13T08:29:29-04:00</issued><modified>2003-12-13T18:30:02Z</modified></entry>
  <entry><link rel="alternate" href="http://h.test/2"/><created>2003-12-12T00:00:00Z</created><issued>2003-12-13T08:29:29-04:00</issued></entry>
  <entry><link rel="alternate" href="http://h.test/3"/><created>2003-12-12T00:00:00Z</created></entry>
  <entry><link rel="alternate" href="http://h.test/4"/><modified></modified><issued>2003-12-13</issued></entry>
  <entry><link rel="alternate" href="http://h.test/5"/><issued>2003-12-13T08:29:29</issued></entry>
</feed>`);
  assert.equal(p.summary.type, 'atom');
  assert.deepEqual(p.urls, [
    { loc: 'http://h.test/1', lastmod: '2003-12-13T18:30:02Z', title: 'All three' },
    { loc: 'http://h.test/2', lastmod: '2003-12-13T08:29:29-04:00' },
    { loc: 'http://h.test/3', lastmod: '2003-12-12T00:00:00Z' },
    { loc: 'http://h.test/4', lastmod: '2003-12-13' }, // an empty <modified> gives way to <issued>
    { loc: 'http://h.test/5', lastmod: '2003-12-13T08:29:29' }, // Atom 0.3 lets <issued> omit the zone: no instant, reported
  ]);
  assert.deepEqual(
    p.problems.map((x) => [x.code, x.url]),
    [['INVALID_LASTMOD', 'http://h.test/5']],
  );
});

test('Atom 1.0: <updated>, else <published>, is the lastmod', () => {
  const p = parse(`<feed xmlns="http://www.w3.org/2005/Atom"><title>F</title>
  <entry><link href="http://h.test/1"/><published>2024-01-01T00:00:00Z</published><updated>2024-02-01T00:00:00Z</updated></entry>
  <entry><link href="http://h.test/2"/><published>2024-01-01T00:00:00Z</published></entry>
</feed>`);
  assert.deepEqual(p.urls, [
    { loc: 'http://h.test/1', lastmod: '2024-02-01T00:00:00Z' },
    { loc: 'http://h.test/2', lastmod: '2024-01-01T00:00:00Z' },
  ]);
  assert.deepEqual(p.problems, []);
});

test("feed items keep their title (the first, whitespace runs made one space); the channel's and feed's titles are no entry's", () => {
  const rss = parse(`<rss version="2.0"><channel><title>Channel</title>
  <item><title><![CDATA[Fish &amp; chips]]></title><link>http://h.test/a</link></item>
  <item><title>
    Wrapped
    title &amp; more </title><link>http://h.test/b</link><title>second</title></item>
  <item><title></title><link>http://h.test/c</link></item>
</channel></rss>`);
  assert.deepEqual(rss.urls, [
    { loc: 'http://h.test/a', title: 'Fish &amp; chips' },
    { loc: 'http://h.test/b', title: 'Wrapped title & more' },
    { loc: 'http://h.test/c' },
  ]);
  const rdf = parse(`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
  <channel><title>Channel</title><link>http://h.test/</link></channel>
  <item><title>One</title><link>http://h.test/1</link></item>
</rdf:RDF>`);
  assert.deepEqual(rdf.urls, [{ loc: 'http://h.test/1', title: 'One' }]);
  const atom = parse(`<feed xmlns="http://www.w3.org/2005/Atom"><title>Feed</title>
  <entry><title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">An <b>xhtml</b> title</div></title><link href="http://h.test/x"/></entry>
</feed>`);
  assert.deepEqual(atom.urls, [{ loc: 'http://h.test/x', title: 'An xhtml title' }]);
  assert.deepEqual([...rss.codes, ...rdf.codes, ...atom.codes], []);
});

test('an HTML page is type unknown with a fatal NOT_A_SITEMAP', () => {
  for (const doc of ['<!DOCTYPE html>\n<html><head><title>x</title></head><body><a href="/">x</a></body></html>', '<html><body>Not found</body></html>']) {
    const p = parse(doc);
    assert.equal(p.summary.type, 'unknown');
    assert.equal(p.summary.fatal?.code, 'NOT_A_SITEMAP');
    assert.deepEqual(p.codes, ['NOT_A_SITEMAP'], 'the fatal problem is yielded once, as an item too');
    assert.equal(p.urls.length, 0);
  }
});

// ------------------------------------------------------------ refusals and faults

test('a DOCTYPE declaration is refused: fatal DOCTYPE_REFUSED, nothing after it parsed', () => {
  const p = parse(`<?xml version="1.0"?>\n<!DOCTYPE urlset SYSTEM "http://h.test/sitemap.dtd">\n${urlset(urls(3))}`);
  assert.equal(p.summary.fatal?.code, 'DOCTYPE_REFUSED');
  assert.match(p.summary.fatal!.message, /line 2, column 1/);
  assert.equal(p.urls.length, 0);
  assert.equal(p.summary.type, 'unknown');
});

test('a billion-laughs document is refused before any entity is expanded', () => {
  const lines = ['<?xml version="1.0"?>', '<!DOCTYPE lolz [', ' <!ENTITY lol "lol">'];
  for (let i = 1; i <= 9; i++) lines.push(` <!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
  lines.push(']>', `<urlset ${NS}><url><loc>http://h.test/&lol9;</loc></url></urlset>`);
  const p = parse(lines.join('\n'));
  assert.equal(p.summary.fatal?.code, 'DOCTYPE_REFUSED');
  assert.equal(p.urls.length, 0);
  assert.deepEqual(p.codes, ['DOCTYPE_REFUSED']);
});

test('an ENTITY declaration after entries stops reading there; earlier entries are kept', () => {
  const p = parse(`<urlset ${NS}>${urls(2)}<!ENTITY x "y">${urls(2, 2)}</urlset>`);
  assert.deepEqual(p.locs, ['http://h.test/p0', 'http://h.test/p1']);
  assert.equal(p.summary.fatal?.code, 'DOCTYPE_REFUSED');
});

test('truncated XML keeps every URL read before the cut, with a fatal MALFORMED_XML', () => {
  const doc = urlset(urls(5));
  const inTag = doc.indexOf('<url><loc>http://h.test/p3') + 7; // cut inside "<loc"
  const p = parse(doc.slice(0, inTag));
  assert.deepEqual(p.locs, ['http://h.test/p0', 'http://h.test/p1', 'http://h.test/p2']);
  assert.equal(p.summary.fatal?.code, 'MALFORMED_XML');
  assert.match(p.summary.fatal!.message, /truncated/);
  assert.match(p.summary.fatal!.message, /line 6/);
  assert.match(p.summary.fatal!.message, /The 3 entries read before it were kept/);
  // Cut after a complete <loc> but before </url>: that URL was read, so it is kept too.
  const afterLoc = parse(doc.slice(0, doc.indexOf('http://h.test/p3</loc>') + 'http://h.test/p3</loc>'.length));
  assert.deepEqual(afterLoc.locs, ['http://h.test/p0', 'http://h.test/p1', 'http://h.test/p2', 'http://h.test/p3']);
  assert.equal(afterLoc.summary.fatal?.code, 'MALFORMED_XML');
  // Cut inside the <loc> text: that URL is not trusted.
  const inLoc = parse(doc.slice(0, doc.indexOf('http://h.test/p3') + 10));
  assert.equal(inLoc.locs.length, 3);
});

test('malformed XML (a mismatched end tag) stops with MALFORMED_XML and its line and column', () => {
  const doc = `<urlset ${NS}>\n  <url><loc>http://h.test/a</loc></url>\n  <url><loc>http://h.test/b</loc></urx>\n  <url><loc>http://h.test/c</loc></url>\n</urlset>`;
  const p = parse(doc);
  assert.deepEqual(p.locs, ['http://h.test/a', 'http://h.test/b']);
  assert.equal(p.summary.fatal?.code, 'MALFORMED_XML');
  assert.match(p.summary.fatal!.message, /line 3, column 34: expected <\/url> but found <\/urx>\. The 2 entries read before it were kept/);
});

test('text before the root element, an empty document and no element at all are reported', () => {
  assert.equal(parse('').summary.fatal, undefined);
  assert.deepEqual(parse('').codes, ['EMPTY_SITEMAP']);
  assert.deepEqual(parse('  \n\t ').codes, ['EMPTY_SITEMAP']);
  assert.equal(parse('<?xml version="1.0"?>\n').summary.fatal?.code, 'MALFORMED_XML');
  assert.equal(parse('<!-- only a comment -->').summary.fatal?.code, 'MALFORMED_XML');
});

test('content after the root element is ignored with a TRAILING_CONTENT problem, not a fatal one', () => {
  const p = parse(urlset(urls(2)) + '<b>Warning</b>: something in /var/www/sitemap.php on line 12\n');
  assert.deepEqual(p.locs, ['http://h.test/p0', 'http://h.test/p1']);
  assert.deepEqual(p.codes, ['TRAILING_CONTENT']);
  assert.equal(p.summary.fatal, undefined);
});

test('a token that never ends (a huge comment) is refused instead of being held in memory', () => {
  const doc = `<urlset ${NS}>${urls(1)}<!-- ${'x'.repeat(5 * 1024 * 1024)} -->${urls(1, 1)}</urlset>`;
  const p = parse(doc, { chunks: [64 * 1024] });
  assert.deepEqual(p.locs, ['http://h.test/p0']);
  assert.equal(p.summary.fatal?.code, 'TOKEN_TOO_LARGE');
});

// ------------------------------------------------------------ limits

test('more URLs than maxUrlsPerSitemap: one TOO_MANY_URLS problem, reading goes on, counts exact', () => {
  const p = parse(urlset(urls(7)), { limits: { maxUrlsPerSitemap: 3 } });
  assert.equal(p.urls.length, 7);
  assert.equal(p.summary.urlCount, 7);
  assert.deepEqual(p.codes, ['TOO_MANY_URLS']);
  assert.equal(
    p.items.findIndex((i) => i.kind === 'problem'),
    3,
    'reported as the fourth entry is read',
  );
  assert.equal(p.summary.fatal, undefined);
});

test('a plain body past maxUncompressedBytes stops at the cap with SIZE_LIMIT', () => {
  const doc = urlset(urls(200));
  const p = parse(doc, { limits: { maxUncompressedBytes: 2000 }, chunks: [333] });
  assert.equal(p.summary.fatal?.code, 'SIZE_LIMIT');
  assert.equal(p.summary.uncompressedBytes, 2000);
  assert.ok(p.urls.length > 10 && p.urls.length < 200, `kept what was read before the cap (${p.urls.length})`);
  assert.deepEqual(
    p.locs,
    p.locs.map((_, i) => `http://h.test/p${i}`),
  );
});

test('per-entry problems are capped at 100 per code, then one "… and N more" summary', () => {
  let body = '';
  for (let i = 0; i < 250; i++) body += `<url><loc>/rel/${i}</loc></url>`;
  for (let i = 0; i < 3; i++) body += `<url><loc>http://h.test/x${i}</loc><priority>2</priority></url>`;
  const p = parse(urlset(body));
  const invalid = p.problems.filter((x) => x.code === 'INVALID_URL');
  assert.equal(invalid.length, 101);
  assert.match(invalid[100]!.message, /^… and 150 more INVALID_URL problems/);
  assert.equal(p.problems.filter((x) => x.code === 'INVALID_PRIORITY').length, 3);
  assert.equal(p.summary.urlCount, 3);
});

// ------------------------------------------------------------ text sitemaps

test('a text sitemap: one URL per line, trimmed, blank lines skipped, junk lines reported', () => {
  const doc = '\n\nhttp://h.test/a\r\n   \n  http://h.test/b  \nnot a url\n/relative\nftp://h.test/f\n\thttp://h.test/c';
  const p = parse(doc);
  assert.equal(p.summary.type, 'text');
  assert.deepEqual(p.locs, ['http://h.test/a', 'http://h.test/b', 'http://h.test/c']);
  assert.deepEqual(p.codes, ['INVALID_URL', 'INVALID_URL', 'INVALID_URL']);
  assert.match(p.problems[0]!.message, /^Line 6 "not a url"/);
  assert.match(p.problems[2]!.message, /^Line 8 "ftp:\/\/h\.test\/f"/);
});

test('a text sitemap with a BOM, and an over-long line that is skipped', () => {
  const doc = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`http://h.test/a\nhttp://h.test/${'z'.repeat(10000)}\nhttp://h.test/b\n`)]);
  const p = parse(doc, { chunks: [1000] });
  assert.deepEqual(p.locs, ['http://h.test/a', 'http://h.test/b']);
  assert.deepEqual(p.codes, ['LOC_TOO_LONG']);
});

test('binary content is not a sitemap', () => {
  const p = parse(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
  assert.equal(p.summary.fatal?.code, 'NOT_A_SITEMAP');
  assert.equal(p.summary.type, 'unknown');
});

// ------------------------------------------------------------ chunk boundaries

/** Deterministic pseudo-random sizes (mulberry32), so a failure reproduces. */
function randomSizes(seed: number, max: number): (i: number) => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return 1 + Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * max);
  };
}

const RICH = Buffer.concat([
  Buffer.from([0xef, 0xbb, 0xbf]),
  Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<!-- a comment with <url> inside -->
<urlset ${NS} xmlns:xhtml="http://www.w3.org/1999/xhtml" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>http://h.test/caf%C3%A9?q=a&amp;b=&#x3C;</loc><lastmod>2024-01-01T00:00:00Z</lastmod><priority>0.5</priority>
    <xhtml:link rel="alternate" hreflang="ja" href="http://h.test/ja?x=1&amp;y=2"/>
    <image:image><image:loc><![CDATA[http://h.test/i.jpg?a=1&b=2]]></image:loc><image:title>Über 日本 🎉</image:title></image:image>
  </url>
  <url><loc>
    http://h.test/straße/日本
  </loc><changefreq>daily</changefreq><lastmod>bad date</lastmod></url>
  <url><loc>http://other.test/x</loc></url>
  <url><loc>relative</loc></url>
</urlset>
`),
]);

test('chunk boundaries: the same document 1 byte at a time and in random chunks gives the same result', () => {
  const whole = parse(RICH);
  assert.equal(whole.urls.length, 3);
  assert.equal(whole.urls[0]!.images![0]!.title, 'Über 日本 🎉');
  assert.equal(whole.urls[1]!.loc, 'http://h.test/straße/日本');
  assert.deepEqual(whole.codes, ['INVALID_LASTMOD', 'URL_OUT_OF_SCOPE', 'INVALID_URL']);
  assert.deepEqual(parse(RICH, { chunks: [1] }), whole);
  for (const seed of [1, 2, 3, 42, 1234]) {
    assert.deepEqual(parse(RICH, { chunks: randomSizes(seed, 40) }), whole, `seed ${seed}`);
  }
});

test('chunk boundaries: an all-ASCII chunk after a broken UTF-8 sequence is decoded in order, as TextDecoder would', () => {
  // ASCII chunks of a UTF-8 document are read as they are (not through TextDecoder) while the decoder
  // holds no partial character. Here a chunk ends in the lead byte of a sequence that never completes
  // (0xC3 then "ber"): its U+FFFD must come before the next chunk's text, not after.
  const head = Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset ${NS} xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n<url><loc>http://h.test/a</loc><image:image><image:loc>http://h.test/i.jpg</image:loc><image:title>x`,
  );
  const tail = Buffer.from('ber and more plain text</image:title></image:image></url>\n' + urls(3, 1) + '</urlset>\n');
  const doc = Buffer.concat([head, Buffer.from([0xc3]), tail]);
  const whole = parse(doc);
  assert.equal(whole.urls[0]!.images![0]!.title, 'x\ufffdber and more plain text');
  // The lone lead byte as a chunk of its own (after the first, which decides the encoding) and as the
  // end of one, so that the next chunk is all ASCII.
  assert.deepEqual(parse(doc, { chunks: (i) => (i === 0 ? head.length : i === 1 ? 1 : 64) }), whole);
  assert.deepEqual(parse(doc, { chunks: (i) => (i === 0 ? 100 : i === 1 ? head.length - 99 : 64) }), whole);
  for (const seed of [5, 6, 7]) assert.deepEqual(parse(doc, { chunks: randomSizes(seed, 50) }), whole, `seed ${seed}`);
});

test('chunk boundaries: text sitemaps and fault positions do not depend on chunking either', () => {
  const text = Buffer.from('\uFEFF\n http://h.test/a \r\nhttp://h.test/b\njunk\n\nhttp://h.test/ü\n', 'utf8');
  const broken = Buffer.from(`<urlset ${NS}>\n${urls(3)}  <url><loc>http://h.test/z</loc></uxl>\n</urlset>`);
  for (const doc of [text, broken]) {
    const whole = parse(doc);
    assert.deepEqual(parse(doc, { chunks: [1] }), whole);
    assert.deepEqual(parse(doc, { chunks: randomSizes(7, 9) }), whole);
  }
  assert.match(parse(broken, { chunks: [1] }).summary.fatal!.message, /line 5, column 34/);
});
