/**
 * The HTTP client's conditional requests (FetchOptions.conditional, a recrawl's validators): sent as
 * If-None-Match / If-Modified-Since, on every hop of a followed redirect, none when not asked; a 304
 * is the answer (not a redirect to follow), with its empty body.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpFetcher } from '../../electron/engine/http/http.js';

const ETAG = 'W/"v1"';
const LAST_MODIFIED = 'Mon, 01 Jan 2024 00:00:00 GMT';

describe('http: conditional requests', () => {
  const seen: { path: string; inm?: string; ims?: string }[] = [];
  const server = http.createServer((req, res) => {
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    seen.push({ path: req.url ?? '', ...(inm ? { inm } : {}), ...(ims ? { ims } : {}) });
    if (req.url === '/moved') {
      res.writeHead(301, { location: '/doc' });
      return res.end();
    }
    if (inm === ETAG || (inm === undefined && ims === LAST_MODIFIED)) {
      res.writeHead(304, { etag: ETAG });
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'text/plain', etag: ETAG, 'last-modified': LAST_MODIFIED });
    res.end('the document');
  });
  const listening = new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
  const fetcher = createHttpFetcher({
    userAgent: 'SpinneretTest/1.0',
    timeoutMs: 5000,
    connectTimeoutMs: 5000,
    retries: 0,
    maxBodyBytes: 1 << 20,
    perHostConcurrency: 2,
    delayMs: 0,
  });
  after(() => {
    fetcher.close();
    server.close();
  });

  const body = async (r: { body: AsyncIterable<unknown> }) => {
    let s = '';
    for await (const c of r.body) s += String(c);
    return s;
  };

  it('sends the validators asked for, and answers 304 as is', async () => {
    const origin = await listening;
    seen.length = 0;
    const plain = await fetcher.fetch(origin + '/doc');
    assert.equal(plain.status, 200);
    assert.equal(await body(plain), 'the document');
    const both = await fetcher.fetch(origin + '/doc', { conditional: { etag: ETAG, lastModified: LAST_MODIFIED } });
    assert.equal(both.status, 304);
    assert.equal(await body(both), '');
    const since = await fetcher.fetch(origin + '/doc', { conditional: { lastModified: LAST_MODIFIED } });
    assert.equal(since.status, 304);
    await body(since);
    const other = await fetcher.fetch(origin + '/doc', { conditional: { etag: '"v0"' } });
    assert.equal(other.status, 200);
    await body(other);
    assert.deepEqual(seen, [
      { path: '/doc' },
      { path: '/doc', inm: ETAG, ims: LAST_MODIFIED },
      { path: '/doc', ims: LAST_MODIFIED },
      { path: '/doc', inm: '"v0"' },
    ]);
  });

  it('sends them on every hop of a followed redirect', async () => {
    const origin = await listening;
    seen.length = 0;
    const r = await fetcher.fetch(origin + '/moved', { conditional: { etag: ETAG } });
    assert.equal(r.status, 304);
    assert.equal(r.finalUrl, origin + '/doc');
    await body(r);
    assert.deepEqual(seen, [
      { path: '/moved', inm: ETAG },
      { path: '/doc', inm: ETAG },
    ]);
  });
});
