/**
 * Redirects as rows: a page fetch keeps the URL's own 3xx and Location and queues the target as a
 * URL of its own; what a page refers to is told apart (an <a> is a link, a canonical is not); and
 * where redirects are still followed (sitemaps), each hop is checked against the crawl's scope and
 * robots.txt before it is sent, and the chain is kept on the sitemap's tree node.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SitemapNode, UrlResult } from '../../shared/model.js';
import { Crawler } from '../../electron/engine/crawler/crawler.js';
import type { Discovery, Request } from '../../electron/engine/types.js';
import { startLocalServer, type LocalServer } from '../fixtures/server.js';
import { BUILTIN_DEFAULTS } from '../../electron/service/catalog/settings.js';

const html = (body: string, head = '') => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

function site(other: () => LocalServer): Promise<LocalServer> {
  return startLocalServer(({ res, path }, server) => {
    const o = server.origin;
    const page = (body: string, head = '') => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html(body, head));
    };
    const redirect = (status: number, location: string) => {
      res.writeHead(status, { location, 'content-type': 'text/html' });
      res.end('<a href="' + location + '">moved</a>');
    };
    const xml = (body: string) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${body}</urlset>`);
    };
    switch (path) {
      case '/robots.txt':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`User-agent: *\nDisallow: /private/\nSitemap: ${o}/sm-moved.xml\nSitemap: ${o}/sm-private.xml\nSitemap: ${o}/sm-away.xml\n`);
        return;
      case '/':
        // Self-canonical, a link to itself, a rel=next <link> also linked by an <a>, and a canonical elsewhere.
        return page(
          `<a href="/">home</a><a href="/promo">promo</a><a href="/page/2">2</a><a href="/out">out</a>`,
          `<link rel="canonical" href="${o}/"><link rel="next" href="/page/2"><link rel="alternate" hreflang="de" href="/de/">`,
        );
      case '/page/2':
        return page('<a href="/">home</a>', `<link rel="canonical" href="${o}/page/2"><link rel="prev" href="/">`);
      case '/de/':
        return page('', `<link rel="canonical" href="${o}/de/">`);
      case '/promo':
        return redirect(301, '/promo-2024/');
      case '/promo-2024/':
        return redirect(301, `${o}/offers/`);
      case '/offers/':
        return redirect(302, 'summer/');
      case '/offers/summer/':
        return page('<a href="/">home</a>');
      case '/out':
        return redirect(301, `${other().origin.replace('127.0.0.1', 'localhost')}/elsewhere`);
      case '/sm-moved.xml':
        return redirect(301, '/sitemaps/real.xml');
      case '/sitemaps/real.xml':
        return xml(`<url><loc>${o}/offers/summer/</loc></url>`);
      case '/sm-private.xml':
        return redirect(301, '/private/sm.xml');
      case '/private/sm.xml':
        return xml(`<url><loc>${o}/private/listed</loc></url>`);
      case '/sm-away.xml':
        return redirect(302, `${other().origin.replace('127.0.0.1', 'localhost')}/sm.xml`);
      default:
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('not found');
    }
  });
}

describe('redirects are rows; references are told apart; followed hops are checked', () => {
  let server: LocalServer;
  let away: LocalServer;
  const admitted = new Map<string, Request>();
  const results = new Map<string, UrlResult>();
  const dups: { url: string; d: Discovery }[] = [];
  const nodes = new Map<string, SitemapNode>();
  const byId = new Map<number, string>();

  before(async () => {
    away = await startLocalServer(({ res }) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>');
    });
    server = await site(() => away);
    const crawler = new Crawler({
      settings: {
        ...BUILTIN_DEFAULTS,
        startUrl: server.origin + '/',
        userAgent: 'SpinneretTest/1.0',
        timeoutMs: 2000,
        connectTimeoutMs: 1000,
        retries: 0,
      },
      hooks: {
        onAdmitted: (req) => {
          admitted.set(req.url, req);
          byId.set(req.id, req.url);
        },
        onDuplicate: (id, d) => dups.push({ url: byId.get(id)!, d }),
        onResult: (req, _state, r) => results.set(req.url, r),
        onNode: (n) => nodes.set(n.url, n),
      },
    });
    assert.equal(await crawler.run(), 'finished');
  });
  after(async () => {
    await server.close();
    await away.close();
  });

  const u = (p: string) => server.origin + p;

  it('records each hop as a URL of its own, with its own 3xx and Location, fetched once', () => {
    const answers = ['/promo', '/promo-2024/', '/offers/', '/offers/summer/'].map((p) => [results.get(u(p))?.status, results.get(u(p))?.redirectTo]);
    assert.deepEqual(answers, [
      [301, u('/promo-2024/')],
      [301, u('/offers/')],
      [302, u('/offers/summer/')], // a relative Location, resolved against the URL
      [200, undefined],
    ]);
    for (const p of ['/promo', '/promo-2024/', '/offers/', '/offers/summer/']) assert.equal(server.hits.get(p), 1, p);
    const target = admitted.get(u('/promo-2024/'))!;
    assert.equal(target.source, 'redirect');
    assert.equal(target.discoveredFrom, u('/promo'));
    assert.equal(target.depth, admitted.get(u('/promo'))!.depth, 'a redirect is not a click');
    assert.equal(results.get(u('/promo'))!.redirectChain, undefined);
  });

  it('a redirect out of scope queues its target as listed only, never fetched', () => {
    assert.equal(results.get(u('/out'))?.status, 301);
    const target = [...admitted.values()].find((r) => r.url.includes('/elsewhere'));
    assert.equal(target?.source, 'redirect');
    assert.equal(away.hits.get('/elsewhere'), undefined);
  });

  it('tells an <a> from a canonical, hreflang and rel=next, and reports no reference of a page to itself', () => {
    // Home's self-canonical and its link to itself are no discoveries at all.
    const toHome = [...dups.filter((x) => x.url === u('/')).map((x) => x.d)];
    assert.deepEqual(
      toHome.map((d) => `${d.source} ${d.from}`),
      [`link ${u('/page/2')}`, `link ${u('/offers/summer/')}`].sort().filter((x) => toHome.some((d) => `${d.source} ${d.from}` === x)),
    );
    assert.ok(!toHome.some((d) => d.from === u('/')), 'a page does not discover itself');
    assert.ok(toHome.some((d) => d.source === 'link' && d.from === u('/page/2')));
    assert.ok(!toHome.some((d) => d.source === 'reference'), "page 2's rel=prev to home is a reference, deduplicated with its <a>");
    // /page/2 is both <link rel=next> and <a> on home: an anchor, so a link.
    assert.equal(admitted.get(u('/page/2'))?.source, 'link');
    assert.equal(admitted.get(u('/de/'))?.source, 'hreflang');
  });

  it('a sitemap redirect is followed and its chain kept on the node', () => {
    const n = nodes.get(u('/sm-moved.xml'))!;
    assert.equal(n.state, 'done');
    assert.equal(n.finalUrl, u('/sitemaps/real.xml'));
    assert.deepEqual(n.redirectChain, [{ url: u('/sm-moved.xml'), status: 301 }]);
  });

  it('a sitemap hop into a path robots.txt disallows is not fetched', () => {
    const n = nodes.get(u('/sm-private.xml'))!;
    assert.equal(n.state, 'error');
    assert.ok(
      n.problems.some((p) => p.code === 'REDIRECT_DISALLOWED'),
      JSON.stringify(n.problems),
    );
    assert.equal(server.hits.get('/private/sm.xml'), undefined);
  });

  it('a sitemap hop to another host is not attempted', () => {
    const n = nodes.get(u('/sm-away.xml'))!;
    assert.equal(n.state, 'error');
    assert.ok(
      n.problems.some((p) => p.code === 'REDIRECT_OUT_OF_SCOPE'),
      JSON.stringify(n.problems),
    );
    assert.equal(away.hits.get('/sm.xml'), undefined);
  });
});
