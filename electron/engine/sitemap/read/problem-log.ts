/**
 * Per-entry problems of one sitemap, capped per code so a broken 50,000-URL file cannot flood the
 * tree, while nothing goes unreported: past the cap, one "… and N more" problem per code at the end.
 */
import type { Problem } from '../../../../shared/model.js';
import { MAX_PROBLEMS_PER_CODE } from './limits.js';

export class ProblemLog {
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly emit: (problem: Problem) => void,
    private readonly cap = MAX_PROBLEMS_PER_CODE,
  ) {}

  /** Reports a problem, or only counts it once its code has reached the cap. */
  report(problem: Problem): void {
    const n = (this.counts.get(problem.code) ?? 0) + 1;
    this.counts.set(problem.code, n);
    if (n <= this.cap) this.emit(problem);
  }

  /** How many problems of a code were found (reported or not). */
  count(code: string): number {
    return this.counts.get(code) ?? 0;
  }

  /** Emits one summary problem per code that went past the cap. Call once, at the end. */
  flush(): void {
    for (const [code, n] of this.counts) {
      if (n > this.cap) {
        this.emit({ code, message: `… and ${n - this.cap} more ${code} problems in this sitemap (${n} in all; the first ${this.cap} are listed).` });
      }
    }
  }
}
