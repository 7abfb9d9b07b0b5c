/**
 * The analyst's include/exclude patterns: a URL is kept when it matches any include (or there are none)
 * and no exclude.
 */
import type { CrawlSettings } from '../../../shared/model.js';
import { EngineError } from '../types.js';

export class UrlFilter {
  private readonly include: RegExp[];
  private readonly exclude: RegExp[];

  constructor(settings: Pick<CrawlSettings, 'include' | 'exclude'>) {
    this.include = settings.include.map((p) => compilePattern(p, 'include'));
    this.exclude = settings.exclude.map((p) => compilePattern(p, 'exclude'));
  }

  /** True when the URL passes the include and exclude patterns. */
  matches(url: string): boolean {
    if (this.include.length > 0 && !this.include.some((re) => re.test(url))) return false;
    return !this.exclude.some((re) => re.test(url));
  }
}

/** Compiles one pattern, with an error naming it when it is not a valid regular expression. */
export function compilePattern(pattern: string, kind: 'include' | 'exclude'): RegExp {
  try {
    return new RegExp(pattern);
  } catch (err) {
    throw new EngineError('BAD_PATTERN', `The ${kind} pattern "${pattern}" is not a valid regular expression: ${(err as Error).message}`);
  }
}
