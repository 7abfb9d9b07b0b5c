/** The status filter: classes (4xx) as checkboxes and exact statuses (404, 410) typed in, either matching. */
import { useEffect, useState } from 'react';
import { usePopover } from '../hooks/usePopover.js';
import type { StatusClass } from '../../../shared/model.js';
import { STATUS_CLASS_LABEL } from '../logic/labels.js';
import { ALL_STATUS_CLASSES, parseStatusCodes } from '../logic/url-query.js';
import { Icon } from './Icon.js';

export function StatusFilter({
  classes,
  codes,
  onChange,
}: {
  classes: readonly StatusClass[];
  codes: readonly number[];
  onChange(next: { statusClasses: StatusClass[]; statuses: number[] }): void;
}) {
  const { open, setOpen, ref } = usePopover();
  const codesText = codes.join(', ');
  const [text, setText] = useState(codesText);
  const [error, setError] = useState<string | null>(null);
  // The codes applied changed (a chip removed, Clear), or the menu closed: the field shows what is applied.
  useEffect(() => {
    setText(codesText);
    setError(null);
  }, [codesText, open]);
  const applyCodes = () => {
    const parsed = parseStatusCodes(text);
    if ('error' in parsed) return setError(parsed.error);
    setError(null);
    onChange({ statusClasses: [...classes], statuses: parsed.codes });
  };
  const picked = [...classes.map((c) => STATUS_CLASS_LABEL[c]), ...codes.map(String)];
  const summary = picked.length === 0 ? 'All' : picked.length <= 3 ? picked.join(', ') : `${picked.length} selected`;
  return (
    <div className="menu-anchor" ref={ref}>
      <button
        type="button"
        className={`filter-btn${picked.length ? ' active' : ''}`}
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid="filter-status"
      >
        <span className="filter-label">Status:</span> {summary} <Icon name="chevronDown" size={11} />
      </button>
      {open && (
        <div className="menu menu-narrow status-menu" role="dialog" aria-label="Status filter">
          <div className="menu-section">Status class</div>
          {ALL_STATUS_CLASSES.map((c) => (
            <label key={c} className="menu-check">
              <input
                type="checkbox"
                checked={classes.includes(c)}
                onChange={() => onChange({ statusClasses: classes.includes(c) ? classes.filter((x) => x !== c) : [...classes, c], statuses: [...codes] })}
                data-value={c}
              />
              <span className={`swatch tone-${c}`} />
              <span>{STATUS_CLASS_LABEL[c]}</span>
            </label>
          ))}
          <div className="menu-section">Exact status</div>
          <form
            className="status-codes"
            onSubmit={(e) => {
              e.preventDefault();
              applyCodes();
            }}
          >
            <input
              type="text"
              inputMode="numeric"
              className={`input${error ? ' invalid' : ''}`}
              placeholder="e.g. 404, 410"
              value={text}
              onChange={(e) => setText(e.target.value)}
              aria-label="Exact HTTP statuses, separated by commas"
              aria-invalid={!!error}
              data-testid="filter-status-codes"
            />
            <button type="submit" className="btn btn-small" data-testid="filter-status-apply">
              Apply
            </button>
          </form>
          {error ? (
            <div className="status-codes-note text-error" role="alert">
              {error}
            </div>
          ) : (
            <div className="status-codes-note muted">A URL with any status picked here matches.</div>
          )}
          <div className="menu-foot">
            <button type="button" className="link-btn" onClick={() => onChange({ statusClasses: [], statuses: [] })} disabled={picked.length === 0}>
              Clear
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
