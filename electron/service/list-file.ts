/**
 * List mode's URL list: parsed once when the crawl is created, stored in its folder as list.txt (one
 * absolute URL a line, as the crawl requests it), read back as a stream each time the crawl runs.
 *
 * What a list may be: one URL a line, or a CSV (or TSV) whose first column holds them, with or without
 * a header row (a CSV is told by its file name, `.csv`/`.tsv`, or by a header row: a first cell that is
 * a word such as `url` or `Address`, followed by a delimiter). Blank lines and lines starting with `#`
 * are skipped; a URL repeated (the same uniqueKey: case of the host, a fragment, default port…) is kept
 * once, where it first appears. A line that is not an absolute http(s) URL is a BAD_LIST naming up to
 * five such lines by number, so the analyst can fix the file.
 *
 * Memory: the list is read in 1 MiB pieces and written out as it goes; the only per-URL state is the
 * repeat check, a StringIndex of uniqueKeys (the key's bytes plus ~10 bytes, no string object per URL).
 */
import fs from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { StringIndex, tryUniqueKey } from '../engine/index.js';
import { ServiceError } from './errors.js';

export const LIST_FILE = 'list.txt';
const CHUNK = 1 << 20;
/** Bad lines a BAD_LIST message names. */
const NAMED_BAD_LINES = 5;
/** A CSV's header cell: a word or a few (`url`, `Address`, `Page URL`), never a URL. */
const HEADER_CELL = /^[\p{L}_][\p{L}\p{N} _.-]{0,60}$/u;

export interface ParsedList {
  /** URLs kept (after blank lines, comments and repeats). */
  size: number;
  /** The first of them, the crawl's start URL (its name and the anchor of its first scope). */
  first: string;
  /** Lines dropped as repeats. */
  repeats: number;
}

/** Where a list comes from: pasted text, or a file the CLI names. */
export type ListInput = string | { path: string };

/**
 * Parses `input` and writes its URLs to `<dir>/list.txt` (via a temporary file and a rename: never half
 * written). Throws BAD_LIST (nothing written) when a line is not an absolute http(s) URL or none is.
 */
export function writeListFile(input: ListInput, dir: string): ParsedList {
  const target = path.join(dir, LIST_FILE);
  const tmp = target + '.tmp';
  const out = fs.openSync(tmp, 'w');
  let ok = false;
  try {
    const parsed = parseList(input, out);
    fs.fsyncSync(out);
    fs.closeSync(out);
    fs.renameSync(tmp, target);
    ok = true;
    return parsed;
  } finally {
    if (!ok) {
      try {
        fs.closeSync(out);
      } catch {
        // closed already
      }
      fs.rmSync(tmp, { force: true });
    }
  }
}

/** The URLs of a crawl's stored list, in order, read a piece at a time. */
export async function* readListFile(dir: string): AsyncGenerator<string> {
  const file = path.join(dir, LIST_FILE);
  let rest = '';
  let stream: fs.ReadStream;
  try {
    await fs.promises.access(file);
    stream = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: CHUNK });
  } catch (err) {
    throw new ServiceError('BAD_LIST', `This list crawl's URL list ${file} cannot be read (${(err as Error).message}); create the crawl again from the list.`);
  }
  for await (const chunk of stream as AsyncIterable<string>) {
    const text = rest + chunk;
    let at = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', at)) {
      if (nl > at) yield text.slice(at, nl);
      at = nl + 1;
    }
    rest = text.slice(at);
  }
  if (rest) yield rest;
}

/** Where bad lines are remembered for the message. */
interface Bad {
  count: number;
  named: string[];
}

function parseList(input: ListInput, out: number): ParsedList {
  const named = typeof input === 'string' ? '' : input.path;
  const seen = new StringIndex({ sharePrefixes: true });
  const bad: Bad = { count: 0, named: [] };
  let size = 0;
  let repeats = 0;
  let first = '';
  let pending: string[] = [];
  let pendingBytes = 0;
  const flush = () => {
    if (pending.length === 0) return;
    fs.writeSync(out, pending.join(''));
    pending = [];
    pendingBytes = 0;
  };

  let csv: { delimiter: string } | null = /\.csv$/i.test(named) ? { delimiter: ',' } : /\.tsv$/i.test(named) ? { delimiter: '\t' } : null;
  let decided = false;
  /** A CSV record spanning lines (a quoted cell with a line break): its text so far and first line. */
  let carry = '';
  let carryLine = 0;

  const take = (cell: string, line: number) => {
    const s = cell.trim();
    if (!s) return;
    let href: string | null = null;
    if (/^https?:\/\//i.test(s)) {
      try {
        href = new URL(s).href;
      } catch {
        href = null;
      }
    }
    const key = href === null ? null : tryUniqueKey(href);
    if (href === null || key === null) {
      bad.count++;
      if (bad.named.length < NAMED_BAD_LINES) bad.named.push(`line ${line} ("${s.length > 80 ? s.slice(0, 77) + '…' : s}")`);
      return;
    }
    seen.intern(key);
    if (!seen.added) {
      repeats++;
      return;
    }
    if (!first) first = href;
    size++;
    pending.push(href + '\n');
    pendingBytes += href.length + 1;
    if (pendingBytes >= CHUNK) flush();
  };

  const onLine = (raw: string, line: number) => {
    let text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (carry) {
      text = carry + '\n' + text;
      line = carryLine;
      carry = '';
    } else {
      const t = text.trim();
      if (!t || t.startsWith('#')) return;
    }
    if (!decided) {
      decided = true;
      const delimiter = csv?.delimiter ?? guessDelimiter(text);
      const cell = delimiter ? firstCell(text, delimiter) : null;
      if (delimiter && cell && cell.complete && HEADER_CELL.test(cell.value.trim())) {
        csv = { delimiter };
        return; // a header row
      }
    }
    if (!csv) return take(text, line);
    const cell = firstCell(text, csv.delimiter);
    if (!cell.complete) {
      carry = text;
      carryLine = line;
      return;
    }
    take(cell.value, line);
  };

  let lineNo = 0;
  for (const chunk of chunksOf(input)) {
    let at = 0;
    for (let nl = chunk.text.indexOf('\n'); nl >= 0; nl = chunk.text.indexOf('\n', at)) {
      onLine(chunk.text.slice(at, nl), ++lineNo);
      at = nl + 1;
    }
    chunk.rest(chunk.text.slice(at));
  }
  if (carry) {
    bad.count++;
    if (bad.named.length < NAMED_BAD_LINES) bad.named.push(`line ${carryLine} (a quoted cell that never ends)`);
  }
  flush();

  const from = named ? ` in ${named}` : '';
  if (bad.count > 0) {
    const more = bad.count > bad.named.length ? ` and ${bad.count - bad.named.length} more` : '';
    throw new ServiceError(
      'BAD_LIST',
      `${bad.count === 1 ? 'A line' : `${bad.count} lines`} of the list${from} ${bad.count === 1 ? 'is' : 'are'} not an absolute http(s) URL: ${bad.named.join(', ')}${more}. ` +
        'Write each URL in full (https://www.example.com/page), one a line or in the first column of a CSV; lines starting with # are skipped.',
    );
  }
  if (size === 0) {
    throw new ServiceError('BAD_LIST', `The list${from} holds no URL: give one absolute http(s) URL a line, or a CSV whose first column holds them.`);
  }
  return { size, first, repeats };
}

/**
 * The input's text a piece at a time; each piece's unfinished last line is handed back (`rest`) and
 * put before the next one. The last piece ends with a line break of its own.
 */
function* chunksOf(input: ListInput): Generator<{ text: string; rest(r: string): void }> {
  let rest = '';
  const piece = (text: string) => ({ text: rest + text, rest: (r: string) => void (rest = r) });
  if (typeof input === 'string') {
    for (let at = 0; at < input.length; at += CHUNK) yield piece(input.slice(at, at + CHUNK));
  } else {
    let fd: number;
    try {
      fd = fs.openSync(input.path, 'r');
    } catch (err) {
      throw new ServiceError('BAD_LIST', `The list file ${input.path} cannot be read: ${(err as Error).message}`);
    }
    try {
      const decoder = new StringDecoder('utf8');
      const buf = Buffer.allocUnsafe(CHUNK);
      for (;;) {
        const n = fs.readSync(fd, buf, 0, CHUNK, null);
        if (n === 0) break;
        yield piece(decoder.write(buf.subarray(0, n)));
      }
      const end = decoder.end();
      if (end) yield piece(end);
    } finally {
      fs.closeSync(fd);
    }
  }
  if (rest) yield piece('\n');
}

/** A delimiter the line has (tab, semicolon or comma), or null: a plain list line. */
function guessDelimiter(line: string): string | null {
  if (line.includes('\t')) return '\t';
  if (line.includes(',')) return ',';
  if (line.includes(';')) return ';';
  return null;
}

/** The first cell of a CSV record (RFC 4180 quotes); `complete` false while a quoted cell is open. */
function firstCell(text: string, delimiter: string): { value: string; complete: boolean } {
  let i = 0;
  while (text[i] === ' ') i++;
  if (text[i] !== '"') {
    const end = text.indexOf(delimiter);
    // Quotes later in the record may still be open (a multi-line cell further right).
    return { value: end < 0 ? text : text.slice(0, end), complete: quotesBalanced(text) };
  }
  let value = '';
  for (i++; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      if (text[i + 1] === '"') {
        value += '"';
        i++;
      } else return { value, complete: quotesBalanced(text) };
    } else value += ch;
  }
  return { value, complete: false };
}

function quotesBalanced(text: string): boolean {
  let n = 0;
  for (let at = text.indexOf('"'); at >= 0; at = text.indexOf('"', at + 1)) n++;
  return n % 2 === 0;
}
