/**
 * `s.startsWith(prefix)` for the hot paths (a million URLs at a time): V8's startsWith builtin
 * (Node 20) costs 0.08–0.18 µs a call, a slice compared with === about 0.03 (measured on URLs of
 * 70–100 characters, the prefix a directory or an origin).
 */
export function hasPrefix(s: string, prefix: string, at = 0): boolean {
  if (at > s.length) at = s.length; // as startsWith clamps it
  const end = at + prefix.length;
  return s.length >= end && (at === 0 ? s.slice(0, end) : s.slice(at, end)) === prefix;
}
