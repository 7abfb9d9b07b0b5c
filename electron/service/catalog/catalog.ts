/**
 * Catalog: the list of crawls, their settings, status, counters and durable checkpoints, kept in the
 * injected KeyValueStore (electron-store in the app, conf elsewhere) under one key, `crawls`. Each
 * crawl folder also keeps a small meta.json (written atomically), so the catalog can be rebuilt from
 * the folders when its file is lost or corrupt.
 *
 * conf re-reads its whole file on every get(), so the catalog is read once and cached here;
 * every change is written through — for that one crawl only: the app, the CLI and browser mode may
 * share a state folder, and writing the whole cached list back would undo what another process
 * wrote about its own crawls meanwhile.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CrawlLogEntry, CrawlSettings, CrawlStatus, CrawlSummary } from '../../../shared/model.js';
import { emptyCounters } from '../../../shared/model.js';
import type { CrawlerCheckpoint, KeyValueStore } from '../../engine/index.js';
import { BUILTIN_DEFAULTS, validateSettings } from './settings.js';

/** A checkpoint copied to the catalog once the journal bytes it points at are fsync-ed. */
export interface StoredCheckpoint {
  crawler: CrawlerCheckpoint;
  /** Offset of the CHECKPOINT record in the journal. */
  offset: number;
  /** Journal bytes durable (fsync-ed) when it was stored; a replay finds at least this much. */
  position: number;
  at: number;
}

/**
 * What the catalog keeps of a crawl: its summary without what is only known live (rate, damaged; the
 * start URL is read off the settings), plus its durable checkpoint.
 */
export interface CatalogEntry extends Omit<CrawlSummary, 'startUrl' | 'rate' | 'damaged'> {
  checkpoint?: StoredCheckpoint;
  /** Rebuilt from a folder without meta.json: the settings are defaults, not the crawl's, so it cannot run. */
  settingsLost?: true;
}

/** What meta.json holds: the entry without its checkpoint (the journal has those). */
type Meta = Omit<CatalogEntry, 'checkpoint'> & { version: 1 };

const CRAWLS_KEY = 'crawls';
const DEFAULTS_KEY = 'defaults';
export const JOURNAL_FILE = 'journal.jsonl';
export const META_FILE = 'meta.json';

export class Catalog {
  private readonly entries = new Map<string, CatalogEntry>();
  readonly crawlsDir: string;

  constructor(
    private readonly store: KeyValueStore,
    stateDir: string,
    private readonly warn: (entry: Omit<CrawlLogEntry, 'at'>) => void,
  ) {
    this.crawlsDir = path.join(stateDir, 'crawls');
  }

  /** Reads the catalog, rebuilding entries from the crawl folders where it lacks or garbles them. */
  load(): void {
    fs.mkdirSync(this.crawlsDir, { recursive: true });
    let raw: unknown;
    try {
      raw = this.store.get(CRAWLS_KEY);
    } catch (err) {
      this.warn({
        level: 'warning',
        code: 'CATALOG_UNREADABLE',
        message: `The crawl catalog could not be read (${(err as Error).message}); it is rebuilt from the crawl folders.`,
      });
      raw = undefined;
    }
    let rewrite = false;
    if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) {
      this.warn({
        level: 'warning',
        code: 'CATALOG_CORRUPT',
        message: 'The crawl catalog is not in the expected shape; it is rebuilt from the crawl folders.',
      });
      raw = undefined;
      rewrite = true;
    }
    for (const [id, value] of Object.entries((raw ?? {}) as Record<string, unknown>)) {
      const entry = asEntry(id, value);
      if (entry) this.entries.set(id, entry);
      else rewrite = true;
    }
    for (const id of this.folderIds()) {
      if (this.entries.has(id)) continue;
      const meta = this.readMeta(id);
      if (meta) {
        this.entries.set(id, meta);
        this.warn({
          level: 'warning',
          code: 'CRAWL_RESTORED',
          message: `Crawl "${meta.name}" (${id}) was missing from the catalog and was restored from its folder.`,
        });
      } else if (fs.existsSync(path.join(this.dirOf(id), JOURNAL_FILE))) {
        const now = Date.now();
        this.entries.set(id, {
          id,
          name: id,
          settings: { ...BUILTIN_DEFAULTS, startUrl: '' },
          status: 'paused',
          counters: emptyCounters(),
          createdAt: now,
          updatedAt: now,
          error: { code: 'META_MISSING', message: 'This crawl folder has a journal but no meta.json: its settings are lost. Export it, or delete it.' },
          settingsLost: true,
        });
        this.warn({
          level: 'warning',
          code: 'CRAWL_META_MISSING',
          message: `The crawl folder ${id} has no readable meta.json; it is listed with default settings.`,
        });
      } else continue;
      rewrite = true;
    }
    if (rewrite) this.store.set(CRAWLS_KEY, Object.fromEntries(this.entries));
  }

  all(): CatalogEntry[] {
    return [...this.entries.values()];
  }

  get(id: string): CatalogEntry | undefined {
    return this.entries.get(id);
  }

  dirOf(id: string): string {
    return path.join(this.crawlsDir, id);
  }

  /** Adds or replaces an entry: written to the store and to its folder's meta.json. */
  put(entry: CatalogEntry, opts: { meta?: boolean } = {}): void {
    this.entries.set(entry.id, entry);
    this.persist(entry.id);
    if (opts.meta !== false) this.writeMeta(entry);
  }

  remove(id: string): void {
    this.entries.delete(id);
    this.persist(id);
  }

  /**
   * The entry as stored now (another process may have run the crawl since this one read it), cached
   * again; the cached one when the store has none.
   */
  refresh(id: string): CatalogEntry | undefined {
    let stored: unknown;
    try {
      stored = (this.store.get(CRAWLS_KEY) as Record<string, unknown> | undefined)?.[id];
    } catch {
      stored = undefined;
    }
    const entry = stored === undefined ? undefined : asEntry(id, stored);
    if (entry) this.entries.set(id, entry);
    return this.entries.get(id);
  }

  /** Saved defaults for new crawls, over the built-in ones (start URL and sitemaps are never defaults). */
  defaults(): CrawlSettings {
    const base: CrawlSettings = { ...BUILTIN_DEFAULTS, sitemapUrls: [], include: [], exclude: [] };
    let saved: unknown;
    try {
      saved = this.store.get(DEFAULTS_KEY);
    } catch {
      saved = undefined;
    }
    if (!saved || typeof saved !== 'object') return base;
    const merged: CrawlSettings = { ...base, ...pickKnown(saved as Record<string, unknown>), startUrl: '', sitemapUrls: [] };
    try {
      // Validated as a crawl would be (a start URL is required there; it is not part of the defaults).
      validateSettings({ ...merged, startUrl: 'http://defaults.invalid/' });
      return merged;
    } catch {
      this.warn({ level: 'warning', code: 'DEFAULTS_INVALID', message: 'The saved crawl defaults are not valid any more; the built-in defaults apply.' });
      return base;
    }
  }

  setDefaults(settings: CrawlSettings): void {
    this.store.set(DEFAULTS_KEY, settings);
  }

  /** Writes one crawl's entry (or its removal) into the catalog as stored now, leaving the others as they are. */
  private persist(id: string): void {
    let stored: unknown;
    try {
      stored = this.store.get(CRAWLS_KEY);
    } catch {
      stored = undefined;
    }
    const all = stored && typeof stored === 'object' && !Array.isArray(stored) ? { ...(stored as Record<string, unknown>) } : Object.fromEntries(this.entries);
    const entry = this.entries.get(id);
    if (entry) all[id] = entry;
    else delete all[id];
    this.store.set(CRAWLS_KEY, all);
  }

  private folderIds(): string[] {
    try {
      return fs
        .readdirSync(this.crawlsDir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && /^[A-Za-z0-9_-]+$/.test(d.name))
        .map((d) => d.name);
    } catch {
      return [];
    }
  }

  private readMeta(id: string): CatalogEntry | undefined {
    try {
      const meta = JSON.parse(fs.readFileSync(path.join(this.dirOf(id), META_FILE), 'utf8')) as Meta;
      const { version: _v, ...entry } = meta;
      return asEntry(id, entry);
    } catch {
      return undefined;
    }
  }

  /** meta.json via a temporary file and a rename, so it is never half written. */
  private writeMeta(entry: CatalogEntry): void {
    const dir = this.dirOf(entry.id);
    const { checkpoint: _cp, ...rest } = entry;
    const meta: Meta = { version: 1, ...rest };
    const tmp = path.join(dir, `${META_FILE}.tmp`);
    try {
      fs.writeFileSync(tmp, JSON.stringify(meta, null, 1));
      fs.renameSync(tmp, path.join(dir, META_FILE));
    } catch (err) {
      this.warn({
        level: 'warning',
        code: 'META_WRITE_FAILED',
        message: `Could not write ${path.join(dir, META_FILE)} (${(err as Error).message}); the catalog still has the crawl.`,
      });
    }
  }
}

const STATUSES: readonly CrawlStatus[] = ['created', 'running', 'paused', 'finished', 'failed'];

/** A catalog entry read back from the store or meta.json, or undefined when it is not one. */
function asEntry(id: string, v: unknown): CatalogEntry | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const e = v as Partial<CatalogEntry>;
  if (e.id !== id || typeof e.name !== 'string' || !STATUSES.includes(e.status as CrawlStatus)) return undefined;
  if (!e.settings || typeof e.settings !== 'object') return undefined;
  const counters = { ...emptyCounters(), ...(e.counters ?? {}) };
  return {
    ...(e as CatalogEntry),
    settings: { ...BUILTIN_DEFAULTS, ...e.settings },
    counters,
    createdAt: typeof e.createdAt === 'number' ? e.createdAt : 0,
    updatedAt: typeof e.updatedAt === 'number' ? e.updatedAt : 0,
  };
}

function pickKnown(o: Record<string, unknown>): Partial<CrawlSettings> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(BUILTIN_DEFAULTS)) if (k in o) out[k] = o[k];
  return out as Partial<CrawlSettings>;
}
