/**
 * Exports in the app (the URL table's CSV, links, a comparison, a crawl file): a save dialog, then the
 * service streams the bytes to a `.part` file that is renamed into place once complete, so a failed
 * export never leaves half a file under the chosen name. And opening a crawl file: an open dialog,
 * then the service reads it (checked whole before the crawl enters the catalog).
 */
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { ExportResult, ImportResult } from '../../shared/contract.js';
import type { CompareFilter, UrlQuery } from '../../shared/model.js';
import type { Writable } from 'node:stream';
import type { CrawlService, LinksExport } from '../service/types.js';
import { compareFileName, crawlFileName, exportFileName, linksFileName } from '../renderer-host/downloads.js';

export interface SaveDialog {
  (options: { title: string; defaultPath: string; filters: { name: string; extensions: string[] }[] }): Promise<{ canceled: boolean; filePath?: string }>;
}

/** Electron's dialog.showOpenDialog, as the crawl-file import uses it. */
export interface OpenDialog {
  (options: {
    title: string;
    defaultPath: string;
    filters: { name: string; extensions: string[] }[];
    properties: 'openFile'[];
  }): Promise<{ canceled: boolean; filePaths: string[] }>;
}

const CSV_FILTER = [{ name: 'CSV', extensions: ['csv'] }];
const CRAWL_FILE_FILTER = [{ name: 'Spinneret crawl', extensions: ['spinneret'] }];

/** Asks where to save, then streams the crawl's rows (matching `filter`) there. */
export async function exportCsvWithDialog(
  service: CrawlService,
  showSaveDialog: SaveDialog,
  defaultDir: string,
  id: string,
  filter: Omit<UrlQuery, 'offset' | 'limit'> | undefined,
): Promise<ExportResult> {
  const crawl = service.get(id);
  // The dialog proposes a name no file in that folder has yet: an earlier export is never replaced unasked.
  const name = exportFileName(crawl.name, filter, new Date(), (n) => existsSync(join(defaultDir, n)));
  return saveWithDialog(showSaveDialog, 'Export URLs to CSV', join(defaultDir, name), (out) => service.exportCsv(id, out, filter));
}

/** Asks where to save, then streams links there: one URL's inlinks or outlinks, or all of the crawl's. */
export async function exportLinksWithDialog(
  service: CrawlService,
  showSaveDialog: SaveDialog,
  defaultDir: string,
  id: string,
  opts: LinksExport,
): Promise<ExportResult> {
  const crawl = service.get(id);
  const name = linksFileName(crawl.name, opts, new Date(), (n) => existsSync(join(defaultDir, n)));
  const title =
    opts.finding !== undefined
      ? `Export the links to ${opts.finding}'s URLs to CSV`
      : opts.urlId === undefined
        ? 'Export all links to CSV'
        : opts.direction === 'out'
          ? 'Export outlinks to CSV'
          : 'Export inlinks to CSV';
  return saveWithDialog(showSaveDialog, title, join(defaultDir, name), (out) => service.exportLinks(id, out, opts));
}

/** Asks where to save, then streams a comparison's changed URLs there (one row per URL, before/after). */
export async function exportCompareWithDialog(
  service: CrawlService,
  showSaveDialog: SaveDialog,
  defaultDir: string,
  oldId: string,
  newId: string,
  filter: CompareFilter | undefined,
): Promise<ExportResult> {
  const crawl = service.get(newId);
  service.get(oldId);
  const name = compareFileName(crawl.name, filter, new Date(), (n) => existsSync(join(defaultDir, n)));
  return saveWithDialog(showSaveDialog, 'Export the comparison to CSV', join(defaultDir, name), (out) => service.exportCompare(oldId, newId, out, filter));
}

/** Asks where to save, then writes the crawl as one crawl file (.spinneret); `rows` is its URL count. */
export async function exportCrawlFileWithDialog(service: CrawlService, showSaveDialog: SaveDialog, defaultDir: string, id: string): Promise<ExportResult> {
  const crawl = service.get(id);
  const name = crawlFileName(crawl.name, new Date(), (n) => existsSync(join(defaultDir, n)));
  return saveWithDialog(
    showSaveDialog,
    'Save the crawl as a file',
    join(defaultDir, name),
    async (out) => {
      await service.exportCrawlFile(id, out);
      return { rows: crawl.counters.discovered };
    },
    CRAWL_FILE_FILTER,
  );
}

/** Asks which crawl file to open, then opens it as a new crawl (BAD_CRAWL_FILE: refused, nothing kept). */
export async function importCrawlFileWithDialog(service: CrawlService, showOpenDialog: OpenDialog, defaultDir: string): Promise<ImportResult> {
  const choice = await showOpenDialog({ title: 'Open a crawl file', defaultPath: defaultDir, filters: CRAWL_FILE_FILTER, properties: ['openFile'] });
  const file = choice.filePaths[0];
  if (choice.canceled || !file) return { canceled: true };
  const crawl = await service.importCrawlFile(createReadStream(file), basename(file));
  return { crawl };
}

/** The save dialog, then `write` into `<path>.part`, renamed to the chosen path once complete. */
async function saveWithDialog(
  showSaveDialog: SaveDialog,
  title: string,
  defaultPath: string,
  write: (out: Writable) => Promise<{ rows: number }>,
  filters = CSV_FILTER,
): Promise<ExportResult> {
  const choice = await showSaveDialog({ title, defaultPath, filters });
  if (choice.canceled || !choice.filePath) return { rows: 0, canceled: true };
  const path = choice.filePath;
  const part = `${path}.part`;
  const out = createWriteStream(part);
  try {
    const { rows } = await write(out);
    if (!out.writableEnded) out.end();
    await finished(out);
    await rename(part, path);
    return { rows, path };
  } catch (error) {
    // The file may still be opening: wait until the stream has closed it, or the rm runs first and the open makes it again.
    if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()).destroy());
    await rm(part, { force: true });
    throw error;
  }
}
