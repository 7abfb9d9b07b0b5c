/** The window's state: the crawl list, what is selected, per-crawl view state, toasts. */
import { create } from 'zustand';
import type {
  AuditFinding,
  CompareRow,
  CompareSummary,
  CrawlSettings,
  CrawlSummary,
  LinkDirection,
  ProgressEvent,
  SitemapNode,
} from '../../../shared/model.js';
import type { Connection } from '../api/connect.js';
import { toApiError, type ApiErrorLike, type EventPayload, type ExportFilter, type ExportResult, type SpinneretApi } from '../api/types.js';
import { compareFilterOf, defaultPair, drillCompare, emptyCompareFilter, type CompareTableFilter } from '../logic/compare.js';
import { applyProgress, removeCrawl, sortCrawls, upsertCrawl } from '../logic/crawls.js';
import { appendPoint, type HistoryPoint } from '../logic/history.js';
import { drillDown, emptyFilter, removeChip, type UrlFilter } from '../logic/url-query.js';
import { emptyTree, mergeNodes, setChildren, setExpanded, type TreeState } from '../logic/tree.js';
import type { CrawlAction } from '../logic/actions.js';

export type Tab = 'overview' | 'urls' | 'sitemaps' | 'issues' | 'errors';
export type Screen = 'crawl' | 'new' | 'compare';

export interface Toast {
  id: number;
  kind: 'info' | 'success' | 'error';
  text: string;
  /** A button beside the text ("Compare with previous"). */
  action?: { label: string; run: () => void };
}

/**
 * A notice that stays until dismissed: a recrawl that finished with findings worse than its base's
 * (the analyst may have been away while a scheduled one ran).
 */
export interface Notice {
  id: number;
  crawlId: string;
  baseId: string;
  text: string;
  /** The worse findings' codes. */
  worse: string[];
  scheduled: boolean;
}

/** The Compare view: which two crawls, their comparison as loaded, the changed-URL table's filter. */
export interface CompareState {
  oldId: string | null;
  newId: string | null;
  summary: CompareSummary | null;
  loading: boolean;
  error?: ApiErrorLike;
  filter: CompareTableFilter;
  /** The row open in the before/after detail. */
  selected: CompareRow | null;
  tab: CompareTab;
}

export type CompareTab = 'summary' | 'sitemaps' | 'urls';

function emptyCompare(): CompareState {
  return { oldId: null, newId: null, summary: null, loading: false, filter: emptyCompareFilter(), selected: null, tab: 'summary' };
}

export interface ConfirmRequest {
  title: string;
  body: string;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => void;
}

/** A crawl's sitemap audit as last loaded. */
export interface FindingsState {
  list: AuditFinding[] | null;
  error?: string;
  loading: boolean;
  /** The crawl's urlVersion when it was loaded: a live crawl reloads when it moved on. */
  version: number;
  at: number;
  /** The audit of a reopened crawl is still being rebuilt: counts so far, polled until complete. */
  computing: boolean;
}

/**
 * Everything the window keeps of one crawl besides its summary: one slice per crawl, so deleting
 * the crawl drops all of it at once.
 */
export interface CrawlSlice {
  /** What is being done to the crawl right now (its buttons are off meanwhile). */
  busy?: CrawlAction | 'delete' | 'rename' | 'recrawl' | 'schedule' | 'save';
  /** Discovered and handled URLs over time, for the Overview's chart. */
  history: HistoryPoint[];
  /** The URL table's filter and sort. */
  filter: UrlFilter;
  /** The URL open in the detail pane. */
  selectedUrl: number | null;
  /** The URLs the detail pane came from through their links (most recent last), for its Back button. */
  detailTrail?: number[];
  tree: TreeState;
  treeError?: string;
  selectedNode: string | null;
  findings?: FindingsState;
  /** Bumped when the crawl's URLs or log changed: the tables refresh what is on screen. */
  urlVersion: number;
  logVersion: number;
}

function emptySlice(): CrawlSlice {
  return {
    history: [],
    filter: emptyFilter(),
    selectedUrl: null,
    tree: emptyTree(),
    selectedNode: null,
    urlVersion: 0,
    logVersion: 0,
  };
}

export interface AppState {
  connection: 'connecting' | 'ready' | 'failed' | 'lost';
  connectionMessage?: string;
  transport?: Connection['transport'];
  crawls: CrawlSummary[];
  crawlsLoaded: boolean;
  selectedId: string | null;
  screen: Screen;
  tab: Tab;
  /** The window's state of each crawl, by crawl id; absent until something is kept of it. */
  byCrawl: Record<string, CrawlSlice>;
  defaults: CrawlSettings | null;
  toasts: Toast[];
  confirm: ConfirmRequest | null;
  exportMenuOpen: boolean;
  compare: CompareState;
  notices: Notice[];
  /** An import (opening a crawl file) is under way. */
  importing: boolean;
}

const initial: AppState = {
  connection: 'connecting',
  crawls: [],
  crawlsLoaded: false,
  selectedId: null,
  screen: 'crawl',
  tab: 'overview',
  byCrawl: {},
  defaults: null,
  toasts: [],
  confirm: null,
  exportMenuOpen: false,
  compare: emptyCompare(),
  notices: [],
  importing: false,
};

export const useApp = create<AppState>()(() => ({ ...initial }));

let api: SpinneretApi | null = null;
let toastSeq = 1;

/** The connected API; throws before connect() finished (a bug, not a user error). */
export function getApi(): SpinneretApi {
  if (!api) throw new Error('Spinneret is not connected yet.');
  return api;
}

const set = useApp.setState;
const get = useApp.getState;

/** Crawls deleted in this window: a late event or answer about one must not bring its slice back. */
const deleted = new Set<string>();

/** A crawl's slice as it is, or a fresh one. */
function sliceOf(s: AppState, id: string): CrawlSlice {
  return s.byCrawl[id] ?? emptySlice();
}

/** Updates one crawl's slice (creating it); a deleted crawl's is left gone. */
function patchCrawl(s: AppState, id: string, fn: (c: CrawlSlice) => Partial<CrawlSlice>): Partial<AppState> {
  if (deleted.has(id)) return {};
  const cur = sliceOf(s, id);
  return { byCrawl: { ...s.byCrawl, [id]: { ...cur, ...fn(cur) } } };
}

/** set() of one crawl's slice. */
function setCrawl(id: string, fn: (c: CrawlSlice) => Partial<CrawlSlice>): void {
  set((s) => patchCrawl(s, id, fn));
}

/** Shows a message at the bottom right for a few seconds (longer with an action to take). */
export function toast(kind: Toast['kind'], text: string, action?: Toast['action']): void {
  const id = toastSeq++;
  set((s) => ({ toasts: [...s.toasts.slice(-3), { id, kind, text, ...(action ? { action } : {}) }] }));
  setTimeout(() => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })), kind === 'error' || action ? 10_000 : 4000);
}

export function dismissToast(id: number): void {
  set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
}

function reportError(what: string, err: unknown): void {
  const e = toApiError(err);
  toast('error', `${what}: ${e.message}`);
}

/** Wires the store to a connection: loads crawls and defaults, subscribes to events. */
export async function attach(conn: Connection): Promise<void> {
  api = conn.api;
  set({ transport: conn.transport });
  conn.onLost((reason) => set({ connection: 'lost', connectionMessage: reason }));
  api.on('progress', onProgress);
  api.on('crawlFinished', (c) => onCrawlEnded(c, 'finished'));
  api.on('crawlFailed', (c) => onCrawlEnded(c, 'failed'));
  api.on('warning', (w) => toast(w.level === 'error' ? 'error' : 'info', w.message));
  api.on('recrawlFinished', onRecrawlFinished);
  try {
    const [crawls, defaults] = await Promise.all([api.listCrawls(), api.getDefaults()]);
    const sorted = sortCrawls(crawls);
    const fromHash = location.hash.match(/crawl=([^&]+)/)?.[1];
    const selected = sorted.find((c) => c.id === fromHash) ?? sorted[0];
    set({
      connection: 'ready',
      crawls: sorted,
      crawlsLoaded: true,
      defaults,
      selectedId: selected?.id ?? null,
      screen: selected ? 'crawl' : 'new',
    });
  } catch (err) {
    set({ connection: 'failed', connectionMessage: toApiError(err).message });
  }
}

export function connectionFailed(message: string): void {
  set({ connection: 'failed', connectionMessage: message });
}

function onProgress(e: ProgressEvent): void {
  // A batch flushed after the crawl was deleted.
  if (deleted.has(e.crawlId)) return;
  set((s) => {
    const known = s.crawls.some((c) => c.id === e.crawlId);
    if (!known) void refreshCrawl(e.crawlId);
    return {
      crawls: applyProgress(s.crawls, e),
      ...patchCrawl(s, e.crawlId, (c) => ({
        history: appendPoint(c.history, e),
        urlVersion: c.urlVersion + 1,
        ...(e.nodes.length ? { tree: mergeNodes(c.tree, e.nodes) } : {}),
        ...(e.log.length ? { logVersion: c.logVersion + 1 } : {}),
      })),
    };
  });
}

function onCrawlEnded(c: CrawlSummary, how: 'finished' | 'failed'): void {
  if (deleted.has(c.id)) return;
  set((s) => ({
    crawls: upsertCrawl(s.crawls, c),
    ...patchCrawl(s, c.id, (x) => ({ urlVersion: x.urlVersion + 1, logVersion: x.logVersion + 1 })),
  }));
  const name = c.name || c.startUrl;
  if (how === 'finished') toast('success', `${name}: ${c.stopped ? 'stopped' : 'finished'} with ${c.counters.discovered.toLocaleString('en-US')} URLs.`);
  else toast('error', `${name}: failed${c.error ? ` — ${c.error.message}` : ''}.`);
}

async function refreshCrawl(id: string): Promise<void> {
  try {
    const c = await getApi().getCrawl({ id });
    if (deleted.has(id)) return;
    set((s) => ({ crawls: upsertCrawl(s.crawls, c) }));
  } catch {
    // A crawl deleted meanwhile: the next list will not have it either.
  }
}

// ---------------------------------------------------------------- navigation

export function selectCrawl(id: string): void {
  set({ selectedId: id, screen: 'crawl', exportMenuOpen: false });
  history.replaceState(null, '', `${location.pathname}${location.search}#crawl=${id}`);
}

export function showNewCrawl(): void {
  set({ screen: 'new', exportMenuOpen: false });
}

export function setTab(tab: Tab): void {
  set({ tab, exportMenuOpen: false });
}

export function setExportMenu(open: boolean): void {
  set({ exportMenuOpen: open });
}

// ---------------------------------------------------------------- crawl actions

async function withBusy(id: string, what: NonNullable<CrawlSlice['busy']>, fn: () => Promise<void>): Promise<void> {
  if (get().byCrawl[id]?.busy) return;
  setCrawl(id, () => ({ busy: what }));
  try {
    await fn();
  } finally {
    setCrawl(id, () => ({ busy: undefined }));
  }
}

/** Creates a crawl (and starts it when asked); selects it on the Overview. */
export async function createCrawl(
  input: { name?: string; settings: Partial<CrawlSettings> & { startUrl: string }; list?: string },
  start: boolean,
  /** Shows an error next to a field instead of a toast (BAD_LIST next to the list); true when it did. */
  fieldError?: (e: ApiErrorLike) => boolean,
): Promise<CrawlSummary | null> {
  try {
    let c = await getApi().createCrawl(input);
    set((s) => ({ crawls: upsertCrawl(s.crawls, c) }));
    selectCrawl(c.id);
    setTab('overview');
    if (start) {
      c = await getApi().startCrawl({ id: c.id });
      set((s) => ({ crawls: upsertCrawl(s.crawls, c) }));
    }
    return c;
  } catch (err) {
    if (!fieldError?.(toApiError(err))) reportError('Could not create the crawl', err);
    return null;
  }
}

const verbs: Record<'start' | 'pause' | 'resume' | 'stop', string> = {
  start: 'start',
  pause: 'pause',
  resume: 'resume',
  stop: 'stop',
};

/** Start, pause, resume or stop a crawl; the answer replaces its summary. */
export async function runAction(id: string, action: 'start' | 'pause' | 'resume' | 'stop'): Promise<void> {
  await withBusy(id, action, async () => {
    try {
      const a = getApi();
      const c =
        action === 'start'
          ? await a.startCrawl({ id })
          : action === 'pause'
            ? await a.pauseCrawl({ id })
            : action === 'resume'
              ? await a.resumeCrawl({ id })
              : await a.stopCrawl({ id });
      set((s) => ({
        crawls: upsertCrawl(s.crawls, c),
        ...patchCrawl(s, id, (x) => ({ urlVersion: x.urlVersion + 1 })),
      }));
    } catch (err) {
      reportError(`Could not ${verbs[action]} the crawl`, err);
      void refreshCrawl(id);
    }
  });
}

export async function renameCrawl(id: string, name: string): Promise<void> {
  await withBusy(id, 'rename', async () => {
    try {
      const c = await getApi().renameCrawl({ id, name: name.trim() });
      set((s) => ({ crawls: upsertCrawl(s.crawls, c) }));
    } catch (err) {
      reportError('Could not rename the crawl', err);
    }
  });
}

/** Asks, then deletes the crawl and its data. */
export function askDeleteCrawl(c: CrawlSummary, label: string): void {
  set({
    confirm: {
      title: `Delete "${label}"?`,
      body: `This removes the crawl and its ${c.counters.discovered.toLocaleString('en-US')} URLs from this computer. It cannot be undone. Export a CSV first if you need the data.`,
      confirmLabel: 'Delete crawl',
      danger: true,
      onConfirm: () => void deleteCrawl(c.id),
    },
  });
}

export function closeConfirm(): void {
  set({ confirm: null });
}

async function deleteCrawl(id: string): Promise<void> {
  await withBusy(id, 'delete', async () => {
    try {
      await getApi().deleteCrawl({ id });
      deleted.add(id);
      clearTimeout(findingsReload.get(id));
      findingsReload.delete(id);
      findingsAgain.delete(id);
      set((s) => {
        const crawls = removeCrawl(s.crawls, id);
        const selectedId = s.selectedId === id ? (crawls[0]?.id ?? null) : s.selectedId;
        const byCrawl = { ...s.byCrawl };
        delete byCrawl[id];
        const inCompare = s.compare.oldId === id || s.compare.newId === id;
        const compare = inCompare
          ? {
              ...s.compare,
              oldId: s.compare.oldId === id ? null : s.compare.oldId,
              newId: s.compare.newId === id ? null : s.compare.newId,
              summary: null,
              selected: null,
            }
          : s.compare;
        return { crawls, byCrawl, selectedId, compare, screen: selectedId ? s.screen : 'new' };
      });
    } catch (err) {
      reportError('Could not delete the crawl', err);
    }
  });
}

/** Exports the CSV: of the given filter, or of every URL. */
export async function exportCsv(id: string, filter: ExportFilter | undefined): Promise<void> {
  set({ exportMenuOpen: false });
  await runExport(id, () => getApi().exportCsv(filter ? { id, filter } : { id }));
}

/**
 * Exports links as CSV: one URL's inlinks ('in') or outlinks ('out'), every link to a link finding's
 * URLs, or every link of the crawl with neither.
 */
export async function exportLinks(id: string, of?: { urlId: number; direction: LinkDirection } | { finding: string }): Promise<void> {
  set({ exportMenuOpen: false });
  await runExport(id, () => getApi().exportLinks(of ? { id, ...of } : { id }));
}

/** Runs an export: a browser downloads the file the service wrote; Electron saved it already. */
async function runExport(
  id: string,
  call: () => Promise<ExportResult>,
  done: (r: ExportResult) => string = (r) => {
    const rows = r.rows.toLocaleString('en-US');
    return r.path ? `Exported ${rows} rows to ${r.path}` : `Exported ${rows} rows.`;
  },
  what: NonNullable<CrawlSlice['busy']> = 'export',
): Promise<void> {
  await withBusy(id, what, async () => {
    try {
      const r = await call();
      if (r.canceled) return;
      if (r.downloadUrl) download(r.downloadUrl);
      toast('success', done(r));
    } catch (err) {
      reportError(what === 'save' ? 'Could not save the crawl file' : 'Export failed', err);
    }
  });
}

/** Has the browser download a file the service offers (browser mode). */
function download(url: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = '';
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
}

export async function saveDefaults(patch: Partial<CrawlSettings>): Promise<boolean> {
  try {
    const defaults = await getApi().setDefaults({ patch });
    set({ defaults });
    toast('success', 'Saved as the default settings for new crawls.');
    return true;
  } catch (err) {
    reportError('Could not save the defaults', err);
    return false;
  }
}

// ---------------------------------------------------------------- URL table state

export function setFilter(id: string, update: (f: UrlFilter) => UrlFilter): void {
  setCrawl(id, (c) => ({ filter: update(c.filter) }));
}

/** Clears every filter of the URL table (the sort stays), and with the sitemap filter the tree's selection. */
export function clearFilters(id: string): void {
  setCrawl(id, (c) => ({ filter: { ...emptyFilter(), sort: c.filter.sort }, selectedNode: null }));
}

export function selectUrl(id: string, urlId: number | null): void {
  setCrawl(id, () => ({ selectedUrl: urlId, detailTrail: [] }));
}

/** Most URLs the detail pane's Back button remembers. */
const TRAIL_MAX = 50;

/** Opens a URL reached through a link of the one in the detail pane: Back returns to it. */
export function openLinkedUrl(id: string, urlId: number): void {
  setCrawl(id, (c) => ({
    selectedUrl: urlId,
    detailTrail: c.selectedUrl === null || c.selectedUrl === urlId ? (c.detailTrail ?? []) : [...(c.detailTrail ?? []), c.selectedUrl].slice(-TRAIL_MAX),
  }));
}

/** The detail pane's Back: the URL whose link opened this one. */
export function backUrl(id: string): void {
  setCrawl(id, (c) => {
    const trail = c.detailTrail ?? [];
    if (trail.length === 0) return {};
    return { selectedUrl: trail[trail.length - 1]!, detailTrail: trail.slice(0, -1) };
  });
}

// ---------------------------------------------------------------- sitemap audit

/** While a crawl runs its findings are reloaded at most this often. */
const FINDINGS_REFRESH_MS = 1500;
/** While a reopened crawl's audit is rebuilt (no progress events for an idle crawl), findings are polled this often. */
const FINDINGS_POLL_MS = 700;
const findingsReload = new Map<string, ReturnType<typeof setTimeout>>();
/**
 * Crawls asked for while their findings were loading (true: a forced ask): loaded again once that
 * load ends, so the last change of a crawl (its finish) is never dropped for a load already on its way.
 */
const findingsAgain = new Map<string, boolean>();

/**
 * Loads a crawl's findings unless they are current (a live crawl: at most every FINDINGS_REFRESH_MS).
 * `force`: now, current or not (the crawl's status changed, or a retry).
 */
export async function loadFindings(id: string, force = false): Promise<void> {
  if (deleted.has(id)) return;
  const c = sliceOf(get(), id);
  const cur = c.findings;
  const version = c.urlVersion;
  if (cur?.loading) {
    findingsAgain.set(id, force || (findingsAgain.get(id) ?? false));
    return;
  }
  if (!force && cur?.list && cur.version === version) return;
  if (!force && cur?.list && Date.now() - cur.at < FINDINGS_REFRESH_MS) {
    // Too soon: once, a little later, so the last change of a crawl is never missed.
    if (!findingsReload.has(id)) {
      findingsReload.set(
        id,
        setTimeout(
          () => {
            findingsReload.delete(id);
            void loadFindings(id);
          },
          FINDINGS_REFRESH_MS - (Date.now() - cur.at),
        ),
      );
    }
    return;
  }
  const empty: FindingsState = { list: null, loading: false, version, at: 0, computing: false };
  const patch = (p: Partial<FindingsState>) => setCrawl(id, (x) => ({ findings: { ...(x.findings ?? empty), ...p } }));
  patch({ loading: true });
  try {
    const list = await getApi().getFindings({ id });
    const computing = list.some((f) => f.computing);
    patch({ list, loading: false, error: undefined, version, at: Date.now(), computing });
    if (computing) {
      if (!findingsReload.has(id)) {
        findingsReload.set(
          id,
          setTimeout(() => {
            findingsReload.delete(id);
            void loadFindings(id, true);
          }, FINDINGS_POLL_MS),
        );
      }
    } else if (cur?.computing) {
      // The rebuild just completed: the tree's badges were read from a partial audit.
      for (const parent of Object.keys(get().byCrawl[id]?.tree.children ?? {})) void loadChildren(id, parent === '' ? null : parent, true);
    }
  } catch (err) {
    patch({ loading: false, error: toApiError(err).message, at: Date.now() });
  }
  const again = findingsAgain.get(id);
  if (again !== undefined) {
    findingsAgain.delete(id);
    void loadFindings(id, again);
  }
}

/**
 * Shows the URLs a finding affects: the URL table filtered to it (a removable chip), every other
 * filter cleared, so the table shows the finding's count — or, from a tree node, the URLs that node
 * lists with that finding.
 */
export function showFinding(id: string, finding: Pick<AuditFinding, 'code' | 'title'>, node?: Pick<SitemapNode, 'id' | 'url'>): void {
  setCrawl(id, () => ({ selectedNode: node?.id ?? null }));
  setFilter(id, (f) => drillDown(f, { finding, sitemap: node }, false));
  selectUrl(id, null);
  setTab('urls');
}

// ---------------------------------------------------------------- sitemap tree

/** Loads a node's children (null: the roots) unless they are loaded. */
export async function loadChildren(id: string, parentId: string | null, force = false): Promise<void> {
  const tree = sliceOf(get(), id).tree;
  if (!force && tree.children[parentId ?? '']) return;
  try {
    const nodes: SitemapNode[] = await getApi().getSitemapChildren({ id, parentId });
    setCrawl(id, (c) => ({ tree: setChildren(c.tree, parentId, nodes), treeError: undefined }));
  } catch (err) {
    setCrawl(id, () => ({ treeError: toApiError(err).message }));
  }
}

export function toggleNode(id: string, nodeId: string, open: boolean): void {
  setCrawl(id, (c) => ({ tree: setExpanded(c.tree, nodeId, open) }));
  if (open) void loadChildren(id, nodeId);
}

/**
 * Selects a tree node and narrows the URL table to the URLs it listed, in place of an earlier node's
 * or finding's filter (the table's own filters stay); null clears the node's filter.
 */
export function selectNode(id: string, node: SitemapNode | null): void {
  setCrawl(id, () => ({ selectedNode: node?.id ?? null }));
  setFilter(id, (f) => (node ? drillDown(f, { sitemap: node }, true) : removeChip(f, 'sitemap')));
  selectUrl(id, null);
}

// ---------------------------------------------------------------- recrawl, schedule, crawl files (issue 23)

/** Crawl again: a new crawl of the same settings that reuses what this one learned; selects it. */
export async function recrawl(id: string, changedOnly: boolean): Promise<CrawlSummary | null> {
  let made: CrawlSummary | null = null;
  askNotificationPermission();
  await withBusy(id, 'recrawl', async () => {
    try {
      const c = await getApi().recrawl(changedOnly ? { id, changedOnly } : { id });
      made = c;
      set((s) => ({ crawls: upsertCrawl(s.crawls, c) }));
      selectCrawl(c.id);
      setTab('overview');
      toast('info', `Crawling again${changedOnly ? ', changed URLs only' : ''}: the comparison with the previous crawl is ready when it finishes.`);
    } catch (err) {
      reportError('Could not crawl again', err);
    }
  });
  return made;
}

/** Recrawls the crawl every day or week while the app runs (null: no more). */
export async function setSchedule(id: string, every: 'daily' | 'weekly' | null, changedOnly: boolean): Promise<void> {
  if (every) askNotificationPermission();
  await withBusy(id, 'schedule', async () => {
    try {
      const c = await getApi().setSchedule({ id, every, changedOnly });
      set((s) => ({ crawls: upsertCrawl(s.crawls, c) }));
      toast(
        'success',
        every ? `Recrawls ${every}${changedOnly ? ', changed URLs only' : ''}, while Spinneret runs.` : 'No more scheduled recrawls of this crawl.',
      );
    } catch (err) {
      reportError('Could not change the schedule', err);
    }
  });
}

/** Saves everything the crawl holds as one file (Electron: a save dialog; browser mode: a download). */
export async function saveCrawlFile(id: string): Promise<void> {
  await runExport(
    id,
    () => getApi().exportCrawlFile({ id }),
    (r) => (r.path ? `Saved the crawl file to ${r.path}` : 'Saved the crawl file: see your downloads.'),
    'save',
  );
}

/** A crawl opened from a file: in the list, selected. */
function opened(c: CrawlSummary): void {
  set((s) => ({ crawls: upsertCrawl(s.crawls, c) }));
  selectCrawl(c.id);
  setTab('overview');
  toast('success', `Opened ${c.imported?.file ?? 'the crawl file'}: ${c.counters.discovered.toLocaleString('en-US')} URLs.`);
}

/** What an upload answers: the contract's envelope. */
function readEnvelope(body: unknown): CrawlSummary {
  const b = body as { ok?: unknown; value?: unknown; error?: { code?: unknown; message?: unknown } } | null;
  if (b && b.ok === true && b.value && typeof b.value === 'object') return b.value as CrawlSummary;
  if (b && b.ok === false && b.error) {
    throw Object.assign(new Error(typeof b.error.message === 'string' ? b.error.message : 'The file was refused.'), {
      code: typeof b.error.code === 'string' ? b.error.code : 'UNKNOWN',
    });
  }
  throw Object.assign(new Error('The answer to the upload was not understood.'), { code: 'BAD_MESSAGE' });
}

/**
 * Opens a crawl file. Electron shows its open dialog and answers the crawl; browser mode needs the
 * file picked in the page first (`file`), whose bytes go to the one-time upload URL the service hands out.
 */
export async function openCrawlFile(file?: File): Promise<CrawlSummary | null> {
  if (get().importing) return null;
  set({ importing: true });
  try {
    const r = await getApi().importCrawl();
    if (r.canceled) return null;
    if (r.crawl) {
      opened(r.crawl);
      return r.crawl;
    }
    if (!r.uploadUrl) throw Object.assign(new Error('No crawl and no upload address came back.'), { code: 'BAD_MESSAGE' });
    if (!file) throw Object.assign(new Error('Pick a crawl file first.'), { code: 'NO_FILE' });
    // The file's name goes along: the opened crawl says where it came from.
    const target = new URL(r.uploadUrl, location.href);
    target.searchParams.set('name', file.name);
    const res = await fetch(target.toString(), { method: 'POST', body: file, headers: { 'Content-Type': 'application/octet-stream' } });
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      throw Object.assign(new Error(`The upload failed (HTTP ${res.status}).`), { code: 'BAD_MESSAGE' });
    }
    const c = readEnvelope(body);
    opened(c);
    return c;
  } catch (err) {
    const e = toApiError(err);
    toast('error', `Could not open ${file ? `"${file.name}"` : 'the crawl file'}: ${e.message}${e.code === 'BAD_CRAWL_FILE' ? ' Nothing was imported.' : ''}`);
    return null;
  } finally {
    set({ importing: false });
  }
}

// ---------------------------------------------------------------- the Compare view

/** Opens the Compare view on two crawls (old first), or on the crawl's default pair. */
export function openCompare(pair: { oldId: string | null; newId: string | null }): void {
  set({ screen: 'compare', exportMenuOpen: false, compare: { ...emptyCompare(), oldId: pair.oldId, newId: pair.newId } });
  void loadCompare();
}

/** The Compare view of a crawl: with its base, or the previous crawl of its site; pickers only when none. */
export function compareCrawl(id: string): void {
  const pair = defaultPair(get().crawls, id);
  openCompare(pair ?? { oldId: null, newId: id });
}

/** Swaps the two sides. */
export function swapCompare(): void {
  const { oldId, newId } = get().compare;
  openCompare({ oldId: newId, newId: oldId });
}

/** Loads the comparison of the chosen pair. */
export async function loadCompare(): Promise<void> {
  const { oldId, newId } = get().compare;
  if (!oldId || !newId || oldId === newId) {
    set((s) => ({ compare: { ...s.compare, summary: null, loading: false, error: undefined } }));
    return;
  }
  set((s) => ({ compare: { ...s.compare, loading: true, error: undefined } }));
  try {
    const summary = await getApi().compareCrawls({ oldId, newId });
    // Another pair chosen meanwhile: this answer is not its.
    if (get().compare.oldId !== oldId || get().compare.newId !== newId) return;
    set((s) => ({ compare: { ...s.compare, summary, loading: false } }));
  } catch (err) {
    if (get().compare.oldId !== oldId || get().compare.newId !== newId) return;
    set((s) => ({ compare: { ...s.compare, summary: null, loading: false, error: toApiError(err) } }));
  }
}

export function setCompareFilter(update: (f: CompareTableFilter) => CompareTableFilter): void {
  set((s) => ({ compare: { ...s.compare, filter: update(s.compare.filter), selected: null } }));
}

export function setCompareTab(tab: CompareTab): void {
  set((s) => ({ compare: { ...s.compare, tab } }));
}

/** A summary figure clicked: the changed-URL table narrowed to it. */
export function drillCompareTo(to: Parameters<typeof drillCompare>[1]): void {
  set((s) => ({ compare: { ...s.compare, filter: drillCompare(s.compare.filter, to), selected: null, tab: 'urls' } }));
}

export function selectCompareRow(row: CompareRow | null): void {
  set((s) => ({ compare: { ...s.compare, selected: row } }));
}

/** The changed URLs as CSV (the table's filter), one row per URL with before/after columns. */
export async function exportCompare(): Promise<void> {
  const { oldId, newId, filter } = get().compare;
  if (!oldId || !newId) return;
  const f = compareFilterOf(filter);
  await runExport(newId, () => getApi().exportCompare(Object.keys(f).length ? { oldId, newId, filter: f } : { oldId, newId }));
}

// ---------------------------------------------------------------- a recrawl finished

/** In browser mode, asks once (on a click: browsers want a gesture) whether Spinneret may notify. */
function askNotificationPermission(): void {
  if (get().transport !== 'browser' || typeof Notification === 'undefined') return;
  if (Notification.permission === 'default') void Notification.requestPermission().catch(() => {});
}

let noticeSeq = 1;

function onRecrawlFinished(e: EventPayload<'recrawlFinished'>): void {
  if (deleted.has(e.crawl.id)) return;
  set((s) => ({
    crawls: upsertCrawl(s.crawls, e.crawl),
    ...patchCrawl(s, e.crawl.id, (x) => ({ urlVersion: x.urlVersion + 1 })),
  }));
  const name = e.crawl.name || e.crawl.startUrl;
  const compare = { label: 'Compare with previous', run: () => openCompare({ oldId: e.baseId, newId: e.crawl.id }) };
  // The view already open on this pair shows the fresh comparison.
  const cur = get().compare;
  if (get().screen === 'compare' && cur.newId === e.crawl.id && cur.oldId === e.baseId) void loadCompare();
  if (e.worse.length === 0) {
    toast('success', `${name}: ${e.scheduled ? 'the scheduled recrawl' : 'the recrawl'} finished; no finding got worse.`, compare);
    return;
  }
  const text = `${name}: ${e.scheduled ? 'the scheduled recrawl' : 'the recrawl'} finished with ${e.worse.length} ${e.worse.length === 1 ? 'finding' : 'findings'} worse than last time.`;
  set((s) => ({ notices: [...s.notices.slice(-4), { id: noticeSeq++, crawlId: e.crawl.id, baseId: e.baseId, text, worse: e.worse, scheduled: e.scheduled }] }));
  // Electron main shows a desktop notification itself; a browser tab may be in the background.
  if (get().transport === 'browser' && typeof Notification !== 'undefined' && Notification.permission === 'granted') {
    try {
      const n = new Notification('Spinneret: findings got worse', { body: `${text} ${e.worse.join(', ')}`, tag: `recrawl-${e.crawl.id}` });
      n.onclick = () => {
        window.focus();
        compare.run();
      };
    } catch {
      // Some browsers refuse page notifications outright: the notice in the window is enough.
    }
  }
}

export function dismissNotice(id: number): void {
  set((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
}
