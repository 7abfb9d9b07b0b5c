/**
 * The two transports of the contract, built for tests around one CrawlService:
 *  - IPC: the real main-process wiring (wireMain) on an ipcMain double, and the real preload API on
 *    an ipcRenderer double; messages pass through structuredClone as Electron's IPC would.
 *  - WebSocket: the real browser-mode server on 127.0.0.1 and the real WebSocket client, real sockets.
 */
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import WebSocket from 'ws';
import {
  IPC_CALL,
  createWebSocketApi,
  describeIssues,
  eventNames,
  events,
  webSocketUrlFor,
  type Result,
  type SpinneretApi,
  type WebSocketLike,
} from '../../shared/contract.js';
import type { CrawlService } from '../../electron/service/types.js';
import type { UrlQuery } from '../../shared/model.js';
import { wireMain } from '../../electron/main/wiring.js';
import type { FrameLike, InvokeEventLike, IpcMainLike, WindowLike } from '../../electron/main/ipc.js';
import { createPreloadApi, type IpcRendererLike } from '../../electron/preload/api.js';
import { startWebServer } from '../../electron/web/server.js';

/** A CSV filter: a URL query without paging. */
type UrlFilter = Omit<UrlQuery, 'offset' | 'limit'>;

export interface Intrusion {
  label: string;
  result: Result<unknown>;
  /** WebSocket only: the HTTP status the upgrade was refused with. */
  httpStatus?: number;
}

export interface Transport {
  name: 'ipc' | 'websocket';
  /** The page's API, as the renderer gets it. */
  api: SpinneretApi;
  /** One call with arbitrary method and arguments, answered with the raw envelope. */
  raw(method: string, args: unknown): Promise<Result<unknown>>;
  /** Calls by callers the transport must refuse (foreign frames, missing tokens, …). */
  intrusions(): Promise<Intrusion[]>;
  /** Exports through the transport's own path (save dialog / download) and returns the CSV text. */
  exportCsv(id: string, filter?: UrlFilter): Promise<{ rows: number; text: string }>;
  /** A links export through the same path: its CSV text and the file name it was offered under. */
  exportLinks(id: string, opts?: { urlId?: number; direction?: 'in' | 'out'; finding?: string }): Promise<{ rows: number; text: string; fileName: string }>;
  /**
   * Every event payload the page received that its schema refused, parsed strictly (an unknown key
   * fails like a missing one). Results are checked the same way by the dispatcher (checkResults).
   */
  eventsOffContract(): string[];
  close(): Promise<void>;
}

/** Subscribes to every event of the contract and keeps what does not parse strictly. */
function checkEvents(api: SpinneretApi): () => string[] {
  const broken: string[] = [];
  for (const event of eventNames) {
    api.on(event, (payload) => {
      const checked = events[event].safeParse(payload);
      if (!checked.success) broken.push(`${event}: ${describeIssues(checked.error)} in ${JSON.stringify(payload).slice(0, 300)}`);
    });
  }
  return () => [...broken];
}

// ---------------------------------------------------------------- IPC

interface IpcDoubles {
  ipcMain: IpcMainLike;
  windows: WindowLike[];
  ipcRenderer(from: () => InvokeEventLike): IpcRendererLike;
}

function ipcDoubles(): IpcDoubles {
  const handlers = new Map<string, (event: InvokeEventLike, ...args: unknown[]) => unknown>();
  const rendererListeners = new Map<string, Set<(event: unknown, ...args: unknown[]) => void>>();
  const makeWindow = (id: number, url: string): WindowLike => {
    const mainFrame: FrameLike = { url, parent: null };
    return {
      isDestroyed: () => false,
      webContents: {
        id,
        mainFrame,
        isDestroyed: () => false,
        send: (channel, ...args) => {
          // Only window 1 hosts the renderer the preload double belongs to.
          if (id !== 1) return;
          for (const l of rendererListeners.get(channel) ?? []) l({ senderId: 0 }, ...structuredClone(args));
        },
      },
    };
  };
  return {
    ipcMain: {
      handle: (channel, fn) => {
        if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
        handlers.set(channel, fn);
      },
      removeHandler: (channel) => void handlers.delete(channel),
    },
    // Window 1 shows our page; window 2 is ours too but has been navigated to a foreign page.
    windows: [makeWindow(1, 'app://spinneret/index.html'), makeWindow(2, 'https://evil.test/')],
    ipcRenderer: (from) => ({
      async invoke(channel, ...args) {
        const h = handlers.get(channel);
        if (!h) throw new Error(`No handler registered for '${channel}'`);
        return structuredClone(await h(from(), ...structuredClone(args)));
      },
      on(channel, listener) {
        let set = rendererListeners.get(channel);
        if (!set) rendererListeners.set(channel, (set = new Set()));
        set.add(listener);
      },
    }),
  };
}

/** The IPC transport around `service`. */
export async function ipcTransport(service: CrawlService): Promise<Transport> {
  const dir = await mkdtemp(join(tmpdir(), 'spinneret-ipc-'));
  const d = ipcDoubles();
  const [ours, navigatedAway] = d.windows;
  let nextSavePath = join(dir, 'export.csv');
  let proposed = '';
  const { dispose } = wireMain({
    service,
    ipcMain: d.ipcMain,
    windows: () => d.windows,
    showSaveDialog: async (o) => {
      proposed = o.defaultPath;
      return { canceled: false, filePath: nextSavePath };
    },
    showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
    documentsDir: dir,
    checkResults: true,
  });
  const topFrame = (): InvokeEventLike => ({ sender: { id: ours.webContents.id }, senderFrame: ours.webContents.mainFrame });
  const api = createPreloadApi(d.ipcRenderer(topFrame));
  const eventsOffContract = checkEvents(api);
  const rawCall = (from: () => InvokeEventLike) => async (method: string, args: unknown) =>
    (await d.ipcRenderer(from).invoke(IPC_CALL, { method, args })) as Result<unknown>;
  let exports = 0;
  return {
    name: 'ipc',
    api,
    raw: rawCall(topFrame),
    eventsOffContract,
    async intrusions() {
      const subframe: FrameLike = { url: 'app://spinneret/index.html', parent: ours.webContents.mainFrame };
      const cases: [string, InvokeEventLike][] = [
        ['a subframe of our window', { sender: { id: 1 }, senderFrame: subframe }],
        ['a frame that is gone', { sender: { id: 1 }, senderFrame: null }],
        ['our window after navigating away', { sender: { id: 2 }, senderFrame: navigatedAway.webContents.mainFrame }],
        ['another web contents', { sender: { id: 99 }, senderFrame: { url: 'app://spinneret/index.html', parent: null } }],
        ['a look-alike frame claiming our id', { sender: { id: 1 }, senderFrame: { url: 'app://spinneret/index.html', parent: null } }],
      ];
      const out: Intrusion[] = [];
      for (const [label, event] of cases) out.push({ label, result: await rawCall(() => event)('listCrawls', undefined) });
      return out;
    },
    async exportCsv(id, filter) {
      nextSavePath = join(dir, `export-${++exports}.csv`);
      const res = await api.exportCsv(filter ? { id, filter } : { id });
      if (res.path !== nextSavePath) throw new Error(`exported to ${res.path}, expected ${nextSavePath}`);
      return { rows: res.rows, text: await readFile(nextSavePath, 'utf8') };
    },
    async exportLinks(id, opts = {}) {
      nextSavePath = join(dir, `export-${++exports}.csv`);
      const res = await api.exportLinks({ id, ...opts });
      if (res.path !== nextSavePath) throw new Error(`exported to ${res.path}, expected ${nextSavePath}`);
      return { rows: res.rows, text: await readFile(nextSavePath, 'utf8'), fileName: basename(proposed) };
    },
    async close() {
      dispose();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------- WebSocket

/** A renderer folder with just an index.html, for browser mode. */
export async function fakeRendererDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'spinneret-renderer-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>Spinneret</title><script type="module" src="./assets/app.js"></script>');
  await writeFile(join(dir, 'assets', 'app.js'), 'console.log("spinneret")');
  return dir;
}

/** Opens a `ws` socket and wraps it in the page's WebSocket client. */
export function connectApi(url: string, headers: Record<string, string> = {}): SpinneretApi & { close(): void } {
  const socket = new WebSocket(url, { headers });
  return createWebSocketApi(socket as unknown as WebSocketLike);
}

/** The HTTP status an upgrade to `url` is answered with (101 when accepted). */
export function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.on('open', () => {
      socket.close();
      resolve(101);
    });
    socket.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.on('error', (e) => reject(e));
  });
}

/** The WebSocket transport around `service`. */
export async function wsTransport(service: CrawlService): Promise<Transport> {
  const rendererDir = await fakeRendererDir();
  const server = await startWebServer({ service, rendererDir, checkResults: true });
  const wsUrl = webSocketUrlFor(server.url);
  const api = connectApi(wsUrl);
  const eventsOffContract = checkEvents(api);
  const origin = `http://127.0.0.1:${server.port}`;
  const rawSocket = new WebSocket(wsUrl);
  await new Promise((resolve, reject) => {
    rawSocket.once('open', resolve);
    rawSocket.once('error', reject);
  });
  const waiting = new Map<number, (r: Result<unknown>) => void>();
  rawSocket.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { type: string; id: number; result: Result<unknown> };
    if (msg.type === 'result') waiting.get(msg.id)?.(msg.result);
  });
  let nextRaw = 1;
  const sendRaw = (payload: object | string) =>
    new Promise<Result<unknown>>((resolve) => {
      const id = typeof payload === 'object' && 'id' in payload ? Number(payload.id) : -1;
      waiting.set(id, resolve);
      rawSocket.send(typeof payload === 'string' ? payload : JSON.stringify(payload));
    });
  const withoutToken = wsUrl.replace(/\?token=.*$/, '');
  const wrongToken = `${withoutToken}?token=not-the-token`;
  return {
    name: 'websocket',
    api,
    eventsOffContract,
    raw: (method, args) => sendRaw({ type: 'call', id: nextRaw++, method, ...(args === undefined ? {} : { args }) }),
    async intrusions() {
      const cases: [string, string, Record<string, string>][] = [
        ['no token', withoutToken, {}],
        ['a wrong token', wrongToken, {}],
        ['another site (Origin)', wsUrl, { Origin: 'http://evil.test' }],
        ['DNS rebinding (Host)', wsUrl, { Host: `evil.test:${server.port}`, Origin: `http://evil.test:${server.port}` }],
      ];
      const out: Intrusion[] = [];
      for (const [label, url, headers] of cases) {
        const httpStatus = await upgradeStatus(url, headers);
        const client = connectApi(url, headers);
        let result: Result<unknown>;
        try {
          result = { ok: true, value: await client.listCrawls() };
        } catch (e) {
          const err = e as { code: string; message: string };
          result = { ok: false, error: { code: err.code, message: err.message } };
        }
        out.push({ label, result, httpStatus });
      }
      // A well-formed page on our own origin is let in: the refusals above are about the caller.
      const ok = connectApi(wsUrl, { Origin: origin });
      await ok.listCrawls();
      ok.close();
      return out;
    },
    async exportCsv(id, filter) {
      const res = await api.exportCsv(filter ? { id, filter } : { id });
      if (!res.downloadUrl) throw new Error('browser mode answered no downloadUrl');
      const got = await fetch(new URL(res.downloadUrl, server.url));
      if (got.status !== 200) throw new Error(`download answered ${got.status}`);
      return { rows: res.rows, text: await got.text() };
    },
    async exportLinks(id, opts = {}) {
      const res = await api.exportLinks({ id, ...opts });
      if (!res.downloadUrl) throw new Error('browser mode answered no downloadUrl');
      const got = await fetch(new URL(res.downloadUrl, server.url));
      if (got.status !== 200) throw new Error(`download answered ${got.status}`);
      const fileName = /filename="([^"]+)"/.exec(got.headers.get('content-disposition') ?? '')?.[1] ?? '';
      return { rows: res.rows, text: await got.text(), fileName };
    },
    async close() {
      api.close();
      rawSocket.close();
      await server.close();
      await rm(rendererDir, { recursive: true, force: true });
    },
  };
}
