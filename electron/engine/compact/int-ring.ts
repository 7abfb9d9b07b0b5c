/**
 * A FIFO of non-negative ints kept as runs of consecutive values (start, count), usable from both
 * ends: the pending queue of a frontier. Admissions come in id order, so a million pending URLs
 * are a handful of runs instead of a million slots (4 MB); retries put back out of order cost a
 * run each. Order is exactly that of the pushes.
 */
export class RunRing {
  private starts = new Int32Array(64);
  private counts = new Int32Array(64);
  private head = 0;
  private runs = 0;
  private total = 0;

  /** Values held. */
  get length(): number {
    return this.total;
  }

  pushBack(v: number): void {
    if (this.runs > 0) {
      const last = (this.head + this.runs - 1) & (this.starts.length - 1);
      if (this.starts[last] + this.counts[last] === v) {
        this.counts[last]++;
        this.total++;
        return;
      }
    }
    if (this.runs === this.starts.length) this.grow();
    const slot = (this.head + this.runs) & (this.starts.length - 1);
    this.starts[slot] = v;
    this.counts[slot] = 1;
    this.runs++;
    this.total++;
  }

  pushFront(v: number): void {
    if (this.runs > 0 && this.starts[this.head] === v + 1) {
      this.starts[this.head] = v;
      this.counts[this.head]++;
      this.total++;
      return;
    }
    if (this.runs === this.starts.length) this.grow();
    this.head = (this.head - 1) & (this.starts.length - 1);
    this.starts[this.head] = v;
    this.counts[this.head] = 1;
    this.runs++;
    this.total++;
  }

  /** Removes and returns the front value; -1 when empty. */
  shift(): number {
    if (this.runs === 0) return -1;
    const h = this.head;
    const v = this.starts[h];
    this.total--;
    if (--this.counts[h] === 0) {
      this.head = (h + 1) & (this.starts.length - 1);
      this.runs--;
    } else this.starts[h] = v + 1;
    return v;
  }

  allocatedBytes(): number {
    return this.starts.byteLength + this.counts.byteLength;
  }

  private grow(): void {
    const n = this.starts.length;
    const starts = new Int32Array(n * 2);
    const counts = new Int32Array(n * 2);
    for (let i = 0; i < this.runs; i++) {
      starts[i] = this.starts[(this.head + i) & (n - 1)];
      counts[i] = this.counts[(this.head + i) & (n - 1)];
    }
    this.starts = starts;
    this.counts = counts;
    this.head = 0;
  }
}
