/**
 * A sitemap body handed to the list with its response (a page that turned out to be XML, a default
 * location) is spooled to a file at once; a connection reset before the spool listens must fail that
 * sitemap only, never the process with an uncaught 'error'.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { SitemapRequestList } from '../../electron/engine/sitemap/request-list.js';
import type { FetchResponse, HttpFetcher } from '../../electron/engine/types.js';

const noFetch: HttpFetcher = {
  fetch: () => Promise.reject(new Error('no fetch in this test')),
  close() {},
};

test('a body reset while its spool file opens fails the sitemap, not the process', async () => {
  const list = new SitemapRequestList({ sitemapUrls: [], fetcher: noFetch, parseInWorker: false });
  const body = new PassThrough();
  const response: FetchResponse = {
    url: 'http://127.0.0.1:9/feed.xml',
    finalUrl: 'http://127.0.0.1:9/feed.xml',
    status: 200,
    headers: { 'content-type': 'application/xml' },
    redirectChain: [],
    body,
    wireBytes: () => 0,
    elapsedMs: () => 0,
  };
  list.addSitemap(response.url, { parentId: null, response });
  // The reset lands before the spool file is open (its open is asynchronous).
  body.destroy(Object.assign(new Error('socket hang up'), { code: 'CONNECTION_RESET' }));
  const batch = await list.fetchNextBatch(10);
  assert.deepEqual(batch, []);
  const node = list.nodes().find((n) => n.url === response.url)!;
  assert.equal(node.state, 'error');
  assert.ok(node.problems.length > 0, JSON.stringify(node));
  await list.close();
});
