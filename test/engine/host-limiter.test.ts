import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { HostLimiter, type Release } from '../../electron/engine/http/host-limiter.js';
import { EngineError } from '../../electron/engine/types.js';

/** Lets pending promise callbacks run. */
const settle = () => new Promise((r) => setImmediate(r));

describe('HostLimiter', () => {
  it('holds a host to its concurrency and serves its waiters first come first served', async () => {
    const limiter = new HostLimiter({ perHostConcurrency: 2, delayMs: 0 });
    const order: number[] = [];
    const releases: Release[] = [];
    for (let i = 0; i < 5; i++) {
      void limiter.acquire('a.test').then((release) => {
        order.push(i);
        releases.push(release);
      });
    }
    await settle();
    assert.deepEqual(order, [0, 1]);
    assert.equal(limiter.inFlight(), 2);
    assert.equal(limiter.waiting(), 3);
    releases[0]!();
    releases[0]!(); // a second call must not free a second slot
    await settle();
    assert.deepEqual(order, [0, 1, 2]);
    assert.equal(limiter.inFlight(), 2);
    releases[1]!();
    releases[2]!();
    await settle();
    assert.deepEqual(order, [0, 1, 2, 3, 4]);
  });

  it("does not let one host use another host's slots", async () => {
    const limiter = new HostLimiter({ perHostConcurrency: 1, delayMs: 0 });
    await limiter.acquire('a.test');
    let bGranted = false;
    void limiter.acquire('b.test').then(() => (bGranted = true));
    await settle();
    assert.equal(bGranted, true);
  });

  it('takes turns between hosts under a global cap', async () => {
    const limiter = new HostLimiter({ perHostConcurrency: 5, delayMs: 0, concurrency: 1 });
    const first = await limiter.acquire('a.test');
    const order: string[] = [];
    const releases: Release[] = [];
    for (const host of ['a.test', 'a.test', 'a.test', 'b.test', 'b.test', 'b.test']) {
      void limiter.acquire(host).then((release) => {
        order.push(host[0]!);
        releases.push(release);
      });
    }
    first();
    for (let i = 0; i < 6; i++) {
      await settle();
      assert.equal(limiter.inFlight(), 1);
      releases[i]!();
    }
    await settle();
    assert.deepEqual(order.join(''), 'ababab');
  });

  it('keeps the minimum gap between starts to one host', async () => {
    const limiter = new HostLimiter({ perHostConcurrency: 10, delayMs: 60 });
    const starts: number[] = [];
    await Promise.all(
      [0, 1, 2].map(() =>
        limiter.acquire('a.test').then((release) => {
          starts.push(performance.now());
          release();
        }),
      ),
    );
    assert.ok(starts[1]! - starts[0]! >= 55, `gap ${starts[1]! - starts[0]!} ms`);
    assert.ok(starts[2]! - starts[1]! >= 55, `gap ${starts[2]! - starts[1]!} ms`);
  });

  it('raises a host delay with setHostDelay, never below the default', async () => {
    const limiter = new HostLimiter({ perHostConcurrency: 10, delayMs: 40 });
    limiter.setHostDelay('slow.test', 120);
    limiter.setHostDelay('fast.test', 0); // below the default: stays at 40
    const gap = async (host: string) => {
      (await limiter.acquire(host))();
      const t0 = performance.now();
      (await limiter.acquire(host))();
      return performance.now() - t0;
    };
    const [slow, fast] = await Promise.all([gap('slow.test'), gap('fast.test')]);
    assert.ok(slow >= 110, `slow gap ${slow} ms`);
    assert.ok(fast >= 35, `fast gap ${fast} ms`);
  });

  it('pauses every start to a host with pauseHost', async () => {
    const limiter = new HostLimiter({ perHostConcurrency: 10, delayMs: 0 });
    const t0 = performance.now();
    limiter.pauseHost('a.test', 100);
    (await limiter.acquire('a.test'))();
    assert.ok(performance.now() - t0 >= 95);
    let otherGranted = false;
    void limiter.acquire('b.test').then(() => (otherGranted = true));
    await settle();
    assert.equal(otherGranted, true, 'another host is not paused');
  });

  it('drops an aborted waiter and rejects it with ABORTED', async () => {
    const limiter = new HostLimiter({ perHostConcurrency: 1, delayMs: 0 });
    const held = await limiter.acquire('a.test');
    const ac = new AbortController();
    const aborted = limiter.acquire('a.test', ac.signal);
    const next = limiter.acquire('a.test');
    ac.abort();
    await assert.rejects(aborted, (e: EngineError) => e.code === 'ABORTED');
    held();
    (await next)();
    assert.equal(limiter.inFlight(), 0);
    assert.equal(limiter.waiting(), 0);
  });

  it('rejects waiters and later acquires once closed', async () => {
    const limiter = new HostLimiter({ perHostConcurrency: 1, delayMs: 0 });
    await limiter.acquire('a.test');
    const waiting = limiter.acquire('a.test');
    limiter.close(new EngineError('ABORTED', 'closed'));
    await assert.rejects(waiting, (e: EngineError) => e.code === 'ABORTED');
    await assert.rejects(limiter.acquire('b.test'), (e: EngineError) => e.code === 'ABORTED');
  });

  it('refuses a per-host concurrency below 1', () => {
    assert.throws(
      () => new HostLimiter({ perHostConcurrency: 0, delayMs: 0 }),
      (e: EngineError) => e.code === 'INVALID_OPTION',
    );
  });
});
