// The latest `capacity` values of a measurement (a ring), with their percentiles: a long session's
// figures follow what it does now, in bounded memory.
export class RecentValues {
  private readonly values: number[] = [];
  private next = 0;
  /** Values pushed over the whole session (not only those kept). */
  count = 0;

  constructor(private readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError(`RecentValues: capacity must be at least 1, got ${capacity}`);
  }

  /** Values kept (the latest, at most capacity). */
  get kept(): number {
    return this.values.length;
  }

  push(value: number): void {
    if (this.values.length < this.capacity) this.values.push(value);
    else this.values[this.next] = value;
    this.next = (this.next + 1) % this.capacity;
    this.count += 1;
  }

  /** The p-quantile (0 ≤ p ≤ 1, nearest rank) of the kept values; NaN when none was pushed. */
  percentile(p: number): number {
    if (this.values.length === 0) return Number.NaN;
    const sorted = [...this.values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  }
}
