/**
 * CrawlData: everything known about one crawl in memory — the request queue (dedup + frontier), the
 * URL columns and counters, the sitemap tree, the FROM table, the log's record offsets — built
 * either live from the crawler's hooks or by replaying the journal. Both paths go through the same
 * methods here, so a replayed crawl is the crawl that was journalled. The sitemap audit is fed from
 * the same records and hooks, so it survives pause, quit and resume unchanged; a reopened crawl
 * rebuilds it after the crawl is ready (audit-rebuild.ts), so replay leaves it alone then.
 */
import type { CrawlLogEntry, SitemapNode, UrlResult } from '../../../shared/model.js';
import { MemoryRequestQueue, type CrawlerCheckpoint, type Request } from '../../engine/index.js';
import type { AuditEngine, UrlKeys } from '../audit/engine.js';
import { FromTable } from './from-table.js';
import {
  ADMIT_TAIL,
  DUP_TAIL,
  DUPS_TAIL,
  NO_FROM,
  decodeEntry,
  decodeResultFacts,
  REC_ADMIT,
  REC_CHECKPOINT,
  REC_DUP,
  REC_DUPS,
  REC_FROM,
  REC_LINKS,
  REC_LOG,
  REC_NODE,
  REC_RESULT,
  REC_ROBOTS,
  admittedListed,
  repeatsOf,
  sourceOf,
  type AdmitExtra,
  type RobotsRef,
} from '../journal/format.js';
import { ResumeLedger } from '../journal/resume-ledger.js';
import { LinkStore } from './links.js';
import { SitemapTree } from './sitemap-tree.js';
import { UrlStore, resultStateCode } from './url-store.js';

const RESULT_STATE_BY_CODE = [undefined, 'done', 'error', 'blocked'] as const;

/** A robots.txt answer as a checkpoint holds it. */
export type RobotsAnswer = CrawlerCheckpoint['robots'][string];

export class CrawlData {
  readonly queue = new MemoryRequestQueue();
  readonly store = new UrlStore();
  readonly tree = new SitemapTree();
  readonly froms = new FromTable();
  readonly ledger = new ResumeLedger();
  /** Inlinks, outlinks and click depth, from the LINKS records (links.ts). */
  readonly links = new LinkStore({ count: () => this.store.count, idOf: (k) => this.queue.idOf(k) });
  /** Offset of each LOG record, in order. */
  logOffsets: number[] = [];
  /** The latest crawler checkpoint found in the journal (replay) or written (live). */
  checkpoint: CrawlerCheckpoint | undefined;
  /** Offset of the latest CHECKPOINT record (-1: none). */
  checkpointOffset = -1;
  /** The robots.txt answers written as ROBOTS records, by origin (the latest of each). */
  readonly robots = new Map<string, RobotsAnswer>();
  /**
   * Sitemap nodes changed since the latest checkpoint, each with its version as of it (undefined:
   * new since): a checkpoint holds no tree, a resume takes it from here (checkpointNodes).
   */
  private readonly sinceCheckpoint = new Map<string, SitemapNode | undefined>();

  private lastFromRef = NO_FROM;
  private lastFromText: string | undefined;

  /**
   * Whether the audit is fed by replay and the live hooks. False while it is rebuilt in the
   * background from the journal (audit-rebuild.ts), which turns it on once it has caught up.
   */
  auditLive = true;

  /** The crawl's sitemap audit, fed every admission, discovery, result and node. */
  readonly audit: AuditEngine;

  /** `makeAudit` builds the audit on the queue's ids: it keeps no index of URLs of its own. */
  constructor(makeAudit: (keys: UrlKeys) => AuditEngine) {
    const queue = this.queue;
    this.audit = makeAudit({ idOf: (k) => queue.idOf(k), keyOf: (id) => queue.get(id)?.uniqueKey });
  }

  // ---------------------------------------------------------------- from refs

  /** The discoveredFrom text of a from ref. */
  fromText(ref: number): string | undefined {
    if (ref === NO_FROM) return undefined;
    if (ref === this.lastFromRef && this.lastFromText !== undefined) return this.lastFromText;
    const text = ref >= 0 ? this.queue.get(ref)?.uniqueKey : this.froms.text(-2 - ref);
    this.lastFromRef = ref;
    this.lastFromText = text;
    return text;
  }

  // ---------------------------------------------------------------- replay

  /** Applies one journal record (replay). `offset` is where it starts in the file. */
  apply(r: unknown[], offset: number): void {
    this.applyData(r, offset);
    if (this.auditLive) this.auditRecord(r);
  }

  /**
   * Feeds one journal record to the audit (ADMIT, DUP, RESULT, NODE; others are ignored). Called
   * after the record was applied to the rest of CrawlData (replay), or on a later pass over the
   * journal once all of it was (the rebuild): the queue and FROM table it reads only ever grow.
   */
  auditRecord(r: unknown[]): void {
    switch (r[0]) {
      case REC_ADMIT: {
        const id = r[1] as number;
        const source = sourceOf(r[2] as number);
        const url = r[5] as string;
        const extra = r[ADMIT_TAIL + 3] as AdmitExtra | undefined;
        // Live, the hook passes the request's entry (whose loc is the request's URL) for sitemap sources only.
        const entry = source === 'sitemap' ? decodeEntry(r, ADMIT_TAIL, url) : undefined;
        this.audit.admitted(id, url, source, entry, this.fromText(r[4] as number), extra?.k ?? url);
        return;
      }
      case REC_DUP:
      case REC_DUPS: {
        const id = r[1] as number;
        if (!(id >= 0 && id < this.store.count)) return;
        const source = sourceOf(r[2] as number);
        const from = r[3] as number;
        const n = repeatsOf(r);
        if (source === 'sitemap' && from <= -2) {
          // A DUP does not repeat the URL: the listing's loc is read as the admitted URL (same uniqueKey).
          const entry = decodeEntry(r, r[0] === REC_DUPS ? DUPS_TAIL : DUP_TAIL, this.queue.get(id)!.url);
          this.audit.discovered(id, { source, from: this.froms.text(-2 - from) }, entry, n);
        } else this.audit.discovered(id, { source, from: this.fromText(from) }, undefined, n);
        return;
      }
      case REC_RESULT: {
        const id = r[1] as number;
        const state = RESULT_STATE_BY_CODE[r[2] as number];
        if (state === undefined || !(id >= 0 && id < this.store.count)) return;
        this.audit.result(id, state, (r[3] ?? {}) as UrlResult, decodeResultFacts(r));
        return;
      }
      case REC_NODE:
        this.audit.node(r[1] as SitemapNode);
        return;
      case REC_LOG:
        this.auditLog(r[1] as CrawlLogEntry);
        return;
      default:
        return;
    }
  }

  /** The one log entry the audit reads: where the start URL's redirects led (the site it judges variants by). */
  private auditLog(entry: CrawlLogEntry | undefined): void {
    const site = siteOf(entry);
    if (site !== undefined) this.audit.setSite(site);
  }

  private applyData(r: unknown[], offset: number): void {
    switch (r[0]) {
      case REC_ADMIT:
        return this.replayAdmit(r, offset);
      case REC_DUP:
      case REC_DUPS:
        return this.replayDup(r, offset);
      case REC_RESULT: {
        const id = r[1] as number;
        const state = RESULT_STATE_BY_CODE[r[2] as number];
        if (state === undefined || !(id >= 0 && id < this.store.count)) return;
        const result = (r[3] ?? {}) as UrlResult;
        this.store.result(id, resultStateCode(state), result.status, result.title, offset);
        this.links.result(id, result.redirectTo);
        this.queue.markRequestHandled({ id } as Request);
        return;
      }
      case REC_LINKS:
        this.links.apply(r, offset);
        return;
      case REC_NODE:
        this.noteNode((r[1] as SitemapNode).id);
        this.tree.upsert(r[1] as SitemapNode);
        return;
      case REC_LOG:
        this.logOffsets.push(offset);
        this.noteSite(r[1] as CrawlLogEntry | undefined);
        return;
      case REC_FROM:
        this.froms.define(r[1] as number, r[2] as string);
        return;
      case REC_ROBOTS:
        if (typeof r[1] === 'string' && r[2] !== null && typeof r[2] === 'object') this.robots.set(r[1], r[2] as RobotsAnswer);
        return;
      case REC_CHECKPOINT: {
        this.checkpointed(this.withRobotsBodies(r[1] as CrawlerCheckpoint), offset);
        this.ledger.coverSitemap(typeof r[2] === 'number' ? r[2] : 0, this.restoreSitemapDup);
        if (this.checkpoint?.seeded) this.ledger.coverStart(this.restoreStartDup);
        return;
      }
      default:
        return; // END, or a record type from a newer version: nothing to rebuild from it
    }
  }

  /**
   * A checkpoint as the journal holds it, with the robots.txt answers it names in `robotsRefs` put back
   * from their ROBOTS records. One whose record was lost or does not match (a salvaged journal) is left
   * out: the resumed crawl fetches that robots.txt again rather than read it as empty.
   */
  withRobotsBodies(cp: CrawlerCheckpoint): CrawlerCheckpoint {
    const { robotsRefs: refs, ...rest } = (cp ?? {}) as CrawlerCheckpoint & { robotsRefs?: Record<string, RobotsRef> };
    if (!refs || typeof refs !== 'object') return cp;
    const robots = { ...(rest.robots && typeof rest.robots === 'object' ? rest.robots : {}) };
    for (const [origin, ref] of Object.entries(refs)) {
      const answer = this.robots.get(origin);
      if (answer && ref && answer.status === ref.status && answer.outcome === ref.outcome) robots[origin] = answer;
    }
    return { ...rest, robots };
  }

  /** Gives the ledger up: the discoveries it held back go to the queue. */
  drainLedger(): void {
    this.ledger.drain(this.restoreSitemapDup, this.restoreStartDup);
  }

  private readonly restoreSitemapDup = (id: number, ref: number, dup: boolean, n: number): void => {
    if (dup) this.queue.restoreDiscovery(id, { source: 'sitemap', from: this.froms.text(ref) }, n);
  };

  private readonly restoreStartDup = (id: number, _ref: number, dup: boolean, n: number): void => {
    if (dup) this.queue.restoreDiscovery(id, { source: 'start' }, n);
  };

  private replayAdmit(r: unknown[], offset: number): void {
    const id = r[1] as number;
    const s = r[2] as number;
    const source = sourceOf(s);
    const listed = admittedListed(s);
    const depth = r[3] as number;
    const from = r[4] as number;
    const url = r[5] as string;
    const extra = r[ADMIT_TAIL + 3] as AdmitExtra | undefined;
    const req = {
      id,
      url,
      uniqueKey: extra?.k ?? url,
      source,
      depth,
      discoveredFrom: this.fromText(from),
      label: extra?.l,
      userData: extra?.u,
    };
    this.queue.restore(req, listed);
    const lastmod = r[ADMIT_TAIL];
    const ref = source === 'sitemap' && from <= -2 ? -2 - from : -1;
    this.store.admit(id, source, listed, depth, ref, ref >= 0 ? offset : -1, typeof lastmod === 'string' ? lastmod : undefined);
    this.links.admitted(id, req.uniqueKey, source === 'start');
    if (source === 'sitemap' && ref >= 0) this.ledger.pushSitemap(id, ref, false);
    else if (source === 'start') this.ledger.pushStart(id, false);
  }

  /** A DUP record, or a DUPS record: `n` DUPs alike in a row. */
  private replayDup(r: unknown[], offset: number): void {
    const id = r[1] as number;
    if (!(id >= 0 && id < this.store.count)) return;
    const source = sourceOf(r[2] as number);
    const from = r[3] as number;
    const n = repeatsOf(r);
    this.store.duplicate(n);
    if (source === 'sitemap' && from <= -2) {
      const ref = -2 - from;
      const lastmod = r[r[0] === REC_DUPS ? DUPS_TAIL : DUP_TAIL];
      this.store.listing(id, ref, offset, typeof lastmod === 'string' ? lastmod : undefined);
      // Held back from the queue until a checkpoint covers it: the resumed list may report it again.
      this.ledger.pushSitemap(id, ref, true, n);
      return;
    }
    if (source === 'start') {
      this.links.start(id);
      this.ledger.pushStart(id, true, n);
      return;
    }
    this.queue.restoreDiscovery(id, { source, from: this.fromText(from) }, n);
  }

  // ---------------------------------------------------------------- live

  /** Live: a log entry was journalled at `offset`. */
  logged(offset: number, entry: CrawlLogEntry): void {
    this.logOffsets.push(offset);
    this.noteSite(entry);
    if (this.auditLive) this.auditLog(entry);
  }

  /** Where the start URL led, when it redirected off its origin (START_REDIRECTED). */
  siteUrl: string | undefined;

  private noteSite(entry: CrawlLogEntry | undefined): void {
    this.siteUrl = siteOf(entry) ?? this.siteUrl;
  }

  /** A node changed (live or replay); returns true when it is new to the tree. */
  node(node: SitemapNode): boolean {
    if (this.auditLive) this.audit.node(node);
    this.noteNode(node.id);
    return this.tree.upsert(node);
  }

  /** A checkpoint was written (live) or read (replay) at `offset`: the tree as of it is the tree now. */
  checkpointed(cp: CrawlerCheckpoint, offset: number): void {
    this.checkpoint = cp;
    this.checkpointOffset = offset;
    this.sinceCheckpoint.clear();
  }

  /** The sitemap tree as of the latest checkpoint, in the tree's order (robots.txt nodes included). */
  checkpointNodes(): SitemapNode[] {
    const out: SitemapNode[] = [];
    for (const n of this.tree.all()) {
      if (!this.sinceCheckpoint.has(n.id)) out.push(n);
      else {
        const then = this.sinceCheckpoint.get(n.id);
        if (then !== undefined) out.push(then);
      }
    }
    return out;
  }

  private noteNode(id: string): void {
    if (!this.sinceCheckpoint.has(id)) this.sinceCheckpoint.set(id, this.tree.get(id));
  }
}

/** The site a START_REDIRECTED log entry names (where the start URL's redirects led); undefined for any other entry. */
function siteOf(entry: CrawlLogEntry | undefined): string | undefined {
  return entry?.code === 'START_REDIRECTED' && typeof entry.url === 'string' ? entry.url : undefined;
}
