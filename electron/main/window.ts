/**
 * The one window factory and the hardening every web contents gets: isolated, sandboxed, no Node,
 * navigation and new windows refused, http(s) links handed to the system browser.
 */
import type { BrowserWindowConstructorOptions } from 'electron';
import { APP_START_URL, isSafeExternalUrl } from './app-url.js';

/** The parts of a WebContents the hardening touches. */
export interface HardenableContents {
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' } | { action: 'allow' }): void;
  /** Electron passes the URL on the event (`details.url`); the second argument is its deprecated twin. */
  on(event: 'will-navigate' | 'will-redirect', listener: (event: { preventDefault(): void; url?: string }, url?: string) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown;
}

/** The parts of a BrowserWindow the factory uses. */
export interface WindowHandle {
  readonly webContents: HardenableContents;
  loadURL(url: string): Promise<void>;
  once(event: 'ready-to-show', listener: () => void): unknown;
  show(): void;
}

export interface WindowDeps<W extends WindowHandle> {
  BrowserWindow: new (options: BrowserWindowConstructorOptions) => W;
  openExternal: (url: string) => Promise<void>;
  /** Absolute path of the bundled preload (preload.cjs). */
  preloadPath: string;
  iconPath?: string;
  startUrl?: string;
  /** False when every web contents is already hardened elsewhere (app 'web-contents-created'). */
  harden?: boolean;
}

/** The window options: the security settings here are not negotiable. */
export function mainWindowOptions(preloadPath: string, iconPath?: string): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 560,
    show: false,
    title: 'Spinneret',
    backgroundColor: '#ffffff',
    ...(iconPath ? { icon: iconPath } : {}),
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  };
}

/** Refuses navigation, new windows and webviews; http(s) links go to the system browser instead. */
export function hardenWebContents(contents: HardenableContents, openExternal: (url: string) => Promise<void>): void {
  const external = (url: string) => {
    if (isSafeExternalUrl(url)) openExternal(url).catch((e: unknown) => console.error('[spinneret] openExternal failed:', e));
  };
  contents.setWindowOpenHandler(({ url }) => {
    external(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    event.preventDefault();
    const target = event.url ?? url;
    if (target) external(target);
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/** Creates the main window, hardened, showing our page once it has painted. */
export function createMainWindow<W extends WindowHandle>(deps: WindowDeps<W>): W {
  const win = new deps.BrowserWindow(mainWindowOptions(deps.preloadPath, deps.iconPath));
  if (deps.harden !== false) hardenWebContents(win.webContents, deps.openExternal);
  win.once('ready-to-show', () => win.show());
  win.loadURL(deps.startUrl ?? APP_START_URL).catch((e: unknown) => console.error('[spinneret] could not load the page:', e));
  return win;
}
