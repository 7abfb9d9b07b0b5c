/**
 * Messages between the main thread and the sitemap parse worker (parse-worker.ts). One worker
 * serves every sitemap being read in the process; each reading is a session with its own id.
 *
 * Flow: the main thread opens a session; the worker asks for raw body bytes a chunk at a time, a
 * couple ahead (`pull`; the chunk's memory comes back once inflated, `spent`), and answers with item
 * batches as JSON text in UTF-8 (cheaper for the main thread to take in than a structured clone of
 * the same objects), at most AHEAD batches beyond the ones the main thread's consumer has taken
 * (`ack`, which returns the batch's buffer), so memory stays bounded whatever the pace of the frontier.
 * URL items travel as arrays (UrlRow), which JSON.parse reads at about half the cost of objects.
 */
import type { SitemapImage, SitemapUrlEntry } from '../../../../shared/model.js';
import { decodeEntry, entryExtra } from '../read/entry-codec.js';
import type { SitemapItem, SitemapSummary } from '../../types.js';
import { isFastPathCanonical, tryUniqueKey } from '../../frontier/url.js';
import type { StreamSitemapOptions } from '../read/stream.js';

/** Batches the worker may post before the consumer takes one. */
export const AHEAD = 8;

export type ToWorker =
  | { t: 'open'; id: number; opts: StreamSitemapOptions }
  /** Raw body bytes (as received: gzip or plain), transferred. */
  | { t: 'chunk'; id: number; data: Uint8Array }
  | { t: 'end'; id: number }
  /** The body failed after the bytes sent: the parser reports it as a fatal problem. */
  | { t: 'fail'; id: number; message: string; code?: string }
  /** The consumer took one batch; its bytes' buffer comes back for the next batches (transferred). */
  | { t: 'ack'; id: number; buffer?: ArrayBuffer }
  /** The consumer stopped early: drop the session. */
  | { t: 'close'; id: number };

export type FromWorker =
  /** The worker loaded and listens (id 0). */
  | { t: 'ready'; id: 0 }
  | { t: 'pull'; id: number }
  /**
   * One batch of SitemapItems, as JSON in UTF-8 (`ascii` when it is all ASCII): URL items as rows
   * (UrlRow) with their uniqueKey, others as they are; `ends[i]` is the offset just past item i in
   * the decoded text (WireWriter.take, wireText), so each entry's text can be cut out (ListingWire).
   */
  | { t: 'items'; id: number; bytes: Uint8Array; ascii: boolean; ends: Int32Array }
  /**
   * A body chunk's memory the worker has finished with, given back (transferred): freed by this
   * thread's next minor collection, where in the worker it would wait for a full one.
   */
  | { t: 'spent'; id: number; buffer: ArrayBuffer }
  | { t: 'done'; id: number; summary: SitemapSummary }
  /** Parsing threw (a bug, or the worker ran out of memory): the session is over. */
  | { t: 'crash'; id: number; message: string };

/**
 * A URL item on the wire: `[key,loc,lastmod,changefreq,priority,extra]` (the entry as entry-codec.ts
 * writes it, trailing absents dropped), its uniqueKey written compactly: 1 when it is the loc itself
 * (the usual case), the key when it differs, 0 when there is none. Other items are objects.
 */
export type UrlRow = [string | 0 | 1, string, ...unknown[]];

/**
 * Worker side: items written as the JSON text of their batch, in UTF-8, straight into one growing
 * buffer (no string per row: in the worker's small young generation, a string per row cost more in
 * garbage collection than parsing the entry). `item` appends an item; `take(n)` cuts the first n
 * held items as a batch's bytes, `[item,item,…]`, with each item's end.
 */
export class WireWriter {
  /** 256 KB: a batch of usual rows and the items left over fit without growing it (see take). */
  private buf = Buffer.allocUnsafe(1 << 18);
  /** Bytes held (items, each followed by its comma). */
  private pos = 0;
  /** UTF-16 units of the text those bytes spell. */
  private units = 0;
  /** Per held item: its end (before its comma) in bytes and in UTF-16 units from the buffer's start. */
  private byteEnds: number[] = [];
  private unitEnds: number[] = [];

  /** Items held. */
  get size(): number {
    return this.byteEnds.length;
  }

  /** Appends an item: a URL item as a row with its uniqueKey, worked out here; others as JSON. */
  item(item: SitemapItem): void {
    if (item.kind === 'url') {
      const loc = item.entry.loc;
      // A loc on the fast path is its own key, and plain ASCII: copied as it is.
      if (isFastPathCanonical(loc)) this.urlRow(item.entry, loc, true);
      else this.urlRow(item.entry, tryUniqueKey(loc), false);
    } else this.raw(JSON.stringify(item));
    this.byteEnds.push(this.pos);
    this.unitEnds.push(this.units);
    this.byte(44); // ,
  }

  /**
   * The first `n` held items as the `items` message's bytes (`[…]`, UTF-8), ends (in UTF-16 units of
   * the decoded text, just past each item) and whether the text is all ASCII; the rest stay held.
   */
  take(n: number): { bytes: Uint8Array; ends: Int32Array; ascii: boolean } {
    if (n < 1 || n > this.byteEnds.length) throw new RangeError(`WireWriter.take(${n}) with ${this.byteEnds.length} items held`);
    const byteEnd = this.byteEnds[n - 1]!;
    const unitEnd = this.unitEnds[n - 1]!;
    const bytes = this.out(byteEnd + 2);
    bytes[0] = 91; // [
    bytes.set(this.buf.subarray(0, byteEnd), 1);
    bytes[byteEnd + 1] = 93; // ]
    const ends = new Int32Array(n);
    for (let i = 0; i < n; i++) ends[i] = this.unitEnds[i]! + 1;
    const ascii = byteEnd === unitEnd;
    if (n === this.byteEnds.length) {
      this.pos = 0;
      this.units = 0;
      this.byteEnds.length = 0;
      this.unitEnds.length = 0;
    } else {
      // Items left over (a chunk's entries span batches): move them to the front.
      const byteCut = byteEnd + 1;
      const unitCut = unitEnd + 1;
      this.buf.copyWithin(0, byteCut, this.pos);
      this.pos -= byteCut;
      this.units -= unitCut;
      // In place: arrays made by slice and map are of another kind (holey), and a field that changes
      // kind sends the writer's methods back to unoptimized code.
      const rest = this.byteEnds.length - n;
      const byteEnds = this.byteEnds;
      const unitEnds = this.unitEnds;
      for (let i = 0; i < rest; i++) {
        byteEnds[i] = byteEnds[i + n]! - byteCut;
        unitEnds[i] = unitEnds[i + n]! - unitCut;
      }
      byteEnds.length = rest;
      unitEnds.length = rest;
    }
    return { bytes, ends, ascii };
  }

  /**
   * Gives back the buffer of a batch's bytes once the main thread has read them: the next batches are
   * written into it rather than into fresh memory (a new buffer per batch left megabytes of dead ones
   * for the main thread's garbage collector to find).
   */
  recycle(buffer: ArrayBuffer): void {
    if (this.spare.length < MAX_SPARE && buffer.byteLength > 0) this.spare.push(buffer);
  }

  private readonly spare: ArrayBuffer[] = [];

  /** `length` bytes for a batch: a view of a spare buffer when one is large enough. */
  private out(length: number): Uint8Array {
    while (this.spare.length > 0) {
      const b = this.spare.pop()!;
      if (b.byteLength >= length) return new Uint8Array(b, 0, length);
    }
    return new Uint8Array(new ArrayBuffer(Math.max(MIN_OUT, length + (length >>> 2))), 0, length);
  }

  /** A URL item's row; `plainLoc`: the loc is its own key by the fast path (plain ASCII, see item). */
  private urlRow(entry: SitemapUrlEntry, key: string | null, plainLoc: boolean): void {
    const loc = entry.loc;
    if (plainLoc) {
      // The usual row's start, `[1,"loc"`, in one step.
      const n = loc.length;
      this.room(n + 5);
      const buf = this.buf;
      let p = this.pos;
      buf[p++] = 91; // [
      buf[p++] = 49; // 1
      buf[p++] = 44; // ,
      buf[p++] = 34; // "
      p += buf.write(loc, p, 'latin1');
      buf[p++] = 34;
      this.pos = p;
      this.units += n + 5;
    } else {
      this.byte(91); // [
      if (key === null)
        this.byte(48); // 0
      else if (key === loc)
        this.byte(49); // 1
      else this.string(key);
      this.byte(44);
      this.string(loc);
    }
    const lastmod = entry.lastmod;
    const changefreq = entry.changefreq;
    const priority = entry.priority;
    const hasPriority = priority !== undefined && Number.isFinite(priority);
    const extra = !!(
      entry.alternates?.length ||
      entry.images?.length ||
      entry.videos?.length ||
      entry.news ||
      entry.mobile?.length ||
      entry.title !== undefined
    );
    // As encodeTail: placeholders for absent fields, trailing absents dropped.
    if (extra || hasPriority || changefreq !== undefined || lastmod !== undefined) {
      this.byte(44);
      if (lastmod !== undefined) this.string(lastmod);
      else this.byte(48);
      if (extra || hasPriority || changefreq !== undefined) {
        this.byte(44);
        if (changefreq !== undefined) this.string(changefreq);
        else this.byte(48);
        if (extra || hasPriority) {
          this.byte(44);
          this.ascii(hasPriority ? String(priority) : 'null');
          if (extra) {
            this.byte(44);
            this.extra(entry);
          }
        }
      }
    }
    this.byte(93); // ]
  }

  /**
   * JSON.stringify(entryExtra(entry)), with the hreflang pairs (the usual extra) written here and the
   * rarer images, videos, news, mobile alternates and title by JSON.stringify.
   */
  private extra(entry: SitemapUrlEntry): void {
    const alternates = entry.alternates;
    if (alternates && !alternates.every((h) => typeof h.lang === 'string' && typeof h.href === 'string')) {
      this.raw(JSON.stringify(entryExtra(entry)));
      return;
    }
    this.byte(123); // {
    let more = false;
    if (alternates?.length) {
      this.ascii('"a":[');
      for (let i = 0; i < alternates.length; i++) {
        this.ascii(i === 0 ? '[' : ',[');
        this.string(alternates[i]!.lang);
        this.byte(44);
        this.string(alternates[i]!.href);
        this.byte(93);
      }
      this.byte(93);
      more = true;
    }
    if (entry.images?.length) {
      if (more) this.byte(44);
      this.ascii('"i":');
      this.images(entry.images);
      more = true;
    }
    if (entry.videos?.length) more = this.member(more, '"v":', entry.videos);
    if (entry.news) more = this.member(more, '"n":', entry.news);
    if (entry.mobile?.length)
      more = this.member(
        more,
        '"m":',
        entry.mobile.map((m) => [m.media, m.href]),
      );
    if (entry.title !== undefined) this.member(more, '"t":', entry.title);
    this.byte(125); // }
  }

  /** JSON.stringify(images), the usual ones (objects of strings) written here, the rest by JSON.stringify. */
  private images(images: readonly SitemapImage[]): void {
    if (!images.every(isStringRecord)) {
      this.raw(JSON.stringify(images));
      return;
    }
    this.byte(91); // [
    for (let i = 0; i < images.length; i++) {
      if (i > 0) this.byte(44);
      this.byte(123); // {
      let first = true;
      const image = images[i] as unknown as Record<string, string | undefined>;
      for (const k in image) {
        const v = image[k];
        if (v === undefined) continue; // as JSON.stringify: left out
        if (!first) this.byte(44);
        first = false;
        this.string(k);
        this.byte(58); // :
        this.string(v);
      }
      this.byte(125); // }
    }
    this.byte(93); // ]
  }

  private member(more: boolean, name: string, value: unknown): true {
    if (more) this.byte(44);
    this.ascii(name);
    this.raw(JSON.stringify(value));
    return true;
  }

  /**
   * A JSON string, as JSON.stringify writes it: plain ASCII (the usual URL, date or frequency) is
   * copied into the buffer as it is, natively when long; anything else goes through JSON.stringify.
   */
  private string(s: string): void {
    const n = s.length;
    if (n >= NATIVE_COPY && PLAIN_ASCII.test(s)) {
      this.plain(s);
      return;
    }
    if (n <= SHORT) {
      // Copied here when plain ASCII (URLs, dates, frequencies): cheaper for short strings than
      // Buffer#write's call out and a test for characters to escape.
      this.room(n + 2);
      const buf = this.buf;
      let p = this.pos;
      buf[p++] = 34;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c < 0x20 || c === 34 || c === 92 || c >= 0x80) break;
        buf[p++] = c;
      }
      if (i === n) {
        buf[p++] = 34;
        this.pos = p;
        this.units += n + 2;
        return;
      }
    }
    this.raw(JSON.stringify(s));
  }

  /** A JSON string known to need no escape and to be ASCII: quoted and copied by Buffer#write. */
  private plain(s: string): void {
    const n = s.length;
    this.room(n + 2);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = 34;
    p += buf.write(s, p, 'latin1');
    buf[p++] = 34;
    this.pos = p;
    this.units += n + 2;
  }

  /** ASCII text written as it is (numbers, null). */
  private ascii(s: string): void {
    this.room(s.length);
    for (let i = 0; i < s.length; i++) this.buf[this.pos++] = s.charCodeAt(i);
    this.units += s.length;
  }

  /** Text written as UTF-8 as it is. */
  private raw(s: string): void {
    this.room(s.length * 3); // a UTF-16 unit is at most 3 UTF-8 bytes
    this.pos += this.buf.write(s, this.pos, 'utf8');
    this.units += s.length;
  }

  private byte(b: number): void {
    this.room(1);
    this.buf[this.pos++] = b;
    this.units++;
  }

  private room(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }
}

/** A plain object (not an array) whose own enumerable values are strings or undefined. */
function isStringRecord(o: unknown): boolean {
  if (o === null || typeof o !== 'object' || Array.isArray(o) || Object.getPrototypeOf(o) !== Object.prototype) return false;
  for (const k in o) {
    if (!Object.prototype.hasOwnProperty.call(o, k)) return false;
    const v = (o as Record<string, unknown>)[k];
    if (v !== undefined && typeof v !== 'string') return false;
  }
  return true;
}

/** Spare batch buffers kept: the batches in flight at most, and one. */
const MAX_SPARE = AHEAD + 1;
/** The smallest batch buffer made (a batch of 256 usual URL rows is 40–80 KB). */
const MIN_OUT = 64 * 1024;

/** Strings up to this length are copied by WireWriter.string itself (when not copied natively). */
const SHORT = 256;
/** Strings from this length are tested by PLAIN_ASCII and copied natively (shorter: the loop is as fast). */
const NATIVE_COPY = 32;
/** Printable ASCII but `"` and `\`: JSON text as it is, one byte per character. */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Worker side: one item as its JSON text on the wire (what WireWriter writes for it). */
export function wireItem(item: SitemapItem): string {
  const w = new WireWriter();
  w.item(item);
  const { bytes } = w.take(1);
  return Buffer.from(bytes.buffer, bytes.byteOffset + 1, bytes.byteLength - 2).toString('utf8');
}

/** Main side: the text of an `items` message's bytes. */
export function wireText(bytes: Uint8Array, ascii: boolean): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(ascii ? 'latin1' : 'utf8');
}

/**
 * Main side: the items of a batch. A URL item whose key is its loc also gets its wire form
 * (`"loc",lastmod,…`: ListingWire), cut from the batch's text by the ends.
 */
export function fromWire(json: string, ends?: Int32Array): SitemapItem[] {
  const items = JSON.parse(json) as (UrlRow | SitemapItem)[];
  const cut = ends !== undefined && ends.length === items.length;
  for (let i = 0; i < items.length; i++) {
    const row = items[i]!;
    if (!Array.isArray(row)) continue;
    const k = row[0];
    const loc = row[1];
    const entry = decodeEntry(row, 2, loc);
    if (k === 1) {
      const item: SitemapItem = { kind: 'url', entry, uniqueKey: loc };
      // `[1,` then the entry, then `]`.
      if (cut) item.wire = { entryJson: json.slice((i === 0 ? 1 : ends[i - 1]! + 1) + 3, ends[i]! - 1) };
      items[i] = item;
    } else items[i] = { kind: 'url', entry, uniqueKey: k === 0 ? null : k };
  }
  return items as SitemapItem[];
}
