/**
 * Text that does not decode: a <loc> holding bytes that are not UTF-8, `&#0;` or a surrogate is
 * INVALID_URL and handed out as no entry (decoding made each U+FFFD, a URL nobody wrote); and UTF-16
 * without a byte order mark is recognised and read, not refused as binary.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Problem } from '../../shared/model.js';
import type { SitemapItem } from '../../electron/engine/types.js';
import { createSitemapParser } from '../../electron/engine/sitemap/read/parser.js';
import { streamSitemap } from '../../electron/engine/sitemap/read/stream.js';
import { streamSitemapInWorker } from '../../electron/engine/sitemap/worker/worker-stream.js';

const NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';
const SITEMAP = 'http://h.test/sitemap.xml';

function parse(doc: Buffer, chunk = doc.length) {
  const items: SitemapItem[] = [];
  const p = createSitemapParser({ url: SITEMAP, onItem: (i) => items.push(i) });
  for (let at = 0; at < doc.length; at += chunk) p.write(doc.subarray(at, at + chunk));
  p.end();
  const problems: Problem[] = items.flatMap((i) => (i.kind === 'problem' ? [i.problem] : []));
  return {
    summary: p.summary(),
    locs: items.flatMap((i) => (i.kind === 'url' ? [i.entry.loc] : i.kind === 'sitemap' ? [i.loc] : [])),
    problems,
    codes: problems.map((x) => x.code),
  };
}

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

/** Locs that decode to U+FFFD: bytes that are not UTF-8 (a lone 0xFF, a cut sequence, an encoded surrogate), `&#0;`, surrogates as entities. */
const BROKEN: [string, Buffer][] = [
  ['a byte that is never UTF-8', bytes('http://h.test/a', [0xff], 'b')],
  ['a cut sequence', bytes('http://h.test/caf', [0xc3], '/x')],
  ['an encoded surrogate', bytes('http://h.test/a', [0xed, 0xa0, 0x80], 'b')],
  ['&#0;', bytes('http://h.test/a&#0;b')],
  ['a lone surrogate as an entity', bytes('http://h.test/a&#xD800;b')],
  ['a surrogate in decimal', bytes('http://h.test/a&#57343;b')],
];

test('a <loc> that does not decode is INVALID_URL with the entry, and no entry, on either way of reading a <url>', () => {
  for (const [what, loc] of BROKEN) {
    for (const [how, extra] of [
      ['usual <url>', ''],
      ['read element by element', '<foo/>'],
    ] as const) {
      const doc = bytes(
        `<urlset ${NS}>\n<url><loc>http://h.test/ok1</loc></url>\n<url><loc>`,
        [...loc],
        `</loc>${extra}</url>\n<url><loc>http://h.test/ok2</loc></url>\n</urlset>\n`,
      );
      const r = parse(doc);
      assert.deepEqual(r.locs, ['http://h.test/ok1', 'http://h.test/ok2'], `${what}, ${how}`);
      assert.deepEqual(r.codes, ['INVALID_URL'], `${what}, ${how}`);
      assert.match(r.problems[0]!.message, /holds characters that cannot be read .*U\+FFFD\); skipped/);
      assert.ok(r.problems[0]!.url?.includes('\uFFFD'), 'the problem names the URL as read');
    }
  }
});

test('an index <loc>, a text sitemap line and UTF-16 with a lone surrogate are refused the same way', () => {
  const index = parse(
    bytes(`<sitemapindex ${NS}><sitemap><loc>http://h.test/s`, [0xff], `.xml</loc></sitemap><sitemap><loc>http://h.test/t.xml</loc></sitemap></sitemapindex>`),
  );
  assert.deepEqual(index.locs, ['http://h.test/t.xml']);
  assert.deepEqual(index.codes, ['INVALID_URL']);

  const text = parse(bytes('http://h.test/a\nhttp://h.test/b', [0xfe], '\nhttp://h.test/c\n'));
  assert.deepEqual(text.locs, ['http://h.test/a', 'http://h.test/c']);
  assert.deepEqual(text.codes, ['INVALID_URL']);

  const utf16 = Buffer.concat([
    Buffer.from([0xff, 0xfe]),
    Buffer.from(`<urlset ${NS}><url><loc>http://h.test/a`, 'utf16le'),
    Buffer.from([0x00, 0xd8]), // a high surrogate with no low one after it
    Buffer.from(`b</loc></url><url><loc>http://h.test/ok</loc></url></urlset>`, 'utf16le'),
  ]);
  const r = parse(utf16);
  assert.deepEqual(r.locs, ['http://h.test/ok']);
  assert.deepEqual(r.codes, ['INVALID_URL']);
});

test('the parse worker refuses them too: no entry is handed out', async () => {
  const doc = bytes(
    `<urlset ${NS}><url><loc>http://h.test/a`,
    [0xff],
    `</loc></url><url><loc>http://h.test/a&#0;</loc></url><url><loc>http://h.test/ok</loc></url></urlset>`,
  );
  for (const stream of [streamSitemap, streamSitemapInWorker]) {
    const it = stream(
      (async function* () {
        yield doc;
      })(),
      { url: SITEMAP },
    );
    const items: SitemapItem[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) items.push(...r.value);
    assert.deepEqual(
      items.flatMap((i) => (i.kind === 'url' ? [i.entry.loc] : [])),
      ['http://h.test/ok'],
    );
    assert.deepEqual(
      items.flatMap((i) => (i.kind === 'problem' ? [i.problem.code] : [])),
      ['INVALID_URL', 'INVALID_URL'],
    );
  }
});

test('UTF-16 without a byte order mark, either byte order, with or without a declaration, is read and reported', () => {
  const xml = `<?xml version="1.0" encoding="UTF-16"?>\n<urlset ${NS}><url><loc>http://h.test/ü</loc></url><url><loc>http://h.test/b</loc></url></urlset>\n`;
  const le = Buffer.from(xml, 'utf16le');
  const be = Buffer.from(le).swap16();
  const bare = Buffer.from(`\n  <urlset ${NS}><url><loc>http://h.test/c</loc></url></urlset>`, 'utf16le').swap16();
  for (const [doc, order, locs] of [
    [le, 'UTF-16 little-endian', ['http://h.test/ü', 'http://h.test/b']],
    [be, 'UTF-16 big-endian', ['http://h.test/ü', 'http://h.test/b']],
    [bare, 'UTF-16 big-endian', ['http://h.test/c']],
  ] as const) {
    for (const chunk of [1, 3, doc.length]) {
      const r = parse(doc, chunk);
      assert.equal(r.summary.type, 'urlset', `${order} in chunks of ${chunk}`);
      assert.deepEqual(r.locs, locs, `${order} in chunks of ${chunk}`);
      assert.deepEqual(r.codes, ['ENCODING_NOT_UTF8']);
      assert.match(r.problems[0]!.message, new RegExp(`is ${order} without a byte order mark; the protocol requires UTF-8`));
    }
  }
  const text = parse(Buffer.from('http://h.test/t1\nhttp://h.test/t2\n', 'utf16le'));
  assert.equal(text.summary.type, 'text');
  assert.deepEqual(text.locs, ['http://h.test/t1', 'http://h.test/t2']);
  assert.deepEqual(text.codes, ['ENCODING_NOT_UTF8']);
  // Binary that happens to hold zero bytes is still binary.
  assert.deepEqual(parse(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00])).codes, ['NOT_A_SITEMAP']);
});
