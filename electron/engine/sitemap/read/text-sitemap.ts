/**
 * Text sitemaps (sitemaps.org): one absolute URL per line. Lines are trimmed, blank lines skipped,
 * anything else reported; a line is held only up to MAX_FIELD_CHARS while it is read.
 */
import { MAX_FIELD_CHARS } from './limits.js';
import type { ItemSink } from './sink.js';

export class TextSitemapReader {
  private partial = '';
  private partialOverflowed = false;
  private lineNumber: number;

  /** `linesBefore`: blank lines already skipped before the first text fed. */
  constructor(
    private readonly sink: ItemSink,
    linesBefore = 0,
  ) {
    this.lineNumber = linesBefore;
  }

  /** Feeds decoded text. */
  write(text: string): void {
    if (this.sink.stopped) return;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      if (this.partial === '' && !this.partialOverflowed) {
        this.line(text.slice(start, nl), false);
      } else {
        this.append(text.slice(start, nl));
        this.line(this.partial, this.partialOverflowed);
        this.partial = '';
        this.partialOverflowed = false;
      }
      start = nl + 1;
    }
    if (start < text.length) this.append(text.slice(start));
  }

  /** Ends the document: the last line needs no newline. */
  end(): void {
    if (this.sink.stopped) return;
    if (this.partial !== '' || this.partialOverflowed) this.line(this.partial, this.partialOverflowed);
    this.partial = '';
  }

  private append(piece: string): void {
    if (this.partialOverflowed) return;
    if (this.partial.length + piece.length > MAX_FIELD_CHARS + 64) {
      // Room for padding around a maximal URL; past it the line cannot be a valid entry.
      this.partialOverflowed = true;
      this.partial = (this.partial + piece).slice(0, MAX_FIELD_CHARS);
    } else {
      this.partial += piece;
    }
  }

  private line(raw: string, overflowed: boolean): void {
    this.lineNumber++;
    const loc = raw.trim();
    if (loc === '' && !overflowed) return;
    const checked = this.sink.checkLoc(loc, `line ${this.lineNumber}`, overflowed);
    if (checked !== null) this.sink.url({ loc: checked });
  }
}
