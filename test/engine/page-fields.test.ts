/**
 * The on-page fields extractPageInfo reads for the analyst (issue 22): meta description, first H1
 * and the number of H1s, `<html lang>`, the word count of the visible text, and each link's anchor
 * text; on pages whose fields are missing, empty, repeated or oddly written.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_ANCHOR_CHARS, MAX_FIELD_CHARS, countWords, extractPageInfo } from '../../electron/engine/links/links.js';

const PAGE = 'https://example.com/dir/page.html';
const read = (html: string) => extractPageInfo(html, PAGE);
/** The on-page fields only, absent ones left out. */
const fields = (html: string) => {
  const { metaDescription, metaDescriptionCount, h1, h1Count, lang, wordCount } = read(html);
  return Object.fromEntries(Object.entries({ metaDescription, metaDescriptionCount, h1, h1Count, lang, wordCount }).filter(([, v]) => v !== undefined));
};
const anchors = (html: string) => read(html).links.map((l) => [l.url.replace('https://example.com', ''), l.anchor]);

describe('page fields on an ordinary page', () => {
  it('reads the meta description, the first H1, the H1 count, the language and the words', () => {
    const html = `<!doctype html>
      <html lang="en-GB">
      <head>
        <meta charset="utf-8">
        <title>Garden tools | Example</title>
        <meta name="description" content="  Spades, forks &amp; rakes
            for every garden.  ">
      </head>
      <body>
        <nav><a href="/">Home</a> <a href="/shop">Shop</a></nav>
        <h1>Garden <em>tools</em></h1>
        <p>Twelve tools, from spades to rakes.</p>
      </body></html>`;
    assert.deepEqual(fields(html), {
      metaDescription: 'Spades, forks & rakes for every garden.',
      metaDescriptionCount: 1,
      h1: 'Garden tools',
      h1Count: 1,
      lang: 'en-GB',
      // "Garden tools" + "Twelve tools, from spades to rakes": the nav and the head are not counted.
      wordCount: 8,
    });
  });
});

describe('page fields that are missing', () => {
  it('an empty document has none and counts nothing', () => {
    assert.deepEqual(fields(''), { metaDescriptionCount: 0, h1Count: 0, wordCount: 0 });
  });

  it('a page without description, H1 or lang leaves them absent, not empty', () => {
    const info = read('<html><head><title>T</title></head><body><h2>Sub</h2><p>Text</p></body></html>');
    assert.equal(info.metaDescription, undefined);
    assert.equal(info.h1, undefined);
    assert.equal(info.lang, undefined);
    assert.equal(info.metaDescriptionCount, 0);
    assert.equal(info.h1Count, 0);
    assert.equal(info.wordCount, 2);
  });

  it('other meta tags are not a description: og:description, property=description, name=descriptions', () => {
    const html = `<meta property="og:description" content="og"><meta property="description" content="p">
      <meta name="descriptions" content="plural"><meta http-equiv="description" content="h">`;
    assert.deepEqual(fields(html), { metaDescriptionCount: 0, h1Count: 0, wordCount: 0 });
  });
});

describe('page fields that are empty', () => {
  it('an empty or content-less description, an H1 without text, an empty lang are "" (present, empty)', () => {
    assert.equal(read('<meta name="description" content="">').metaDescription, '');
    assert.equal(read('<meta name="description" content="   \n\t ">').metaDescription, '');
    assert.equal(read('<meta name="description">').metaDescription, '');
    assert.equal(read('<meta name="description">').metaDescriptionCount, 1);
    assert.equal(read('<h1></h1>').h1, '');
    assert.equal(read('<h1>   </h1>').h1Count, 1);
    // An image's alt is not the heading's text.
    assert.equal(read('<h1><img src="logo.png" alt="Logo"></h1>').h1, '');
    assert.equal(read('<html lang=""><body>x</body></html>').lang, '');
    assert.equal(read('<html lang="  de-AT "><body>x</body></html>').lang, 'de-AT');
  });
});

describe('page fields that are repeated', () => {
  it('the first description and H1 are kept and all are counted, even when the first is empty', () => {
    const html = `<head><meta name="description" content=""><meta name="Description" content="Second">
      <meta name="description" content="Third"></head>
      <body><h1></h1><h1>Second heading</h1><div><h1>Third</h1></div></body>`;
    assert.deepEqual(fields(html), {
      metaDescription: '',
      metaDescriptionCount: 3,
      h1: '',
      h1Count: 3,
      wordCount: 3,
    });
  });

  it('an H1 ends at the next heading tag, as browsers close it: a nested <h1> is a second H1', () => {
    const info = read('<h1>First <h1>Second</h1> still</h1><h1>Third<h2>Sub</h2></h1>');
    assert.equal(info.h1, 'First');
    assert.equal(info.h1Count, 3);
  });

  it('an unclosed H1 runs to the end of the document, and is kept', () => {
    const info = read('<body><h1>Unclosed <b>heading</b>');
    assert.equal(info.h1, 'Unclosed heading');
    assert.equal(info.h1Count, 1);
  });

  it('a second <html> gives lang only when the first has none, as browsers merge it', () => {
    assert.equal(read('<html><head></head><html lang="de"><body>x').lang, 'de');
    assert.equal(read('<html lang="fr"><html lang="de"><body>x').lang, 'fr');
    assert.equal(read('<html lang=""><html lang="de"><body>x').lang, '');
  });
});

describe('page fields in odd markup', () => {
  it('decodes entities: named, numeric, hex, without semicolon, in attributes and text', () => {
    const html = `<meta name="description" content="Caf&eacute; &#8220;quoted&#x201D; &amp more&nbsp;here">
      <h1>Fish &amp; Chips&nbsp;&mdash; caf&eacute;s &#x1F41F;</h1>`;
    const info = read(html);
    assert.equal(info.metaDescription, 'Café “quoted” & more here');
    assert.equal(info.h1, 'Fish & Chips — cafés 🐟');
    // Fish, Chips, cafés: the entity splitting "caf" and "é" into two pieces of text does not split the word.
    assert.equal(info.wordCount, 3);
  });

  it('reads uppercase tags and attributes, unquoted and single-quoted values', () => {
    const html = `<HTML LANG=pt-BR><HEAD><META NAME=DESCRIPTION CONTENT=Unquoted></HEAD>
      <BODY><H1 CLASS='x'>Upper <SPAN>case</SPAN></H1><A HREF=/next TITLE=n>Next page</A></BODY></HTML>`;
    assert.deepEqual(fields(html), {
      metaDescription: 'Unquoted',
      metaDescriptionCount: 1,
      h1: 'Upper case',
      h1Count: 1,
      lang: 'pt-BR',
      wordCount: 4,
    });
    assert.deepEqual(anchors(html), [['/next', 'Next page']]);
  });

  it('CDATA in HTML is a comment, as browsers read it: no text, no words', () => {
    const info = read('<h1><![CDATA[Not text]]></h1><p>Real <![CDATA[ hidden ]]>words</p>');
    assert.equal(info.h1, '');
    assert.equal(info.wordCount, 2);
  });

  it("an <h1> inside <svg> is an H1 (a browser ends the SVG there); the SVG's own text is not", () => {
    const info = read('<body><svg viewBox="0 0 1 1"><text>Logo text</text><h1>Heading in SVG</h1></svg><p>Body</p></body>');
    assert.equal(info.h1, 'Heading in SVG');
    assert.equal(info.h1Count, 1);
    // Nothing between <svg> and </svg> is counted as words.
    assert.equal(info.wordCount, 1);
    // An SVG inside an H1 adds none of its text to the heading.
    assert.equal(read('<h1><svg><title>icon</title><text>icon</text></svg>Title</h1>').h1, 'Title');
  });

  it('H1s and descriptions in template and noscript do not count (a browser with scripts on has none)', () => {
    const html = `<head><noscript><meta name="description" content="ns"></noscript></head>
      <body><template><h1>Template</h1></template><noscript><h1>No script</h1></noscript>
      <script>document.write("<h1>Script</h1>")</script><h1>Real</h1></body>`;
    assert.deepEqual(fields(html), { metaDescriptionCount: 0, h1: 'Real', h1Count: 1, wordCount: 1 });
  });

  it('a meta description written in the body still counts (search engines read it there)', () => {
    assert.equal(read('<body><p>x</p><meta name="description" content="late"></body>').metaDescription, 'late');
  });

  it('cuts a long description and H1 at MAX_FIELD_CHARS, never inside a surrogate pair', () => {
    const long = 'word '.repeat(1000);
    const info = read(`<meta name="description" content="${long}"><h1>${long}</h1>`);
    // Whitespace collapsed first, then cut (mid-word if need be) and trimmed.
    const cut = long.trim().slice(0, MAX_FIELD_CHARS).trimEnd();
    assert.equal(cut.length, MAX_FIELD_CHARS);
    assert.equal(info.metaDescription, cut);
    assert.equal(info.h1, cut);
    const emoji = read(`<h1>${'a'.repeat(MAX_FIELD_CHARS - 1)}🐟🐟</h1>`).h1!;
    assert.equal(emoji, 'a'.repeat(MAX_FIELD_CHARS - 1));
  });
});

describe('word count of the visible text', () => {
  it('leaves out head, title, script, style, noscript, template, nav, svg, iframe content', () => {
    const html = `<html><head><title>Title words</title><style>p { color: red }</style>
      <script>var some = "script words";</script></head>
      <body>
        <nav><ul><li>Menu one</li></ul></nav>
        <noscript>Enable scripts</noscript><template><p>Template words</p></template>
        <svg><text>Chart label</text></svg><iframe>fallback words</iframe>
        <p>Counted words here</p><!-- comment words -->
        <script type="application/ld+json">{"name": "json words"}</script>
      </body></html>`;
    assert.equal(read(html).wordCount, 3);
  });

  it('text the parser moves out of an unclosed head counts, and a <head> after the body has begun does not hide anything', () => {
    assert.equal(read('<html><head><title>T</title><p>Body text here').wordCount, 3);
    assert.equal(read('<html><head><title>T</title>Loose text</head><body>More</body>').wordCount, 3);
    assert.equal(read('<p>First</p><head><p>Still shown</p>').wordCount, 3);
  });

  it('inline tags do not split a word; block tags and <br> do, also without spaces (minified)', () => {
    assert.equal(read('<p>Hel<b>lo</b> wor<span>ld</span></p>').wordCount, 2);
    assert.equal(read('<ul><li>Home</li><li>About</li><li>Contact</li></ul>').wordCount, 3);
    assert.equal(read('<p>one</p><p>two</p><div>three<br>four</div>').wordCount, 4);
    assert.equal(read('<td>a</td><td>b</td>').wordCount, 2);
  });

  it('counts runs of letters and digits, any script; joiners inside a word do not split it', () => {
    assert.equal(countWords("don't state-of-the-art 3.14 1,000 example.com l’homme"), 6);
    assert.equal(countWords('— | & ... -- , . 🐟 ©'), 0);
    assert.equal(countWords('end. Next, then- -here'), 4);
    assert.equal(countWords('Grüße aus Köln; Ελληνικά κείμενα; русский текст; עברית'), 8);
    // Combining marks stay in their word: Devanagari vowel signs, a decomposed é.
    assert.equal(countWords('हिन्दी भाषा cafe\u0301'), 3);
    // Letters outside the BMP (a mathematical bold A) are letters.
    assert.equal(countWords('\u{1D400}\u{1D401} x'), 2);
  });

  it('CJK: Chinese and Japanese count a word per character, Korean (spaced) by runs', () => {
    assert.equal(countWords('日本語のテキスト'), 8);
    assert.equal(countWords('中文，标点。'), 4);
    assert.equal(countWords('한국어 문장입니다'), 2);
    assert.equal(countWords('iPhone用ケース'), 5); // iPhone + 用 + ケ ー ス
    assert.equal(read('<p>東京<b>タワー</b></p>').wordCount, 5);
  });

  it('counts a large page exactly, across text pieces of any size', () => {
    const para = '<p>' + 'alpha beta gamma delta '.repeat(5000) + '</p>';
    const huge = 'x'.repeat(100_000); // one word, however long
    assert.equal(read(para.repeat(10) + `<div>${huge}</div>`).wordCount, 200_001);
  });
});

describe('anchor text of links', () => {
  it("is the link's text with nested tags, whitespace collapsed; other tags have none", () => {
    const html = `<head><link rel="canonical" href="/c"></head>
      <a href="/a">  Garden
        <strong>tools</strong> &amp; more </a>
      <a href="/b"><div>Card title</div><div>Card text</div></a>
      <iframe src="/frame"></iframe>`;
    const links = read(html).links;
    assert.deepEqual(
      links.map((l) => [l.url.replace('https://example.com', ''), l.tag, l.anchor]),
      [
        ['/c', 'link', undefined],
        ['/a', 'a', 'Garden tools & more'],
        ['/b', 'a', 'Card title Card text'],
        ['/frame', 'iframe', undefined],
      ],
    );
    assert.ok(!('anchor' in links[0]!), 'a <link> has no anchor key at all');
  });

  it('falls back to an image\'s alt, then aria-label; "" when the link has none of them', () => {
    const html = `<a href="/img"><img src="a.png" alt=""><img src="b.png" alt=" Logo  alt "></a>
      <a href="/icon" aria-label="Twitter"><svg><title>bird</title></svg></a>
      <a href="/both" aria-label="Label"><img src="c.png" alt="Alt"> Text</a>
      <a href="/none"><img src="d.png"></a>
      <map><area href="/area" alt="Area alt"><area href="/area2"></map>`;
    assert.deepEqual(anchors(html), [
      ['/img', 'Logo alt'],
      ['/icon', 'Twitter'],
      ['/both', 'Text'],
      ['/none', ''],
      ['/area', 'Area alt'],
      ['/area2', ''],
    ]);
  });

  it('keeps the first non-empty anchor of a URL linked twice; an <a> upgrading a <link> brings its text', () => {
    const html = `<link rel="next" href="/page/2"><a href="/x"><img src="i"></a><a href="/x">Words</a>
      <a href="/x">Other</a><a href="/page/2">Next page</a>`;
    assert.deepEqual(anchors(html), [
      ['/page/2', 'Next page'],
      ['/x', 'Words'],
    ]);
  });

  it("an <a> inside an open <a> ends it, as browsers do; text after is no anchor's", () => {
    assert.deepEqual(anchors('<a href="/one">One<a href="/two">Two</a> after</a>'), [
      ['/one', 'One'],
      ['/two', 'Two'],
    ]);
  });

  it('script and style inside a link are not its text; a link inside noscript keeps its text', () => {
    assert.deepEqual(anchors('<a href="/s">Go<script>x()</script><style>a{}</style></a><noscript><a href="/n">No JS</a></noscript>'), [
      ['/s', 'Go'],
      ['/n', 'No JS'],
    ]);
  });

  it('an unclosed link takes the text up to the end; a long anchor is cut at MAX_ANCHOR_CHARS', () => {
    assert.deepEqual(anchors('<p><a href="/open">Unclosed link'), [['/open', 'Unclosed link']]);
    const anchor = read(`<a href="/long">${'long '.repeat(200)}</a>`).links[0]!.anchor!;
    assert.equal(anchor, 'long '.repeat(200).trim().slice(0, MAX_ANCHOR_CHARS));
    assert.equal(anchor.length, MAX_ANCHOR_CHARS);
  });
});
