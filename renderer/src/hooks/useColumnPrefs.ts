/** A table's column choices and widths, remembered for this user in localStorage under `storageKey`. */
import { useCallback, useState } from 'react';
import { defaultPrefs, readPrefs, writePrefs, type ColumnMeta, type ColumnPrefs } from '../logic/columns.js';

function load(storageKey: string, cols: readonly ColumnMeta[]): ColumnPrefs {
  try {
    return readPrefs(localStorage.getItem(storageKey), cols);
  } catch {
    return defaultPrefs(cols); // storage refused (a locked-down profile): the defaults, every time
  }
}

export function useColumnPrefs(storageKey: string, cols: readonly ColumnMeta[]): [ColumnPrefs, (update: (p: ColumnPrefs) => ColumnPrefs) => void] {
  const [prefs, setPrefs] = useState(() => load(storageKey, cols));
  const update = useCallback(
    (fn: (p: ColumnPrefs) => ColumnPrefs) => {
      setPrefs((p) => {
        const next = fn(p);
        try {
          localStorage.setItem(storageKey, writePrefs(next));
        } catch {
          // Not remembered, but still applied in this window.
        }
        return next;
      });
    },
    [storageKey],
  );
  return [prefs, update];
}
