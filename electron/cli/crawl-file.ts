/**
 * The CLI's crawl-file commands: `export-crawl ID FILE` writes everything a crawl holds as one file
 * (service.exportCrawlFile), `import-crawl FILE` opens one as a new crawl (service.importCrawlFile,
 * which checks the whole file before the crawl enters the catalog).
 */
import { createReadStream, createWriteStream, promises as fsp } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import type { CrawlService } from '../service/types.js';

/** Streams crawl `id` into `file`; a failed write leaves no partial file. Resolves with the bytes written. */
export async function exportCrawlToFile(service: CrawlService, id: string, file: string): Promise<number> {
  service.get(id); // an unknown crawl fails before any file is made
  const out = createWriteStream(file);
  try {
    const { bytes } = await service.exportCrawlFile(id, out);
    if (!out.writableEnded) out.end();
    if (!out.writableFinished) await once(out, 'finish');
    return bytes;
  } catch (err) {
    out.destroy();
    if (!out.closed) await once(out, 'close').catch(() => undefined);
    await fsp.rm(file, { force: true });
    throw err;
  }
}

/** Opens crawl file `file` as a new crawl. */
export async function importCrawlFromFile(service: CrawlService, file: string) {
  try {
    await fsp.access(file);
  } catch (err) {
    throw Object.assign(new Error(`The crawl file ${file} cannot be read: ${(err as Error).message}`), { code: 'NOT_FOUND' });
  }
  return service.importCrawlFile(createReadStream(file), path.basename(file));
}
