/**
 * FastTokenizer (htmlparser2's Tokenizer with text and attribute values skipped by native search)
 * must tell its callbacks exactly what the stock Tokenizer tells them, offsets included, whatever
 * the document and however it is cut into chunks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { conformanceSitemaps, rng } from './differential.js';
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import { FastTokenizer } from '../../electron/engine/sitemap/read/fast-tokenizer.js';

const CALLBACKS = [
  'onattribdata',
  'onattribentity',
  'onattribend',
  'onattribname',
  'oncdata',
  'onclosetag',
  'oncomment',
  'ondeclaration',
  'onend',
  'onopentagend',
  'onopentagname',
  'onprocessinginstruction',
  'onselfclosingtag',
  'ontext',
  'ontextentity',
] as const;

/** Every callback, in order, with its arguments. */
function events(make: (cbs: TokenizerCallbacks) => Tokenizer, chunks: string[]): string[] {
  const log: string[] = [];
  const cbs = Object.fromEntries(CALLBACKS.map((name) => [name, (...args: number[]) => void log.push(`${name}(${args.join(',')})`)])) as unknown as TokenizerCallbacks;
  const t = make(cbs);
  for (const c of chunks) t.write(c);
  t.end();
  return log;
}

const stock = (cbs: TokenizerCallbacks) => new Tokenizer({ xmlMode: true, decodeEntities: true }, cbs);
const fast = (cbs: TokenizerCallbacks) => new FastTokenizer({ xmlMode: true, decodeEntities: true }, cbs);

function cut(text: string, rand: () => number, maxChunk: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(rand() * maxChunk);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}


function assertSame(text: string, chunks: string[], what: string): void {
  const want = events(stock, chunks);
  const got = events(fast, chunks);
  assert.ok(want.length > 0);
  assert.deepEqual(got, want, `${what}: ${JSON.stringify(text.slice(0, 120))}`);
}

test('FastTokenizer: the same callbacks as the stock Tokenizer over every conformance sitemap, whole and in random chunks', (t) => {
  const sitemaps = conformanceSitemaps(t);
  if (!sitemaps) return;
  const rand = rng(11);
  for (const { path, bytes } of sitemaps) {
    const text = bytes.toString('utf8');
    assertSame(text, [text], path);
    for (const max of [1, 7, 300]) assertSame(text, cut(text, rand, max), `${path} in chunks of up to ${max}`);
  }
});

test('FastTokenizer: the same callbacks on random documents of sitemap pieces, entities and odd markup', () => {
  const pieces = [
    '<url>', '</url>', '<loc>', '</loc>', 'http://example.com/a?b=1&amp;c=2', '&lt;', '&#x41;', '&#65;', '&bogus;', '&', '&amp',
    '<xhtml:link rel="alternate" hreflang="de" href="http://example.com/de/&amp;x"/>', "<a b='x&quot;y' c=d>", '<a b="unterminated',
    '<!-- a comment -->', '<![CDATA[ <not a tag> & ]]>', '<?xml version="1.0"?>', '<!DOCTYPE x>', '< notatag', '</ spaced >', '<a/>',
    '</loc\n>', '<loc\t>', '<a\rb="1"\f/>', '</x\ty >', '<n:a n:b=\'1\'>', '\n  ', 'text with > and " and \' ', 'ünïcödé ✓', '<lastmod>2024-01-02T03:04:05+00:00</lastmod>', '<', '>', '"', "'", '=', '/',
  ];
  for (let doc = 0; doc < 400; doc++) {
    const rand = rng(1000 + doc);
    const parts: string[] = [];
    const n = 1 + Math.floor(rand() * 40);
    for (let i = 0; i < n; i++) parts.push(pieces[Math.floor(rand() * pieces.length)]!);
    const text = parts.join('');
    assertSame(text, [text], `document ${doc}`);
    assertSame(text, cut(text, rand, 1 + Math.floor(rand() * 20)), `document ${doc} in chunks`);
  }
});

test('FastTokenizer: a buffer with no ampersand is searched for one once, not once per text run', () => {
  const text = '<urlset>' + '<url><loc>http://example.com/p</loc></url>'.repeat(20_000) + '</urlset>';
  let searches = 0;
  const indexOf = String.prototype.indexOf;
  String.prototype.indexOf = function (this: string, s: string, from?: number) {
    if (s === '&') searches++;
    return indexOf.call(this, s, from);
  };
  try {
    events(fast, [text]);
  } finally {
    String.prototype.indexOf = indexOf;
  }
  assert.ok(searches <= 2, `${searches} searches for '&'`);
});
