/**
 * Typed-array columns that grow in place: a column lives on a resizable ArrayBuffer whose address
 * space is reserved up front (reserving costs no memory), so growing leaves no outgrown copy for the
 * garbage collector to hold at a crawl's peak, and can go in steps of an eighth. Where no buffer can
 * be reserved, or a column outgrows its reservation, growth copies into a larger array.
 */

type Growable = Int32Array | Uint32Array | Int16Array | Uint16Array | Uint8Array | Float64Array;
type GrowableCtor<T extends Growable> = {
  new (length: number): T;
  new (buffer: ArrayBufferLike): T;
  readonly BYTES_PER_ELEMENT: number;
};

/** What Node 20's resizable ArrayBuffer offers (not yet in this TypeScript lib). */
interface ResizableBuffer {
  readonly resizable?: boolean;
  readonly maxByteLength?: number;
  resize?(byteLength: number): void;
}

/** Entries a column reserves room for: 32 Mi (256 MiB of address space for a Float64 column). */
export const RESERVED_ENTRIES = 1 << 25;
/** Smallest capacity a column grows to. */
const MIN_CAPACITY = 1024;

/** A 32-bit process has no address space to reserve for dozens of columns: its columns grow by copying. */
const CAN_RESERVE = process.arch !== 'ia32' && process.arch !== 'arm';

/** An empty column of `ctor`'s type that grows in place (a plain array when the runtime refuses). */
export function column<T extends Growable>(ctor: GrowableCtor<T>, reserve = RESERVED_ENTRIES): T {
  return CAN_RESERVE ? allocate(ctor, 0, reserve) : new ctor(0);
}

/** Next capacity at least `need`, growing by 1.5× from `current` (minimum 1024): copying growth. */
export function nextCapacity(current: number, need: number): number {
  let cap = Math.max(current, MIN_CAPACITY);
  while (cap < need) cap = cap + (cap >> 1);
  return cap;
}

/** Next capacity at least `need`, growing by an eighth (minimum 1024): in-place growth. */
function nextCapacityInPlace(current: number, need: number): number {
  let cap = Math.max(current, MIN_CAPACITY);
  while (cap < need) cap = cap + Math.max(cap >> 3, MIN_CAPACITY);
  return cap;
}

/**
 * Returns `arr` holding at least `need` entries (new slots zero): the same array grown in place
 * when it is a `column()`, otherwise a larger copy.
 */
export function ensureCapacity<T extends Growable>(arr: T, need: number): T {
  if (need <= arr.length) return arr;
  const buf = arr.buffer as ResizableBuffer;
  const bytes = arr.BYTES_PER_ELEMENT;
  if (buf.resizable === true && buf.resize) {
    const cap = nextCapacityInPlace(arr.length, need);
    if (cap * bytes <= buf.maxByteLength!) {
      buf.resize(cap * bytes);
      return arr;
    }
    // Past the reservation: a copy into a larger one.
    const next = allocate(arr.constructor as GrowableCtor<T>, cap, Math.max(cap * 4, RESERVED_ENTRIES));
    next.set(arr as never);
    return next;
  }
  const next = new (arr.constructor as GrowableCtor<T>)(nextCapacity(arr.length, need));
  next.set(arr as never);
  return next;
}

/** True when `arr` grows in place (a `column()` whose runtime gave it a resizable buffer). */
export function growsInPlace(arr: Growable): boolean {
  return (arr.buffer as ResizableBuffer).resizable === true;
}

function allocate<T extends Growable>(ctor: GrowableCtor<T>, length: number, reserve: number): T {
  const bytes = ctor.BYTES_PER_ELEMENT;
  try {
    const Rab = ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => ArrayBuffer;
    const buf = new Rab(length * bytes, { maxByteLength: Math.max(reserve, length) * bytes });
    // No length argument: the array tracks the buffer's length as it grows.
    if ((buf as ResizableBuffer).resizable === true) return new ctor(buf);
  } catch {
    // Address space refused (ulimit -v, a sandbox's cap): a plain array that grows by copying.
  }
  return new ctor(length);
}

/** A 16-bit column widened to 32 bits (same values, same length): for values that outgrew 16 bits. */
export function widened(col: Uint16Array | Int16Array | Int32Array): Int32Array {
  const wide = ensureCapacity(column(Int32Array), col.length);
  wide.set(col);
  return wide;
}
