/**
 * Connects a CrawlService to Electron IPC: the contract's handle wrapper, events to every window and
 * the CSV exports (URLs, links) through the save dialog. Takes its Electron parts as arguments, so tests drive it with
 * doubles and a real service.
 */
import type { CrawlService } from '../service/types.js';
import { ServiceError } from '../service/errors.js';
import { createDispatcher, createHandlers, forwardServiceEvents, type Dispatch } from '../renderer-host/dispatch.js';
import { isAppUrl } from './app-url.js';
import { exportCsvWithDialog, exportLinksWithDialog, type SaveDialog } from './export.js';
import { bindIpc, broadcast, type IpcMainLike, type WindowLike } from './ipc.js';

export interface MainWiring {
  service: CrawlService;
  ipcMain: IpcMainLike;
  windows: () => WindowLike[];
  showSaveDialog: SaveDialog;
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
      compare: () => Promise.reject(new ServiceError('NOT_IMPLEMENTED', 'Exporting a comparison is not built yet.')),
      crawlFile: () => Promise.reject(new ServiceError('NOT_IMPLEMENTED', 'Saving a crawl file is not built yet.')),
      importCrawl: () => Promise.reject(new ServiceError('NOT_IMPLEMENTED', 'Opening a crawl file is not built yet.')),
    }),
    { checkResults: options.checkResults },
  );
  const unbind = bindIpc({ ipcMain: options.ipcMain, dispatch, windows: options.windows, isAppUrl });
  const stopEvents = forwardServiceEvents(service, (event, payload) => broadcast(options.windows(), event, payload));
  return {
    dispatch,
    dispose: () => {
      unbind();
      stopEvents();
    },
  };
}
