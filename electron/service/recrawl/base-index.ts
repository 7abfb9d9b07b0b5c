/**
 * BaseIndex: what a recrawl needs of its base (old) crawl, read from the base's journal in one pass
 * and kept in typed columns keyed by the base's URL ids (no object per URL): per URL its state, its
 * status, where its latest RESULT and its LINKS record are, and its latest sitemap lastmod; per sitemap
 * its latest node (ETag, Last-Modified, the lastmod its index gave it) and where its listings are in
 * the journal (the ADMIT/DUP/DUPS records whose `from` is that sitemap), so they can be handed out again.
 *
 * It also feeds the audit's PreviousFacts (the base's lastmods and content hashes: the recrawl's
 * fake-fresh and stale lastmod findings) in the same pass.
 *
 * Memory: the base's uniqueKeys in the engine's MemoryRequestQueue (its interned arena, no discoveries
 * kept), plus 24 bytes per URL of columns (state and flags 2, status 2, lastmod 4, two offsets 16)
 * and PreviousFacts' 41;
 * the records themselves are read back by offset, as export does. The base's journal is not written
 * while it is indexed: a running crawl cannot be a base (NOT_READY).
 */
import fs from 'node:fs';
import type { SitemapNode, SitemapUrlEntry, UrlResult } from '../../../shared/model.js';
import {
  MemoryRequestQueue,
  column,
  ensureCapacity,
  type CarriedLink,
  type CarriedPage,
  type CarriedSitemap,
  type ListingWire,
  type ResultFacts,
  type SitemapItem,
} from '../../engine/index.js';
import { FromTable } from '../data/from-table.js';
import { lastmodSeconds, parseLastmod } from '../data/url-store.js';
import {
  ADMIT_TAIL,
  DUP_TAIL,
  DUPS_TAIL,
  NO_FROM,
  REC_ADMIT,
  REC_DUP,
  REC_DUPS,
  REC_FROM,
  REC_LINKS,
  REC_NODE,
  REC_RESULT,
  LINK_NOFOLLOW,
  admittedListed,
  decodeEntry,
  decodeResultFacts,
  linksOf,
  repeatsOf,
  sourceOf,
  type AdmitExtra,
} from '../journal/format.js';
import { RecordReader, replayJournal, replayJournalSync, type BatchReplayer } from '../journal/reader.js';
import { PreviousFacts } from '../audit/previous-facts.js';
import type { PreviousCrawlLookup } from '../audit/types.js';

/** State codes, as the journal's RESULT writes them (0: never handled, 4: listed). */
export const B_QUEUED = 0;
export const B_DONE = 1;
export const B_ERROR = 2;
export const B_BLOCKED = 3;
export const B_LISTED = 4;

const RESULT_STATE = [undefined, 'done', 'error', 'blocked'] as const;
/** flags: the URL was listed by a sitemap (its lastmod column is its listings' latest). */
const F_LISTED = 1;
/** Listings read back per batch when a sitemap is carried over. */
const ITEM_BATCH = 256;
/** Journal bytes read at a time while a sitemap's listings are read back. */
const SCAN_BYTES = 1 << 20;

/** Where one sitemap's listings are in the base journal. */
interface ListingSpan {
  first: number;
  /** Offset of the last listing record (its line is read too). */
  last: number;
}

export class BaseIndex {
  /** Distinct URLs of the base. */
  count = 0;
  private readonly queue = new MemoryRequestQueue();
  private state = column(Uint8Array);
  private flags = column(Uint8Array);
  private status = column(Uint16Array);
  private lastmodSec = column(Uint32Array);
  /** Offsets + 1 (0: none), so a fresh column means "none". */
  private resultOff = column(Float64Array);
  private linksOff = column(Float64Array);
  /** Per page id, the URLs it referred to otherwise ('reference' discoveries: iframes, rel=next…); few. */
  private readonly references = new Map<number, number[]>();
  private readonly nodes = new Map<string, SitemapNode>();
  private readonly froms = new FromTable();
  private readonly spans = new Map<number, ListingSpan>();
  /** node id → FROM entries naming it (built on first use). */
  private refsByNode: Map<string, number[]> | null = null;
  private readonly reader: RecordReader;
  private replayer: BatchReplayer | null = null;
  private readonly facts = new PreviousFacts((key) => this.queue.idOf(key));
  /** The base's lastmod and content hash of a URL: the recrawl audit's AuditEngineOptions.previous. */
  readonly previous: PreviousCrawlLookup = (key) => this.facts.lookup(key);

  private constructor(readonly journalPath: string) {
    this.reader = new RecordReader(journalPath, 256 * 1024);
  }

  /** Reads the base crawl's journal; throws (ENOENT…) when it cannot be read. */
  static async build(journalPath: string): Promise<BaseIndex> {
    const ix = new BaseIndex(journalPath);
    await replayJournal(
      journalPath,
      (r, o) => ix.apply(r, o),
      (rp) => (ix.replayer = rp),
    );
    return ix;
  }

  /** build() without yielding, for a recrawl opened for a synchronous query. */
  static buildSync(journalPath: string): BaseIndex {
    const ix = new BaseIndex(journalPath);
    replayJournalSync(
      journalPath,
      (r, o) => ix.apply(r, o),
      (rp) => (ix.replayer = rp),
    );
    return ix;
  }

  /** The base's id of a uniqueKey, or undefined when the base does not hold it. */
  idOf(uniqueKey: string): number | undefined {
    return this.queue.idOf(uniqueKey);
  }

  /** State code (B_*) of base URL `id`. */
  stateOf(id: number): number {
    return this.state[id] ?? B_QUEUED;
  }

  /** HTTP status of base URL `id` (0: none). */
  statusOf(id: number): number {
    return this.status[id] ?? 0;
  }

  /** Its listings' latest lastmod in seconds (0: none or unparsable); undefined when no sitemap listed it. */
  lastmodOf(id: number): number | undefined {
    return (this.flags[id]! & F_LISTED) !== 0 ? this.lastmodSec[id]! : undefined;
  }

  /** Whether the base read this URL as a sitemap (a page that turned out to be one, or a listed sitemap). */
  isSitemap(uniqueKey: string): boolean {
    return this.nodes.has(uniqueKey);
  }

  /** The base's latest node of a sitemap. */
  node(nodeId: string): SitemapNode | undefined {
    return this.nodes.get(nodeId);
  }

  /** The latest RESULT record of base URL `id`, parsed. */
  resultRecord(id: number): unknown[] | undefined {
    const off = (this.resultOff[id] ?? 0) - 1;
    if (off < 0) return undefined;
    const rec = this.reader.read(off);
    return rec && rec[0] === REC_RESULT ? rec : undefined;
  }

  /** A page's validators: its latest answer's ETag and Last-Modified (facts e, m). */
  validators(id: number): { etag?: string; lastModified?: string } | undefined {
    // Only a 2xx answer is a representation to revalidate: an error page's validators are not sent.
    const status = this.statusOf(id);
    if (status < 200 || status >= 300) return undefined;
    const rec = this.resultRecord(id);
    if (!rec || this.linksUnknown(id, rec)) return undefined;
    const facts = decodeResultFacts(rec);
    if (!facts || (facts.etag === undefined && facts.lastModified === undefined)) return undefined;
    const v: { etag?: string; lastModified?: string } = {};
    if (facts.etag !== undefined) v.etag = facts.etag;
    if (facts.lastModified !== undefined) v.lastModified = facts.lastModified;
    return v;
  }

  /** The base's answer for URL `id` with its facts, links and references; undefined when it has none. */
  carried(id: number): CarriedPage | undefined {
    const rec = this.resultRecord(id);
    if (!rec) return undefined;
    const state = RESULT_STATE[rec[2] as number];
    if (state === undefined) return undefined;
    const page: CarriedPage = { state, result: { ...((rec[3] ?? {}) as UrlResult) } };
    const facts: ResultFacts | undefined = decodeResultFacts(rec);
    if (facts) page.facts = facts;
    if (this.linksUnknown(id, rec)) return undefined;
    const loff = (this.linksOff[id] ?? 0) - 1;
    if (loff >= 0) {
      let lrec = this.reader.read(loff);
      if (lrec && this.replayer?.renumbered) lrec = this.replayer.remapLinks(lrec);
      if (lrec && lrec[0] === REC_LINKS) {
        const links: CarriedLink[] = [];
        for (const t of linksOf(lrec)) {
          if (!Array.isArray(t)) continue;
          const target = t[0];
          const url = typeof target === 'number' ? this.queue.get(target)?.url : String(target);
          if (url === undefined) continue;
          links.push({ url, anchor: typeof t[1] === 'string' ? t[1] : '', nofollow: ((typeof t[2] === 'number' ? t[2] : 0) & LINK_NOFOLLOW) !== 0 });
        }
        page.links = links;
      }
    }
    const refs = this.references.get(id);
    if (refs) page.references = refs.map((r) => this.queue.get(r)!.url);
    return page;
  }

  /**
   * A fetched 2xx HTML page without a LINKS record (a journal written before them): its links are
   * unknown, so its answer cannot be kept (the recrawl would not reach what it links to).
   */
  private linksUnknown(id: number, rec: unknown[]): boolean {
    if (this.linksOff[id] !== 0 || rec[2] !== B_DONE) return false;
    const r = (rec[3] ?? {}) as UrlResult;
    return (r.status ?? 0) >= 200 && (r.status ?? 0) < 300 && /html/i.test(r.contentType ?? '');
  }

  /** A sitemap as the base read it, to hand out again; undefined when the base did not read it. */
  carriedSitemap(nodeId: string): CarriedSitemap | undefined {
    const node = this.nodes.get(nodeId);
    if (!node || (node.state !== 'done' && node.state !== 'error') || node.httpStatus === undefined) return undefined;
    // A damaged base replayed with its ids renumbered: its listings' ids are not the index's; read it afresh.
    if (this.replayer?.renumbered || !fs.existsSync(this.journalPath)) return undefined;
    const refs = this.refsOf(nodeId);
    const children: SitemapNode[] = [];
    for (const n of this.nodes.values()) if (n.parentId === nodeId && n.type !== 'robots') children.push(n);
    const spans = refs.map((r) => [r, this.spans.get(r)] as const).filter((x): x is readonly [number, ListingSpan] => x[1] !== undefined);
    return { node, items: () => this.items(spans, children) };
  }

  /** Releases the journal's file handle. */
  close(): void {
    this.reader.close();
  }

  private refsOf(nodeId: string): number[] {
    if (!this.refsByNode) {
      this.refsByNode = new Map();
      for (let n = 0; n < this.froms.size; n++) {
        const k = this.froms.keyOf(n);
        if (k === null) continue;
        const list = this.refsByNode.get(k);
        if (list) list.push(n);
        else this.refsByNode.set(k, [n]);
      }
    }
    return this.refsByNode.get(nodeId) ?? [];
  }

  /** The listings of a sitemap, read back from the journal in order, then its child sitemaps. */
  private async *items(spans: readonly (readonly [number, ListingSpan])[], children: SitemapNode[]): AsyncGenerator<SitemapItem[], void, void> {
    let batch: SitemapItem[] = [];
    for (const [ref, span] of spans) {
      for await (const [rec, line] of this.scan(span)) {
        const t = rec[0];
        if (t !== REC_ADMIT && t !== REC_DUP && t !== REC_DUPS) continue;
        const from = (t === REC_ADMIT ? rec[4] : rec[3]) as number;
        if (from !== -2 - ref || sourceOf(rec[2] as number) !== 'sitemap') continue;
        const id = rec[1] as number;
        let url: string;
        let key: string;
        let entry: SitemapUrlEntry;
        let wire: ListingWire | undefined;
        if (t === REC_ADMIT) {
          url = rec[5] as string;
          const extra = rec[ADMIT_TAIL + 3] as AdmitExtra | undefined;
          key = extra?.k ?? url;
          entry = decodeEntry(rec, ADMIT_TAIL, url);
          // The ADMIT's text after `[0,id,s,depth,from,` is the entry's wire form when nothing of the
          // request's own joins its extra: the new crawl's journal copies it rather than encode it again.
          if (line !== undefined && extra?.k === undefined && extra?.l === undefined && extra?.u === undefined) wire = wireOf(line);
        } else {
          const req = this.queue.get(id);
          if (!req) continue;
          url = req.url;
          key = req.uniqueKey;
          entry = decodeEntry(rec, t === REC_DUPS ? DUPS_TAIL : DUP_TAIL, url);
        }
        const n = repeatsOf(rec);
        for (let i = 0; i < n; i++) {
          batch.push(wire ? { kind: 'url', entry, uniqueKey: key, wire } : { kind: 'url', entry: i === 0 ? entry : { ...entry }, uniqueKey: key });
          if (batch.length >= ITEM_BATCH) {
            yield batch;
            batch = [];
          }
        }
      }
    }
    for (const c of children) batch.push(c.lastmod !== undefined ? { kind: 'sitemap', loc: c.url, lastmod: c.lastmod } : { kind: 'sitemap', loc: c.url });
    if (batch.length > 0) yield batch;
  }

  /** The records of the journal from span.first through the line at span.last, parsed (listing lines only), an ADMIT's with its text. */
  private async *scan(span: ListingSpan): AsyncGenerator<[unknown[], string | undefined], void, void> {
    const fh = await fs.promises.open(this.journalPath, 'r');
    try {
      let buf = Buffer.allocUnsafe(SCAN_BYTES);
      let pos = span.first;
      let carry = 0;
      for (;;) {
        if (carry === buf.length) {
          const bigger = Buffer.allocUnsafe(buf.length * 2);
          buf.copy(bigger, 0, 0, carry);
          buf = bigger;
        }
        const { bytesRead } = await fh.read(buf, carry, buf.length - carry, pos + carry);
        const len = carry + bytesRead;
        let at = 0;
        for (;;) {
          const nl = buf.indexOf(10, at);
          if (nl === -1 || nl >= len) break;
          const off = pos + at;
          // Listing lines start `[0,`, `[1,` or `[8,`: the rest are not parsed.
          const c = buf[at + 1];
          if (buf[at] === 91 && (c === 48 || c === 49 || c === 56) && buf[at + 2] === 44) {
            const line = buf.toString('utf8', at, nl);
            let rec: unknown;
            try {
              rec = JSON.parse(line);
            } catch {
              rec = undefined;
            }
            if (Array.isArray(rec)) yield [rec, c === 48 ? line : undefined];
          }
          at = nl + 1;
          if (off >= span.last) return;
        }
        if (bytesRead === 0) return;
        buf.copy(buf, 0, at, len);
        pos += at;
        carry = len - at;
      }
    } finally {
      await fh.close();
    }
  }

  private grow(need: number): void {
    if (need <= this.state.length) return;
    this.state = ensureCapacity(this.state, need);
    this.flags = ensureCapacity(this.flags, need);
    this.status = ensureCapacity(this.status, need);
    this.lastmodSec = ensureCapacity(this.lastmodSec, need);
    this.resultOff = ensureCapacity(this.resultOff, need);
    this.linksOff = ensureCapacity(this.linksOff, need);
  }

  private listing(id: number, ref: number, offset: number, lastmod: unknown): void {
    this.facts.listing(id, typeof lastmod === 'string' ? lastmod : undefined);
    this.flags[id]! |= F_LISTED;
    // The latest of its listings' lastmods, as the crawl's own URL store keeps it.
    const sec = typeof lastmod === 'string' ? lastmodSeconds(parseLastmod(lastmod)) : 0;
    if (sec > this.lastmodSec[id]!) this.lastmodSec[id] = sec;
    const span = this.spans.get(ref);
    if (span) span.last = offset;
    else this.spans.set(ref, { first: offset, last: offset });
  }

  private reference(from: number, id: number): void {
    if (from < 0 || from === id) return;
    const list = this.references.get(from);
    if (!list) this.references.set(from, [id]);
    else if (!list.includes(id)) list.push(id);
  }

  private apply(r: unknown[], offset: number): void {
    switch (r[0]) {
      case REC_ADMIT: {
        const id = r[1] as number;
        if (id !== this.count) return; // out of order: a damaged line the salvage let through
        const s = r[2] as number;
        const source = sourceOf(s);
        const url = r[5] as string;
        const extra = r[ADMIT_TAIL + 3] as AdmitExtra | undefined;
        this.queue.restore({ id, url, uniqueKey: extra?.k ?? url, source, depth: r[3] as number }, true);
        this.grow(id + 1);
        this.count = id + 1;
        this.state[id] = admittedListed(s) ? B_LISTED : B_QUEUED;
        const from = r[4] as number;
        if (source === 'sitemap' && from <= -2) this.listing(id, -2 - from, offset, r[ADMIT_TAIL]);
        else if (source === 'reference' && from !== NO_FROM) this.reference(from, id);
        return;
      }
      case REC_DUP:
      case REC_DUPS: {
        const id = r[1] as number;
        if (!(id >= 0 && id < this.count)) return;
        const source = sourceOf(r[2] as number);
        const from = r[3] as number;
        if (source === 'sitemap' && from <= -2) this.listing(id, -2 - from, offset, r[r[0] === REC_DUPS ? DUPS_TAIL : DUP_TAIL]);
        else if (source === 'reference') this.reference(from, id);
        return;
      }
      case REC_RESULT: {
        const id = r[1] as number;
        const st = r[2] as number;
        if (!(id >= 0 && id < this.count) || RESULT_STATE[st] === undefined) return;
        this.state[id] = st;
        const status = (r[3] as UrlResult | null)?.status;
        this.status[id] = typeof status === 'number' && status > 0 && status < 0x10000 ? status : 0;
        this.facts.result(id, RESULT_STATE[st]!, typeof status === 'number' ? status : undefined, decodeResultFacts(r)?.contentHash);
        this.resultOff[id] = offset + 1;
        return;
      }
      case REC_LINKS: {
        const id = r[1] as number;
        // The page's first LINKS record is its counted one (as the base's LinkStore counts it).
        if (id >= 0 && id < this.count && this.linksOff[id] === 0) this.linksOff[id] = offset + 1;
        return;
      }
      case REC_NODE: {
        const node = r[1] as SitemapNode;
        if (node && typeof node.id === 'string') this.nodes.set(node.id, node);
        return;
      }
      case REC_FROM:
        this.froms.define(r[1] as number, r[2] as string);
        return;
      default:
        return;
    }
  }
}

/** An ADMIT line's entry wire form: its text after the fifth comma (`[0,id,s,depth,from,`), without the closing `]`. */
function wireOf(line: string): ListingWire | undefined {
  let at = 0;
  for (let i = 0; i < 5; i++) {
    at = line.indexOf(',', at) + 1;
    if (at === 0) return undefined;
  }
  return line.charCodeAt(at) === 34 && line.endsWith(']') ? { entryJson: line.slice(at, -1) } : undefined;
}
