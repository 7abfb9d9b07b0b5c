/**
 * The instant of a sitemap entry's lastmod, as the parse worker read it while checking it: the
 * frontier's thread (the URL table's lastmod column, the audit's future-date check) would otherwise
 * read every lastmod again, the same work twice, on the busier of the two threads (README, "Where the
 * 0.6 share stands"). The worker sends one number per item of a batch beside the batch's text;
 * fromWire gives it to the entry.
 *
 * It travels with the entry object under a symbol (JSON and structured clones leave it out). Entries
 * parsed on the engine's thread, or read back from the journal, have none: entryLastmodMs then reads
 * the lastmod itself, with the same function, so the number never differs from the text it stands for.
 */
import type { SitemapUrlEntry } from '../../../../shared/model.js';
import { w3cDatetimeMs } from './datetime.js';

const LASTMOD_MS = Symbol('spinneret.lastmodMs');

interface WithLastmodMs {
  [LASTMOD_MS]?: number;
}

/** Worker side: the number sent for an entry: its lastmod's instant, NaN when it has none or one that is not a W3C Datetime. */
export function lastmodFact(entry: SitemapUrlEntry): number {
  return entry.lastmod === undefined ? NaN : w3cDatetimeMs(entry.lastmod);
}

/** Frontier side: the entry's lastmod was read by the worker as `ms` (see lastmodFact). */
export function giveLastmodMs(entry: SitemapUrlEntry, ms: number): void {
  (entry as WithLastmodMs)[LASTMOD_MS] = ms;
}

/** Whether the entry came with its lastmod read (entries with a lastmod, from the worker). */
export function hasLastmodMs(entry: SitemapUrlEntry): boolean {
  return (entry as WithLastmodMs)[LASTMOD_MS] !== undefined;
}

/** Takes the worker's reading away from an entry (tests compare entries with this thread's own). */
export function dropLastmodMs(entry: SitemapUrlEntry): void {
  delete (entry as WithLastmodMs)[LASTMOD_MS];
}

/** The entry's lastmod as epoch ms: NaN when it has none, or one that is not a W3C Datetime. */
export function entryLastmodMs(entry: SitemapUrlEntry): number {
  const ms = (entry as WithLastmodMs)[LASTMOD_MS];
  if (ms !== undefined) return ms;
  return entry.lastmod === undefined ? NaN : w3cDatetimeMs(entry.lastmod);
}
