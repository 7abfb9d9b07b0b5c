import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { classifyBody, kindOf, readBody } from '../../electron/engine/http/response-kind.js';

const b = (s: string) => Buffer.from(s, 'utf8');

test('an XML sitemap, index or feed is a sitemap whatever its Content-Type says', () => {
  assert.equal(kindOf(b('<?xml version="1.0"?>\n<urlset xmlns="x"><url/></urlset>'), 'text/html'), 'sitemap');
  assert.equal(kindOf(b('\uFEFF<sitemapindex>'), undefined), 'sitemap');
  assert.equal(kindOf(b('<!-- generated --><sit:urlset xmlns:sit="x">'), 'application/octet-stream'), 'sitemap');
  assert.equal(kindOf(b('<rss version="2.0"><channel>'), 'text/plain'), 'sitemap');
  assert.equal(kindOf(b('<feed xmlns="http://www.w3.org/2005/Atom">'), undefined), 'sitemap');
});

test('gzip is recognised from its magic bytes and peeked into', () => {
  const gz = gzipSync(b('<?xml version="1.0"?><urlset><url><loc>http://127.0.0.1/a</loc></url></urlset>'));
  assert.equal(kindOf(gz, 'application/octet-stream'), 'sitemap');
  assert.equal(kindOf(gzipSync(b('just some text')), 'application/gzip'), 'other');
});

test('HTML pages are html, even with an XML declaration', () => {
  assert.equal(kindOf(b('<!DOCTYPE html><html><head>'), 'text/html'), 'html');
  assert.equal(kindOf(b('<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml">'), 'application/xhtml+xml'), 'html');
  assert.equal(kindOf(b('<p>fragment without doctype'), 'text/html; charset=utf-8'), 'html');
});

test('anything else is other', () => {
  assert.equal(kindOf(b('%PDF-1.7'), 'application/pdf'), 'other');
  assert.equal(kindOf(b('{"a":1}'), 'application/json'), 'other');
  assert.equal(kindOf(b(''), undefined), 'other');
});

test('classifyBody hands back every byte after peeking', async () => {
  const parts = [b('<?xml version="1.0"?>'), b('<urlset>'), Buffer.alloc(5000, 0x20), b('</urlset>')];
  const { kind, body } = await classifyBody(Readable.from(parts), 'application/xml');
  assert.equal(kind, 'sitemap');
  const all = await readBody(body, 1 << 20);
  assert.deepEqual(all, Buffer.concat(parts));
});

test('readBody refuses a body over the limit with a code', async () => {
  await assert.rejects(readBody(Readable.from([Buffer.alloc(10), Buffer.alloc(10)]), 15), { code: 'EBODY_TOO_LARGE' });
});

test('classifyBody keeps a body that arrived whole, past the peek, with its end right behind it', async () => {
  const page = b('<!DOCTYPE html><html><body>' + 'x'.repeat(3000) + '</body></html>');
  const stream = new PassThrough();
  stream.end(page);
  const { kind, body } = await classifyBody(stream, 'text/html');
  assert.equal(kind, 'html');
  assert.equal(body, stream, 'the same stream, the peeked bytes put back');
  assert.deepEqual(await readBody(body, 1 << 20), page);
});

test('classifyBody hands a body shorter than the peek back whole, and one in many small chunks in order', async () => {
  const short = b('<!DOCTYPE html><p>short');
  const { body: s } = await classifyBody(Readable.from([short]), 'text/html');
  assert.deepEqual(await readBody(s, 1 << 20), short);
  const parts = Array.from({ length: 300 }, (_, i) => b(`<p>${i}</p>`));
  const { kind, body } = await classifyBody(Readable.from(parts), 'text/html');
  assert.equal(kind, 'html');
  assert.deepEqual(await readBody(body, 1 << 20), Buffer.concat(parts));
});

test('a body that fails or closes early, while peeked at or read, rejects with why', async () => {
  const failing = new PassThrough();
  failing.write(b('<html>'));
  setImmediate(() => failing.destroy(new Error('socket hang up')));
  await assert.rejects(classifyBody(failing, 'text/html'), /socket hang up/);
  const closed = new PassThrough();
  closed.write(b('<html>'));
  setImmediate(() => closed.destroy());
  await assert.rejects(classifyBody(closed, 'text/html'), { code: 'BODY_FAILED' });
  const later = new PassThrough();
  later.write(Buffer.alloc(4096, 0x61));
  const { body } = await classifyBody(later, 'text/plain');
  setImmediate(() => later.destroy());
  await assert.rejects(readBody(body, 1 << 20), { code: 'BODY_FAILED' });
  const gone = new PassThrough();
  gone.destroy(new Error('already failed'));
  await assert.rejects(readBody(gone, 1 << 20), /already failed/);
});
