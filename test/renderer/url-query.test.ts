import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  describeFilter,
  emptyFilter,
  filterKey,
  filterToQuery,
  isFiltered,
  nextSort,
  pageQuery,
  toggle,
} from '../../renderer/src/logic/url-query.js';

test('an empty filter asks for nothing but the page', () => {
  assert.deepEqual(pageQuery(emptyFilter(), 200, 100), { offset: 200, limit: 100 });
  assert.equal(isFiltered(emptyFilter()), false);
});

test('each filter maps to its query key; any/blank ones are left out', () => {
  const f = {
    ...emptyFilter(),
    search: '  blog ',
    states: ['error' as const],
    sources: ['sitemap' as const, 'link' as const],
    statusClasses: ['4xx' as const],
    inSitemap: 'no' as const,
    blocked: 'yes' as const,
    sitemapId: 'https://a.com/s.xml',
    sitemapUrl: 'https://a.com/s.xml',
    sort: { key: 'status' as const, dir: 'desc' as const },
  };
  assert.deepEqual(filterToQuery(f), {
    search: 'blog',
    states: ['error'],
    sources: ['sitemap', 'link'],
    statusClasses: ['4xx'],
    inSitemap: false,
    blocked: true,
    sitemapId: 'https://a.com/s.xml',
    sort: { key: 'status', dir: 'desc' },
  });
  assert.equal(isFiltered(f), true);
  assert.match(describeFilter(f), /state error · source sitemap, link · status 4xx · in no sitemap · blocked · listed by https:\/\/a\.com\/s\.xml · matching "blog"/);
});

test('sorting alone is not a filter but changes the cache key', () => {
  const sorted = { ...emptyFilter(), sort: { key: 'url' as const, dir: 'asc' as const } };
  assert.equal(isFiltered(sorted), false);
  assert.notEqual(filterKey(sorted), filterKey(emptyFilter()));
  assert.equal(filterKey({ ...emptyFilter(), search: '  ' }), filterKey(emptyFilter()), 'blank search is no search');
});

test('header clicks flip the direction of the same key, and start others ascending', () => {
  assert.deepEqual(nextSort({ key: 'id', dir: 'asc' }, 'id'), { key: 'id', dir: 'desc' });
  assert.deepEqual(nextSort({ key: 'id', dir: 'desc' }, 'id'), { key: 'id', dir: 'asc' });
  assert.deepEqual(nextSort({ key: 'id', dir: 'desc' }, 'title'), { key: 'title', dir: 'asc' });
});

test('toggle adds and removes one value', () => {
  assert.deepEqual(toggle(['a', 'b'], 'a'), ['b']);
  assert.deepEqual(toggle(['b'], 'a'), ['b', 'a']);
});
