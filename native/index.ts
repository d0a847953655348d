// The only module that loads the native addon (native/build/Release/parakeet.node).
// Everything the engine offers to JavaScript is typed here; the rest of the
// app imports these types and functions, never the .node file.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// The plain data shapes the engine returns are the IPC contract's (a leaf module that imports nothing), so
// what the engine reports and what the UI receives are one declaration, not two kept alike by hand.
import type {
  DecoderName, DeviceInfo, DeviceSelection, DeviceType, ModelDetails, TokenTiming, WeightType, Word,
} from '../app/ipc/engine-types.js';

export type { DecoderName, DeviceInfo, DeviceSelection, DeviceType, TokenTiming, WeightType, Word };

/** Stable error codes of engine errors (`err.code`). */
export type EngineErrorCode =
  | 'MODEL_INVALID'
  | 'DEVICE_UNAVAILABLE'
  | 'OUT_OF_MEMORY'
  | 'ABORTED'
  | 'BUSY'
  | 'BAD_AUDIO'
  | 'BAD_ARGUMENT'
  | 'INTERNAL'
  | 'ENGINE_MISSING';

export const ENGINE_ERROR_CODES: readonly EngineErrorCode[] = [
  'MODEL_INVALID', 'DEVICE_UNAVAILABLE', 'OUT_OF_MEMORY', 'ABORTED', 'BUSY', 'BAD_AUDIO', 'BAD_ARGUMENT', 'INTERNAL', 'ENGINE_MISSING',
];

export interface EngineError extends Error {
  code: EngineErrorCode;
}

export function isEngineError(value: unknown): value is EngineError {
  return value instanceof Error && typeof (value as { code?: unknown }).code === 'string' &&
    (ENGINE_ERROR_CODES as readonly string[]).includes((value as unknown as { code: string }).code);
}

export interface BuildInfo {
  ggmlVersion: string;
  ggmlCommit: string;
  ggmlSource: string;
  backendDl: boolean;
  backends: string[];
}

/**
 * What a loaded model reports: the diagnostics' ModelDetails (the contract's, path, heads, sizes, placed
 * types, device, load time) and the rest of the hyper-parameters.
 */
export interface ModelInfo extends ModelDetails {
  sampleRate: number;
  nFft: number;
  winLength: number;
  hopLength: number;
  subsamplingFactor: number;
  subsamplingChannels: number;
  xscaling: boolean;
  useBias: boolean;
  convNormType: string;
  normalize: string;
  attContextStyle: string;
  attContextLeft: number;
  attContextRight: number;
  blankId: number;
  maxSymbols: number;
  durations: number[];
  /** Seconds per encoder frame (0.08 for the published models). */
  frameSec: number;
  /** Engine CPU kernel ("f32_avx512", "f16_avx512", "q8_0_vnni", …) -> matmul weights it runs from a packed copy. */
  kernels: Record<string, number>;
}

export interface LoadOptions {
  /** Device name (case-insensitive: "cpu", "CUDA0", …); default: $PARAKEET_DEVICE, else the first GPU, else the CPU. */
  device?: string;
  /** CPU threads; 0 or absent = all hardware threads. */
  threads?: number;
  /** Weight layout chosen at load time (see README, "Weight types"). */
  weightType?: WeightType;
  /** Map the file (default true). */
  mmap?: boolean;
  /**
   * Route every graph through ggml_backend_sched even when the device has all the
   * kernels (normally only graphs the device cannot run whole take that path).
   */
  alwaysSchedule?: boolean;
  /**
   * Let the engine run matmul weights on its own CPU kernels where the CPU has the instructions
   * (F32 and F16 on AVX-512; Q8_0, Q4_K, 'int8' and 14-bit blocks on AVX512-VNNI; default true); false keeps ggml's
   * own kernels (comparisons, diagnostics).
   */
  packedKernels?: boolean;
  /**
   * Per encoder run, use `threads` or one thread, whichever its measured cost per frame says is
   * faster (default false): for busy machines, where spinning ggml workers make many threads slower.
   */
  adaptiveThreads?: boolean;
  signal?: AbortSignal;
  onProgress?: (fraction: number) => void;
}

/** One run state's compute (Model.createState); absent fields take the model's load options. */
export interface StateOptions {
  /** CPU threads of this state's pool; 0 = all hardware threads. */
  threads?: number;
  /** See LoadOptions.alwaysSchedule. */
  alwaysSchedule?: boolean;
  /** See LoadOptions.adaptiveThreads. */
  adaptiveThreads?: boolean;
}

export interface StateInfo {
  /** ggml device name (the model's). */
  device: string;
  threads: number;
  scheduled: boolean;
  adaptiveThreads: boolean;
}

export interface TranscribeOptions {
  /**
   * The rate `pcm` is at, checked: it must be the model's (`ModelInfo.sampleRate`, 16000), else
   * BAD_AUDIO. `pcm` is mono; the engine converts nothing (app/shared/resample.ts, app/shared/wav.ts do).
   */
  sampleRate?: number;
  decoder?: DecoderName | 'auto';
  /** NeMo's TDT greedy rule: 'greedy_batch' (NeMo's default) or 'greedy'. */
  tdtRule?: 'greedy_batch' | 'greedy';
  /** Greedy symbols per frame (0/absent = the model's value). */
  maxSymbols?: number;
  /** Clips longer than this are cut at pauses into windows of at most this length (default 60 s). */
  maxWindowSec?: number;
  captureMel?: boolean;
  captureEncoder?: boolean;
  captureLogits?: boolean;
  /** Time every encoder node (CPU graphs): TranscribeResult.profile. Slower than a normal run. */
  profile?: boolean;
  /** At most this many CPU threads for this call (0/absent: the state's own count). */
  maxThreads?: number;
  /**
   * Phrases the greedy decoders favour (custom vocabulary; app/shared/vocabulary.ts builds this from a
   * phrase list): at most 1,000, weights positive. Empty/absent: decoding exactly as without.
   */
  vocabulary?: readonly VocabularyPhrase[];
  /** Words and word sequences never boosted: a phrase holding one is rejected (the app passes its spoken commands). */
  neverBoost?: readonly string[];
  signal?: AbortSignal;
  onProgress?: (fraction: number) => void;
}

export interface VocabularyPhrase {
  phrase: string;
  /** 1 = the default bonus. */
  weight?: number;
}

export interface RejectedPhrase {
  phrase: string;
  /** Why it cannot be used: a character outside the model's vocabulary, a spoken command, … */
  reason: string;
}

export interface Timings {
  melMs: number;
  encoderMs: number;
  decoderMs: number;
  totalMs: number;
}

export interface TranscribeResult {
  text: string;
  words: Word[];
  tokens: TokenTiming[];
  durationSec: number;
  decoder: DecoderName;
  /** The device selected for the model. */
  device: string;
  /** Every device that executed part of the encoder graph in this call. */
  devicesRan: string[];
  timings: Timings;
  windows: { start: number; end: number }[];
  /** CPU threads the (last) encoder run used (LoadOptions.adaptiveThreads may pick one). */
  threadsUsed: number;
  /** Vocabulary phrases found in the text (TranscribeOptions.vocabulary), in order of first occurrence. */
  phrasesFired: string[];
  /** Vocabulary phrases that could not be used, with the reason. */
  phrasesRejected: RejectedPhrase[];
  /** First window: [bins][frames], time fastest. */
  mel?: { data: Float32Array; bins: number; frames: number; validFrames: number };
  /** First window: [frames][dim]. */
  encoder?: { data: Float32Array; frames: number; validFrames: number; dim: number };
  /** CTC, first window: log-probs [frames][classes]. */
  logProbs?: { data: Float32Array; classes: number };
  /** With TranscribeOptions.profile: encoder time by ggml op and by model part (matmuls by weight role). */
  profile?: EncoderProfile;
}

export interface NodeTime {
  ms: number;
  count: number;
}

export interface EncoderProfile {
  byOp: Record<string, NodeTime>;
  byPart: Record<string, NodeTime>;
}

// ---------------------------------------------------------------- the binary

interface NativeAbortFlag {
  abort(): void;
  readonly aborted: boolean;
}

interface NativeModelState {
  info(): StateInfo;
  transcribe(pcm: Float32Array, options: Record<string, unknown>, onProgress?: (f: number) => void): Promise<TranscribeResult>;
  dispose(): void;
  readonly disposed: boolean;
}

interface NativeModel {
  info(): ModelInfo;
  transcribe(pcm: Float32Array, options: Record<string, unknown>, onProgress?: (f: number) => void): Promise<TranscribeResult>;
  createState(options: Record<string, unknown>): NativeModelState;
  dispose(): void;
  readonly disposed: boolean;
}

interface NativeBinding {
  AbortFlag: new () => NativeAbortFlag;
  loadModel(path: string, options: Record<string, unknown>, onProgress?: (f: number) => void): Promise<NativeModel>;
  listDevices(): DeviceInfo[];
  selectDevice(name?: string): DeviceSelection;
  buildInfo(): BuildInfo;
  loadBackends(dir?: string): void;
  quantize(inPath: string, outPath: string, type: string): Promise<void>;
  setLogHandler(handler: ((level: string, message: string) => void) | null): void;
  benchMatmul(options: MatmulBenchOptions): Promise<MatmulBenchResult>;
}

export interface MatmulBenchOptions {
  /** ggml type name: "f32", "f16", "bf16", "q8_0", "q4_0", "q4_K", … */
  type: string;
  out: number;
  in: number;
  tokens: number;
  threads: number;
  iterations: number;
  /** Place the weight in the CPU's repacking buffer type (where ggml supports the type). */
  repack?: boolean;
}

export interface MatmulBenchResult {
  secondsPerCall: number;
  gflops: number;
  threadCpuSecondsPerCall: number;
}

const here = dirname(fileURLToPath(import.meta.url));

/** Where the addon is looked for: $PARAKEET_ADDON, then the build folder (from source or from dist/). */
export function addonCandidates(): string[] {
  const candidates: string[] = [];
  if (process.env.PARAKEET_ADDON) candidates.push(resolve(process.env.PARAKEET_ADDON));
  for (const base of [here, join(here, '..'), join(here, '..', '..')]) {
    candidates.push(join(base, 'native', 'build', 'Release', 'parakeet.node'));
    candidates.push(join(base, 'build', 'Release', 'parakeet.node'));
  }
  const resources = (process as { resourcesPath?: string }).resourcesPath;
  if (resources) candidates.push(join(resources, 'native', 'parakeet.node'));
  return [...new Set(candidates)];
}

let binding: NativeBinding | undefined;

function engineMissing(): EngineError {
  const error = new Error(
    'the native engine is not built (native/build/Release/parakeet.node is missing); run "npm run build:native"',
  ) as EngineError;
  error.code = 'ENGINE_MISSING';
  return error;
}

/** Loads the addon once; throws ENGINE_MISSING when it has not been built. */
export function native(): NativeBinding {
  if (binding) return binding;
  const path = addonCandidates().find((p) => existsSync(p));
  if (!path) throw engineMissing();
  const require = createRequire(import.meta.url);
  const loaded = require(path) as NativeBinding;
  loaded.loadBackends(dirname(path));
  binding = loaded;
  return loaded;
}

export function engineAvailable(): boolean {
  try {
    native();
    return true;
  } catch {
    return false;
  }
}

export function listDevices(): DeviceInfo[] {
  return native().listDevices();
}

export function selectDevice(name?: string): DeviceSelection {
  return native().selectDevice(name);
}

export function buildInfo(): BuildInfo {
  return native().buildInfo();
}

export function setLogHandler(handler: ((level: string, message: string) => void) | null): void {
  native().setLogHandler(handler);
}

/** Re-quantizes the matmul weights of a model file (spec §1.7) into `outPath`. */
export async function quantizeModel(inPath: string, outPath: string, type: string): Promise<void> {
  return native().quantize(inPath, outPath, type);
}

/** ggml's mul_mat rate on the CPU for one weight type and shape (benchmarks). */
export async function benchMatmul(options: MatmulBenchOptions): Promise<MatmulBenchResult> {
  return native().benchMatmul(options);
}

function abortError(): EngineError {
  const error = new Error('cancelled') as EngineError;
  error.code = 'ABORTED';
  return error;
}

function linkSignal(signal: AbortSignal | undefined): { flag: NativeAbortFlag; unlink: () => void } {
  const flag = new (native().AbortFlag)();
  if (!signal) return { flag, unlink: () => {} };
  if (signal.aborted) flag.abort();
  const onAbort = () => flag.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  return { flag, unlink: () => signal.removeEventListener('abort', onAbort) };
}

async function withSignal<T>(signal: AbortSignal | undefined, run: (flag: NativeAbortFlag) => Promise<T>): Promise<T> {
  if (signal?.aborted) throw abortError();
  const { flag, unlink } = linkSignal(signal);
  try {
    return await run(flag);
  } finally {
    unlink();
  }
}

function transcribeOn(
  handle: NativeModel | NativeModelState, pcm: Float32Array, options: TranscribeOptions,
): Promise<TranscribeResult> {
  return withSignal(options.signal, (flag) => {
    const { signal: _signal, onProgress, ...rest } = options;
    return handle.transcribe(pcm, { ...rest, abortFlag: flag }, onProgress);
  });
}

/**
 * One run state of a model (Model.createState): its own compute buffers, CPU thread pool and decoder
 * scratch over the model's shared weights. Transcriptions on different states run concurrently (each on
 * its own native thread); one state runs one at a time (a concurrent call rejects with BUSY).
 */
export class ModelState {
  /** @internal made by Model.createState */
  constructor(private readonly handle: NativeModelState, private readonly onDispose: (state: ModelState) => void) {}

  info(): StateInfo {
    return this.handle.info();
  }

  get disposed(): boolean {
    return this.handle.disposed;
  }

  /** Transcribes float PCM on this state; compute runs on a native thread. */
  transcribe(pcm: Float32Array, options: TranscribeOptions = {}): Promise<TranscribeResult> {
    return transcribeOn(this.handle, pcm, options);
  }

  /** Frees this state's buffers (its transcription in flight is aborted first); the model stays. */
  dispose(): void {
    this.handle.dispose();
    this.onDispose(this);
  }
}

/**
 * A loaded Parakeet model: the weights, read-only and shared by its states. `transcribe` runs on the
 * model's default state, one call at a time (a concurrent call rejects with BUSY); `createState` makes
 * more states for work that runs in parallel (e.g. dictation beside a file job).
 */
export class Model {
  private readonly states = new Set<ModelState>();

  private constructor(private readonly handle: NativeModel) {}

  /** Loads a GGUF model on a worker thread (never blocks the event loop). */
  static async load(path: string, options: LoadOptions = {}): Promise<Model> {
    return withSignal(options.signal, async (flag) => {
      const handle = await native().loadModel(
        path,
        {
          device: options.device, threads: options.threads, weightType: options.weightType, mmap: options.mmap,
          alwaysSchedule: options.alwaysSchedule, packedKernels: options.packedKernels,
          adaptiveThreads: options.adaptiveThreads, abortFlag: flag,
        },
        options.onProgress,
      );
      return new Model(handle);
    });
  }

  info(): ModelInfo {
    return this.handle.info();
  }

  get disposed(): boolean {
    return this.handle.disposed;
  }

  /** Transcribes float PCM on the default state; compute runs on a native thread. */
  transcribe(pcm: Float32Array, options: TranscribeOptions = {}): Promise<TranscribeResult> {
    return transcribeOn(this.handle, pcm, options);
  }

  /**
   * A new run state on the model's device (synchronous, milliseconds: backend objects and a thread pool,
   * no weights). Absent options take the model's load options.
   */
  createState(options: StateOptions = {}): ModelState {
    const state = new ModelState(this.handle.createState({ ...options }), (s) => this.states.delete(s));
    this.states.add(state);
    return state;
  }

  /** Frees the weights and every state made from them (transcriptions in flight are aborted first). */
  dispose(): void {
    for (const state of [...this.states]) state.dispose();
    this.handle.dispose();
  }
}
