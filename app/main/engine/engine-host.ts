// EngineHost: main's handle on the engine. It spawns the engine process (or
// the inline core), speaks the request/response protocol, runs everything
// that uses the resident model one at a time in priority order (the engine
// itself answers BUSY to a second concurrent call), and survives the engine's
// death: it restarts the process with backoff, reports the device that was in
// use (when the request that died ran on it) so the registry marks it failed,
// reloads the model on the device the registry picks (the CPU after a GPU
// fault) and re-runs each request that was in flight once, except a model
// validation or a file transcription: their input may be what killed it.
// After every load on a device that is not the CPU it runs the device's
// known-answer self-test (self-test.ts) before the model is reported ready; a
// failed test is reported like a fault (the registry marks the device) and the
// model goes to the next device, as after a crash.
// Idle unload: after `idleUnloadMs` without a model call and with nothing in
// use (a dictation session), the model is unloaded from the engine (which
// stays alive) and the state says 'idle-unloaded'; the next call that needs it
// reloads the same file with the same options first, in the lane, so it simply
// waits a little longer.
import type { DeviceSelfTest, EngineState, EngineStatus, IpcError, Notice } from '../../ipc/contract.js';
import type { BuildInfo, DeviceInfo, ModelInfo } from '../../../native/index.js';
import type { Logger } from '../log.js';
import { TypedEmitter } from '../models/typed-emitter.js';
import {
  CodedError, type CrashWhen, type EngineLoadOptions, type EngineOp, type EngineRequest, type EngineResponseMap, type EngineToHost,
  type EngineTranscribeOptions, type EngineTranscript, type SelfTestCorruption,
} from './protocol.js';
import { forkTransport, inlineTransport, type EngineTransport, type ExitInfo, type TransportFactory } from './transport.js';

/**
 * Lane priorities: lower runs first; equal priorities run in arrival order. Live dictation (finals, then
 * partials) goes before batch work: a file job runs one window per lane job, and a window that is running
 * when a final or a partial arrives is stopped (the engine's abort flag) and run again after it.
 */
export const PRIORITY = { load: 0, final: 1, partial: 2, file: 3 } as const;
export type DecodePriority = keyof typeof PRIORITY;
/**
 * Validations (a whole model loaded on the CPU) wait behind finals like a file job: run beside a decode
 * they would slow dictation down, and a crash could not be told apart from the decode's.
 */
const VALIDATE_PRIORITY = PRIORITY.file;
/**
 * An asked-for self-test (two short encodes and a CPU twin load) waits behind finals for the same reason;
 * a partial decode is skipped while it runs, never queued.
 */
const SELF_TEST_PRIORITY = PRIORITY.file;
/**
 * Longest window of a file job (s): one lane step. The engine plans the cut points (windows.ts, the same
 * planner as its one-call pass with this maxWindowSec), so the windows are where the engine would cut.
 * At ~25× real time on 2 cores a 20 s window is a ~0.8 s step, which a dictation decode preempts.
 */
export const FILE_WINDOW_SEC = 20;
/**
 * A file window preempted this many times in a row runs to its end the next time: a file job always makes
 * progress, even under dictation that never pauses long enough for a whole window.
 */
export const MAX_FILE_PREEMPTIONS = 3;
/** Each failed self-test removes a device from the registry's choice; this bounds the walk to the CPU. */
const MAX_SELF_TEST_FALLBACKS = 8;

export interface EngineHostOptions {
  mode: 'process' | 'inline';
  log: Logger;
  /** Defaults: fork for 'process', the in-process core for 'inline'. Electron passes utilityTransport(utilityProcess). */
  transport?: TransportFactory;
  /** Allow the test triggers: crash, self-test corruption (tests). */
  testHooks?: boolean;
  /** Device for the reload after a crash (failed devices excluded); undefined = the engine's automatic choice. */
  deviceAfterCrash?: () => string | undefined;
  /** Delay before the n-th consecutive restart (last value repeats). */
  restartDelaysMs?: readonly number[];
  /** More crashes than this within a minute: stop restarting until something asks for the engine again. */
  maxCrashesPerMinute?: number;
  readyTimeoutMs?: number;
  /** Unload the model after this long without use (ms); 0 = never. Changed later with setIdleUnload(). */
  idleUnloadMs?: number;
  /** Something holds the model even while no call runs (a dictation session in a pause); checked before an idle unload. */
  inUse?: () => boolean;
  /** Clock for the idle timer (tests). */
  now?: () => number;
}

/** EngineStatus with the addon's whole ModelInfo: main's own view (contract-mapping.ts slims it for IPC). */
export interface EngineHostStatus extends Omit<EngineStatus, 'model'> {
  model: ModelInfo | null;
}

export interface CrashInfo {
  /** The device that was in use (marked failed by the registry), null when the crash cannot be blamed on one. */
  device: string | null;
  reason: string;
}

export interface EngineHostEvents {
  status: [EngineHostStatus];
  notice: [Notice];
  crashed: [CrashInfo];
  restarted: [{ model: ModelInfo | null }];
  /** Devices that ran a decode (for the device view's "running on"). */
  ran: [{ devicesRan: string[] }];
  /** A device self-test finished (after a load or on request); a failed one marks the device (registry). */
  selfTest: [DeviceSelfTest];
}

interface Pending {
  id: number;
  request: EngineRequest;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** Re-run once after a crash; a second crash fails it. */
  retried: boolean;
  sent: boolean;
  /** The host's own reload after a restart: never re-sent (the next restart reloads again). */
  internal: boolean;
  onProgress?: (fraction: number) => void;
}

interface LaneJob {
  priority: number;
  seq: number;
  run: () => void;
  /** A step of a file job that yields: called (once) when more urgent work arrives while it runs. */
  preempt?: () => void;
  /** A file job's step (preemptible or not): a partial waits behind it instead of being skipped. */
  step?: boolean;
  /** What the job does, in words, when it holds live dictation up (a load, a check, a self-test). */
  what?: string;
}

/** Requests that run on the model's device: only a death during one of these is blamed on the device. */
const DEVICE_OPS: ReadonlySet<EngineOp> = new Set(['load', 'transcribe', 'transcribeFile', 'fileWindow', 'selfTest']);
/**
 * Requests not re-run after a death: a model file being checked or an audio file being read may be the
 * very thing that kills the engine, and a re-run would kill it again (and cost another reload). A
 * self-test's device is marked failed by the death itself; the reload goes elsewhere.
 */
const NOT_RETRIED: Partial<Record<EngineOp, string>> = {
  validate: 'while checking this model file; it was not tried again, since the file itself may have caused it',
  transcribeFile: 'while transcribing this file; it was not tried again, since the file itself may have caused it',
  fileOpen: 'while reading this file; it was not tried again, since the file itself may have caused it',
  fileWindow: 'while transcribing this file; it was not tried again, since the file itself may have caused it',
  selfTest: 'during the device self-test; the device is marked failed and the test was not run again',
};

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

function aborted(): CodedError {
  return new CodedError('ABORTED', 'cancelled');
}

export class EngineHost extends TypedEmitter<EngineHostEvents> {
  readonly mode: 'process' | 'inline';
  private readonly log: Logger;
  private readonly engineLog: Logger;
  private readonly factory: TransportFactory;
  private transport: EngineTransport | null = null;
  private generation = 0;
  private alive = false;
  private readyWaiter: { resolve: () => void; reject: (e: Error) => void } | null = null;
  private state: EngineState = 'starting';
  private available = false;
  private build: BuildInfo | null = null;
  private model: ModelInfo | null = null;
  private modelId: string | null = null;
  private modelPath: string | null = null;
  private loadOptions: EngineLoadOptions = {};
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private restarts = 0;
  private crashTimes: number[] = [];
  private gaveUp = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private lastError: IpcError | null = null;
  private disposed = false;
  private readonly laneQueue: LaneJob[] = [];
  private laneBusy = false;
  private laneCurrent: LaneJob | null = null;
  private laneSeq = 0;
  private started: Promise<void> | null = null;
  /** While a restarted engine reloads the model, other requests wait (they would find no model). */
  private holding = false;
  /** The model was unloaded for idleness: `model`, `modelPath` and `loadOptions` describe what to reload. */
  private idleUnloaded = false;
  /**
   * Automatic self-tests passed in this run, by device + file + load options. Only the reload after an idle
   * unload reuses one: same device, same file, nothing happened to the device meanwhile, and repeating the
   * test would add its two encodes (and a CPU twin's load) to every first dictation after a pause.
   */
  private readonly passedChecks = new Set<string>();
  private idleMs: number;
  private idleTimer: NodeJS.Timeout | null = null;
  private lastUse: number;

  constructor(private readonly opts: EngineHostOptions) {
    super();
    this.mode = opts.mode;
    this.log = opts.log;
    this.engineLog = opts.log.child('process');
    this.factory = opts.transport ?? (opts.mode === 'inline' ? inlineTransport : forkTransport);
    this.idleMs = opts.idleUnloadMs ?? 0;
    this.lastUse = this.now();
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  // ------------------------------------------------------------ lifecycle

  /** Starts the engine; resolves once it answered (available or missing). Idempotent. */
  start(): Promise<void> {
    this.started ??= this.spawn().catch((error: unknown) => {
      this.log.error('engine did not start', error);
    });
    return this.started;
  }

  private spawn(): Promise<void> {
    const generation = ++this.generation;
    this.alive = false;
    const ready = new Promise<void>((resolve, reject) => {
      this.readyWaiter = { resolve, reject };
    });
    const timeout = setTimeout(() => {
      if (generation !== this.generation || this.alive) return;
      this.log.error('engine process did not answer in time; killing it');
      this.transport?.kill();
      this.onExit(generation, { code: null, signal: 'timeout' });
    }, this.opts.readyTimeoutMs ?? 30_000);
    try {
      this.transport = this.factory(
        {
          message: (message) => {
            if (generation === this.generation) this.onMessage(message);
          },
          exit: (info) => this.onExit(generation, info),
        },
        { testHooks: this.opts.testHooks ?? false, log: this.engineLog },
      );
    } catch (error) {
      clearTimeout(timeout);
      this.readyWaiter = null;
      this.available = false;
      this.lastError = { code: 'ENGINE_MISSING', message: (error as Error).message };
      this.setState('missing');
      return Promise.resolve();
    }
    return ready.finally(() => clearTimeout(timeout));
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    for (const p of this.pending.values()) p.reject(new CodedError('ABORTED', 'the app is shutting down'));
    this.pending.clear();
    this.generation += 1; // ignore the exit we cause
    this.transport?.kill();
    this.transport = null;
    this.alive = false;
  }

  // ------------------------------------------------------------ status

  status(): EngineHostStatus {
    const state: EngineState = this.state === 'ready' && this.laneBusy ? 'busy' : this.state;
    return {
      state,
      mode: this.mode,
      model: this.model,
      modelId: this.modelId,
      restarts: this.restarts,
      lastError: this.lastError,
      pid: this.alive ? this.transport?.pid ?? null : null,
    };
  }

  get pid(): number | null {
    return this.alive ? this.transport?.pid ?? null : null;
  }

  get engineAvailable(): boolean {
    return this.available;
  }

  get buildInfo(): BuildInfo | null {
    return this.build;
  }

  get loadedModel(): ModelInfo | null {
    return this.model;
  }

  /** True while a decode or load runs or waits (a partial decode would only queue behind it). */
  get busy(): boolean {
    return this.laneBusy || this.laneQueue.length > 0;
  }

  /**
   * A partial is skipped (never queued) when it would wait behind other live work or a long job (a load,
   * a validation, a self-test); behind a file window it waits: the window yields to it.
   */
  private partialWouldWait(): boolean {
    if (this.laneQueue.some((j) => !j.step)) return true;
    return this.laneBusy && !this.laneCurrent?.step;
  }

  /**
   * What holds live dictation up now, in words ("loading the model"), or null: a job that a partial is
   * skipped behind and a final waits for. A file window never does (it yields).
   */
  liveHeldBy(): string | null {
    const running = this.laneCurrent;
    if (running && !running.step && running.priority !== PRIORITY.final && running.priority !== PRIORITY.partial) {
      return running.what ?? 'busy';
    }
    return null;
  }

  /** True while a file job holds the lane or waits in it (the dictation view says live text goes first). */
  get fileJobActive(): boolean {
    return this.fileJobs > 0;
  }
  private fileJobs = 0;

  private setState(state: EngineState): void {
    this.state = state;
    // Busy/idle flips are not announced: they happen several times a second during dictation.
    this.emit('status', { ...this.status(), state });
  }

  // ------------------------------------------------------------ public operations

  async loadModel(path: string, options: EngineLoadOptions & { modelId?: string | null } = {}): Promise<ModelInfo> {
    const { modelId = null, ...loadOptions } = options;
    return this.inLane(PRIORITY.load, async () => {
      const before = this.state;
      this.setState('loading');
      let info: ModelInfo;
      try {
        info = await this.request({ op: 'load', path, options: loadOptions });
        this.model = info;
        this.modelId = modelId;
        this.modelPath = path;
        this.loadOptions = loadOptions;
        this.idleUnloaded = false;
        this.lastError = null;
        this.log.info(`model loaded: ${info.name || path} on ${info.device.device.name} in ${info.loadMs.toFixed(0)} ms`);
      } catch (error) {
        this.lastError = { code: (error as CodedError).code ?? 'INTERNAL', message: (error as Error).message };
        // The engine keeps the previous model when a load fails (none resident after an idle unload).
        this.setState(this.idleUnloaded ? 'idle-unloaded' : this.model ? 'ready' : before === 'missing' ? 'missing' : 'no-model');
        throw error;
      }
      // Still 'loading': a model on a device that computes wrong is not ready. If the engine dies during the
      // test, the error goes to the caller and the crash path marks the device and reloads elsewhere.
      await this.checkLoadedDevice(false);
      this.setState('ready');
      return this.model ?? info;
    });
  }

  async unloadModel(): Promise<void> {
    await this.inLane(PRIORITY.load, async () => {
      await this.request({ op: 'unload' });
      this.model = null;
      this.modelId = null;
      this.modelPath = null;
      this.idleUnloaded = false;
      this.setState('no-model');
    });
  }

  /**
   * Decodes PCM with the resident model. `skipIfBusy` (partial text): resolves null at once when the lane is
   * occupied or has work waiting, so partial decodes never pile up behind real work.
   */
  async transcribe(
    pcm: Float32Array,
    options: EngineTranscribeOptions,
    how: { priority: DecodePriority; skipIfBusy?: boolean; signal?: AbortSignal },
  ): Promise<EngineTranscript | null> {
    if (how.skipIfBusy && (this.partialWouldWait() || this.idleUnloaded)) {
      // A partial is not worth waiting a model load for; the reload starts now and the next one runs.
      this.wake();
      return null;
    }
    return this.inLane(PRIORITY[how.priority], async () => {
      if (how.signal?.aborted) throw aborted();
      await this.reloadIfIdle();
      const result = await this.request({ op: 'transcribe', pcm, options }, { signal: how.signal });
      this.emit('ran', { devicesRan: result.devicesRan });
      return result;
    });
  }

  /**
   * Transcribes a WAV file the engine reads, one window per lane step (windows planned where the engine's
   * own long-audio pass cuts with `maxWindowSec`, default FILE_WINDOW_SEC), so finals and partials of a live
   * session run between windows; a running window yields to them (stopped, then run again). Each window is
   * normalized with its own mel statistics (the engine's one-call pass uses the whole clip's): the cut points
   * are the same, the features of a window can differ slightly.
   */
  async transcribeFile(
    path: string,
    options: EngineTranscribeOptions,
    how: { signal?: AbortSignal; onProgress?: (fraction: number, audio?: { doneSec: number; totalSec: number }) => void } = {},
  ): Promise<EngineTranscript> {
    if (how.signal?.aborted) throw aborted();
    const model = this.model;
    if (!model) throw new CodedError('NO_MODEL', 'No model is loaded. Download or import a model in Models first.');
    this.fileJobs += 1;
    try {
      const { maxWindowSec = FILE_WINDOW_SEC, ...decodeOptions } = options;
      // Reading and planning use no model: outside the lane, beside a decode.
      const opened = await this.request(
        { op: 'fileOpen', path, sampleRate: model.sampleRate, maxWindowSec, align: model.hopLength * model.subsamplingFactor },
        { signal: how.signal },
      );
      const parts: EngineTranscript[] = [];
      const totalSec = opened.samples / opened.sampleRate;
      how.onProgress?.(0, { doneSec: 0, totalSec });
      try {
        for (let index = 0; index < opened.windows.length; index += 1) {
          parts.push(await this.fileStep(opened.handle, index, decodeOptions, how.signal));
          const end = opened.windows[index]!.end;
          how.onProgress?.(opened.samples === 0 ? 1 : end / opened.samples, { doneSec: end / opened.sampleRate, totalSec });
        }
      } finally {
        this.request({ op: 'fileClose', handle: opened.handle }).catch(() => undefined);
      }
      return joinWindows(parts, opened.samples / opened.sampleRate);
    } finally {
      this.fileJobs -= 1;
    }
  }

  /** One window of a file job in the lane; stopped and queued again when live work arrives (bounded). */
  private async fileStep(handle: number, index: number, options: EngineTranscribeOptions, signal?: AbortSignal): Promise<EngineTranscript> {
    for (let preempted = 0; ; preempted += 1) {
      // Cancelled between two windows: the abort event has fired already, so look before listening.
      if (signal?.aborted) throw aborted();
      const step = new AbortController();
      const onAbort = (): void => step.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      let yielded = false;
      try {
        return await this.inLane(PRIORITY.file, async () => {
          if (step.signal.aborted || signal?.aborted) throw aborted();
          await this.reloadIfIdle();
          const result = await this.request({ op: 'fileWindow', handle, index, options }, { signal: step.signal });
          this.emit('ran', { devicesRan: result.devicesRan });
          return result;
        }, {
          step: true,
          preempt: preempted < MAX_FILE_PREEMPTIONS ? () => {
            yielded = true;
            step.abort();
          } : undefined,
        });
      } catch (error) {
        if (yielded && !signal?.aborted && (error as CodedError).code === 'ABORTED') {
          this.log.debug(`file window ${index} yielded to live dictation (${preempted + 1})`);
          continue;
        }
        throw error;
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    }
  }

  /**
   * Loads `path` once in a separate model (the resident one is untouched) to prove it is a usable model.
   * In the lane (after finals), so it never runs beside a decode.
   */
  validate(path: string, signal?: AbortSignal): Promise<ModelInfo> {
    return this.inLane(VALIDATE_PRIORITY, async () => {
      if (signal?.aborted) throw aborted();
      return this.request({ op: 'validate', path }, { signal });
    }, { what: 'checking a model file' });
  }

  listDevices(): Promise<DeviceInfo[]> {
    return this.request({ op: 'listDevices' });
  }

  /** A quick CPU measurement (first run); in the lane behind live work, since it uses the same cores. */
  probeSpeed(threads: number): Promise<{ gflops: number; threads: number }> {
    return this.inLane(PRIORITY.file, () => this.request({ op: 'probeSpeed', threads }), { use: false, what: 'measuring this CPU' });
  }

  /**
   * The known-answer self-test of `device` (absent: the model's device) with the loaded model, after the
   * finals waiting. A failure is reported (`selfTest`; the registry marks the device) and, when the device
   * was in use, the model is reloaded on the registry's next choice, which is checked in turn.
   */
  selfTest(device?: string): Promise<DeviceSelfTest> {
    return this.inLane(SELF_TEST_PRIORITY, async () => {
      if (!this.model) throw new CodedError('NO_MODEL', 'No model is loaded; load one first: the self-test runs the loaded model.');
      await this.reloadIfIdle();
      const result = await this.request({ op: 'selfTest', device, trigger: 'manual' });
      if (await this.settleSelfTest(result, false)) {
        await this.checkLoadedDevice(false);
        this.setState(this.model ? 'ready' : 'no-model');
      }
      return result;
    }, { what: 'running a device self-test' });
  }

  /** Test trigger (needs testHooks): the next self-test's device output is corrupted before the comparison. */
  corruptNextSelfTest(how: SelfTestCorruption): Promise<null> {
    return this.request({ op: 'corruptSelfTest', how });
  }

  /** Test trigger (needs testHooks): kill the engine now or right after the next transcription starts. */
  crash(when: CrashWhen): Promise<null> {
    return this.request({ op: 'crash', when });
  }

  // ------------------------------------------------------------ idle unload

  /** Unload the model after `ms` without use; 0 = never (a model unloaded for idleness stays so until used). */
  setIdleUnload(ms: number): void {
    this.idleMs = Math.max(0, ms);
    this.scheduleIdle();
  }

  /** The model was unloaded for idleness and comes back at the next use. */
  get unloadedForIdle(): boolean {
    return this.idleUnloaded;
  }

  /** Something is about to use the model (a dictation starts): reload it now if it was unloaded for idleness. */
  wake(): void {
    this.touch();
    if (!this.idleUnloaded) return;
    this.inLane(PRIORITY.load, () => this.reloadIfIdle()).catch((error: unknown) => {
      this.log.warn('reloading the model after the idle unload failed', error);
    });
  }

  private touch(): void {
    this.lastUse = this.now();
    this.scheduleIdle();
  }

  private scheduleIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.idleMs <= 0 || !this.modelPath || this.idleUnloaded || this.disposed) return;
    const wait = Math.max(0, this.lastUse + this.idleMs - this.now());
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      this.idleCheck();
    }, wait);
    // The idle timer alone must not keep a CLI or a test process alive.
    this.idleTimer.unref();
  }

  /** Whether the model may go now: idle long enough, nothing running or queued, nothing holding it. */
  private idleExpired(): boolean {
    const quiet = this.now() - this.lastUse >= this.idleMs;
    return this.idleMs > 0 && quiet && !this.idleUnloaded && this.model !== null && this.state === 'ready' &&
      this.laneQueue.length === 0 && !(this.opts.inUse?.() ?? false);
  }

  private idleCheck(): void {
    if (this.laneBusy || !this.idleExpired()) {
      // Held (a session in a pause) or used meanwhile: count the idle time from now.
      if (this.laneBusy || this.opts.inUse?.()) this.lastUse = this.now();
      this.scheduleIdle();
      return;
    }
    this.inLane(PRIORITY.load, async () => {
      // Checked again in the lane: a call may have arrived while this job waited.
      if (!this.idleExpired()) return;
      await this.request({ op: 'unload' });
      if (!this.model || this.state !== 'ready') return; // a crash or an explicit unload got there first
      this.idleUnloaded = true;
      this.log.info(`model unloaded after ${Math.round(this.idleMs / 1000)} s without use; it reloads at the next use`);
      this.setState('idle-unloaded');
    }, { use: false }).catch((error: unknown) => this.log.warn('the idle unload failed', error));
  }

  /** In the lane, before a call that needs the model: brings back a model unloaded for idleness (same file and options). */
  private async reloadIfIdle(): Promise<void> {
    if (!this.idleUnloaded || !this.modelPath) return;
    this.setState('loading');
    try {
      this.model = await this.request({ op: 'load', path: this.modelPath, options: this.loadOptions });
    } catch (error) {
      this.lastError = { code: (error as CodedError).code ?? 'INTERNAL', message: (error as Error).message };
      if (this.state === 'loading') this.setState('idle-unloaded');
      throw error;
    }
    this.idleUnloaded = false;
    this.log.info(`model reloaded after the idle unload in ${this.model.loadMs.toFixed(0)} ms`);
    // Same device as before: checked again unless it already passed with this file and these options.
    await this.checkLoadedDevice(false, { reusePassed: true });
    this.setState('ready');
  }

  // ------------------------------------------------------------ device self-test

  /**
   * After a load: the self-test of the model's device unless it is the CPU (the automatic check has nothing
   * independent to compare the CPU with; the asked-for one uses the scheduler path). Each failure moves the
   * model to the next device, which is checked again, down to the CPU. Rethrows ENGINE_CRASHED (the crash
   * path owns what follows); a test that cannot run otherwise is reported and the device kept.
   */
  private async checkLoadedDevice(internal: boolean, how: { reusePassed?: boolean } = {}): Promise<void> {
    for (let round = 0; round < MAX_SELF_TEST_FALLBACKS; round += 1) {
      const device = this.model?.device.device;
      if (!device || device.type === 'cpu') return;
      const key = JSON.stringify([device.name, this.modelPath, { ...this.loadOptions, device: undefined }]);
      if (how.reusePassed && this.passedChecks.has(key)) {
        this.log.info(`self-test of ${device.name} skipped: it passed with this model earlier in this run`);
        return;
      }
      let result: DeviceSelfTest;
      try {
        result = await this.request({ op: 'selfTest', trigger: 'load' }, { internal });
      } catch (error) {
        if ((error as CodedError).code === 'ENGINE_CRASHED' || this.disposed) throw error;
        this.log.warn(`the self-test of ${device.name} could not run`, error);
        this.emit('notice', {
          level: 'warning',
          code: 'DEVICE_SELF_TEST_INCOMPLETE',
          message: `The self-test of ${device.name} could not run (${(error as Error).message}); its results are not checked.`,
          action: 'Run the self-test again from Devices, or choose the CPU there.',
        });
        return;
      }
      if (result.passed) this.passedChecks.add(key);
      if (!(await this.settleSelfTest(result, internal))) return;
    }
  }

  /**
   * Reports a self-test; after a failure on the device in use, reloads the model on the registry's next
   * choice (asked after the report, so the failed device is already excluded). True when it reloaded.
   */
  private async settleSelfTest(result: DeviceSelfTest, internal: boolean): Promise<boolean> {
    this.emit('selfTest', result);
    const figures = `relative error ${result.relL2 ?? 'n/a'}, tokens ${result.tokensMatch ? 'equal' : 'differ'}, ${result.durationMs} ms`;
    if (result.passed) {
      this.log.info(`self-test of ${result.device} passed (${figures})`);
      return false;
    }
    this.log.error(`self-test of ${result.device} failed: ${result.detail} (${figures})`);
    const inUse = this.model !== null && same(this.model.device.device.name, result.device);
    if (!inUse || !this.modelPath) {
      this.emit('notice', {
        level: 'warning',
        code: 'DEVICE_SELF_TEST_FAILED',
        message: `The self-test of ${result.device} failed: ${result.detail}. It is marked unusable for this run.`,
        action: 'Restart the app to try it again (after a driver update, for example).',
      });
      return false;
    }
    const options: EngineLoadOptions = { ...this.loadOptions, device: this.opts.deviceAfterCrash?.() };
    this.setState('loading');
    try {
      this.model = await this.request({ op: 'load', path: this.modelPath, options }, { internal });
      this.loadOptions = options;
    } catch (error) {
      if ((error as CodedError).code === 'ENGINE_CRASHED') throw error;
      this.lastError = { code: (error as CodedError).code ?? 'INTERNAL', message: (error as Error).message };
      this.log.error('could not reload the model after the failed self-test', error);
      // The engine kept the model it had; the registry no longer offers its device for the next load.
      this.setState(this.model ? 'ready' : 'no-model');
      this.emit('notice', {
        level: 'error',
        code: 'DEVICE_SELF_TEST_FAILED',
        message: `The self-test of ${result.device} failed: ${result.detail}. The model could not be moved to another device ` +
          `(${(error as Error).message}).`,
        action: 'Choose the CPU in Devices.',
      });
      return false;
    }
    const now = this.model.device.device.name;
    this.log.info(`model reloaded on ${now} after the failed self-test of ${result.device}`);
    this.emit('notice', {
      level: 'warning',
      code: 'DEVICE_SELF_TEST_FAILED',
      message: `The self-test of ${result.device} failed: ${result.detail}. It is marked unusable for this run; ` +
        `the engine continues on ${now}.`,
      action: 'Restart the app to try the device again (after a driver update, for example).',
    });
    return true;
  }

  // ------------------------------------------------------------ lane

  /**
   * `use`: the job is a use of the model (every job but the idle unload itself), which restarts the idle timer.
   * `step`/`preempt`: a file job's window (LaneJob).
   */
  private inLane<T>(
    priority: number,
    work: () => Promise<T>,
    how: { use?: boolean; step?: boolean; preempt?: () => void; what?: string } = {},
  ): Promise<T> {
    const use = how.use ?? true;
    return new Promise<T>((resolve, reject) => {
      const running = this.laneCurrent;
      // Only live dictation stops a window; a load or a check waits for the window to end.
      if (running?.preempt && (priority === PRIORITY.final || priority === PRIORITY.partial)) {
        const preempt = running.preempt;
        running.preempt = undefined;
        preempt();
      }
      this.laneQueue.push({
        priority,
        seq: this.laneSeq++,
        step: how.step,
        preempt: how.preempt,
        what: how.what ?? (priority === PRIORITY.load ? 'loading the model' : undefined),
        run: () => {
          if (use) this.touch();
          work()
            .then(resolve, reject)
            .finally(() => {
              this.laneBusy = false;
              this.laneCurrent = null;
              if (use) this.touch();
              this.pump();
            });
        },
      });
      this.laneQueue.sort((a, b) => a.priority - b.priority || a.seq - b.seq);
      this.pump();
    });
  }

  private pump(): void {
    if (this.laneBusy) return;
    const next = this.laneQueue.shift();
    if (!next) return;
    this.laneBusy = true;
    this.laneCurrent = next;
    next.run();
  }

  // ------------------------------------------------------------ requests

  private request<O extends EngineOp>(
    request: Extract<EngineRequest, { op: O }>,
    how: { signal?: AbortSignal; onProgress?: (fraction: number) => void; internal?: boolean } = {},
  ): Promise<EngineResponseMap[O]> {
    if (this.disposed) return Promise.reject(new CodedError('ABORTED', 'the app is shutting down'));
    if (how.signal?.aborted) return Promise.reject(aborted());
    if (this.state === 'missing') {
      return Promise.reject(new CodedError('ENGINE_MISSING', this.lastError?.message ?? 'the engine is not available'));
    }
    if (this.gaveUp) this.revive();
    return new Promise<EngineResponseMap[O]>((resolve, reject) => {
      const id = this.nextId++;
      const pending: Pending = {
        id,
        request,
        resolve: resolve as (value: unknown) => void,
        reject,
        retried: false,
        sent: false,
        internal: how.internal ?? false,
        onProgress: how.onProgress,
      };
      this.pending.set(id, pending);
      const signal = how.signal;
      if (signal) {
        const onAbort = (): void => {
          if (!this.pending.has(id)) return;
          if (pending.sent && this.alive) {
            // The engine stops at its next abort check and answers ABORTED.
            this.transport?.send({ id: this.nextId++, op: 'cancel', target: id });
          } else {
            this.pending.delete(id);
            reject(aborted());
          }
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const cleanup = (): void => signal.removeEventListener('abort', onAbort);
        pending.resolve = (value) => {
          cleanup();
          (resolve as (value: unknown) => void)(value);
        };
        pending.reject = (error) => {
          cleanup();
          reject(error);
        };
      }
      this.send(pending);
    });
  }

  private send(pending: Pending): void {
    if (!this.alive || !this.transport || (this.holding && !pending.internal)) return; // sent after the (re)start
    pending.sent = true;
    this.transport.send({ ...pending.request, id: pending.id });
  }

  private onMessage(message: EngineToHost): void {
    switch (message.t) {
      case 'ready': {
        this.alive = message.available;
        this.available = message.available;
        this.build = message.build;
        const waiter = this.readyWaiter;
        this.readyWaiter = null;
        if (!message.available) {
          this.lastError = message.error;
          this.log.error(`engine unavailable: ${message.error?.message ?? 'unknown reason'}`);
          for (const p of this.pending.values()) p.reject(CodedError.from(message.error ?? { code: 'ENGINE_MISSING', message: 'engine unavailable' }));
          this.pending.clear();
          this.setState('missing');
        } else if (this.state === 'starting') {
          this.log.info(`engine ready (pid ${message.pid}, ggml ${message.build?.ggmlVersion ?? '?'}, ${this.mode})`);
          this.setState(this.model ? 'ready' : 'no-model');
        }
        waiter?.resolve();
        return;
      }
      case 'result': {
        const pending = this.pending.get(message.id);
        if (!pending) return; // a cancel's own answer, or a request already failed by a crash
        this.pending.delete(message.id);
        if (message.ok) pending.resolve(message.value);
        else pending.reject(CodedError.from(message.error));
        return;
      }
      case 'progress':
        this.pending.get(message.id)?.onProgress?.(message.fraction);
        return;
      case 'log':
        this.engineLog[message.level](message.message);
        return;
    }
  }

  // ------------------------------------------------------------ crash handling

  private onExit(generation: number, info: ExitInfo): void {
    if (generation !== this.generation || this.disposed) return;
    this.generation += 1; // the dead transport's late messages and exits are ignored from here on
    this.alive = false;
    this.transport = null;
    const reason = info.signal ? `killed by ${info.signal}` : `exit code ${info.code}`;
    const waiter = this.readyWaiter;
    this.readyWaiter = null;

    const inFlight = [...this.pending.values()].filter((p) => p.sent);
    // Blame a device only when what died was running on it: a load (on the device it asked for) or a
    // decode with the resident model. A validation runs on the CPU in a separate, short-lived model, and
    // a death with nothing running says nothing about any device.
    const onDevice = inFlight.filter((p) => DEVICE_OPS.has(p.request.op));
    const device = onDevice.length === 0 ? null : this.blamedDevice(onDevice.map((p) => p.request));

    this.lastError = { code: 'ENGINE_CRASHED', message: `the engine process stopped (${reason})` };
    this.log.error(`engine process stopped (${reason})${device ? ` while using ${device}` : ''}`, {
      inFlight: inFlight.map((p) => p.request.op),
    });

    for (const p of [...this.pending.values()]) {
      const op = p.request.op;
      if (op === 'crash' || op === 'cancel' || op === 'unload') {
        this.pending.delete(p.id);
        if (op === 'unload') this.model = null;
        p.resolve(null);
      } else if (p.internal || (p.sent && p.retried)) {
        this.pending.delete(p.id);
        p.reject(new CodedError('ENGINE_CRASHED', `the engine process stopped (${reason}) twice while running this request`));
      } else if (p.sent && NOT_RETRIED[op]) {
        this.pending.delete(p.id);
        p.reject(new CodedError('ENGINE_CRASHED', `the engine process stopped (${reason}) ${NOT_RETRIED[op]}`));
      } else if (p.sent) {
        p.retried = true;
        p.sent = false;
      }
    }

    const now = Date.now();
    this.crashTimes = [...this.crashTimes.filter((t) => now - t < 60_000), now];
    const restarting = this.crashTimes.length <= (this.opts.maxCrashesPerMinute ?? 5);
    this.restarts += 1;
    this.emit('crashed', { device, reason });
    const where = device ? ` while running on ${device}` : '';
    this.emit('notice', {
      level: 'warning',
      code: 'ENGINE_CRASHED',
      message: `The engine process stopped (${reason})${where}. ` +
        (restarting ? 'It is being restarted; audio and text already captured are kept.' : 'It keeps crashing, so it was not restarted.'),
      action: restarting ? undefined : 'Choose the CPU in Devices, or reload the model to try again; the log file has details.',
    });
    this.setState('crashed');
    waiter?.reject(new CodedError('ENGINE_CRASHED', `the engine process stopped (${reason}) while starting`));

    if (!restarting) {
      this.gaveUp = true;
      for (const p of this.pending.values()) p.reject(new CodedError('ENGINE_CRASHED', `the engine process keeps crashing (${reason})`));
      this.pending.clear();
      return;
    }
    const delays = this.opts.restartDelaysMs ?? [0, 500, 2000, 5000];
    const delay = delays[Math.min(this.crashTimes.length - 1, delays.length - 1)] ?? 0;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      void this.restart();
    }, delay);
  }

  /** The device a death is blamed on: the one a load asked for, a self-test's device, else the model's. */
  private blamedDevice(requests: EngineRequest[]): string | null {
    const current = this.model?.device.device.name;
    for (const r of requests) {
      if (r.op === 'load') return r.options.device ?? current ?? null;
    }
    for (const r of requests) {
      if (r.op === 'selfTest') return r.device ?? current ?? null;
    }
    return current ?? null;
  }

  /** After giving up: a new request (the user reloading a model, …) earns one more try. */
  private revive(): void {
    this.gaveUp = false;
    this.crashTimes = [];
    if (!this.restartTimer && !this.transport) void this.restart();
  }

  private async restart(): Promise<void> {
    if (this.disposed) return;
    this.setState('restarting');
    this.holding = true;
    try {
      await this.spawn();
    } catch {
      return; // died again while starting: onExit scheduled the next attempt
    }
    if (!this.available) return;
    if (this.modelPath) {
      const device = this.opts.deviceAfterCrash?.();
      const options: EngineLoadOptions = { ...this.loadOptions, device };
      this.setState('loading');
      try {
        this.model = await this.request({ op: 'load', path: this.modelPath, options }, { internal: true });
        this.loadOptions = options;
        this.idleUnloaded = false;
        this.log.info(`model reloaded on ${this.model.device.device.name} after the crash`);
        // The next device (a second GPU) is checked like any load before it is used.
        await this.checkLoadedDevice(true);
      } catch (error) {
        if ((error as CodedError).code === 'ENGINE_CRASHED') return; // the next restart reloads again
        this.model = null;
        this.modelPath = null;
        this.modelId = null;
        this.idleUnloaded = false;
        this.lastError = { code: (error as CodedError).code ?? 'INTERNAL', message: (error as Error).message };
        this.log.error('could not reload the model after the crash', error);
      }
    }
    this.setState(this.model ? 'ready' : 'no-model');
    this.emit('restarted', { model: this.model });
    this.emit('notice', {
      level: 'info',
      code: 'ENGINE_RESTARTED',
      message: this.model
        ? `The engine was restarted and continues on ${this.model.device.device.name}.`
        : 'The engine was restarted; load a model to continue.',
    });
    // Re-run what was in flight (once) and what arrived meanwhile, in order.
    this.holding = false;
    const device = this.opts.deviceAfterCrash?.();
    for (const p of [...this.pending.values()].sort((a, b) => a.id - b.id)) {
      if (p.sent) continue;
      if (p.request.op === 'load') p.request = { ...p.request, options: { ...p.request.options, device } };
      this.send(p);
    }
  }
}

/** A file job's windows as one transcript (text joined with a space as the engine joins its windows). */
function joinWindows(parts: EngineTranscript[], durationSec: number): EngineTranscript {
  const first = parts[0]!;
  const devices = new Set<string>();
  for (const p of parts) for (const d of p.devicesRan) devices.add(d);
  const sum = (key: keyof EngineTranscript['timings']): number => parts.reduce((a, p) => a + p.timings[key], 0);
  return {
    ...first,
    text: parts.map((p) => p.text).filter((t) => t.length > 0).join(' '),
    words: parts.flatMap((p) => p.words),
    tokens: parts.flatMap((p) => p.tokens),
    windows: parts.flatMap((p) => p.windows),
    durationSec,
    devicesRan: [...devices],
    timings: { melMs: sum('melMs'), encoderMs: sum('encoderMs'), decoderMs: sum('decoderMs'), totalMs: sum('totalMs') },
  };
}
