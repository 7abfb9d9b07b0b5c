/**
 * CSV export in the app (the URL table's, or links): a save dialog, then the service streams the rows
 * to a `.part` file that is renamed into place once complete, so a failed export never leaves half a
 * file under the chosen name.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { ExportResult } from '../../shared/contract.js';
import type { UrlQuery } from '../../shared/model.js';
import type { Writable } from 'node:stream';
import type { CrawlService, LinksExport } from '../service/types.js';
import { exportFileName, linksFileName } from '../renderer-host/downloads.js';

export interface SaveDialog {
  (options: { title: string; defaultPath: string; filters: { name: string; extensions: string[] }[] }): Promise<{ canceled: boolean; filePath?: string }>;
}

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
  const title = opts.urlId === undefined ? 'Export all links to CSV' : opts.direction === 'out' ? 'Export outlinks to CSV' : 'Export inlinks to CSV';
  return saveWithDialog(showSaveDialog, title, join(defaultDir, name), (out) => service.exportLinks(id, out, opts));
}

/** The save dialog, then `write` into `<path>.part`, renamed to the chosen path once complete. */
async function saveWithDialog(
  showSaveDialog: SaveDialog,
  title: string,
  defaultPath: string,
  write: (out: Writable) => Promise<{ rows: number }>,
): Promise<ExportResult> {
  const choice = await showSaveDialog({ title, defaultPath, filters: [{ name: 'CSV', extensions: ['csv'] }] });
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
