/**
 * JSON text written by hand where JSON.stringify's generality costs more than the data: the journal's
 * records and the parse worker's URL items (a million of each at a time).
 */

/** A string that needs no escaping in JSON (no quote, backslash, control character or surrogate). */
export const PLAIN_JSON = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** JSON.stringify of a string, faster for the common plain ones (URLs, dates). */
export function jsonString(s: string): string {
  return PLAIN_JSON.test(s) ? '"' + s + '"' : JSON.stringify(s);
}

/** The usual priorities (0.0, 0.1 … 1.0) as JSON, ready: a number's text costs more than the rest of an entry. */
const PRIORITY_TEXT = Array.from({ length: 11 }, (_, i) => String(i / 10));

/** A sitemap priority as JSON (the usual ones from a table; null for NaN and infinities, as JSON.stringify). */
export function priorityText(p: number): string {
  const tenths = Math.round(p * 10);
  // tenths / 10 is the same double as p exactly when p is that tenth, so the texts are the same too.
  if (tenths >= 0 && tenths <= 10 && tenths / 10 === p) return PRIORITY_TEXT[tenths]!;
  return Number.isFinite(p) ? String(p) : 'null';
}
