/** List mode's list as the new-crawl form checks it (renderer/src/logic/list-input.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkList, fileTooBig, firstColumn, listError, MAX_LIST_BYTES, utf8Bytes } from '../../renderer/src/logic/list-input.js';

test('one URL a line: blank lines and comments skipped, repeats counted once', () => {
  const c = checkList('https://a.example/\n\n# old sitemap\n  https://a.example/x  \r\nhttps://a.example/\nhttps://b.example/y?z=1\n');
  assert.equal(c.urls, 3);
  assert.equal(c.repeats, 1);
  assert.equal(c.first, 'https://a.example/');
  assert.deepEqual(c.errors, []);
  assert.equal(listError(c, 100), null);
});

test('a CSV: its first column, a header line allowed, quoted fields read', () => {
  const csv = 'Address,Status Code,Title\n"https://a.example/a,b",200,"A, b"\nhttps://a.example/c,404,C\n';
  const c = checkList(csv);
  assert.equal(c.urls, 2);
  assert.deepEqual(c.errors, []);
  assert.equal(firstColumn('"say ""hi""",x'), 'say "hi"');
  assert.equal(firstColumn('  https://a.example/ , 200'), 'https://a.example/');
});

test('lines that are no http(s) URL are named by number, the first few, then counted', () => {
  const lines = ['https://a.example/', '/relative/path', 'ftp://a.example/f', 'www.example.com/page'];
  for (let i = 0; i < 6; i++) lines.push(`mailto:x${i}@a.example`);
  const c = checkList(lines.join('\n'));
  assert.equal(c.urls, 1);
  assert.equal(c.badLines, 9);
  assert.equal(c.errors.length, 5);
  assert.match(c.errors[0]!, /^Line 2: "\/relative\/path" is not an http:\/\/ or https:\/\/ URL\.$/);
  assert.match(c.errors[1]!, /^Line 3: /);
  const msg = listError(c, 10)!;
  assert.match(msg, /and 4 more lines that are no URL/);
  // A first line that looks like a URL is no header: it is named too.
  assert.equal(checkList('example.com/a\nhttps://a.example/').badLines, 1);
});

test('an empty list, or one over 8 MiB, cannot be sent; a file over 8 MiB is refused before it is read', () => {
  assert.match(listError(checkList(''), 0)!, /Paste the URLs/);
  assert.match(listError(checkList('# only a comment'), 16)!, /Paste the URLs/);
  assert.match(listError(checkList('https://a.example/'), MAX_LIST_BYTES + 1)!, /8 MiB.*--list FILE/);
  assert.equal(fileTooBig(MAX_LIST_BYTES), null);
  assert.match(fileTooBig(MAX_LIST_BYTES + 1)!, /8\.0 MiB/);
});

test('the limit counts UTF-8 bytes, as the file on disk has them', () => {
  assert.equal(utf8Bytes('abc'), 3);
  assert.equal(utf8Bytes('é'), 2);
  assert.equal(utf8Bytes('€'), 3);
  assert.equal(utf8Bytes('😀'), 4);
  assert.equal(utf8Bytes('https://a.example/café'), Buffer.byteLength('https://a.example/café'));
});
