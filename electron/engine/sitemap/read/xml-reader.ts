/**
 * Streams XML text into element events for a sitemap handler, on htmlparser2's raw Tokenizer
 * (chosen by measurement: see bench/sitemap-parser.ts; its text scanning sped up in
 * fast-tokenizer.ts). The Tokenizer is forgiving, so this layer
 * adds what a sitemap reader needs from XML: a strict element stack (mismatched or missing end tags
 * are MALFORMED_XML with a line and column), refusal of DOCTYPE/ENTITY declarations, one root,
 * and bounded memory (only the chunks the current token or start tag spans are held; a start tag
 * past its bounds in limits.ts is ELEMENT_TOO_LARGE).
 */
import type { TokenizerCallbacks } from 'htmlparser2';
import { FastTokenizer, type ElementShortcut } from './fast-tokenizer.js';
import { clip, type ItemSink } from './sink.js';
import { MAX_ATTRIBUTES_CHARS, MAX_ELEMENT_ATTRIBUTES, MAX_ELEMENT_DEPTH, MAX_FIELD_CHARS, MAX_TAG_CHARS, MAX_TOKEN_CHARS } from './limits.js';

export type Attributes = Record<string, string>;

/** What the reader tells the sitemap handler. Names are local names (prefix dropped). */
export interface ElementHandler {
  /** True while the handler wants the text of the element it is in. */
  readonly capturing: boolean;
  /** Whether a start tag's attributes are wanted (the root's always are). */
  wantsAttributes(local: string, depth: number): boolean;
  /** A start tag; depth 0 is the root. attrs is null when not wanted. */
  openElement(qname: string, local: string, depth: number, attrs: Attributes | null): void;
  /** Text (entities decoded, CDATA included) while capturing; may come in pieces. */
  text(s: string): void;
  closeElement(local: string, depth: number): void;
  /**
   * At a `<` at `at` in `buffer`, while in the root with no element open: the end of an element
   * the handler reads whole (what openElement … closeElement would have told it), or -1. No side
   * effects; takeWhole then takes it.
   */
  matchWhole?(buffer: string, at: number): number;
  takeWhole?(): void;
  /** Reading stops before the document ends: keep what is complete of the open entry. */
  interrupted(): void;
}

/** Where the text fed to the reader starts in the document (leading whitespace skipped before it). */
export interface TextOrigin {
  /** Characters before the first one fed. */
  offset: number;
  /** Newlines before the first character fed. */
  lines: number;
  /** Offset of the last newline before it, or -1. */
  lastNewline: number;
}

const NON_WHITESPACE = /[^\s]/;

/** Whether handlers may read elements whole (tests compare both ways). */
export const SHORTCUTS = { enabled: true };
const HTML_DOCTYPE = /^doctype\s+html\s*$/i;

export class XmlReader implements TokenizerCallbacks {
  private readonly tokenizer: FastTokenizer;
  /** Chunks the current token may still need, the first starting at bufferOffset. */
  private readonly buffers: string[] = [];
  private bufferOffset = 0;
  private written = 0;
  /** No callback will ever need text before this offset. */
  private safePoint = 0;
  private linesBefore: number;
  private lastNewlineBefore: number;

  private readonly stack: string[] = [];
  private rootSeen = false;
  private rootClosed = false;

  // the start tag being read
  private tagQName = '';
  private tagLocal = '';
  private attrs: Attributes | null = null;
  private attrName = '';
  private attrValue = '';
  /** Where the start tag being read begins (its `<`), or -1 outside one; its attributes and their characters so far. */
  private tagStart = -1;
  private tagAttributes = 0;
  private tagAttributeChars = 0;

  constructor(
    private readonly sink: ItemSink,
    private readonly handler: ElementHandler,
    private readonly origin: TextOrigin = { offset: 0, lines: 0, lastNewline: -1 },
  ) {
    const shortcut: ElementShortcut | null =
      SHORTCUTS.enabled && handler.matchWhole && handler.takeWhole
        ? {
            match: (buffer, at) => (this.stack.length === 1 && !this.sink.stopped ? handler.matchWhole!(buffer, at) : -1),
            take: (end) => {
              this.safePoint = end;
              handler.takeWhole!();
            },
          }
        : null;
    this.tokenizer = new FastTokenizer({ xmlMode: true, decodeEntities: true }, this, shortcut);
    this.linesBefore = origin.lines;
    this.lastNewlineBefore = origin.lastNewline - origin.offset;
  }

  /** Feeds decoded text. */
  write(text: string): void {
    if (this.sink.stopped || text.length === 0) return;
    this.buffers.push(text);
    this.written += text.length;
    this.tokenizer.write(text);
    // Drop chunks that lie wholly before the safe point (the start of a start tag being read, for
    // its position in a message); a token or a tag that never ends is refused.
    const keep = this.tagStart === -1 ? this.safePoint : this.tagStart;
    while (this.buffers.length > 1 && this.bufferOffset + this.buffers[0]!.length <= keep) {
      this.dropFirstBuffer();
    }
    if (this.tagStart !== -1 && this.written - this.tagStart > MAX_TAG_CHARS) this.tagTooLarge();
    if (!this.sink.stopped && this.written - this.safePoint > MAX_TOKEN_CHARS) {
      this.fail(
        'TOKEN_TOO_LARGE',
        () =>
          `A single XML token (a tag, comment or attribute) starting at ${this.positionOf(this.safePoint)} runs over ${MAX_TOKEN_CHARS / 1024 / 1024} MiB; reading stopped. ${this.keptPhrase()}`,
      );
    }
  }

  /** Ends the document: an unclosed root or no root at all is MALFORMED_XML. */
  end(): void {
    if (this.sink.stopped) return;
    this.tokenizer.end();
  }

  /**
   * Stops reading with a fatal problem, keeping the complete part of an open entry first (so a
   * message built by a function counts it among the entries kept).
   */
  fail(code: string, message: string | (() => string)): void {
    if (this.sink.stopped) return;
    this.handler.interrupted();
    this.sink.stop(code, typeof message === 'string' ? message : message());
    this.tokenizer.pause();
  }

  // ------------------------------------------------------------ tokenizer callbacks

  ontext(start: number, endIndex: number): void {
    this.safePoint = start;
    if (this.stack.length === 0) this.textOutsideRoot(this.slice(start, endIndex), start);
    else if (this.handler.capturing) this.handler.text(this.slice(start, endIndex));
  }

  ontextentity(codepoint: number, endIndex: number): void {
    if (this.stack.length === 0) this.textOutsideRoot('&', endIndex - 1);
    else if (this.handler.capturing) this.handler.text(String.fromCodePoint(codepoint));
  }

  oncdata(start: number, endIndex: number, endOffset: number): void {
    this.safePoint = start;
    const inRoot = this.stack.length > 0;
    if (!inRoot) this.textOutsideRoot(this.slice(start, endIndex - endOffset), start);
    else if (this.handler.capturing) this.handler.text(this.slice(start, endIndex - endOffset));
  }

  onopentagname(start: number, endIndex: number): void {
    this.safePoint = start;
    const qname = this.slice(start, endIndex);
    if (this.rootClosed) {
      this.afterRoot(`a second root element <${qname}>`);
      return;
    }
    const colon = qname.indexOf(':');
    const local = colon === -1 ? qname : qname.slice(colon + 1);
    const depth = this.stack.length;
    if (depth >= MAX_ELEMENT_DEPTH) {
      this.fail(
        'NESTING_TOO_DEEP',
        () =>
          `<${clip(qname)}> at ${this.positionOf(start - 1)} is nested more than ${MAX_ELEMENT_DEPTH} elements deep; no sitemap nests that deep (the file is broken or hostile), so reading stopped there. ${this.keptPhrase()}`,
      );
      return;
    }
    this.tagQName = qname;
    this.tagLocal = local;
    this.attrs = depth === 0 || this.handler.wantsAttributes(local, depth) ? {} : null;
    this.tagStart = start - 1;
    this.tagAttributes = 0;
    this.tagAttributeChars = 0;
  }

  onattribname(start: number, endIndex: number): void {
    this.safePoint = start;
    if (++this.tagAttributes > MAX_ELEMENT_ATTRIBUTES) {
      this.elementTooLarge(`has more than ${MAX_ELEMENT_ATTRIBUTES.toLocaleString('en-US')} attributes`);
      return;
    }
    this.attributeChars(start, endIndex);
    if (this.attrs !== null) this.attrName = this.slice(start, endIndex);
  }

  onattribdata(start: number, endIndex: number): void {
    this.safePoint = start;
    this.attributeChars(start, endIndex);
    if (this.attrs !== null && this.attrValue.length <= MAX_FIELD_CHARS) this.attrValue += this.slice(start, endIndex);
  }

  onattribentity(codepoint: number): void {
    this.tagAttributeChars++;
    if (this.attrs !== null && this.attrValue.length <= MAX_FIELD_CHARS) this.attrValue += String.fromCodePoint(codepoint);
  }

  onattribend(): void {
    // An attribute value over MAX_FIELD_CHARS is dropped: the handler then reports what it lacks.
    if (this.attrs !== null && this.attrValue.length <= MAX_FIELD_CHARS && !Object.prototype.hasOwnProperty.call(this.attrs, this.attrName)) {
      this.attrs[this.attrName] = this.attrValue;
    }
    this.attrValue = '';
  }

  onopentagend(): void {
    this.tagStart = -1;
    if (this.sink.stopped) return;
    const depth = this.stack.length;
    this.stack.push(this.tagQName);
    this.rootSeen = true;
    this.handler.openElement(this.tagQName, this.tagLocal, depth, this.attrs);
    this.attrs = null;
    if (this.sink.stopped) this.tokenizer.pause(); // the handler refused the root
  }

  onselfclosingtag(): void {
    this.tagStart = -1;
    if (this.sink.stopped) return;
    const depth = this.stack.length;
    this.rootSeen = true;
    this.handler.openElement(this.tagQName, this.tagLocal, depth, this.attrs);
    this.attrs = null;
    if (this.sink.stopped) {
      this.tokenizer.pause();
      return;
    }
    this.handler.closeElement(this.tagLocal, depth);
    if (depth === 0) this.rootClosed = true;
  }

  onclosetag(start: number, endIndex: number): void {
    this.safePoint = start;
    const qname = this.slice(start, endIndex);
    const depth = this.stack.length - 1;
    if (depth < 0) {
      if (this.rootClosed) this.afterRoot(`an end tag </${qname}>`);
      else this.malformed(start - 2, `an end tag </${qname}> before any element was opened`);
      return;
    }
    const open = this.stack[depth]!;
    if (open !== qname) {
      this.malformed(start - 2, `expected </${open}> but found </${qname}>`);
      return;
    }
    this.stack.pop();
    const colon = qname.indexOf(':');
    this.handler.closeElement(colon === -1 ? qname : qname.slice(colon + 1), depth);
    if (depth === 0) this.rootClosed = true;
  }

  ondeclaration(start: number, endIndex: number): void {
    this.safePoint = start;
    const value = this.slice(start, endIndex);
    if (!this.rootSeen && HTML_DOCTYPE.test(value)) {
      this.fail('NOT_A_SITEMAP', `This is an HTML page (<!DOCTYPE html>)${this.sink.servedAs}, not a sitemap. Check the sitemap address.`);
      return;
    }
    const kind = /^entity/i.test(value) ? 'an ENTITY' : /^doctype/i.test(value) ? 'a DOCTYPE' : 'a markup';
    this.fail(
      'DOCTYPE_REFUSED',
      `The document has ${kind} declaration at ${this.positionOf(start - 2)}. Sitemaps need none, and declared entities can expand without bound (a "billion laughs" attack), so the document is refused; nothing after the declaration was read.`,
    );
  }

  onprocessinginstruction(start: number): void {
    this.safePoint = start; // <?xml …?> and stylesheets: nothing a sitemap needs
  }

  oncomment(start: number): void {
    this.safePoint = start;
  }

  onend(): void {
    if (this.sink.stopped) return;
    if (!this.rootSeen) {
      this.fail('MALFORMED_XML', `The document ends at ${this.positionOf(this.written)} without any element: it is empty or truncated.`);
    } else if (this.stack.length > 0) {
      const open = this.stack
        .map((n) => `<${n}>`)
        .reverse()
        .join(', ');
      this.fail(
        'MALFORMED_XML',
        () => `The document ends at ${this.positionOf(this.written)} with ${open} still open: it is truncated or malformed. ${this.keptPhrase()}`,
      );
    }
  }

  // ------------------------------------------------------------ helpers

  /** Counts an attribute's name or value towards its start tag's bounds. */
  private attributeChars(start: number, endIndex: number): void {
    this.tagAttributeChars += endIndex - start;
    if (this.tagAttributeChars > MAX_ATTRIBUTES_CHARS) {
      this.elementTooLarge(`has attributes of more than ${MAX_ATTRIBUTES_CHARS / 1024} KiB in all`);
    } else if (endIndex - this.tagStart > MAX_TAG_CHARS) {
      this.tagTooLarge();
    }
  }

  private tagTooLarge(): void {
    this.elementTooLarge(`runs over ${MAX_TAG_CHARS / 1024 / 1024} MiB`);
  }

  /** Refuses the document at a start tag past one of its bounds (what: `has more than …`). */
  private elementTooLarge(what: string): void {
    const at = this.tagStart;
    this.fail(
      'ELEMENT_TOO_LARGE',
      () =>
        `The start tag <${clip(this.tagQName)}> at ${this.positionOf(at)} ${what}; no sitemap needs that (the file is broken or hostile), so reading stopped there. ${this.keptPhrase()}`,
    );
  }

  private textOutsideRoot(text: string, at: number): void {
    if (!NON_WHITESPACE.test(text)) return;
    if (this.rootClosed) this.afterRoot(`text "${text.trim().slice(0, 60)}"`);
    else this.malformed(at, `text "${text.trim().slice(0, 60)}" before the root element`);
  }

  /** Content after the root's end tag: the document itself is complete, so this is no fatal fault. */
  private afterRoot(what: string): void {
    if (this.sink.stopped) return;
    this.sink.problem('TRAILING_CONTENT', `The document continues after its root element ends (${what}); the rest was ignored.`);
    this.sink.halt();
    this.tokenizer.pause();
  }

  private malformed(at: number, what: string): void {
    this.fail('MALFORMED_XML', () => `Malformed XML at ${this.positionOf(at)}: ${what}. ${this.keptPhrase()}`);
  }

  private keptPhrase(): string {
    const n = this.sink.urlCount + this.sink.childCount;
    return `The ${n} ${n === 1 ? 'entry' : 'entries'} read before it ${n === 1 ? 'was' : 'were'} kept.`;
  }

  /** `line L, column C` of an offset in the text fed so far (at or after the first held chunk). */
  private positionOf(offset: number): string {
    let lines = this.linesBefore;
    let lastNewline = this.lastNewlineBefore;
    let base = this.bufferOffset;
    for (const buf of this.buffers) {
      if (base >= offset) break;
      const stop = Math.min(buf.length, offset - base);
      for (let i = buf.indexOf('\n'); i !== -1 && i < stop; i = buf.indexOf('\n', i + 1)) {
        lines++;
        lastNewline = base + i;
      }
      base += buf.length;
    }
    return `line ${lines + 1}, column ${offset - lastNewline}`;
  }

  private dropFirstBuffer(): void {
    const buf = this.buffers.shift()!;
    for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n', i + 1)) {
      this.linesBefore++;
      this.lastNewlineBefore = this.bufferOffset + i;
    }
    this.bufferOffset += buf.length;
  }

  private slice(start: number, end: number): string {
    if (start >= end) return '';
    let i = 0;
    let base = this.bufferOffset;
    while (start >= base + this.buffers[i]!.length) {
      base += this.buffers[i]!.length;
      i++;
    }
    let buf = this.buffers[i]!;
    if (end <= base + buf.length) return buf.slice(start - base, end - base);
    let out = buf.slice(start - base);
    base += buf.length;
    for (i++; i < this.buffers.length; i++) {
      buf = this.buffers[i]!;
      if (end <= base + buf.length) return out + buf.slice(0, end - base);
      out += buf;
      base += buf.length;
    }
    return out;
  }
}
