import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
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
