/**
 * The window's store (renderer/src/store/app-store.ts) driven through its own actions against an
 * in-memory API: what a crawl leaves in the store is gone once the crawl is deleted.
 */
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SpinneretApi } from '../../shared/contract.js';
import { emptyCounters, type AuditFinding, type CrawlSummary, type ProgressEvent, type SitemapNode } from '../../shared/model.js';

// The store reads the address (the selected crawl) and rewrites its hash; Node has neither.
Object.assign(globalThis, {
  location: { hash: '', pathname: '/', search: '?token=t' },
  history: { replaceState() {} },
});
// Toasts and the audit's polling wait on timers: the test moves time itself.
mock.timers.enable({ apis: ['setTimeout'] });

/**
 * The part of the store the test drives. The store is DOM code: imported by a computed name, it stays
 * out of the Node-side typecheck (tsconfig.json has no DOM library); `npm run typecheck:renderer`
 * checks it. The test reads the state as plain data, whatever its shape.
 */
interface Store {
  useApp: { getState(): { crawls: CrawlSummary[]; selectedId: string | null; confirm: { onConfirm(): void } | null } };
  attach(conn: { api: SpinneretApi; transport: 'browser'; onLost(cb: (reason: string) => void): void }): Promise<void>;
  askDeleteCrawl(c: CrawlSummary, label: string): void;
  loadChildren(id: string, parentId: string | null): Promise<void>;
  toggleNode(id: string, nodeId: string, open: boolean): void;
  selectNode(id: string, node: SitemapNode | null): void;
  setFilter(id: string, update: (f: { search: string }) => { search: string }): void;
  selectUrl(id: string, urlId: number | null): void;
  openLinkedUrl(id: string, urlId: number): void;
  backUrl(id: string): void;
  loadFindings(id: string, force?: boolean): Promise<void>;
}
const STORE = '../../renderer/src/store/app-store.js';
const store = (await import(STORE)) as Store;
const { useApp } = store;

const GONE = 'c-gone';
const KEPT = 'c-kept';

function crawl(id: string): CrawlSummary {
  return {
    id,
    name: '',
    startUrl: `https://${id}.example/`,
    settings: { startUrl: `https://${id}.example/`, sitemapUrls: [], fetchPages: true } as unknown as CrawlSummary['settings'],
    status: 'running',
    counters: emptyCounters(),
    createdAt: id === GONE ? 2 : 1,
    updatedAt: 1,
    rate: 0,
  };
}

function node(crawlId: string, name: string, parentId: string | null = null): SitemapNode {
  const url = `https://${crawlId}.example/${name}.xml`;
  return { id: url, url, parentId, type: 'urlset', state: 'done', bytes: 1, uncompressedBytes: 1, gzip: false, urlCount: 3, childCount: 0, problems: [] };
}

const finding = (computing: boolean): AuditFinding => ({
  code: 'SITEMAP_URL_4XX',
  severity: 'critical',
  title: 'Sitemap URLs answering 4xx',
  explanation: 'Remove them.',
  subject: 'url',
  count: 1,
  measured: true,
  ...(computing ? { computing: true } : {}),
});

/** The part of the contract the store calls, answering from memory; `emit` plays main's events. */
function fakeApi() {
  const listeners = new Map<string, ((p: unknown) => void)[]>();
  const calls: string[] = [];
  const api = {
    on(name: string, cb: (p: unknown) => void) {
      listeners.set(name, [...(listeners.get(name) ?? []), cb]);
      return () => {};
    },
    listCrawls: async () => [crawl(GONE), crawl(KEPT)],
    getDefaults: async () => ({}),
    getCrawl: async ({ id }: { id: string }) => crawl(id),
    deleteCrawl: async ({ id }: { id: string }) => {
      calls.push(`deleteCrawl ${id}`);
      return null;
    },
    // A reopened crawl's audit still being rebuilt: the store polls it until complete.
    getFindings: async ({ id }: { id: string }) => {
      calls.push(`getFindings ${id}`);
      return [finding(true)];
    },
    getSitemapChildren: async ({ id, parentId }: { id: string; parentId: string | null }) =>
      parentId === null ? [node(id, 'root')] : [node(id, 'child', parentId)],
  } as unknown as SpinneretApi;
  const emit = (name: string, payload: unknown) => {
    for (const cb of listeners.get(name) ?? []) cb(payload);
  };
  return { api, emit, calls };
}

const progress = (crawlId: string, at: number): ProgressEvent => ({
  crawlId,
  status: 'running',
  counters: { ...emptyCounters(), discovered: at },
  rate: 1,
  nodes: [node(crawlId, `live-${at}`)],
  log: [{ at, level: 'error', code: 'HTTP_5XX', message: `${crawlId} failed at ${at}`, url: `https://${crawlId}.example/p${at}` }],
  at,
});

/** Every place in `value` that names the crawl: a key equal to its id, or a string containing it. */
function traces(value: unknown, id: string, path = 'state'): string[] {
  if (typeof value === 'string') return value.includes(id) ? [path] : [];
  if (!value || typeof value !== 'object') return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (k === id) out.push(`${path}.${k}`);
    out.push(...traces(v, id, `${path}.${k}`));
  }
  return out;
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

/** Gives a crawl everything the window keeps of it: live log, history, tree, filter, selection, findings. */
async function fill(id: string): Promise<void> {
  await store.loadChildren(id, null);
  store.toggleNode(id, `https://${id}.example/root.xml`, true);
  await settle();
  store.selectNode(id, node(id, 'root'));
  store.setFilter(id, (f) => ({ ...f, search: `${id} search` }));
  store.selectUrl(id, 7);
  await store.loadFindings(id);
}

test('deleting a crawl removes everything the window kept of it, and nothing of the others', async () => {
  const { api, emit, calls } = fakeApi();
  await store.attach({ api, transport: 'browser', onLost: () => {} });
  for (let at = 1; at <= 3; at++) {
    emit('progress', progress(GONE, at));
    emit('progress', progress(KEPT, at));
  }
  await fill(GONE);
  await fill(KEPT);
  const before = useApp.getState();
  assert.ok(traces(before, GONE).length > 10, `the crawl left its state: ${traces(before, GONE).join(', ')}`);
  // The other crawl's state, apart from its place in the list and the selection (which move).
  const keptState = () => traces(useApp.getState(), KEPT).filter((p) => !p.startsWith('state.crawls.') && p !== 'state.selectedId');
  const kept = keptState();
  assert.ok(kept.length > 10);

  store.askDeleteCrawl(
    before.crawls.find((c) => c.id === GONE)!,
    'gone',
  );
  useApp.getState().confirm!.onConfirm();
  await settle();
  assert.ok(calls.includes(`deleteCrawl ${GONE}`));
  assert.deepEqual(traces(useApp.getState(), GONE), [], 'nothing of the deleted crawl remains');

  // Its audit was being polled, and main may still flush a batched event: neither brings it back.
  const polls = calls.filter((c) => c === `getFindings ${GONE}`).length;
  emit('progress', progress(GONE, 4));
  mock.timers.tick(10_000);
  await settle();
  assert.equal(calls.filter((c) => c === `getFindings ${GONE}`).length, polls, 'its audit is no longer polled');
  assert.deepEqual(traces(useApp.getState(), GONE), [], 'a late event does not bring it back');

  // The other crawl lost nothing (its audit poll ran on meanwhile, which changes no key or id).
  assert.deepEqual(keptState(), kept);
  assert.deepEqual(
    useApp.getState().crawls.map((c) => c.id),
    [KEPT],
  );
  assert.equal(useApp.getState().selectedId, KEPT, 'the selection moved to the remaining crawl');
});

test("the detail pane's Back walks back along the links followed; a table selection starts afresh", () => {
  const id = 'c-trail';
  const state = () => (useApp.getState() as unknown as { byCrawl: Record<string, { selectedUrl: number | null; detailTrail?: number[] }> }).byCrawl[id]!;
  store.selectUrl(id, 179);
  store.openLinkedUrl(id, 0); // an inlink of #179
  store.openLinkedUrl(id, 12); // an outlink of #0
  store.openLinkedUrl(id, 12); // the same URL again: no new step
  assert.equal(state().selectedUrl, 12);
  assert.deepEqual(state().detailTrail, [179, 0]);
  store.backUrl(id);
  assert.equal(state().selectedUrl, 0);
  store.backUrl(id);
  assert.equal(state().selectedUrl, 179);
  store.backUrl(id);
  assert.equal(state().selectedUrl, 179, 'nothing further back');
  store.openLinkedUrl(id, 5);
  store.selectUrl(id, 30);
  assert.deepEqual(state().detailTrail, [], 'picking a row of the table forgets the trail');
});

test('a change asked for while the findings load is read once that load ends: the finish is never dropped', async () => {
  const id = 'c-finish';
  const answers: ((list: AuditFinding[]) => void)[] = [];
  const { api } = fakeApi();
  // Each getFindings waits for the test to answer it.
  Object.assign(api, { getFindings: () => new Promise<AuditFinding[]>((resolve) => answers.push(resolve)) });
  await store.attach({ api, transport: 'browser', onLost: () => {} });
  const findings = () =>
    (useApp.getState() as unknown as { byCrawl: Record<string, { findings?: { list: AuditFinding[] | null } }> }).byCrawl[id]?.findings?.list;
  const first = store.loadFindings(id);
  assert.equal(answers.length, 1);
  // The crawl finishes while the first load is on its way: asked again, at once (forced).
  void store.loadFindings(id, true);
  assert.equal(answers.length, 1, 'one load at a time');
  answers[0]!([{ ...finding(false), count: 24 }]);
  await first;
  await settle();
  assert.equal(answers.length, 2, 'the forced ask is made once the first load ended');
  answers[1]!([{ ...finding(false), count: 25 }]);
  await settle();
  assert.equal(findings()?.[0]?.count, 25, 'the findings as of the finish');
});
