/**
 * Comparing two crawls in one pass over the new crawl's URLs in id order (then the old crawl's, for
 * the removed ones), both journals streamed through their own readers.
 *
 * URLs are matched by uniqueKey through the old crawl's frontier index. Memory: two id maps
 * (new → old and old → new, Int32Array: 8 bytes per URL of both crawls together), the new crawl's
 * field masks (Uint16Array, 2 bytes per new URL), one byte per URL for the finding member sets while
 * each finding is compared, and 12 bytes per changed URL (and per URL that entered or left a finding)
 * for the items kept; no object is held per URL. A URL's fields are read back by offset from the
 * journals (side.ts), compared exactly (text against text, the content by its SHA-256), and dropped.
 */
import type {
  AuditFinding,
  CompareFinding,
  CompareSitemap,
  CompareSitemapSide,
  CompareSummary,
  CrawlSettings,
  RequestSource,
  SitemapNode,
} from '../../../shared/model.js';
import { REQUEST_SOURCES } from '../../../shared/model.js';
import { tryUniqueKey } from '../../engine/index.js';
import { definitionOf } from '../audit/definitions.js';
import type { CrawlData } from '../data/crawl-data.js';
import { SOURCES } from '../journal/format.js';
import type { JournalWriter } from '../journal/writer.js';
import { COMPARE_FIELDS, SideReader, differences } from './side.js';

/** One crawl as the comparison reads it: loaded, not running, its audit complete. */
export interface CompareCrawl {
  id: string;
  name: string;
  settings: CrawlSettings;
  data: CrawlData;
  journalPath: string;
  writer: JournalWriter | null;
  /** Its audit's findings (findingsOf), complete. */
  findings: AuditFinding[];
  /** Its sitemap tree's nodes as the service serves them (lastmodTrust set where known). */
  nodes(): SitemapNode[];
}

// Items: [newId, oldId, meta] triples in an Int32Array; -1 where a crawl does not hold the URL.
// meta: the field mask in bits 0–12 (FIELD_BIT), the change in bits 16–17.
export const CH_ADDED = 0;
export const CH_REMOVED = 1;
export const CH_CHANGED = 2;
/** Held by both crawls, no field differs (only in a finding's moves: it entered or left for other reasons). */
export const CH_SAME = 3;
export const CHANGE_SHIFT = 16;
export const MASK_BITS = 0xffff;

/** Where a URL finding's entered and left items are in the item array: [start item, count]. */
export interface FindingMoves {
  entered: [number, number];
  left: [number, number];
}

/** A sitemap finding's moves: the sitemap URLs that entered and left it. */
export interface SitemapMoves {
  entered: string[];
  left: string[];
}

/** A comparison as computed (and as stored: store.ts). */
export interface Comparison {
  summary: CompareSummary;
  /** Triples (see CH_*); the changed rows first (rowCount of them), then each finding's moves. */
  items: Int32Array;
  rowCount: number;
  moves: Record<string, FindingMoves>;
  sitemapMoves: Record<string, SitemapMoves>;
  /** Why the two crawls may not be of one site (start hosts differ). */
  warning?: string;
}

/** The summary lists at most this many sitemaps. */
export const MAX_SUMMARY_SITEMAPS = 5000;

/** URLs between two turns of the event loop. */
const YIELD_EVERY = 2048;

class Items {
  buf = new Int32Array(3 * 1024);
  length = 0;

  push(n: number, o: number, meta: number): void {
    if (this.length + 3 > this.buf.length) {
      const next = new Int32Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.length++] = n;
    this.buf[this.length++] = o;
    this.buf[this.length++] = meta;
  }

  get count(): number {
    return this.length / 3;
  }

  done(): Int32Array {
    return this.buf.slice(0, this.length);
  }
}

const turn = () => new Promise<void>((r) => setImmediate(r));

/** Compares crawl `old` with crawl `neu` (see the header). */
export async function computeComparison(old: CompareCrawl, neu: CompareCrawl, now: number): Promise<Comparison> {
  const oq = old.data.queue;
  const nq = neu.data.queue;
  const oCount = old.data.store.count;
  const nCount = neu.data.store.count;
  const newToOld = new Int32Array(nCount).fill(-1);
  const oldToNew = new Int32Array(oCount).fill(-1);
  const newMask = new Uint16Array(nCount);
  const items = new Items();
  const fieldCounts = new Array<number>(COMPARE_FIELDS.length).fill(0);
  const bySource = new Map<RequestSource, { before: number; after: number; added: number; removed: number }>(
    REQUEST_SOURCES.map((s) => [s, { before: 0, after: 0, added: 0, removed: 0 }]),
  );
  // Per sitemap (by uniqueKey): URLs it lists now and not before, and the other way round.
  const gained = new Map<string, number>();
  const lost = new Map<string, number>();
  const bump = (m: Map<string, number>, key: string) => m.set(key, (m.get(key) ?? 0) + 1);
  const keyOfFrom = (data: CrawlData, ref: number) => data.froms.keyOf(ref) ?? data.froms.text(ref) ?? '';
  let added = 0;
  let removed = 0;
  let changed = 0;
  let unchanged = 0;

  const oldReader = new SideReader(old.data, old.journalPath, old.writer);
  const newReader = new SideReader(neu.data, neu.journalPath, neu.writer);
  try {
    for (let n = 0; n < nCount; n++) {
      if (n % YIELD_EVERY === YIELD_EVERY - 1) await turn();
      const src = SOURCES[neu.data.store.source[n]!]!;
      bySource.get(src)!.after++;
      const key = nq.get(n)!.uniqueKey;
      const o = oq.idOf(key) ?? -1;
      newToOld[n] = o;
      const newRefs = neu.data.store.sitemapsOf(n);
      if (o < 0) {
        added++;
        bySource.get(src)!.added++;
        items.push(n, -1, CH_ADDED << CHANGE_SHIFT);
        for (const ref of newRefs) bump(gained, keyOfFrom(neu.data, ref));
        continue;
      }
      oldToNew[o] = n;
      const mask = differences(oldReader.side(o, key), newReader.side(n, key));
      newMask[n] = mask;
      if (mask === 0) unchanged++;
      else {
        changed++;
        items.push(n, o, (CH_CHANGED << CHANGE_SHIFT) | mask);
        for (let i = 0; i < COMPARE_FIELDS.length; i++) if ((mask & (1 << i)) !== 0) fieldCounts[i]!++;
      }
      const oldRefs = old.data.store.sitemapsOf(o);
      if (newRefs.length === 1 && oldRefs.length === 1) {
        // Most URLs are listed once: no sets.
        const a = keyOfFrom(old.data, oldRefs[0]!);
        const b = keyOfFrom(neu.data, newRefs[0]!);
        if (a !== b) {
          bump(lost, a);
          bump(gained, b);
        }
      } else if (newRefs.length || oldRefs.length) {
        const before = new Set(oldRefs.map((r) => keyOfFrom(old.data, r)));
        const after = new Set(newRefs.map((r) => keyOfFrom(neu.data, r)));
        for (const k of after) if (!before.has(k)) bump(gained, k);
        for (const k of before) if (!after.has(k)) bump(lost, k);
      }
    }
    for (let o = 0; o < oCount; o++) {
      const src = SOURCES[old.data.store.source[o]!]!;
      bySource.get(src)!.before++;
      if (oldToNew[o]! >= 0) continue;
      removed++;
      bySource.get(src)!.removed++;
      items.push(-1, o, CH_REMOVED << CHANGE_SHIFT);
      for (const ref of old.data.store.sitemapsOf(o)) bump(lost, keyOfFrom(old.data, ref));
    }
  } finally {
    oldReader.close();
    newReader.close();
  }
  const rowCount = items.count;

  // ---- findings: each crawl's members as its audit defines them
  const metaOf = (n: number, o: number): number => {
    if (n < 0) return CH_REMOVED << CHANGE_SHIFT;
    if (o < 0) return CH_ADDED << CHANGE_SHIFT;
    const m = newMask[n]!;
    return m === 0 ? CH_SAME << CHANGE_SHIFT : (CH_CHANGED << CHANGE_SHIFT) | m;
  };
  const moves: Record<string, FindingMoves> = {};
  const sitemapMoves: Record<string, SitemapMoves> = {};
  const findings: CompareFinding[] = [];
  const oldFindings = new Map(old.findings.map((f) => [f.code, f]));
  const oldSet = new Uint8Array(oCount);
  const newSet = new Uint8Array(nCount);
  for (const fn of neu.findings) {
    const fo = oldFindings.get(fn.code);
    const d = definitionOf(fn.code);
    if (!fo || !d) continue;
    const measured = fo.measured && fn.measured;
    const row: CompareFinding = {
      code: fn.code,
      severity: fn.severity,
      title: fn.title,
      subject: fn.subject,
      before: fo.count,
      after: fn.count,
      entered: 0,
      left: 0,
      measured,
    };
    findings.push(row);
    if (!measured) continue;
    if (d.subject === 'sitemap') {
      const keyed = (urls: string[]) => new Map(urls.map((u) => [tryUniqueKey(u) ?? u, u]));
      const was = keyed(old.data.audit.urlsOf(fn.code) as string[]);
      const now = keyed(neu.data.audit.urlsOf(fn.code) as string[]);
      const m: SitemapMoves = {
        entered: [...now].filter(([k]) => !was.has(k)).map(([, u]) => u),
        left: [...was].filter(([k]) => !now.has(k)).map(([, u]) => u),
      };
      row.entered = m.entered.length;
      row.left = m.left.length;
      if (row.entered || row.left) sitemapMoves[fn.code] = m;
      continue;
    }
    const was = old.data.audit.urlsOf(fn.code) as number[];
    const now = neu.data.audit.urlsOf(fn.code) as number[];
    for (const o of was) oldSet[o] = 1;
    for (const n of now) newSet[n] = 1;
    const start = items.count;
    for (const n of now) {
      const o = newToOld[n]!;
      if (o < 0 || oldSet[o] === 0) items.push(n, o, metaOf(n, o));
    }
    const enteredCount = items.count - start;
    // Left: URLs both crawls hold, in the new crawl's id order, then removed ones in the old one's.
    const stillHeld: number[] = [];
    const gone: number[] = [];
    for (const o of was) {
      const n = oldToNew[o]!;
      if (n >= 0 && newSet[n] === 1) continue;
      if (n >= 0) stillHeld.push(n);
      else gone.push(o);
    }
    stillHeld.sort((a, b) => a - b);
    for (const n of stillHeld) items.push(n, newToOld[n]!, metaOf(n, newToOld[n]!));
    for (const o of gone) items.push(-1, o, metaOf(-1, o));
    const leftCount = stillHeld.length + gone.length;
    for (const o of was) oldSet[o] = 0;
    for (const n of now) newSet[n] = 0;
    row.entered = enteredCount;
    row.left = leftCount;
    if (enteredCount || leftCount) moves[fn.code] = { entered: [start, enteredCount], left: [start + enteredCount, leftCount] };
    await turn();
  }

  // ---- sitemaps, matched by node id (the sitemap's uniqueKey)
  const side = (n: SitemapNode): CompareSitemapSide => {
    const s: CompareSitemapSide = {
      type: n.type,
      state: n.state,
      urlCount: n.urlCount,
      bytes: n.bytes,
      problems: n.problemCounts ? Object.values(n.problemCounts).reduce((a, b) => a + b, 0) : n.problems.length,
    };
    if (n.httpStatus !== undefined) s.httpStatus = n.httpStatus;
    if (n.lastmodTrust) s.lastmodTrust = { ...n.lastmodTrust };
    return s;
  };
  const sameSide = (a: CompareSitemapSide, b: CompareSitemapSide) =>
    a.type === b.type && a.state === b.state && a.httpStatus === b.httpStatus && a.urlCount === b.urlCount && a.bytes === b.bytes && a.problems === b.problems;
  const oldNodes = new Map(
    old
      .nodes()
      .filter((n) => n.type !== 'robots')
      .map((n) => [n.id, n]),
  );
  const newNodes = neu.nodes().filter((n) => n.type !== 'robots');
  const newIds = new Set(newNodes.map((n) => n.id));
  const listed: CompareSitemap[] = [];
  const same: CompareSitemap[] = [];
  const sitemapCounts = { added: 0, removed: 0, changed: 0, unchanged: 0 };
  for (const n of newNodes) {
    const o = oldNodes.get(n.id);
    const urlsAdded = gained.get(n.id) ?? 0;
    const urlsRemoved = lost.get(n.id) ?? 0;
    const after = side(n);
    if (!o) {
      sitemapCounts.added++;
      listed.push({ url: n.url, change: 'added', after, urlsAdded, urlsRemoved });
      continue;
    }
    const before = side(o);
    const change = sameSide(before, after) && urlsAdded === 0 && urlsRemoved === 0 ? 'unchanged' : 'changed';
    sitemapCounts[change]++;
    (change === 'unchanged' ? same : listed).push({ url: n.url, change, before, after, urlsAdded, urlsRemoved });
  }
  for (const o of oldNodes.values()) {
    if (newIds.has(o.id)) continue;
    sitemapCounts.removed++;
    listed.push({ url: o.url, change: 'removed', before: side(o), urlsAdded: gained.get(o.id) ?? 0, urlsRemoved: lost.get(o.id) ?? 0 });
  }

  const summary: CompareSummary = {
    oldId: old.id,
    newId: neu.id,
    oldName: old.name,
    newName: neu.name,
    computedAt: now,
    urls: { before: oCount, after: nCount, added, removed, changed, unchanged },
    bySource: REQUEST_SOURCES.map((source) => ({ source, ...bySource.get(source)! })),
    fields: COMPARE_FIELDS.map((field, i) => ({ field, changed: fieldCounts[i]! })),
    sitemapCounts,
    sitemaps: [...listed, ...same].slice(0, MAX_SUMMARY_SITEMAPS),
    findings,
    worse: findings.filter((f) => f.measured && f.after > f.before).map((f) => f.code),
  };
  const result: Comparison = { summary, items: items.done(), rowCount, moves, sitemapMoves };
  const hosts = [hostOf(old.settings), hostOf(neu.settings)];
  if (hosts[0] !== hosts[1]) {
    result.warning = `Crawls "${old.name}" and "${neu.name}" start on different hosts (${hosts[0] || 'none'} and ${hosts[1] || 'none'}): their URLs are compared all the same, so most show as added and removed.`;
  }
  return result;
}

/** The host a crawl starts on (its start URL, else its first sitemap); '' when none parses. */
export function hostOf(s: CrawlSettings): string {
  try {
    return new URL(s.startUrl || s.sitemapUrls[0] || '').host;
  } catch {
    return '';
  }
}
