/**
 * A computed comparison, kept beside the new crawl: crawls/<newId>/compare-<oldId>.json (the summary,
 * where each finding's moves are, and the stamps of both journals) and compare-<oldId>.items (the
 * items, little-endian Int32 triples: 12 bytes per changed URL and per finding move). The items file
 * is written first and both by rename, so a JSON file names a complete items file. A stamp is a
 * journal's size and mtime: a crawl resumed, salvaged or rewritten since has another, and the
 * comparison is computed again. (updatedAt is not the stamp: a rename or a schedule changes it and
 * not the URLs.)
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CompareSummary } from '../../../shared/model.js';
import type { Comparison, FindingMoves, SitemapMoves } from './compute.js';

const FORMAT = 1;

export interface JournalStamp {
  size: number;
  mtimeMs: number;
}

interface StoredIndex {
  format: number;
  stamps: { old: JournalStamp; new: JournalStamp };
  summary: CompareSummary;
  rowCount: number;
  itemCount: number;
  moves: Record<string, FindingMoves>;
  sitemapMoves: Record<string, SitemapMoves>;
  warning?: string;
}

/** The stamp of a journal (size 0 when it does not exist yet). */
export function stampOf(journalPath: string): JournalStamp {
  try {
    const st = fs.statSync(journalPath);
    return { size: st.size, mtimeMs: st.mtimeMs };
  } catch {
    return { size: 0, mtimeMs: 0 };
  }
}

function files(newDir: string, oldId: string): { json: string; items: string } {
  const base = path.join(newDir, `compare-${oldId}`);
  return { json: `${base}.json`, items: `${base}.items` };
}

/** Whether a comparison is kept for this pair (removing its files makes the next call compute it again). */
export function isStored(newDir: string, oldId: string): boolean {
  return fs.existsSync(files(newDir, oldId).json);
}

/** Writes a comparison beside the new crawl (atomically: temp files renamed into place). */
export function saveComparison(newDir: string, oldId: string, c: Comparison, stamps: { old: JournalStamp; new: JournalStamp }): void {
  const f = files(newDir, oldId);
  const index: StoredIndex = {
    format: FORMAT,
    stamps,
    summary: c.summary,
    rowCount: c.rowCount,
    itemCount: c.items.length / 3,
    moves: c.moves,
    sitemapMoves: c.sitemapMoves,
  };
  if (c.warning !== undefined) index.warning = c.warning;
  const bytes = Buffer.from(c.items.buffer, c.items.byteOffset, c.items.byteLength);
  const le = littleEndian() ? bytes : swapped(c.items);
  writeAtomic(f.items, le);
  writeAtomic(f.json, JSON.stringify(index));
}

/** The stored comparison when it was computed from journals with these stamps; null otherwise (or when unreadable). */
export function loadComparison(newDir: string, oldId: string, stamps: { old: JournalStamp; new: JournalStamp }): Comparison | null {
  const f = files(newDir, oldId);
  let index: StoredIndex;
  try {
    index = JSON.parse(fs.readFileSync(f.json, 'utf8')) as StoredIndex;
  } catch {
    return null;
  }
  if (index?.format !== FORMAT || !sameStamp(index.stamps?.old, stamps.old) || !sameStamp(index.stamps?.new, stamps.new)) return null;
  let buf: Buffer;
  try {
    buf = fs.readFileSync(f.items);
  } catch {
    return null;
  }
  if (buf.length !== index.itemCount * 12) return null;
  let items: Int32Array;
  if (littleEndian()) items = new Int32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  else {
    items = new Int32Array(index.itemCount * 3);
    for (let i = 0; i < items.length; i++) items[i] = buf.readInt32LE(i * 4);
  }
  const c: Comparison = { summary: index.summary, items, rowCount: index.rowCount, moves: index.moves, sitemapMoves: index.sitemapMoves };
  if (index.warning !== undefined) c.warning = index.warning;
  return c;
}

function sameStamp(a: JournalStamp | undefined, b: JournalStamp): boolean {
  return a !== undefined && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

function writeAtomic(file: string, data: string | Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

function littleEndian(): boolean {
  return new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
}

function swapped(items: Int32Array): Buffer {
  const out = Buffer.allocUnsafe(items.length * 4);
  for (let i = 0; i < items.length; i++) out.writeInt32LE(items[i]!, i * 4);
  return out;
}
