/**
 * The default catalog store outside Electron: conf (electron-store's base) at <stateDir>/catalog.json.
 * A catalog file that cannot be parsed is moved aside (catalog.corrupt-<time>.json) and a fresh one
 * started; the service then rebuilds the catalog from the crawl folders.
 */
import fs from 'node:fs';
import path from 'node:path';
import Conf from 'conf';
import type { KeyValueStore } from '../../engine/index.js';
import { ServiceError } from '../errors.js';

export const CATALOG_NAME = 'catalog';

export interface OpenedStore {
  store: KeyValueStore;
  /** Set when the catalog file was unreadable and moved aside. */
  movedAside?: { path: string; reason: string };
}

/**
 * Creates the store behind <dir>/<name>.json. conf and electron-store (which extends conf) both fit;
 * it must throw on a file it cannot parse.
 */
export type CatalogStoreFactory = (dir: string, name: string) => KeyValueStore & { readonly store: unknown };

/** conf at <dir>/<name>.json: the store of the CLI, browser mode and tests. */
export const confStore: CatalogStoreFactory = (dir, name) =>
  new Conf<Record<string, unknown>>({ cwd: dir, configName: name, projectName: 'spinneret' }) as unknown as KeyValueStore & { store: unknown };

/** Opens the catalog at <stateDir>/catalog.json (conf unless told otherwise), moving a corrupt file aside. */
export function openCatalogStore(stateDir: string, create: CatalogStoreFactory = confStore): OpenedStore {
  fs.mkdirSync(stateDir, { recursive: true });
  const open = () => create(stateDir, CATALOG_NAME);
  try {
    const conf = open();
    void conf.store; // parse now: a corrupt file throws here rather than on first use
    return { store: conf };
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
    return { store: open(), movedAside: { path: aside, reason: (err as Error).message } };
  }
}
