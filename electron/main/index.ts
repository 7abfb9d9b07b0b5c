/**
 * Electron main: wires the real Electron modules into the pieces beside this file. Kept thin on
 * purpose: everything with logic takes its Electron parts as arguments and is tested without Electron.
 */
import { app, BrowserWindow, dialog, ipcMain, Menu, Notification, protocol, session, shell } from 'electron';
import ElectronStore from 'electron-store';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EventName, EventPayload } from '../../shared/contract.js';
import { createCrawlService } from '../service/index.js';
import type { CrawlService } from '../service/types.js';
import type { KeyValueStore } from '../engine/index.js';
import { STATE_DIR_ENV } from '../service/catalog/state-dir.js';
import { APP_SCHEME_PRIVILEGES, createAppProtocolHandler } from './app-protocol.js';
import { APP_SCHEME } from './app-url.js';
import { broadcast } from './ipc.js';
import { buildMenuTemplate } from './menu.js';
import { secureSession } from './permissions.js';
import { closeBeforeQuit } from './quit.js';
import { createMainWindow, hardenWebContents } from './window.js';
import { wireMain } from './wiring.js';

const here = dirname(fileURLToPath(import.meta.url));
/** Built layout: dist/electron/{main.js,preload.cjs}, dist/renderer/. */
const rendererDir = join(here, '..', 'renderer');
const preloadPath = join(here, 'preload.cjs');
const windowIcon = join(here, '..', '..', 'build', 'icons', '512x512.png');

// Both must happen before `ready`: every renderer sandboxed, and app:// a real, secure origin.
app.enableSandbox();
protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);

if (!app.requestSingleInstanceLock()) {
  // Another Spinneret owns the crawls folder: it gets focused (see 'second-instance'), we leave.
  app.quit();
} else {
  run().catch((error: unknown) => {
    dialog.showErrorBox('Spinneret could not start', error instanceof Error ? error.message : String(error));
    app.exit(1);
  });
}

async function run(): Promise<void> {
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, (url) => shell.openExternal(url)));
  app.setAboutPanelOptions({ applicationName: 'Spinneret', applicationVersion: app.getVersion() });
  await app.whenReady();

  const stateDir = process.env[STATE_DIR_ENV] || app.getPath('userData');
  // electron-store in the app (conf, its base, everywhere else): same file, same recovery of a corrupt catalog.
  const service: CrawlService = createCrawlService({
    stateDir,
    createStore: (dir, name) => new ElectronStore<Record<string, unknown>>({ cwd: dir, name }) as unknown as KeyValueStore & { store: unknown },
  });
  closeBeforeQuit(app, () => service.close());

  secureSession(session.defaultSession);
  protocol.handle(APP_SCHEME, createAppProtocolHandler(rendererDir));

  const windows = () => BrowserWindow.getAllWindows();
  wireMain({
    service,
    ipcMain,
    windows,
    showSaveDialog: (options) => {
      const win = BrowserWindow.getFocusedWindow() ?? windows()[0];
      return win ? dialog.showSaveDialog(win, options) : dialog.showSaveDialog(options);
    },
    showOpenDialog: (options) => {
      const win = BrowserWindow.getFocusedWindow() ?? windows()[0];
      return win ? dialog.showOpenDialog(win, options) : dialog.showOpenDialog(options);
    },
    notify: ({ title, body }) => {
      if (Notification.isSupported()) new Notification({ title, body }).show();
    },
    documentsDir: app.getPath('documents'),
  });

  const toPage = <E extends EventName>(event: E, payload: EventPayload<E>) => {
    const win = BrowserWindow.getFocusedWindow() ?? windows()[0];
    if (win) broadcast([win], event, payload);
  };
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      buildMenuTemplate(
        process.platform,
        {
          newCrawl: () => toPage('menuCommand', { command: 'newCrawl' }),
          exportCsv: () => toPage('menuCommand', { command: 'exportCsv' }),
          openStateFolder: () => void shell.openPath(stateDir),
        },
        { devTools: !app.isPackaged },
      ),
    ),
  );

  const open = () =>
    createMainWindow({
      BrowserWindow,
      openExternal: (url) => shell.openExternal(url),
      preloadPath,
      iconPath: existsSync(windowIcon) ? windowIcon : undefined,
      harden: false, // done for every web contents in 'web-contents-created'
    });

  app.on('second-instance', () => {
    const win = windows()[0];
    if (!win) return void open();
    if (win.isMinimized()) win.restore();
    win.focus();
  });
  app.on('activate', () => {
    if (windows().length === 0) open();
  });
  app.on('window-all-closed', () => {
    // macOS apps stay open without windows; crawls keep running until Quit.
    if (process.platform !== 'darwin') app.quit();
  });
  open();
}
