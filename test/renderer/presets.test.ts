import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMode, modeOf } from '../../renderer/src/logic/presets.js';
import type { CrawlForm } from '../../renderer/src/logic/validation.js';

const form = { fetchPages: true, followLinks: true, useSitemaps: true, sitemapUrls: 'https://a.com/s.xml' } as CrawlForm;

test('presets set the fetch and follow switches', () => {
  const listing = applyMode(form, 'sitemaps');
  assert.equal(listing.fetchPages, false);
  assert.equal(listing.followLinks, false);
  assert.equal(listing.sitemapUrls, form.sitemapUrls, 'a sitemap listing keeps the explicit sitemaps');
  const links = applyMode(listing, 'links');
  assert.equal(links.fetchPages, true);
  assert.equal(links.followLinks, true);
  assert.equal(links.useSitemaps, false);
  assert.equal(links.sitemapUrls, '', 'links only drops explicit sitemaps');
  assert.equal(applyMode(links, 'full').useSitemaps, true);
});

test('the mode is read back from the switches', () => {
  assert.equal(modeOf({ fetchPages: false, followLinks: false, useSitemaps: true }), 'sitemaps');
  assert.equal(modeOf({ fetchPages: false, followLinks: true, useSitemaps: true }), 'sitemaps', 'no pages: links cannot be followed');
  assert.equal(modeOf({ fetchPages: true, followLinks: true, useSitemaps: true }), 'full');
  assert.equal(modeOf({ fetchPages: true, followLinks: true, useSitemaps: false }), 'links');
  assert.equal(modeOf({ fetchPages: true, followLinks: false, useSitemaps: true }), 'custom');
  assert.equal(modeOf({ fetchPages: false, followLinks: false, useSitemaps: false }), 'custom');
});
