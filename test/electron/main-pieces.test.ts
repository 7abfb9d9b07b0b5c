/**
 * The main process's pieces, driven with doubles: window options and hardening, permissions and CSP,
 * the app:// protocol handler, the menu, quit handling, CSV export through the save dialog, state dir.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile, mkdir, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { MenuItemConstructorOptions } from 'electron';
import { createMainWindow, hardenWebContents, mainWindowOptions, type HardenableContents } from '../../electron/main/window.js';
import { permissionAllowed, secureSession, type SessionLike } from '../../electron/main/permissions.js';
import { createAppProtocolHandler } from '../../electron/main/app-protocol.js';
import { APP_START_URL, isAppUrl, isSafeExternalUrl } from '../../electron/main/app-url.js';
import { buildMenuTemplate } from '../../electron/main/menu.js';
import { closeBeforeQuit } from '../../electron/main/quit.js';
import { exportCsvWithDialog, exportLinksWithDialog } from '../../electron/main/export.js';
import { localDate } from '../../electron/renderer-host/downloads.js';
import { defaultStateDir } from '../../electron/service/catalog/state-dir.js';
import { createFakeService } from '../contract/fake-service.js';

/** A WebContents double that records its handlers so the test can fire them. */
function contentsDouble() {
  const on = new Map<string, (event: { preventDefault(): void; url?: string }, url?: string) => void>();
  let openHandler: ((d: { url: string }) => { action: string }) | null = null;
  const contents: HardenableContents = {
    setWindowOpenHandler: (h) => void (openHandler = h),
    on: (event: string, listener: (e: { preventDefault(): void; url?: string }, url?: string) => void) => on.set(event, listener),
  } as HardenableContents;
  /** Fires like Electron 45: the URL on the event, and again as the deprecated second argument. */
  const fire = (event: string, url = '', onlyDetails = false) => {
    let prevented = false;
    on.get(event)!({ preventDefault: () => void (prevented = true), url }, onlyDetails ? undefined : url);
    return prevented;
  };
  return { contents, fire, open: (url: string) => openHandler!({ url }) };
}

describe('window', () => {
  it('is isolated, sandboxed and without Node', () => {
    const o = mainWindowOptions('/app/preload.cjs');
    assert.equal(o.webPreferences?.contextIsolation, true);
    assert.equal(o.webPreferences?.sandbox, true);
    assert.equal(o.webPreferences?.nodeIntegration, false);
    assert.equal(o.webPreferences?.webviewTag, false);
    assert.equal(o.webPreferences?.webSecurity, true);
    assert.equal(o.webPreferences?.preload, '/app/preload.cjs');
    assert.equal(o.show, false, 'shown only once painted');
  });

  it('refuses navigation and new windows; http(s) links go to the system browser', () => {
    const opened: string[] = [];
    const d = contentsDouble();
    hardenWebContents(d.contents, async (url) => void opened.push(url));
    assert.deepEqual(d.open('https://docs.test/help'), { action: 'deny' });
    assert.deepEqual(d.open('file:///etc/passwd'), { action: 'deny' });
    assert.deepEqual(d.open('javascript:alert(1)'), { action: 'deny' });
    assert.equal(d.fire('will-navigate', 'http://site.test/page'), true);
    assert.equal(d.fire('will-navigate', 'app://spinneret/other.html'), true);
    assert.equal(d.fire('will-navigate', 'smb://host/share'), true);
    assert.equal(d.fire('will-navigate', 'https://details.test/only', true), true);
    assert.equal(d.fire('will-redirect', 'https://x.test/'), true);
    assert.equal(d.fire('will-attach-webview'), true);
    assert.deepEqual(opened, ['https://docs.test/help', 'http://site.test/page', 'https://details.test/only']);
  });

  it('the factory builds, hardens and loads our page', async () => {
    const made: { options: unknown; loaded: string[]; d: ReturnType<typeof contentsDouble> }[] = [];
    class FakeWindow {
      d = contentsDouble();
      webContents = this.d.contents;
      loaded: string[] = [];
      shown = false;
      ready: (() => void) | null = null;
      constructor(public options: unknown) {
        made.push({ options, loaded: this.loaded, d: this.d });
      }
      async loadURL(url: string) {
        this.loaded.push(url);
      }
      once(_e: 'ready-to-show', l: () => void) {
        this.ready = l;
      }
      show() {
        this.shown = true;
      }
    }
    const win = createMainWindow({ BrowserWindow: FakeWindow, openExternal: async () => {}, preloadPath: '/p.cjs' });
    assert.equal(made.length, 1);
    assert.deepEqual(win.loaded, [APP_START_URL]);
    assert.equal(win.shown, false);
    win.ready!();
    assert.equal(win.shown, true);
    assert.deepEqual(made[0].d.open('https://a.test/'), { action: 'deny' }, 'hardened');
  });
});

describe('URLs', () => {
  it('knows our own page and safe external links', () => {
    assert.ok(isAppUrl('app://spinneret/index.html'));
    assert.ok(!isAppUrl('app://evil/index.html'));
    assert.ok(!isAppUrl('file:///app/index.html'));
    assert.ok(!isAppUrl('not a url'));
    assert.ok(isSafeExternalUrl('https://www.example.test/a?b'));
    assert.ok(!isSafeExternalUrl('https://user:pw@host.test/'));
    assert.ok(!isSafeExternalUrl('ftp://host.test/'));
    assert.ok(!isSafeExternalUrl('file:///etc/passwd'));
  });
});

describe('session', () => {
  function sessionDouble() {
    const s = {
      request: null as null | Parameters<SessionLike['setPermissionRequestHandler']>[0],
      check: null as null | Parameters<SessionLike['setPermissionCheckHandler']>[0],
      headers: null as null | Parameters<SessionLike['webRequest']['onHeadersReceived']>[0],
    };
    const ses: SessionLike = {
      setPermissionRequestHandler: (h) => void (s.request = h),
      setPermissionCheckHandler: (h) => void (s.check = h),
      webRequest: { onHeadersReceived: (l) => void (s.headers = l) },
    };
    secureSession(ses);
    return s;
  }

  it('denies permissions by default', () => {
    const s = sessionDouble();
    for (const permission of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read', 'fullscreen']) {
      let granted: boolean | undefined;
      s.request!({}, permission, (g) => void (granted = g), { requestingUrl: APP_START_URL });
      assert.equal(granted, false, permission);
      assert.equal(s.check!({}, permission, 'app://spinneret', { requestingUrl: APP_START_URL }), false, permission);
    }
    assert.ok(permissionAllowed('clipboard-sanitized-write', APP_START_URL));
    assert.ok(!permissionAllowed('clipboard-sanitized-write', 'https://evil.test/'));
  });

  it('adds the CSP header where a response has none', () => {
    const s = sessionDouble();
    let got: Record<string, string[]> | undefined;
    s.headers!({ url: APP_START_URL, responseHeaders: { 'content-type': ['text/html'] } }, (r) => void (got = r.responseHeaders));
    assert.match(got!['Content-Security-Policy'][0], /default-src 'none'/);
    assert.match(got!['Content-Security-Policy'][0], /script-src 'self'/);
    s.headers!({ url: APP_START_URL, responseHeaders: { 'content-security-policy': ['x'] } }, (r) => void (got = r.responseHeaders));
    assert.deepEqual(got, { 'content-security-policy': ['x'] });
  });
});

describe('app:// protocol', () => {
  it('serves the renderer folder only, with a CSP', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'spinneret-proto-'));
    try {
      await mkdir(join(dir, 'r', 'assets'), { recursive: true });
      await writeFile(join(dir, 'r', 'index.html'), '<!doctype html>');
      await writeFile(join(dir, 'r', 'assets', 'a.js'), 'x');
      await writeFile(join(dir, 'secret.txt'), 'secret');
      const handle = createAppProtocolHandler(join(dir, 'r'));
      const page = await handle(new Request('app://spinneret/index.html'));
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type')!, /text\/html/);
      assert.match(page.headers.get('content-security-policy')!, /default-src 'none'/);
      assert.equal(await page.text(), '<!doctype html>');
      const js = await handle(new Request('app://spinneret/assets/a.js'));
      assert.match(js.headers.get('content-type')!, /javascript/);
      for (const url of [
        'app://spinneret/../secret.txt',
        'app://spinneret/%2e%2e/secret.txt',
        'app://spinneret/assets/..%2f..%2fsecret.txt',
        'app://other/index.html',
        'app://spinneret/missing.js',
      ]) {
        assert.equal((await handle(new Request(url))).status, 404, url);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('menu', () => {
  const flat = (items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] =>
    items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flat(i.submenu) : [])]);

  it('has File (New crawl, Export CSV, Quit), Edit, View, Window, Help', () => {
    for (const platform of ['linux', 'win32', 'darwin'] as const) {
      const calls: string[] = [];
      const t = buildMenuTemplate(platform, {
        newCrawl: () => calls.push('new'),
        exportCsv: () => calls.push('export'),
        openStateFolder: () => calls.push('folder'),
      });
      const labels = t.map((m) => m.label ?? m.role);
      assert.deepEqual(labels.slice(platform === 'darwin' ? 1 : 0), ['&File', '&Edit', '&View', 'windowMenu', 'help']);
      const items = flat(t);
      const byId = (id: string) => items.find((i) => i.id === id)!;
      (byId('new-crawl').click as () => void)();
      (byId('export-csv').click as () => void)();
      assert.deepEqual(calls, ['new', 'export']);
      assert.equal(byId('new-crawl').accelerator, 'CmdOrCtrl+N');
      assert.ok(
        items.some((i) => i.role === 'quit'),
        `${platform}: Quit`,
      );
      assert.ok(items.some((i) => i.role === 'copy') && items.some((i) => i.role === 'paste'));
      assert.ok(!items.some((i) => i.role === 'toggleDevTools'), 'no dev tools when packaged');
    }
    const dev = flat(buildMenuTemplate('linux', { newCrawl() {}, exportCsv() {}, openStateFolder() {} }, { devTools: true }));
    assert.ok(dev.some((i) => i.role === 'toggleDevTools'));
  });
});

describe('quit', () => {
  it('holds the quit until crawls are checkpointed, then quits once', async () => {
    let listener: ((e: { preventDefault(): void }) => void) | null = null;
    let quits = 0;
    let release!: () => void;
    let closes = 0;
    const app = { on: (_: 'before-quit', l: typeof listener) => void (listener = l), quit: () => void quits++ };
    closeBeforeQuit(app, () => {
      closes++;
      return new Promise<void>((r) => (release = r));
    });
    const fire = () => {
      let prevented = false;
      listener!({ preventDefault: () => void (prevented = true) });
      return prevented;
    };
    assert.equal(fire(), true, 'first quit is held');
    assert.equal(fire(), true, 'a second Cmd-Q while closing is held too');
    assert.equal(closes, 1);
    assert.equal(quits, 0);
    release();
    await new Promise((r) => setImmediate(r));
    assert.equal(quits, 1);
    assert.equal(fire(), false, 'the final quit goes through');
  });

  it('still quits when checkpointing fails', async () => {
    let listener: ((e: { preventDefault(): void }) => void) | null = null;
    let quits = 0;
    const errors: unknown[] = [];
    const orig = console.error;
    console.error = (...a: unknown[]) => void errors.push(a);
    try {
      closeBeforeQuit({ on: (_e, l) => void (listener = l), quit: () => void quits++ }, async () => {
        throw new Error('disk full');
      });
      listener!({ preventDefault() {} });
      await new Promise((r) => setTimeout(r, 5));
    } finally {
      console.error = orig;
    }
    assert.equal(quits, 1);
    assert.equal(errors.length, 1, 'the failure is reported');
  });
});

describe('CSV export through the save dialog', () => {
  it('streams to the chosen path, reports cancel, and leaves no half file on failure', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'spinneret-export-'));
    try {
      const service = createFakeService(4);
      const crawl = service.create({ name: 'My site / 2024', settings: { startUrl: 'http://127.0.0.1:9/' } });
      await service.start(crawl.id);
      await new Promise((r) => setImmediate(r));
      let asked: { defaultPath: string } | undefined;
      const target = join(dir, 'out.csv');
      const res = await exportCsvWithDialog(service, async (o) => ((asked = o), { canceled: false, filePath: target }), dir, crawl.id, undefined);
      assert.equal(res.rows, 4);
      assert.equal(res.path, target);
      const day = localDate(new Date());
      assert.equal(asked!.defaultPath, join(dir, `My-site-2024-urls-${day}.csv`));
      assert.equal((await readFile(target, 'utf8')).trim().split('\n').length, 5);

      // The dialog proposes a name no file in its folder has: an earlier export is never replaced unasked.
      await writeFile(join(dir, `My-site-2024-SITEMAP_URL_4XX-${day}.csv`), 'earlier');
      await writeFile(join(dir, `My-site-2024-SITEMAP_URL_4XX-${day}-2.csv`), 'earlier');
      await exportCsvWithDialog(service, async (o) => ((asked = o), { canceled: true }), dir, crawl.id, { finding: 'SITEMAP_URL_4XX' });
      assert.equal(asked!.defaultPath, join(dir, `My-site-2024-SITEMAP_URL_4XX-${day}-3.csv`));
      await exportCsvWithDialog(service, async (o) => ((asked = o), { canceled: true }), dir, crawl.id, { statuses: [404] });
      assert.equal(asked!.defaultPath, join(dir, `My-site-2024-filtered-${day}.csv`));
      await rm(join(dir, `My-site-2024-SITEMAP_URL_4XX-${day}.csv`));
      await rm(join(dir, `My-site-2024-SITEMAP_URL_4XX-${day}-2.csv`));

      assert.deepEqual(await exportCsvWithDialog(service, async () => ({ canceled: true }), dir, crawl.id, undefined), { rows: 0, canceled: true });

      const broken = {
        ...service,
        exportCsv: async (_id: string, out: Writable) => {
          out.write('url\nhalf');
          throw Object.assign(new Error('disk full'), { code: 'EXPORT_FAILED' });
        },
      };
      const failed = join(dir, 'failed.csv');
      await assert.rejects(
        exportCsvWithDialog(broken, async () => ({ canceled: false, filePath: failed }), dir, crawl.id, undefined),
        /disk full/,
      );
      assert.deepEqual((await readdir(dir)).sort(), ['out.csv']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('links export through the save dialog', () => {
  it('proposes a name that says which links, streams them there, and leaves no half file on failure', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'spinneret-export-'));
    try {
      const service = createFakeService(4);
      const crawl = service.create({ name: 'Shop', settings: { startUrl: 'http://127.0.0.1:9/' } });
      await service.start(crawl.id);
      await new Promise((r) => setImmediate(r));
      const day = localDate(new Date());
      let asked: { title: string; defaultPath: string } | undefined;
      const all = join(dir, 'all.csv');
      const res = await exportLinksWithDialog(service, async (o) => ((asked = o), { canceled: false, filePath: all }), dir, crawl.id, {});
      assert.deepEqual(res, { rows: 3, path: all }, 'the fake crawl has three links, all on its first page');
      assert.equal(asked!.defaultPath, join(dir, `Shop-links-${day}.csv`));
      assert.match(asked!.title, /all links/i);
      assert.equal((await readFile(all, 'utf8')).trim().split('\n').length, 4);

      await writeFile(join(dir, `Shop-inlinks-2-${day}.csv`), 'earlier');
      const one = join(dir, 'one.csv');
      const inl = await exportLinksWithDialog(service, async (o) => ((asked = o), { canceled: false, filePath: one }), dir, crawl.id, { urlId: 2 });
      assert.equal(inl.rows, 1);
      assert.equal(asked!.defaultPath, join(dir, `Shop-inlinks-2-${day}-2.csv`), 'an earlier export keeps its name');
      assert.match(asked!.title, /inlinks/i);
      await exportLinksWithDialog(service, async (o) => ((asked = o), { canceled: true }), dir, crawl.id, { urlId: 0, direction: 'out' });
      assert.equal(asked!.defaultPath, join(dir, `Shop-outlinks-0-${day}.csv`));
      assert.match(asked!.title, /outlinks/i);
      assert.deepEqual(await exportLinksWithDialog(service, async () => ({ canceled: true }), dir, crawl.id, {}), { rows: 0, canceled: true });

      const broken = {
        ...service,
        exportLinks: async (_id: string, out: Writable) => {
          out.write('source\nhalf');
          throw Object.assign(new Error('disk full'), { code: 'EXPORT_FAILED' });
        },
      };
      const failed = join(dir, 'failed.csv');
      await assert.rejects(
        exportLinksWithDialog(broken, async () => ({ canceled: false, filePath: failed }), dir, crawl.id, {}),
        /disk full/,
      );
      assert.deepEqual((await readdir(dir)).sort(), ['Shop-inlinks-2-' + day + '.csv', 'all.csv', 'one.csv']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('state dir', () => {
  it('matches Electron userData for productName Spinneret on each platform', () => {
    assert.equal(defaultStateDir('linux', {}, '/home/ana'), '/home/ana/.config/Spinneret');
    assert.equal(defaultStateDir('linux', { XDG_CONFIG_HOME: '/xdg' }, '/home/ana'), '/xdg/Spinneret');
    assert.equal(defaultStateDir('darwin', {}, '/Users/ana'), '/Users/ana/Library/Application Support/Spinneret');
    assert.equal(defaultStateDir('win32', { APPDATA: 'C:/Users/ana/AppData/Roaming' }, 'C:/Users/ana'), 'C:/Users/ana/AppData/Roaming/Spinneret');
    assert.equal(defaultStateDir('linux', { SPINNERET_STATE_DIR: '/tmp/s' }, '/home/ana'), '/tmp/s');
  });
});
