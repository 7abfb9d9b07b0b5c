/**
 * Salvage of a damaged journal: a few bad bytes in the middle must not make a crawl unreadable.
 * Replay (journal-reader.ts) passes every parsed line through a Salvage, which keeps what can be
 * shown to be consistent and counts the rest:
 *
 * - a line that is not JSON, or not a record of its type's shape, is lost;
 * - ADMIT ids are dense and in order (the queue's ids are positions). An ADMIT whose id skips ahead
 *   after a loss stands for the ADMITs lost there: the ids in between are lost, and every later id
 *   is renumbered down so the frontier stays dense. An id that skips ahead with nothing lost before
 *   it, or goes back, is itself damage;
 * - a DUP (DUPS) or RESULT of an id never admitted (or lost) is dropped, as is a DUP naming a FROM entry
 *   that was never defined (or a page that was lost);
 * - an ADMIT whose `from` names something lost keeps its URL and loses only that reference (dropping
 *   it would drop every URL found from it, down the whole tree).
 *
 * Journals without damage pass through unchanged (the ids map to themselves). The decisions depend
 * on the file alone, so a second pass over the same journal (the audit's rebuild) sees the same
 * records. A crawl resumed after a salvage gets its journal rewritten first (repairJournal), since
 * new records are written with the renumbered ids.
 */
import { REC_ADMIT, REC_CHECKPOINT, REC_DUP, REC_DUPS, REC_END, REC_FROM, REC_LOG, REC_LINKS, REC_NODE, REC_RESULT, REC_ROBOTS } from './format.js';

/** What a replay lost to damage (journal lines, and the records dropped because they needed them). */
export interface SalvageStats {
  /** Damaged lines: not JSON, not a record of their type's shape, or contradicting what came before. */
  badLines: number;
  /** Readable records dropped because they refer to something lost. */
  droppedRecords: number;
  /** URLs (ADMIT records) known to be lost: ids skipped, or admissions dropped. */
  lostUrls: number;
  /** References to lost records cleared from URLs that were kept. */
  clearedRefs: number;
  /** First and last damaged line (1-based), and the bytes from the first's start to the last's end. */
  firstLine: number;
  lastLine: number;
  firstByte: number;
  lastByte: number;
}

export function emptySalvageStats(): SalvageStats {
  return { badLines: 0, droppedRecords: 0, lostUrls: 0, clearedRefs: 0, firstLine: 0, lastLine: 0, firstByte: 0, lastByte: 0 };
}

/** Whether a replay dropped anything. */
export function isDamaged(s: SalvageStats): boolean {
  return s.badLines > 0 || s.droppedRecords > 0 || s.lostUrls > 0 || s.clearedRefs > 0;
}

/** One sentence saying what was lost and where. */
export function describeLoss(s: SalvageStats): string {
  const n = s.badLines;
  const where =
    s.firstLine === s.lastLine ? `line ${s.firstLine} (byte ${s.firstByte})` : `lines ${s.firstLine}–${s.lastLine} (bytes ${s.firstByte}–${s.lastByte})`;
  let text = `${n} damaged line${n === 1 ? '' : 's'} at ${where}`;
  if (s.droppedRecords) text += ` and ${s.droppedRecords} later record${s.droppedRecords === 1 ? '' : 's'} that depended on ${n === 1 ? 'it' : 'them'}`;
  text += ` ${n + s.droppedRecords === 1 ? 'was' : 'were'} dropped: `;
  text += s.lostUrls ? `${s.lostUrls} URL${s.lostUrls === 1 ? '' : 's'} lost` : 'no URL lost';
  if (s.clearedRefs) text += `, ${s.clearedRefs} kept without where ${s.clearedRefs === 1 ? 'it was' : 'they were'} found`;
  return text + '; everything else was kept.';
}

/** The smallest ADMIT line there is (`[0,1,0,0,-1,"http://a/"]` is 25 bytes): bounds how many ADMITs a lost stretch held. */
const MIN_ADMIT_BYTES = 16;

/** Checks and renumbers records in journal order; see the file comment. */
export class Salvage {
  /** Pending until the batch they are in is complete (a torn last batch is no damage, just dropped). */
  private pending = emptySalvageStats();
  readonly stats = emptySalvageStats();

  /** The next ADMIT id in the file's numbering, and in the replay's. */
  private fileNext = 0;
  private next = 0;
  /** Ids (file numbering) lost, as sorted [start, end) ranges with the total lost before each range's end. */
  private lostStart: number[] = [];
  private lostEnd: number[] = [];
  private lostBefore: number[] = [];
  /** ADMITs a loss since the last kept ADMIT may have held. */
  private mayHaveLost = 0;
  /** FROM entries defined so far (one bit each: there is one per sitemap, and per page URL that is no key). */
  private froms = new Uint8Array(64);

  /** True once ids were renumbered: records read back from the file by offset need remapLinks(). */
  get renumbered(): boolean {
    return this.lostEnd.length > 0;
  }

  /**
   * A LINKS record read back from the file (by offset, after the replay kept it) in the replay's
   * numbering: its page and the targets named by id renumbered as check() did, links to lost URLs left
   * out. A record written before a loss maps the same whenever it is read: later losses only concern
   * later ids.
   */
  remapLinks(r: unknown[]): unknown[] {
    if (!this.renumbered || r[0] !== REC_LINKS || !isInt(r[1]) || !Array.isArray(r[2])) return r;
    const id = this.map(r[1]);
    const links = this.mapTargets(r[2] as unknown[]);
    return id === r[1] && links === r[2] ? r : [r[0], id, links];
  }

  private mapTargets(targets: unknown[]): unknown[] {
    if (this.lostEnd.length === 0) return targets;
    const links: unknown[] = [];
    for (const t of targets) {
      if (!Array.isArray(t) || typeof t[0] !== 'number') links.push(t);
      else {
        const to = this.map(t[0]);
        if (to >= 0) links.push(to === t[0] ? t : [to, ...t.slice(1)]);
      }
    }
    return links;
  }

  /** A line that could not be parsed: `bytes` long, at `offset`, the `line`th of the file. */
  bad(bytes: number, offset: number, line: number): void {
    this.lose(bytes, offset, line);
  }

  /**
   * The record to apply for `r` (itself, or a renumbered copy), or null when it is dropped. END and
   * CHECKPOINT records are checked here too; `commit()` then makes the batch's losses final.
   */
  check(r: unknown[], bytes: number, offset: number, line: number): unknown[] | null {
    switch (r[0]) {
      case REC_ADMIT:
        return this.admit(r, bytes, offset, line);
      case REC_DUP:
      case REC_DUPS: {
        if (!isInt(r[1]) || !isInt(r[2]) || r[2] < 0 || !isInt(r[3])) return this.lose(bytes, offset, line);
        if (r[0] === REC_DUPS && !(isInt(r[4]) && r[4] >= 1)) return this.lose(bytes, offset, line);
        const id = this.map(r[1]);
        const from = this.mapFrom(r[3]);
        if (id < 0 || from === undefined) return this.drop();
        return id === r[1] && from === r[3] ? r : withAt(withAt(r, 1, id), 3, from);
      }
      case REC_RESULT: {
        if (!isInt(r[1]) || !isInt(r[2]) || r[2] < 0 || !isObject(r[3]) || (r[4] !== undefined && !isObject(r[4]))) return this.lose(bytes, offset, line);
        const id = this.map(r[1]);
        if (id < 0) return this.drop();
        return id === r[1] ? r : withAt(r, 1, id);
      }
      case REC_LINKS: {
        if (!isInt(r[1]) || !Array.isArray(r[2])) return this.lose(bytes, offset, line);
        const id = this.map(r[1]);
        if (id < 0) return this.drop();
        // Targets named by id follow the renumbering; a link to a lost URL is left out.
        const links = this.mapTargets(r[2] as unknown[]);
        return id === r[1] && links === r[2] ? r : [r[0], id, links];
      }
      case REC_NODE:
        return isNode(r[1]) ? r : this.lose(bytes, offset, line);
      case REC_LOG:
        return isObject(r[1]) ? r : this.lose(bytes, offset, line);
      case REC_FROM: {
        if (!isInt(r[1]) || r[1] < 0 || typeof r[2] !== 'string') return this.lose(bytes, offset, line);
        if (this.fromDefined(r[1])) return this.lose(bytes, offset, line); // defined twice: one of them is damaged
        this.defineFrom(r[1]);
        return r;
      }
      case REC_CHECKPOINT:
        return isObject(r[1]) && (r[2] === undefined || isInt(r[2])) ? r : this.lose(bytes, offset, line);
      case REC_ROBOTS:
        return typeof r[1] === 'string' && isObject(r[2]) ? r : this.lose(bytes, offset, line);
      case REC_END:
        return r.length === 1 ? r : this.lose(bytes, offset, line);
      default:
        return this.lose(bytes, offset, line);
    }
  }

  /** The batch ended (END or CHECKPOINT kept): its losses are real. */
  commit(): void {
    const p = this.pending;
    if (p.badLines || p.droppedRecords || p.lostUrls || p.clearedRefs) {
      const s = this.stats;
      if (p.firstLine > 0) {
        if (s.firstLine === 0) {
          s.firstLine = p.firstLine;
          s.firstByte = p.firstByte;
        }
        s.lastLine = p.lastLine;
        s.lastByte = p.lastByte;
      }
      s.badLines += p.badLines;
      s.droppedRecords += p.droppedRecords;
      s.lostUrls += p.lostUrls;
      s.clearedRefs += p.clearedRefs;
      this.pending = emptySalvageStats();
    }
  }

  private admit(r: unknown[], bytes: number, offset: number, line: number): unknown[] | null {
    const id = r[1];
    const url = r[5];
    if (
      !isInt(id) ||
      id < 0 ||
      !isInt(r[2]) ||
      r[2] < 0 ||
      !isInt(r[3]) ||
      r[3] < 0 ||
      !isInt(r[4]) ||
      typeof url !== 'string' ||
      url.length === 0 ||
      (r.length > 9 && r[9] !== null && !isObject(r[9]))
    ) {
      return this.lose(bytes, offset, line);
    }
    if (id !== this.fileNext) {
      // Ids skipped: the ADMITs of a lost stretch, if one that large was lost just before; else this id is the damage.
      // (Most likely the ADMIT of the id expected next, its id damaged: the next one then skips that id.)
      if (id < this.fileNext || id - this.fileNext > this.mayHaveLost) return this.lose(bytes, offset, line);
      this.lostStart.push(this.fileNext);
      this.lostEnd.push(id);
      this.lostBefore.push(this.lostTotal() + (id - this.fileNext));
      this.pending.lostUrls += id - this.fileNext;
      this.fileNext = id;
    }
    const from = this.mapFrom(r[4]);
    this.fileNext++;
    const mapped = this.next++;
    this.mayHaveLost = 0;
    let out = mapped === id ? r : withAt(r, 1, mapped);
    if (from === undefined) {
      this.pending.clearedRefs++;
      out = withAt(out, 4, -1);
    } else if (from !== r[4]) out = withAt(out, 4, from);
    return out;
  }

  /** A damaged line: not a record of its shape, or one that contradicts what came before. */
  private lose(bytes: number, offset: number, line: number): null {
    this.pending.badLines++;
    this.mayHaveLost += mayHold(bytes);
    this.mark(offset, line, bytes);
    return null;
  }

  /** A readable record that refers to something lost. */
  private drop(): null {
    this.pending.droppedRecords++;
    return null;
  }

  private mark(offset: number, line: number, bytes: number): void {
    const p = this.pending;
    if (p.firstLine === 0) {
      p.firstLine = line;
      p.firstByte = offset;
    }
    p.lastLine = line;
    p.lastByte = offset + bytes;
  }

  /** Total ids lost so far. */
  private lostTotal(): number {
    const n = this.lostBefore.length;
    return n === 0 ? 0 : this.lostBefore[n - 1]!;
  }

  /** A request id in the file's numbering → the replay's, or -1 when it was lost or never admitted. */
  private map(fileId: number): number {
    if (fileId < 0 || fileId >= this.fileNext) return -1;
    const n = this.lostEnd.length;
    if (n === 0) return fileId;
    // The last range starting at or before fileId.
    let lo = 0;
    let hi = n - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.lostStart[mid]! <= fileId) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (at < 0) return fileId;
    if (fileId < this.lostEnd[at]!) return -1;
    return fileId - this.lostBefore[at]!;
  }

  /** A `from` ref → the replay's, or undefined when what it names was lost. */
  private mapFrom(from: number): number | undefined {
    if (from === -1) return -1;
    if (from >= 0) {
      const id = this.map(from);
      return id < 0 ? undefined : id;
    }
    return this.fromDefined(-2 - from) ? from : undefined;
  }

  private fromDefined(n: number): boolean {
    return n >>> 3 < this.froms.length && (this.froms[n >>> 3]! & (1 << (n & 7))) !== 0;
  }

  private defineFrom(n: number): void {
    const at = n >>> 3;
    if (at >= this.froms.length) {
      const bigger = new Uint8Array(Math.max(at + 1, this.froms.length * 2));
      bigger.set(this.froms);
      this.froms = bigger;
    }
    this.froms[at]! |= 1 << (n & 7);
  }
}

/** How many ADMITs a lost stretch of `bytes` may have held: as many as fit. */
function mayHold(bytes: number): number {
  return Math.max(1, Math.floor(bytes / MIN_ADMIT_BYTES));
}

/** A 32-bit integer: every id, depth, ref and count the journal writes is one. */
function isInt(v: unknown): v is number {
  return typeof v === 'number' && (v | 0) === v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isNode(v: unknown): boolean {
  if (!isObject(v)) return false;
  return (
    typeof v.id === 'string' &&
    typeof v.url === 'string' &&
    (v.parentId === null || typeof v.parentId === 'string') &&
    typeof v.type === 'string' &&
    typeof v.state === 'string' &&
    Array.isArray(v.problems)
  );
}

function withAt(r: unknown[], i: number, v: number): unknown[] {
  const copy = r.slice();
  copy[i] = v;
  return copy;
}
