/**
 * Growth of typed-array columns: capacity grows by half again (not doubling) so a column
 * near a million entries never holds twice what it needs.
 */

type Growable = Int32Array | Uint32Array | Uint16Array | Uint8Array | Float64Array;

/** Next capacity at least `need`, growing by 1.5× from `current` (minimum 1024). */
export function nextCapacity(current: number, need: number): number {
  let cap = Math.max(current, 1024);
  while (cap < need) cap = cap + (cap >> 1);
  return cap;
}

/** Returns `arr` when it holds `need` entries, otherwise a larger copy (new slots zero). */
export function ensureCapacity<T extends Growable>(arr: T, need: number): T {
  if (need <= arr.length) return arr;
  const next = new (arr.constructor as new (n: number) => T)(nextCapacity(arr.length, need));
  next.set(arr as never);
  return next;
}
