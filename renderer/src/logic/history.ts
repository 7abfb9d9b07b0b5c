/** Discovery over time: a bounded series of points taken from progress events. */
import type { ProgressEvent } from '../../../shared/model.js';

export interface HistoryPoint {
  at: number;
  discovered: number;
  handled: number;
}

/** Points kept per crawl; beyond it every other point is dropped (first and last always stay). */
export const MAX_POINTS = 300;

/** Adds a progress event's figures to a series; returns a new array. */
export function appendPoint(series: readonly HistoryPoint[], e: Pick<ProgressEvent, 'at' | 'counters'>): HistoryPoint[] {
  const c = e.counters;
  const point: HistoryPoint = { at: e.at, discovered: c.discovered, handled: c.fetched + c.errors + c.blocked };
  const last = series[series.length - 1];
  if (last && point.at < last.at) return [...series]; // out of order: ignore
  if (last && last.at === point.at) return [...series.slice(0, -1), point];
  const next = [...series, point];
  return next.length > MAX_POINTS ? thin(next) : next;
}

/** Halves a series, keeping its first and last points. */
export function thin(series: readonly HistoryPoint[]): HistoryPoint[] {
  if (series.length <= 2) return [...series];
  const out: HistoryPoint[] = [];
  for (let i = 0; i < series.length - 1; i += 2) out.push(series[i]!);
  out.push(series[series.length - 1]!);
  return out;
}
