/**
 * CSV export in the app: a save dialog, then the service streams the rows to a `.part` file that is
 * renamed into place once complete, so a failed export never leaves half a file under the chosen name.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { ExportResult } from '../../shared/contract.js';
import type { UrlQuery } from '../../shared/model.js';
import type { CrawlService } from '../service/types.js';
import { exportFileName } from '../renderer-host/downloads.js';

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
  const choice = await showSaveDialog({
    title: 'Export URLs to CSV',
    defaultPath: join(defaultDir, name),
    filters: [{ name: 'CSV', extensions: ['csv'] }],
  });
  if (choice.canceled || !choice.filePath) return { rows: 0, canceled: true };
  const path = choice.filePath;
  const part = `${path}.part`;
  const out = createWriteStream(part);
  try {
    const { rows } = await service.exportCsv(id, out, filter);
    if (!out.writableEnded) out.end();
    await finished(out);
    await rename(part, path);
    return { rows, path };
  } catch (error) {
    out.destroy();
    await rm(part, { force: true });
    throw error;
  }
}
