// FIFO queue of download ids with a concurrency limit (1 by default: one big
// file at a time finishes sooner and keeps the first model usable early).
export class DownloadQueue {
  private readonly waiting: string[] = [];
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly concurrency: number,
    /** Runs one download; must not reject (failures are states, not exceptions). */
    private readonly start: (id: string) => Promise<void>,
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a positive integer');
  }

  enqueue(id: string): void {
    if (this.waiting.includes(id) || this.running.has(id)) return;
    this.waiting.push(id);
    this.pump();
  }

  /** Take a waiting id out of the queue; false if it was not waiting. */
  remove(id: string): boolean {
    const i = this.waiting.indexOf(id);
    if (i < 0) return false;
    this.waiting.splice(i, 1);
    return true;
  }

  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  /** Position in the waiting line (0 = next), or -1. */
  position(id: string): number {
    return this.waiting.indexOf(id);
  }

  /** Resolves when every running download has returned (used on shutdown). */
  async drain(): Promise<void> {
    this.waiting.length = 0;
    await Promise.all([...this.running.values()]);
  }

  private pump(): void {
    while (this.running.size < this.concurrency && this.waiting.length > 0) {
      const id = this.waiting.shift() as string;
      const p = this.start(id)
        .catch(() => undefined)
        .finally(() => {
          this.running.delete(id);
          this.pump();
        });
      this.running.set(id, p);
    }
  }
}
