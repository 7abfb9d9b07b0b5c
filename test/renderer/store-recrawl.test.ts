/**
 * The window's store for issue 23 (renderer/src/store/app-store.ts) against an in-memory API: a
 * recrawl that finished offers its comparison, one with worse findings leaves a notice that stays;
 * the Compare view loads the pair it was opened on and forgets a deleted side; a list the service
 * refuses (BAD_LIST) is answered next to the field, not in a toast.
 */
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SpinneretApi } from '../../shared/contract.js';
import { emptyCounters, type CompareSummary, type CrawlSummary } from '../../shared/model.js';

Object.assign(globalThis, {
  location: { hash: '', pathname: '/', search: '?token=t', href: 'http://127.0.0.1/?token=t' },
  history: { replaceState() {} },
});
mock.timers.enable({ apis: ['setTimeout'] });

interface State {
  screen: string;
  crawls: CrawlSummary[];
  toasts: { kind: string; text: string; action?: { label: string; run(): void } }[];
  notices: { crawlId: string; baseId: string; worse: string[] }[];
  compare: { oldId: string | null; newId: string | null; summary: CompareSummary | null; error?: { code: string } };
  confirm: { onConfirm(): void } | null;
}
interface Store {
  useApp: { getState(): State };
  attach(conn: { api: SpinneretApi; transport: 'browser'; onLost(cb: (reason: string) => void): void }): Promise<void>;
  createCrawl(
    input: { settings: { startUrl: string }; list?: string },
    start: boolean,
    fieldError?: (e: { code: string; message: string }) => boolean,
  ): Promise<unknown>;
  openCompare(pair: { oldId: string | null; newId: string | null }): void;
  askDeleteCrawl(c: CrawlSummary, label: string): void;
}
// Imported by a computed name: DOM code stays out of the Node-side typecheck (see store.test.ts).
const STORE = '../../renderer/src/store/app-store.js';
const store = (await import(STORE)) as Store;
const state = () => store.useApp.getState();

function crawl(id: string, createdAt: number, extra: Partial<CrawlSummary> = {}): CrawlSummary {
  return {
    id,
    name: id,
    startUrl: 'https://shop.example/',
    settings: { startUrl: 'https://shop.example/', sitemapUrls: [], mode: 'spider' } as unknown as CrawlSummary['settings'],
    status: 'finished',
    counters: emptyCounters(),
    createdAt,
    updatedAt: createdAt,
    rate: 0,
    ...extra,
  };
}

const summary = (oldId: string, newId: string): CompareSummary => ({
  oldId,
  newId,
  oldName: oldId,
  newName: newId,
  computedAt: 1,
  urls: { before: 3, after: 4, added: 1, removed: 0, changed: 1, unchanged: 2 },
  bySource: [],
  fields: [{ field: 'title', changed: 1 }],
  sitemapCounts: { added: 0, removed: 0, changed: 0, unchanged: 1 },
  sitemaps: [],
  findings: [],
  worse: [],
});

const listeners = new Map<string, ((p: unknown) => void)[]>();
const calls: string[] = [];
const api = {
  on(name: string, cb: (p: unknown) => void) {
    listeners.set(name, [...(listeners.get(name) ?? []), cb]);
    return () => {};
  },
  listCrawls: async () => [crawl('base', 1), crawl('re', 2, { baseId: 'base' })],
  getDefaults: async () => ({}),
  compareCrawls: async ({ oldId, newId }: { oldId: string; newId: string }) => {
    calls.push(`compare ${oldId} ${newId}`);
    return summary(oldId, newId);
  },
  createCrawl: async () => {
    throw Object.assign(new Error('Line 3 is not an http(s) URL: "/faq/".'), { code: 'BAD_LIST' });
  },
  deleteCrawl: async () => null,
} as unknown as SpinneretApi;
const emit = (name: string, payload: unknown) => {
  for (const cb of listeners.get(name) ?? []) cb(payload);
};
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

await store.attach({ api, transport: 'browser', onLost: () => {} });

test('a recrawl that finished with nothing worse offers its comparison in a toast; the action opens it', async () => {
  emit('recrawlFinished', { crawl: crawl('re', 2, { baseId: 'base', finishedAt: 5 }), baseId: 'base', scheduled: false, worse: [] });
  const t = state().toasts.at(-1)!;
  assert.match(t.text, /no finding got worse/);
  assert.equal(t.action?.label, 'Compare with previous');
  assert.equal(state().notices.length, 0);
  assert.equal(state().crawls.find((c) => c.id === 're')?.finishedAt, 5, 'the summary is the event’s');
  t.action!.run();
  await settle();
  assert.equal(state().screen, 'compare');
  assert.deepEqual([state().compare.oldId, state().compare.newId], ['base', 're']);
  assert.equal(state().compare.summary?.newId, 're');
  assert.ok(calls.includes('compare base re'));
});

test('a scheduled recrawl with worse findings leaves a notice that stays after the toasts go', () => {
  emit('recrawlFinished', { crawl: crawl('re', 2, { baseId: 'base' }), baseId: 'base', scheduled: true, worse: ['SITEMAP_URL_4XX', 'LASTMOD_STALE'] });
  const n = state().notices.at(-1)!;
  assert.deepEqual(n, { ...n, crawlId: 're', baseId: 'base', worse: ['SITEMAP_URL_4XX', 'LASTMOD_STALE'] });
  assert.match((n as unknown as { text: string }).text, /scheduled recrawl finished with 2 findings worse/);
  mock.timers.tick(60_000);
  assert.equal(state().toasts.length, 0, 'toasts go');
  assert.equal(state().notices.length, 1, 'the notice stays');
});

test('deleting a crawl the Compare view shows clears that side', async () => {
  store.openCompare({ oldId: 'base', newId: 're' });
  await settle();
  store.askDeleteCrawl(
    state().crawls.find((c) => c.id === 'base')!,
    'base',
  );
  state().confirm!.onConfirm();
  await settle();
  assert.equal(state().compare.oldId, null);
  assert.equal(state().compare.newId, 're');
  assert.equal(state().compare.summary, null);
});

test('a list the service refuses goes to the field when the form takes it, else to a toast', async () => {
  const before = state().toasts.length;
  let shown = '';
  await store.createCrawl({ settings: { startUrl: '' }, list: 'https://a.example/\n\n/faq/' }, true, (e) => {
    if (e.code !== 'BAD_LIST') return false;
    shown = e.message;
    return true;
  });
  assert.match(shown, /Line 3/);
  assert.equal(state().toasts.length, before, 'no toast');
  await store.createCrawl({ settings: { startUrl: '' }, list: '/faq/' }, true);
  assert.match(state().toasts.at(-1)!.text, /Could not create the crawl: Line 3/);
});
