/**
 * The first index of each id of a big collection (responses, email events), in compact memory: the
 * ids' UTF-8 bytes in one growing arena and an open-addressing hash table of typed arrays, about 30
 * bytes an id instead of the ~70 of a Map of strings (a million ids: ~30 MB, not ~70 MB plus the
 * garbage collector's headroom). Exact: a hit compares the bytes.
 */

const EMPTY = -1;

/** FNV-1a over the bytes of `b` from `start` to `end`. */
function hash(b: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return h >>> 0;
}

/** Arena bytes reserved per expected id (a bench response id, `rsp_7c8614bd_123456`, has 19). */
const BYTES_PER_ID = 20;

/** The smallest power of two at least `n`. */
const powerOfTwo = (n: number) => 2 ** Math.ceil(Math.log2(Math.max(1, n)));

export class IdTable {
  private arena: Uint8Array;
  private used = 0;
  /** Per entry: start in the arena, end, and the item index. */
  private starts: Int32Array;
  private ends: Int32Array;
  private indexes: Int32Array;
  private size = 0;
  /** Slots hold entry numbers; EMPTY when free. Kept at most half full. */
  private slots: Int32Array;
  private readonly encoder = new TextEncoder();
  /** The id being looked up, encoded. */
  private buffer = new Uint8Array(256);

  /**
   * @param expected the ids the caller expects (the collection's length, counted by the importer's first pass): the
   *   arrays are made that size at once, so a million ids never pass through doubling copies, each of which held the
   *   old and the new array at the same time (about 30 MB more at the import's peak RSS). More ids still fit: the
   *   arrays then grow by doubling.
   */
  constructor(expected = 0) {
    const entries = powerOfTwo(Math.max(1 << 10, expected));
    this.arena = new Uint8Array(Math.max(1 << 16, expected * BYTES_PER_ID));
    this.starts = new Int32Array(entries);
    this.ends = new Int32Array(entries);
    this.indexes = new Int32Array(entries);
    this.slots = new Int32Array(entries * 2).fill(EMPTY);
  }

  /** The index stored for `id`, or undefined. */
  get(id: string): number | undefined {
    const { bytes, length } = this.encode(id);
    const e = this.slots[this.find(bytes, length)]!;
    return e === EMPTY ? undefined : this.indexes[e];
  }

  /** Stores `index` for `id` unless `id` is there already. @returns the index stored before, or undefined. */
  add(id: string, index: number): number | undefined {
    const { bytes, length } = this.encode(id);
    const slot = this.find(bytes, length);
    const e = this.slots[slot]!;
    if (e !== EMPTY) return this.indexes[e];
    if (this.used + length > this.arena.length) this.arena = grow(this.arena, this.used + length);
    this.arena.set(bytes.subarray(0, length), this.used);
    if (this.size === this.starts.length) {
      this.starts = grow(this.starts, this.size + 1);
      this.ends = grow(this.ends, this.size + 1);
      this.indexes = grow(this.indexes, this.size + 1);
    }
    this.starts[this.size] = this.used;
    this.ends[this.size] = this.used + length;
    this.indexes[this.size] = index;
    this.used += length;
    this.slots[slot] = this.size++;
    if (this.size * 2 > this.slots.length) this.rehash();
    return undefined;
  }

  private encode(id: string): { bytes: Uint8Array; length: number } {
    if (id.length * 3 > this.buffer.length) this.buffer = new Uint8Array(id.length * 3);
    const { written } = this.encoder.encodeInto(id, this.buffer);
    return { bytes: this.buffer, length: written };
  }

  /** The slot of the id in `bytes[0, length)`: its entry's, or the free one where it would go. */
  private find(bytes: Uint8Array, length: number): number {
    const mask = this.slots.length - 1;
    for (let s = hash(bytes, 0, length) & mask; ; s = (s + 1) & mask) {
      const e = this.slots[s]!;
      if (e === EMPTY || this.equals(e, bytes, length)) return s;
    }
  }

  private equals(e: number, bytes: Uint8Array, length: number): boolean {
    const start = this.starts[e]!;
    if (this.ends[e]! - start !== length) return false;
    for (let i = 0; i < length; i++) if (this.arena[start + i] !== bytes[i]) return false;
    return true;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2).fill(EMPTY);
    const mask = this.slots.length - 1;
    for (let e = 0; e < this.size; e++) {
      let s = hash(this.arena, this.starts[e]!, this.ends[e]!) & mask;
      while (this.slots[s] !== EMPTY) s = (s + 1) & mask;
      this.slots[s] = e;
    }
  }
}

/** A copy of `a` with room for at least `need` elements (doubling). */
function grow<T extends Uint8Array | Int32Array>(a: T, need: number): T {
  let n = a.length * 2;
  while (n < need) n *= 2;
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}
