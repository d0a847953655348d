// What the engine process does with each request: one resident model, the
// addon's async calls (compute on native threads), abort flags per request.
// The same core runs inside the engine process (engine-process.ts) and, in
// inline mode, inside main (inline-transport.ts).
import {
  Model, benchMatmul, buildInfo, listDevices, native, selectDevice, setLogHandler, type BuildInfo, type LoadOptions,
  type ModelInfo, type ModelState, type ModelStream, type StreamChunk, type TranscribeResult,
} from '../../native/index.js';
import { planSpeechWindows } from './speech-windows.js';
import { windowNonSpeech } from './window-non-speech.js';
import { oneWindowSec, windowInFile } from './window-in-file.js';
import type { SecondsRange } from '../shared/non-speech.js';
import { EngineVad, VAD_RATE } from './engine-vad.js';
import { EngineDiarizer } from './engine-diarizer.js';
import { WindowedWav } from './windowed-wav.js';
import { toIpcError, type EngineLogLevel, type EngineStreamChunk, type EngineToHost, type EngineTranscript, type HostToEngine, type SelfTestCorruption } from './protocol.js';
import { CodedError } from '../../types/errors.js';
import { runSelfTest, selfTestConverted } from './self-test-run.js';
import { FirstUse, type FirstUseDevice } from './first-use.js';
import { StagedModel, fileIdentity, type PlacementOptions, type Staged } from './staged-model.js';
import { fadeInOnset, fadesFileOnsets } from '../shared/onset-fade.js';

/** Loads a model file (Model.load; tests pass a wrapper that counts). */
export type LoadModel = (path: string, options: LoadOptions) => Promise<Model>;

/** How long a validated model waits for its activation before it is freed. */
const STAGED_TTL_MS = 2 * 60_000;

export interface EngineCoreOptions {
  /** Honour the test triggers: crash, self-test corruption (tests only). */
  testHooks: boolean;
  /** How the process dies on the crash trigger; absent inline (the trigger is refused there). */
  kill?: () => void;
  /** Loads model files; default Model.load. */
  loadModel?: LoadModel;
}

interface Resident {
  model: Model;
  /** Dictation's (and every other PCM request's) state. */
  state: ModelState;
  /**
   * File jobs' state, made at a file job's start and freed when no file job is left: its compute buffers
   * grow to a whole window's (60 s), and dictation's state stays as small as its chunks.
   */
  fileState: ModelState | null;
  threads: number;
  path: string;
  identity: string | null;
}

const sameName = (a: string | undefined, b: string): boolean => (a ?? '').toLowerCase() === b.toLowerCase();

/**
 * Whether a model placed with `had` serves a request for `want`: the same device (as the engine would resolve
 * it) and weight type. Threads do not matter: they are the state's, and the activation makes its own.
 */
function placementFits(had: Staged, want: PlacementOptions): boolean {
  const info = had.model.info();
  return sameName(selectDevice(want.device).device.name, info.device.device.name) &&
    (want.weightType ?? 'auto') === (had.options.weightType ?? 'auto');
}

function plainChunks(chunks: StreamChunk[]): EngineStreamChunk[] {
  return chunks.map(({ encoded: _encoded, ...rest }) => rest);
}

function plain(result: TranscribeResult): EngineTranscript {
  const { mel: _mel, encoder: _encoder, logProbs: _logProbs, ...rest } = result;
  return rest;
}

function logLevel(level: string): EngineLogLevel {
  const l = level.toLowerCase();
  if (l.startsWith('err')) return 'error';
  if (l.startsWith('warn')) return 'warn';
  if (l.startsWith('info')) return 'info';
  return 'debug';
}

export class EngineCore {
  /**
   * The resident model, the state its transcriptions run on (with the activation's thread count: a model a
   * validation loaded keeps its weights, only the state is the activation's), its file as asked for (its
   * info().path may be the name it was validated under) and the file's identity.
   */
  private resident: Resident | null = null;
  /** Options of the last activation: a validation loads with them, so the activation can adopt its model. */
  private activation: PlacementOptions = {};
  private readonly staged = new StagedModel(STAGED_TTL_MS);
  private readonly loadModel: LoadModel;
  private readonly running = new Map<number, AbortController>();
  /** Armed crash trigger (tests): the kind of request whose next start kills the process. */
  private crashOn: 'transcribe' | 'validate' | null = null;
  /** Armed self-test corruption (tests): the next self-test's device output is replaced before the comparison. */
  private corruptNext: SelfTestCorruption | null = null;
  private build: BuildInfo | null = null;
  /** Opened file jobs (fileOpen): planned windows, each read from the file when it runs (windowed-wav.ts). */
  private readonly files = new Map<number, WindowedWav>();
  /** Per open file planned by the trained VAD: each window's non-speech (window-non-speech.ts), for a decode with a vocabulary. */
  private readonly fileNonSpeech = new Map<number, SecondsRange[][]>();
  private nextFile = 1;
  /** Open cache-aware streams (streamBegin) on the resident model; a load or unload ends them. */
  private readonly streams = new Map<number, ModelStream>();
  private nextStream = 1;
  private readonly vad = new EngineVad();
  private readonly diarizer = new EngineDiarizer();
  /** GPUs' first decodes in this process (pipeline compilation), announced to the host. */
  private readonly firstUse = new FirstUse((message) => this.post(message));

  constructor(private readonly post: (message: EngineToHost) => void, private readonly opts: EngineCoreOptions) {
    this.loadModel = opts.loadModel ?? ((path, options) => Model.load(path, options));
  }

  /** Loads the addon and announces readiness (available or not, with the reason). */
  start(): void {
    try {
      native();
      this.build = buildInfo();
      setLogHandler((level, message) => this.post({ t: 'log', level: logLevel(level), message: message.trimEnd() }));
      this.post({ t: 'ready', available: true, error: null, build: this.build, pid: process.pid });
    } catch (error) {
      this.post({ t: 'ready', available: false, error: toIpcError(error, 'ENGINE_MISSING'), build: null, pid: process.pid });
    }
  }

  handle(message: HostToEngine): void {
    if (typeof message !== 'object' || message === null || typeof message.id !== 'number') return;
    const { id } = message;
    this.run(message).then(
      (value) => this.post({ t: 'result', id, ok: true, value }),
      (error: unknown) => this.post({ t: 'result', id, ok: false, error: toIpcError(error) }),
    );
  }

  private async run(message: HostToEngine): Promise<unknown> {
    switch (message.op) {
      case 'load':
        return this.track(message.id, async (signal) => {
          const identity = await fileIdentity(message.path);
          this.activation = { ...message.options };
          // The model a validation of this very file just loaded the same way, else a fresh load.
          const next = this.staged.take(identity, (entry) => placementFits(entry, message.options)) ??
            await this.loadModel(message.path, { ...message.options, signal });
          let state: ModelState;
          try {
            state = next.createState({ threads: message.options.threads ?? 0 });
          } catch (error) {
            next.dispose();
            throw error;
          }
          // The old model is freed only once the new one loaded: a failed load keeps the app usable.
          this.closeStreams();
          this.resident?.model.dispose();
          this.resident = { model: next, state, fileState: null, threads: message.options.threads ?? 0, path: message.path, identity };
          return this.residentInfo(this.resident);
        });
      case 'unload':
        this.closeStreams();
        this.resident?.model.dispose();
        this.resident = null;
        this.staged.clear();
        return null;
      case 'transcribe':
        return this.track(message.id, async (signal) => {
          const { state } = this.requireModel();
          const { onsetFadeMs, ...options } = message.options;
          const pcm = onsetFadeMs ? fadeInOnset(message.pcm, options.sampleRate ?? 16_000, onsetFadeMs) : message.pcm;
          return this.firstUse.around(this.residentDevice(), async () => {
            const pending = state.transcribe(pcm, { ...options, signal });
            if (this.crashOn === 'transcribe') this.die();
            return plain(await pending);
          });
        });
      case 'fileOpen':
        return this.track(message.id, async (signal) => {
          // Read once in blocks to plan the windows (resampled as it is read: the same samples as one call
          // over the file); nothing of the audio is kept until a window runs. With a trained VAD it runs over
          // the same blocks: only the speech is windowed, cut at pauses (silent stretches never reach the decoder).
          const maxSamples = Math.trunc(message.maxWindowSec * message.sampleRate);
          const pass = message.vad && message.sampleRate === VAD_RATE ? this.vad.filePass(message.vad) : null;
          const speechCut = pass ? { detector: 'silero' as const, model: this.vad.describe() } : { detector: 'energy' as const };
          try {
            let file = await WindowedWav.open(message.path, {
              sampleRate: message.sampleRate, maxSamples, align: message.align, signal, onBlock: pass ? (block) => pass.push(block) : undefined,
            });
            if (signal.aborted) throw new CodedError('ABORTED', 'cancelled');
            let nonSpeech: SecondsRange[][] | null = null;
            if (pass) {
              const { segments, speech, energies } = await pass.finish();
              const windows = planSpeechWindows(energies, segments, message.sampleRate, maxSamples, message.align);
              // Onsets faded only where the segments keep a pad in front of the speech (onset-fade.ts).
              file = file.withWindows(message.vad && fadesFileOnsets(message.vad) ? windows : windows.map(({ onset: _onset, ...w }) => w));
              nonSpeech = file.windows.map((w) => windowNonSpeech(w, speech, message.sampleRate));
            }
            const handle = this.nextFile++;
            this.files.set(handle, file);
            if (nonSpeech) this.fileNonSpeech.set(handle, nonSpeech);
            return { handle, sampleRate: file.sampleRate, samples: file.samples, windows: file.windows, speechCut };
          } finally {
            pass?.dispose();
          }
        });
      case 'fileWindow':
        return this.trackFileJob(message.id, async (signal) => {
          const { model } = this.requireModel();
          const state = this.fileState();
          const file = this.files.get(message.handle);
          const range = file?.windows[message.index];
          if (!file || !range) throw new CodedError('NOT_FOUND', `no open file window ${message.handle}/${message.index}`);
          const { onsetFadeMs: _fade, ...options } = message.options;
          // A window where Silero found speech start begins in the pad's noise: faded in (onset-fade.ts).
          const read = await file.window(message.index, signal);
          const pcm = range.onset ? fadeInOnset(read, file.sampleRate) : read;
          // The vocabulary buys no word where the trained VAD heard no speech (the padding, a pause inside).
          const nonSpeech = message.options.vocabulary?.length ? this.fileNonSpeech.get(message.handle)?.[message.index] : undefined;
          const decoded = await this.firstUse.around(this.residentDevice(), async () => {
            const pending = state.transcribe(pcm, {
              ...options,
              ...(nonSpeech?.length ? { nonSpeech } : {}),
              sampleRate: file.sampleRate,
              maxWindowSec: oneWindowSec(range, file.sampleRate),
              signal,
            });
            if (this.crashOn === 'transcribe') this.die();
            return plain(await pending);
          });
          return windowInFile(decoded, range, file.sampleRate, model.info().frameSec);
        });
      case 'fileClose':
        void this.files.get(message.handle)?.close();
        this.files.delete(message.handle);
        this.fileNonSpeech.delete(message.handle);
        this.releaseFileState();
        return null;
      case 'streamBegin': {
        const { model } = this.requireModel();
        const info = model.info();
        if (!info.streaming) {
          throw new CodedError('BAD_ARGUMENT', `${info.name || 'this model'} is an offline model: live text re-decodes its segments instead of streaming`);
        }
        // One thread: a chunk is 2–14 encoder frames, too few to share, and dictation runs beside a file job.
        const stream = model.createStream({ ...message.options, threads: 1 });
        const handle = this.nextStream++;
        this.streams.set(handle, stream);
        const schedule = stream.info();
        return { handle, info: schedule, chunkAudioMs: ((schedule.melChunk * info.hopLength) / info.sampleRate) * 1000 };
      }
      case 'streamFeed':
        return this.track(message.id, async () =>
          plainChunks(await this.firstUse.around(this.residentDevice(), () => this.stream(message.handle).feed(message.pcm))));
      case 'streamEnd':
        return this.track(message.id, async () => {
          const stream = this.stream(message.handle);
          try {
            return plainChunks(await stream.end());
          } finally {
            this.streams.delete(message.handle);
            stream.dispose();
          }
        });
      case 'checkVocabulary':
        return this.requireModel().model.checkVocabulary(message.phrases, message.neverBoost);
      case 'streamClose':
        this.streams.get(message.handle)?.dispose();
        this.streams.delete(message.handle);
        return null;
      case 'validate':
        return this.track(message.id, async (signal) => {
          // CPU and mapped: proves the file loads without touching a GPU or the resident model. With the last
          // activation's weight type (and threads), so activating this file on the CPU adopts this model (and a
          // GPU activation's self-test takes it as its CPU reference) instead of loading the file again.
          const identity = await fileIdentity(message.path);
          const options: PlacementOptions = { device: 'cpu', threads: this.activation.threads, weightType: this.activation.weightType };
          const loading = this.loadModel(message.path, { ...options, mmap: true, signal });
          if (this.crashOn === 'validate') this.die();
          const probe = await loading;
          const info = probe.info();
          if (message.selfTest) {
            try {
              await selfTestConverted(probe, message.path, this.loadModel, signal);
            } catch (error) {
              probe.dispose();
              throw error;
            }
          }
          if (identity === null) probe.dispose();
          else this.staged.keep({ model: probe, identity, options });
          return info;
        });
      case 'listDevices':
        return listDevices();
      case 'probeSpeed': {
        // A feed-forward-sized Q8_0 matmul (the 110M model's bulk), a few calls: ~50 ms on 2 cores.
        const r = await benchMatmul({ type: 'q8_0', out: 2048, in: 512, tokens: 128, threads: message.threads, iterations: 6 });
        return { gflops: r.gflops, threads: message.threads };
      }
      case 'selfTest':
        return this.track(message.id, async (signal) => {
          const corrupt = this.corruptNext;
          this.corruptNext = null;
          const resident = this.requireModel();
          const tested = message.device ? { name: message.device, type: sameName(message.device, 'cpu') ? 'cpu' as const : 'gpu' as const } : this.residentDevice();
          return this.firstUse.around(tested, () => runSelfTest({
            resident: resident.model,
            residentState: resident.state,
            path: resident.path,
            device: message.device,
            trigger: message.trigger,
            corrupt,
            signal,
            load: this.loadModel,
            // A validation's CPU model of this file (a GPU activation did not adopt it): the CPU reference.
            cpuCopy: () => this.staged.take(resident.identity, (entry) => {
              const info = entry.model.info();
              return info.device.device.type === 'cpu' && !info.scheduled && info.weightType === resident.model.info().weightType;
            }),
          }));
        });
      case 'status':
        return { model: this.resident && !this.resident.model.disposed ? this.residentInfo(this.resident) : null, running: this.running.size };
      case 'vadLoad':
        return this.vad.load(message.path);
      case 'vadOpen':
        return this.vad.open();
      case 'vadPush':
        return this.vad.push(message.stream, message.pcm);
      case 'vadClose':
        return this.vad.close(message.stream);
      case 'diarizerLoad':
        return this.diarizer.load(message.path);
      case 'diarizerOpen':
        return this.diarizer.open();
      case 'diarizerPush':
        return this.diarizer.push(message.stream, message.pcm);
      case 'diarizerFinish':
        return this.diarizer.finish(message.stream);
      case 'diarizerClose':
        return this.diarizer.close(message.stream);
      case 'cancel':
        this.running.get(message.target)?.abort();
        return null;
      case 'crash':
        if (!this.opts.testHooks || !this.opts.kill) {
          throw new CodedError('NOT_SUPPORTED', 'the crash trigger is only available to tests of the engine process');
        }
        if (message.when === 'now') this.die();
        this.crashOn = message.when === 'nextValidate' ? 'validate' : 'transcribe';
        return null;
      case 'corruptSelfTest':
        if (!this.opts.testHooks) {
          throw new CodedError('NOT_SUPPORTED', 'the self-test corruption is only available to tests of the engine process');
        }
        this.corruptNext = message.how;
        return null;
      default:
        throw new CodedError('BAD_ARGUMENT', `unknown engine request ${(message as { op?: unknown }).op as string}`);
    }
  }

  /** The resident model's info under the path it was activated with (it may have been validated under another name). */
  private residentInfo(resident: Resident): ModelInfo {
    return { ...resident.model.info(), path: resident.path, threads: resident.state.info().threads };
  }

  private requireModel(): Resident {
    if (!this.resident || this.resident.model.disposed) throw new CodedError('NO_MODEL', 'no model is loaded; choose a model first');
    return this.resident;
  }

  private stream(handle: number): ModelStream {
    const stream = this.streams.get(handle);
    if (!stream) throw new CodedError('NOT_FOUND', `no open stream ${handle} (the model changed or the stream ended)`);
    return stream;
  }

  private closeStreams(): void {
    for (const stream of this.streams.values()) stream.dispose();
    this.streams.clear();
  }

  /** The resident model's file-job state (made on first use). */
  private fileState(): ModelState {
    const resident = this.requireModel();
    resident.fileState ??= resident.model.createState({ threads: resident.threads });
    return resident.fileState;
  }

  /** Frees the file-job state once no file is open and no file request runs. */
  private releaseFileState(): void {
    if (this.files.size > 0 || this.fileJobsRunning > 0 || !this.resident?.fileState) return;
    this.resident.fileState.dispose();
    this.resident.fileState = null;
  }

  private fileJobsRunning = 0;

  private async trackFileJob<T>(id: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    this.fileJobsRunning += 1;
    try {
      return await this.track(id, work);
    } finally {
      this.fileJobsRunning -= 1;
      this.releaseFileState();
    }
  }

  /** The resident model's device (null without a model): the decodes' device for FirstUse. */
  private residentDevice(): FirstUseDevice | null {
    if (!this.resident || this.resident.model.disposed) return null;
    const { name, type } = this.resident.model.info().device.device;
    return { name, type };
  }

  private async track<T>(id: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    this.running.set(id, controller);
    try {
      return await work(controller.signal);
    } finally {
      this.running.delete(id);
    }
  }

  /** Called right after the native call was started, so the death lands mid-request like a real fault. */
  private die(): void {
    this.opts.kill?.();
  }

  dispose(): void {
    for (const controller of this.running.values()) controller.abort();
    this.closeStreams();
    this.resident?.model.dispose();
    this.resident = null;
    this.staged.clear();
    for (const file of this.files.values()) void file.close();
    this.files.clear();
    this.fileNonSpeech.clear();
    this.vad.dispose();
  }
}
