/**
 * 32-bit hashes of uniqueKeys: the hreflang graph's filter entries and index slots are chosen by them.
 * They never decide an answer: two keys that share a hash (about n²/2³³ pairs among n keys, a hundred
 * at a million) are told apart by the keys themselves, so a collision costs a comparison or a lookup.
 */

/**
 * A 32-bit hash of a string, as a signed integer (`| 0`). The characters are taken two at a time, as
 * one 32-bit word (each UTF-16 unit is 16 bits, so the words spell the string exactly), the length
 * seeds it: a 70-character URL hashes in 35 steps instead of 70. Each step is a bijection of the state
 * for a given word, so keys of one length that differ in a single word never collide.
 */
export function hashKey(s: string): number {
  const n = s.length;
  let h = Math.imul(0x9747b28c ^ n, 0x01000193);
  let i = 0;
  for (; i + 1 < n; i += 2) {
    h = Math.imul(h ^ (s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16)), 0x5bd1e995);
    h ^= h >>> 15;
  }
  if (i < n) {
    h = Math.imul(h ^ s.charCodeAt(i), 0x5bd1e995);
    h ^= h >>> 15;
  }
  // murmur3's finaliser: every bit of the state reaches the low bits (the filter's entry).
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
