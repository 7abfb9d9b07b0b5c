// A fake 'electron' module for booting the built main process in plain Node. It records what main
// does, then drives it like a user would: an IPC call from our page, one from a foreign frame, a
// request to app://, the menu's New Crawl, and a quit. It prints the record as one JSON line.
import { join } from 'node:path';

const report = { calls: [], windows: [], ipc: {}, protocol: {}, menu: [], events: [] };
const appListeners = new Map();
let ipcHandler = null;
let protocolHandler = null;

let printed = false;
function print() {
  if (printed) return;
  printed = true;
  process.stdout.write(`FAKE_ELECTRON_REPORT ${JSON.stringify(report)}\n`);
}
function done() {
  print();
  process.exit(0);
}
process.on('exit', print);

let nextId = 1;
export class BrowserWindow {
  static all = [];
  static getAllWindows() {
    return BrowserWindow.all.filter((w) => !w.destroyed);
  }
  static getFocusedWindow() {
    return BrowserWindow.all[0] ?? null;
  }
  constructor(options) {
    this.options = options;
    this.destroyed = false;
    const id = nextId++;
    const mainFrame = { url: '', parent: null };
    this.webContents = {
      id,
      mainFrame,
      isDestroyed: () => false,
      send: (channel, payload) => report.events.push({ channel, event: payload?.event, payload: payload?.payload }),
    };
    BrowserWindow.all.push(this);
    report.windows.push({ webPreferences: options.webPreferences, show: options.show });
  }
  isDestroyed() {
    return this.destroyed;
  }
  async loadURL(url) {
    this.webContents.mainFrame.url = url;
    report.windows.at(-1).loaded = url;
  }
  once() {}
  show() {}
  isMinimized() {
    return false;
  }
  focus() {}
  restore() {}
}

export const app = {
  isPackaged: false,
  requestSingleInstanceLock: () => process.env.FAKE_LOCK !== 'taken',
  quit() {
    report.calls.push('app.quit');
    const l = appListeners.get('before-quit');
    let prevented = false;
    if (l) l.forEach((fn) => fn({ preventDefault: () => void (prevented = true) }));
    report.calls.push(prevented ? 'before-quit:held' : 'before-quit:passed');
    if (!prevented && process.env.FAKE_LOCK !== 'taken') done();
  },
  exit(code) {
    report.calls.push(`app.exit(${code})`);
    done();
  },
  on(event, listener) {
    if (!appListeners.has(event)) appListeners.set(event, []);
    appListeners.get(event).push(listener);
  },
  setAboutPanelOptions() {},
  enableSandbox() {
    report.calls.push('app.enableSandbox');
  },
  getVersion: () => '0.1.0',
  getPath: (name) => join(process.env.FAKE_HOME ?? '/nonexistent', name),
  whenReady: () => {
    setTimeout(drive, 20);
    return Promise.resolve();
  },
};

export const ipcMain = {
  handle(channel, fn) {
    report.calls.push(`ipcMain.handle(${channel})`);
    ipcHandler = fn;
  },
  removeHandler() {},
  // electron-store registers a synchronous data channel for renderers.
  on(channel) {
    report.calls.push(`ipcMain.on(${channel})`);
  },
};

export const protocol = {
  registerSchemesAsPrivileged(schemes) {
    report.calls.push(`registerSchemesAsPrivileged(${schemes.map((s) => s.scheme).join()})`);
    report.protocol.privileges = schemes[0]?.privileges;
  },
  handle(scheme, fn) {
    report.calls.push(`protocol.handle(${scheme})`);
    protocolHandler = fn;
  },
};

export const session = {
  defaultSession: {
    setPermissionRequestHandler: (h) => (report.permissionRequest = typeof h),
    setPermissionCheckHandler: (h) => (report.permissionCheck = typeof h),
    webRequest: { onHeadersReceived: () => void (report.csp = true) },
  },
};

export const Menu = {
  buildFromTemplate: (t) => t,
  setApplicationMenu(template) {
    report.menu = template.map((m) => m.label ?? m.role);
    Menu.template = template;
  },
};

export const dialog = {
  showSaveDialog: async () => ({ canceled: true }),
  showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
  showErrorBox: (title, message) => report.calls.push(`showErrorBox(${title}: ${message})`),
};

export const shell = { openExternal: async () => {}, openPath: async () => '' };

/** A recrawl whose findings got worse is a desktop notification: recorded, never shown. */
export class Notification {
  static isSupported() {
    return true;
  }
  constructor(options) {
    this.options = options;
  }
  show() {
    report.calls.push(`notification(${this.options.title})`);
  }
}
export default { app, BrowserWindow, ipcMain, protocol, session, Menu, dialog, shell, Notification };

async function drive() {
  const win = BrowserWindow.all[0];
  if (!win) return;
  const ours = { sender: { id: win.webContents.id }, senderFrame: win.webContents.mainFrame };
  report.ipc.ours = await ipcHandler(ours, { method: 'listCrawls' });
  report.ipc.created = await ipcHandler(ours, { method: 'createCrawl', args: { name: 'Boot', settings: { startUrl: 'http://127.0.0.1:9/' } } });
  report.ipc.foreign = await ipcHandler({ sender: { id: 999 }, senderFrame: { url: 'https://evil.test/', parent: null } }, { method: 'listCrawls' });
  report.ipc.bad = await ipcHandler(ours, { method: 'getCrawl', args: {} });
  const page = await protocolHandler(new Request('app://spinneret/index.html'));
  report.protocol.page = { status: page.status, csp: page.headers.get('content-security-policy') };
  const file = Menu.template.find((m) => m.label === '&File');
  file.submenu.find((i) => i.id === 'new-crawl').click();
  app.quit();
}
