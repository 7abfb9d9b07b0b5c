/**
 * A growable ring of int32 values usable from both ends: the pending FIFO of a queue, with
 * `pushFront` for forefront reclaims. Capacity is a power of two.
 */
export class IntRing {
  private buf = new Int32Array(1024);
  private head = 0;
  private len = 0;

  get length(): number {
    return this.len;
  }

  pushBack(v: number): void {
    if (this.len === this.buf.length) this.grow();
    this.buf[(this.head + this.len) & (this.buf.length - 1)] = v;
    this.len++;
  }

  pushFront(v: number): void {
    if (this.len === this.buf.length) this.grow();
    this.head = (this.head - 1) & (this.buf.length - 1);
    this.buf[this.head] = v;
    this.len++;
  }

  /** Removes and returns the front value; -1 when empty. */
  shift(): number {
    if (this.len === 0) return -1;
    const v = this.buf[this.head];
    this.head = (this.head + 1) & (this.buf.length - 1);
    this.len--;
    return v;
  }

  /** The value at position `i` from the front (0 = next out). */
  at(i: number): number {
    return this.buf[(this.head + i) & (this.buf.length - 1)];
  }

  allocatedBytes(): number {
    return this.buf.byteLength;
  }

  private grow(): void {
    const next = new Int32Array(this.buf.length * 2);
    for (let i = 0; i < this.len; i++) next[i] = this.buf[(this.head + i) & (this.buf.length - 1)];
    this.buf = next;
    this.head = 0;
  }
}
