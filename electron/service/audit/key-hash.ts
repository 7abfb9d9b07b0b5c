/**
 * 52-bit hashes of uniqueKeys: the hreflang graph keys its nodes (URLs with alternates, and the URLs
 * they name) by them instead of keeping the strings. Two different keys share a hash with a
 * probability of about n²/2⁵³ (1 in 10,000 for a million nodes); the cost of that is one wrong verdict.
 */

/**
 * A 52-bit hash of a string (two independent 32-bit hashes, safe as a JS number, never 0). The
 * characters are taken two at a time, as one 32-bit word (each UTF-16 unit is 16 bits, so the words
 * spell the string exactly), and the length is mixed in at the end: a 70-character URL hashes in about
 * 105 ns instead of 300 one character at a time (the audit hashes every listed URL with alternates and
 * every alternate it names, 600,000 at a million URLs in the benchmark).
 */
export function hashKey(s: string): number {
  let a = 0x811c9dc5; // FNV-1a style
  let b = 0x9747b28c; // murmur-style mixing with another seed
  const n = s.length;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const w = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
    a = Math.imul(a ^ w, 0x01000193);
    b = Math.imul(b ^ w, 0x5bd1e995);
    b ^= b >>> 15;
  }
  if (i < n) {
    const w = s.charCodeAt(i);
    a = Math.imul(a ^ w, 0x01000193);
    b = Math.imul(b ^ w, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a = Math.imul(a ^ n, 0x01000193);
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  b = Math.imul(b ^ (b >>> 16), 0xc2b2ae35);
  b ^= b >>> 16;
  const h = (a & 0xfffff) * 0x100000000 + (b >>> 0);
  return h === 0 ? 1 : h;
}
