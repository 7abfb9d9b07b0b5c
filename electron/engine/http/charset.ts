/**
 * Turning a page's bytes into text: the charset a browser would pick, decoded with TextDecoder
 * (Node ships full ICU: windows-1252, iso-8859-x, shift_jis, euc-kr, gb18030, …).
 */

/** How far into the body a `<meta charset>` is looked for (the HTML prescan's 1024 bytes). */
const META_PRESCAN_BYTES = 1024;

/**
 * Decodes an HTML (or text) body. The encoding is the first of: a byte order mark (it wins, as in
 * browsers: it cannot be wrong about the bytes it starts), the Content-Type charset, a
 * `<meta charset>` or `<meta http-equiv=content-type>` in the first 1024 bytes, else UTF-8.
 * An unknown label falls through to the next source. Bytes invalid in the encoding become U+FFFD.
 */
export function decodeBody(buf: Uint8Array, contentType?: string): string {
  const encoding = bomEncoding(buf) ?? usableLabel(charsetFromContentType(contentType)) ?? usableLabel(charsetFromMeta(buf), true) ?? 'utf-8';
  if (encoding === 'windows-1252') return decodeWindows1252(buf);
  // ignoreBOM false: the decoder drops a BOM of its own encoding.
  return new TextDecoder(encoding).decode(buf);
}

/**
 * windows-1252 (also what `iso-8859-1`, `latin1` and `ascii` mean on the web), decoded by hand:
 * Node 20.18.3+ and 22.13+ decode it as ISO-8859-1, turning 0x80–0x9F (€ ‘ ’ “ ” – —) into
 * control characters (nodejs/node#60888).
 */
function decodeWindows1252(buf: Uint8Array): string {
  const text = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('latin1');
  return /[\x80-\x9f]/.test(text) ? text.replace(/[\x80-\x9f]/g, (c) => WINDOWS_1252_C1[c.charCodeAt(0) - 0x80]!) : text;
}

/** WHATWG index-windows-1252 for bytes 0x80–0x9F (the rest is ISO-8859-1). */
const WINDOWS_1252_C1 = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d,
  0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
].map((cp) => String.fromCharCode(cp));

/** The `charset` parameter of a Content-Type header value, if any. */
export function charsetFromContentType(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  const m = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  const label = m ? (m[1] ?? m[2]) : undefined;
  return label ? label.trim() : undefined;
}

function bomEncoding(buf: Uint8Array): string | undefined {
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return 'utf-8';
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return 'utf-16be';
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/** `<meta charset=x>` or `<meta http-equiv="content-type" content="…; charset=x">` near the top. */
function charsetFromMeta(buf: Uint8Array): string | undefined {
  const head = Buffer.from(buf.buffer, buf.byteOffset, Math.min(buf.byteLength, META_PRESCAN_BYTES)).toString('latin1');
  const metaTag = /<meta\b[^>]*>/gi;
  for (let m = metaTag.exec(head); m !== null; m = metaTag.exec(head)) {
    const tag = m[0];
    const direct = /\scharset\s*=\s*["']?\s*([^"'\s/>;]+)/i.exec(tag);
    if (direct) return direct[1];
    if (/\shttp-equiv\s*=\s*["']?\s*content-type/i.test(tag)) {
      const content = /\scontent\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*))/i.exec(tag);
      const value = content ? (content[1] ?? content[2] ?? content[3] ?? '') : '';
      const charset = /charset\s*=\s*["']?\s*([^"'\s;]+)/i.exec(value);
      if (charset) return charset[1];
    }
  }
  return undefined;
}

/**
 * The TextDecoder encoding for a label, or undefined when TextDecoder does not know it.
 * From a meta tag, UTF-16 means UTF-8 (HTML spec: the prescan only runs on ASCII-compatible bytes).
 */
function usableLabel(label: string | undefined, fromMeta = false): string | undefined {
  if (!label) return undefined;
  let encoding: string;
  try {
    encoding = new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
  if (fromMeta && encoding.startsWith('utf-16')) return 'utf-8';
  if (fromMeta && encoding === 'x-user-defined') return 'windows-1252';
  return encoding;
}
