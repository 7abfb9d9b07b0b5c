import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  hostOf,
  inSitemapScope,
  isHttpUrl,
  originOf,
  canonicalHostOf,
  resolveUrl,
  robotsUrlFor,
  toUniqueKey,
  toUniqueKeyFull,
  tryUniqueKey,
} from '../../electron/engine/frontier/url.js';
import { EngineError } from '../../electron/engine/types.js';
import { inScope, registrableDomain, scopeTest } from '../../electron/engine/frontier/scope.js';

test('toUniqueKey folds scheme/host case, default port, fragment and dot segments', () => {
  assert.equal(toUniqueKey('HTTP://Example.COM:80/a/./b/../c#x'), 'http://example.com/a/c');
  assert.equal(toUniqueKey('http://example.com/a/c'), 'http://example.com/a/c');
  assert.equal(toUniqueKey('https://example.com:443/'), 'https://example.com/');
  assert.equal(toUniqueKey('https://example.com:80/'), 'https://example.com:80/');
  assert.equal(toUniqueKey('http://example.com:8080/x'), 'http://example.com:8080/x');
  assert.equal(toUniqueKey('http://example.com/a/b/..'), 'http://example.com/a/');
  assert.equal(toUniqueKey('http://example.com/a/%2e%2E/b'), 'http://example.com/b');
});

test('toUniqueKey keeps query order, trailing slash and path case apart', () => {
  const distinct = [
    ['http://example.com/c', 'http://example.com/c/'],
    ['http://example.com/p?a=1&b=2', 'http://example.com/p?b=2&a=1'],
    ['http://example.com/Page', 'http://example.com/page'],
    ['http://example.com/', 'https://example.com/'],
    ['http://www.example.com/', 'http://example.com/'],
  ];
  for (const [a, b] of distinct) assert.notEqual(toUniqueKey(a!), toUniqueKey(b!), `${a} vs ${b}`);
});

test('toUniqueKey gives an empty path as / and drops an empty query', () => {
  assert.equal(toUniqueKey('http://example.com'), 'http://example.com/');
  assert.equal(toUniqueKey('http://example.com?'), 'http://example.com/');
  assert.equal(toUniqueKey('http://example.com/p?'), 'http://example.com/p');
  assert.equal(toUniqueKey('http://example.com/p?#frag'), 'http://example.com/p');
  assert.equal(toUniqueKey('http://example.com/p?x'), 'http://example.com/p?x');
});

test('toUniqueKey normalises percent-encoding', () => {
  // Unreserved characters decoded, others uppercased, raw spaces and non-ASCII escaped.
  assert.equal(toUniqueKey('http://example.com/%7Euser/%41%2d%5f'), 'http://example.com/~user/A-_');
  assert.equal(toUniqueKey('http://example.com/a%2fb%3a'), 'http://example.com/a%2Fb%3A');
  assert.equal(toUniqueKey('http://example.com/caf\u00e9 menu'), 'http://example.com/caf%C3%A9%20menu');
  assert.equal(toUniqueKey('http://example.com/caf%c3%a9%20menu'), 'http://example.com/caf%C3%A9%20menu');
  assert.equal(toUniqueKey('http://example.com/s?q=a b&r=%7e%2b'), 'http://example.com/s?q=a%20b&r=~%2B');
  // A lone % is left as written, as WHATWG leaves it.
  assert.equal(toUniqueKey('http://example.com/100%/x'), 'http://example.com/100%/x');
  // Escapes in the host are decoded by WHATWG.
  assert.equal(toUniqueKey('http://ex%61mple.com/'), 'http://example.com/');
});

test('toUniqueKey turns an IDN host into punycode', () => {
  assert.equal(toUniqueKey('http://Bücher.example/Straße'), 'http://xn--bcher-kva.example/Stra%C3%9Fe');
  assert.equal(toUniqueKey('http://xn--bcher-kva.example/'), 'http://xn--bcher-kva.example/');
});

test('toUniqueKey rejects unparsable and non-http(s) URLs with INVALID_URL', () => {
  for (const bad of ['', 'not a url', '/relative/path', 'ftp://example.com/', 'mailto:a@b.c', 'javascript:alert(1)', 'http://']) {
    assert.throws(
      () => toUniqueKey(bad),
      (e: unknown) => e instanceof EngineError && e.code === 'INVALID_URL' && e.message.length > 0,
      bad,
    );
    assert.equal(tryUniqueKey(bad), null, bad);
  }
  assert.equal(tryUniqueKey('HTTP://A.COM'), 'http://a.com/');
});

test('the fast path never disagrees with the full normalisation', () => {
  const tricky = [
    'http://example.com/a/b',
    'http://example.com/a/./b',
    'http://example.com/a/../b',
    'http://example.com/a/..',
    'http://example.com/.a/..b/...',
    'http://example.com:80/x',
    'https://example.com:443/x',
    'http://example.com:0080/x',
    'http://example.com:65536/x',
    'http://example.com:08080/x',
    'http://1.2.3/x',
    'http://0x7f.1/x',
    'http://a.0x1/',
    'http://example.com./x',
    'http://xn--bcher-kva.example/',
    'http://xn--invalid-.example/',
    'http://ex.com//double//slash/',
    "http://ex.com/it's",
    "http://ex.com/?q='x'",
    'http://ex.com/a^b|c[d]{e}`f',
    'http://ex.com/?a^b|c[d]{e}`f',
    'http://ex.com/a\\b',
    'http://ex.com/p?',
    'http://user:pw@ex.com/p',
    'http://ex.com/;params=1;x/?q=1/2?3',
  ];
  for (const url of tricky) {
    let full: string;
    try {
      full = toUniqueKeyFull(url);
    } catch {
      assert.equal(tryUniqueKey(url), null, url);
      continue;
    }
    const fast = toUniqueKey(url);
    assert.equal(fast, full, url);
    assert.equal(toUniqueKey(full), full, `idempotent: ${url}`);
  }
});

test('the fast path agrees with the full normalisation over random URLs in random order (what it remembers between calls included)', () => {
  let seed = 5;
  const pick = <T>(xs: readonly T[]): T => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return xs[(seed >>> 8) % xs.length]!;
  };
  const schemes = ['http://', 'https://', 'HTTP://', 'Https://'];
  const users = ['', '', '', 'user@', 'u:p@'];
  const hosts = [
    'example.com',
    'example.com',
    'www.example.com',
    'EXAMPLE.com',
    'xn--bcher-kva.example',
    'xn--invalid-.example',
    '127.0.0.1',
    '0x7f.1',
    'a.b9',
    'example.com.',
    'ex_ample.com',
    '[::1]',
    'a-.b',
  ];
  const ports = ['', '', '', ':80', ':443', ':8080', ':080', ':65536', ':0', ':'];
  const paths = [
    '/',
    '/a/b',
    '/a/./b',
    '/a/../b',
    '/.',
    '/..',
    '/a/.',
    '/a%20b',
    '/a%7e',
    '/A%2fB',
    '/ünï',
    '/a b',
    '/a"b',
    '/a\\b',
    '//x',
    '/a;b=c',
    '/~user',
    '/a^b',
    '',
    '/a%2',
    '/.hidden',
    '/a..b',
    '/p/',
  ];
  const queries = ['', '', '?', '?a=1', '?a=1&b=2', '?a b', '?a=%7E', '?q=/x?y', '?a="b"', '?é'];
  const fragments = ['', '', '#f', '#'];
  let origin = '';
  for (let i = 0; i < 20_000; i++) {
    // Half the time the origin of the URL before (as in a sitemap), whatever became of that one.
    if (origin === '' || pick([true, false])) origin = pick(schemes) + pick(users) + pick(hosts) + pick(ports);
    const url = origin + pick(paths) + pick(queries) + pick(fragments);
    let full: string | null;
    try {
      full = toUniqueKeyFull(url);
    } catch {
      full = null;
    }
    assert.equal(tryUniqueKey(url), full, url);
  }
});

test('resolveUrl resolves like a browser and refuses non-http schemes', () => {
  const base = 'https://example.com/dir/page.html?x=1';
  assert.equal(resolveUrl('other.html', base), 'https://example.com/dir/other.html');
  assert.equal(resolveUrl('../up', base), 'https://example.com/up');
  assert.equal(resolveUrl('/root#frag', base), 'https://example.com/root#frag');
  assert.equal(resolveUrl('//cdn.example.net/x', base), 'https://cdn.example.net/x');
  assert.equal(resolveUrl('?y=2', base), 'https://example.com/dir/page.html?y=2');
  assert.equal(resolveUrl('  \n /trimmed \t', base), 'https://example.com/trimmed');
  assert.equal(resolveUrl('/in\nside\tbroken', base), 'https://example.com/insidebroken');
  assert.equal(resolveUrl('HTTP://Other.Example/', base), 'http://other.example/');
  for (const href of [
    'javascript:void(0)',
    ' JavaScript:alert(1)',
    'java\nscript:alert(1)',
    'mailto:a@b.c',
    'tel:+331',
    'data:text/html,x',
    'ftp://x/',
    '',
    '   ',
    'http://',
  ]) {
    assert.equal(resolveUrl(href, base), null, JSON.stringify(href));
  }
  assert.equal(resolveUrl('x', 'not a base'), null);
});

test('resolveUrl, canonicalHostOf and scopeTest agree with WHATWG parsing over random links and bases', () => {
  let seed = 11;
  const pick = <T>(xs: readonly T[]): T => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return xs[(seed >>> 8) % xs.length]!;
  };
  const origins = [
    'https://example.com',
    'http://example.com:8080',
    'https://www.example.com',
    'https://EXAMPLE.com',
    'https://example.com:443',
    'http://example.com.',
    'https://xn--bcher-kva.example',
    'https://u:p@example.com',
    'http://127.0.0.1:9000',
    'http://[::1]:81',
    'https://blog.example.org',
  ];
  const paths = [
    '/',
    '/a/b',
    '/a/./b',
    '/a/../b',
    '/..',
    '/a%20b',
    '/ünï',
    '/a b',
    '/a\\b',
    '//x/y',
    '/p?',
    '/p?q=1&r=/x',
    '/p#f',
    '/p?a#',
    '/a;b',
    "/a'b",
    '/a"b',
    '',
  ];
  const hrefs = ['', 'rel/x', '../up', '?y=2', '#top', ' /trimmed ', '/in\nside', 'mailto:a@b.c', '//cdn.example.net/x', '/', '/a/b?c=d'];
  const hosts = (url: string) => {
    try {
      const u = new URL(url);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.hostname : null;
    } catch {
      return null;
    }
  };
  const whatwg = (href: string, base: string) => {
    const cleaned = href.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
    if (cleaned === '' || (/^[a-z][a-z0-9+.-]*:/i.test(cleaned) && !/^https?:/i.test(cleaned))) return null;
    try {
      const u = new URL(cleaned, base);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
    } catch {
      return null;
    }
  };
  const inHost = scopeTest('https://example.com/', 'host', ['www.example.com']);
  const inDomain = scopeTest('https://example.com/', 'domain');
  let fast = 0;
  for (let i = 0; i < 20_000; i++) {
    const base = pick(origins) + pick(paths);
    const r = pick([0, 1, 2]);
    const href = r === 0 ? pick(origins) + pick(paths) : r === 1 ? pick(paths) : pick(hrefs);
    assert.equal(resolveUrl(href, base), whatwg(href, base), `${JSON.stringify(href)} on ${base}`);
    for (const url of [href, base]) {
      const host = canonicalHostOf(url);
      if (host !== null) {
        fast++;
        assert.equal(host, hosts(url), url);
      }
      const h = hosts(url);
      assert.equal(inHost(url), h === 'example.com' || h === 'www.example.com', url);
      assert.equal(inDomain(url), h !== null && registrableDomain(h) === 'example.com', url);
    }
  }
  assert.ok(fast > 2_000, `the text path read ${fast} hosts`);
});

test('isHttpUrl, hostOf, originOf, robotsUrlFor', () => {
  assert.equal(isHttpUrl('https://example.com/x'), true);
  assert.equal(isHttpUrl('HTTP://example.com'), true);
  assert.equal(isHttpUrl('ftp://example.com/'), false);
  assert.equal(isHttpUrl('example.com'), false);
  assert.equal(isHttpUrl('http://'), false);
  assert.equal(hostOf('https://WWW.Example.com:8443/x'), 'www.example.com');
  assert.equal(originOf('https://WWW.Example.com:443/x?y'), 'https://www.example.com');
  assert.equal(originOf('http://127.0.0.1:8080/x'), 'http://127.0.0.1:8080');
  assert.equal(robotsUrlFor('https://example.com/deep/page?q#f'), 'https://example.com/robots.txt');
  assert.equal(robotsUrlFor('http://example.com:81/deep/page'), 'http://example.com:81/robots.txt');
  assert.throws(
    () => hostOf('nope'),
    (e: unknown) => e instanceof EngineError && e.code === 'INVALID_URL',
  );
  assert.throws(
    () => robotsUrlFor('ftp://x/'),
    (e: unknown) => e instanceof EngineError && e.code === 'INVALID_URL',
  );
});

test('registrableDomain uses the public suffix list', () => {
  assert.equal(registrableDomain('www.example.com'), 'example.com');
  assert.equal(registrableDomain('shop.example.co.uk'), 'example.co.uk');
  assert.equal(registrableDomain('WWW.EXAMPLE.COM.'), 'example.com');
  assert.equal(registrableDomain('alice.github.io'), 'alice.github.io');
  assert.equal(registrableDomain('127.0.0.1'), '127.0.0.1');
  assert.equal(registrableDomain('localhost'), 'localhost');
  assert.equal(registrableDomain('[::1]'), '[::1]');
});

test('inScope by host, domain and any', () => {
  const start = 'https://www.example.com/';
  assert.equal(inScope('http://www.example.com/x', start, 'host'), true);
  assert.equal(inScope('https://WWW.EXAMPLE.COM:8443/x', start, 'host'), true);
  assert.equal(inScope('https://example.com/x', start, 'host'), false, 'www and apex are different hosts');
  assert.equal(inScope('https://blog.example.com/x', start, 'host'), false);
  assert.equal(inScope('https://example.com/x', start, 'domain'), true);
  assert.equal(inScope('https://blog.example.com/x', start, 'domain'), true);
  assert.equal(inScope('https://example.org/x', start, 'domain'), false);
  assert.equal(inScope('https://notexample.com/x', start, 'domain'), false);
  assert.equal(inScope('https://other.net/', start, 'any'), true);
  assert.equal(inScope('mailto:a@b.c', start, 'any'), false);
  assert.equal(inScope('garbage', start, 'any'), false);
  assert.equal(inScope('http://127.0.0.1:9/x', 'http://127.0.0.1:8/', 'host'), true);
  assert.equal(inScope('http://127.0.0.2/x', 'http://127.0.0.1/', 'domain'), false);
});

test('scopeTest with the hosts a start URL redirects through', () => {
  // http://example.com/ → https://www.example.com/: both hosts are the site's.
  const host = scopeTest('http://example.com/', 'host', ['www.example.com']);
  assert.equal(host('https://www.example.com/a'), true);
  assert.equal(host('http://example.com/b'), true);
  assert.equal(host('https://blog.example.com/'), false);
  // example.com → example.co.uk: by domain, both domains and their subdomains.
  const domain = scopeTest('https://example.com/', 'domain', ['www.example.co.uk']);
  assert.equal(domain('https://shop.example.co.uk/x'), true);
  assert.equal(domain('https://blog.example.com/x'), true);
  assert.equal(domain('https://example.org/x'), false);
});

test('inSitemapScope applies the sitemaps.org location rule', () => {
  const sm = 'https://example.com/catalog/sitemap.xml';
  assert.equal(inSitemapScope('https://example.com/catalog/item1', sm), true);
  assert.equal(inSitemapScope('https://example.com/catalog/sub/item2', sm), true);
  assert.equal(inSitemapScope('https://example.com/catalog/', sm), true);
  assert.equal(inSitemapScope('https://example.com/catalog', sm), false);
  assert.equal(inSitemapScope('https://example.com/other/item', sm), false);
  assert.equal(inSitemapScope('https://example.com/catalog/../other', sm), false);
  assert.equal(inSitemapScope('http://example.com/catalog/item', sm), false, 'scheme differs');
  assert.equal(inSitemapScope('https://www.example.com/catalog/item', sm), false, 'host differs');
  assert.equal(inSitemapScope('https://example.com:8443/catalog/item', sm), false, 'port differs');
  assert.equal(inSitemapScope('https://EXAMPLE.com:443/catalog/item', sm), true, 'same after normalisation');
  const root = 'https://example.com/sitemap.xml';
  assert.equal(inSitemapScope('https://example.com/anything/at/all', root), true);
  assert.equal(inSitemapScope('https://example.com.evil.net/x', root), false);
  assert.equal(inSitemapScope('not a url', root), false);
  assert.equal(inSitemapScope('https://example.com/x', 'not a url'), false);
});
