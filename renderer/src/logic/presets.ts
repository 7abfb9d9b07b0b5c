/** The new-crawl mode presets and how to tell which one a form is in. */
import type { CrawlForm } from './validation.js';

export type CrawlMode = 'full' | 'sitemaps' | 'links';

export interface ModePreset {
  id: CrawlMode;
  label: string;
  description: string;
  fields: Pick<CrawlForm, 'fetchPages' | 'followLinks' | 'useSitemaps'>;
}

export const MODE_PRESETS: readonly ModePreset[] = [
  {
    id: 'full',
    label: 'Full crawl',
    description: 'Read robots.txt and every sitemap, fetch each page and follow its links.',
    fields: { fetchPages: true, followLinks: true, useSitemaps: true },
  },
  {
    id: 'sitemaps',
    label: 'Sitemap listing only',
    description: 'Fetch robots.txt and the sitemaps only: list every URL they name without fetching pages.',
    fields: { fetchPages: false, followLinks: false, useSitemaps: true },
  },
  {
    id: 'links',
    label: 'Links only',
    description: 'Fetch pages from the start URL and follow their links; sitemaps are not read.',
    fields: { fetchPages: true, followLinks: true, useSitemaps: false },
  },
];

/** Applies a preset to a form; "links only" also clears the explicit sitemap list. */
export function applyMode(form: CrawlForm, mode: CrawlMode): CrawlForm {
  const preset = MODE_PRESETS.find((p) => p.id === mode)!;
  return { ...form, ...preset.fields, ...(mode === 'links' ? { sitemapUrls: '' } : {}) };
}

/** The preset a form matches, or 'custom' when its switches match none. */
export function modeOf(form: Pick<CrawlForm, 'fetchPages' | 'followLinks' | 'useSitemaps'>): CrawlMode | 'custom' {
  // Links are only followed on fetched pages, so "no pages" is a sitemap listing whatever followLinks says.
  const follow = form.fetchPages && form.followLinks;
  const match = MODE_PRESETS.find(
    (p) => p.fields.fetchPages === form.fetchPages && p.fields.followLinks === follow && p.fields.useSitemaps === form.useSitemaps,
  );
  return match?.id ?? 'custom';
}
