/**
 * Browser mode: an HTTP server on 127.0.0.1 that serves the built renderer and carries the contract
 * over a WebSocket. A random token, printed in the page URL, is required for the page, the WebSocket,
 * downloads (CSV exports, crawl files) and uploads (a crawl file to open); Host and Origin are
 * checked so another site (DNS rebinding) cannot drive it.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ServiceError } from '../service/errors.js';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transform, type Duplex, type Writable } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { TransportErrorCode, WS_PATH, WsCallSchema, fail, type EventName, type ExportResult, type WsServerMessage } from '../../shared/contract.js';
import type { CrawlService } from '../service/types.js';
import { createDispatcher, createHandlers, forwardServiceEvents, type Dispatch } from '../renderer-host/dispatch.js';
import {
  CSV_CONTENT_TYPE,
  DownloadRegistry,
  UploadRegistry,
  compareFileName,
  crawlFileName,
  exportFileName,
  linksFileName,
} from '../renderer-host/downloads.js';
import { CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from '../renderer-host/security-headers.js';
import { isPage, mimeType, resolveStaticPath } from '../renderer-host/static-files.js';

export interface WebServerOptions {
  service: CrawlService;
  /** The built renderer (dist/renderer). */
  rendererDir: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Fixed token (tests); a random one otherwise. */
  token?: string;
  /** Validate every result against the contract (tests). */
  checkResults?: boolean;
  /** How long an export stays downloadable. */
  downloadTtlMs?: number;
  /** How long an upload URL (importCrawl) stays usable. Default 10 minutes. */
  uploadTtlMs?: number;
  /** The largest crawl file an upload may send. Default 4 GiB. */
  maxUploadBytes?: number;
}

export interface WebServer {
  /** The page URL to open, token included. */
  url: string;
  port: number;
  token: string;
  /** The dispatch function behind the socket (for tests that compare transports). */
  dispatch: Dispatch;
  /** Closes sockets and the server and deletes pending downloads; the service stays open. */
  close(): Promise<void>;
}

/** The only interface browser mode ever binds to. */
export const HOST = '127.0.0.1';
/**
 * The largest WebSocket message: createCrawl may carry an 8 MiB URL list (UTF-16 units), which JSON
 * and UTF-8 make up to about three times as many bytes.
 */
const MAX_MESSAGE_BYTES = 32 << 20;
const DEFAULT_MAX_UPLOAD_BYTES = 4 * 1024 ** 3;
const UPLOAD_PATH = '/upload/';

/** Starts browser mode's server; resolves once it listens. */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const downloads = new DownloadRegistry(options.downloadTtlMs);
  // The browser saves under the name given: distinct for each export of this server.
  const offer = async (fileName: string, write: (out: Writable) => Promise<{ rows: number }>, contentType = CSV_CONTENT_TYPE): Promise<ExportResult> => {
    let rows = 0;
    const dl = await downloads.create(
      fileName,
      async (out) => {
        rows = (await write(out)).rows;
      },
      contentType,
    );
    return { rows, downloadUrl: `/download/${dl}?token=${encodeURIComponent(token)}` };
  };
  const uploads = new UploadRegistry(options.uploadTtlMs);
  const maxUpload = options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
  const svc = options.service;
  const taken = (n: string) => downloads.named(n);
  const handlers = createHandlers(options.service, {
    urls: (id, filter) => offer(exportFileName(options.service.get(id).name, filter, new Date(), taken), (out) => options.service.exportCsv(id, out, filter)),
    links: (id, opts) => offer(linksFileName(options.service.get(id).name, opts, new Date(), taken), (out) => options.service.exportLinks(id, out, opts)),
    compare: (oldId, newId, filter) =>
      offer(compareFileName(svc.get(newId).name, filter, new Date(), taken), (out) => svc.exportCompare(oldId, newId, out, filter)),
    crawlFile: (id) => {
      const crawl = svc.get(id);
      // A crawl file's "rows" are the crawl's URLs.
      return offer(
        crawlFileName(crawl.name, new Date(), taken),
        (out) => svc.exportCrawlFile(id, out).then(() => ({ rows: crawl.counters.discovered })),
        'application/octet-stream',
      );
    },
    importCrawl: async () => ({ uploadUrl: `${UPLOAD_PATH}${uploads.create()}?token=${encodeURIComponent(token)}` }),
  });
  const dispatch = createDispatcher(handlers, { checkResults: options.checkResults });

  let port = 0;
  const allowedHosts = () => [`${HOST}:${port}`, `localhost:${port}`];
  const allowedOrigins = () => allowedHosts().map((h) => `http://${h}`);
  const hostOk = (req: IncomingMessage) => allowedHosts().includes((req.headers.host ?? '').toLowerCase());
  const originOk = (req: IncomingMessage) => req.headers.origin === undefined || allowedOrigins().includes(req.headers.origin.toLowerCase());
  const tokenOk = (url: URL) => sameSecret(url.searchParams.get('token') ?? '', token);

  const server = createServer((req, res) => {
    handleHttp(req, res).catch((error: unknown) => {
      console.error('[spinneret] browser mode request failed:', error);
      if (!res.headersSent) send(res, 500, 'Internal error: see the terminal running npm run serve.');
      else res.destroy();
    });
  });

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostOk(req)) return send(res, 403, 'Forbidden host. Open the 127.0.0.1 URL that npm run serve printed.');
    if (!originOk(req)) return send(res, 403, 'Forbidden origin.');
    const url = new URL(req.url ?? '/', `http://${HOST}:${port}`);
    if (url.pathname.startsWith(UPLOAD_PATH)) return upload(req, res, url);
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'Method not allowed.');

    if (url.pathname.startsWith('/download/')) {
      if (!tokenOk(url)) return send(res, 401, 'Missing or wrong token.');
      const entry = downloads.take(url.pathname.slice('/download/'.length));
      if (!entry) return send(res, 404, 'This download has expired or was already taken. Export again.');
      const { size } = await stat(entry.path);
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'Content-Type': entry.contentType,
        'Content-Length': String(size),
        'Content-Disposition': `attachment; filename="${entry.fileName}"`,
      });
      const file = createReadStream(entry.path);
      const cleanup = () => void entry.done();
      res.on('close', cleanup);
      file.on('error', () => res.destroy());
      file.pipe(res);
      return;
    }

    if (url.pathname === WS_PATH) return send(res, 426, 'Upgrade to a WebSocket.');
    // Judged by the file the (decoded) path names, not by its spelling: /%69ndex.html, //index.html
    // and /index.html/ are the page too.
    const file = resolveStaticPath(options.rendererDir, url.pathname);
    if (file && isPage(file) && !tokenOk(url)) {
      return send(res, 401, 'Missing or wrong token: open the exact URL that npm run serve printed (it ends in ?token=…).');
    }
    if (!file) return send(res, 404, 'Not found.');
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) return send(res, 404, 'Not found.');
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': mimeType(file),
      'Content-Length': String(info.size),
      ...(file.endsWith('.html') ? { 'Content-Security-Policy': CONTENT_SECURITY_POLICY } : {}),
    });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file).pipe(res);
  }

  /**
   * POST /upload/<id>?token=…[&name=file.spinneret]: a crawl file, streamed into importCrawlFile. The
   * id is importCrawl's, good once; the page's own Origin is required (a form of another site sends
   * its own, or none); the body is cut past maxUploadBytes. Answers the contract's envelope as JSON.
   */
  async function upload(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'application/json; charset=utf-8', ...(status >= 400 ? { Connection: 'close' } : {}) });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST') return answer(405, fail('METHOD_NOT_ALLOWED', 'POST the crawl file to this URL.'));
    if (req.headers.origin === undefined) return answer(403, fail('FORBIDDEN_ORIGIN', 'An upload must come from the Spinneret page itself.'));
    if (!tokenOk(url)) return answer(401, fail('UNAUTHORIZED', 'Missing or wrong token.'));
    if (!uploads.take(url.pathname.slice(UPLOAD_PATH.length))) {
      return answer(404, fail('NOT_FOUND', 'This upload URL has expired or was already used. Choose Open crawl file again.'));
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxUpload) {
      return answer(413, fail('TOO_LARGE', `The file is ${declared} bytes; browser mode opens crawl files of up to ${maxUpload} bytes.`));
    }
    let seen = 0;
    const limited = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        seen += chunk.length;
        if (seen > maxUpload) cb(new ServiceError('TOO_LARGE', `The file is larger than the ${maxUpload} bytes browser mode opens.`));
        else cb(null, chunk);
      },
    });
    req.on('error', (err) => limited.destroy(err));
    req.pipe(limited);
    const name = (url.searchParams.get('name') ?? '').slice(0, 255) || 'upload.spinneret';
    try {
      const crawl = await svc.importCrawlFile(limited, name);
      answer(200, { ok: true, value: crawl });
    } catch (err) {
      const e = err as { code?: unknown; message?: unknown };
      const code = typeof e.code === 'string' ? e.code : 'IMPORT_FAILED';
      answer(code === 'TOO_LARGE' ? 413 : code === 'BAD_CRAWL_FILE' ? 400 : 500, fail(code, typeof e.message === 'string' ? e.message : String(err)));
    } finally {
      req.unpipe(limited);
      req.resume(); // whatever is left is read and dropped
    }
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const clients = new Set<WebSocket>();

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', `http://${HOST}:${port}`);
    const refuse = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.destroy();
    };
    if (url.pathname !== WS_PATH) return refuse('404 Not Found');
    if (!hostOk(req) || !originOk(req)) return refuse('403 Forbidden');
    if (!tokenOk(url)) return refuse('401 Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws));
  });

  function onConnection(ws: WebSocket): void {
    clients.add(ws);
    ws.on('close', () => clients.delete(ws));
    ws.on('error', () => clients.delete(ws));
    ws.on('message', (data, isBinary) => {
      void answer(ws, isBinary ? null : data.toString());
    });
  }

  async function answer(ws: WebSocket, text: string | null): Promise<void> {
    let raw: unknown;
    try {
      raw = text === null ? undefined : JSON.parse(text);
    } catch {
      raw = undefined;
    }
    const call = WsCallSchema.safeParse(raw);
    let msg: WsServerMessage;
    if (!call.success) {
      const id = typeof (raw as { id?: unknown } | undefined)?.id === 'number' ? (raw as { id: number }).id : -1;
      msg = { type: 'result', id, result: fail(TransportErrorCode.BAD_MESSAGE, 'Expected {type:"call", id, method, args}.') };
    } else {
      msg = { type: 'result', id: call.data.id, result: await dispatch(call.data.method, call.data.args) };
    }
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
  }

  const stopEvents = forwardServiceEvents(options.service, (event: EventName, payload: unknown) => {
    const text = JSON.stringify({ type: 'event', event, payload } satisfies WsServerMessage);
    for (const ws of clients) if (ws.readyState === ws.OPEN) ws.send(text);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://${HOST}:${port}/?token=${encodeURIComponent(token)}`,
    port,
    token,
    dispatch,
    async close() {
      stopEvents();
      for (const ws of clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await downloads.close();
      uploads.close();
    },
  };
}

function send(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text + '\n');
}

/** Compares secrets in constant time (hashing first so lengths do not leak). */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && given.length > 0;
}
