/**
 * htmlparser2's Tokenizer, with each run of text or of a quoted attribute value skipped by one native
 * search instead of one state-machine step per character: in a sitemap those runs (URLs, dates) are
 * most of the document. The callbacks, offsets included, are the stock Tokenizer's.
 *
 * It overrides private methods of htmlparser2, so htmlparser2 is pinned to one exact version in
 * package.json; test/engine/fast-tokenizer.test.ts fails, saying what to do, if another breaks them.
 */
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

const LT = 0x3c;
const AMP = 0x26;
const DQ = 0x22;
const SQ = 0x27;

/**
 * Takes an element whole at a `<` in text, or declines (see XmlReader and simple-url.ts). The
 * text before it is reported first, as the stock Tokenizer would before a tag.
 */
export interface ElementShortcut {
  /** At a `<` at `at` in `buffer`: the end (exclusive, in `buffer`) of an element taken whole, or -1. No side effects. */
  match(buffer: string, at: number): number;
  /** Takes the element the last match found; `end` is its end in the document. */
  take(end: number): void;
}

/** The Tokenizer's run-time fields this file touches (private in its .d.ts). */
interface TokenizerInternals {
  buffer: string;
  index: number;
  offset: number;
  sectionStart: number;
  cbs: TokenizerCallbacks;
  shortcut: ElementShortcut | null;
  startEntity(): void;
  /** The fast scans' memo: the buffer it is for and the next `&` at or after `ampFrom` (-1: none). */
  ampBuffer: string | null;
  ampFrom: number;
  ampAt: number;
}

type Method = (this: TokenizerInternals, c: number) => void;

/** Stock implementations, called for the characters the fast paths do not skip. */
const proto = Tokenizer.prototype as unknown as Record<string, Method>;
const stockText = proto.stateText!;
const stockInDq = proto.stateInAttributeValueDoubleQuotes!;
const stockInSq = proto.stateInAttributeValueSingleQuotes!;

/** Position (in `buffer`) of the next `&` at or after `from`, or -1. */
function nextAmp(t: TokenizerInternals, from: number): number {
  if (t.ampBuffer !== t.buffer || from < t.ampFrom || (t.ampAt !== -1 && from > t.ampAt)) {
    t.ampBuffer = t.buffer;
    t.ampFrom = from;
    t.ampAt = t.buffer.indexOf('&', from);
  }
  return t.ampAt;
}

/**
 * Moves the scan to just before the next `stop` or `&` after the current character (the parse
 * loop then steps onto it), or to the end of the buffer when neither comes.
 */
function skipTo(t: TokenizerInternals, stop: string): void {
  const rel = t.index - t.offset;
  const buf = t.buffer;
  let next = buf.indexOf(stop, rel + 1);
  const amp = nextAmp(t, rel + 1);
  if (amp !== -1 && (next === -1 || amp < next)) next = amp;
  t.index = (next === -1 ? buf.length : next) - 1 + t.offset;
}

export class FastTokenizer extends Tokenizer {
  constructor(options: { xmlMode?: boolean; decodeEntities?: boolean }, cbs: TokenizerCallbacks, shortcut: ElementShortcut | null = null) {
    super(options, cbs);
    const t = this as unknown as TokenizerInternals;
    t.ampBuffer = null;
    t.ampFrom = 0;
    t.ampAt = -1;
    t.shortcut = shortcut;
  }
}

const fast = FastTokenizer.prototype as unknown as Record<string, Method>;

fast.stateText = function stateText(this: TokenizerInternals, c: number): void {
  if (c === LT && this.shortcut !== null) {
    const end = this.shortcut.match(this.buffer, this.index - this.offset);
    if (end !== -1) {
      if (this.index > this.sectionStart) this.cbs.ontext(this.sectionStart, this.index);
      this.shortcut.take(end + this.offset);
      // In text again just past the element, as after the stock Tokenizer's `>` of its end tag.
      this.sectionStart = end + this.offset;
      this.index = end - 1 + this.offset;
      return;
    }
  }
  if (c === LT || c === AMP) stockText.call(this, c);
  else skipTo(this, '<');
};

fast.stateInAttributeValueDoubleQuotes = function stateInAttributeValueDoubleQuotes(this: TokenizerInternals, c: number): void {
  if (c === DQ || c === AMP) stockInDq.call(this, c);
  else skipTo(this, '"');
};

fast.stateInAttributeValueSingleQuotes = function stateInAttributeValueSingleQuotes(this: TokenizerInternals, c: number): void {
  if (c === SQ || c === AMP) stockInSq.call(this, c);
  else skipTo(this, "'");
};
