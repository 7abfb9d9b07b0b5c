import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkHttpUrl,
  checkPatterns,
  checkSitemapList,
  defaultsPatchFromForm,
  formFromSettings,
  settingsFromForm,
  suggestName,
  validateForm,
} from '../../renderer/src/logic/validation.js';
import { DEFAULT_SETTINGS, type CrawlSettings } from '../../shared/model.js';

const defaults: CrawlSettings = {
  ...DEFAULT_SETTINGS,
  userAgent: 'Spinneret/0.1',
  timeoutMs: 30000,
  connectTimeoutMs: 10000,
  maxBodyBytes: 1 << 20,
};

test('a full http(s) address is accepted and normalised', () => {
  assert.deepEqual(checkHttpUrl('  https://Example.com  '), { ok: true, url: 'https://example.com/' });
  assert.equal(checkHttpUrl('http://127.0.0.1:8080/a?b=1').url, 'http://127.0.0.1:8080/a?b=1');
});

test('an address without a scheme gets a clear message and a one-click fix', () => {
  const c = checkHttpUrl('example.com/shop');
  assert.equal(c.ok, false);
  assert.match(c.error!, /http:\/\/ or https:\/\//);
  assert.equal(c.suggestion, 'https://example.com/shop');
  // host:port looks like a scheme to the URL parser: still treated as a missing scheme.
  assert.equal(checkHttpUrl('localhost:8080').suggestion, 'https://localhost:8080/');
});

test('bad addresses are refused with a message a person can act on', () => {
  assert.match(checkHttpUrl('').error!, /Enter an address/);
  assert.match(checkHttpUrl('https://exa mple.com').error!, /spaces/);
  assert.match(checkHttpUrl('ftp://example.com/').error!, /not ftp:/);
  assert.match(checkHttpUrl('javascript:alert(1)').error!, /not javascript:/);
  assert.match(checkHttpUrl('https://').error!, /valid|host/);
  assert.match(checkHttpUrl('https://a..b/').error!, /host/);
});

test('sitemap lists name the line of each bad entry and skip blank lines', () => {
  const r = checkSitemapList('https://a.com/s.xml\n\n  \nnope\nftp://x/y.xml\n');
  assert.deepEqual(r.urls, ['https://a.com/s.xml']);
  assert.equal(r.errors.length, 2);
  assert.match(r.errors[0]!, /^Line 4:/);
  assert.match(r.errors[1]!, /^Line 5:/);
});

test('include/exclude patterns must be valid regular expressions', () => {
  const r = checkPatterns('^/blog/\n(unclosed\n\\?page=\\d+');
  assert.deepEqual(r.patterns, ['^/blog/', '\\?page=\\d+']);
  assert.equal(r.errors.length, 1);
  assert.match(r.errors[0]!, /^Line 2: not a valid regular expression/);
});

test('the form needs a start URL or sitemaps, and sane numbers', () => {
  const empty = formFromSettings(defaults);
  assert.match(validateForm(empty).startUrl!, /site address, or give sitemap URLs/);
  assert.deepEqual(validateForm({ ...empty, sitemapUrls: 'https://a.com/sitemap.xml' }), {});
  assert.deepEqual(validateForm({ ...empty, startUrl: 'https://a.com/' }), {});
  const bad = validateForm({ ...empty, startUrl: 'https://a.com/', concurrency: '0', delayMs: 'fast', maxUrls: '', maxDepth: '-1', userAgent: ' ' });
  assert.match(bad.concurrency!, /between 1 and/);
  assert.match(bad.delayMs!, /whole number/);
  assert.equal(bad.maxUrls, undefined, 'empty max URLs means no limit');
  assert.match(bad.maxDepth!, /whole number/);
  assert.match(bad.userAgent!, /user agent/);
  const host = validateForm({ ...empty, startUrl: 'https://a.com/', concurrency: '2', perHostConcurrency: '4' });
  assert.match(host.perHostConcurrency!, /cannot be more than/);
});

test('the idle and sitemap timeouts are fields of their own, checked and passed on', () => {
  const f = formFromSettings(defaults);
  assert.equal(f.idleTimeoutMs, '30000');
  assert.equal(f.sitemapTimeoutMs, '600000');
  const bad = validateForm({ ...f, startUrl: 'https://a.com/', idleTimeoutMs: '10', sitemapTimeoutMs: 'long' });
  assert.match(bad.idleTimeoutMs!, /Idle timeout must be between 1,000 and/);
  assert.match(bad.sitemapTimeoutMs!, /Sitemap timeout must be a whole number/);
  const s = settingsFromForm({ ...f, startUrl: 'https://a.com/', idleTimeoutMs: '5,000', sitemapTimeoutMs: '1,200,000' });
  assert.equal(s.idleTimeoutMs, 5000);
  assert.equal(s.sitemapTimeoutMs, 1_200_000);
});

test('the form turns into settings: blanks are unlimited, separators are ignored', () => {
  const f = {
    ...formFromSettings(defaults),
    startUrl: 'https://A.com',
    sitemapUrls: 'https://a.com/s1.xml\nhttps://a.com/s2.xml',
    maxUrls: '1,000,000',
    maxDepth: '',
    include: '^https://a\\.com/blog/',
    fetchPages: false,
    followLinks: true,
  };
  const s = settingsFromForm(f);
  assert.equal(s.startUrl, 'https://a.com/');
  assert.deepEqual(s.sitemapUrls, ['https://a.com/s1.xml', 'https://a.com/s2.xml']);
  assert.equal(s.maxUrls, 1_000_000);
  assert.equal(s.maxDepth, null);
  assert.deepEqual(s.include, ['^https://a\\.com/blog/']);
  assert.equal(s.followLinks, false, 'links are only followed on fetched pages');
  const patch = defaultsPatchFromForm(f);
  assert.equal('startUrl' in patch, false);
  assert.equal('sitemapUrls' in patch, false);
  assert.equal(patch.concurrency, 8);
});

test('the sitemap switch goes through to the settings; links only needs a start URL', () => {
  const f = { ...formFromSettings(defaults), startUrl: 'https://a.com/', useSitemaps: false };
  assert.equal(settingsFromForm(f).useSitemaps, false);
  assert.equal(settingsFromForm({ ...f, useSitemaps: true }).useSitemaps, true);
  assert.equal(formFromSettings({ ...defaults, useSitemaps: false }).useSitemaps, false);
  assert.match(validateForm({ ...f, startUrl: '', sitemapUrls: 'https://a.com/s.xml' }).startUrl!, /Links only starts from a page/);
});

test('a crawl is named after its host when the analyst gives no name', () => {
  assert.equal(suggestName({ startUrl: 'https://www.a.com/x', sitemapUrls: '' }), 'www.a.com');
  assert.equal(suggestName({ startUrl: '', sitemapUrls: '\nhttps://b.org/s.xml' }), 'b.org');
  assert.equal(suggestName({ startUrl: 'junk', sitemapUrls: '' }), '');
});

test('list mode: the form sends its mode, no sitemaps, and needs no start URL; back in spider mode links are followed', async () => {
  const { withCrawlMode } = await import('../../renderer/src/logic/validation.js');
  const spider = formFromSettings({ ...defaults, startUrl: '', sitemapUrls: [] });
  assert.equal(spider.mode, 'spider');
  assert.equal(settingsFromForm({ ...spider, startUrl: 'https://a.example/' }).mode, 'spider');
  assert.ok(validateForm(spider).startUrl, 'a spider needs a start');
  const list = withCrawlMode({ ...spider, sitemapUrls: 'https://a.example/s.xml' }, 'list');
  assert.equal(list.followLinks, false, 'a list does not follow links unless asked');
  assert.equal(list.fetchPages, true);
  assert.equal(validateForm(list).startUrl, undefined);
  const s = settingsFromForm(list);
  assert.equal(s.mode, 'list');
  assert.deepEqual(s.sitemapUrls, []);
  assert.equal(s.followLinks, false);
  assert.equal(settingsFromForm({ ...list, followLinks: true }).followLinks, true);
  // A bad start URL is still named in list mode.
  assert.ok(validateForm({ ...list, startUrl: 'nope' }).startUrl);
  // Defaults never become list mode, nor take its links choice.
  const patch = defaultsPatchFromForm(list);
  assert.equal('mode' in patch, false);
  assert.equal('followLinks' in patch, false);
  assert.equal(withCrawlMode(list, 'spider').followLinks, true);
  assert.equal(withCrawlMode(list, 'list'), list);
});
