/**
 * FastTokenizer (htmlparser2's Tokenizer with text and attribute values skipped by native search)
 * must tell its callbacks exactly what the stock Tokenizer tells them, offsets included, whatever
 * the document and however it is cut into chunks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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
  const cbs = Object.fromEntries(
    CALLBACKS.map((name) => [name, (...args: number[]) => void log.push(`${name}(${args.join(',')})`)]),
  ) as unknown as TokenizerCallbacks;
  const t = make(cbs);
  for (const c of chunks) t.write(c);
  t.end();
  return log;
}

const stock = (cbs: TokenizerCallbacks) => new Tokenizer({ xmlMode: true, decodeEntities: true }, cbs);
const fast = (cbs: TokenizerCallbacks) => new FastTokenizer({ xmlMode: true, decodeEntities: true }, cbs);

function cut(text: string, rand: () => number, maxChunk: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length;) {
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

// ---------------------------------------------------------------- upgrade guard

/** What to do when a check below fails: said with every failure. */
const UPGRADE_HINT =
  "electron/engine/sitemap/read/fast-tokenizer.ts overrides private methods of htmlparser2's Tokenizer, " +
  'so htmlparser2 is pinned to one exact version in package.json. If this fails after changing that version, ' +
  'go back to the pinned one, or read the new Tokenizer source (stateText, stateInAttributeValueDoubleQuotes, ' +
  'stateInAttributeValueSingleQuotes, the fields buffer/index/offset/sectionStart/cbs), adapt fast-tokenizer.ts ' +
  'until every test in this file passes, then pin the new version exactly.';

/** The stock methods fast-tokenizer.ts replaces and calls, each taking the character code. */
const OVERRIDDEN = ['stateText', 'stateInAttributeValueDoubleQuotes', 'stateInAttributeValueSingleQuotes'] as const;

test('htmlparser2 upgrade guard: pinned exactly, and the version installed is the version pinned', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
  const installed = (JSON.parse(readFileSync(new URL('../../node_modules/htmlparser2/package.json', import.meta.url), 'utf8')) as { version: string }).version;
  const spec = pkg.dependencies.htmlparser2;
  assert.match(spec ?? '', /^\d+\.\d+\.\d+$/, `package.json asks for htmlparser2 "${spec}", not one exact version. ${UPGRADE_HINT}`);
  assert.equal(installed, spec, `htmlparser2 ${installed} is installed but ${spec} is pinned (run npm ci). ${UPGRADE_HINT}`);
});

test('htmlparser2 upgrade guard: the overridden methods and the fields they use are where fast-tokenizer.ts expects them', () => {
  const proto = Tokenizer.prototype as unknown as Record<string, unknown>;
  for (const name of OVERRIDDEN) {
    assert.equal(typeof proto[name], 'function', `Tokenizer.prototype.${name} is gone. ${UPGRADE_HINT}`);
    assert.equal(
      (proto[name] as (...a: unknown[]) => unknown).length,
      1,
      `Tokenizer.prototype.${name} no longer takes one argument (the character code). ${UPGRADE_HINT}`,
    );
    assert.notEqual((FastTokenizer.prototype as unknown as Record<string, unknown>)[name], proto[name], `FastTokenizer does not override ${name}`);
  }
  const noop = Object.fromEntries(CALLBACKS.map((name) => [name, () => {}])) as unknown as TokenizerCallbacks;
  const tokenizer = new Tokenizer({ xmlMode: true, decodeEntities: true }, noop);
  tokenizer.write('plain text');
  const t = tokenizer as unknown as Record<string, unknown>;
  for (const [field, type] of [
    ['buffer', 'string'],
    ['index', 'number'],
    ['offset', 'number'],
    ['sectionStart', 'number'],
    ['cbs', 'object'],
  ] as const) {
    assert.equal(typeof t[field], type, `a Tokenizer no longer has the ${type} field ${field}. ${UPGRADE_HINT}`);
  }
  assert.equal(t.buffer, 'plain text', `Tokenizer.buffer is not the chunk written. ${UPGRADE_HINT}`);
});

test('htmlparser2 upgrade guard: the parse loop reaches the overrides, and they skip text and attribute values', () => {
  const fastProto = FastTokenizer.prototype as unknown as Record<string, (this: unknown, c: number) => void>;
  const calls = new Map<string, number>();
  const saved = OVERRIDDEN.map((name) => [name, fastProto[name]!] as const);
  for (const [name, fn] of saved) {
    fastProto[name] = function (this: unknown, c: number) {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      fn.call(this, c);
    };
  }
  const text = `<a b="${'x'.repeat(200)}" c='${'y'.repeat(200)}'>${'z'.repeat(200)}</a>`;
  try {
    events(fast, [text]);
  } finally {
    for (const [name, fn] of saved) fastProto[name] = fn;
  }
  for (const name of OVERRIDDEN) {
    const n = calls.get(name) ?? 0;
    // Reached (else the fast path is dead code), and a few times per run, not once per character.
    assert.ok(n > 0, `the Tokenizer's parse loop never calls ${name}: FastTokenizer's override of it is not used. ${UPGRADE_HINT}`);
    assert.ok(n < 20, `${name} was called ${n} times for a run of 200 characters: the skip does not work. ${UPGRADE_HINT}`);
  }
});

test('htmlparser2 upgrade guard: the same tokens as the stock Tokenizer on a sitemap corpus, whole and at every chunk size', () => {
  const corpus = [
    '<?xml version="1.0" encoding="UTF-8"?>\n<!-- generated -->\n',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml=\'http://www.w3.org/1999/xhtml\'>\n',
    '  <url>\n    <loc>https://shop.example/c/caf%C3%A9?a=1&amp;b=2&#x26;c=&#51;</loc>\n',
    '    <lastmod>2024-01-02T03:04:05+00:00</lastmod><changefreq>daily</changefreq><priority>0.5</priority>\n',
    '    <xhtml:link rel="alternate" hreflang="de" href="https://shop.example/de/&amp;x"/>\n',
    "    <xhtml:link rel='alternate' hreflang='fr' href='https://shop.example/fr/?q=&quot;1&quot;'/>\n",
    '  </url>\n  <url><loc><![CDATA[https://shop.example/p?x=<1>&y]]></loc><image:title>Tom &amp; Jerry &bogus; &amp</image:title></url>\n',
    '</urlset>\n',
  ].join('');
  const hint = (what: string) => `${what}. ${UPGRADE_HINT}`;
  assert.deepEqual(events(fast, [corpus]), events(stock, [corpus]), hint('whole'));
  for (let size = 1; size <= 64; size++) {
    const chunks: string[] = [];
    for (let i = 0; i < corpus.length; i += size) chunks.push(corpus.slice(i, i + size));
    assert.deepEqual(events(fast, chunks), events(stock, chunks), hint(`in chunks of ${size}`));
  }
});

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
    '<url>',
    '</url>',
    '<loc>',
    '</loc>',
    'http://example.com/a?b=1&amp;c=2',
    '&lt;',
    '&#x41;',
    '&#65;',
    '&bogus;',
    '&',
    '&amp',
    '<xhtml:link rel="alternate" hreflang="de" href="http://example.com/de/&amp;x"/>',
    "<a b='x&quot;y' c=d>",
    '<a b="unterminated',
    '<!-- a comment -->',
    '<![CDATA[ <not a tag> & ]]>',
    '<?xml version="1.0"?>',
    '<!DOCTYPE x>',
    '< notatag',
    '</ spaced >',
    '<a/>',
    '</loc\n>',
    '<loc\t>',
    '<a\rb="1"\f/>',
    '</x\ty >',
    "<n:a n:b='1'>",
    '\n  ',
    'text with > and " and \' ',
    'ünïcödé ✓',
    '<lastmod>2024-01-02T03:04:05+00:00</lastmod>',
    '<',
    '>',
    '"',
    "'",
    '=',
    '/',
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
