/**
 * FastTokenizer (htmlparser2's Tokenizer with text and attribute values skipped by native search)
 * must tell its callbacks exactly what the stock Tokenizer tells them, offsets included, whatever
 * the document and however it is cut into chunks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import { FastTokenizer } from '../../electron/engine/sitemap/fast-tokenizer.js';

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

function rng(seed: number): () => number {
  return () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

function assertSame(text: string, chunks: string[], what: string): void {
  const want = events(stock, chunks);
  const got = events(fast, chunks);
  assert.ok(want.length > 0);
  assert.deepEqual(got, want, `${what}: ${JSON.stringify(text.slice(0, 120))}`);
}

const DIR = fileURLToPath(new URL('../../../shared/conformance/sitemaps/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : [join(dir, n)]));
}

test('FastTokenizer: the same callbacks as the stock Tokenizer over every conformance sitemap, whole and in random chunks', (t) => {
  if (!existsSync(DIR)) {
    t.skip(`skipped: the conformance folder ${DIR} is not present (it is in CI; a fresh clone may lack it)`);
    return;
  }
  const rand = rng(11);
  for (const path of files(DIR)) {
    let bytes = readFileSync(path);
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
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
