/**
 * The benchmark site, run in a child process (forked with IPC) so that its CPU and memory stay out
 * of the measured process. Two listeners on 127.0.0.1:
 *   - the sitemap site: robots.txt → sitemap index → gzipped urlsets (and the pages they list);
 *   - the page site: the same linked pages, with a robots.txt that announces no sitemap, so a page
 *     crawl from `/` fetches exactly the linked pages.
 * Messages to the parent: {type:'ready', …} once listening, {type:'hit', path, at} for every
 * request on the sitemap site that is not a page (robots, index, urlsets), {type:'counts', …} on ask.
 * The index and the urlsets answer with an ETag and a Last-Modified, and 304 to a request whose
 * If-None-Match (or, without one, If-Modified-Since) matches: a recrawl's conditional requests.
 */
import { createHash } from 'node:crypto';
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
  /** Sitemap requests answered 304 Not Modified. */
  notModified: number;
}

const PAGE_PATH = /^\/p\/(\d+)\.html$/;

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** The validators the site answers a sitemap with: an ETag of its bytes, and a fixed Last-Modified. */
interface Validated {
  body: Buffer;
  etag: string;
}
const LAST_MODIFIED = new Date(Date.UTC(2024, 0, 1)).toUTCString();

function validated(body: Buffer): Validated {
  return { body, etag: `"${createHash('sha1').update(body).digest('hex').slice(0, 20)}"` };
}

/** A sitemap's answer: 304 when the request's validators match, else the body with its validators. */
function sendSitemap(req: IncomingMessage, res: ServerResponse, type: string, v: Validated, counts: SiteCounts): void {
  const inm = req.headers['if-none-match'];
  const ims = req.headers['if-modified-since'];
  const same = inm !== undefined ? inm === v.etag : ims !== undefined && Date.parse(ims) >= Date.parse(LAST_MODIFIED);
  if (same) {
    counts.notModified++;
    res.writeHead(304, { etag: v.etag, 'last-modified': LAST_MODIFIED });
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': type, 'content-length': String(v.body.length), etag: v.etag, 'last-modified': LAST_MODIFIED });
  res.end(v.body);
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
  const byPath = new Map<string, Validated>();
  for (const s of [...site.sitemaps, site.tail]) byPath.set(s.path, validated(s.gz));
  const index = validated(site.index);
  const counts: SiteCounts = { type: 'counts', pageHits: 0, sitemapSiteHits: 0, notFound: 0, notModified: 0 };

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
    if (path === '/sitemap_index.xml') return sendSitemap(req, res, 'application/xml', index, counts);
    const sm = byPath.get(path);
    if (sm) return sendSitemap(req, res, 'application/x-gzip', sm, counts);
    counts.notFound++;
    send(res, 404, 'text/plain', 'not found');
  });

  pageServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') return send(res, 200, 'text/plain', 'User-agent: *\nDisallow: /cart/\nAllow: /\n');
    if (page(pageOrigin, path, res)) {
      // Pages fetched: the crawler's HEAD probe of where the start URL redirects is not one.
      if (req.method !== 'HEAD') counts.pageHits++;
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
      counts.notModified = 0;
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
