import { test } from 'node:test';
import assert from 'node:assert/strict';
import { charsetFromContentType, decodeBody } from '../../electron/engine/http/charset.js';
import { extractPageInfo } from '../../electron/engine/links/links.js';

/** windows-1252 bytes of a page whose title is "Café – menu" (é = 0xE9, en dash = 0x96). */
function win1252Page(meta: string): Buffer {
  const head = Buffer.from(`<html><head>${meta}<title>Caf`, 'latin1');
  return Buffer.concat([head, Buffer.from([0xe9, 0x20, 0x96, 0x20]), Buffer.from('menu</title></head></html>', 'latin1')]);
}

/** Shift_JIS bytes of "<title>日本語</title>". */
const SJIS_TITLE = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]);
function sjisPage(meta: string): Buffer {
  return Buffer.concat([Buffer.from(`<html><head>${meta}<title>`), SJIS_TITLE, Buffer.from('</title></head></html>')]);
}

test('windows-1252 page: charset from Content-Type', () => {
  const html = decodeBody(win1252Page(''), 'text/html; charset=windows-1252');
  assert.equal(extractPageInfo(html, 'https://example.com/').title, 'Café – menu');
  // iso-8859-1 is windows-1252 to a browser.
  assert.equal(extractPageInfo(decodeBody(win1252Page(''), 'text/html;charset="ISO-8859-1"'), 'https://example.com/').title, 'Café – menu');
});

test('windows-1252 page: charset from <meta charset> and from <meta http-equiv>', () => {
  assert.match(decodeBody(win1252Page('<meta charset="windows-1252">')), /<title>Café – menu</);
  assert.match(decodeBody(win1252Page("<meta charset='latin1' />")), /<title>Café – menu</);
  assert.match(decodeBody(win1252Page('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'), 'text/html'), /<title>Café – menu</);
});

test('Shift_JIS page from Content-Type and from meta', () => {
  assert.match(decodeBody(sjisPage(''), 'text/html; charset=Shift_JIS'), /<title>日本語<\/title>/);
  assert.match(decodeBody(sjisPage('<meta charset="shift_jis">')), /<title>日本語<\/title>/);
  assert.match(decodeBody(sjisPage('<meta http-equiv=content-type content="text/html;charset=sjis">')), /<title>日本語<\/title>/);
});

test('Content-Type beats meta; a BOM beats both', () => {
  const page = sjisPage('<meta charset="windows-1252">');
  assert.match(decodeBody(page, 'text/html; charset=shift_jis'), /日本語/);
  const utf8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<title>Café</title>', 'utf8')]);
  assert.equal(decodeBody(utf8, 'text/html; charset=windows-1252'), '<title>Café</title>');
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>été</p>', 'utf16le')]);
  assert.equal(decodeBody(utf16), '<p>été</p>');
});

test('no declaration, unknown labels and a meta past 1024 bytes fall back to UTF-8', () => {
  const utf8 = Buffer.from('<title>Café ツ</title>', 'utf8');
  assert.equal(decodeBody(utf8), '<title>Café ツ</title>');
  assert.equal(decodeBody(utf8, 'text/html; charset=no-such-charset'), '<title>Café ツ</title>');
  assert.equal(decodeBody(utf8, 'text/html'), '<title>Café ツ</title>');
  // An unknown Content-Type label lets the meta speak.
  assert.match(decodeBody(win1252Page('<meta charset="windows-1252">'), 'text/html; charset=bogus'), /Café/);
  const late = Buffer.concat([Buffer.from(' '.repeat(1100)), win1252Page('<meta charset="windows-1252">')]);
  assert.match(decodeBody(late), /Caf\ufffd/, 'meta beyond the prescan is not read');
  // UTF-16 named in a meta means UTF-8 (the bytes were readable as ASCII to find it).
  assert.equal(decodeBody(Buffer.from('<meta charset="utf-16"><p>é</p>', 'utf8')), '<meta charset="utf-16"><p>é</p>');
  // Invalid bytes become U+FFFD rather than throwing.
  assert.equal(decodeBody(Buffer.from([0x41, 0xff, 0x42])), 'A\ufffdB');
});

test('charsetFromContentType', () => {
  assert.equal(charsetFromContentType('text/html; charset=UTF-8'), 'UTF-8');
  assert.equal(charsetFromContentType('text/html;charset="shift_jis"; foo=bar'), 'shift_jis');
  assert.equal(charsetFromContentType('text/html'), undefined);
  assert.equal(charsetFromContentType(undefined), undefined);
  assert.equal(charsetFromContentType('text/html; charset='), undefined);
});

test('windows-1252 maps 0x80–0x9F to the WHATWG characters, not C1 controls', () => {
  const bytes = Buffer.from([0x80, 0x82, 0x85, 0x91, 0x92, 0x93, 0x94, 0x96, 0x97, 0x99, 0x9f, 0x81, 0xe9, 0xff]);
  assert.equal(decodeBody(bytes, 'text/plain; charset=windows-1252'), '€‚…‘’“”–—™Ÿ\u0081éÿ');
  assert.equal(decodeBody(bytes, 'text/plain; charset=us-ascii'), '€‚…‘’“”–—™Ÿ\u0081éÿ', 'ascii means windows-1252 on the web');
});
