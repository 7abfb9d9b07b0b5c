/**
 * Reading journals: replay (one pass, batch by batch, dropping a torn tail, salvaging what damage in
 * the middle left: journal-salvage.ts) and RecordReader (one record by its offset, for the URL
 * table, the detail pane and CSV export).
 */
import fs from 'node:fs';
import { REC_CHECKPOINT, REC_END } from './format.js';
import { Salvage, type SalvageStats } from './salvage.js';
import type { JournalWriter } from './writer.js';

export interface ReplayStats {
  /** End of the last complete batch: where appending resumes. */
  committedLength: number;
  /** Bytes after it (a batch a kill interrupted, or a torn last line), dropped. */
  droppedBytes: number;
  /** Lines inside complete batches that could not be read (damage), skipped. */
  badLines: number;
  batches: number;
  records: number;
  /** What damage cost, and where it is (all zero for a sound journal). */
  salvage: SalvageStats;
}

const CHUNK = 4 * 1024 * 1024;

/** Splits chunks into lines and hands the records of complete batches on, in order. */
export class BatchReplayer {
  private readonly salvage = new Salvage();
  readonly stats: ReplayStats = { committedLength: 0, droppedBytes: 0, badLines: 0, batches: 0, records: 0, salvage: this.salvage.stats };
  private readonly staged: unknown[][] = [];
  private readonly stagedOffsets: number[] = [];
  private line = 0;

  /** `onEnd` sees each batch's END (or CHECKPOINT) record after the batch was applied. */
  constructor(
    private readonly apply: (rec: unknown[], offset: number) => void,
    private readonly onEnd?: (rec: unknown[]) => void,
  ) {}

  /** True once the replay renumbered ids (a damaged journal): records read back by offset need remapLinks(). */
  get renumbered(): boolean {
    return this.salvage.renumbered;
  }

  /** A LINKS record read back by offset, in the replay's numbering (see Salvage.remapLinks). */
  remapLinks(rec: unknown[]): unknown[] {
    return this.salvage.remapLinks(rec);
  }

  /** Consumes the complete lines of buf[0, end) (file offset `pos`); returns the bytes consumed. */
  feed(buf: Buffer, end: number, pos: number): number {
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl === -1 || nl >= end) break;
      const offset = pos + start;
      let rec: unknown;
      try {
        rec = JSON.parse(buf.toString('utf8', start, nl));
      } catch {
        rec = undefined;
      }
      const bytes = nl + 1 - start;
      start = nl + 1;
      this.line++;
      if (!Array.isArray(rec) || typeof rec[0] !== 'number') {
        this.salvage.bad(bytes, offset, this.line);
        continue;
      }
      const kept = this.salvage.check(rec, bytes, offset, this.line);
      if (kept === null) continue;
      const type = kept[0];
      if (type === REC_END || type === REC_CHECKPOINT) {
        for (let i = 0; i < this.staged.length; i++) this.apply(this.staged[i]!, this.stagedOffsets[i]!);
        this.stats.records += this.staged.length;
        this.staged.length = 0;
        this.stagedOffsets.length = 0;
        if (type === REC_CHECKPOINT) this.apply(kept, offset);
        this.onEnd?.(kept);
        this.salvage.commit();
        this.stats.batches++;
        this.stats.committedLength = pos + start;
        this.stats.badLines = this.salvage.stats.badLines;
      } else {
        this.staged.push(kept);
        this.stagedOffsets.push(offset);
      }
    }
    return start;
  }

  finish(size: number): ReplayStats {
    this.stats.droppedBytes = size - this.stats.committedLength;
    return this.stats;
  }
}

/**
 * Replays a journal: `apply` sees every record of every complete batch, in order, with its offset;
 * the lines of an unfinished last batch are dropped. Reads in chunks and yields between them so a
 * big replay does not stall the event loop.
 */
export function replayJournal(
  path: string,
  apply: (rec: unknown[], offset: number) => void,
  onReplayer?: (replayer: BatchReplayer) => void,
): Promise<ReplayStats> {
  const replayer = new BatchReplayer(apply);
  onReplayer?.(replayer);
  return feedJournal(path, replayer);
}

/** Reads a journal through `replayer` in chunks, yielding between them. */
export async function feedJournal(path: string, replayer: BatchReplayer): Promise<ReplayStats> {
  const fh = await fs.promises.open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    let buf: Buffer = Buffer.allocUnsafe(CHUNK);
    let pos = 0; // file offset of buf[0]
    let carry = 0; // bytes at the start of buf not consumed yet (an unfinished line)
    while (pos + carry < size) {
      if (carry === buf.length) buf = grow(buf, carry);
      const { bytesRead } = await fh.read(buf, carry, buf.length - carry, pos + carry);
      if (bytesRead === 0) break;
      const end = carry + bytesRead;
      const used = replayer.feed(buf, end, pos);
      buf.copy(buf, 0, used, end);
      pos += used;
      carry = end - used;
      await new Promise<void>((r) => setImmediate(r));
    }
    return replayer.finish(size);
  } finally {
    await fh.close();
  }
}

/** replayJournal without yielding: for a synchronous first look at a crawl. */
export function replayJournalSync(path: string, apply: (rec: unknown[], offset: number) => void, onReplayer?: (replayer: BatchReplayer) => void): ReplayStats {
  const replayer = new BatchReplayer(apply);
  onReplayer?.(replayer);
  const fd = fs.openSync(path, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    let buf: Buffer = Buffer.allocUnsafe(CHUNK);
    let pos = 0;
    let carry = 0;
    while (pos + carry < size) {
      if (carry === buf.length) buf = grow(buf, carry);
      const bytesRead = fs.readSync(fd, buf, carry, buf.length - carry, pos + carry);
      if (bytesRead === 0) break;
      const end = carry + bytesRead;
      const used = replayer.feed(buf, end, pos);
      buf.copy(buf, 0, used, end);
      pos += used;
      carry = end - used;
    }
    return replayer.finish(size);
  } finally {
    fs.closeSync(fd);
  }
}

function grow(buf: Buffer, keep: number): Buffer {
  // One line longer than the buffer.
  const bigger = Buffer.allocUnsafe(buf.length * 2);
  buf.copy(bigger, 0, 0, keep);
  return bigger;
}

/** Reads single records by offset through a window, fast when offsets come in increasing order. */
export class RecordReader {
  private fd: number | null = null;
  private buf: Buffer;
  private winStart = 0;
  private winLen = 0;

  /** The writer appending to this journal: offsets past what it wrote are served from its pending lines. */
  writer: JournalWriter | null = null;

  constructor(
    private readonly path: string,
    windowBytes = 256 * 1024,
  ) {
    this.buf = Buffer.allocUnsafe(windowBytes);
  }

  /** The record at `offset` (parsed), or undefined when there is none. */
  read(offset: number): unknown[] | undefined {
    const line = this.readLine(offset);
    if (line === undefined) return undefined;
    try {
      const rec = JSON.parse(line);
      return Array.isArray(rec) ? rec : undefined;
    } catch {
      return undefined;
    }
  }

  /** The raw line at `offset`, without its newline. */
  readLine(offset: number): string | undefined {
    if (!(offset >= 0)) return undefined;
    if (this.writer && offset >= this.writer.durableLength) {
      const line = this.writer.pendingLineAt(offset);
      return line === undefined ? undefined : line.slice(0, -1);
    }
    let filled = false;
    for (;;) {
      if (offset >= this.winStart && offset < this.winStart + this.winLen) {
        const from = offset - this.winStart;
        const nl = this.buf.indexOf(10, from);
        if (nl !== -1 && nl < this.winLen) return this.buf.toString('utf8', from, nl);
        if (filled) {
          if (this.winLen < this.buf.length) return undefined; // the file ends without a newline here
          this.buf = Buffer.allocUnsafe(this.buf.length * 2); // a line longer than the window
        }
      } else if (filled) {
        return undefined; // past the end of the file
      }
      this.fill(offset);
      filled = true;
    }
  }

  /** Forgets the window (the file was appended to or cut). */
  invalidate(): void {
    this.winLen = 0;
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
    this.winLen = 0;
  }

  private fill(offset: number): void {
    this.fd ??= fs.openSync(this.path, 'r');
    this.winStart = offset;
    this.winLen = fs.readSync(this.fd, this.buf, 0, this.buf.length, offset);
  }
}
