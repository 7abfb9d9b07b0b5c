/**
 * The comparisons the service answers: computed once per pair of crawls (compute.ts), kept beside the
 * new crawl (store.ts) and in memory for the pair last asked about, so the Compare view pages rows
 * and the CSV streams them without comparing again. A page's rows are built from the items and both
 * crawls' journals (side.ts).
 *
 * Rows are the changed URLs (added, removed, changed) in the new crawl's id order, then the removed
 * ones in the old crawl's. With `finding`, rows are the URLs that entered (or left) that finding
 * instead, in the same order; such a URL may have no field that differs (it entered DUPLICATE_TITLE
 * because another page took its title): its row is 'changed' with no fields. A sitemap finding's rows
 * are sitemaps (their URL; added, removed or changed as sitemaps of the two crawls), without sides.
 */
import type { Writable } from 'node:stream';
import type { CompareChange, CompareFilter, ComparePage, CompareQuery, CompareRow, CompareSummary } from '../../../shared/model.js';
import { MAX_PAGE, REQUEST_SOURCES } from '../../../shared/model.js';
import { CompareChangeSchema } from '../../../shared/contract.js';
import { tryUniqueKey } from '../../engine/index.js';
import { findingDefinition } from '../audit/crawl-audit.js';
import { createTableWriter, guardCell } from '../data/csv.js';
import { ServiceError } from '../errors.js';
import { SOURCES } from '../journal/format.js';
import { CHANGE_SHIFT, CH_ADDED, CH_REMOVED, MASK_BITS, computeComparison, type CompareCrawl, type Comparison } from './compute.js';
import { COMPARE_FIELDS, FIELD_BIT, SideReader, fieldText, fieldsOf, type SideValues } from './side.js';
import { isStored, loadComparison, saveComparison, stampOf, type JournalStamp } from './store.js';

/** What the comparisons need of the service. */
export interface CompareHost {
  /** Crawl `id` ready to compare: NOT_FOUND when unknown, BAD_STATE while it runs; loaded, its audit complete. */
  open(id: string): Promise<CompareCrawl>;
  /** The crawl's folder (the comparison is kept in the new crawl's). */
  dirOf(id: string): string;
  /** Says something went wrong outside any one crawl (the service's warning event). */
  warn(message: string): void;
  now(): number;
}

/** The compare CSV's header: url, change, fields, then each compared field before and after. */
export const COMPARE_CSV_COLUMNS: readonly string[] = [
  'url',
  'change',
  'fields',
  ...COMPARE_FIELDS.flatMap((f) => {
    const snake = f.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
    return [`${snake}_before`, `${snake}_after`];
  }),
];

const CHANGE_NAMES: readonly CompareChange[] = ['added', 'removed', 'changed', 'changed'];

interface Loaded extends Comparison {
  key: string;
  stamps: { old: JournalStamp; new: JournalStamp };
  /** Item indices per filter (JSON of the filter), the few last asked. */
  selections: Map<string, Int32Array>;
}

interface Pair {
  c: Loaded;
  old: CompareCrawl;
  neu: CompareCrawl;
}

/** One item to show: a URL (item index into c.items), or a sitemap of a sitemap finding. */
type Selection = { kind: 'urls'; ids: Int32Array } | { kind: 'sitemaps'; urls: { url: string; change: CompareChange }[] };

const MAX_SELECTIONS = 8;

export class Comparisons {
  private loaded: Loaded | null = null;
  private readonly computing = new Map<string, Promise<Pair>>();

  constructor(private readonly host: CompareHost) {}

  /** The comparison's summary (computed, or read from where it is kept). */
  async summary(oldId: string, newId: string): Promise<CompareSummary> {
    const { c, old, neu } = await this.pair(oldId, newId);
    return { ...c.summary, oldName: old.name, newName: neu.name };
  }

  /** A page of rows. */
  async rows(oldId: string, newId: string, query: CompareQuery): Promise<ComparePage> {
    checkPaging(query);
    checkFilter(query);
    const p = await this.pair(oldId, newId);
    const { offset, limit, ...filter } = query;
    // Selected once per filter (cached), whichever page is asked.
    const sel = this.select(p, filter);
    if (sel.kind === 'sitemaps') {
      return { total: sel.urls.length, rows: sel.urls.slice(offset, offset + limit).map((s) => ({ url: s.url, change: s.change, fields: [] })) };
    }
    const readers = this.readers(p);
    try {
      const rows: CompareRow[] = [];
      for (let i = offset; i < Math.min(sel.ids.length, offset + limit); i++) rows.push(this.row(p, readers, sel.ids[i]!).row);
      return { total: sel.ids.length, rows };
    } finally {
      readers.old.close();
      readers.neu.close();
    }
  }

  /** Streams the rows (all, or those of the filter) as CSV (COMPARE_CSV_COLUMNS), with backpressure. */
  async exportCsv(oldId: string, newId: string, out: Writable, filter: CompareFilter = {}): Promise<{ rows: number }> {
    checkFilter(filter ?? {});
    const p = await this.pair(oldId, newId);
    const sel = this.select(p, filter ?? {});
    const csv = createTableWriter<string[]>(out, COMPARE_CSV_COLUMNS, (cells) => cells);
    if (sel.kind === 'sitemaps') {
      for (const s of sel.urls) {
        const wait = csv.write([guardCell(s.url), s.change, '', ...COMPARE_FIELDS.flatMap(() => ['', ''])]);
        if (wait) await wait;
      }
      await csv.end();
      return { rows: csv.rows };
    }
    const readers = this.readers(p);
    try {
      for (let i = 0; i < sel.ids.length; i++) {
        const { row, before, after } = this.row(p, readers, sel.ids[i]!);
        const cells = [guardCell(row.url), row.change, row.fields.join(' | ')];
        for (const f of COMPARE_FIELDS) {
          cells.push(guardCell(before ? (fieldText(before, f) ?? '') : ''), guardCell(after ? (fieldText(after, f) ?? '') : ''));
        }
        const wait = csv.write(cells);
        if (wait) await wait;
        if ((i & 4095) === 4095) await new Promise<void>((r) => setImmediate(r));
      }
      await csv.end();
    } finally {
      readers.old.close();
      readers.neu.close();
    }
    return { rows: csv.rows };
  }

  // ---------------------------------------------------------------- the pair

  private pair(oldId: string, newId: string): Promise<Pair> {
    if (typeof oldId === 'string' && oldId === newId) {
      throw new ServiceError('BAD_QUERY', `Compare two different crawls: both sides are "${oldId}".`);
    }
    const key = `${oldId}\n${newId}`;
    const busy = this.computing.get(key);
    if (busy) return busy;
    const p = this.pairOnce(oldId, newId, key).finally(() => this.computing.delete(key));
    this.computing.set(key, p);
    return p;
  }

  private async pairOnce(oldId: string, newId: string, key: string): Promise<Pair> {
    const old = await this.host.open(oldId);
    const neu = await this.host.open(newId);
    const stamps = { old: stampOf(old.journalPath), new: stampOf(neu.journalPath) };
    const cur = this.loaded;
    const dir = this.host.dirOf(newId);
    if (cur && cur.key === key && sameStamps(cur.stamps, stamps) && isStored(dir, oldId)) return { c: cur, old, neu };
    let c = loadComparison(dir, oldId, stamps);
    if (!c) {
      c = await computeComparison(old, neu, this.host.now());
      if (c.warning) this.host.warn(c.warning);
      try {
        saveComparison(dir, oldId, c, stamps);
      } catch (err) {
        this.host.warn(
          `The comparison of "${old.name}" with "${neu.name}" could not be kept in ${dir} (${(err as Error).message}); it is computed again next time.`,
        );
      }
    }
    const loaded: Loaded = { ...c, key, stamps, selections: new Map() };
    this.loaded = loaded;
    return { c: loaded, old, neu };
  }

  // ---------------------------------------------------------------- selecting rows

  private select(p: Pair, filter: CompareFilter): Selection {
    const { c } = p;
    const cacheKey = JSON.stringify(filter);
    const hit = c.selections.get(cacheKey);
    if (hit) return { kind: 'urls', ids: hit };
    let start = 0;
    let count = c.rowCount;
    if (filter.finding) {
      const d = findingDefinition(filter.finding.code);
      if (d.subject === 'sitemap') return this.selectSitemaps(p, filter, d.code);
      const m = c.moves[d.code];
      [start, count] = m ? m[filter.finding.moved] : [0, 0];
    }
    const wantChange = filter.change;
    const fieldBit = filter.field ? FIELD_BIT[filter.field] : 0;
    const sources = filter.sources ? new Set(filter.sources.map((s) => SOURCES.indexOf(s))) : null;
    const needle = filter.search ? filter.search.toLowerCase() : '';
    const sitemapKey = filter.sitemap !== undefined ? (tryUniqueKey(filter.sitemap) ?? filter.sitemap) : null;
    const { old, neu } = p;
    const listedBy = (data: CompareCrawl['data'], id: number, k: string) =>
      data.store.sitemapsOf(id).some((ref) => (data.froms.keyOf(ref) ?? data.froms.text(ref)) === k);
    const out = new Int32Array(count);
    let len = 0;
    for (let i = start; i < start + count; i++) {
      const n = c.items[3 * i]!;
      const o = c.items[3 * i + 1]!;
      const meta = c.items[3 * i + 2]!;
      if (wantChange !== undefined && CHANGE_NAMES[meta >>> CHANGE_SHIFT] !== wantChange) continue;
      if (fieldBit !== 0 && (meta & fieldBit) === 0) continue;
      if (sources && !sources.has(n >= 0 ? neu.data.store.source[n]! : old.data.store.source[o]!)) continue;
      if (sitemapKey !== null) {
        const now = n >= 0 && listedBy(neu.data, n, sitemapKey);
        const was = o >= 0 && listedBy(old.data, o, sitemapKey);
        if (now === was) continue;
      }
      if (needle) {
        const url = (n >= 0 ? neu.data.queue.get(n)! : old.data.queue.get(o)!).url;
        if (!url.toLowerCase().includes(needle)) continue;
      }
      out[len++] = i;
    }
    const ids = out.slice(0, len);
    if (c.selections.size >= MAX_SELECTIONS) c.selections.delete(c.selections.keys().next().value!);
    c.selections.set(cacheKey, ids);
    return { kind: 'urls', ids };
  }

  private selectSitemaps(p: Pair, filter: CompareFilter, code: string): Selection {
    if (filter.field !== undefined || filter.sources !== undefined || filter.sitemap !== undefined) {
      throw new ServiceError(
        'BAD_QUERY',
        `${code} is about sitemaps, not URLs: its moves are filtered by change and search only (not field, sources or sitemap).`,
      );
    }
    const m = p.c.sitemapMoves[code];
    const urls = m ? m[filter.finding!.moved] : [];
    const needle = filter.search?.toLowerCase() ?? '';
    const out: { url: string; change: CompareChange }[] = [];
    for (const url of urls) {
      const k = tryUniqueKey(url) ?? url;
      const was = p.old.data.tree.has(k);
      const now = p.neu.data.tree.has(k);
      const change: CompareChange = was && now ? 'changed' : now ? 'added' : 'removed';
      if (filter.change !== undefined && change !== filter.change) continue;
      if (needle && !url.toLowerCase().includes(needle)) continue;
      out.push({ url, change });
    }
    return { kind: 'sitemaps', urls: out };
  }

  // ---------------------------------------------------------------- rows

  private readers(p: Pair): { old: SideReader; neu: SideReader } {
    return {
      old: new SideReader(p.old.data, p.old.journalPath, p.old.writer),
      neu: new SideReader(p.neu.data, p.neu.journalPath, p.neu.writer),
    };
  }

  private row(p: Pair, r: { old: SideReader; neu: SideReader }, item: number): { row: CompareRow; before?: SideValues; after?: SideValues } {
    const n = p.c.items[3 * item]!;
    const o = p.c.items[3 * item + 1]!;
    const meta = p.c.items[3 * item + 2]!;
    const change = meta >>> CHANGE_SHIFT;
    const before = o >= 0 ? r.old.side(o) : undefined;
    const after = n >= 0 ? r.neu.side(n) : undefined;
    const url = n >= 0 ? p.neu.data.queue.get(n)!.url : p.old.data.queue.get(o)!.url;
    const row: CompareRow = { url, change: CHANGE_NAMES[change]!, fields: change === CH_ADDED || change === CH_REMOVED ? [] : fieldsOf(meta & MASK_BITS) };
    if (before) row.before = strip(before);
    if (after) row.after = strip(after);
    const out: { row: CompareRow; before?: SideValues; after?: SideValues } = { row };
    if (before) out.before = before;
    if (after) out.after = after;
    return out;
  }
}

function strip(s: SideValues): CompareRow['before'] {
  const { content: _c, ...side } = s;
  return side;
}

function sameStamps(a: { old: JournalStamp; new: JournalStamp }, b: { old: JournalStamp; new: JournalStamp }): boolean {
  return a.old.size === b.old.size && a.old.mtimeMs === b.old.mtimeMs && a.new.size === b.new.size && a.new.mtimeMs === b.new.mtimeMs;
}

function checkPaging(q: CompareQuery): void {
  if (!q || typeof q !== 'object') throw new ServiceError('BAD_QUERY', 'A compare query needs offset and limit.');
  if (!Number.isInteger(q.offset) || q.offset < 0 || !Number.isInteger(q.limit) || q.limit < 0 || q.limit > MAX_PAGE) {
    throw new ServiceError('BAD_QUERY', `offset must be a whole number ≥ 0 and limit between 0 and ${MAX_PAGE}.`);
  }
}

/** BAD_QUERY for a filter the contract would refuse (the CLI and tests call the service directly). */
function checkFilter(f: CompareFilter): void {
  if (!f || typeof f !== 'object') throw new ServiceError('BAD_QUERY', 'A compare filter must be an object.');
  if (f.change !== undefined && !CompareChangeSchema.options.includes(f.change)) {
    throw new ServiceError('BAD_QUERY', `change must be one of ${CompareChangeSchema.options.join(', ')}, not "${String(f.change)}".`);
  }
  if (f.field !== undefined && !(COMPARE_FIELDS as readonly string[]).includes(f.field)) {
    throw new ServiceError('BAD_QUERY', `field must be one of ${COMPARE_FIELDS.join(', ')}, not "${String(f.field)}".`);
  }
  if (f.sources !== undefined && (!Array.isArray(f.sources) || f.sources.some((s) => !(REQUEST_SOURCES as readonly string[]).includes(s)))) {
    throw new ServiceError('BAD_QUERY', `sources must be a list of ${REQUEST_SOURCES.join(', ')}.`);
  }
  if (f.search !== undefined && typeof f.search !== 'string') throw new ServiceError('BAD_QUERY', 'search must be text.');
  if (f.sitemap !== undefined && typeof f.sitemap !== 'string') throw new ServiceError('BAD_QUERY', 'sitemap must be the URL of a sitemap.');
  if (f.finding !== undefined) {
    if (!f.finding || typeof f.finding !== 'object') throw new ServiceError('BAD_QUERY', 'finding must be { code, moved }.');
    findingDefinition(f.finding.code);
    if (f.finding.moved !== 'entered' && f.finding.moved !== 'left') {
      throw new ServiceError('BAD_QUERY', `finding.moved must be "entered" or "left", not "${String(f.finding.moved)}".`);
    }
  }
}
