import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { MAX_ROBOTS_CHARS, parseRobotsTxt } from '../../electron/engine/robots/robots.js';
import { decodeRobotsBody, fetchRobotsTxt, robotsFromCheckpoint } from '../../electron/engine/robots/robots-fetch.js';
import { EngineError, type FetchOptions, type FetchResponse, type HttpFetcher } from '../../electron/engine/types.js';

const ROBOTS_URL = 'https://example.com/robots.txt';

// ---------------------------------------------------------------- conformance (Google's CTC)

interface CtcCase {
  robotstxt?: string;
  robotstxtBase64?: string;
  expectations: { url: string; userAgent: string; expected: 'ALLOWED' | 'DISALLOWED' }[];
}

const CTC_URL = new URL('../../../shared/conformance/robots-ctc.json', import.meta.url);

test('robots.txt conformance: google/robotstxt-spec-test CTC', async (t) => {
  const path = fileURLToPath(CTC_URL);
  if (!existsSync(path)) {
    t.skip(`conformance data not present: ${path} (a fresh clone has no ../shared; CI always has it)`);
    return;
  }
  const data = JSON.parse(readFileSync(path, 'utf8')) as { suites: Record<string, CtcCase[]> };
  let expectations = 0;
  for (const [suite, cases] of Object.entries(data.suites)) {
    for (const [i, c] of cases.entries()) {
      await t.test(`${suite} #${i + 1}`, async (tc) => {
        // Non-UTF-8 cases come as bytes: they go through the same decoding as a fetched body.
        const body = c.robotstxt !== undefined ? c.robotstxt : decodeRobotsBody(Buffer.from(c.robotstxtBase64!, 'base64'));
        const robots = parseRobotsTxt(body, 'http://example.com/robots.txt');
        for (const e of c.expectations) {
          expectations++;
          await tc.test(`${e.expected} ${JSON.stringify(e.userAgent)} ${JSON.stringify(e.url)}`, () => {
            const got = robots.isAllowed(e.url, e.userAgent) ? 'ALLOWED' : 'DISALLOWED';
            assert.equal(got, e.expected);
          });
        }
      });
    }
  }
  assert.equal(expectations, 146, 'the suite holds 146 expectations');
});

// ---------------------------------------------------------------- own parser cases

test('groups: consecutive user-agents share rules; same agent merges across groups', () => {
  const r = parseRobotsTxt(
    ['User-agent: a', 'User-agent: b', 'Disallow: /shared', '', 'User-agent: c', 'Disallow: /c-only', '', 'User-agent: A', 'Disallow: /a-more'].join('\n'),
    ROBOTS_URL,
  );
  assert.equal(r.isAllowed('https://example.com/shared/x', 'a'), false);
  assert.equal(r.isAllowed('https://example.com/shared/x', 'b'), false);
  assert.equal(r.isAllowed('https://example.com/shared/x', 'c'), true);
  assert.equal(r.isAllowed('https://example.com/a-more', 'a'), false, 'merged from the second a group');
  assert.equal(r.isAllowed('https://example.com/a-more', 'b'), true);
  assert.equal(r.isAllowed('https://example.com/c-only', 'C'), false);
});

test('user agent is matched by its product token, case-insensitively, with * as fallback', () => {
  const r = parseRobotsTxt('User-agent: *\nDisallow: /\n\nUser-agent: Spinneret\nDisallow: /private\n', ROBOTS_URL);
  for (const ua of ['Spinneret', 'spinneret/1.0', 'SPINNERET/2.3 (+https://spinneret.example/bot)', 'Spinneret (+https://x.example/)']) {
    assert.equal(r.isAllowed('https://example.com/public', ua), true, ua);
    assert.equal(r.isAllowed('https://example.com/private/x', ua), false, ua);
  }
  assert.equal(r.isAllowed('https://example.com/public', 'Mozilla/5.0 (compatible; Other/1.0)'), false);
  assert.equal(r.isAllowed('https://example.com/public', 'SpinneretPlus/1.0'), false, 'no prefix matching');
  // A file-side token is read up to the first character outside [A-Za-z_-].
  const v = parseRobotsTxt('User-agent: Spinneret/1.0\nDisallow: /v\n', ROBOTS_URL);
  assert.equal(v.isAllowed('https://example.com/v', 'Spinneret/9'), false);
});

test('longest match wins, Allow wins ties, wildcards and end anchor', () => {
  const r = parseRobotsTxt(
    [
      'User-agent: *',
      'Disallow: /shop',
      'Allow: /shop/public',
      'Disallow: /*.pdf$',
      'Allow: /docs/*.pdf$',
      'Disallow: /tie',
      'Allow: /tie',
      'Disallow: /a*b*c',
      'Disallow: /end$x',
    ].join('\n'),
    ROBOTS_URL,
  );
  const ok = (p: string) => r.isAllowed('https://example.com' + p, 'bot');
  assert.equal(ok('/shop/cart'), false);
  assert.equal(ok('/shop/public/x'), true);
  assert.equal(ok('/files/x.pdf'), false);
  assert.equal(ok('/files/x.pdf?download'), true, '$ anchors the end, query included');
  assert.equal(ok('/docs/x.pdf'), true);
  assert.equal(ok('/tie/page'), true);
  assert.equal(ok('/a-then-b-then-c'), false);
  assert.equal(ok('/a-then-c-then-b'), true);
  assert.equal(ok('/end$x'), false, 'a $ that is not last is literal');
  assert.equal(ok('/end'), true);
});

test('many wildcards do not blow up (no regex backtracking)', () => {
  const r = parseRobotsTxt(`User-agent: *\nDisallow: /${'*a'.repeat(40)}b\n`, ROBOTS_URL);
  assert.equal(r.isAllowed('https://example.com/' + 'a'.repeat(5000), 'bot'), true);
  assert.equal(r.isAllowed('https://example.com/' + 'a'.repeat(50) + 'b', 'bot'), false);
});

test('percent-encoding is normalised on both sides', () => {
  const r = parseRobotsTxt('User-agent: *\nDisallow: /caf%c3%a9\nDisallow: /ツ\n', ROBOTS_URL);
  assert.equal(r.isAllowed('https://example.com/caf%C3%A9/menu', 'bot'), false);
  assert.equal(r.isAllowed('https://example.com/caf%c3%a9/menu', 'bot'), false);
  assert.equal(r.isAllowed('https://example.com/%E3%83%84', 'bot'), false);
  assert.equal(r.isAllowed('https://example.com/%e3%83%84', 'bot'), false);
  assert.equal(r.isAllowed('https://example.com/cafe', 'bot'), true);
});

test('/robots.txt is always allowed; empty and odd URLs never throw', () => {
  const r = parseRobotsTxt('User-agent: *\nDisallow: /\n', ROBOTS_URL);
  assert.equal(r.isAllowed('https://example.com/robots.txt', 'bot'), true);
  assert.equal(r.isAllowed('https://example.com/other', 'bot'), false);
  assert.doesNotThrow(() => r.isAllowed('', 'bot'));
  assert.doesNotThrow(() => r.isAllowed('::::', ''));
  assert.equal(parseRobotsTxt('', ROBOTS_URL).isAllowed('', ''), true);
  assert.equal(r.isAllowed('https://example.com#frag', 'bot'), false, 'no path means /');
});

test('BOM, CR/LF/CRLF, comments, lines without a colon, rules outside any group', () => {
  const body = '\ufeffDisallow: /orphan\r\nUser-agent: *  # everyone\rDisallow /a\n# Disallow: /b\nAllow: /a/ok # fine\r\nnonsense line here\n';
  const r = parseRobotsTxt(body, ROBOTS_URL);
  assert.equal(r.isAllowed('https://example.com/orphan', 'bot'), true);
  assert.equal(r.isAllowed('https://example.com/a', 'bot'), false);
  assert.equal(r.isAllowed('https://example.com/a/ok', 'bot'), true);
  assert.equal(r.isAllowed('https://example.com/b', 'bot'), true);
});

test('Sitemap lines count wherever they stand: resolved, deduplicated, http(s) only', () => {
  const r = parseRobotsTxt(
    [
      'Sitemap: https://example.com/sitemap.xml',
      'User-agent: *',
      'Sitemap: /relative-sitemap.xml # comment',
      'Disallow: /x',
      'sitemap: https://example.com/sitemap.xml',
      'Site-map: https://cdn.example.net/s.xml.gz',
      'Sitemap: ftp://example.com/no.xml',
      'Sitemap:',
      'User-agent: other',
      'SITEMAP : https://example.com/last.xml',
    ].join('\n'),
    ROBOTS_URL,
  );
  assert.deepEqual(r.sitemaps, [
    'https://example.com/sitemap.xml',
    'https://example.com/relative-sitemap.xml',
    'https://cdn.example.net/s.xml.gz',
    'https://example.com/last.xml',
  ]);
});

test('crawl-delay is per group', () => {
  const r = parseRobotsTxt(
    'User-agent: *\nCrawl-delay: 2\nDisallow: /x\n\nUser-agent: slow\nCrawl-delay: 10.5\n\nUser-agent: bad\nCrawl-delay: soon\n',
    ROBOTS_URL,
  );
  assert.equal(r.crawlDelay('anybot'), 2);
  assert.equal(r.crawlDelay('Slow/1.0'), 10.5);
  assert.equal(r.crawlDelay('bad'), undefined);
  assert.equal(parseRobotsTxt('', ROBOTS_URL).crawlDelay('x'), undefined);
});

test('a huge robots.txt is read up to the cap, cut at a whole line', () => {
  const filler = '# ' + 'x'.repeat(98) + '\n';
  const before = 'User-agent: *\nDisallow: /early\n';
  const lines = filler.repeat(Math.ceil(MAX_ROBOTS_CHARS / filler.length));
  const body = before + lines + 'Disallow: /late\n';
  assert.ok(body.length > MAX_ROBOTS_CHARS);
  const r = parseRobotsTxt(body, ROBOTS_URL);
  assert.equal(r.isAllowed('https://example.com/early', 'bot'), false);
  assert.equal(r.isAllowed('https://example.com/late', 'bot'), true, 'past the cap: not read');
  // A rule straddling the cap is dropped, not read half-written ("Disallow: /a" would block too much).
  const head = 'User-agent: *\n';
  const pad = '#'.repeat(MAX_ROBOTS_CHARS - 12 - head.length - 1) + '\n';
  const straddle = head + pad + 'Disallow: /abcdefghij-long-path-name\n';
  assert.equal(straddle.indexOf('Disallow'), MAX_ROBOTS_CHARS - 12);
  const s = parseRobotsTxt(straddle, ROBOTS_URL);
  assert.equal(s.isAllowed('https://example.com/abc', 'bot'), true);
  assert.equal(s.isAllowed('https://example.com/', 'bot'), true);
});

test('decodeRobotsBody: UTF-8, partial BOMs, Latin-1 fallback', () => {
  assert.equal(decodeRobotsBody(Buffer.from('\ufeffUser-agent: *', 'utf8')), 'User-agent: *');
  assert.equal(decodeRobotsBody(Buffer.from([0xef, 0xbb, 0x41])), 'A');
  assert.equal(decodeRobotsBody(Buffer.from('Disallow: /ツ', 'utf8')), 'Disallow: /ツ');
  // Not valid UTF-8: each byte becomes one Latin-1 character.
  assert.equal(decodeRobotsBody(Buffer.from([0x2f, 0x63, 0x61, 0x66, 0xe9])), '/caf\u00e9');
  const latin1 = decodeRobotsBody(Buffer.from('User-agent: *\nDisallow: /caf\xe9\nDisallow: /x\n', 'latin1'));
  const r = parseRobotsTxt(latin1, ROBOTS_URL);
  assert.equal(r.isAllowed('https://example.com/x', 'bot'), false, 'ASCII rules still work');
  assert.equal(r.isAllowed('https://example.com/caf%C3%A9', 'bot'), false, 'é is matched as UTF-8, as browsers send it');
});

// ---------------------------------------------------------------- fetching

interface FakeAnswer {
  status?: number;
  body?: Buffer | string;
  /** Throw this from fetch instead of answering. */
  error?: unknown;
  /** Fail while reading the body. */
  bodyError?: Error;
}

function fakeFetcher(answer: FakeAnswer): HttpFetcher & { calls: { url: string; opts?: FetchOptions }[] } {
  const calls: { url: string; opts?: FetchOptions }[] = [];
  return {
    calls,
    async fetch(url, opts) {
      calls.push({ url, opts });
      if (answer.error !== undefined) throw answer.error;
      const buf = Buffer.isBuffer(answer.body) ? answer.body : Buffer.from(answer.body ?? '', 'utf8');
      let read = 0;
      const chunks: Buffer[] = [];
      for (let i = 0; i < buf.length; i += 16 * 1024) chunks.push(buf.subarray(i, i + 16 * 1024));
      const body = answer.bodyError
        ? new Readable({
            read() {
              this.destroy(answer.bodyError);
            },
          })
        : Readable.from(
            (function* () {
              for (const c of chunks) {
                read += c.length;
                yield c;
              }
            })(),
          );
      const res: FetchResponse = {
        url,
        finalUrl: url,
        status: answer.status ?? 200,
        headers: { 'content-type': 'text/plain' },
        redirectChain: [],
        body,
        wireBytes: () => read,
        elapsedMs: () => 1,
      };
      return res;
    },
    close() {},
  };
}

test('fetchRobotsTxt: 2xx is parsed and the body kept for the checkpoint', async () => {
  const text = 'User-agent: *\nDisallow: /private\nSitemap: /sitemap.xml\n';
  const f = fakeFetcher({ status: 200, body: text });
  const res = await fetchRobotsTxt(f, ROBOTS_URL);
  assert.equal(f.calls[0]!.url, ROBOTS_URL);
  assert.equal(res.outcome, 'parsed');
  assert.equal(res.httpStatus, 200);
  assert.equal(res.body, text);
  assert.equal(res.problem, undefined);
  assert.equal(res.bytes, Buffer.byteLength(text));
  assert.equal(res.robots.isAllowed('https://example.com/private/x', 'bot'), false);
  assert.deepEqual(res.robots.sitemaps, ['https://example.com/sitemap.xml']);

  const again = robotsFromCheckpoint({ outcome: res.outcome, status: res.httpStatus, body: res.body }, ROBOTS_URL);
  assert.equal(again.isAllowed('https://example.com/private/x', 'bot'), false);
  assert.equal(again.isAllowed('https://example.com/public', 'bot'), true);
  assert.deepEqual(again.sitemaps, ['https://example.com/sitemap.xml']);
  const saved = { outcome: 'parsed' as const, body: text };
  assert.equal(robotsFromCheckpoint(saved), robotsFromCheckpoint(saved), 'parsed once per saved entry');
  // Without the URL only absolute sitemaps survive; the rules are the same.
  assert.deepEqual(robotsFromCheckpoint({ outcome: 'parsed', body: text }).sitemaps, []);
});

test('fetchRobotsTxt: 404 and 410 allow all silently; other 4xx allow all with an info problem', async () => {
  for (const status of [404, 410]) {
    const res = await fetchRobotsTxt(fakeFetcher({ status, body: 'User-agent: *\nDisallow: /\n' }), ROBOTS_URL);
    assert.equal(res.outcome, 'allow-all');
    assert.equal(res.httpStatus, status);
    assert.equal(res.problem, undefined);
    assert.equal(res.body, undefined);
    assert.equal(res.robots.isAllowed('https://example.com/anything', 'bot'), true);
  }
  for (const status of [401, 403, 451]) {
    const res = await fetchRobotsTxt(fakeFetcher({ status }), ROBOTS_URL);
    assert.equal(res.outcome, 'allow-all');
    assert.equal(res.problem?.code, 'ROBOTS_UNAVAILABLE');
    assert.match(res.problem!.message, new RegExp(`HTTP ${status}`));
    assert.equal(res.robots.isAllowed('https://example.com/anything', 'bot'), true);
  }
});

test('fetchRobotsTxt: 5xx, 429 and network failures disallow all and say why', async () => {
  const cases: [FakeAnswer, string][] = [
    [{ status: 500 }, 'HTTP 500'],
    [{ status: 503 }, 'HTTP 503'],
    [{ status: 429 }, 'HTTP 429'],
    [{ error: new EngineError('ECONNREFUSED', 'Connection refused by 127.0.0.1:9') }, 'Connection refused'],
    [{ error: new EngineError('ETIMEDOUT', 'No answer within 10 s') }, 'ETIMEDOUT'],
    [{ status: 200, bodyError: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) }, 'socket hang up'],
  ];
  for (const [answer, mention] of cases) {
    const res = await fetchRobotsTxt(fakeFetcher(answer), ROBOTS_URL);
    assert.equal(res.outcome, 'disallow-all', mention);
    assert.equal(res.problem?.code, 'ROBOTS_UNREACHABLE');
    assert.ok(res.problem!.message.includes(mention), res.problem!.message);
    assert.match(res.problem!.message, /RFC 9309/);
    assert.match(res.problem!.message, /disallowed/);
    assert.match(res.problem!.message, /respect robots\.txt/);
    assert.equal(res.robots.isAllowed('https://example.com/page', 'bot'), false);
    assert.equal(res.robots.isAllowed('https://example.com/robots.txt', 'bot'), true);
    assert.deepEqual(res.robots.sitemaps, []);
  }
  assert.equal(robotsFromCheckpoint({ outcome: 'disallow-all' }).isAllowed('https://example.com/x', 'bot'), false);
  assert.equal(robotsFromCheckpoint({ outcome: 'allow-all' }).isAllowed('https://example.com/x', 'bot'), true);
});

test('fetchRobotsTxt: an aborted fetch is rethrown, not read as "unreachable"', async () => {
  const ac = new AbortController();
  ac.abort();
  const err = new EngineError('ABORTED', 'Crawl stopped');
  await assert.rejects(fetchRobotsTxt(fakeFetcher({ error: err }), ROBOTS_URL, { signal: ac.signal }), err);
});

test('fetchRobotsTxt: a body past maxBytes is cut at a line end and reported', async () => {
  const head = 'User-agent: *\nDisallow: /early\n';
  const filler = ('# ' + 'é'.repeat(40) + '\n').repeat(200); // multi-byte characters around the cut
  const body = head + filler + 'Disallow: /late\n';
  const maxBytes = 4000;
  const res = await fetchRobotsTxt(fakeFetcher({ status: 200, body }), ROBOTS_URL, { maxBytes });
  assert.equal(res.outcome, 'parsed');
  assert.equal(res.problem?.code, 'ROBOTS_TRUNCATED');
  assert.ok(Buffer.byteLength(res.body!) <= maxBytes);
  assert.ok(res.body!.endsWith('\n'));
  assert.ok(!res.body!.includes('\ufffd'), 'no character cut in half');
  assert.ok(!res.body!.includes('Ã'), 'still decoded as UTF-8');
  assert.equal(res.robots.isAllowed('https://example.com/early', 'bot'), false);
  assert.equal(res.robots.isAllowed('https://example.com/late', 'bot'), true);
});

test('fetchRobotsTxt: non-UTF-8 bytes are read as Latin-1', async () => {
  const res = await fetchRobotsTxt(fakeFetcher({ status: 200, body: Buffer.from('User-agent: *\nDisallow: /\xe9t\xe9\n', 'latin1') }), ROBOTS_URL);
  assert.equal(res.body, 'User-agent: *\nDisallow: /\u00e9t\u00e9\n');
  assert.equal(res.robots.isAllowed('https://example.com/%C3%A9t%C3%A9', 'bot'), false);
});
