/**
 * A virtualised table: a sticky header and only the visible rows (plus overscan) in the DOM,
 * whatever the row count. Rows are fixed-height divs laid out with CSS grid. With onResize, a
 * header's right edge drags its column's width (double-click: back to its default).
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState, type PointerEvent as ReactPointerEvent, type ReactNode } from 'react';
import { Icon } from './Icon.js';

export interface Column {
  id: string;
  label: string;
  width: number;
  /** Clicking the header sorts by this key. */
  sortKey?: string;
  align?: 'right' | 'center';
  title?: string;
  /** Takes the width left over (its width is then the minimum). */
  grow?: boolean;
}

/** The narrowest a column can be dragged. */
const MIN_DRAG_WIDTH = 40;

export interface VirtualTableProps {
  columns: Column[];
  count: number;
  rowHeight?: number;
  /** Cells of a row, or null while the row's data is loading. */
  renderCells(index: number): ReactNode[] | null;
  rowKey?(index: number): string | number;
  rowClass?(index: number): string;
  activeIndex?: number | null;
  onRowClick?(index: number): void;
  onRowDoubleClick?(index: number): void;
  /** Arrow keys: move the selection by `delta` rows. */
  onMove?(delta: number): void;
  sort?: { key: string; dir: 'asc' | 'desc' };
  onSort?(key: string): void;
  /** A column's header edge was dragged to `width` px; NaN: double-clicked, back to the default. */
  onResize?(id: string, width: number): void;
  /** Called with the visible (plus overscan) row range, inclusive. */
  onRangeChange?(start: number, end: number): void;
  /** When this changes the table scrolls back to the top. */
  resetKey?: string;
  empty?: ReactNode;
  ariaLabel: string;
  testId?: string;
  overscan?: number;
}

export function VirtualTable(p: VirtualTableProps) {
  const rowHeight = p.rowHeight ?? 26;
  const scrollRef = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({
    count: p.count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: p.overscan ?? 12,
    initialRect: { width: 1000, height: 600 },
  });
  const items = v.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? -1;
  const onRange = p.onRangeChange;
  useEffect(() => {
    onRange?.(first, Math.max(first, last));
  }, [first, last, onRange]);
  useEffect(() => {
    if (scrollRef.current) scrollRef.current.scrollTop = 0;
  }, [p.resetKey]);
  useEffect(() => {
    if (p.activeIndex !== null && p.activeIndex !== undefined && p.activeIndex < p.count) {
      v.scrollToIndex(p.activeIndex, { align: 'auto' });
    }
    // Only when the active row changes: not on every count change of a live list.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [p.activeIndex]);

  // While an edge is dragged, that column's width follows the pointer; it is handed on when let go.
  const [drag, setDrag] = useState<{ id: string; width: number } | null>(null);
  const columns = drag ? p.columns.map((c) => (c.id === drag.id ? { ...c, width: drag.width, grow: false } : c)) : p.columns;
  const onResize = p.onResize;
  const startResize = (e: ReactPointerEvent<HTMLDivElement>, id: string) => {
    if (!onResize || e.button !== 0) return;
    e.preventDefault();
    e.stopPropagation();
    const handle = e.currentTarget;
    const from = e.clientX;
    const start = handle.parentElement!.getBoundingClientRect().width;
    const widthAt = (x: number) => Math.max(MIN_DRAG_WIDTH, Math.round(start + x - from));
    handle.setPointerCapture(e.pointerId);
    setDrag({ id, width: start });
    const move = (ev: PointerEvent) => setDrag({ id, width: widthAt(ev.clientX) });
    const end = (ev: PointerEvent) => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', end);
      handle.removeEventListener('pointercancel', end);
      setDrag(null);
      if (ev.type === 'pointerup') onResize(id, widthAt(ev.clientX));
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', end);
    handle.addEventListener('pointercancel', end);
  };

  const template = columns.map((c) => (c.grow ? `minmax(${c.width}px, 1fr)` : `${c.width}px`)).join(' ');
  const width = columns.reduce((a, c) => a + c.width, 0);
  return (
    <div
      className={`vtable${drag ? ' resizing' : ''}`}
      ref={scrollRef}
      role="grid"
      aria-label={p.ariaLabel}
      aria-rowcount={p.count + 1}
      tabIndex={0}
      data-testid={p.testId}
      onKeyDown={(e) => {
        if (!p.onMove) return;
        const delta = e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : e.key === 'PageDown' ? 20 : e.key === 'PageUp' ? -20 : 0;
        if (delta) {
          e.preventDefault();
          p.onMove(delta);
        }
      }}
    >
      <div className="vhead" role="row" style={{ gridTemplateColumns: template, minWidth: width }}>
        {columns.map((c) => {
          const sorted = p.sort && c.sortKey && p.sort.key === c.sortKey ? p.sort.dir : null;
          return (
            <div
              key={c.id}
              role="columnheader"
              className={`vcell vth${c.align ? ` al-${c.align}` : ''}${c.sortKey ? ' sortable' : ''}${sorted ? ' sorted' : ''}`}
              aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}
              title={c.title ?? (c.sortKey ? `Sort by ${c.label}` : c.label)}
              onClick={c.sortKey && p.onSort ? () => p.onSort!(c.sortKey!) : undefined}
              data-col={c.id}
            >
              <span className="vth-label">{c.label}</span>
              {sorted && <Icon name="chevronDown" size={11} className={sorted === 'asc' ? 'flip' : ''} />}
              {onResize && (
                <div
                  className={`vth-resize${drag?.id === c.id ? ' dragging' : ''}`}
                  role="separator"
                  aria-orientation="vertical"
                  aria-label={`Resize ${c.label}`}
                  title="Drag to resize; double-click for the default width"
                  data-resize={c.id}
                  onPointerDown={(e) => startResize(e, c.id)}
                  onClick={(e) => e.stopPropagation()}
                  onDoubleClick={(e) => {
                    e.stopPropagation();
                    onResize(c.id, NaN);
                  }}
                />
              )}
            </div>
          );
        })}
      </div>
      {p.count === 0 ? (
        <div className="vempty">{p.empty}</div>
      ) : (
        <div className="vbody" style={{ height: v.getTotalSize(), minWidth: width }}>
          {items.map((it) => {
            const cells = p.renderCells(it.index);
            const cls = p.rowClass?.(it.index) ?? '';
            return (
              <div
                key={p.rowKey ? p.rowKey(it.index) : it.index}
                role="row"
                aria-rowindex={it.index + 2}
                aria-selected={p.activeIndex === it.index}
                className={`vrow${it.index % 2 ? ' odd' : ''}${p.activeIndex === it.index ? ' active' : ''}${cells ? '' : ' placeholder'} ${cls}`}
                style={{ transform: `translateY(${it.start}px)`, height: rowHeight, gridTemplateColumns: template }}
                onClick={p.onRowClick ? () => p.onRowClick!(it.index) : undefined}
                onDoubleClick={p.onRowDoubleClick ? () => p.onRowDoubleClick!(it.index) : undefined}
                data-index={it.index}
              >
                {cells
                  ? cells.map((cell, i) => (
                      <div
                        key={columns[i]!.id}
                        role="gridcell"
                        className={`vcell${columns[i]!.align ? ` al-${columns[i]!.align}` : ''}`}
                        data-col={columns[i]!.id}
                      >
                        {cell}
                      </div>
                    ))
                  : columns.map((c) => (
                      <div key={c.id} role="gridcell" className="vcell">
                        <span className="skeleton" />
                      </div>
                    ))}
              </div>
            );
          })}
        </div>
      )}
    </div>
  );
}
