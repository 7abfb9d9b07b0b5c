/**
 * Dates in sitemaps: the W3C Datetime profile sitemaps.org allows, and RSS's RFC 822 dates.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isW3cDatetime, rfc822ToIso } from '../../electron/engine/sitemap/datetime.js';

test('isW3cDatetime accepts the forms sitemaps.org allows', () => {
  for (const s of [
    '2024',
    '2024-02',
    '2024-02-29',
    '2000-02-29',
    '2024-12-31T23:59Z',
    '2024-12-31T23:59:59Z',
    '2024-12-31T23:59:60Z',
    '1997-07-16T19:20:30.45+01:00',
    '1997-07-16T19:20:30.123456-11:30',
    '2004-12-23T18:00:15+00:00',
  ]) {
    assert.equal(isW3cDatetime(s), true, s);
  }
});

test('isW3cDatetime rejects other forms and impossible values', () => {
  for (const s of [
    '',
    '24',
    '2024-1',
    '2024-00',
    '2024-13',
    '2023-02-29',
    '1900-02-29',
    '2024-04-31',
    '2024-02-00',
    '2024-01-01T',
    '2024-01-01T10:00', // a time needs a zone
    '2024-01-01T10:00:00',
    '2024-01-01T24:00Z',
    '2024-01-01T10:60Z',
    '2024-01-01T10:00:61Z',
    '2024-01-01T10:00:00.Z',
    '2024-01-01T10:00:00+0100',
    '2024-01-01T10:00:00+01',
    '2024-01-01T10:00:00+24:00',
    '2024-01-01t10:00:00Z',
    '2024-01-01 10:00:00Z',
    '2024-01-01T10:00:00Zjunk',
    ' 2024-01-01',
    '2024/01/01',
    'yesterday',
  ]) {
    assert.equal(isW3cDatetime(s), false, s);
  }
});

test('rfc822ToIso converts RSS dates to ISO 8601 UTC', () => {
  assert.equal(rfc822ToIso('Sat, 07 Sep 2002 09:42:31 GMT'), '2002-09-07T09:42:31.000Z');
  assert.equal(rfc822ToIso('7 Sep 2002 09:42 +0230'), '2002-09-07T07:12:00.000Z');
  assert.equal(rfc822ToIso('Mon, 01 Jan 24 00:00:00 EST'), '2024-01-01T05:00:00.000Z');
  assert.equal(rfc822ToIso('Tue, 31 December 2024 23:59:59 -0100'), '2025-01-01T00:59:59.000Z');
  assert.equal(rfc822ToIso('2024-01-02T03:04:05Z'), '2024-01-02T03:04:05Z', 'an ISO date given instead is kept');
});

test('rfc822ToIso returns null for what it cannot read', () => {
  for (const s of ['', 'sometime', 'Sat, 31 Feb 2002 09:42:31 GMT', 'Sat, 07 Foo 2002 09:42:31 GMT', 'Sat, 07 Sep 2002 25:00:00 GMT', 'Sat, 07 Sep 2002 09:42:31 XYZ']) {
    assert.equal(rfc822ToIso(s), null, s);
  }
});
