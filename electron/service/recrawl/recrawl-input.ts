/**
 * What a recrawl is created from: its base's settings as they were (the crawl is the same crawl
 * again), its name, and, for a list crawl, the base's stored list.
 */
import path from 'node:path';
import type { CatalogEntry } from '../catalog/catalog.js';
import { LIST_FILE } from '../list-file.js';
import type { NewCrawl } from '../types.js';

/** The NewCrawl of a recrawl of `base` (whose folder is `baseDir`). */
export function recrawlInput(base: CatalogEntry, baseDir: string): NewCrawl {
  const name = `${base.name.replace(/ \(recrawl\)$/, '')} (recrawl)`.slice(0, 200);
  const input: NewCrawl = { name, settings: { ...base.settings, sitemapUrls: [...base.settings.sitemapUrls] } };
  if (base.settings.mode === 'list') input.list = { path: path.join(baseDir, LIST_FILE) };
  return input;
}
