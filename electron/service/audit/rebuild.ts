/**
 * Rebuilding the sitemap audit of a reopened crawl after the crawl is ready, so reopening does not
 * wait for it: a second pass over the journal, in small chunks between which the event loop runs.
 * Events of a crawl resumed meanwhile are not buffered: they are journalled, so the pass reads them
 * too; once it reaches the end of the file it takes the lines the writer has not written yet, in the
 * same synchronous step, and hands the audit to the live hooks. The audit then holds exactly what a
 * replay (or a crawl never interrupted) would.
 */
import fs from 'node:fs';
import type { SitemapNode } from '../../../shared/model.js';
import type { CrawlData } from '../data/crawl-data.js';
import { BatchReplayer } from '../journal/reader.js';

/** Where the journal ends right now (read again before every chunk: a resumed crawl appends to it). */
export interface JournalEnd {
  /** Bytes of complete batches in the file. */
  durableLength(): number;
  /** Records applied to CrawlData but not in the file yet, in order (lines pending in the writer). */
  pendingRecords(): Iterable<unknown[]>;
  /** Sitemap nodes applied to CrawlData but not journalled yet (written, coalesced, at the next flush). */
  pendingNodes(): Iterable<SitemapNode>;
}

/** Bytes read per step: a few thousand records, a few ms of work, so the crawl keeps its pace. */
const CHUNK = 256 * 1024;

/**
 * Feeds `data.audit` every audit record of the journal, then sets `data.auditLive`. Resolves false
 * when `cancelled()` turned true first (the crawl was closed); rejects when the file cannot be read.
 */
export async function rebuildAudit(path: string, data: CrawlData, end: JournalEnd, cancelled: () => boolean): Promise<boolean> {
  const replayer = new BatchReplayer((rec) => data.auditRecord(rec));
  const fh = await fs.promises.open(path, 'r');
  try {
    let buf: Buffer = Buffer.allocUnsafe(CHUNK);
    let pos = 0; // file offset of buf[0]
    let carry = 0; // bytes at the start of buf not consumed yet (an unfinished line)
    for (;;) {
      if (cancelled()) return false;
      const target = end.durableLength();
      if (pos + carry >= target) {
        // Caught up with the file: the rest is in memory, and nothing can interleave with this step.
        for (const rec of end.pendingRecords()) data.auditRecord(rec);
        for (const node of end.pendingNodes()) data.audit.node(node);
        data.auditLive = true;
        return true;
      }
      if (carry === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2); // one line longer than the buffer
        buf.copy(bigger, 0, 0, carry);
        buf = bigger;
      }
      const want = Math.min(buf.length - carry, target - pos - carry);
      const { bytesRead } = await fh.read(buf, carry, want, pos + carry);
      if (bytesRead === 0) throw new Error(`the journal ${path} ends at ${pos + carry} bytes, before the ${target} it was written to`);
      const stop = carry + bytesRead;
      const used = replayer.feed(buf, stop, pos);
      buf.copy(buf, 0, used, stop);
      pos += used;
      carry = stop - used;
      await new Promise<void>((r) => setImmediate(r));
    }
  } finally {
    await fh.close();
  }
}
