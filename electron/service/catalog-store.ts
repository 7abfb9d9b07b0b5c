/**
 * The default catalog store outside Electron: conf (electron-store's base) at <stateDir>/catalog.json.
 * A catalog file that cannot be parsed is moved aside (catalog.corrupt-<time>.json) and a fresh one
 * started; the service then rebuilds the catalog from the crawl folders.
 */
import fs from 'node:fs';
import path from 'node:path';
import Conf from 'conf';
import type { KeyValueStore } from '../engine/types.js';
import { ServiceError } from './errors.js';

export const CATALOG_NAME = 'catalog';

export interface OpenedStore {
  store: KeyValueStore;
  /** Set when the catalog file was unreadable and moved aside. */
  movedAside?: { path: string; reason: string };
}

/** Opens conf at <stateDir>/catalog.json, moving a corrupt file aside. */
export function openCatalogStore(stateDir: string): OpenedStore {
  fs.mkdirSync(stateDir, { recursive: true });
  const open = () => new Conf<Record<string, unknown>>({ cwd: stateDir, configName: CATALOG_NAME, projectName: 'spinneret' });
  try {
    const conf = open();
    void conf.store; // parse now: a corrupt file throws here rather than on first use
    return { store: conf as unknown as KeyValueStore };
  } catch (err) {
    const file = path.join(stateDir, `${CATALOG_NAME}.json`);
    const aside = path.join(stateDir, `${CATALOG_NAME}.corrupt-${Date.now()}.json`);
    try {
      fs.renameSync(file, aside);
    } catch (renameErr) {
      throw new ServiceError(
        'CATALOG_UNREADABLE',
        `The crawl catalog ${file} cannot be read (${(err as Error).message}) nor moved aside (${(renameErr as Error).message}); check the folder's permissions.`,
      );
    }
    return { store: open() as unknown as KeyValueStore, movedAside: { path: aside, reason: (err as Error).message } };
  }
}
