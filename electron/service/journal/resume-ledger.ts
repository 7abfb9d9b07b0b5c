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
import { column, ensureCapacity } from '../../engine/index.js';

/**
 * Visits ledger entries: request id, FROM-table entry (-1 for a start URL), whether they are DUPs,
 * and how many discoveries alike in a row (a DUPS record's count, or one).
 */
export type LedgerVisit = (id: number, ref: number, dup: boolean, n: number) => void;

/**
 * A FIFO of discoveries (id, ref, dup), runs of alike ones as one entry with a count, in typed
 * arrays: a replay may hold hundreds of thousands of them, and a sitemap repeating one URL a million
 * times is one entry. Its length counts discoveries, not entries.
 */
class EntryQueue {
  private ids = column(Int32Array);
  /** ref * 2 + (dup ? 1 : 0), ref + 1 so that -1 fits. */
  private packed = column(Int32Array);
  /** Discoveries each entry stands for (≥ 1). */
  private counts = column(Int32Array);
  private head = 0;
  private tail = 0;
  private total = 0;

  get length(): number {
    return this.total;
  }

  push(id: number, ref: number, dup: boolean, n = 1): void {
    const packed = (ref + 1) * 2 + (dup ? 1 : 0);
    const last = this.tail - 1;
    this.total += n;
    // Alike to the last entry: one run (the resumed list reports them one after another all the same).
    if (last >= this.head && this.ids[last] === id && this.packed[last] === packed && this.counts[last]! + n <= 0x7fff_ffff) {
      this.counts[last] += n;
      return;
    }
    if (this.tail === this.ids.length) {
      if (this.head > 0) this.compact();
      if (this.tail === this.ids.length) {
        this.ids = ensureCapacity(this.ids, this.tail + 1);
        this.packed = ensureCapacity(this.packed, this.tail + 1);
        this.counts = ensureCapacity(this.counts, this.tail + 1);
      }
    }
    this.ids[this.tail] = id;
    this.packed[this.tail] = packed;
    this.counts[this.tail] = n;
    this.tail++;
  }

  peekId(): number {
    return this.ids[this.head]!;
  }

  peekRef(): number {
    return (this.packed[this.head]! >> 1) - 1;
  }

  /** Removes `n` discoveries from the front (the last run they reach possibly in part), visiting them. */
  shift(n: number, visit?: LedgerVisit): void {
    let left = Math.min(n, this.total);
    while (left > 0) {
      const i = this.head;
      const c = this.counts[i]!;
      const take = Math.min(c, left);
      visit?.(this.ids[i]!, (this.packed[i]! >> 1) - 1, (this.packed[i]! & 1) === 1, take);
      left -= take;
      this.total -= take;
      if (take === c) this.head++;
      else this.counts[i] = c - take;
    }
    if (this.head === this.tail) this.head = this.tail = 0;
  }

  /** Removes one discovery of this id, the first (small queues only: start URLs). */
  removeId(id: number): boolean {
    for (let i = this.head; i < this.tail; i++) {
      if (this.ids[i] !== id) continue;
      this.total--;
      if (this.counts[i]! > 1) {
        this.counts[i]--;
        return true;
      }
      this.ids.copyWithin(i, i + 1, this.tail);
      this.packed.copyWithin(i, i + 1, this.tail);
      this.counts.copyWithin(i, i + 1, this.tail);
      this.tail--;
      return true;
    }
    return false;
  }

  private compact(): void {
    this.ids.copyWithin(0, this.head, this.tail);
    this.packed.copyWithin(0, this.head, this.tail);
    this.counts.copyWithin(0, this.head, this.tail);
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

  /** Replay: a sitemap discovery (admission or DUP; `n` of them alike for a DUPS record), in journal order. */
  pushSitemap(id: number, ref: number, dup: boolean, n = 1): void {
    this.sitemap.push(id, ref, dup, n);
  }

  /** Replay: a start-URL discovery. */
  pushStart(id: number, dup: boolean, n = 1): void {
    this.start.push(id, -1, dup, n);
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
