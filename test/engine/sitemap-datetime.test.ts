/**
 * Dates in sitemaps: the W3C Datetime profile sitemaps.org allows, and RSS's RFC 822 dates.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isW3cDatetime, rfc822LacksZone, rfc822ToIso, w3cDatetimeMs } from '../../electron/engine/sitemap/read/datetime.js';
import { parseLastmod } from '../../electron/service/data/url-store.js';

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

test('w3cDatetimeMs reads each form as Date.parse does, over random dates of every shape', () => {
  let seed = 7;
  const rnd = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const pad = (v: number, w: number): string => String(v).padStart(w, '0');
  for (let k = 0; k < 20_000; k++) {
    // Years from 0000 (Date.UTC would take 0–99 as 1900–1999) to 9999, leap days included.
    const year = k % 50 === 0 ? rnd(100) : k % 7 === 0 ? rnd(10_000) : 1960 + rnd(100);
    const month = 1 + rnd(12);
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    const dim = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
    const day = 1 + rnd(dim);
    let s = pad(year, 4);
    const shape = rnd(8);
    if (shape >= 1) s += '-' + pad(month, 2);
    if (shape >= 2) s += '-' + pad(day, 2);
    if (shape >= 3) {
      s += 'T' + pad(rnd(24), 2) + ':' + pad(rnd(60), 2);
      if (shape >= 4) s += ':' + pad(rnd(60), 2);
      if (shape >= 5) s += '.' + String(rnd(1_000_000)).slice(0, 1 + rnd(6));
      const zone = rnd(3);
      s += zone === 0 ? 'Z' : (zone === 1 ? '+' : '-') + pad(rnd(24), 2) + ':' + pad(rnd(60), 2);
    }
    assert.equal(isW3cDatetime(s), true, s);
    assert.equal(w3cDatetimeMs(s), Date.parse(s), s);
    assert.equal(parseLastmod(s), Date.parse(s), s);
  }
  // A leap second is the next minute's first.
  assert.equal(w3cDatetimeMs('2016-12-31T23:59:60Z'), Date.parse('2017-01-01T00:00:00Z'));
  assert.equal(w3cDatetimeMs('2024-01-01T10:00:00.1239Z'), Date.parse('2024-01-01T10:00:00.123Z'));
});

test('w3cDatetimeMs is NaN for what is not a W3C Datetime; parseLastmod still reads what Date.parse can', () => {
  for (const s of ['', '2024-13', '2023-02-29', '2024-01-01T10:00', '2024-01-01T10:00:00+24:00', '2024/01/01', 'yesterday']) {
    assert.ok(Number.isNaN(w3cDatetimeMs(s)), s);
  }
  assert.equal(parseLastmod('2024/01/01'), Date.parse('2024/01/01'));
  assert.equal(parseLastmod('Sat, 07 Sep 2002 09:42:31 GMT'), Date.UTC(2002, 8, 7, 9, 42, 31));
  assert.ok(Number.isNaN(parseLastmod('yesterday')));
});

test('rfc822ToIso converts RSS dates to ISO 8601 UTC', () => {
  assert.equal(rfc822ToIso('Sat, 07 Sep 2002 09:42:31 GMT'), '2002-09-07T09:42:31.000Z');
  assert.equal(rfc822ToIso('7 Sep 2002 09:42 +0230'), '2002-09-07T07:12:00.000Z');
  assert.equal(rfc822ToIso('Mon, 01 Jan 24 00:00:00 EST'), '2024-01-01T05:00:00.000Z');
  assert.equal(rfc822ToIso('Tue, 31 December 2024 23:59:59 -0100'), '2025-01-01T00:59:59.000Z');
  assert.equal(rfc822ToIso('2024-01-02T03:04:05Z'), '2024-01-02T03:04:05Z', 'an ISO date given instead is kept');
});

test('an RFC 822 date without its zone names no instant: rfc822ToIso is null, rfc822LacksZone tells it apart', () => {
  for (const s of ['05 Jan 17 13:34:55', 'Thu, 05 Jan 2017 13:34', 'Thu, 05 Jan 2017 13:34:55  ']) {
    assert.equal(rfc822ToIso(s), null, s);
    assert.equal(rfc822LacksZone(s), true, s);
  }
  for (const s of ['05 Jan 17 13:34:55 GMT', '05 Jan 17 13:34:55 +0100', 'sometime', '31 Feb 2017 13:34:55', '2017-01-05T13:34:55Z']) {
    assert.equal(rfc822LacksZone(s), false, s);
  }
});

test('rfc822ToIso returns null for what it cannot read', () => {
  for (const s of [
    '',
    'sometime',
    'Sat, 31 Feb 2002 09:42:31 GMT',
    'Sat, 07 Foo 2002 09:42:31 GMT',
    'Sat, 07 Sep 2002 25:00:00 GMT',
    'Sat, 07 Sep 2002 09:42:31 XYZ',
  ]) {
    assert.equal(rfc822ToIso(s), null, s);
  }
});
