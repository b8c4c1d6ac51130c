/**
 * A growing list of float64 in one typed array, doubling as it fills: a
 * run's ITL samples (48 a request, 100,000 and more in a run) are copied in
 * a request at a time, where a plain array took them one push at a time and
 * was copied again into a typed array to be sorted.
 */
export class Floats {
  private buf: Float64Array;
  length = 0;

  constructor(capacity = 64) {
    this.buf = new Float64Array(Math.max(1, capacity));
  }

  push(v: number): void {
    if (this.length === this.buf.length) this.grow(this.length + 1);
    this.buf[this.length++] = v;
  }

  /** Appends every value of `values` (a typed array is copied whole). */
  pushAll(values: ArrayLike<number>): void {
    if (this.length + values.length > this.buf.length) this.grow(this.length + values.length);
    this.buf.set(values, this.length);
    this.length += values.length;
  }

  /** The values so far: a view, valid until the next push. */
  view(): Float64Array {
    return this.buf.subarray(0, this.length);
  }

  private grow(need: number): void {
    let capacity = this.buf.length * 2;
    while (capacity < need) capacity *= 2;
    const next = new Float64Array(capacity);
    next.set(this.view());
    this.buf = next;
  }
}
