/** The "Columns" menu: a checkbox per column a table can show, and a way back to the defaults. */
import { usePopover } from '../hooks/usePopover.js';
import { Icon } from './Icon.js';

export function ColumnChooser({
  columns,
  shown,
  onToggle,
  onReset,
  canReset,
}: {
  columns: readonly { key: string; label: string; description: string; required?: boolean }[];
  shown: readonly string[];
  onToggle(key: string): void;
  onReset(): void;
  /** False when every column is as it was at first (shown and width). */
  canReset: boolean;
}) {
  const { open, setOpen, ref } = usePopover();
  const visible = columns.filter((c) => c.required || shown.includes(c.key)).length;
  return (
    <div className="menu-anchor" ref={ref}>
      <button
        type="button"
        className="filter-btn"
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid="columns-button"
        title="Choose the columns of the table"
      >
        <Icon name="columns" size={13} /> Columns{' '}
        <span className="muted">
          {visible}/{columns.length}
        </span>{' '}
        <Icon name="chevronDown" size={11} />
      </button>
      {open && (
        <div className="menu column-menu" role="dialog" aria-label="Columns" data-testid="columns-menu">
          <div className="menu-section">Show columns</div>
          <div className="column-list">
            {columns.map((c) => {
              const on = !!c.required || shown.includes(c.key);
              const last = on && visible <= 1;
              return (
                <label key={c.key} className={`menu-check${c.required || last ? ' disabled' : ''}`} title={c.description}>
                  <input type="checkbox" checked={on} disabled={!!c.required || last} onChange={() => onToggle(c.key)} data-col={c.key} />
                  <span className="column-name">{c.label}</span>
                  <span className="column-note">{c.required ? 'always shown' : c.description}</span>
                </label>
              );
            })}
          </div>
          <div className="menu-foot column-foot">
            <span>Drag a header's edge to resize it. Kept for your next visit.</span>
            <button type="button" className="link-btn" onClick={onReset} disabled={!canReset} data-testid="columns-reset">
              Reset columns
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
