/**
 * JournalWriter: appends lines to a crawl's journal in batches. Lines accumulate in memory and are
 * written by flush() in one synchronous write followed by the batch's END (or CHECKPOINT) line.
 *
 * Synchronous writes on purpose: a batch reaches the kernel before the crawler moves on, so a kill
 * (SIGKILL) loses at most the batch being written, and the order of batches is the order of events.
 * A write lands in the page cache in microseconds; fsync (sync()) is separate and asynchronous,
 * used before a checkpoint is copied to the catalog so that power loss cannot leave it pointing
 * past the end of the file.
 */
import fs from 'node:fs';
import type { CrawlLogEntry } from '../../../shared/model.js';
import { ServiceError } from '../errors.js';
import { REC_END } from './format.js';
import { BatchReplayer, feedJournal, type ReplayStats } from './reader.js';

/** Test seam: throw from these (e.g. an ENOSPC or EACCES error) to simulate a fault. */
export interface JournalFaults {
  /** Before the journal is opened for appending. */
  beforeOpen?(path: string): void;
  /** Before each write, with its size. */
  beforeWrite?(path: string, bytes: number): void;
}

/** Initial (and resting) size of the batch buffer. */
const BUFFER_BYTES = 1 << 20;

export class JournalWriter {
  private fd: number;
  /** Bytes in the file that belong to complete batches. */
  private written: number;
  /** The batch being built: UTF-8 lines, encoded as they are appended (no string kept per line). */
  private buf: Buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;
  /**
   * Start of each pending line within `buf` (the first `lines`): a typed column kept from batch to
   * batch. A JS array rebuilt per batch lived a little longer than the young generation's turn, so
   * the collector copied it and then moved it to the old generation, ~110 KB per minor collection at
   * a million URLs (--trace-gc-nvp), garbage a full collection then had to find.
   */
  private starts = new Int32Array(4096);
  private lines = 0;
  /** Set when a failed write could not be undone: nothing more is written by this writer. */
  private broken: ServiceError | null = null;
  private closed = false;

  private constructor(
    readonly path: string,
    fd: number,
    length: number,
    private readonly faults?: JournalFaults,
  ) {
    this.fd = fd;
    this.written = length;
  }

  /**
   * Opens (creating it when absent) a journal for appending, cut back to `committedLength`: bytes past
   * it are a batch that a kill interrupted, already dropped by replay.
   */
  static open(path: string, committedLength: number, faults?: JournalFaults): JournalWriter {
    let fd: number;
    try {
      faults?.beforeOpen?.(path);
      fd = fs.openSync(path, 'a');
      const size = fs.fstatSync(fd).size;
      if (size > committedLength) fs.ftruncateSync(fd, committedLength);
      else if (size < committedLength) committedLength = size;
    } catch (err) {
      throw writeError(path, err);
    }
    return new JournalWriter(path, fd, committedLength, faults);
  }

  /** Offset the next appended line will have. */
  get size(): number {
    return this.written + this.used;
  }

  /** Bytes of complete batches in the file. */
  get durableLength(): number {
    return this.written;
  }

  /** Lines waiting for the next flush. */
  get pendingLines(): number {
    return this.lines;
  }

  get pendingSize(): number {
    return this.used;
  }

  /** Queues a line (ending in '\n'); returns its file offset. */
  append(line: string): number {
    const at = this.used;
    this.reserve(line.length * 3); // UTF-16 unit → at most 3 UTF-8 bytes
    this.used += this.buf.write(line, at, 'utf8');
    this.addStart(at);
    return this.written + at;
  }

  /**
   * Queues `[a,b,c,d,e,` + text + `]\n` (an ADMIT line whose entry the parse worker wrote: see
   * admitFits in format.ts) straight into the batch buffer, without building the line as a string
   * first. Returns its offset.
   */
  appendRecord(a: number, b: number, c: number, d: number, e: number, text: string): number {
    const at = this.used;
    this.reserve(5 * 22 + 3 + text.length * 3);
    const buf = this.buf;
    let p = at;
    buf[p++] = 0x5b; // [
    p = writeInt(buf, p, a);
    p = writeInt(buf, p, b);
    p = writeInt(buf, p, c);
    p = writeInt(buf, p, d);
    p = writeInt(buf, p, e);
    p += buf.write(text, p, 'utf8');
    buf[p++] = 0x5d; // ]
    buf[p++] = 0x0a;
    this.used = p;
    this.addStart(at);
    return this.written + at;
  }

  /** A line still waiting to be written, by its offset. */
  pendingLineAt(offset: number): string | undefined {
    const rel = offset - this.written;
    const starts = this.starts;
    const n = this.lines;
    let lo = 0;
    let hi = n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = starts[mid]!;
      if (v === rel) return this.buf.toString('utf8', v, mid + 1 < n ? starts[mid + 1]! : this.used);
      if (v < rel) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /**
   * Writes the pending lines and `endLine` (the batch's END or CHECKPOINT line) in one write.
   * On failure the partial write is cut off again and the lines stay pending for a retry;
   * throws ServiceError JOURNAL_WRITE_FAILED.
   */
  flush(endLine: string): void {
    if (this.broken) throw this.broken;
    if (this.closed) throw new ServiceError('JOURNAL_WRITE_FAILED', `The journal ${this.path} is closed.`);
    const linesEnd = this.used;
    this.reserve(endLine.length * 3);
    const total = linesEnd + this.buf.write(endLine, linesEnd, 'utf8');
    try {
      this.faults?.beforeWrite?.(this.path, total);
      let done = 0;
      while (done < total) done += fs.writeSync(this.fd, this.buf, done, total - done);
    } catch (err) {
      const e = writeError(this.path, err);
      try {
        fs.ftruncateSync(this.fd, this.written);
      } catch {
        this.broken = e;
      }
      throw e;
    }
    this.written += total;
    this.used = 0;
    this.lines = 0;
    // A batch that grew the buffer (a huge checkpoint) does not keep it.
    if (this.buf.length > 4 * BUFFER_BYTES) this.buf = Buffer.allocUnsafe(BUFFER_BYTES);
    if (this.starts.length > 16 * 4096) this.starts = new Int32Array(4096);
  }

  /** fdatasync: what has been written so far survives a power cut once this resolves. */
  sync(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      fs.fdatasync(this.fd, (err) => (err ? reject(writeError(this.path, err)) : resolve()));
    });
  }

  /** Closes the file; pending lines that were not flushed are dropped. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      fs.closeSync(this.fd);
    } catch {
      // Already closed by the OS: nothing left to release.
    }
  }

  private addStart(at: number): void {
    if (this.lines === this.starts.length) {
      const bigger = new Int32Array(this.starts.length * 2);
      bigger.set(this.starts);
      this.starts = bigger;
    }
    this.starts[this.lines++] = at;
  }

  /** Makes room for `bytes` more in the batch buffer. */
  private reserve(bytes: number): void {
    if (this.used + bytes <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.used + bytes) size *= 2;
    const bigger = Buffer.allocUnsafe(size);
    this.buf.copy(bigger, 0, 0, this.used);
    this.buf = bigger;
  }
}

/** Writes `n` and a comma at `p` (as String(n) would spell it); returns the position after them. */
function writeInt(buf: Buffer, p: number, n: number): number {
  if ((n | 0) !== n) {
    p += buf.write(String(n), p, 'latin1'); // past 32 bits, or not an integer: rare
  } else {
    if (n < 0) {
      buf[p++] = 0x2d; // -
      n = -n; // -2^31 becomes 2^31, still exact below
    }
    let end = p;
    for (let v = n; v >= 10; v = (v / 10) >>> 0) end++;
    for (let i = end; i >= p; i--) {
      buf[i] = 0x30 + (n % 10);
      n = (n / 10) >>> 0;
    }
    p = end + 1;
  }
  buf[p] = 0x2c; // ,
  return p + 1;
}

/** A ServiceError JOURNAL_WRITE_FAILED that says what failed and what to do. */
export function writeError(path: string, err: unknown): ServiceError {
  const code = (err as NodeJS.ErrnoException)?.code;
  const why =
    code === 'ENOSPC'
      ? 'the disk is full; free some space, then resume the crawl'
      : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'permission denied; make the folder writable, then resume the crawl'
        : `${(err as Error)?.message ?? String(err)}; resume the crawl once the cause is fixed`;
  return new ServiceError('JOURNAL_WRITE_FAILED', `Could not write the crawl journal ${path}: ${why}.`, { cause: err });
}

/** What repairJournal did. */
export interface RepairedJournal {
  /** The replay of the damaged journal: what was lost, and where. */
  stats: ReplayStats;
  /** Where the damaged journal was kept. */
  kept: string;
}

/**
 * Rewrites a damaged journal as its salvage reads it (journal-salvage.ts): the records kept, ids
 * renumbered, batches as they were, then a batch with `note(stats, kept)` as a LOG record. The damaged file
 * is kept beside it (journal.damaged-<time>.jsonl); the new one replaces it in one rename. Needed
 * before a salvaged crawl is written to again: new records carry the renumbered ids.
 */
export async function repairJournal(path: string, note: (stats: ReplayStats, kept: string) => CrawlLogEntry, now = Date.now()): Promise<RepairedJournal> {
  const tmp = `${path}.repair`;
  const kept = path.replace(/\.jsonl$/, '') + `.damaged-${now}.jsonl`;
  let fd: number;
  try {
    fd = fs.openSync(tmp, 'w');
  } catch (err) {
    throw writeError(tmp, err);
  }
  try {
    let pending: string[] = [];
    let pendingBytes = 0;
    const write = (line: string) => {
      pending.push(line);
      pendingBytes += line.length;
      if (pendingBytes >= BUFFER_BYTES) drain();
    };
    const drain = () => {
      if (pending.length) fs.writeSync(fd, pending.join(''));
      pending = [];
      pendingBytes = 0;
    };
    const replayer = new BatchReplayer(
      (rec) => write(JSON.stringify(rec) + '\n'),
      (end) => {
        if (end[0] === REC_END) write('[7]\n'); // a CHECKPOINT ending a batch went through apply
      },
    );
    const stats = await feedJournal(path, replayer);
    write('[4,' + JSON.stringify(note(stats, kept)) + ']\n[7]\n');
    drain();
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = -1;
    try {
      fs.linkSync(path, kept);
    } catch {
      fs.copyFileSync(path, kept);
    }
    fs.renameSync(tmp, path);
    return { stats, kept };
  } catch (err) {
    if (fd >= 0) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err instanceof ServiceError ? err : writeError(path, err);
  }
}
