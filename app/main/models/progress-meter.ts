// Progress events for one download: speed over a short sliding window (so a
// resumed download does not count reused bytes as speed), ETA from it, and at
// most one event per interval so IPC is not flooded (≤ 10/s by default).
import type { DownloadProgress } from './types.js';

const WINDOW_MS = 3000;

export class ProgressMeter {
  private samples: Array<{ t: number; bytes: number }> = [];
  private lastEmit = -Infinity;

  constructor(
    private readonly id: string,
    private readonly intervalMs = 100,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** (Re)start measuring at `received` bytes (after a resume or a restart from zero). */
  reset(received: number): void {
    this.samples = [{ t: this.now(), bytes: received }];
  }

  private snapshot(received: number, total: number | null): DownloadProgress {
    const t = this.now();
    this.samples.push({ t, bytes: received });
    while (this.samples.length > 2 && t - (this.samples[1]?.t ?? t) > WINDOW_MS) this.samples.shift();
    const first = this.samples[0] ?? { t, bytes: received };
    const dt = (t - first.t) / 1000;
    const bytesPerSecond = dt > 0.05 ? Math.max(0, (received - first.bytes) / dt) : 0;
    const etaSeconds =
      total !== null && bytesPerSecond > 0 ? Math.max(0, Math.round((total - received) / bytesPerSecond)) : null;
    return { id: this.id, receivedBytes: received, totalBytes: total, bytesPerSecond: Math.round(bytesPerSecond), etaSeconds };
  }

  /** An event if the interval has passed since the last one, else null. */
  update(received: number, total: number | null): DownloadProgress | null {
    const t = this.now();
    if (t - this.lastEmit < this.intervalMs) return null;
    this.lastEmit = t;
    return this.snapshot(received, total);
  }

  /** An event now (state changes, completion). */
  flush(received: number, total: number | null): DownloadProgress {
    this.lastEmit = this.now();
    return this.snapshot(received, total);
  }
}
