/**
 * CarriedSet: which URLs of a recrawl hold a result carried over from its base (a 304, or not fetched
 * in changed-only mode), one bit per URL, set from the RESULT records live and on replay (latest wins).
 * The URL table's carriedOver filter reads it; the row's own flag comes from its RESULT record.
 */
export class CarriedSet {
  private bits = new Uint8Array(0);
  /** How many URLs are marked. */
  size = 0;

  /** Marks (or unmarks) URL `id` as its latest result says. */
  note(id: number, carried: boolean): void {
    const byte = id >>> 3;
    const mask = 1 << (id & 7);
    if (byte >= this.bits.length) {
      if (!carried) return;
      const grown = new Uint8Array(Math.max(1024, byte + 1 + (byte >>> 1)));
      grown.set(this.bits);
      this.bits = grown;
    }
    const was = (this.bits[byte]! & mask) !== 0;
    if (was === carried) return;
    this.bits[byte]! ^= mask;
    this.size += carried ? 1 : -1;
  }

  has(id: number): boolean {
    const byte = id >>> 3;
    return byte < this.bits.length && (this.bits[byte]! & (1 << (id & 7))) !== 0;
  }
}
