/** The overview's charts, drawn as inline SVG: horizontal bars, a donut, and a time series. */
import { useMemo } from 'react';
import { arcPath, areaPath, countAxis, donutSegments, labelStep, linePath, timeLabel, type DepthBar } from '../logic/chart.js';
import { formatCompact, formatCount, formatPercent } from '../logic/format.js';
import type { HistoryPoint } from '../logic/history.js';

export interface BarDatum {
  key: string;
  label: string;
  value: number;
  /** CSS class giving the bar its colour. */
  tone: string;
  onClick?: () => void;
}

/** Labelled horizontal bars, each with its count and share. */
export function BarList({ data, total }: { data: BarDatum[]; total?: number }) {
  const max = Math.max(1, ...data.map((d) => d.value));
  const sum = total ?? data.reduce((a, d) => a + d.value, 0);
  return (
    <div className="barlist">
      {data.map((d) => {
        const row = (
          <>
            <span className="barlist-label">{d.label}</span>
            <span className="barlist-track">
              <span className={`barlist-fill ${d.tone}`} style={{ width: `${(d.value / max) * 100}%` }} />
            </span>
            <span className="barlist-value num">{formatCount(d.value)}</span>
            <span className="barlist-share num muted">{formatPercent(d.value, sum)}</span>
          </>
        );
        return d.onClick ? (
          <button type="button" key={d.key} className="barlist-row clickable" onClick={d.onClick} title={`Show these URLs`}>
            {row}
          </button>
        ) : (
          <div key={d.key} className="barlist-row">
            {row}
          </div>
        );
      })}
    </div>
  );
}

/** A donut with the total in the middle. */
export function Donut({ data, size = 120, centerLabel }: { data: BarDatum[]; size?: number; centerLabel: string }) {
  const total = data.reduce((a, d) => a + d.value, 0);
  const segs = donutSegments(data.map((d) => d.value));
  return (
    <svg className="donut" width={size} height={size} viewBox={`0 0 ${size} ${size}`} role="img" aria-label={centerLabel}>
      {total === 0 ? (
        <path d={arcPath(0, Math.PI * 2, size, 14)} className="donut-empty" fillRule="evenodd" />
      ) : (
        data.map((d, i) =>
          d.value > 0 ? <path key={d.key} d={arcPath(segs[i]!.start, segs[i]!.end, size, 14)} className={`donut-seg ${d.tone}`} fillRule="evenodd" /> : null,
        )
      )}
      <text x={size / 2} y={size / 2 - 2} textAnchor="middle" className="donut-total">
        {formatCompact(total)}
      </text>
      <text x={size / 2} y={size / 2 + 14} textAnchor="middle" className="donut-label">
        {centerLabel}
      </text>
    </svg>
  );
}

const PAD = { left: 44, right: 12, top: 10, bottom: 22 };

/** Discovered and handled URLs over time, from the progress events this window received. */
export function DiscoveryChart({ points, width, height = 180 }: { points: HistoryPoint[]; width: number; height?: number }) {
  const box = useMemo(() => ({ width: Math.max(10, width - PAD.left - PAD.right), height: height - PAD.top - PAD.bottom }), [width, height]);
  const model = useMemo(() => {
    const x0 = points[0]?.at ?? 0;
    const x1 = points[points.length - 1]?.at ?? 1;
    const y = countAxis(Math.max(0, ...points.map((p) => p.discovered)), 4);
    const domain = { x0, x1: x1 === x0 ? x0 + 1000 : x1, y1: y.top };
    const disc = points.map((p) => ({ x: p.at, y: p.discovered }));
    const handled = points.map((p) => ({ x: p.at, y: p.handled }));
    return {
      domain,
      yTicks: y.ticks,
      discArea: areaPath(disc, domain, box),
      discLine: linePath(disc, domain, box),
      handledLine: linePath(handled, domain, box),
      xTicks: [domain.x0, (domain.x0 + domain.x1) / 2, domain.x1],
    };
  }, [points, box]);
  return (
    <svg className="linechart" width={width} height={height} role="img" aria-label="Discovery over time">
      <g transform={`translate(${PAD.left},${PAD.top})`}>
        {model.yTicks.map((t) => {
          const y = box.height - (t / model.domain.y1) * box.height;
          return (
            <g key={t}>
              <line x1={0} x2={box.width} y1={y} y2={y} className="grid" />
              <text x={-6} y={y + 3.5} textAnchor="end" className="axis">
                {formatCompact(t)}
              </text>
            </g>
          );
        })}
        {points.length > 1 && (
          <>
            <path d={model.discArea} className="area-disc" />
            <path d={model.discLine} className="line-disc" />
            <path d={model.handledLine} className="line-handled" />
          </>
        )}
        {points.length > 1 &&
          model.xTicks.map((t, i) => (
            <text
              key={i}
              x={((t - model.domain.x0) / (model.domain.x1 - model.domain.x0)) * box.width}
              y={box.height + 16}
              textAnchor={i === 0 ? 'start' : i === 2 ? 'end' : 'middle'}
              className="axis"
            >
              {timeLabel(t, model.domain.x0, model.domain.x1)}
            </text>
          ))}
      </g>
    </svg>
  );
}

/** A compact legend for the donut: swatch, label, count and share, each row clickable. */
export function Legend({ data }: { data: BarDatum[] }) {
  const sum = data.reduce((a, d) => a + d.value, 0);
  return (
    <div className="legend-list">
      {data.map((d) => (
        <button
          type="button"
          key={d.key}
          className="legend-row"
          data-key={d.key}
          data-value={d.value}
          onClick={d.onClick}
          disabled={!d.onClick || d.value === 0}
          title="Show these URLs"
        >
          <span className={`swatch ${d.tone}`} />
          <span className="legend-label">{d.label}</span>
          <span className="num legend-value">{formatCount(d.value)}</span>
          <span className="num muted legend-share">{formatPercent(d.value, sum)}</span>
        </button>
      ))}
    </div>
  );
}

const DEPTH_PAD = { left: 44, right: 8, top: 16, bottom: 34 };

/**
 * URLs per click depth as vertical bars (the URLs without one apart, greyed, at the right), each
 * depth's bar clickable; counts above the bars when they fit, axis labels thinned to fit.
 */
/** `onPick`: a bar was clicked (its depth, or null for "none": the URLs without a click depth). */
export function DepthChart({ bars, width, height = 180, onPick }: { bars: DepthBar[]; width: number; height?: number; onPick?(depth: number | null): void }) {
  const box = { width: Math.max(10, width - DEPTH_PAD.left - DEPTH_PAD.right), height: height - DEPTH_PAD.top - DEPTH_PAD.bottom };
  const { top: yMax, ticks: yTicks } = countAxis(Math.max(0, ...bars.map((b) => b.value)), 4);
  // The "none" bar stands a half slot apart from the depths.
  const hasNone = bars.some((b) => b.depth === null);
  const slots = bars.length + (hasNone ? 0.5 : 0);
  const slot = box.width / Math.max(1, slots);
  const barW = Math.max(2, Math.min(48, slot * 0.72));
  const step = labelStep(bars.length, box.width);
  const showValues = slot >= 30;
  // Slots between a depth's label and the "none" label (which is always drawn): a nearer one is left out.
  const noneGap = (i: number) => bars.length - 1 - i + 0.5;
  return (
    <svg className="depthchart" width={width} height={height} role="img" aria-label="URLs by click depth">
      <g transform={`translate(${DEPTH_PAD.left},${DEPTH_PAD.top})`}>
        {yTicks.map((t) => {
          const y = box.height - (t / yMax) * box.height;
          return (
            <g key={t}>
              <line x1={0} x2={box.width} y1={y} y2={y} className="grid" />
              <text x={-6} y={y + 3.5} textAnchor="end" className="axis">
                {formatCompact(t)}
              </text>
            </g>
          );
        })}
        {bars.map((b, i) => {
          const x = (i + (b.depth === null ? 0.5 : 0)) * slot + (slot - barW) / 2;
          const h = b.value > 0 ? Math.max(2, (b.value / yMax) * box.height) : 0;
          const cx = x + barW / 2;
          const clickable = b.value > 0 && !!onPick;
          const urls = `${formatCount(b.value)} ${b.value === 1 ? 'URL' : 'URLs'}`;
          const tip =
            (b.depth === null
              ? `No click depth: ${urls} that no chain of followed links from the start URL reaches (listed only by sitemaps, or linked only from unreached pages or through nofollow links)`
              : `Click depth ${b.depth}: ${urls}`) + (clickable ? ' (click to list them)' : '');
          return (
            <g
              key={b.label}
              className={`depth-bar${b.depth === null ? ' depth-none' : ''}${clickable ? ' clickable' : ''}`}
              data-depth={b.depth ?? 'none'}
              data-value={b.value}
              onClick={clickable ? () => onPick!(b.depth) : undefined}
              role={clickable ? 'button' : undefined}
              aria-label={tip}
            >
              <title>{tip}</title>
              {/* The whole slot takes the click, not only a thin bar. */}
              <rect x={i * slot + (b.depth === null ? slot / 2 : 0)} y={0} width={slot} height={box.height} className="depth-hit" />
              <rect x={x} y={box.height - h} width={barW} height={h} rx={2} className="depth-fill" />
              {showValues && b.value > 0 && (
                <text x={cx} y={box.height - h - 4} textAnchor="middle" className="axis depth-value">
                  {formatCompact(b.value)}
                </text>
              )}
              {(b.depth === null || (i % step === 0 && !(hasNone && noneGap(i) * slot < 22))) && (
                <text x={cx} y={box.height + 14} textAnchor="middle" className="axis">
                  {b.label}
                </text>
              )}
            </g>
          );
        })}
        <text x={box.width / 2} y={box.height + 29} textAnchor="middle" className="axis axis-title">
          clicks from the start URL
        </text>
      </g>
    </svg>
  );
}
