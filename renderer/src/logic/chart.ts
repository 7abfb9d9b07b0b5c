/** Scales and paths for the small inline-SVG charts. */
import { formatClock } from './format.js';

/**
 * A count axis: about `count` steps of a whole, round size (1, 2, 5, 25… × a power of ten) from 0 to
 * the first step at or above `max`. A count never reads 0.5, nor the same rounded label twice.
 */
export function countAxis(max: number, count = 4): { top: number; ticks: number[] } {
  const want = Math.max(1, max) / count;
  const pow = 10 ** Math.floor(Math.log10(want));
  const step = Math.max(1, [1, 2, 2.5, 5, 10].map((m) => m * pow).find((s) => s >= want && Number.isInteger(s)) ?? 10 * pow);
  const top = step * Math.max(1, Math.ceil(max / step));
  return { top, ticks: Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step) };
}

export interface Box {
  width: number;
  height: number;
}

/** An SVG path through points scaled into a box (y grows downwards). */
export function linePath(points: readonly { x: number; y: number }[], domain: { x0: number; x1: number; y1: number }, box: Box): string {
  if (points.length === 0) return '';
  const dx = domain.x1 - domain.x0 || 1;
  const dy = domain.y1 || 1;
  return points
    .map((p, i) => {
      const x = ((p.x - domain.x0) / dx) * box.width;
      const y = box.height - (p.y / dy) * box.height;
      return `${i === 0 ? 'M' : 'L'}${round(x)},${round(y)}`;
    })
    .join(' ');
}

/** The same path closed down to the baseline, for a filled area. */
export function areaPath(points: readonly { x: number; y: number }[], domain: { x0: number; x1: number; y1: number }, box: Box): string {
  const line = linePath(points, domain, box);
  if (!line) return '';
  const dx = domain.x1 - domain.x0 || 1;
  const xFirst = ((points[0]!.x - domain.x0) / dx) * box.width;
  const xLast = ((points[points.length - 1]!.x - domain.x0) / dx) * box.width;
  return `${line} L${round(xLast)},${box.height} L${round(xFirst)},${box.height} Z`;
}

/** Arcs of a donut: each segment's start and end angle (radians, clockwise from 12 o'clock). */
export function donutSegments(values: readonly number[]): { start: number; end: number }[] {
  const total = values.reduce((a, b) => a + b, 0);
  let angle = 0;
  return values.map((v) => {
    const sweep = total > 0 ? (v / total) * Math.PI * 2 : 0;
    const seg = { start: angle, end: angle + sweep };
    angle += sweep;
    return seg;
  });
}

/** The SVG path of one donut arc centred in a square of side `size`. */
export function arcPath(start: number, end: number, size: number, thickness: number): string {
  const r = size / 2;
  const ri = r - thickness;
  const pt = (rad: number, a: number) => `${round(r + rad * Math.sin(a))},${round(r - rad * Math.cos(a))}`;
  if (end - start >= Math.PI * 2 - 1e-6) {
    // A full ring cannot be one arc (its ends coincide): two half circles outside, two inside.
    const mid = start + Math.PI;
    return `M${pt(r, start)} A${r},${r} 0 1 1 ${pt(r, mid)} A${r},${r} 0 1 1 ${pt(r, start)} Z M${pt(ri, start)} A${ri},${ri} 0 1 0 ${pt(ri, mid)} A${ri},${ri} 0 1 0 ${pt(ri, start)} Z`;
  }
  const e = end;
  const large = e - start > Math.PI ? 1 : 0;
  return `M${pt(r, start)} A${r},${r} 0 ${large} 1 ${pt(r, e)} L${pt(ri, e)} A${ri},${ri} 0 ${large} 0 ${pt(ri, start)} Z`;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

/**
 * An x-axis label for a time series: the clock time, or seconds since the first point when the
 * whole series spans under a minute (three identical clock times would say nothing).
 */
export function timeLabel(t: number, x0: number, x1: number, clock: (ms: number) => string = formatClock): string {
  if (x1 - x0 >= 60_000) return clock(t);
  const s = (t - x0) / 1000;
  return `${s < 10 && s > 0 ? Math.round(s * 10) / 10 : Math.round(s)}s`;
}

/** One bar of the click-depth histogram: a depth (or none), its URLs. */
export interface DepthBar {
  /** The depth, or null for the URLs without one. */
  depth: number | null;
  label: string;
  value: number;
}

/**
 * The click-depth histogram's bars: one per depth from 0 to the deepest (empty depths kept, so the
 * axis reads as a scale), then "none" when some URLs have no click depth.
 */
export function depthBars(clickDepth: readonly number[], noClickDepth: number): DepthBar[] {
  const bars: DepthBar[] = clickDepth.map((value, depth) => ({ depth, label: String(depth), value }));
  if (noClickDepth > 0) bars.push({ depth: null, label: 'none', value: noClickDepth });
  return bars;
}

/** Every how many bars an x-axis label fits (labels need about `minPx` each). */
export function labelStep(bars: number, width: number, minPx = 22): number {
  if (bars <= 0 || width <= 0) return 1;
  return Math.max(1, Math.ceil((bars * minPx) / width));
}
