/**
 * The fetcher against hostile local servers: a body far past its cap read as a prefix, bodies that
 * stall (idle timeout) and a response whose timeouts are raised while it is read.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { createHttpFetcher, isRetryableError, type HttpFetcherOptions } from '../../electron/engine/http/http.js';
import type { EngineError } from '../../electron/engine/types.js';
import { startLocalServer } from '../fixtures/server.js';

const fetchers: { close(): void }[] = [];
after(() => fetchers.forEach((f) => f.close()));

function fetcher(over: Partial<HttpFetcherOptions> = {}) {
  const f = createHttpFetcher({
    userAgent: 'SpinneretTest/1.0',
    timeoutMs: 5000,
    connectTimeoutMs: 1000,
    retries: 0,
    maxBodyBytes: 1000,
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

const timedOut = (pattern: RegExp) => (e: EngineError) => {
  assert.equal(e.code, 'TIMEOUT', e.message);
  assert.match(e.message, pattern);
  assert.ok(isRetryableError(e));
  return true;
};

describe('readPrefix', () => {
  it('reads the first maxBodyBytes of a body that declares far more, then ends it', async () => {
    const body = Buffer.alloc(100_000, 'a');
    const s = await startLocalServer(({ res }) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(body.length) });
      res.end(body);
    });
    try {
      const f = fetcher();
      const cut = await f.fetch(`${s.origin}/`, { readPrefix: true });
      assert.equal((await readAll(cut.body)).length, 1000);
      // Without it, the declared size still fails before a byte is read.
      const refused = await f.fetch(`${s.origin}/`);
      await assert.rejects(readAll(refused.body), (e: EngineError) => e.code === 'EBODY_TOO_LARGE');
      // A body within the cap is whole.
      const whole = await f.fetch(`${s.origin}/`, { readPrefix: true, maxBodyBytes: 200_000 });
      assert.equal((await readAll(whole.body)).length, body.length);
    } finally {
      await s.close();
    }
  });
});

describe('idle timeout', () => {
  it('ends a body that stops sending, long before the total timeout', async () => {
    const s = await startLocalServer(({ res }) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first piece');
      // … and nothing more.
    });
    try {
      const f = fetcher({ timeoutMs: 10_000, idleTimeoutMs: 200 });
      const started = Date.now();
      const res = await f.fetch(`${s.origin}/`);
      await assert.rejects(readAll(res.body), timedOut(/sent nothing for 200 ms/));
      assert.ok(Date.now() - started < 5000);
    } finally {
      await s.close();
    }
  });

  it('lets a body that keeps sending run past it, and applies to the headers too', async () => {
    const s = await startLocalServer(({ res, path }, server) => {
      if (path === '/silent') return; // never answers
      res.writeHead(200, { 'content-type': 'text/plain' });
      let n = 0;
      const tick = () => {
        res.write('x'.repeat(10));
        if (++n < 8) server.defer({ res } as never, 60, tick);
        else res.end();
      };
      tick();
    });
    try {
      const f = fetcher({ timeoutMs: 10_000, idleTimeoutMs: 200 });
      const res = await f.fetch(`${s.origin}/trickle`);
      assert.equal((await readAll(res.body)).length, 80); // about 480 ms in all, never 200 ms silent
      await assert.rejects(f.fetch(`${s.origin}/silent`), timedOut(/sent nothing for 200 ms/));
    } finally {
      await s.close();
    }
  });
});

describe('setTimeouts', () => {
  it('raises the total timeout of a response being read', async () => {
    const s = await startLocalServer(({ res }, server) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      let n = 0;
      const tick = () => {
        res.write('<a/>');
        if (++n < 10) server.defer({ res } as never, 60, tick);
        else res.end();
      };
      tick();
    });
    try {
      const f = fetcher({ timeoutMs: 300, maxBodyBytes: 1_000_000 });
      const short = await f.fetch(`${s.origin}/`);
      await assert.rejects(readAll(short.body), timedOut(/within 300 ms/));
      const raised = await f.fetch(`${s.origin}/`);
      raised.setTimeouts!({ timeoutMs: 5000 });
      assert.equal((await readAll(raised.body)).length, 40);
    } finally {
      await s.close();
    }
  });
});
