/**
 * The page-data filters in one popover beside the others: indexability (and why not), click depth
 * and inlinks ranges (or no click depth at all: the URLs no chain of links reaches), and whether a
 * page has a meta description and an H1. Choices apply at once; the ranges on Apply or Enter, with
 * an error that says which end is wrong. The chip row names what is applied.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { usePopover } from '../hooks/usePopover.js';
import type { Indexability, IndexabilityReason, Range } from '../../../shared/model.js';
import { INDEXABILITY_REASON_LABEL } from '../logic/labels.js';
import {
  ALL_INDEXABILITY_REASONS,
  clearedPageFilters,
  pageFilterCount,
  parseRange,
  type HasMissing,
  type PageFilterPatch,
  type UrlFilter,
} from '../logic/url-query.js';
import { Icon } from './Icon.js';

type PagePatch = PageFilterPatch;

export function PageFilters({ filter, onChange }: { filter: UrlFilter; onChange(patch: PagePatch): void }) {
  const { open, setOpen, ref } = usePopover();
  const n = pageFilterCount(filter);
  const idx: Indexability | 'any' = filter.indexabilityReasons.length ? 'non-indexable' : (filter.indexability ?? 'any');
  const setIdx = (v: Indexability | 'any') => onChange({ indexability: v === 'any' ? null : v, indexabilityReasons: [] });
  const toggleReason = (r: IndexabilityReason) => {
    const has = filter.indexabilityReasons.includes(r);
    const reasons = has ? filter.indexabilityReasons.filter((x) => x !== r) : [...filter.indexabilityReasons, r];
    onChange({ indexability: 'non-indexable', indexabilityReasons: reasons });
  };
  return (
    <div className="menu-anchor" ref={ref}>
      <button
        type="button"
        className={`filter-btn${n ? ' active' : ''}`}
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid="filter-page"
        title="Indexability, click depth, inlinks, meta description, H1"
      >
        <span className="filter-label">Page data:</span> {n === 0 ? 'All' : `${n} ${n === 1 ? 'filter' : 'filters'}`} <Icon name="chevronDown" size={11} />
      </button>
      {open && (
        <div className="menu page-menu" role="dialog" aria-label="Page data filters" data-testid="page-filters">
          <div className="menu-section">Indexability</div>
          <div className="seg" role="radiogroup" aria-label="Indexability">
            {(
              [
                ['any', 'Any'],
                ['indexable', 'Indexable'],
                ['non-indexable', 'Non-indexable'],
              ] as const
            ).map(([v, label]) => (
              <button
                key={v}
                type="button"
                role="radio"
                aria-checked={idx === v}
                className={`seg-btn${idx === v ? ' selected' : ''}`}
                onClick={() => setIdx(v)}
                data-testid={`filter-indexability-${v}`}
              >
                {label}
              </button>
            ))}
          </div>
          {idx === 'non-indexable' && (
            <div className="reason-list" data-testid="filter-reasons">
              <div className="muted small">Reason (none picked: any)</div>
              {ALL_INDEXABILITY_REASONS.map((r) => (
                <label key={r} className="menu-check">
                  <input type="checkbox" checked={filter.indexabilityReasons.includes(r)} onChange={() => toggleReason(r)} data-value={r} />
                  <span>{INDEXABILITY_REASON_LABEL[r]}</span>
                </label>
              ))}
            </div>
          )}
          <RangeField
            label="Click depth"
            hint="URLs without a click depth never match a range."
            value={filter.clickDepth}
            // A range replaces "no click depth" (the two never both match); an empty one leaves it.
            onApply={(clickDepth) => onChange(clickDepth ? { clickDepth, noClickDepth: false } : { clickDepth })}
            testId="filter-clickdepth"
          >
            <label className="menu-check no-depth-check" title="Listed only by sitemaps, or linked only from unreached pages or through nofollow links">
              <input
                type="checkbox"
                checked={filter.noClickDepth}
                onChange={(e) => onChange(e.target.checked ? { noClickDepth: true, clickDepth: null } : { noClickDepth: false })}
                data-testid="filter-noclickdepth"
              />
              <span>No click depth (no chain of links reaches them)</span>
            </label>
          </RangeField>
          <RangeField
            label="Inlinks"
            hint="Links from crawled pages, each one counted."
            value={filter.inlinks}
            onApply={(inlinks) => onChange({ inlinks })}
            testId="filter-inlinks"
          />
          <div className="menu-section">On the page (fetched HTML pages)</div>
          <HasMissingRow
            label="Meta description"
            value={filter.metaDescription}
            onChange={(metaDescription) => onChange({ metaDescription })}
            testId="filter-meta"
          />
          <HasMissingRow label="H1" value={filter.h1} onChange={(h1) => onChange({ h1 })} testId="filter-h1" />
          <div className="menu-foot">
            <button type="button" className="link-btn" disabled={n === 0} onClick={() => onChange(clearedPageFilters())}>
              Clear these
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

/** Min and max fields; an empty end stays open. Applied on Enter or Apply; a bad value says why. `children`: more choices under the hint. */
function RangeField({
  label,
  hint,
  value,
  onApply,
  testId,
  children,
}: {
  label: string;
  hint: string;
  value: Range | null;
  onApply(r: Range | null): void;
  testId: string;
  children?: ReactNode;
}) {
  const shownMin = value?.min === undefined ? '' : String(value.min);
  const shownMax = value?.max === undefined ? '' : String(value.max);
  const [min, setMin] = useState(shownMin);
  const [max, setMax] = useState(shownMax);
  const [error, setError] = useState<string | null>(null);
  // A chip removed, or the filter set elsewhere: the fields show what is applied.
  useEffect(() => {
    setMin(shownMin);
    setMax(shownMax);
    setError(null);
  }, [shownMin, shownMax]);
  const apply = () => {
    const parsed = parseRange(min, max);
    if ('error' in parsed) return setError(parsed.error);
    setError(null);
    onApply(parsed.range);
  };
  return (
    <>
      <div className="menu-section">{label}</div>
      <form
        className="range-row"
        onSubmit={(e) => {
          e.preventDefault();
          apply();
        }}
      >
        <input
          type="text"
          inputMode="numeric"
          className={`input${error ? ' invalid' : ''}`}
          placeholder="min"
          value={min}
          onChange={(e) => setMin(e.target.value)}
          aria-label={`${label}: at least`}
          data-testid={`${testId}-min`}
        />
        <span className="muted">to</span>
        <input
          type="text"
          inputMode="numeric"
          className={`input${error ? ' invalid' : ''}`}
          placeholder="max"
          value={max}
          onChange={(e) => setMax(e.target.value)}
          aria-label={`${label}: at most`}
          data-testid={`${testId}-max`}
        />
        <button type="submit" className="btn btn-small" data-testid={`${testId}-apply`}>
          Apply
        </button>
      </form>
      <div className={`status-codes-note ${error ? 'text-error' : 'muted'}`} role={error ? 'alert' : undefined}>
        {error ?? hint}
      </div>
      {children}
    </>
  );
}

function HasMissingRow({ label, value, onChange, testId }: { label: string; value: HasMissing; onChange(v: HasMissing): void; testId: string }) {
  return (
    <div className="hm-row">
      <span className="hm-label">{label}</span>
      <div className="seg" role="radiogroup" aria-label={label}>
        {(
          [
            ['any', 'Any'],
            ['has', 'Has'],
            ['missing', 'Missing'],
          ] as const
        ).map(([v, text]) => (
          <button
            key={v}
            type="button"
            role="radio"
            aria-checked={value === v}
            className={`seg-btn${value === v ? ' selected' : ''}`}
            onClick={() => onChange(v)}
            data-testid={`${testId}-${v}`}
          >
            {text}
          </button>
        ))}
      </div>
    </div>
  );
}
