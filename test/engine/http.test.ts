import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { BODY_TOO_LARGE, createHttpFetcher, type HttpFetcherOptions } from '../../electron/engine/http/http.js';
import { parseRetryAfter } from '../../electron/engine/http/retry-after.js';
import type { EngineError } from '../../electron/engine/types.js';

// ---------------------------------------------------------------- helpers

interface Served {
  origin: string;
  /** Every request seen: path, headers, arrival time, the client's port (one per socket). */
  hits: { path: string; headers: http.IncomingHttpHeaders; at: number; port: number }[];
  close(): Promise<void>;
}

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Served> {
  const hits: Served['hits'] = [];
  const server = http.createServer((req, res) => {
    hits.push({ path: req.url!, headers: req.headers, at: performance.now(), port: req.socket.remotePort! });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const fetchers: { close(): void }[] = [];
after(() => fetchers.forEach((f) => f.close()));

function fetcher(over: Partial<HttpFetcherOptions> = {}) {
  const f = createHttpFetcher({
    userAgent: 'SpinneretTest/1.0 (+http://127.0.0.1/bot)',
    timeoutMs: 500,
    connectTimeoutMs: 300,
    retries: 2,
    retryBaseDelayMs: 10,
    maxBodyBytes: 1_000_000,
    perHostConcurrency: 4,
    delayMs: 0,
    ...over,
  });
  fetchers.push(f);
  return f;
}

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const code = (expected: string) => (e: EngineError) => {
  assert.equal(e.code, expected, e.message);
  return true;
};

// ---------------------------------------------------------------- requests and headers

describe('HttpFetcher: requests', () => {
  it('sends the user agent and Accept-Encoding, and reports headers lower-cased and joined', async () => {
    const s = await serve((_req, res) => {
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.setHeader('X-Thing', 'yes');
      res.end('hello');
    });
    try {
      const f = fetcher();
      const t0 = performance.now();
      const r = await f.fetch(`${s.origin}/page`);
      assert.equal(r.status, 200);
      assert.equal(r.url, `${s.origin}/page`);
      assert.equal(r.finalUrl, `${s.origin}/page`);
      assert.deepEqual(r.redirectChain, []);
      assert.equal(r.headers['x-thing'], 'yes');
      assert.equal(r.headers['set-cookie'], 'a=1, b=2');
      assert.equal((await readAll(r.body)).toString(), 'hello');
      assert.equal(r.wireBytes(), 5);
      // Milliseconds since this fetch began: some, and no more than the wall time around it.
      const elapsed = r.elapsedMs();
      const wall = performance.now() - t0;
      assert.ok(elapsed > 0 && elapsed <= wall, `elapsedMs() ${elapsed}, wall time ${wall}`);
      assert.equal(s.hits[0]!.headers['user-agent'], 'SpinneretTest/1.0 (+http://127.0.0.1/bot)');
      assert.equal(s.hits[0]!.headers['accept-encoding'], 'gzip, deflate, br');
      await f.fetch(`${s.origin}/x`, { accept: 'application/xml' }).then((x) => readAll(x.body));
      assert.equal(s.hits[1]!.headers.accept, 'application/xml');
      assert.equal(f.stats().requests, 2);
      assert.equal(f.stats().inFlight, 0);
    } finally {
      await s.close();
    }
  });

  it('reuses one keep-alive socket for sequential requests to a host', async () => {
    const s = await serve((_req, res) => res.end('ok'));
    try {
      const f = fetcher();
      for (let i = 0; i < 3; i++) await readAll((await f.fetch(`${s.origin}/${i}`)).body);
      assert.equal(new Set(s.hits.map((h) => h.port)).size, 1);
    } finally {
      await s.close();
    }
  });

  it('refuses URLs that are not http or https with INVALID_URL', async () => {
    const f = fetcher();
    await assert.rejects(f.fetch('ftp://127.0.0.1/file'), code('INVALID_URL'));
    await assert.rejects(f.fetch('not a url'), code('INVALID_URL'));
  });
});

// ---------------------------------------------------------------- redirects

describe('HttpFetcher: redirects', () => {
  it('records each hop of a 301 → 302 → 200 chain', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/a') res.writeHead(301, { Location: '/b' }).end('moved');
      else if (req.url === '/b') res.writeHead(302, { Location: `http://${req.headers.host}/c` }).end();
      else res.end('final');
    });
    try {
      const r = await fetcher().fetch(`${s.origin}/a`);
      assert.equal(r.status, 200);
      assert.equal(r.url, `${s.origin}/a`);
      assert.equal(r.finalUrl, `${s.origin}/c`);
      assert.deepEqual(r.redirectChain, [
        { url: `${s.origin}/a`, status: 301 },
        { url: `${s.origin}/b`, status: 302 },
      ]);
      assert.equal((await readAll(r.body)).toString(), 'final');
      assert.equal(s.hits.length, 3);
      assert.equal(s.hits[2]!.headers['user-agent'], 'SpinneretTest/1.0 (+http://127.0.0.1/bot)');
    } finally {
      await s.close();
    }
  });

  it('resolves relative Locations against the hop that sent them', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/dir/sub/start') res.writeHead(301, { Location: '../other?x=1' }).end();
      else if (req.url === '/dir/other?x=1') res.writeHead(307, { Location: 'end#frag' }).end();
      else res.end(req.url);
    });
    try {
      const r = await fetcher().fetch(`${s.origin}/dir/sub/start`);
      assert.equal(r.finalUrl, `${s.origin}/dir/end#frag`);
      assert.equal((await readAll(r.body)).toString(), '/dir/end');
      assert.deepEqual(
        r.redirectChain.map((h) => h.url),
        [`${s.origin}/dir/sub/start`, `${s.origin}/dir/other?x=1`],
      );
    } finally {
      await s.close();
    }
  });

  it('fails a redirect loop with REDIRECT_LOOP', async () => {
    const s = await serve((req, res) => {
      res.writeHead(302, { Location: req.url === '/a' ? '/b' : '/a' }).end();
    });
    try {
      await assert.rejects(fetcher().fetch(`${s.origin}/a`), code('REDIRECT_LOOP'));
      assert.equal(s.hits.length, 2);
    } finally {
      await s.close();
    }
  });

  it('follows 10 hops but fails 11 with TOO_MANY_REDIRECTS', async () => {
    // /hop/N redirects to /hop/N-1; /hop/0 answers.
    const s = await serve((req, res) => {
      const n = Number(req.url!.split('/')[2]);
      if (n === 0) res.end('landed');
      else res.writeHead(301, { Location: `/hop/${n - 1}` }).end();
    });
    try {
      const f = fetcher();
      const ten = await f.fetch(`${s.origin}/hop/10`);
      assert.equal(ten.redirectChain.length, 10);
      assert.equal((await readAll(ten.body)).toString(), 'landed');
      await assert.rejects(f.fetch(`${s.origin}/hop/11`), code('TOO_MANY_REDIRECTS'));
    } finally {
      await s.close();
    }
  });

  it('returns a 3xx without Location as it is', async () => {
    const s = await serve((_req, res) => res.writeHead(302).end('no location'));
    try {
      const r = await fetcher().fetch(`${s.origin}/`);
      assert.equal(r.status, 302);
      assert.deepEqual(r.redirectChain, []);
      assert.equal((await readAll(r.body)).toString(), 'no location');
    } finally {
      await s.close();
    }
  });

  it('fails a redirect to a non-http URL with INVALID_REDIRECT', async () => {
    const s = await serve((_req, res) => res.writeHead(301, { Location: 'mailto:a@b.test' }).end());
    try {
      await assert.rejects(fetcher().fetch(`${s.origin}/`), code('INVALID_REDIRECT'));
    } finally {
      await s.close();
    }
  });

  it('sends redirect hops through the host limiter', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/a') res.writeHead(301, { Location: '/b' }).end();
      else res.end('b');
    });
    try {
      // Measured from before the fetch: an arrival is never earlier than its start, however loaded the machine.
      const t0 = performance.now();
      await readAll((await fetcher({ perHostConcurrency: 1, delayMs: 150 }).fetch(`${s.origin}/a`)).body);
      assert.equal(s.hits.length, 2);
      assert.ok(s.hits[1]!.at - t0 >= 145, `second hop ${s.hits[1]!.at - t0} ms after the fetch`);
    } finally {
      await s.close();
    }
  });
});

// ---------------------------------------------------------------- content encoding

describe('HttpFetcher: content encoding', () => {
  const text = Buffer.from('<urlset>' + 'x'.repeat(5000) + '</urlset>');
  const encoded: Record<string, Buffer> = {
    gzip: zlib.gzipSync(text),
    deflate: zlib.deflateSync(text),
    'deflate-raw': zlib.deflateRawSync(text),
    br: zlib.brotliCompressSync(text),
  };
  const gzFile = zlib.gzipSync(text);

  async function encodingServer() {
    return serve((req, res) => {
      const kind = req.url!.slice(1);
      if (kind === 'sitemap.xml.gz') {
        res.writeHead(200, { 'Content-Type': 'application/gzip', 'Content-Length': gzFile.length }).end(gzFile);
        return;
      }
      const body = encoded[kind]!;
      const header = kind === 'deflate-raw' ? 'deflate' : kind;
      res.writeHead(200, { 'Content-Encoding': header, 'Content-Length': body.length }).end(body);
    });
  }

  for (const kind of Object.keys(encoded)) {
    it(`decodes a ${kind} body and counts the wire bytes before decoding`, async () => {
      const s = await encodingServer();
      try {
        const r = await fetcher().fetch(`${s.origin}/${kind}`);
        assert.deepEqual(await readAll(r.body), text);
        assert.equal(r.wireBytes(), encoded[kind]!.length);
        assert.ok(r.wireBytes() < text.length);
      } finally {
        await s.close();
      }
    });
  }

  it('passes a .gz file sent without Content-Encoding through untouched', async () => {
    const s = await encodingServer();
    try {
      const r = await fetcher().fetch(`${s.origin}/sitemap.xml.gz`);
      const body = await readAll(r.body);
      assert.equal(body[0], 0x1f);
      assert.equal(body[1], 0x8b);
      assert.deepEqual(body, gzFile);
      assert.equal(r.wireBytes(), gzFile.length);
    } finally {
      await s.close();
    }
  });

  it('errors the body of an unknown Content-Encoding with UNSUPPORTED_ENCODING', async () => {
    const s = await serve((_req, res) => res.writeHead(200, { 'Content-Encoding': 'zz' }).end('???'));
    try {
      const r = await fetcher().fetch(`${s.origin}/`);
      assert.equal(r.status, 200);
      await assert.rejects(readAll(r.body), code('UNSUPPORTED_ENCODING'));
    } finally {
      await s.close();
    }
  });

  it('errors a corrupt gzip body with DECODING_ERROR', async () => {
    const s = await serve((_req, res) => res.writeHead(200, { 'Content-Encoding': 'gzip' }).end('not gzip at all'));
    try {
      const r = await fetcher().fetch(`${s.origin}/`);
      await assert.rejects(readAll(r.body), code('DECODING_ERROR'));
    } finally {
      await s.close();
    }
  });
});

// ---------------------------------------------------------------- retries

describe('HttpFetcher: retries', () => {
  it('waits out Retry-After on a 429, for the whole host, then returns the 200', async () => {
    let first = true;
    const s = await serve((req, res) => {
      if (req.url === '/limited' && first) {
        first = false;
        res.writeHead(429, { 'Retry-After': '1' }).end();
      } else res.end('ok');
    });
    try {
      const retries: { attempt: number; delayMs: number; reason: string }[] = [];
      let other: Promise<unknown> | undefined;
      const f = fetcher({
        onRetry: (info) => {
          retries.push(info);
          // Another URL of the same host asked for during the pause must wait as well.
          other = f.fetch(`${s.origin}/other`).then((r) => readAll(r.body));
        },
      });
      const r = await f.fetch(`${s.origin}/limited`);
      assert.equal(r.status, 200);
      await other;
      const at = (path: string, nth = 0) => s.hits.filter((h) => h.path === path)[nth]!.at;
      assert.ok(at('/limited', 1) - at('/limited') >= 900, `retry gap ${at('/limited', 1) - at('/limited')} ms`);
      assert.ok(at('/other') - at('/limited') >= 900, `other URL gap ${at('/other') - at('/limited')} ms`);
      assert.equal(retries.length, 1);
      assert.equal(retries[0]!.attempt, 1);
      assert.equal(retries[0]!.delayMs, 1000);
      assert.match(retries[0]!.reason, /429/);
      assert.equal(f.stats().retries, 1);
    } finally {
      await s.close();
    }
  });

  it('gives up at once with the response when Retry-After exceeds maxRetryAfterMs', async () => {
    const s = await serve((_req, res) => res.writeHead(503, { 'Retry-After': '3600' }).end());
    try {
      const r = await fetcher({ maxRetryAfterMs: 50 }).fetch(`${s.origin}/`);
      assert.equal(r.status, 503);
      assert.equal(s.hits.length, 1);
    } finally {
      await s.close();
    }
  });

  it('retries a 503 and returns the 200 that follows', async () => {
    let n = 0;
    const s = await serve((_req, res) => (n++ === 0 ? res.writeHead(503).end('busy') : res.end('fine')));
    try {
      const r = await fetcher().fetch(`${s.origin}/`);
      assert.equal(r.status, 200);
      assert.equal((await readAll(r.body)).toString(), 'fine');
      assert.equal(s.hits.length, 2);
    } finally {
      await s.close();
    }
  });

  it('returns the last 500 once retries are exhausted', async () => {
    const s = await serve((_req, res) => res.writeHead(500).end('broken'));
    try {
      const f = fetcher({ retries: 2 });
      const r = await f.fetch(`${s.origin}/`);
      assert.equal(r.status, 500);
      assert.equal((await readAll(r.body)).toString(), 'broken');
      assert.equal(s.hits.length, 3);
      assert.equal(f.stats().retries, 2);
    } finally {
      await s.close();
    }
  });

  it('does not retry a 404', async () => {
    const s = await serve((_req, res) => res.writeHead(404).end());
    try {
      const r = await fetcher().fetch(`${s.origin}/`);
      assert.equal(r.status, 404);
      assert.equal(s.hits.length, 1);
    } finally {
      await s.close();
    }
  });

  it('fails a refused connection with CONNECTION_REFUSED after its retries', async () => {
    const s = await serve(() => {});
    const origin = s.origin;
    await s.close();
    const seen: string[] = [];
    const f = fetcher({ retries: 2, onRetry: (i) => seen.push(i.reason) });
    await assert.rejects(f.fetch(`${origin}/`), (e: EngineError) => {
      assert.equal(e.code, 'CONNECTION_REFUSED');
      assert.ok(e.message.includes(`${origin}/`), e.message);
      return true;
    });
    assert.equal(seen.length, 2);
    assert.match(seen[0]!, /CONNECTION_REFUSED/);
  });
});

// ---------------------------------------------------------------- timeouts, sizes, close

describe('HttpFetcher: timeouts and limits', () => {
  it('fails a response slower than the timeout with TIMEOUT, after retries', async () => {
    const s = await serve((_req, res) => {
      setTimeout(() => res.end('late'), 1000).unref();
    });
    try {
      const f = fetcher({ timeoutMs: 150, retries: 1 });
      await assert.rejects(f.fetch(`${s.origin}/`), code('TIMEOUT'));
      assert.equal(s.hits.length, 2);
      assert.equal(f.stats().inFlight, 0);
    } finally {
      await s.close();
    }
  });

  it('fails a connection whose TLS handshake stalls with TIMEOUT after connectTimeoutMs', async () => {
    // Accepts TCP, never speaks TLS: only the connect(+TLS) timer can end it, well before timeoutMs.
    const sockets = new Set<net.Socket>();
    const server = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const f = fetcher({ connectTimeoutMs: 100, timeoutMs: 5000, retries: 1 });
      await assert.rejects(f.fetch(`https://127.0.0.1:${port}/`), (e: EngineError) => {
        assert.equal(e.code, 'TIMEOUT');
        assert.match(e.message, /connecting took longer than 100 ms/);
        return true;
      });
      assert.equal(sockets.size, 2);
    } finally {
      sockets.forEach((s) => s.destroy());
      await new Promise((r) => server.close(r));
    }
  });

  it('errors a body cut off mid-way with CONNECTION_RESET', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Length': 1000 });
      res.write('only part');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    try {
      const r = await fetcher().fetch(`${s.origin}/`);
      await assert.rejects(readAll(r.body), code('CONNECTION_RESET'));
    } finally {
      await s.close();
    }
  });

  it('errors a body that stalls after the headers with TIMEOUT', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.write('<html>');
      // …and nothing more.
    });
    try {
      const f = fetcher({ timeoutMs: 200 });
      const r = await f.fetch(`${s.origin}/`);
      assert.equal(r.status, 200);
      await assert.rejects(readAll(r.body), code('TIMEOUT'));
      assert.equal(r.wireBytes(), 6);
      assert.equal(f.stats().inFlight, 0);
    } finally {
      await s.close();
    }
  });

  it('uses the body-too-large code FetchResponse documents', () => {
    assert.equal(BODY_TOO_LARGE, 'EBODY_TOO_LARGE');
  });

  it('errors a body with a Content-Length over maxBodyBytes with BODY_TOO_LARGE, keeping the status', async () => {
    const big = Buffer.alloc(5000, 'a');
    const s = await serve((_req, res) => res.writeHead(200, { 'Content-Length': big.length }).end(big));
    try {
      const f = fetcher({ maxBodyBytes: 1000 });
      const r = await f.fetch(`${s.origin}/`);
      assert.equal(r.status, 200);
      await assert.rejects(readAll(r.body), code(BODY_TOO_LARGE));
      // The per-request limit overrides the client's.
      const ok = await f.fetch(`${s.origin}/`, { maxBodyBytes: 10_000 });
      assert.equal((await readAll(ok.body)).length, 5000);
    } finally {
      await s.close();
    }
  });

  it('errors a streamed body past maxBodyBytes with BODY_TOO_LARGE, counting decoded bytes', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/gzip') {
        // 100 KB of text that compresses to a few hundred bytes: the limit is on decoded bytes.
        res.writeHead(200, { 'Content-Encoding': 'gzip' }).end(zlib.gzipSync(Buffer.alloc(100_000, 'z')));
        return;
      }
      res.writeHead(200); // chunked, no Content-Length
      for (let i = 0; i < 10; i++) res.write(Buffer.alloc(1000, 'b'));
      res.end();
    });
    try {
      const f = fetcher({ maxBodyBytes: 4000 });
      await assert.rejects(readAll((await f.fetch(`${s.origin}/chunked`)).body), code(BODY_TOO_LARGE));
      const gz = await f.fetch(`${s.origin}/gzip`);
      await assert.rejects(readAll(gz.body), code(BODY_TOO_LARGE));
      assert.ok(gz.wireBytes() < 4000);
    } finally {
      await s.close();
    }
  });

  it('aborts requests in flight on close()', async () => {
    const s = await serve(() => {}); // never answers
    try {
      const f = fetcher({ timeoutMs: 5000 });
      const pending = f.fetch(`${s.origin}/`);
      while (s.hits.length === 0) await new Promise((r) => setTimeout(r, 5));
      f.close();
      await assert.rejects(pending, code('ABORTED'));
      await assert.rejects(f.fetch(`${s.origin}/`), code('ABORTED'));
    } finally {
      await s.close();
    }
  });

  it('aborts a fetch when its signal fires, even mid-body', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    try {
      const ac = new AbortController();
      const r = await fetcher({ timeoutMs: 5000 }).fetch(`${s.origin}/`, { signal: ac.signal });
      const reading = readAll(r.body);
      ac.abort();
      await assert.rejects(reading, code('ABORTED'));
    } finally {
      await s.close();
    }
  });

  it('shares one listener per caller signal across many fetches, and aborts them all', async () => {
    const s = await serve(() => {}); // never answers
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const ac = new AbortController();
      const f = fetcher({ timeoutMs: 5000, perHostConcurrency: 5 });
      // 5 in flight, 15 waiting for a slot: all watch the same signal.
      const all = Array.from({ length: 20 }, (_, i) => f.fetch(`${s.origin}/${i}`, { signal: ac.signal }));
      while (s.hits.length < 5) await new Promise((r) => setTimeout(r, 5));
      ac.abort();
      const results = await Promise.allSettled(all);
      for (const r of results) {
        assert.equal(r.status, 'rejected');
        assert.equal((r as PromiseRejectedResult).reason.code, 'ABORTED');
      }
      assert.equal(f.stats().inFlight, 0);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(
        warnings.map((w) => w.name),
        [],
      );
    } finally {
      process.off('warning', onWarning);
      await s.close();
    }
  });
});

// ---------------------------------------------------------------- politeness

describe('HttpFetcher: politeness', () => {
  it('keeps to the per-host concurrency', async () => {
    let now = 0;
    let max = 0;
    const s = await serve((_req, res) => {
      max = Math.max(max, ++now);
      setTimeout(() => {
        now--;
        res.end('ok');
      }, 30);
    });
    try {
      const f = fetcher({ perHostConcurrency: 2 });
      await Promise.all(Array.from({ length: 8 }, (_, i) => f.fetch(`${s.origin}/${i}`).then((r) => readAll(r.body))));
      assert.equal(max, 2);
      assert.equal(s.hits.length, 8);
    } finally {
      await s.close();
    }
  });

  it('keeps the minimum delay between request starts to a host, raised by setHostDelay', async () => {
    const s = await serve((_req, res) => res.end('ok'));
    try {
      const f = fetcher({ delayMs: 60, perHostConcurrency: 4 });
      const get = (p: string) => f.fetch(`${s.origin}${p}`).then((r) => readAll(r.body));
      // Measured from before the fetches: an arrival is never earlier than its start, however loaded the machine.
      const t0 = performance.now();
      await Promise.all([get('/1'), get('/2'), get('/3')]);
      const last = Math.max(...s.hits.map((h) => h.at));
      assert.ok(last - t0 >= 2 * 60 - 5, `third start ${last - t0} ms after the first`);
      f.setHostDelay('127.0.0.1', 150); // a hostname: politeness is per host, whatever the port
      await new Promise((r) => setTimeout(r, 150)); // the next start is free again…
      const t1 = performance.now();
      await Promise.all([get('/4'), get('/5')]);
      const lastRaised = Math.max(...s.hits.slice(3).map((h) => h.at));
      assert.ok(lastRaised - t1 >= 145, `…but the one after it waits the raised gap (${lastRaised - t1} ms)`);
    } finally {
      await s.close();
    }
  });
});

// ---------------------------------------------------------------- Retry-After parsing

describe('parseRetryAfter', () => {
  const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
  it('reads delta-seconds', () => {
    assert.equal(parseRetryAfter('120', now), 120_000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
  });
  it('reads an HTTP-date relative to now, past dates as 0', () => {
    assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', now), 30_000);
    assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:00:00 GMT', now), 0);
  });
  it('ignores absent and unreadable values', () => {
    assert.equal(parseRetryAfter(undefined, now), undefined);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter('-5', now), undefined);
  });
});

// ---------------------------------------------------------------- response time and sizes

describe('HttpFetcher: response time and body sizes', () => {
  const page = Buffer.from('<!doctype html><p>' + 'compressible text '.repeat(3000) + '</p>');

  it('gzip: counts the compressed bytes on the wire and the decoded bytes handed over', async () => {
    const gz = zlib.gzipSync(page);
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Length': gz.length }).end(gz);
    });
    try {
      const r = await fetcher().fetch(`${s.origin}/`);
      assert.deepEqual(await readAll(r.body), page);
      assert.equal(r.wireBytes(), gz.length);
      assert.equal(r.bodyBytes!(), page.length);
      assert.ok(r.wireBytes() < r.bodyBytes!());
      assert.ok(r.responseTimeMs!()! >= 0);
    } finally {
      await s.close();
    }
  });

  it('chunked: counts the payload without the chunk framing, and times the last chunk', async () => {
    const parts = ['<p>one</p>', '<p>two</p>', '<p>three</p>'];
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' }); // no Content-Length: chunked
      res.write(parts[0]);
      setTimeout(() => res.write(parts[1]), 60);
      setTimeout(() => res.end(parts[2]), 120);
    });
    try {
      const r = await fetcher().fetch(`${s.origin}/`);
      assert.equal(r.headers['transfer-encoding'], 'chunked');
      assert.equal((await readAll(r.body)).toString(), parts.join(''));
      const payload = Buffer.byteLength(parts.join(''));
      assert.equal(r.wireBytes(), payload);
      assert.equal(r.bodyBytes!(), payload);
      // Node's timers may fire up to a millisecond early.
      assert.ok(r.responseTimeMs!()! >= 119, `responseTimeMs ${r.responseTimeMs!()}`);
    } finally {
      await s.close();
    }
  });

  it('a slow page: the time runs from the request to the end of the body, not to the headers', async () => {
    const s = await serve((_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.write('<p>head</p>');
        setTimeout(() => res.end('<p>tail</p>'), 150);
      }, 100);
    });
    try {
      const t0 = performance.now();
      const r = await fetcher().fetch(`${s.origin}/`);
      assert.equal(r.responseTimeMs!(), undefined, 'the body has not ended yet');
      await readAll(r.body);
      const wall = performance.now() - t0;
      const time = r.responseTimeMs!()!;
      assert.ok(time >= 249 && time <= wall, `responseTimeMs ${time}, wall ${wall}`);
    } finally {
      await s.close();
    }
  });

  it('times the attempt that answered: a retried 503 and its backoff are not counted', async () => {
    let n = 0;
    const s = await serve((_req, res) => {
      if (n++ === 0) setTimeout(() => res.writeHead(503).end('busy'), 200);
      else res.end('fine');
    });
    try {
      const r = await fetcher({ retryBaseDelayMs: 100 }).fetch(`${s.origin}/`);
      await readAll(r.body);
      assert.equal(r.status, 200);
      assert.ok(r.elapsedMs() >= 200, `elapsedMs ${r.elapsedMs()}`);
      assert.ok(r.responseTimeMs!()! < 200, `responseTimeMs ${r.responseTimeMs!()}`);
    } finally {
      await s.close();
    }
  });

  it('has no time for a body not received in full: cut by the reader, cut as a prefix, too large', async () => {
    const big = Buffer.alloc(400_000, 'a');
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write(big.subarray(0, 200_000));
      setTimeout(() => res.end(big.subarray(200_000)), 50);
    });
    try {
      const f = fetcher();
      const cut = await f.fetch(`${s.origin}/cut`);
      for await (const _chunk of cut.body) break; // the reader stops after its first chunk
      const prefix = await f.fetch(`${s.origin}/prefix`, { maxBodyBytes: 1000, readPrefix: true });
      assert.equal((await readAll(prefix.body)).length, 1000);
      assert.equal(prefix.bodyBytes!(), 1000);
      const tooLarge = await f.fetch(`${s.origin}/large`, { maxBodyBytes: 1000 });
      await assert.rejects(readAll(tooLarge.body), code(BODY_TOO_LARGE));
      await new Promise((r) => setTimeout(r, 100));
      for (const r of [cut, prefix, tooLarge]) assert.equal(r.responseTimeMs!(), undefined, r.url);
    } finally {
      await s.close();
    }
  });
});
