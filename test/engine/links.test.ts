import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractPageInfo, parseRobotsDirectives } from '../../electron/engine/links/links.js';

const PAGE = 'https://example.com/dir/page.html';

test('extracts a, area, iframe, frame and site links in document order, resolved and deduplicated', () => {
  const html = `<!doctype html><html><head>
    <title>  Home &amp;
      Garden </title>
    <link rel="stylesheet" href="/style.css">
    <link rel="icon" href="/favicon.ico">
    <link rel="next" href="?page=2">
  </head><body>
    <a href="a.html">A</a>
    <A HREF="/b">B</A>
    <a href="a.html">A again</a>
    <a href="https://example.com/dir/a.html">A absolute</a>
    <a href="#top">fragment</a>
    <a href="javascript:alert(1)">js</a>
    <a href="mailto:x@example.com">mail</a>
    <a href="tel:+1">tel</a>
    <a href="">empty</a>
    <a>no href</a>
    <map><area href="/area" shape="rect"></map>
    <iframe src="//cdn.example.net/frame"></iframe>
    <frameset><frame src="/frame2"></frameset>
    <a href="  /spa
	ced/path  ">spaced</a>
    <script>document.write('<a href="/from-script">x</a>')</script>
  </body></html>`;
  const info = extractPageInfo(html, PAGE);
  assert.equal(info.title, 'Home & Garden');
  assert.deepEqual(
    info.links.map((l) => [l.url, l.tag]),
    [
      ['https://example.com/dir/page.html?page=2', 'link'],
      ['https://example.com/dir/a.html', 'a'],
      ['https://example.com/b', 'a'],
      ['https://example.com/dir/page.html#top', 'a'],
      ['https://example.com/area', 'area'],
      ['https://cdn.example.net/frame', 'iframe'],
      ['https://example.com/frame2', 'frame'],
      ['https://example.com/spaced/path', 'a'], // edges trimmed, newline and tab inside removed
    ],
  );
  assert.ok(info.links.every((l) => l.nofollow === false));
});

test('the first <base href> is the base of every relative link; later ones are ignored', () => {
  const html = `<html><head>
    <link rel="canonical" href="canon">
    <base href="https://static.example.org/root/">
    <base href="https://ignored.example/">
  </head><body><a href="x">x</a><a href="/y">y</a></body></html>`;
  const info = extractPageInfo(html, PAGE);
  assert.equal(info.baseHref, 'https://static.example.org/root/');
  assert.equal(info.canonical, 'https://static.example.org/root/canon');
  assert.deepEqual(
    info.links.map((l) => l.url),
    ['https://static.example.org/root/canon', 'https://static.example.org/root/x', 'https://static.example.org/y'],
  );
  // A relative base resolves against the page; a non-http base is ignored.
  assert.equal(extractPageInfo('<base href="/other/"><a href="z">', PAGE).links[0]!.url, 'https://example.com/other/z');
  const js = extractPageInfo('<base href="javascript:x"><a href="z">', PAGE);
  assert.equal(js.baseHref, undefined);
  assert.equal(js.links[0]!.url, 'https://example.com/dir/z');
});

test('canonical, hreflang alternates and meta robots', () => {
  const html = `<head>
    <link rel="canonical" href="https://example.com/canonical">
    <link rel="canonical" href="https://example.com/second-canonical">
    <link rel="alternate" hreflang="en-GB" href="/en-gb/">
    <link rel="Alternate" hreflang="x-default" href="https://example.com/">
    <link rel="alternate" type="application/rss+xml" href="/feed.xml">
    <meta name="ROBOTS" content="NoIndex, Follow">
    <meta name="googlebot" content="nofollow">
  </head>`;
  const info = extractPageInfo(html, PAGE);
  assert.equal(info.canonical, 'https://example.com/canonical');
  assert.deepEqual(info.hreflang, [
    { lang: 'en-GB', href: 'https://example.com/en-gb/' },
    { lang: 'x-default', href: 'https://example.com/' },
  ]);
  assert.equal(info.metaRobots, 'NoIndex, Follow');
  assert.ok(info.links.some((l) => l.url === 'https://example.com/feed.xml' && l.rel === 'alternate'));
  assert.ok(
    info.links.every((l) => !l.nofollow),
    'googlebot meta does not make links nofollow for this crawler',
  );
});

test('rel=nofollow on a link, meta robots nofollow on the page', () => {
  const html = `<a href="/sponsored" rel="sponsored NOFOLLOW">x</a><a href="/plain">y</a>
    <a href="/twice" rel="nofollow">1</a><a href="/twice">2</a>`;
  const info = extractPageInfo(html, PAGE);
  const byUrl = new Map(info.links.map((l) => [l.url, l]));
  assert.equal(byUrl.get('https://example.com/sponsored')!.nofollow, true);
  assert.equal(byUrl.get('https://example.com/sponsored')!.rel, 'sponsored NOFOLLOW');
  assert.equal(byUrl.get('https://example.com/plain')!.nofollow, false);
  assert.equal(byUrl.get('https://example.com/twice')!.nofollow, false, 'a followable occurrence makes it followable');

  const meta = extractPageInfo('<meta name="robots" content="none"><a href="/a">a</a>', PAGE);
  assert.equal(meta.links[0]!.nofollow, true);
  assert.equal(meta.metaRobots, 'none');
});

test('title: first one only, not from inline SVG, entities decoded; missing title stays undefined', () => {
  const svgFirst = extractPageInfo('<body><svg><title>Icon</title></svg><title>Real &eacute;t&eacute;</title><title>Second</title></body>', PAGE);
  assert.equal(svgFirst.title, 'Real été');
  assert.equal(extractPageInfo('<p>no title</p>', PAGE).title, undefined);
  assert.equal(extractPageInfo('<title></title>', PAGE).title, '');
  assert.equal(extractPageInfo('<title>Unclosed <b>not a tag</b>', PAGE).title, 'Unclosed <b>not a tag</b>');
});

test('broken and hostile markup never throws and executes nothing', () => {
  const html = `<a href="/ok"<a href='/x'>x</a><a href='/single'>s</a><a href=/unquoted>y</a><a href="http://[bad">z</a><a href="/unterminated
    <img src=x onerror="globalThis.__pwned = 1"><script>globalThis.__pwned = 1</script>
    <!-- <a href="/in-comment"> --><textarea><a href="/in-textarea"></textarea>`;
  const info = extractPageInfo(html, PAGE);
  assert.equal((globalThis as { __pwned?: number }).__pwned, undefined);
  const urls = info.links.map((l) => l.url);
  assert.ok(urls.includes('https://example.com/unquoted'));
  assert.ok(urls.includes('https://example.com/single'));
  assert.ok(!urls.includes('https://example.com/in-comment'));
  assert.ok(!urls.includes('https://example.com/in-textarea'));
  assert.ok(urls.every((u) => u.startsWith('https://example.com/')));
  assert.deepEqual(extractPageInfo('', PAGE), {
    links: [],
    anchors: [],
    hreflang: [],
    metaDescriptionCount: 0,
    h1Count: 0,
    wordCount: 0,
    // SHA-256 of the empty string
    contentHash: '47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU',
  });
});

test('parseRobotsDirectives reads meta robots and X-Robots-Tag values', () => {
  const cases: [string, boolean, boolean][] = [
    ['noindex', true, false],
    ['nofollow', false, true],
    ['noindex, nofollow', true, true],
    ['NOINDEX,NOFOLLOW', true, true],
    ['  none  ', true, true],
    ['all', false, false],
    ['index, follow', false, false],
    ['max-snippet: 20, noindex', true, false],
    ['unavailable_after: 2030-01-01, nofollow', false, true],
    ['googlebot: noindex', true, false],
    ['googlebot: noindex, nofollow', true, true],
    ['', false, false],
  ];
  for (const [value, noindex, nofollow] of cases) {
    assert.deepEqual(parseRobotsDirectives(value), { noindex, nofollow }, value);
  }
});

test('parseRobotsDirectives scopes user-agent prefixes when an agent is given', () => {
  const header = 'otherbot: noindex, nofollow, spinneret: nofollow';
  assert.deepEqual(parseRobotsDirectives(header), { noindex: true, nofollow: true });
  assert.deepEqual(parseRobotsDirectives(header, 'Spinneret/1.0 (+https://x)'), { noindex: false, nofollow: true });
  assert.deepEqual(parseRobotsDirectives(header, 'somebot'), { noindex: false, nofollow: false });
  assert.deepEqual(parseRobotsDirectives('noindex, otherbot: nofollow', 'spinneret'), { noindex: true, nofollow: false });
});
