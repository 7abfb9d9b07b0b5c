/**
 * Every real-world sitemap in ../shared/conformance/sitemaps (crawler-commons' test resources)
 * parses without an exception, read in place from disk and streamed like a download, with
 * concrete expectations per file. The URLs inside are never fetched (do-not-visit.txt says so
 * explicitly: it is parsed, as a text sitemap, and its URL is left alone like all the others).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Problem, SitemapUrlEntry } from '../../shared/model.js';
import type { SitemapItem, SitemapSummary } from '../../electron/engine/types.js';
import { streamSitemap } from '../../electron/engine/sitemap/read/stream.js';

const DIR = fileURLToPath(new URL('../../../shared/conformance/sitemaps/', import.meta.url));

interface Parsed {
  summary: SitemapSummary;
  urls: SitemapUrlEntry[];
  children: { loc: string; lastmod?: string }[];
  problems: Problem[];
}

async function parseFile(path: string, url: string): Promise<Parsed> {
  const it = streamSitemap(createReadStream(path, { highWaterMark: 256 }), { url });
  const out: Omit<Parsed, 'summary'> = { urls: [], children: [], problems: [] };
  for (;;) {
    const r = await it.next();
    if (r.done) return { ...out, summary: r.value };
    for (const item of r.value as SitemapItem[]) {
      if (item.kind === 'url') out.urls.push(item.entry);
      else if (item.kind === 'sitemap') out.children.push(item.lastmod === undefined ? { loc: item.loc } : { loc: item.loc, lastmod: item.lastmod });
      else out.problems.push(item.problem);
    }
  }
}

function codes(p: Parsed): string[] {
  return p.problems.map((x) => x.code);
}

/** Per file: the URL it is read as (its entries' own site, so scope problems mean something) and what must come out. */
const EXPECTATIONS: Record<string, { url: string; check(p: Parsed): void }> = {
  'atom.xml': {
    url: 'http://example.org/atom.xml',
    check(p) {
      assert.equal(p.summary.type, 'atom');
      // The feed's own links (self, site) are not entries; the entry's rel="edit" link is not a page.
      const title = 'Atom-Powered Robots Run Amok';
      assert.deepEqual(p.urls, [
        { loc: 'http://example.org/2003/12/13/atom03', lastmod: '2003-12-13T18:30:02Z', title },
        { loc: 'http://example.org/2003/12/13/atom03.html', lastmod: '2003-12-13T18:30:02Z', title },
      ]);
      assert.deepEqual(p.problems, []);
    },
  },
  'do-not-visit.txt': {
    url: 'http://www.example.com/do-not-visit.txt',
    check(p) {
      assert.equal(p.summary.type, 'text');
      assert.deepEqual(p.urls, [{ loc: 'http://www.example.com/do-not-visit-here' }]);
      assert.deepEqual(p.problems, []);
    },
  },
  'sitemap-with-bom.txt': {
    url: 'http://www.domain.com/sitemap-with-bom.txt',
    check(p) {
      assert.equal(p.summary.type, 'text');
      assert.deepEqual(
        p.urls.map((u) => u.loc),
        ['http://www.domain.com/page1.html', 'http://www.domain.com/page2.html'],
      );
      assert.deepEqual(p.problems, [], 'the BOM is skipped, not read as part of the first URL');
    },
  },
  'sitemap.badns.xml': {
    url: 'http://www.example.com/sitemap.badns.xml',
    check(p) {
      assert.equal(p.summary.type, 'urlset');
      assert.deepEqual(p.urls, [
        { loc: 'http://www.example.com/1', changefreq: 'daily' },
        { loc: 'http://www.example.com/2', changefreq: 'daily' }, // loc and changefreq padded with line breaks
      ]);
      assert.deepEqual(codes(p), ['WRONG_NAMESPACE']);
      assert.match(p.problems[0]!.message, /google\.com\/schemas\/sitemap\/0\.9/);
      assert.equal(p.summary.fatal, undefined);
    },
  },
  'sitemap.index.xml': {
    url: 'https://example.com/sitemap.xml',
    check(p) {
      assert.equal(p.summary.type, 'sitemapindex');
      // Its 15 <sitemap> entries hold bare text instead of <loc>: each is skipped and reported.
      assert.equal(p.summary.childCount, 0);
      assert.deepEqual(p.children, []);
      assert.equal(p.problems.length, 15);
      assert.ok(p.problems.every((x) => x.code === 'MISSING_LOC'));
      assert.equal(p.problems[0]!.url, 'https://example.com/sitemap.jss?portalCode=10260&lang=en');
      assert.equal(p.problems[14]!.url, 'https://example.com/sitemap.jss?portalCode=10570&lang=en');
    },
  },
  'sitemap.ns.xml': {
    url: 'http://www.example.com/sitemap.ns.xml',
    check(p) {
      assert.equal(p.summary.type, 'urlset'); // <sit:urlset> with xmlns:sit = the sitemaps.org namespace
      assert.deepEqual(p.urls, [
        { loc: 'http://www.example.com/1', changefreq: 'daily' },
        { loc: 'http://www.example.com/2', changefreq: 'daily' },
      ]);
      assert.deepEqual(p.problems, []);
    },
  },
  'sitemap.txt': {
    url: 'http://www.domain.com/sitemap.txt',
    check(p) {
      assert.equal(p.summary.type, 'text');
      assert.equal(p.summary.gzip, false);
      assert.deepEqual(
        p.urls.map((u) => u.loc),
        ['http://www.domain.com/page1.html', 'http://www.domain.com/page2.html'],
      );
      assert.deepEqual(p.problems, []);
    },
  },
  'sitemap.txt.gz': {
    url: 'http://www.example.com/sitemap.txt.gz',
    check(p) {
      assert.equal(p.summary.gzip, true);
      assert.equal(p.summary.type, 'text');
      assert.equal(p.summary.urlCount, 5);
      assert.equal(p.urls[1]!.loc, 'http://www.example.com/catalog?item=12&desc=vacation_hawaii');
      assert.deepEqual(p.problems, []);
    },
  },
  'xmlSitemap.gz': {
    url: 'http://www.example.com/xmlSitemap.gz',
    check(p) {
      assert.equal(p.summary.gzip, true);
      assert.equal(p.summary.type, 'urlset');
      assert.equal(p.summary.urlCount, 5);
      assert.ok(p.summary.uncompressedBytes > 339, 'uncompressedBytes counts inflated bytes');
      assert.deepEqual(p.urls[0], { loc: 'http://www.example.com/', lastmod: '2005-01-01', changefreq: 'monthly', priority: 0.8 });
      assert.deepEqual(p.urls[3], {
        loc: 'http://www.example.com/catalog?item=74&desc=vacation_newfoundland',
        lastmod: '2004-12-23T18:00:15+00:00',
        priority: 0.3,
      });
      assert.deepEqual(p.problems, []);
    },
  },
  'hebdenbridgetimes-articles-sitemap.xml': {
    url: 'http://www.hebdenbridgetimes.co.uk/sitemap.xml',
    check(p) {
      assert.equal(p.summary.type, 'urlset');
      assert.equal(p.summary.urlCount, 74);
      assert.deepEqual(p.problems, []);
      const first = p.urls[0]!;
      assert.equal(first.loc, 'http://www.hebdenbridgetimes.co.uk/news/local/video-tour-de-yorkshire-in-calderdale-1-7242580');
      assert.equal(first.lastmod, '2015-05-03T18:51:50+01:00');
      assert.equal(first.changefreq, 'daily');
      assert.equal(first.images?.[0]?.caption, 'Tour De Yorkshire passes through Nutclough, Hebden Bridge');
      const video = first.videos?.[0];
      assert.equal(video?.title, 'VIDEO - Tour de Yorkshire in Calderdale');
      assert.equal(video?.publicationDate, '2015-05-03T18:44:05+01:00');
      assert.match(video?.playerLoc ?? '', /playerID=3266758341001&playerKey=AQ~~,/); // &amp; decoded
      assert.ok(video?.description?.startsWith('<!--PSTYLE=WINT Web Intro--><p>Thousands'));
    },
  },
  'pagemaps-sitemap.xml': {
    url: 'http://www.example.com/pagemaps-sitemap.xml',
    check(p) {
      // PageMap blocks (another default namespace inside <url>) are skipped without harm.
      assert.deepEqual(p.urls, [{ loc: 'http://www.example.com/foo' }, { loc: 'http://www.example.com/bar' }]);
      assert.deepEqual(p.problems, []);
    },
  },
  'shinpaideshou-news-sitemap.xml': {
    url: 'https://shinpaideshou.wordpress.com/news-sitemap.xml',
    check(p) {
      assert.equal(p.summary.urlCount, 3);
      assert.deepEqual(p.urls[0]!.news, {
        publicationName: 'What can I do with a B.A. in Japanese Studies?',
        publicationLanguage: 'en',
        publicationDate: '2017-04-25T10:00:36+00:00',
        title: 'Job Opening: Reischauer Policy Research Fellow',
      });
      assert.deepEqual(p.problems, []);
    },
  },
  'sitemap-images.xml': {
    url: 'http://www.example.com/sitemap-images.xml',
    check(p) {
      assert.deepEqual(p.urls, [
        {
          loc: 'http://www.example.com/images/some_image_landing_page.html',
          images: [
            { loc: 'http://example.com/image.jpg' },
            { loc: 'http://example.com/photo.jpg', caption: 'This is the caption.', title: 'Example photo shot in Limerick, Ireland' },
          ],
        },
      ]);
      assert.deepEqual(p.problems, []);
    },
  },
  'sitemap-links.xml': {
    url: 'http://www.example.com/sitemap-links.xml',
    check(p) {
      assert.equal(p.summary.urlCount, 3);
      assert.deepEqual(p.urls[1], {
        loc: 'http://www.example.com/deutsch/',
        alternates: [
          { lang: 'de', href: 'http://www.example.com/deutsch/' },
          { lang: 'de-ch', href: 'http://www.example.com/schweiz-deutsch/' },
          { lang: 'en', href: 'http://www.example.com/english/' },
        ],
      });
      assert.deepEqual(p.problems, []);
    },
  },
  'sitemap-mobile.xml': {
    url: 'http://www.example.com/sitemap-mobile.xml',
    check(p) {
      assert.deepEqual(
        p.urls.map((u) => u.loc),
        ['http://www.example.com/mobile-friendly-1/', 'http://www.example.com/mobile-friendly-2/', 'http://www.example.com/no-mobile/'],
      );
      assert.deepEqual(p.problems, []);
    },
  },
  'sitemap-news.xml': {
    url: 'http://www.example.org/sitemap-news.xml',
    check(p) {
      assert.equal(p.summary.urlCount, 2);
      assert.deepEqual(p.urls[0]!.news, {
        publicationName: 'The Example Times',
        publicationLanguage: 'en',
        publicationDate: '2008-12-23',
        title: 'Companies A, B in Merger Talks',
      });
      // An empty <news:name> is left out rather than kept as "", and reported: Google News requires it.
      assert.deepEqual(p.urls[1]!.news, { publicationLanguage: 'en', publicationDate: '2025-05-27', title: 'Test empty news attributes' });
      assert.deepEqual(
        p.problems.map((x) => [x.code, x.url]),
        [['NEWS_MISSING_NAME', 'http://www.example.org/empty_news_name.html']],
      );
    },
  },
  'sitemap-videos-tvshow.xml': {
    url: 'https://example.org/sitemap-videos-tvshow.xml',
    check(p) {
      // <loc> comes after <video:video> here: the entry is assembled at </url>.
      assert.equal(p.summary.urlCount, 1);
      assert.equal(p.urls[0]!.loc, 'https://example.org/my-tv-show/23/13/');
      assert.deepEqual(p.urls[0]!.videos, [
        {
          title: 'My TV Show! - Thu, Jun 05, 2025',
          description: 'Dummy description',
          duration: 2459,
          playerLoc: 'https://example.org/video/embed/23-13',
          contentLoc: 'https://example.org/video/video/23-13.mp4',
          publicationDate: '2025-06-06T09:00:00+00:00',
          thumbnailLoc: 'https://example.org/my-tv-show.jpg',
        },
      ]);
      assert.deepEqual(p.problems, []);
    },
  },
  'sitemap-videos.xml': {
    url: 'http://www.example.com/sitemap-videos.xml',
    check(p) {
      assert.equal(p.summary.urlCount, 3);
      const v = p.urls[0]!.videos![0]!;
      assert.equal(v.thumbnailLoc, 'http://www.example.com/thumbs/123.jpg');
      assert.equal(v.playerLoc, 'http://www.example.com/videoplayer.swf?video=123'); // padded with a line break
      assert.equal(v.duration, 600);
      assert.equal(v.publicationDate, '2007-11-05T19:20:30+08:00');
      assert.equal(p.urls[2]!.videos![0]!.title, 'Grilling steaks for summer, episode 3');
      assert.deepEqual(p.problems, []);
    },
  },
};

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listFiles(path));
    else out.push(path);
  }
  return out;
}

test('conformance sitemaps: every file parses, with its expected entries and problems', async (t) => {
  if (!existsSync(DIR)) {
    t.skip(`skipped: the conformance folder ${DIR} is not present (it is in CI; a fresh clone may lack it)`);
    return;
  }
  const files = listFiles(DIR);
  assert.ok(files.length >= 18, `expected the conformance sitemaps, found ${files.length} files`);
  for (const path of files) {
    const name = path.slice(DIR.length);
    const base = name.split('/').pop()!;
    await t.test(name, async () => {
      const expectation = EXPECTATIONS[base];
      const parsed = await parseFile(path, expectation?.url ?? 'http://www.example.com/sitemap.xml');
      assert.equal(parsed.summary.urlCount, parsed.urls.length, 'urlCount is exact');
      assert.equal(parsed.summary.childCount, parsed.children.length, 'childCount is exact');
      assert.equal(parsed.summary.fatal, undefined, `no conformance file is refused: ${parsed.summary.fatal?.message}`);
      assert.ok(expectation, `${name} has no expectations in this test: add them`);
      expectation.check(parsed);
    });
  }
});

test('conformance sitemaps: entries outside the sitemap location are reported, still yielded', async (t) => {
  const path = join(DIR, 'sitemap.txt');
  if (!existsSync(path)) {
    t.skip(`skipped: ${path} is not present (the conformance folder is in CI; a fresh clone may lack it)`);
    return;
  }
  // Read as if it were served from another host: both URLs stay, each with a URL_OUT_OF_SCOPE problem.
  const p = await parseFile(path, 'http://www.example.com/sitemap.txt');
  assert.equal(p.urls.length, 2);
  assert.deepEqual(codes(p), ['URL_OUT_OF_SCOPE', 'URL_OUT_OF_SCOPE']);
  assert.equal(p.problems[0]!.url, 'http://www.domain.com/page1.html');
});
