/**
 * Crawl settings: the built-in defaults for new crawls, and validation with zod. A failed check is a
 * ServiceError BAD_SETTINGS whose message names the field, so a form can point at it.
 */
import { z } from 'zod';
import { DEFAULT_SETTINGS, DEFAULT_USER_AGENT, type CrawlSettings } from '../../../shared/model.js';
import { ServiceError } from '../errors.js';

/** The user agent new crawls announce unless the analyst sets another. */
export { DEFAULT_USER_AGENT };

/** Built-in defaults; the saved defaults (setDefaults) override them. */
export const BUILTIN_DEFAULTS: Readonly<CrawlSettings> = DEFAULT_SETTINGS;

const httpUrl = (what: string) =>
  z
    .string()
    .trim()
    .max(8192)
    .refine((s) => isHttpUrl(s), { message: `must be an absolute http(s) URL (${what})` });

const pattern = z
  .string()
  .max(2048)
  .refine((p) => isRegExp(p), { message: 'is not a valid regular expression' });

const count = (min: number, max: number) => z.number().int().min(min).max(max);

/**
 * The rules of each setting, stricter than the contract's shape (CrawlSettingsSchema): URLs, regular
 * expressions, ranges. Typed by CrawlSettings, so a setting added there and not here (or here only)
 * does not compile.
 */
const settingsRules = {
  mode: z.enum(['spider', 'list']),
  startUrl: z.union([z.literal(''), httpUrl('for example https://www.example.com/')]),
  sitemapUrls: z.array(httpUrl('a sitemap address')).max(1000),
  useSitemaps: z.boolean(),
  fetchPages: z.boolean(),
  followLinks: z.boolean(),
  respectRobots: z.boolean(),
  scope: z.enum(['host', 'domain', 'any']),
  include: z.array(pattern).max(1000),
  exclude: z.array(pattern).max(1000),
  maxDepth: count(0, 1_000_000).nullable(),
  maxUrls: count(1, 1_000_000_000).nullable(),
  concurrency: count(1, 256),
  perHostConcurrency: count(1, 256),
  delayMs: count(0, 3_600_000),
  userAgent: z.string().trim().min(1).max(1024),
  timeoutMs: count(100, 3_600_000),
  idleTimeoutMs: count(100, 3_600_000),
  sitemapTimeoutMs: count(100, 3_600_000),
  connectTimeoutMs: count(100, 3_600_000),
  retries: count(0, 20),
  maxBodyBytes: count(1024, 1024 * 1024 * 1024),
} satisfies { [K in keyof CrawlSettings]-?: z.ZodType<CrawlSettings[K]> };

/** The schema of a complete settings object (after defaults are applied). */
export const SettingsSchema = z
  .strictObject(settingsRules)
  .refine((s) => s.startUrl !== '' || s.sitemapUrls.length > 0, {
    message: 'give a start URL or at least one sitemap URL',
    path: ['startUrl'],
  })
  .refine((s) => s.useSitemaps || s.sitemapUrls.length === 0, {
    message: 'sitemap URLs were given but sitemaps are switched off (links-only mode)',
    path: ['useSitemaps'],
  })
  .refine((s) => s.useSitemaps || s.fetchPages, {
    message: 'with sitemaps off, pages must be fetched or nothing can be found',
    path: ['fetchPages'],
  });

/** Merges a patch over a base and validates the result; throws BAD_SETTINGS naming the first bad field. */
export function resolveSettings(base: CrawlSettings, patch: Partial<CrawlSettings>): CrawlSettings {
  if (patch === null || typeof patch !== 'object') {
    throw new ServiceError('BAD_SETTINGS', 'Settings must be an object of crawl settings.');
  }
  const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  return validateSettings({ ...base, ...defined });
}

/** Validates a complete settings object; throws BAD_SETTINGS naming the first bad field. */
export function validateSettings(input: unknown): CrawlSettings {
  const parsed = SettingsSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length ? issue.path.map(String).join('.') : 'settings';
  const message =
    issue.code === 'unrecognized_keys'
      ? `Unknown setting${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}.`
      : `Setting "${field}" ${describe(issue)}.`;
  throw new ServiceError('BAD_SETTINGS', message);
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'custom') return issue.message;
  if (issue.code === 'invalid_type') return `must be ${issue.expected === 'int' ? 'a whole number' : `a ${issue.expected}`}`;
  if (issue.code === 'too_small') return `must be at least ${String(issue.minimum)}`;
  if (issue.code === 'too_big') return `must be at most ${String(issue.maximum)}`;
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  return issue.message.toLowerCase();
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

function isRegExp(p: string): boolean {
  try {
    new RegExp(p);
    return true;
  } catch {
    return false;
  }
}
