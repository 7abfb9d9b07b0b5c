/**
 * List mode's URL list as the form reads it: one URL a line, or a CSV's first column (a header line
 * allowed), blank lines and # comments skipped, repeats dropped. The service parses the list again
 * and is the judge (BAD_LIST); this check only says early how many URLs the form holds and which
 * lines are no URL. Up to 8 MiB of text: for bigger lists, the CLI's `--list FILE`.
 */

/** The most text a list may hold in the window (the contract's limit on createCrawl's list). */
export const MAX_LIST_BYTES = 8 * 1024 * 1024;
/** How many bad lines a check names. */
const MAX_ERRORS = 5;

export interface ListCheck {
  /** Distinct http(s) URLs. */
  urls: number;
  /** Lines that are URLs again. */
  repeats: number;
  first?: string;
  /** "Line 4: …" for the first few lines that are no http(s) URL. */
  errors: string[];
  /** Every bad line, not only those named. */
  badLines: number;
}

/** A CSV line's first field: quoted ("a,b" with "" inside) or up to the first comma, trimmed. */
export function firstColumn(line: string): string {
  const t = line.trim();
  if (t.startsWith('"')) {
    let out = '';
    for (let i = 1; i < t.length; i++) {
      const ch = t[i]!;
      if (ch === '"') {
        if (t[i + 1] === '"') {
          out += '"';
          i++;
        } else return out.trim();
      } else out += ch;
    }
    return out.trim();
  }
  const comma = t.indexOf(',');
  return (comma < 0 ? t : t.slice(0, comma)).trim();
}

function isHttpUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text) || /\s/.test(text)) return false;
  try {
    return !!new URL(text).hostname;
  } catch {
    return false;
  }
}

/** Checks a list as pasted or read from a file. */
export function checkList(text: string): ListCheck {
  const seen = new Set<string>();
  const errors: string[] = [];
  let repeats = 0;
  let badLines = 0;
  let first: string | undefined;
  let sawContent = false;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '' || raw.startsWith('#')) continue;
    const value = firstColumn(raw);
    const isFirst = !sawContent;
    sawContent = true;
    if (isHttpUrl(value)) {
      const url = new URL(value).toString();
      if (seen.has(url)) repeats++;
      else {
        seen.add(url);
        first ??= url;
      }
      continue;
    }
    // A CSV's header ("Address", "url,status"): its first line, when it names no URL.
    if (isFirst && !/[/:.]/.test(value)) continue;
    badLines++;
    if (errors.length < MAX_ERRORS) {
      const shown = value.length > 60 ? `${value.slice(0, 57)}…` : value;
      errors.push(`Line ${i + 1}: "${shown}" is not an http:// or https:// URL.`);
    }
  }
  return { urls: seen.size, repeats, errors, badLines, ...(first ? { first } : {}) };
}

/** What the form says of a list before it is sent: an error, or null when it can go. */
export function listError(c: ListCheck, bytes: number): string | null {
  if (bytes > MAX_LIST_BYTES)
    return `The list is ${formatMiB(bytes)}: the window takes up to 8 MiB. For a longer list, use the CLI: npm run crawl -- crawl --list FILE`;
  if (c.badLines > 0) {
    const more = c.badLines - c.errors.length;
    return [...c.errors, ...(more > 0 ? [`…and ${more.toLocaleString('en-US')} more lines that are no URL.`] : [])].join('\n');
  }
  if (c.urls === 0) return 'Paste the URLs to fetch, one a line (or a CSV whose first column holds them), or upload a file.';
  return null;
}

/** A file picked for upload: refused before it is read when it is over the limit. */
export function fileTooBig(size: number): string | null {
  return size > MAX_LIST_BYTES
    ? `That file is ${formatMiB(size)}: the window reads lists of up to 8 MiB. For a longer list, use the CLI: npm run crawl -- crawl --list FILE`
    : null;
}

function formatMiB(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** UTF-8 bytes of a text (what the limit counts), without encoding it. */
export function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
