/**
 * The application menu. File → New crawl and Export CSV are carried out by the page (it knows the
 * selected crawl): main sends it a `menuCommand` event.
 */
import type { MenuItemConstructorOptions } from 'electron';

export interface MenuActions {
  newCrawl(): void;
  exportCsv(): void;
  /** Opens the folder the crawls are kept in. */
  openStateFolder(): void;
}

/** The menu template for a platform; `devTools` adds the developer tools toggle. */
export function buildMenuTemplate(platform: NodeJS.Platform, actions: MenuActions, options: { devTools?: boolean } = {}): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [];
  if (mac) {
    template.push({
      role: 'appMenu',
      submenu: [
        { role: 'about' },
        { type: 'separator' },
        { role: 'services' },
        { type: 'separator' },
        { role: 'hide' },
        { role: 'hideOthers' },
        { role: 'unhide' },
        { type: 'separator' },
        { role: 'quit' },
      ],
    });
  }
  template.push({
    label: '&File',
    submenu: [
      { id: 'new-crawl', label: 'New Crawl…', accelerator: 'CmdOrCtrl+N', click: () => actions.newCrawl() },
      { id: 'export-csv', label: 'Export CSV…', accelerator: 'CmdOrCtrl+E', click: () => actions.exportCsv() },
      { type: 'separator' },
      { id: 'open-state-folder', label: 'Open Crawls Folder', click: () => actions.openStateFolder() },
      { type: 'separator' },
      mac ? { role: 'close' } : { role: 'quit', label: 'Quit', accelerator: 'Ctrl+Q' },
    ],
  });
  template.push({
    label: '&Edit',
    submenu: [{ role: 'undo' }, { role: 'redo' }, { type: 'separator' }, { role: 'cut' }, { role: 'copy' }, { role: 'paste' }, { role: 'selectAll' }],
  });
  template.push({
    label: '&View',
    submenu: [
      { role: 'reload' },
      ...(options.devTools ? [{ role: 'toggleDevTools' } as const] : []),
      { type: 'separator' },
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  });
  template.push({
    role: 'windowMenu',
    submenu: mac ? [{ role: 'minimize' }, { role: 'zoom' }, { type: 'separator' }, { role: 'front' }] : [{ role: 'minimize' }, { role: 'close' }],
  });
  template.push({
    role: 'help',
    submenu: [{ role: 'about', label: 'About Spinneret' }],
  });
  return template;
}
