/**
 * Which columns a table shows and how wide, as the analyst chose them: kept as JSON (in localStorage,
 * per user), read back leniently (unknown columns dropped, bad widths ignored), and a column added to
 * the app later takes its own default until the analyst chooses otherwise.
 */

/** What the preferences need to know of a column. */
export interface ColumnMeta {
  key: string;
  /** Default width in px. */
  width: number;
  /** Shown until the analyst hides it. */
  shown: boolean;
  /** Always shown (the table means nothing without it). */
  required?: boolean;
}

export interface ColumnPrefs {
  /** Keys of the columns shown. */
  shown: string[];
  /** Every column the analyst could choose from when this was saved: any other is new, and takes its default. */
  known: string[];
  /** Widths the analyst dragged, in px. */
  widths: Record<string, number>;
}

export const MIN_COLUMN_WIDTH = 40;
export const MAX_COLUMN_WIDTH = 2000;

/** What every column's defaults say. */
export function defaultPrefs(cols: readonly ColumnMeta[]): ColumnPrefs {
  return { shown: cols.filter((c) => c.shown || c.required).map((c) => c.key), known: cols.map((c) => c.key), widths: {} };
}

/** Reads saved preferences (null or anything unreadable: the defaults). */
export function readPrefs(raw: string | null, cols: readonly ColumnMeta[]): ColumnPrefs {
  let saved: unknown;
  try {
    saved = raw === null ? null : JSON.parse(raw);
  } catch {
    saved = null;
  }
  if (!saved || typeof saved !== 'object') return defaultPrefs(cols);
  const o = saved as Partial<Record<keyof ColumnPrefs, unknown>>;
  const keys = (v: unknown) => new Set(Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const shown = keys(o.shown);
  const known = keys(o.known);
  const widths: Record<string, number> = {};
  if (o.widths && typeof o.widths === 'object') {
    for (const c of cols) {
      const w = (o.widths as Record<string, unknown>)[c.key];
      if (typeof w === 'number' && Number.isFinite(w)) widths[c.key] = clampWidth(w);
    }
  }
  return {
    shown: cols.filter((c) => c.required || (known.has(c.key) ? shown.has(c.key) : c.shown)).map((c) => c.key),
    known: cols.map((c) => c.key),
    widths,
  };
}

/** The preferences as saved. */
export function writePrefs(p: ColumnPrefs): string {
  return JSON.stringify(p);
}

/** The columns shown, in the table's order. */
export function visibleColumns<T extends ColumnMeta>(p: ColumnPrefs, cols: readonly T[]): T[] {
  const shown = new Set(p.shown);
  return cols.filter((c) => c.required || shown.has(c.key));
}

/** Shows or hides one column; a required one stays, and so does the last one shown. */
export function toggleColumn(p: ColumnPrefs, cols: readonly ColumnMeta[], key: string): ColumnPrefs {
  const col = cols.find((c) => c.key === key);
  if (!col || col.required) return p;
  const on = p.shown.includes(key);
  if (on && visibleColumns(p, cols).length <= 1) return p;
  const next = new Set(on ? p.shown.filter((k) => k !== key) : [...p.shown, key]);
  return { ...p, shown: cols.filter((c) => next.has(c.key)).map((c) => c.key) };
}

/** A column's width as dragged (clamped); NaN forgets it, back to the default. */
export function resizeColumn(p: ColumnPrefs, key: string, width: number): ColumnPrefs {
  const widths = { ...p.widths };
  if (Number.isNaN(width)) delete widths[key];
  else widths[key] = clampWidth(width);
  return { ...p, widths };
}

/** A column's width: dragged, or its default. */
export function widthOf(p: ColumnPrefs, col: ColumnMeta): number {
  return p.widths[col.key] ?? col.width;
}

function clampWidth(w: number): number {
  return Math.round(Math.min(MAX_COLUMN_WIDTH, Math.max(MIN_COLUMN_WIDTH, w)));
}
