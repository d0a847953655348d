// When the engine comes back after a death: a delay before the n-th restart
// in a row (backoff), no restart at all once it died more than
// `maxCrashesPerMinute` times in a minute (it would only die again), and one
// more try when something asks for the engine after that. The supervisor owns
// the clock and the timer; what a restart does (spawn, reload the model,
// re-send what was in flight) is the host's `restart` callback. Also which
// device a death is blamed on (`blamedDevice`, pure).
import type { EngineOp, EngineRequest } from '../../engine-process/protocol.js';

export const DEFAULT_RESTART_DELAYS_MS: readonly number[] = [0, 500, 2000, 5000];
export const DEFAULT_MAX_CRASHES_PER_MINUTE = 5;
const WINDOW_MS = 60_000;

/** Timers as the supervisor uses them (tests pass their own). */
export interface SupervisorTimers {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: SupervisorTimers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface RestartSupervisorOptions {
  /** Called when a scheduled restart is due. */
  restart: () => void;
  /** Delay before the n-th restart within a minute (the last value repeats). */
  restartDelaysMs?: readonly number[];
  /** More deaths than this within a minute: no restart until revive(). */
  maxCrashesPerMinute?: number;
  now?: () => number;
  timers?: SupervisorTimers;
}

export interface CrashVerdict {
  /** A restart is scheduled, after `delayMs`; false: given up until revive(). */
  restarting: boolean;
  delayMs: number;
  /** Deaths within the last minute, this one included. */
  recent: number;
}

export class RestartSupervisor {
  private crashTimes: number[] = [];
  private timer: unknown = null;
  private gaveUpFlag = false;
  private disposed = false;
  private deaths = 0;

  constructor(private readonly opts: RestartSupervisorOptions) {}

  /** Deaths so far (EngineStatus.restarts). */
  get restarts(): number {
    return this.deaths;
  }

  /** It stopped restarting (too many deaths in a minute). */
  get gaveUp(): boolean {
    return this.gaveUpFlag;
  }

  /** A restart is scheduled and not yet due. */
  get restartPending(): boolean {
    return this.timer !== null;
  }

  /** The engine died: count it and schedule the restart, or give up. */
  crashed(): CrashVerdict {
    const now = this.now();
    this.deaths += 1;
    this.crashTimes = [...this.crashTimes.filter((t) => now - t < WINDOW_MS), now];
    const recent = this.crashTimes.length;
    const restarting = !this.disposed && recent <= (this.opts.maxCrashesPerMinute ?? DEFAULT_MAX_CRASHES_PER_MINUTE);
    if (!restarting) {
      this.gaveUpFlag = !this.disposed;
      return { restarting: false, delayMs: 0, recent };
    }
    const delays = this.opts.restartDelaysMs ?? DEFAULT_RESTART_DELAYS_MS;
    const delayMs = delays[Math.min(recent - 1, delays.length - 1)] ?? 0;
    this.cancel();
    this.timer = this.timers().set(() => {
      this.timer = null;
      if (!this.disposed) this.opts.restart();
    }, delayMs);
    return { restarting: true, delayMs, recent };
  }

  /**
   * After giving up, a new request earns one more try: the count starts again. True when the caller
   * should restart now (nothing is scheduled).
   */
  revive(): boolean {
    if (!this.gaveUpFlag || this.disposed) return false;
    this.gaveUpFlag = false;
    this.crashTimes = [];
    return this.timer === null;
  }

  dispose(): void {
    this.disposed = true;
    this.cancel();
  }

  private cancel(): void {
    if (this.timer !== null) this.timers().clear(this.timer);
    this.timer = null;
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  private timers(): SupervisorTimers {
    return this.opts.timers ?? realTimers;
  }
}

/** Requests that run on the model's device: only a death during one of these is blamed on the device. */
const DEVICE_OPS: ReadonlySet<EngineOp> = new Set(['load', 'transcribe', 'fileWindow', 'selfTest']);

/**
 * The device a death is blamed on, or null: only what ran on a device blames it — a load (the device it
 * asked for; with none, the engine's automatic choice `auto` where known, else the model's), a self-test
 * (its device), a decode (the model's, `current`). A validation runs on the CPU in a separate, short-lived
 * model, and a death with nothing running says nothing about any device.
 */
export function blamedDevice(inFlight: readonly EngineRequest[], current: string | null, auto: string | null = null): string | null {
  const onDevice = inFlight.filter((r) => DEVICE_OPS.has(r.op));
  if (onDevice.length === 0) return null;
  for (const r of onDevice) {
    if (r.op === 'load') return r.options.device ?? auto ?? current;
  }
  for (const r of onDevice) {
    if (r.op === 'selfTest') return r.device ?? current;
  }
  return current;
}
