/**
 * Indexability (electron/service/audit/indexability.ts): each reason, the order they are tried in
 * (the README's CSV section), and the same verdict as the audit's "indexable" for every kind of result.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { indexabilityOf } from '../../electron/service/audit/indexability.js';
import { AuditEngine } from '../../electron/service/audit/engine.js';
import type { UrlResult } from '../../shared/model.js';

const O = 'https://shop.test';
const html: UrlResult = { status: 200, contentType: 'text/html; charset=utf-8' };
type Case = [what: string, state: 'done' | 'error' | 'blocked', r: UrlResult, want: string];

/** Each reason alone, then every pair where two apply: the earlier one in the order wins. */
const CASES: Case[] = [
  ['a 200 HTML page', 'done', html, 'indexable'],
  ['a self-canonical page', 'done', { ...html, canonical: `${O}/p` }, 'indexable'],
  ['a self-canonical written otherwise (same uniqueKey)', 'done', { ...html, canonical: 'HTTPS://SHOP.TEST:443/p#top' }, 'indexable'],
  ['an unparsable canonical (ignored)', 'done', { ...html, canonical: 'http://[bad' }, 'indexable'],
  ['XHTML', 'done', { status: 200, contentType: 'application/xhtml+xml' }, 'indexable'],
  ['meta robots nofollow only', 'done', { ...html, metaRobots: 'nofollow' }, 'indexable'],
  ['a 204', 'done', { status: 204, contentType: 'text/html' }, 'indexable'],
  ['blocked by robots.txt', 'blocked', { blockedByRobots: true }, 'blocked-by-robots'],
  ['a timeout', 'error', { error: { code: 'TIMEOUT', message: 'x' } }, 'fetch-error'],
  ['a body that broke after a 200', 'error', { ...html, error: { code: 'BODY_FAILED', message: 'x' } }, 'fetch-error'],
  ['a 301', 'done', { status: 301, redirectTo: `${O}/q` }, 'redirect'],
  ['a 302 without a valid Location', 'done', { status: 302, error: { code: 'INVALID_REDIRECT', message: 'x' } }, 'redirect'],
  ['an older journal: followed inside the fetch', 'done', { ...html, redirectTo: `${O}/q` }, 'redirect'],
  ['a 404', 'done', { ...html, status: 404 }, 'client-error'],
  ['a 410', 'done', { status: 410 }, 'client-error'],
  ['a 500', 'done', { ...html, status: 500 }, 'server-error'],
  ['a 503 saying noindex', 'done', { ...html, status: 503, xRobotsTag: 'noindex' }, 'server-error'],
  ['no status', 'done', {}, 'fetch-error'],
  ['a 999', 'done', { status: 999 }, 'fetch-error'],
  ['a 404 canonicalised elsewhere', 'done', { ...html, status: 404, canonical: `${O}/q` }, 'client-error'],
  ['noindex', 'done', { ...html, metaRobots: 'noindex, follow' }, 'noindex'],
  ['none', 'done', { ...html, metaRobots: 'NONE' }, 'noindex'],
  ['X-Robots-Tag for one user agent', 'done', { ...html, xRobotsTag: 'googlebot: noindex' }, 'noindex'],
  ['noindex and canonicalised', 'done', { ...html, metaRobots: 'noindex', canonical: `${O}/q` }, 'noindex'],
  ['a PDF with X-Robots-Tag: noindex', 'done', { status: 200, contentType: 'application/pdf', xRobotsTag: 'noindex' }, 'noindex'],
  ['a PDF', 'done', { status: 200, contentType: 'application/pdf' }, 'not-html'],
  ['no Content-Type', 'done', { status: 200 }, 'not-html'],
  ['a feed naming a canonical', 'done', { status: 200, contentType: 'application/rss+xml', canonical: `${O}/q` }, 'not-html'],
  ['canonicalised', 'done', { ...html, canonical: `${O}/q` }, 'canonicalised'],
  ['canonicalised to another host', 'done', { ...html, canonical: 'https://www.shop.test/p' }, 'canonicalised'],
];

test('each reason, and the first that applies wins (README: blocked, fetch error, redirect, 4xx, 5xx, noindex, not HTML, canonicalised)', () => {
  const got = CASES.map(([what, state, r]) => {
    const v = indexabilityOf(state, r, `${O}/p`);
    return [what, v.reason ?? v.indexability];
  });
  assert.deepEqual(
    got,
    CASES.map(([what, , , want]) => [what, want]),
  );
  for (const [, state, r, want] of CASES) {
    const v = indexabilityOf(state, r, `${O}/p`);
    assert.equal(v.indexability, want === 'indexable' ? 'indexable' : 'non-indexable');
    assert.equal('reason' in v, want !== 'indexable');
  }
});

test("the audit's indexable pages are exactly the ones indexabilityOf calls indexable", () => {
  const audit = new AuditEngine({ crawlUrl: `${O}/`, pagesCrawled: true, now: () => 0 });
  // Each case on a URL of its own, reached by a link and in no sitemap: INDEXABLE_NOT_IN_SITEMAP iff indexable.
  CASES.forEach(([, state, r], i) => {
    const url = `${O}/p${i}`;
    audit.admitted(i, url, 'link', undefined, `${O}/`);
    // The case's canonical named the URL /p: here each URL is /p<i>, so a self-canonical names itself.
    const own =
      r.canonical === `${O}/p`
        ? { ...r, canonical: url }
        : r.canonical === 'HTTPS://SHOP.TEST:443/p#top'
          ? { ...r, canonical: `HTTPS://SHOP.TEST:443/p${i}#top` }
          : r;
    audit.result(i, state, own);
  });
  const members = new Set(audit.urlsOf('INDEXABLE_NOT_IN_SITEMAP') as number[]);
  const want = CASES.map(([, , , w], i) => [i, w === 'indexable']);
  assert.deepEqual(
    CASES.map((_, i) => [i, members.has(i)]),
    want,
  );
});
