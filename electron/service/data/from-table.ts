/**
 * FromTable: the `discoveredFrom` texts the journal refers to by number — sitemap URLs, and page URLs
 * that are no uniqueKey of their own. Small (one entry per sitemap), so plain JS structures.
 */
import { tryUniqueKey } from '../../engine/index.js';

export class FromTable {
  private readonly texts: string[] = [];
  private readonly index = new Map<string, number>();
  private readonly keys: (string | null | undefined)[] = [];

  get size(): number {
    return this.texts.length;
  }

  /** The entry number of `text`, or -1. */
  find(text: string): number {
    return this.index.get(text) ?? -1;
  }

  /** Adds `text` as entry `n` (replay: entries arrive in order). */
  define(n: number, text: string): void {
    this.texts[n] = text;
    this.index.set(text, n);
  }

  /** Adds `text` as the next entry; returns its number. */
  add(text: string): number {
    const n = this.texts.length;
    this.define(n, text);
    return n;
  }

  text(n: number): string | undefined {
    return this.texts[n];
  }

  /** The uniqueKey of entry n (a sitemap's node id), computed once. */
  keyOf(n: number): string | null {
    let k = this.keys[n];
    if (k === undefined) {
      const t = this.texts[n];
      k = t === undefined ? null : tryUniqueKey(t);
      this.keys[n] = k;
    }
    return k;
  }
}
