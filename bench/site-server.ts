/**
 * The benchmark site, run in a child process (forked with IPC) so that its CPU and memory stay out
 * of the measured process. Two listeners on 127.0.0.1:
 *   - the sitemap site: robots.txt → sitemap index → gzipped urlsets (and the pages they list);
 *   - the page site: the same linked pages, with a robots.txt that announces no sitemap, so a page
 *     crawl from `/` fetches exactly the linked pages.
 * Messages to the parent: {type:'ready', …} once listening, {type:'hit', path, at} for every
 * request on the sitemap site that is not a page (robots, index, urlsets), {type:'counts', …} on ask.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSite, pageHtml, type BuiltSitemap } from './site-data.js';

/** Sent by the parent as the first message. */
export interface SiteServerConfig {
  host: string;
  urls: number;
  pages: number;
  tail: number;
}

export interface SiteReady {
  type: 'ready';
  sitemapOrigin: string;
  pageOrigin: string;
  sitemaps: { path: string; gzBytes: number; bytes: number; entries: number }[];
  tail: { path: string; gzBytes: number; bytes: number; entries: number };
  distinct: number;
  duplicates: number;
  buildMs: number;
  rssMB: number;
}

export interface SiteHit {
  type: 'hit';
  path: string;
  /** Date.now() when the request arrived. */
  at: number;
}

export interface SiteCounts {
  type: 'counts';
  pageHits: number;
  sitemapSiteHits: number;
  notFound: number;
}

const PAGE_PATH = /^\/p\/(\d+)\.html$/;

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function send(res: ServerResponse, status: number, type: string, body: Buffer | string): void {
  const buf = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, { 'content-type': type, 'content-length': String(buf.length) });
  res.end(buf);
}

async function main(config: SiteServerConfig): Promise<void> {
  const sitemapServer = createServer();
  const pageServer = createServer();
  // Ports first: the sitemaps name their origin, port included.
  const sitemapPort = await listen(sitemapServer);
  const pagePort = await listen(pageServer);
  const sitemapOrigin = `http://${config.host}:${sitemapPort}`;
  const pageOrigin = `http://${config.host}:${pagePort}`;

  const t0 = performance.now();
  const site = buildSite({ origin: sitemapOrigin, urls: config.urls, pages: config.pages, tail: config.tail });
  const buildMs = performance.now() - t0;
  const byPath = new Map<string, BuiltSitemap>();
  for (const s of [...site.sitemaps, site.tail]) byPath.set(s.path, s);
  const counts: SiteCounts = { type: 'counts', pageHits: 0, sitemapSiteHits: 0, notFound: 0 };

  function page(origin: string, path: string, res: ServerResponse): boolean {
    let i = -1;
    if (path === '/') i = 0;
    else {
      const m = PAGE_PATH.exec(path);
      if (m) i = Number(m[1]);
    }
    if (i < 0 || i >= config.pages || (i === 0 && path !== '/')) return false;
    send(res, 200, 'text/html; charset=utf-8', pageHtml(origin, i, config.pages));
    return true;
  }

  sitemapServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    counts.sitemapSiteHits++;
    if (page(sitemapOrigin, path, res)) return;
    process.send?.({ type: 'hit', path, at: Date.now() } satisfies SiteHit);
    if (path === '/robots.txt') return send(res, 200, 'text/plain', site.robots);
    if (path === '/sitemap_index.xml') return send(res, 200, 'application/xml', site.index);
    const sm = byPath.get(path);
    if (sm) return send(res, 200, 'application/x-gzip', sm.gz);
    counts.notFound++;
    send(res, 404, 'text/plain', 'not found');
  });

  pageServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') return send(res, 200, 'text/plain', 'User-agent: *\nDisallow: /cart/\nAllow: /\n');
    if (page(pageOrigin, path, res)) {
      counts.pageHits++;
      return;
    }
    counts.notFound++;
    send(res, 404, 'text/plain', 'not found');
  });

  process.on('message', (msg: { type?: string }) => {
    if (msg?.type === 'counts') process.send?.({ ...counts });
    else if (msg?.type === 'reset-counts') {
      counts.pageHits = 0;
      counts.sitemapSiteHits = 0;
      counts.notFound = 0;
    } else if (msg?.type === 'exit') process.exit(0);
  });
  // The parent went away: nothing left to serve.
  process.on('disconnect', () => process.exit(0));

  const describe = (s: BuiltSitemap) => ({ path: s.path, gzBytes: s.gz.length, bytes: s.bytes, entries: s.entries });
  const ready: SiteReady = {
    type: 'ready',
    sitemapOrigin,
    pageOrigin,
    sitemaps: site.sitemaps.map(describe),
    tail: describe(site.tail),
    distinct: site.distinct,
    duplicates: site.duplicates,
    buildMs,
    rssMB: process.memoryUsage().rss / 1e6,
  };
  process.send?.(ready);
}

process.once('message', (config: SiteServerConfig) => {
  main(config).catch((err) => {
    console.error(err);
    process.exit(1);
  });
});
