/**
 * Connects a CrawlService to Electron IPC: the contract's handle wrapper, events to every window, the
 * exports (URLs, links, a comparison, a crawl file) through the save dialog, opening a crawl file
 * through the open dialog, and a desktop notification when a recrawl finds things got worse. Takes its Electron parts as arguments, so tests drive it with
 * doubles and a real service.
 */
import type { CrawlService } from '../service/types.js';
import { createDispatcher, createHandlers, forwardServiceEvents, type Dispatch } from '../renderer-host/dispatch.js';
import { isAppUrl } from './app-url.js';
import {
  exportCompareWithDialog,
  exportCrawlFileWithDialog,
  exportCsvWithDialog,
  exportLinksWithDialog,
  importCrawlFileWithDialog,
  type OpenDialog,
  type SaveDialog,
} from './export.js';
import { bindIpc, broadcast, type IpcMainLike, type WindowLike } from './ipc.js';

export interface MainWiring {
  service: CrawlService;
  ipcMain: IpcMainLike;
  windows: () => WindowLike[];
  showSaveDialog: SaveDialog;
  /** Opening a crawl file (Electron's dialog.showOpenDialog). */
  showOpenDialog: OpenDialog;
  /**
   * A desktop notification (Electron's Notification): a recrawl finished with findings worse than
   * its base's. Clicking it is the window's business; none when absent.
   */
  notify?(n: { title: string; body: string }): void;
  /** Folder the save dialog opens in. */
  documentsDir: string;
  /** Validate results against the contract too (tests). */
  checkResults?: boolean;
}

/** Wires the service to IPC; returns the dispatch function and a function that undoes the wiring. */
export function wireMain(options: MainWiring): { dispatch: Dispatch; dispose: () => void } {
  const { service } = options;
  const dispatch = createDispatcher(
    createHandlers(service, {
      urls: (id, filter) => exportCsvWithDialog(service, options.showSaveDialog, options.documentsDir, id, filter),
      links: (id, opts) => exportLinksWithDialog(service, options.showSaveDialog, options.documentsDir, id, opts),
      compare: (oldId, newId, filter) => exportCompareWithDialog(service, options.showSaveDialog, options.documentsDir, oldId, newId, filter),
      crawlFile: (id) => exportCrawlFileWithDialog(service, options.showSaveDialog, options.documentsDir, id),
      importCrawl: () => importCrawlFileWithDialog(service, options.showOpenDialog, options.documentsDir),
    }),
    { checkResults: options.checkResults },
  );
  const unbind = bindIpc({ ipcMain: options.ipcMain, dispatch, windows: options.windows, isAppUrl });
  const stopEvents = forwardServiceEvents(service, (event, payload) => broadcast(options.windows(), event, payload));
  const notify = options.notify;
  const stopNotes = notify
    ? service.on('recrawlFinished', (e) => {
        const n = worseNotification(e);
        if (n) notify(n);
      })
    : () => undefined;
  return {
    dispatch,
    dispose: () => {
      unbind();
      stopEvents();
      stopNotes();
    },
  };
}

/** The notification of a recrawl that finished with findings worse than its base's; null when none got worse. */
export function worseNotification(e: { crawl: { name: string }; scheduled: boolean; worse: string[] }): { title: string; body: string } | null {
  if (e.worse.length === 0) return null;
  const codes = e.worse.slice(0, 4).join(', ') + (e.worse.length > 4 ? ` and ${e.worse.length - 4} more` : '');
  return {
    title: `${e.scheduled ? 'Scheduled recrawl' : 'Recrawl'} of ${e.crawl.name}: findings got worse`,
    body: `${e.worse.length === 1 ? 'One finding rose' : `${e.worse.length} findings rose`} since the last crawl: ${codes}. Open Spinneret to compare.`,
  };
}
