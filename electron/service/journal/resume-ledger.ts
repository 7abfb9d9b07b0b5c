/**
 * ResumeLedger: the discoveries a resumed crawler will report a second time, so they are absorbed
 * instead of being journalled and counted twice.
 *
 * Why there are any: the crawler's checkpoint is taken at a batch boundary, but later batches are on
 * disk too and are replayed (their results must not be fetched again). The sitemap list resumes from
 * the checkpoint, so it reads again the entries it handed out after it — in the same order, since it
 * reads one sitemap at a time in a fixed order. Those entries are all in the journal already: each
 * comes back as a duplicate and is matched here, in order, against what the journal holds.
 * Start-URL admissions come back the same way when the checkpoint predates the end of seeding.
 *
 * A checkpoint written while the ledger is not yet used up records how many entries remain
 * (CHECKPOINT's third element), so a second kill during the re-reading loses nothing either.
 */
import type { RequestSource } from '../../../shared/model.js';
import { column, ensureCapacity } from '../../engine/compact/typed-growth.js';

/** Visits one ledger entry: request id, FROM-table entry (-1 for a start URL), and whether it is a DUP. */
export type LedgerVisit = (id: number, ref: number, dup: boolean) => void;

/** A FIFO of (id, ref, dup) in typed arrays: a replay may hold hundreds of thousands of them. */
class EntryQueue {
  private ids = column(Int32Array);
  /** ref * 2 + (dup ? 1 : 0), ref + 1 so that -1 fits. */
  private packed = column(Int32Array);
  private head = 0;
  private tail = 0;

  get length(): number {
    return this.tail - this.head;
  }

  push(id: number, ref: number, dup: boolean): void {
    if (this.tail === this.ids.length) {
      if (this.head > 0) this.compact();
      if (this.tail === this.ids.length) {
        this.ids = ensureCapacity(this.ids, this.tail + 1);
        this.packed = ensureCapacity(this.packed, this.tail + 1);
      }
    }
    this.ids[this.tail] = id;
    this.packed[this.tail] = (ref + 1) * 2 + (dup ? 1 : 0);
    this.tail++;
  }

  peekId(): number {
    return this.ids[this.head]!;
  }

  peekRef(): number {
    return (this.packed[this.head]! >> 1) - 1;
  }

  /** Removes `n` entries from the front, visiting them. */
  shift(n: number, visit?: LedgerVisit): void {
    const end = Math.min(this.tail, this.head + n);
    if (visit) for (let i = this.head; i < end; i++) visit(this.ids[i]!, (this.packed[i]! >> 1) - 1, (this.packed[i]! & 1) === 1);
    this.head = end;
    if (this.head === this.tail) this.head = this.tail = 0;
  }

  /** Removes the first entry with this id (small queues only: start URLs). */
  removeId(id: number): boolean {
    for (let i = this.head; i < this.tail; i++) {
      if (this.ids[i] === id) {
        this.ids.copyWithin(i, i + 1, this.tail);
        this.packed.copyWithin(i, i + 1, this.tail);
        this.tail--;
        return true;
      }
    }
    return false;
  }

  private compact(): void {
    this.ids.copyWithin(0, this.head, this.tail);
    this.packed.copyWithin(0, this.head, this.tail);
    this.tail -= this.head;
    this.head = 0;
  }
}

export class ResumeLedger {
  private readonly sitemap = new EntryQueue();
  private readonly start = new EntryQueue();

  /** Entries still expected from the sitemap list. */
  get remaining(): number {
    return this.sitemap.length;
  }

  get empty(): boolean {
    return this.sitemap.length === 0 && this.start.length === 0;
  }

  /** Replay: a sitemap discovery (admission or DUP), in journal order. */
  pushSitemap(id: number, ref: number, dup: boolean): void {
    this.sitemap.push(id, ref, dup);
  }

  /** Replay: a start-URL discovery. */
  pushStart(id: number, dup: boolean): void {
    this.start.push(id, -1, dup);
  }

  /** Replay: a checkpoint covers all but the last `keep` sitemap entries; visits those it covers. */
  coverSitemap(keep: number, visit: LedgerVisit): void {
    // `keep` can exceed what there is when a salvaged journal lost some of them: then it covers none.
    this.sitemap.shift(Math.max(0, this.sitemap.length - Math.max(0, keep)), visit);
  }

  /** Replay: seeding is checkpointed as done; visits the start entries it covers. */
  coverStart(visit: LedgerVisit): void {
    this.start.shift(this.start.length, visit);
  }

  /**
   * Live: a duplicate reported by the resumed crawler. 'absorb' when it is the next expected one;
   * 'mismatch' when the crawler reports something else from that source (the sitemap changed on the
   * server, …): the caller then gives the ledger up; 'none' when the ledger has nothing to say.
   */
  match(source: RequestSource, id: number, ref: number): 'absorb' | 'mismatch' | 'none' {
    if (source === 'sitemap') {
      if (this.sitemap.length === 0) return 'none';
      if (this.sitemap.peekId() !== id || this.sitemap.peekRef() !== ref) return 'mismatch';
      this.sitemap.shift(1);
      return 'absorb';
    }
    if (source === 'start') return this.start.removeId(id) ? 'absorb' : 'none';
    return 'none';
  }

  /** Live: whether a new URL from this source means the re-reading has diverged from the journal. */
  expects(source: RequestSource): boolean {
    return source === 'sitemap' && this.sitemap.length > 0;
  }

  /** Gives everything up, visiting the unused entries (their DUP discoveries go to the queue). */
  drain(visitSitemap: LedgerVisit, visitStart: LedgerVisit): void {
    this.sitemap.shift(this.sitemap.length, visitSitemap);
    this.start.shift(this.start.length, visitStart);
  }
}
