/** Which toolbar actions make sense for a crawl in a given state. */
import type { CrawlSummary } from '../../../shared/model.js';

export type CrawlAction = 'start' | 'pause' | 'resume' | 'stop' | 'export';

export interface ActionState {
  start: boolean;
  pause: boolean;
  resume: boolean;
  stop: boolean;
  export: boolean;
}

/** Enabled actions; everything is off while another action on the crawl is in progress. */
export function actionsFor(crawl: Pick<CrawlSummary, 'status' | 'counters' | 'damaged'> | undefined, busy: boolean): ActionState {
  const none = { start: false, pause: false, resume: false, stop: false, export: false };
  if (!crawl || busy) return none;
  const s = crawl.status;
  const hasUrls = crawl.counters.discovered > 0;
  if (crawl.damaged) return { ...none, export: hasUrls };
  return {
    start: s === 'created',
    pause: s === 'running',
    resume: s === 'paused',
    stop: s === 'running' || s === 'paused',
    export: hasUrls,
  };
}

/** The one action the pause/resume shortcut does now, if any. */
export function toggleAction(a: ActionState): 'pause' | 'resume' | 'start' | null {
  if (a.pause) return 'pause';
  if (a.resume) return 'resume';
  if (a.start) return 'start';
  return null;
}

/** A word for the crawl's state, for the status pill. */
export function statusLabel(s: CrawlSummary['status']): string {
  switch (s) {
    case 'created':
      return 'Ready';
    case 'running':
      return 'Running';
    case 'paused':
      return 'Paused';
    case 'finished':
      return 'Finished';
    case 'failed':
      return 'Failed';
  }
}
