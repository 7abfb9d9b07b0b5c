/**
 * 52-bit hashes of uniqueKeys: the hreflang graph keys its nodes (URLs with alternates, and the URLs
 * they name) by them instead of keeping the strings. Two different keys share a hash with a
 * probability of about n²/2⁵³ (1 in 10,000 for a million nodes); the cost of that is one wrong verdict.
 */

/** A 52-bit hash of a string (two independent 32-bit hashes, safe as a JS number, never 0). */
export function hashKey(s: string): number {
  let a = 0x811c9dc5; // FNV-1a
  let b = 0x9747b28c; // murmur-style mixing with another seed
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  b = Math.imul(b ^ (b >>> 16), 0xc2b2ae35);
  b ^= b >>> 16;
  const h = (a & 0xfffff) * 0x100000000 + (b >>> 0);
  return h === 0 ? 1 : h;
}
