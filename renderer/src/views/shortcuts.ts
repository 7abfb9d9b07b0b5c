/** Keyboard shortcuts: the modifier shown, and the one key handler of the window. */
import { actionsFor, toggleAction } from '../logic/actions.js';
import { emptyFilter, filterToQuery, isFiltered } from '../logic/url-query.js';
import { exportCsv, runAction, showNewCrawl, useApp } from '../store/app-store.js';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** "Ctrl", or "⌘" on a Mac. */
export const modKey = isMac ? '⌘' : 'Ctrl';

/** Runs the shortcut for a key press; returns true when it was one. */
export function handleShortcut(e: KeyboardEvent): boolean {
  const mod = isMac ? e.metaKey : e.ctrlKey;
  const key = e.key.toLowerCase();
  if (e.altKey && !mod && key === 'n') {
    showNewCrawl();
    return true;
  }
  if (!mod || e.altKey || e.shiftKey) return false;
  const s = useApp.getState();
  const crawl = s.screen === 'crawl' ? s.crawls.find((c) => c.id === s.selectedId) : undefined;
  if (!crawl) return false;
  const a = actionsFor(crawl, !!s.byCrawl[crawl.id]?.busy);
  if (key === 'p') {
    const what = toggleAction(a);
    if (what) void runAction(crawl.id, what);
    return true; // swallow the browser's print dialog either way
  }
  if (key === 'e') {
    if (a.export) {
      const f = s.byCrawl[crawl.id]?.filter ?? emptyFilter();
      void exportCsv(crawl.id, isFiltered(f) ? filterToQuery(f) : undefined);
    }
    return true;
  }
  return false;
}
