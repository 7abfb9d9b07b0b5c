/**
 * PageInfo.contentHash (issue 23, "is lastmod true?"): the SHA-256 of a page's main text, so that a
 * page whose only change is in its footer, navigation, header, aside or head keeps its hash, and a
 * change of its main text changes it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { extractPageInfo, mainTextHash } from '../../electron/engine/links/links.js';

const PAGE = 'https://shop.example/blog/post/';
const hashOf = (html: string) => extractPageInfo(html, PAGE).contentHash;
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64url');

/** A page shaped like a real one: head, header with a logo, nav, main text, aside, footer with a date. */
function page(o: { main?: string; footer?: string; nav?: string; head?: string; aside?: string; header?: string; script?: string } = {}): string {
  return `<!doctype html>
<html lang="en"><head>
  <meta charset="utf-8"><title>${o.head ?? 'Growing tomatoes | Hearth & Acre'}</title>
  <link rel="canonical" href="${PAGE}">
  <style>body { color: #333 }</style>
  <script>window.dataLayer = [${o.script ?? '"v1"'}];</script>
</head>
<body>
  <header><a href="/"><img src="/logo.svg" alt="Hearth &amp; Acre"></a> ${o.header ?? 'Free shipping over 50 €'}</header>
  <nav><ul><li><a href="/">Home</a></li><li><a href="/shop/">Shop</a></li>${o.nav ?? ''}</ul></nav>
  <main>
    <h1>Growing tomatoes</h1>
    <p>${o.main ?? 'Start the seeds <b>indoors</b> six&nbsp;weeks before the last frost.'}</p>
    <svg><text>decorative</text></svg>
    <template><p>hidden template</p></template>
    <noscript>Enable JavaScript</noscript>
  </main>
  <aside>${o.aside ?? 'Popular posts: 3'}</aside>
  <footer>© Hearth &amp; Acre · Updated ${o.footer ?? '2024-03-01 10:00'}</footer>
</body></html>`;
}

describe('content hash of the main text', () => {
  it('is the SHA-256, base64url, of the visible main text with whitespace collapsed', () => {
    const h = hashOf(page());
    assert.match(h, /^[A-Za-z0-9_-]{43}$/);
    // <b> does not split a word, a block tag does, &nbsp; is whitespace; svg, template, noscript, head are not text.
    assert.equal(h, sha('Growing tomatoes Start the seeds indoors six weeks before the last frost.'));
    assert.equal(h, mainTextHash('  Growing tomatoes\n\tStart the seeds indoors six weeks before the last frost.  '));
  });

  it('is the same when only the footer, nav, header, aside, head or a script changed', () => {
    const base = hashOf(page());
    assert.equal(hashOf(page({ footer: '2024-06-30 23:59' })), base, 'a date in the footer');
    assert.equal(hashOf(page({ nav: '<li><a href="/sale/">Sale!</a></li>' })), base, 'a nav item');
    assert.equal(hashOf(page({ header: 'Free shipping over 40 €' })), base, 'the header');
    assert.equal(hashOf(page({ aside: 'Popular posts: 4' })), base, 'the aside');
    assert.equal(hashOf(page({ head: 'Growing tomatoes (2024) | Hearth & Acre' })), base, 'the title');
    assert.equal(hashOf(page({ script: '"v2"' })), base, 'an inline script');
  });

  it('changes when the main text changes, by one word or one character', () => {
    const base = hashOf(page());
    assert.notEqual(hashOf(page({ main: 'Start the seeds <b>indoors</b> eight&nbsp;weeks before the last frost.' })), base);
    assert.notEqual(hashOf(page({ main: 'Start the seeds <b>indoors</b> six&nbsp;weeks before the last frost!' })), base);
    // A tag boundary is a space: "indoors six" vs "indoorssix".
    assert.notEqual(
      hashOf(page({ main: 'Start the seeds indoors<br>six weeks before the last frost.' })),
      hashOf(page({ main: 'Start the seeds indoorssix weeks before the last frost.' })),
    );
  });

  it('does not change with reformatting: whitespace, line breaks, inline tags, entities', () => {
    const a = hashOf('<body><p>Hello   world</p>\n\n<p>Second</p></body>');
    assert.equal(hashOf('<body>\n  <p>Hello\nworld</p><p>Second</p>\n</body>'), a);
    assert.equal(hashOf('<body><p>Hel<span>lo</span> w&#111;rld</p><div>Second</div></body>'), a);
  });

  it('a nested header inside header or footer still ends where the outer one does', () => {
    const a = hashOf('<body><footer><header>x</header>Updated today</footer><p>Body</p></body>');
    const b = hashOf('<body><footer><header>y</header>Updated tomorrow</footer><p>Body</p></body>');
    assert.equal(a, b);
    assert.equal(a, sha('Body'));
  });

  it('does not depend on where a long text is cut between hash updates (surrogate pairs kept whole)', () => {
    // 70,000 characters of emoji (surrogate pairs) cross the 64 Ki-character buffer at an odd offset.
    const text = 'a' + '🌱'.repeat(35_000);
    assert.equal(hashOf(`<p>${text}</p>`), sha(text));
    assert.equal(mainTextHash(text), sha(text));
  });
});
