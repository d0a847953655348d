// EngineHost: main's handle on the engine, composed of parts with one job each:
//   engine-rpc.ts      spawn, generations, pending requests, cancel, what a death leaves
//   priority-lane.ts   model calls in priority order, one at a time except a file window and live dictation
//   model-residency.ts the resident model and its one load() (state, errors, log per reason)
//   device-check.ts    the device self-test after a load, and the move to the next device on a failure
//   file-job.ts        file jobs in window steps that live dictation runs beside
//   engine-notices.ts  the notices' words
//   restart-supervisor.ts when to restart after a death (backoff, giving up, one more try), whom to blame
// The host decides the policy between them: priorities, what a partial is
// skipped behind, what a restart does after a death (the device that was
// in use is reported when the request that died ran on it, so the registry
// marks it failed; the model is reloaded on the device the registry picks and
// each request in flight runs once more, except a model validation or a file
// transcription: their input may be what killed it), and the idle unload
// (after `idleUnloadMs` without a model call and with nothing in use, the model
// goes; the engine stays alive and the next call reloads the same file first).
import { basename } from 'node:path';
import type { EngineDiarizerStatus } from '../../engine-process/engine-diarizer.js';
import type { SessionDiarizer } from '../meeting/meeting-speakers.js';
import type { DeviceSelfTest, EngineState, EngineStatus, IpcError, Notice, VadSummary } from '../../ipc/contract.js';
import type { BuildInfo, DeviceInfo, ModelInfo, PhraseCheck } from '../../../native/index.js';
import type { VocabularyPhrase } from '../../shared/vocabulary.js';
import type { Logger } from '../log.js';
import { TypedEmitter } from '../util/typed-emitter.js';
import { DeviceCheck } from './device-check.js';
import { engineNotices } from './engine-notices.js';
import { aborted, EngineRpc, type EngineDeath, type RequestHow } from './engine-rpc.js';
import { runFileJob, type FileJobHow, type FileJobTranscript } from './file-job.js';
import { ModelResidency, type StatusCell } from './model-residency.js';
import { PriorityLane, type LaneJobOptions } from './priority-lane.js';
import { RestartSupervisor, blamedDevice } from './restart-supervisor.js';
import { type EngineLoadOptions, type EngineOp, type EngineRequest, type EngineResponseMap, type EngineStreamChunk, type EngineStreamHandle, type EngineStreamOptions, type EngineToHost, type EngineTranscribeOptions, type EngineTranscript, type EngineVadStatus } from '../../engine-process/protocol.js';
import { CodedError } from '../../../types/errors.js';
import type { SessionVad } from '../sessions/vad-feed.js';
import type { SilenceGuardCounts } from '../../shared/silence-guards.js';
import { sileroModelName } from '../../shared/silero-name.js';
import { forkTransport, inlineTransport, type TransportFactory } from './transport.js';

export { FILE_WINDOW_SEC } from './file-job.js';

/**
 * Lane priorities: lower runs first; equal priorities run in arrival order. Live dictation (finals, then
 * partials) goes before batch work: a file job runs one window per lane step, and a final or a partial
 * runs beside a running window (the engine decodes them on two states of the model), so it never waits
 * for one. While dictation is in use the CPU threads are split between the two (liveThreads, below).
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

export interface EngineHostOptions {
  mode: 'process' | 'inline';
  log: Logger;
  /** Defaults: fork for 'process', the in-process core for 'inline'. Electron passes utilityTransport(utilityProcess). */
  transport?: TransportFactory;
  /** Device for the reload after a crash (failed devices excluded); undefined = the engine's automatic choice. */
  deviceAfterCrash?: () => string | undefined;
  /**
   * The device the engine loads on when it is given none (its automatic choice, or $PARAKEET_DEVICE); null
   * when unknown. A death during such a load is blamed on it.
   */
  autoDevice?: () => string | null;
  /** Whether Auto passes over a working device (measured slower than the CPU); the model then moves off it. */
  autoSkips?: (device: string) => boolean;
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
  /** A decode failed on a device that is not the CPU (DEVICE_UNAVAILABLE); the registry marks it before the model moves. */
  deviceFailed: [{ device: string; reason: string }];
  /** A GPU's first decode in this engine process started (`done` false) or ended (`ms`: how long): pipeline compilation. */
  preparing: [{ device: string; done: boolean; ms?: number }];
}

export class EngineHost extends TypedEmitter<EngineHostEvents> {
  readonly mode: 'process' | 'inline';
  private readonly log: Logger;
  private readonly rpc: EngineRpc;
  private readonly lane: PriorityLane;
  private readonly residency: ModelResidency;
  private readonly deviceCheck: DeviceCheck;
  private readonly supervisor: RestartSupervisor;
  private state: EngineState = 'starting';
  private available = false;
  private build: BuildInfo | null = null;
  private lastError: IpcError | null = null;
  private disposed = false;
  private started: Promise<void> | null = null;
  private fileJobs = 0;
  /** The Silero VAD file the engine should hold (null: none), and what it holds. */
  private vadPath: string | null = null;
  private diarizerPath: string | null = null;
  private vad: EngineVadStatus = { kind: 'energy', reason: 'no VAD model was loaded' };
  /** What the closed VAD streams cost, summed (Devices shows it as % of real time). */
  private readonly vadCost = { computeMs: 0, audioSec: 0 };
  /**
   * Engine deaths so far. An engine's live streams (VAD, diarizer) end with it, and the next one numbers its streams from 1
   * again: a stream's number is good only in the life of the engine that answered its open.
   */
  private engineDeaths = 0;
  /**
   * A streaming model's open streams: the number given out (unique in the app's life) → the engine's number
   * and the life of the engine that opened it. The engine's numbers restart at 1 after a restart: sent as is,
   * a stale stream's audio would go into another segment's stream (or close it).
   */
  private readonly modelStreams = new Map<number, { handle: number; life: number }>();
  private nextModelStream = 1;
  /** What the silence guards took away since the app started (Devices). */
  private readonly guardCounts: SilenceGuardCounts = { unconfirmed: 0, wordsDropped: 0 };
  private idleMs: number;
  private idleTimer: NodeJS.Timeout | null = null;
  private lastUse: number;
  /** The move off a device that failed while decoding, while it runs (the calls that failed beside it join it). */
  private moving: Promise<void> | null = null;

  constructor(private readonly opts: EngineHostOptions) {
    super();
    this.mode = opts.mode;
    this.log = opts.log;
    this.idleMs = opts.idleUnloadMs ?? 0;
    this.lastUse = this.now();
    this.rpc = new EngineRpc(
      {
        factory: opts.transport ?? (opts.mode === 'inline' ? inlineTransport : forkTransport),
        log: opts.log,
        engineLog: opts.log.child('process'),
        readyTimeoutMs: opts.readyTimeoutMs,
      },
      {
        ready: (message) => this.onReady(message),
        missing: (message) => {
          this.available = false;
          this.lastError = { code: 'ENGINE_MISSING', message };
          this.setState('missing');
        },
        died: (death) => this.onDeath(death),
        preparing: ({ device, done, ms }) => this.emit('preparing', { device, done, ms }),
      },
    );
    this.supervisor = new RestartSupervisor({
      restart: () => void this.restart(),
      restartDelaysMs: opts.restartDelaysMs,
      maxCrashesPerMinute: opts.maxCrashesPerMinute,
    });
    this.lane = new PriorityLane({
      onJobStart: (use) => use && this.touch(),
      onJobEnd: (use) => use && this.touch(),
    });
    const status: StatusCell = {
      state: () => this.state,
      setState: (state) => this.setState(state),
      setLastError: (error) => {
        this.lastError = error;
      },
    };
    this.residency = new ModelResidency({ log: this.log, status, request: (r, how) => this.request(r, how) });
    this.deviceCheck = new DeviceCheck({
      log: this.log,
      residency: this.residency,
      request: (r, how) => this.request(r, how),
      nextDevice: () => this.opts.deviceAfterCrash?.(),
      autoSkips: (device) => this.opts.autoSkips?.(device) ?? false,
      emitSelfTest: (result) => this.emit('selfTest', result),
      emitDeviceFailed: (failure) => this.emit('deviceFailed', failure),
      emitNotice: (notice) => this.emit('notice', notice),
      disposed: () => this.disposed,
    });
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  // ------------------------------------------------------------ lifecycle

  /** Starts the engine; resolves once it answered (available or missing). Idempotent. */
  start(): Promise<void> {
    this.started ??= this.rpc.spawn().catch((error: unknown) => {
      this.log.error('engine did not start', error);
    });
    return this.started;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.supervisor.dispose();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.rpc.close();
  }

  // ------------------------------------------------------------ status

  status(): EngineHostStatus {
    const state: EngineState = this.state === 'ready' && this.lane.busy ? 'busy' : this.state;
    return {
      state,
      mode: this.mode,
      model: this.residency.model,
      modelId: this.residency.modelId,
      restarts: this.supervisor.restarts,
      lastError: this.lastError,
      pid: this.rpc.pid,
      vad: this.vadSummary(),
    };
  }

  get pid(): number | null {
    return this.rpc.pid;
  }

  get engineAvailable(): boolean {
    return this.available;
  }

  get buildInfo(): BuildInfo | null {
    return this.build;
  }

  get loadedModel(): ModelInfo | null {
    return this.residency.model;
  }

  /** True while a decode or load runs or waits (a partial decode would only queue behind it). */
  get busy(): boolean {
    return this.lane.busy || this.lane.waiting.length > 0;
  }

  /**
   * A partial is skipped (never queued) when it would wait behind other live work or a long job (a load,
   * a validation, a self-test); beside a file window it runs at once.
   */
  private partialWouldWait(): boolean {
    return this.lane.waiting.some((j) => !j.step) || this.lane.running.some((j) => !j.step);
  }

  /**
   * What holds live dictation up now, in words ("loading the model"), or null: a job that a partial is
   * skipped behind and a final waits for. A file window never does (dictation runs beside it).
   */
  liveHeldBy(): string | null {
    const holder = this.lane.running.find((j) => !j.step && j.priority !== PRIORITY.final && j.priority !== PRIORITY.partial);
    return holder ? holder.what ?? 'busy' : null;
  }

  /**
   * The CPU threads of each side while a dictation session holds the model and a file job runs: a file
   * window gets half the model's threads (at least one) and a dictation decode the rest, so the two never
   * ask for more threads than the model was given (on 2 cores, one each: ggml's workers spin at every
   * node's barrier, and a worker that loses its core to the other side stalls its whole graph).
   * Undefined: no split (all threads).
   */
  private liveThreads(side: 'file' | 'live'): number | undefined {
    if (this.fileJobs === 0 || !(this.opts.inUse?.() ?? false)) return undefined;
    const threads = this.residency.model?.threads ?? 0;
    if (threads < 2) return undefined;
    const file = Math.max(1, Math.floor(threads / 2));
    return side === 'file' ? file : threads - file;
  }

  /** True while a file job holds the lane or waits in it (the dictation view says live text goes first). */
  get fileJobActive(): boolean {
    return this.fileJobs > 0;
  }

  private setState(state: EngineState): void {
    this.state = state;
    // Busy/idle flips are not announced: they happen several times a second during dictation.
    this.emit('status', { ...this.status(), state });
  }

  // ------------------------------------------------------------ public operations

  async loadModel(
    path: string,
    options: EngineLoadOptions & {
      modelId?: string | null;
      /**
       * The device, asked when the load runs rather than when it was queued: a decode ahead of it in the lane may
       * fail over meanwhile (its device marked failed, the model moved), and a device chosen before that — or Auto,
       * which would pick the same GPU again — would put the model back on the device that just failed.
       */
      deviceAtLoad?: (path: string) => string | undefined;
    } = {},
  ): Promise<ModelInfo> {
    const { modelId = null, deviceAtLoad, ...queued } = options;
    return this.inLane(PRIORITY.load, async () => {
      // Asked for this file: verdicts that hold per model (slower than the CPU, no room) are the file's, not the loaded model's.
      const loadOptions = deviceAtLoad ? { ...queued, device: deviceAtLoad(path) } : queued;
      const info = await this.residency.load({ path, options: loadOptions, reason: 'user', modelId });
      // Still 'loading': a model on a device that computes wrong is not ready. If the engine dies during the
      // test, the error goes to the caller and the crash path marks the device and reloads elsewhere.
      await this.deviceCheck.afterLoad(false);
      this.setState('ready');
      return this.residency.model ?? info;
    });
  }

  /** The resident model was just listed as installed (a file the user opened, models/linker.ts): it goes by that id now. */
  adoptModelId(id: string): void {
    if (this.residency.model) this.residency.modelId = id;
  }

  async unloadModel(): Promise<void> {
    await this.inLane(PRIORITY.load, async () => {
      await this.request({ op: 'unload' });
      this.residency.forget();
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
    if (how.skipIfBusy && (this.partialWouldWait() || this.residency.idleUnloaded)) {
      // A partial is not worth waiting a model load for; the reload starts now and the next one runs.
      this.wake();
      return null;
    }
    return this.inLane(PRIORITY[how.priority], async () => {
      if (how.signal?.aborted) throw aborted();
      await this.reloadIfIdle();
      const live = how.priority === 'final' || how.priority === 'partial';
      const maxThreads = live ? this.liveThreads('live') : undefined;
      const request = { op: 'transcribe', pcm, options: maxThreads ? { ...options, maxThreads } : options } as const;
      const result = await this.withDeviceFailover(() => this.request(request, { signal: how.signal }), how.signal);
      this.emit('ran', { devicesRan: result.devicesRan });
      return result;
    });
  }

  /**
   * Cache-aware streaming (a streaming model's live text): each step runs at final priority, beside a file
   * window (the stream computes on a state of its own), so dictation never waits for batch work. A dead
   * engine loses its streams: their calls then fail (NOT_FOUND, ENGINE_CRASHED) and the session decodes the
   * segment offline instead.
   */
  streamBegin(options: EngineStreamOptions): Promise<EngineStreamHandle> {
    return this.inLane(PRIORITY.final, async () => {
      await this.reloadIfIdle();
      const opened = await this.request({ op: 'streamBegin', options });
      // Answered by the engine alive now: the stream is that engine's.
      const handle = this.nextModelStream++;
      this.modelStreams.set(handle, { handle: opened.handle, life: this.engineDeaths });
      return { ...opened, handle };
    });
  }

  streamFeed(handle: number, pcm: Float32Array): Promise<EngineStreamChunk[]> {
    // The engine's number is looked up when the step runs (the engine may restart while it waits in the lane);
    // async, so a stale one rejects this call rather than throwing inside the lane.
    return this.inLane(PRIORITY.final, async () => this.request({ op: 'streamFeed', handle: this.engineStream(handle), pcm }));
  }

  streamEnd(handle: number): Promise<EngineStreamChunk[]> {
    return this.inLane(PRIORITY.final, async () => {
      try {
        return await this.request({ op: 'streamEnd', handle: this.engineStream(handle) });
      } finally {
        this.modelStreams.delete(handle);  // the engine frees the stream whether its tail succeeded or not
      }
    });
  }

  /** The engine's number of a stream given out by streamBegin; ENGINE_CRASHED once the engine that opened it died. */
  private engineStream(handle: number): number {
    const stream = this.modelStreams.get(handle);
    if (!stream) throw new CodedError('NOT_FOUND', `no open stream ${handle} (the stream ended)`);
    if (stream.life !== this.engineDeaths) {
      this.modelStreams.delete(handle);
      throw new CodedError('ENGINE_CRASHED', 'the stream ended with the engine, which restarted');
    }
    return stream.handle;
  }

  /** The resident model's verdict per phrase (Model.checkVocabulary); a quick compile, no audio. */
  checkVocabulary(phrases: VocabularyPhrase[], neverBoost: string[]): Promise<PhraseCheck[]> {
    return this.request({ op: 'checkVocabulary', phrases, neverBoost });
  }

  async streamClose(handle: number): Promise<void> {
    const stream = this.modelStreams.get(handle);
    this.modelStreams.delete(handle);
    // A stream of an engine that died ended with it; its number may name another stream of the engine now.
    if (!stream || stream.life !== this.engineDeaths) return;
    await this.request({ op: 'streamClose', handle: stream.handle });
  }

  /**
   * Transcribes a WAV file the engine reads, one window per lane step (file-job.ts); finals and partials
   * of a live session run beside a running window, on the engine's dictation state. Each
   * window is normalized with its own mel statistics (the engine's one-call pass uses the whole clip's): the
   * cut points are the same, the features of a window can differ slightly.
   */
  async transcribeFile(
    path: string,
    options: EngineTranscribeOptions,
    how: FileJobHow = {},
  ): Promise<FileJobTranscript> {
    if (how.signal?.aborted) throw aborted();
    const model = this.residency.model;
    if (!model) throw new CodedError('NO_MODEL', 'No model is loaded. Download or import a model in Models first.');
    this.fileJobs += 1;
    try {
      return await runFileJob({
        log: this.log,
        request: (r, requestHow) => this.withDeviceFailover(() => this.request(r, requestHow), requestHow?.signal),
        inLane: (work, laneHow) => this.inLane(PRIORITY.file, work, laneHow),
        reloadIfIdle: () => this.reloadIfIdle(),
        windowThreads: () => this.liveThreads('file'),
        ran: (devicesRan) => this.emit('ran', { devicesRan }),
        modelDevice: () => this.loadedModel?.device.device ?? null,
      }, model, path, options, how);
    } finally {
      this.fileJobs -= 1;
    }
  }

  // ------------------------------------------------------------ speakers

  /**
   * Loads a Sortformer diarizer in the engine (null: none; meetings keep the track labels). Rejects with the
   * engine's error (MODEL_INVALID names what the file is); the path is kept and loaded again after a restart.
   */
  async setDiarizer(path: string | null): Promise<EngineDiarizerStatus | null> {
    this.diarizerPath = null;
    const status = await this.request({ op: 'diarizerLoad', path });
    this.diarizerPath = path;
    return status;
  }

  /** Whether a speaker diarizer is loaded (Settings › Speakers). */
  get diarizerLoaded(): boolean {
    return this.diarizerPath !== null;
  }

  /**
   * A live stream's number, good only in the life of the engine that answered its open (`opened`): the engine's
   * streams end with it and the next one numbers its streams from 1 again, so sent after a restart the number
   * would name another source's stream (or none). Fails with ENGINE_CRASHED once that engine is gone (the
   * source then goes on without it); an open re-run after a restart answers from the new engine.
   */
  private streamOfThisEngine(opened: Promise<{ stream: number }>, what: string): () => Promise<number> {
    const withLife = opened.then(({ stream }) => ({ stream, life: this.engineDeaths }));
    withLife.catch(() => undefined);  // a push reports it
    return async () => {
      const { stream, life } = await withLife;
      if (life !== this.engineDeaths) throw new CodedError('ENGINE_CRASHED', `the ${what} stream ended with the engine, which restarted`);
      return stream;
    };
  }

  /** A live diarizer stream (a meeting's "Others" track), or null when none is loaded. */
  diarizerStream(): SessionDiarizer | null {
    if (this.diarizerPath === null) return null;
    const current = this.streamOfThisEngine(this.request({ op: 'diarizerOpen' }), 'speaker');
    return {
      push: async (pcm) => this.request({ op: 'diarizerPush', stream: await current(), pcm }),
      finish: async () => this.request({ op: 'diarizerFinish', stream: await current() }),
      close: () => {
        current().then((stream) => this.request({ op: 'diarizerClose', stream })).catch(() => undefined);
      },
    };
  }

  // ------------------------------------------------------------ voice activity

  /**
   * Loads the Silero VAD GGUF in the engine (null: none; sessions, meetings and files use the energy VAD).
   * A failure is logged and reported in the status, never thrown: the energy VAD is the fallback. The path
   * is kept, and loaded again after an engine restart. VAD requests go straight to the engine, not
   * through the decode lane: they never wait for a transcription, nor hold one up.
   */
  async setVad(path: string | null, reasonIfNone?: string): Promise<EngineVadStatus> {
    this.vadPath = path;
    try {
      const status = await this.request({ op: 'vadLoad', path });
      this.vad = status.kind === 'energy' && reasonIfNone ? { kind: 'energy', reason: reasonIfNone } : status;
    } catch (error) {
      const reason = `the Silero VAD could not be loaded (${(error as Error).message}); using the energy VAD`;
      this.log.warn(reason);
      this.vad = { kind: 'energy', reason };
    }
    this.emit('status', this.status());
    return this.vad;
  }

  /** Adds what a source's silence guards took away (sessions, meetings, files) to what Devices shows. */
  noteSilenceGuards(counts: Partial<SilenceGuardCounts>): void {
    this.guardCounts.unconfirmed += counts.unconfirmed ?? 0;
    this.guardCounts.wordsDropped += counts.wordsDropped ?? 0;
    this.emit('status', this.status());
  }

  /** The guards' cost in words: what they kept out of the text (the CPU they take is nil beside the VAD's). */
  private guardsSummary(): string {
    const { unconfirmed, wordsDropped } = this.guardCounts;
    return `. Silence guards: ${unconfirmed} live ${unconfirmed === 1 ? 'stretch' : 'stretches'} Silero was unsure of not transcribed, ` +
      `${wordsDropped} ${wordsDropped === 1 ? 'word' : 'words'} below the confidence floor dropped`;
  }

  private vadSummary(): VadSummary {
    if (this.vad.kind === 'energy') return { detector: 'energy', text: `Energy threshold (${this.vad.reason})${this.guardsSummary()}` };
    const { computeMs, audioSec } = this.vadCost;
    const cost = audioSec > 0
      ? `; it cost ${((computeMs / 10) / audioSec).toFixed(2)} % of real time over ${(audioSec / 60).toFixed(1)} min of live audio`
      : '';
    return {
      detector: 'silero',
      text: `${sileroModelName(this.vad.sourceVersion, this.vad.weightType)}${this.vadOrigin(this.vad)}, on the CPU beside the model: ` +
        `one thread per live source, outside the decode queue${cost}${this.guardsSummary()}`,
    };
  }

  /** Which Silero runs, said where Devices shows it: the opened bundle's own, or the app's. */
  private vadOrigin(vad: Extract<EngineVadStatus, { kind: 'silero' }>): string {
    return vad.bundleComponent ? ` from the model bundle (component "${vad.bundleComponent}" of ${basename(vad.path)})` : '';
  }

  get vadStatus(): EngineVadStatus {
    return this.vad;
  }

  /** A live stream on the engine's Silero VAD (one per audio source), or null when it runs none. */
  vadStream(): SessionVad | null {
    if (this.vad.kind !== 'silero') return null;
    const current = this.streamOfThisEngine(this.request({ op: 'vadOpen' }), 'VAD');
    let closed = false;
    return {
      push: async (pcm) => this.request({ op: 'vadPush', stream: await current(), pcm }),
      close: () => {
        if (closed) return;
        closed = true;
        current()
          .then((stream) => this.request({ op: 'vadClose', stream }))
          .then((cost) => {
            this.vadCost.computeMs += cost.computeMs;
            this.vadCost.audioSec += cost.audioSec;
            this.emit('status', this.status());
          })
          .catch(() => undefined);
      },
    };
  }

  /**
   * Loads `path` once in a separate model (the resident one is untouched) to prove it is a usable model;
   * with `selfTest`, also runs the CPU known-answer self-test on it (a file the app converted).
   * In the lane (after finals), so it never runs beside a decode.
   */
  validate(path: string, signal?: AbortSignal, options: { selfTest?: boolean } = {}): Promise<ModelInfo> {
    return this.inLane(VALIDATE_PRIORITY, async () => {
      if (signal?.aborted) throw aborted();
      return this.request({ op: 'validate', path, selfTest: options.selfTest }, { signal });
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
      if (!this.residency.model) throw new CodedError('NO_MODEL', 'No model is loaded; load one first: the self-test runs the loaded model.');
      await this.reloadIfIdle();
      let result: DeviceSelfTest;
      try {
        result = await this.request({ op: 'selfTest', device, trigger: 'manual' });
      } catch (error) {
        const tested = device ?? this.residency.model?.device.device.name;
        if ((error as CodedError).code !== 'DEVICE_UNAVAILABLE' || !tested || this.disposed) throw error;
        // The device failed under the test's own decode: failed as under any decode (the load's self-test does the
        // same), so Auto stops choosing it and, when the model was on it, the model moves; the user gets the error.
        await this.deviceCheck.failedUnderSelfTest(tested, (error as Error).message);
        this.setState(this.residency.model ? 'ready' : 'no-model');
        throw error;
      }
      if (await this.deviceCheck.settle(result, false)) {
        await this.deviceCheck.afterLoad(false);
        this.setState(this.residency.model ? 'ready' : 'no-model');
      }
      return result;
    }, { what: 'running a device self-test' });
  }

  // ------------------------------------------------------------ idle unload

  /** Unload the model after `ms` without use; 0 = never (a model unloaded for idleness stays so until used). */
  setIdleUnload(ms: number): void {
    this.idleMs = Math.max(0, ms);
    this.scheduleIdle();
  }

  /** The model was unloaded for idleness and comes back at the next use. */
  get unloadedForIdle(): boolean {
    return this.residency.idleUnloaded;
  }

  /** Something is about to use the model (a dictation starts): reload it now if it was unloaded for idleness. */
  wake(): void {
    this.touch();
    if (!this.residency.idleUnloaded) return;
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
    if (this.idleMs <= 0 || !this.residency.path || this.residency.idleUnloaded || this.disposed) return;
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
    return this.idleMs > 0 && quiet && !this.residency.idleUnloaded && this.residency.model !== null && this.state === 'ready' &&
      this.lane.waiting.length === 0 && !(this.opts.inUse?.() ?? false);
  }

  private idleCheck(): void {
    if (this.lane.busy || !this.idleExpired()) {
      // Held (a session in a pause) or used meanwhile: count the idle time from now.
      if (this.lane.busy || this.opts.inUse?.()) this.lastUse = this.now();
      this.scheduleIdle();
      return;
    }
    this.inLane(PRIORITY.load, async () => {
      // Checked again in the lane: a call may have arrived while this job waited.
      if (!this.idleExpired()) return;
      await this.request({ op: 'unload' });
      if (!this.residency.model || this.state !== 'ready') return; // a crash or an explicit unload got there first
      this.residency.idleUnloaded = true;
      this.log.info(`model unloaded after ${Math.round(this.idleMs / 1000)} s without use; it reloads at the next use`);
      this.setState('idle-unloaded');
    }, { use: false }).catch((error: unknown) => this.log.warn('the idle unload failed', error));
  }

  /** In the lane, before a call that needs the model: brings back a model unloaded for idleness (same file and options). */
  private async reloadIfIdle(): Promise<void> {
    const { residency } = this;
    if (!residency.idleUnloaded || !residency.path) return;
    await residency.load({ path: residency.path, options: residency.options, reason: 'idle' });
    // Same device as before: checked again unless it already passed with this file and these options.
    await this.deviceCheck.afterLoad(false, { reusePassed: true });
    this.setState('ready');
  }

  // ------------------------------------------------------------ lane and requests

  /**
   * `use`: the job is a use of the model (every job but the idle unload itself), which restarts the idle timer.
   * Only live dictation runs beside a file window; a load or a check waits for the window to end.
   */
  private inLane<T>(priority: number, work: () => Promise<T>, how: LaneJobOptions = {}): Promise<T> {
    return this.lane.run(priority, work, {
      ...how,
      beside: priority === PRIORITY.final || priority === PRIORITY.partial,
      what: how.what ?? (priority === PRIORITY.load ? 'loading the model' : undefined),
    });
  }

  private request<O extends EngineOp>(request: Extract<EngineRequest, { op: O }>, how: RequestHow = {}): Promise<EngineResponseMap[O]> {
    if (this.disposed) return Promise.reject(new CodedError('ABORTED', 'the app is shutting down'));
    if (how.signal?.aborted) return Promise.reject(aborted());
    if (this.state === 'missing') {
      return Promise.reject(new CodedError('ENGINE_MISSING', this.lastError?.message ?? 'the engine is not available'));
    }
    // After giving up, a new request (the user reloading a model, …) earns one more try.
    if (this.supervisor.revive() && !this.rpc.hasTransport) void this.restart();
    return this.rpc.call(request, how);
  }

  private onReady(message: Extract<EngineToHost, { t: 'ready' }>): void {
    this.available = message.available;
    this.build = message.build;
    if (!message.available) {
      this.lastError = message.error;
      this.log.error(`engine unavailable: ${message.error?.message ?? 'unknown reason'}`);
      this.setState('missing');
    } else if (this.state === 'starting') {
      this.log.info(`engine ready (pid ${message.pid}, ggml ${message.build?.ggmlVersion ?? '?'}, ${this.mode})`);
      this.setState(this.residency.model ? 'ready' : 'no-model');
    }
  }

  /**
   * Runs a decode request; when it fails with DEVICE_UNAVAILABLE on the model's device and that is not the
   * CPU (a lost device, a driver fault: the engine process survived), the device is marked failed, the model
   * moves to the registry's next device and the request runs once more there, so the audio is not lost.
   * A file window and a live decode run beside each other, so a lost device fails both: they share one move
   * (the model is loaded once), and a call the move aborted (the engine frees the old model, ending its calls
   * in flight with ABORTED) runs again on the new device, unless its own caller cancelled it.
   */
  private async withDeviceFailover<T>(run: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const startedOn = this.residency.generation;
    try {
      return await run();
    } catch (error) {
      if (this.disposed || signal?.aborted) throw error;
      const code = (error as CodedError).code;
      const replaced = this.moving !== null || this.residency.generation !== startedOn;
      if (code !== 'DEVICE_UNAVAILABLE' && !(code === 'ABORTED' && replaced)) throw error;
      if (this.moving) {
        await this.moving;
        return run();
      }
      if (this.residency.generation !== startedOn) return run(); // another call's move already put the model elsewhere
      const device = this.residency.model?.device.device;
      if (code !== 'DEVICE_UNAVAILABLE' || !device || device.type === 'cpu') throw error;
      const move = this.deviceCheck.moveAfterFailure(device.name, (error as Error).message, false);
      this.moving = move;
      try {
        await move;
      } finally {
        if (this.moving === move) this.moving = null;
      }
      return run();
    }
  }

  // ------------------------------------------------------------ crash handling

  private onDeath({ reason, inFlight, unloadDied }: EngineDeath): void {
    this.engineDeaths += 1;
    const device = blamedDevice(inFlight, this.residency.model?.device.device.name ?? null, this.opts.autoDevice?.() ?? null);
    this.lastError = { code: 'ENGINE_CRASHED', message: `the engine process stopped (${reason})` };
    this.log.error(`engine process stopped (${reason})${device ? ` while using ${device}` : ''}`, { inFlight: inFlight.map((r) => r.op) });
    if (unloadDied) this.residency.model = null;

    const { restarting } = this.supervisor.crashed();
    this.emit('crashed', { device, reason });
    this.emit('notice', engineNotices.crashed(reason, device, restarting));
    this.setState('crashed');

    if (!restarting) this.rpc.rejectAll(() => new CodedError('ENGINE_CRASHED', `the engine process keeps crashing (${reason})`));
  }

  private async restart(): Promise<void> {
    if (this.disposed) return;
    this.setState('restarting');
    this.rpc.hold();
    try {
      await this.rpc.spawn();
    } catch {
      return; // died again while starting: the death handler scheduled the next attempt
    }
    if (!this.available) return;
    const { residency } = this;
    if (residency.path) {
      const options: EngineLoadOptions = { ...residency.options, device: this.opts.deviceAfterCrash?.() };
      try {
        await residency.load({ path: residency.path, options, reason: 'restart', internal: true });
        // The next device (a second GPU) is checked like any load before it is used.
        await this.deviceCheck.afterLoad(true);
      } catch (error) {
        if ((error as CodedError).code === 'ENGINE_CRASHED') return; // the next restart reloads again
      }
    }
    if (this.diarizerPath !== null) {
      await this.request({ op: 'diarizerLoad', path: this.diarizerPath }, { internal: true }).catch(() => undefined);
    }
    if (this.vadPath !== null) {
      this.vad = await this.request({ op: 'vadLoad', path: this.vadPath }, { internal: true })
        .catch((error: unknown) => ({ kind: 'energy' as const, reason: `the Silero VAD could not be loaded again (${(error as Error).message})` }));
    }
    this.setState(residency.model ? 'ready' : 'no-model');
    this.emit('restarted', { model: residency.model });
    this.emit('notice', engineNotices.restarted(residency.model?.device.device.name ?? null));
    // Re-run what was in flight (once) and what arrived meanwhile, in order.
    const device = this.opts.deviceAfterCrash?.();
    this.rpc.release((r) => (r.op === 'load' ? { ...r, options: { ...r.options, device } } : r));
  }
}
