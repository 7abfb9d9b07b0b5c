/** A compact dropdown of checkboxes for one filter dimension (state, source, status class). */
import { usePopover } from '../hooks/usePopover.js';
import { Icon } from './Icon.js';

export function MultiSelect<T extends string>({
  label,
  options,
  selected,
  onChange,
  testId,
}: {
  label: string;
  options: readonly { value: T; label: string; tone?: string }[];
  selected: readonly T[];
  onChange(next: T[]): void;
  testId?: string;
}) {
  const { open, setOpen, ref } = usePopover();
  const summary =
    selected.length === 0
      ? 'All'
      : selected.length <= 2
        ? options
            .filter((o) => selected.includes(o.value))
            .map((o) => o.label)
            .join(', ')
        : `${selected.length} selected`;
  return (
    <div className="menu-anchor" ref={ref}>
      <button
        type="button"
        className={`filter-btn${selected.length ? ' active' : ''}`}
        aria-haspopup="listbox"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid={testId}
      >
        <span className="filter-label">{label}:</span> {summary} <Icon name="chevronDown" size={11} />
      </button>
      {open && (
        <div className="menu menu-narrow" role="listbox" aria-multiselectable="true" aria-label={label}>
          {options.map((o) => (
            <label key={o.value} className="menu-check">
              <input
                type="checkbox"
                checked={selected.includes(o.value)}
                onChange={() => onChange(selected.includes(o.value) ? selected.filter((v) => v !== o.value) : [...selected, o.value])}
                data-value={o.value}
              />
              {o.tone && <span className={`swatch ${o.tone}`} />}
              <span>{o.label}</span>
            </label>
          ))}
          <div className="menu-foot">
            <button type="button" className="link-btn" onClick={() => onChange([])} disabled={selected.length === 0}>
              Clear
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

/** Any / Yes / No as a compact select. */
export function TriToggle({
  label,
  value,
  onChange,
  yes,
  no,
  testId,
}: {
  label: string;
  value: 'any' | 'yes' | 'no';
  onChange(v: 'any' | 'yes' | 'no'): void;
  yes: string;
  no: string;
  testId?: string;
}) {
  return (
    <label className={`filter-btn filter-select${value !== 'any' ? ' active' : ''}`}>
      <span className="filter-label">{label}:</span>
      <select value={value} onChange={(e) => onChange(e.target.value as 'any' | 'yes' | 'no')} aria-label={label} data-testid={testId}>
        <option value="any">Any</option>
        <option value="yes">{yes}</option>
        <option value="no">{no}</option>
      </select>
      <Icon name="chevronDown" size={11} />
    </label>
  );
}
