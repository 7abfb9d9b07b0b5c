/**
 * Browser mode's CSV downloads: the export is written to a private temp file, then offered once
 * under an unguessable id; the file is deleted after it is sent or when it expires.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';

interface Pending {
  path: string;
  fileName: string;
  timer: NodeJS.Timeout;
}

/** One-time downloads of files written into a private temp folder. */
export class DownloadRegistry {
  private dir: Promise<string> | null = null;
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly ttlMs = 10 * 60_000) {}

  /** Writes a file through `write`, then registers it; returns the download id. */
  async create(fileName: string, write: (out: Writable) => Promise<void>): Promise<string> {
    this.dir ??= mkdtemp(join(tmpdir(), 'spinneret-web-'));
    const dir = await this.dir;
    const id = randomBytes(24).toString('base64url');
    const path = join(dir, `${id}.csv`);
    const out = createWriteStream(path, { mode: 0o600 });
    try {
      await write(out);
      if (!out.writableEnded) out.end();
      await finished(out);
    } catch (error) {
      out.destroy();
      await rm(path, { force: true });
      throw error;
    }
    const timer = setTimeout(() => void this.discard(id), this.ttlMs);
    timer.unref();
    this.pending.set(id, { path, fileName, timer });
    return id;
  }

  /** Takes a download out of the registry (it can be fetched once); null when unknown or used. */
  take(id: string): { path: string; fileName: string; done: () => Promise<void> } | null {
    const entry = this.pending.get(id);
    if (!entry) return null;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    return { path: entry.path, fileName: entry.fileName, done: () => rm(entry.path, { force: true }) };
  }

  private async discard(id: string): Promise<void> {
    const entry = this.take(id);
    await entry?.done();
  }

  /** Deletes every pending file and the temp folder. */
  async close(): Promise<void> {
    for (const id of [...this.pending.keys()]) await this.discard(id);
    if (this.dir) await rm(await this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}

/** A file name safe in a Content-Disposition header and on any file system. */
export function csvFileName(crawlName: string): string {
  const base = crawlName
    .normalize('NFKD')
    .replace(/[^\w.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 80);
  return `${base || 'crawl'}.csv`;
}
