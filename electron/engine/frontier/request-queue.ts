/**
 * MemoryRequestQueue: the one deduplication authority of a crawl, built to hold a million URLs
 * in well under 100 MB.
 *
 * Layout (no JS object per URL):
 * - uniqueKeys are interned in a StringIndex (UTF-8 arena + open-addressing table); the intern id
 *   IS the request id, so ids are dense and admission-ordered.
 * - the URL as given is stored only when it differs from its uniqueKey (a second arena), its offset
 *   in a Map while such URLs are rare (sitemaps list canonical URLs), in a column once they are not.
 * - per-id typed columns: source, state, depth, label (interned), discoveredFrom (a "from ref").
 * - discoveries after the first are a linked list in typed arrays (newest first, reversed on read);
 *   the first discovery is the request's own source + discoveredFrom.
 * - a "from ref" is the id of a uniqueKey whose text equals the `from` string (links found on an
 *   admitted page), or an entry of a small side table (sitemap URLs, redirected page URLs).
 * - rare data lives in sparse Maps: userData, retryCount.
 *
 * sitemapEntry is NOT kept: the onAdmitted hook receives the full Request, sitemapEntry included, so
 * the service can journal it; after that the queue drops it. Requests built by fetchNextRequest()
 * and get() carry url/uniqueKey/source/depth/label/discoveredFrom/userData/retryCount only — the
 * crawler needs nothing more, and keeping every sitemap entry would cost more than the rest together.
 */
import { REQUEST_SOURCES, type RequestSource } from '../../../shared/model.js';
import { ByteArena } from '../compact/byte-arena.js';
import { RunRing } from '../compact/int-ring.js';
import { SparseColumn } from '../compact/sparse-column.js';
import { StringIndex } from '../compact/string-index.js';
import { column, ensureCapacity, widened } from '../compact/typed-growth.js';
import {
  EngineError,
  type AddRequestOptions,
  type AddRequestResult,
  type Discovery,
  type ListingWire,
  type Request,
  type RequestInit,
  type RequestQueue,
} from '../types.js';
import { toUniqueKey } from './url.js';

export interface MemoryRequestQueueOptions {
  /** A new URL was admitted: the full Request (with sitemapEntry), whether it will be fetched, and its listing's wire form if any. */
  onAdmitted?(req: Request, state: 'queued' | 'listed', wire?: ListingWire): void;
  /** A known URL was found again; the discovery has been recorded. */
  onDuplicate?(id: number, d: Discovery, init: RequestInit): void;
}

/** What `restore` needs of a journalled request. */
export interface RestoredRequest {
  id: number;
  url: string;
  uniqueKey: string;
  source: RequestSource;
  depth: number;
  discoveredFrom?: string;
  label?: string;
  userData?: Record<string, unknown>;
  sitemapEntry?: unknown;
}

const SOURCES: readonly RequestSource[] = REQUEST_SOURCES;

const PENDING = 0;
const IN_PROGRESS = 1;
const HANDLED = 2;

/** depths value meaning "see deepDepths". */
const DEEP = 0xffff;
/** labelRefs value meaning "see labelOverflow". */
const LABEL_OVERFLOW = 0xff;
/** fromRefs value meaning "no from". Values ≥ 0 are key ids; ≤ -2 are side-table entries. */
const NO_FROM = -1;

export class MemoryRequestQueue implements RequestQueue {
  private readonly keys = new StringIndex({ sharePrefixes: true });
  private readonly urls = new ByteArena();
  private readonly froms = new StringIndex();
  private readonly labelIds = new Map<string, number>();
  /** Label per label id; 0 = no label. */
  private readonly labels: (string | undefined)[] = [undefined];

  /**
   * Offset + 1 of the URL as given (length-prefixed, in `urls`) when it differs from its uniqueKey;
   * 0 for the rest. Sitemaps list canonical URLs, so this is usually a handful (a dense column would
   * cost 4 bytes per URL for nothing in a sitemap crawl).
   */
  private readonly urlOffsets = new SparseColumn();
  private sources = column(Uint8Array);
  private states = column(Uint8Array);
  /** Depth, or DEEP to look in `deepDepths`; made with the first URL deeper than 0 (a sitemap crawl's URLs all have depth 0). */
  private depths: Uint16Array | null = null;
  /** Label id (see `labels`), or 0xff to look in `labelOverflow`. */
  private labelRefs: Uint8Array | null = null;
  /** 16 bits until a ref needs more (a link crawl past 32,767 URLs): a sitemap crawl's refs are its few sitemaps. */
  private fromRefs: Int16Array | Int32Array = column(Int16Array);
  /** Newest later discovery per id, as an index + 1 into the discovery columns (0 = none). */
  private readonly discHeads = new SparseColumn();

  private discNext = column(Int32Array);
  private discSource = column(Uint8Array);
  private discFrom = column(Int32Array);
  private discCount = 0;

  private readonly userData = new Map<number, Record<string, unknown>>();
  private readonly retries = new Map<number, number>();
  /** Labels past the Uint8 column's range and depths past Uint16 (rare; kept exact anyway). */
  private readonly labelOverflow = new Map<number, string>();
  private readonly deepDepths = new Map<number, number>();

  private readonly pending = new RunRing();
  private nPending = 0;
  private nInProgress = 0;
  private nHandled = 0;
  private nDuplicates = 0;

  /** Links arrive in runs from one page: remember the last `from` resolved. */
  private lastFrom: string | undefined;
  private lastFromRef = NO_FROM;

  constructor(private opts: MemoryRequestQueueOptions = {}) {}

  /** Replaces the hooks (a queue restored from journals is handed to a crawler that wires its own). */
  setHooks(hooks: MemoryRequestQueueOptions): void {
    this.opts = hooks;
  }

  /**
   * Admits a request, or records a discovery of a known one. With `handled`, a new request is
   * admitted as already handled ('listed': recorded, never handed out); `wire` goes to onAdmitted.
   */
  addRequest(init: RequestInit, options: AddRequestOptions = {}): AddRequestResult {
    const source = sourceCode(init.source);
    const uniqueKey = init.uniqueKey ?? toUniqueKey(init.url);
    checkDepth(init.depth, init.url);
    const id = this.keys.intern(uniqueKey);
    if (!this.keys.added) {
      const d: Discovery = init.discoveredFrom === undefined ? { source: init.source } : { source: init.source, from: init.discoveredFrom };
      this.addDiscovery(id, source, this.fromRef(init.discoveredFrom));
      this.nDuplicates++;
      this.opts.onDuplicate?.(id, d, init);
      return { uniqueKey, id, wasAlreadyPresent: true, wasAlreadyHandled: this.states[id] === HANDLED };
    }
    const handled = options.handled === true;
    this.store(id, init.url, uniqueKey, source, init.depth, init.discoveredFrom, init.label, init.userData, handled);
    if (this.opts.onAdmitted) {
      // Built from the init, as build(id) would read it back, without decoding the key from the arena.
      const req: Request = { id, url: init.url, uniqueKey, source: init.source, depth: init.depth, retryCount: 0 };
      if (init.label !== undefined) req.label = init.label;
      if (init.discoveredFrom !== undefined) req.discoveredFrom = init.discoveredFrom;
      if (init.userData !== undefined) req.userData = init.userData;
      if (init.sitemapEntry) req.sitemapEntry = init.sitemapEntry;
      this.opts.onAdmitted(req, handled ? 'listed' : 'queued', options.wire);
    }
    return { uniqueKey, id, wasAlreadyPresent: false, wasAlreadyHandled: false };
  }

  /** Re-admits a journalled request with its original id (hooks are not called). */
  restore(req: RestoredRequest, handled: boolean): void {
    if (req.id !== this.keys.size) {
      throw new EngineError(
        'RESTORE_OUT_OF_ORDER',
        `Cannot restore request ${req.id} (${req.url}): the next id is ${this.keys.size}. The journal is out of order or incomplete.`,
      );
    }
    const source = sourceCode(req.source);
    checkDepth(req.depth, req.url);
    const id = this.keys.intern(req.uniqueKey);
    if (!this.keys.added) {
      throw new EngineError(
        'RESTORE_DUPLICATE',
        `Cannot restore request ${req.id} (${req.url}): its uniqueKey is already request ${id}. The journal holds a duplicate.`,
      );
    }
    this.store(id, req.url, req.uniqueKey, source, req.depth, req.discoveredFrom, req.label, req.userData, handled);
  }

  /**
   * Re-records a journalled later discovery of request `id` (counted as a duplicate; no hook); `times`
   * alike ones in a row are recorded as the first of them, as addRequest records them, and all counted.
   */
  restoreDiscovery(id: number, d: Discovery, times = 1): void {
    this.checkId(id);
    this.addDiscovery(id, sourceCode(d.source), this.fromRef(d.from));
    this.nDuplicates += times;
  }

  fetchNextRequest(): Request | null {
    while (this.pending.length > 0) {
      const id = this.pending.shift();
      if (this.states[id] !== PENDING) continue; // handled while pending: a stale ring entry
      this.states[id] = IN_PROGRESS;
      this.nPending--;
      this.nInProgress++;
      return this.build(id);
    }
    return null;
  }

  /** Marks a request handled; a pending one (never handed out) is handled too. Idempotent. */
  markRequestHandled(request: Request): void {
    const id = request.id;
    this.checkId(id);
    const s = this.states[id];
    if (s === HANDLED) return;
    if (s === IN_PROGRESS) this.nInProgress--;
    else this.nPending--;
    this.states[id] = HANDLED;
    this.nHandled++;
  }

  /**
   * Puts a request that was handed out back in the pending queue. The queue counts the retry
   * (callers do not bump retryCount themselves).
   */
  reclaimRequest(request: Request, opts: { forefront?: boolean } = {}): void {
    const id = request.id;
    this.checkId(id);
    if (this.states[id] !== IN_PROGRESS) {
      throw new EngineError('NOT_IN_PROGRESS', `Cannot reclaim request ${id} (${request.url}): it is not in progress.`);
    }
    this.retries.set(id, (this.retries.get(id) ?? 0) + 1);
    this.states[id] = PENDING;
    this.nInProgress--;
    this.nPending++;
    if (opts.forefront) this.pending.pushFront(id);
    else this.pending.pushBack(id);
  }

  isEmpty(): boolean {
    return this.nPending === 0;
  }

  isFinished(): boolean {
    return this.nPending === 0 && this.nInProgress === 0;
  }

  pendingCount(): number {
    return this.nPending;
  }

  inProgressCount(): number {
    return this.nInProgress;
  }

  handledCount(): number {
    return this.nHandled;
  }

  totalCount(): number {
    return this.keys.size;
  }

  /**
   * Readies the frontier for `n` URLs in all (it still admits any number): a crawl calls this with
   * what its sitemaps are likely to list, so the key table grows once instead of doubling its way up.
   */
  reserve(n: number): void {
    this.keys.reserve(n);
  }

  /**
   * Gets ready to admit requests with these uniqueKeys, in this order (see StringIndex.prepare): a
   * batch's memory reads overlap instead of waiting one by one.
   */
  prepareKeys(keys: readonly (string | undefined)[], n: number): void {
    this.keys.prepare(keys, n);
  }

  duplicateCount(): number {
    return this.nDuplicates;
  }

  has(uniqueKey: string): boolean {
    return this.keys.find(uniqueKey) >= 0;
  }

  /** The id of a uniqueKey, or undefined when unknown. */
  idOf(uniqueKey: string): number | undefined {
    const id = this.keys.find(uniqueKey);
    return id >= 0 ? id : undefined;
  }

  /** The request with this id (without sitemapEntry), or undefined. */
  get(id: number): Request | undefined {
    if (!Number.isInteger(id) || id < 0 || id >= this.keys.size) return undefined;
    return this.build(id);
  }

  isHandled(id: number): boolean {
    return id >= 0 && id < this.keys.size && this.states[id] === HANDLED;
  }

  discoveriesOf(uniqueKey: string): Discovery[] {
    const id = this.keys.find(uniqueKey);
    return id < 0 ? [] : this.discoveriesOfId(id);
  }

  /** Every discovery of request `id`, first one first. */
  discoveriesOfId(id: number): Discovery[] {
    if (id < 0 || id >= this.keys.size) return [];
    const later: Discovery[] = [];
    for (let d = this.discHeads.get(id) - 1; d !== -1; d = this.discNext[d]) {
      later.push(discovery(SOURCES[this.discSource[d]], this.fromText(this.discFrom[d])));
    }
    later.reverse();
    return [discovery(SOURCES[this.sources[id]], this.fromText(this.fromRefs[id])), ...later];
  }

  /** Approximate bytes held by the queue's own structures (not counting V8's overhead). */
  allocatedBytes(): number {
    return (
      this.keys.allocatedBytes() +
      this.urls.allocatedBytes() +
      this.froms.allocatedBytes() +
      this.pending.allocatedBytes() +
      this.urlOffsets.bytes() +
      this.discHeads.bytes() +
      [
        this.sources,
        this.states,
        this.depths ?? new Uint16Array(0),
        this.labelRefs ?? new Uint8Array(0),
        this.fromRefs,
        this.discNext,
        this.discSource,
        this.discFrom,
      ].reduce((n, a) => n + a.byteLength, 0)
    );
  }

  // ------------------------------------------------------------------ internals

  private store(
    id: number,
    url: string,
    uniqueKey: string,
    source: number,
    depth: number,
    from: string | undefined,
    label: string | undefined,
    userData: Record<string, unknown> | undefined,
    handled: boolean,
  ): void {
    this.ensureColumns(id + 1);
    if (url !== uniqueKey) this.urlOffsets.set(id, this.urls.appendSized(url) + 1, id + 1, this.sources.length);
    this.sources[id] = source;
    if (depth !== 0 && this.depths === null) this.depths = ensureCapacity(column(Uint16Array), this.sources.length);
    if (this.depths !== null) {
      if (depth < DEEP) this.depths[id] = depth;
      else {
        this.depths[id] = DEEP;
        this.deepDepths.set(id, depth);
      }
    }
    const fromRef = this.fromRef(from);
    if ((fromRef > 0x7fff || fromRef < -0x8000) && this.fromRefs instanceof Int16Array) this.fromRefs = widened(this.fromRefs);
    this.fromRefs[id] = fromRef;
    const labelRef = this.labelRef(id, label);
    if (labelRef !== 0 && this.labelRefs === null) this.labelRefs = ensureCapacity(column(Uint8Array), this.sources.length);
    if (this.labelRefs !== null) this.labelRefs[id] = labelRef;
    if (userData !== undefined) this.userData.set(id, userData);
    if (handled) {
      this.states[id] = HANDLED;
      this.nHandled++;
    } else {
      this.states[id] = PENDING;
      this.nPending++;
      this.pending.pushBack(id);
    }
  }

  private build(id: number): Request {
    const uniqueKey = this.keys.get(id);
    const off = this.urlOffsets.get(id) - 1;
    const req: Request = {
      id,
      url: off === -1 ? uniqueKey : this.urls.readSized(off),
      uniqueKey,
      source: SOURCES[this.sources[id]],
      depth: this.depthOf(id),
      retryCount: this.retries.get(id) ?? 0,
    };
    const label = this.labelText(id);
    if (label !== undefined) req.label = label;
    const from = this.fromText(this.fromRefs[id]);
    if (from !== undefined) req.discoveredFrom = from;
    const userData = this.userData.get(id);
    if (userData !== undefined) req.userData = userData;
    return req;
  }

  /** Records a later discovery, unless it repeats the latest one exactly (a page linking twice). */
  private addDiscovery(id: number, source: number, fromRef: number): void {
    const head = this.discHeads.get(id) - 1;
    const lastSource = head === -1 ? this.sources[id] : this.discSource[head];
    const lastFrom = head === -1 ? this.fromRefs[id] : this.discFrom[head];
    if (lastSource === source && lastFrom === fromRef) return;
    const d = this.discCount;
    if (d + 1 > this.discNext.length) {
      this.discNext = ensureCapacity(this.discNext, d + 1);
      this.discSource = ensureCapacity(this.discSource, d + 1);
      this.discFrom = ensureCapacity(this.discFrom, d + 1);
    }
    this.discNext[d] = head;
    this.discSource[d] = source;
    this.discFrom[d] = fromRef;
    this.discHeads.set(id, d + 1, this.keys.size, this.sources.length);
    this.discCount = d + 1;
  }

  private fromRef(from: string | undefined): number {
    if (from === undefined) return NO_FROM;
    if (from === this.lastFrom) return this.lastFromRef;
    // A page URL usually is an admitted uniqueKey: point at it instead of storing the text again.
    let ref = this.keys.find(from);
    if (ref < 0) ref = -2 - this.froms.intern(from);
    this.lastFrom = from;
    this.lastFromRef = ref;
    return ref;
  }

  private fromText(ref: number): string | undefined {
    if (ref === NO_FROM) return undefined;
    return ref >= 0 ? this.keys.get(ref) : this.froms.get(-2 - ref);
  }

  private labelRef(id: number, label: string | undefined): number {
    if (label === undefined) return 0;
    let ref = this.labelIds.get(label);
    if (ref === undefined) {
      if (this.labels.length >= LABEL_OVERFLOW) {
        this.labelOverflow.set(id, label);
        return LABEL_OVERFLOW;
      }
      ref = this.labels.length;
      this.labels.push(label);
      this.labelIds.set(label, ref);
    }
    return ref;
  }

  private depthOf(id: number): number {
    const d = this.depths === null ? 0 : this.depths[id]!;
    return d === DEEP ? this.deepDepths.get(id)! : d;
  }

  private labelText(id: number): string | undefined {
    const ref = this.labelRefs === null ? 0 : this.labelRefs[id]!;
    return ref === LABEL_OVERFLOW ? this.labelOverflow.get(id) : this.labels[ref];
  }

  private ensureColumns(need: number): void {
    if (need <= this.sources.length) return;
    this.urlOffsets.grow(need);
    this.sources = ensureCapacity(this.sources, need);
    this.states = ensureCapacity(this.states, need);
    if (this.depths) this.depths = ensureCapacity(this.depths, need);
    if (this.labelRefs) this.labelRefs = ensureCapacity(this.labelRefs, need);
    this.fromRefs = ensureCapacity(this.fromRefs, need);
    this.discHeads.grow(need);
  }

  private checkId(id: number): void {
    if (!Number.isInteger(id) || id < 0 || id >= this.keys.size) {
      throw new EngineError('UNKNOWN_REQUEST', `Request id ${id} is not in this queue.`);
    }
  }
}

function sourceCode(source: RequestSource): number {
  const code = SOURCES.indexOf(source);
  if (code < 0) throw new EngineError('INVALID_REQUEST', `Unknown request source "${String(source)}"; expected one of ${SOURCES.join(', ')}.`);
  return code;
}

function checkDepth(depth: number, url: string): void {
  if (!Number.isInteger(depth) || depth < 0 || depth > 0x7fff_ffff) {
    throw new EngineError('INVALID_REQUEST', `Depth ${depth} of ${url} is not a non-negative integer.`);
  }
}

function discovery(source: RequestSource, from: string | undefined): Discovery {
  return from === undefined ? { source } : { source, from };
}
