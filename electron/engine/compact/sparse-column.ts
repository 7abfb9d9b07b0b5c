/**
 * A per-id value (0 = none) that only some ids have: kept in a Map while few do, in a Uint32 column
 * once more than 1 id in 16 (and 1,024 ids) does. A sitemap crawl of a million URLs then carries
 * nothing per URL for what only a handful need (URLs spelled unlike their key, found again, listed
 * by a second sitemap), and a crawl where most need it pays 4 bytes each, not a Map entry.
 */
import { column, ensureCapacity } from './typed-growth.js';

export class SparseColumn {
  private dense: Uint32Array | null = null;
  private readonly sparse = new Map<number, number>();

  /** The value of `id`; 0 when it has none. */
  get(id: number): number {
    return this.dense !== null ? this.dense[id]! : (this.sparse.get(id) ?? 0);
  }

  /**
   * Sets the value (1 … 2^32-1) of `id`. `ids` is how many ids there are now, and `capacity` how many
   * the caller's columns hold (what a new column is sized to; `grow` follows them after).
   */
  set(id: number, value: number, ids: number, capacity: number): void {
    if (this.dense !== null) {
      this.dense[id] = value;
      return;
    }
    this.sparse.set(id, value);
    if (this.sparse.size > 1024 && this.sparse.size * 16 > ids) {
      const col = ensureCapacity(column(Uint32Array), Math.max(capacity, ids));
      for (const [i, v] of this.sparse) col[i] = v;
      this.sparse.clear();
      this.dense = col;
    }
  }

  /** Makes room for `need` ids once the values are a column. */
  grow(need: number): void {
    if (this.dense !== null) this.dense = ensureCapacity(this.dense, need);
  }

  /** Whether the values have become a column. */
  get isDense(): boolean {
    return this.dense !== null;
  }

  bytes(): number {
    return (this.dense?.byteLength ?? 0) + this.sparse.size * 16;
  }
}
