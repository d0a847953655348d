// The only module that loads the native addon (native/build/Release/parakeet.node).
// Everything the engine offers to JavaScript is typed here; the rest of the
// app imports these types and functions, never the .node file.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { freemem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// The plain data shapes the engine returns live on the bottom floor (types/, imports nothing), which the IPC
// contract re-exports: what the engine reports and what the UI receives are one declaration. native/ imports
// nothing from app/ (eslint.config.js).
import type {
  DecoderName, DeviceInfo, DeviceSelection, DeviceType, GpuProperties, ModelDetails, TokenTiming, WeightType, Word,
} from '../types/engine.js';
import { ENGINE_ERROR_CODES, type EngineErrorCode } from '../types/errors.js';
import type { NativeDiarizer } from '../types/diarizer.js';
import { DEFAULT_MAX_WINDOW_SEC, planWindows } from './windows.js';

export type { DecoderName, DeviceInfo, DeviceSelection, DeviceType, GpuProperties, TokenTiming, WeightType, Word };

/** Stable error codes of engine errors (`err.code`): types/errors.ts, the one list. */
export { ENGINE_ERROR_CODES, type EngineErrorCode };

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
  /**
   * Loadable backends next to the addon that did not register, each "<Name>: <why>" (distributable builds: e.g.
   * "Vulkan: its library could not be loaded: libvulkan.so.1: cannot open shared object file…"); empty otherwise.
   */
  backendsNotLoaded: string[];
  /** The kernel registry's ids, in order of preference (ModelInfo.kernels names these): matmul rows and fused ops. */
  kernelIds: { matmul: string[]; ops: string[] };
}

/**
 * What a loaded model reports: the diagnostics' ModelDetails (the contract's, path, heads, sizes, placed
 * types, device, load time) and the rest of the hyper-parameters.
 */
/** One component of a parakeet.cpp bundle GGUF, from its header. */
export interface BundleComponent {
  /** Key and tensor prefix ("asr", "vad", …). */
  name: string;
  /** "asr", "vad", or a kind this engine does not load. */
  kind: string;
  license: string;
  source: string;
  attribution: string;
  tensors: number;
  bytes: number;
  /** The component this model was loaded from. */
  loaded: boolean;
}

export interface ModelInfo extends ModelDetails {
  /** The file's GGUF schema: "parakeet.cpp", "NeMo-Speech.cpp" or "parakeet.cpp bundle (… component)". */
  schema: string;
  /** A bundle's components in file order; empty for a single-model file. */
  components: BundleComponent[];
  /** Size of the SentencePiece model the file embeds (Model.sentencePieceModel()); 0 = none. */
  sentencePieceBytes: number;
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
  /**
   * Every engine CPU kernel a call runs, by its registry id (`npm run docs:kernel-table`): a matmul row ("f32_avx512",
   * "q8_0_vnni", on CPUs without AVX-512 "f32_avx2", "q8_0_avx2", …) -> the weights it runs from a packed copy; a fused
   * op ("layer_norm_avx512", "attention_i16_vnni", …) -> the layers it runs in (LSTM layers for "lstm_cell_avx512",
   * decoder matrices for "f32_gemv_avx512"), 1 for once a call ("log_mel_avx512").
   */
  kernels: Record<string, number>;
  /** A cache-aware streaming model (Model.createStream works): chunked_limited, causal convs, normalize NA, RNNT. */
  streaming: boolean;
  /** Streaming attention presets [left, right] in encoder frames; the first is the default. Empty for offline models. */
  attContextPresets: [number, number][];
  /** A language-prompt model (Nemotron-3.5): `languages` are its locales, `defaultLanguage` its parakeet.prompt.default_lang. */
  hasPrompt: boolean;
  languages: string[];
  defaultLanguage: string;
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
  /**
   * Clips longer than this are cut at pauses into windows of at most this length (default 60 s), planned
   * here (windows.ts, the planner file jobs use) and checked by the engine.
   */
  maxWindowSec?: number;
  captureMel?: boolean;
  captureEncoder?: boolean;
  captureLogits?: boolean;
  /** Time every encoder node (CPU graphs): TranscribeResult.profile. Slower than a normal run. */
  profile?: boolean;
  /** At most this many CPU threads for this call (0/absent: the state's own count). */
  maxThreads?: number;
  /** Language-prompt models (ModelInfo.hasPrompt): a locale of ModelInfo.languages or 'auto' (absent = 'auto'). */
  language?: string;
  /**
   * Phrases the greedy decoders favour (custom vocabulary; app/shared/vocabulary.ts builds this from a
   * phrase list): at most 1,000, weights positive. Empty/absent: decoding exactly as without.
   */
  vocabulary?: readonly VocabularyPhrase[];
  /** Words and word sequences never boosted: a phrase holding one is rejected (the app passes its spoken commands). */
  neverBoost?: readonly string[];
  /**
   * Seconds of the input a VAD marks as non-speech: the vocabulary buys no decision there (a phrase the
   * model says there unaided is still reported in phrasesFired).
   */
  nonSpeech?: readonly { start: number; end: number }[];
  signal?: AbortSignal;
  onProgress?: (fraction: number) => void;
}

/** Model.createStream / ModelState.createStream. */
export interface StreamOptions {
  /** An attention preset of ModelInfo.attContextPresets ([left, right]); absent = the default (the first). */
  attContext?: [number, number];
  /** Prompt models: a locale of ModelInfo.languages, or 'auto' (absent = 'auto'). */
  language?: string;
  /** Greedy symbols per frame (0/absent = the model's value). */
  maxSymbols?: number;
  /** Keep each chunk's encoder frames (StreamChunk.encoded; tests). */
  captureEncoder?: boolean;
  /**
   * Phrases the stream's decoder favours (TranscribeOptions.vocabulary), committed tokens only: the phrase
   * state carries across chunks and a chunk never changes once returned. Empty/absent: decoding exactly as without.
   */
  vocabulary?: readonly VocabularyPhrase[];
  /** TranscribeOptions.neverBoost. */
  neverBoost?: readonly string[];
  /** Seconds from the stream's start a VAD marks as non-speech (TranscribeOptions.nonSpeech): no bonus there. */
  nonSpeech?: readonly { start: number; end: number }[];
  /** Time every chunk after the first node by node (StreamChunk.profile; benchmarks — slower than unprofiled). */
  profile?: boolean;
}

/** Model.createStream: the stream's options and its own state's. */
export interface ModelStreamOptions extends StreamOptions {
  /** CPU threads of the stream's own state (0/absent = the model's load option). */
  threads?: number;
}

/** A stream's timed event: end of utterance / backchannel, or a language tag (Nemotron-3.5). */
export interface StreamEvent {
  type: 'eou' | 'eob' | 'lang';
  /** Global encoder frame of the token (× ModelInfo.frameSec = seconds from the stream's start). */
  frame: number;
  tokenId: number;
  /** 'lang': the locale of the tag ("en-US" for <en-US>). */
  language?: string;
}

/** What one streaming step (one encoder chunk) committed; committed tokens never change. */
export interface StreamChunk {
  /** Global encoder frame of the chunk's first frame, and how many it produced. */
  firstFrame: number;
  frames: number;
  /** Every emitted token id in order, <EOU>/<EOB>/language tags included. */
  tokenIds: number[];
  /** Global encoder frame of each. */
  tokenFrames: number[];
  events: StreamEvent[];
  /** These tokens' text (special pieces removed); chunk texts concatenate into the stream's text. */
  text: string;
  /** The text tokens with times (special pieces removed), as TranscribeResult.tokens. */
  tokens: TokenTiming[];
  /** Their words; the first continues the previous chunk's last word when `continuesWord` (joinStreamWords merges). */
  words: Word[];
  continuesWord: boolean;
  /** An <EOU>/<EOB> was emitted: the decoder restarted from SOS after this chunk (encoder caches kept). */
  decoderReset: boolean;
  /** Vocabulary phrases completed in this chunk (a phrase may begin in an earlier one). */
  phrasesFired: string[];
  /** With StreamOptions.captureEncoder: the chunk's encoder frames [frames][dModel]. */
  encoded?: Float32Array;
  /** Wall time of the chunk's encoder graph (inputs, run, outputs) and of its RNNT greedy decode, ms. */
  encoderMs: number;
  decoderMs: number;
  /** The same as the engine thread's CPU time (all of the compute at one thread; steady on a busy machine). */
  encoderCpuMs: number;
  decoderCpuMs: number;
  /** With StreamOptions.profile (chunks after the first): the encoder graph by op and by part. */
  profile?: EncoderProfile;
}

/** The words of a stream's chunks in order, a word cut by a chunk boundary joined again. */
export function joinStreamWords(chunks: readonly StreamChunk[]): Word[] {
  const words: Word[] = [];
  for (const chunk of chunks) {
    chunk.words.forEach((word, i) => {
      const last = words[words.length - 1];
      if (i === 0 && chunk.continuesWord && last !== undefined) {
        words[words.length - 1] = { text: last.text + word.text, start: last.start, end: word.end, confidence: Math.min(last.confidence, word.confidence) };
      } else {
        words.push({ ...word });
      }
    });
  }
  return words;
}

/** The schedule of a stream's preset (NeMo setup_streaming_params). */
export interface StreamInfo {
  attLeft: number;
  attRight: number;
  /** Encoder frames per chunk (attRight + 1). */
  chunkFrames: number;
  /** New mel frames of the first chunk and of each later one. */
  melFirst: number;
  melChunk: number;
  preEncodeCache: number;
  dropExtra: number;
  /** The prompt's locale ('auto' or one of ModelInfo.languages); '' without a prompt. */
  language: string;
  promptIndex: number;
  /** StreamOptions.vocabulary phrases that could not be used, with the reason. */
  phrasesRejected: RejectedPhrase[];
}

export interface VocabularyPhrase {
  phrase: string;
  /** 1 = the default bonus. */
  weight?: number;
}

/** Model.checkVocabulary: one phrase's verdict. */
export interface PhraseCheck {
  phrase: string;
  /** Why it cannot be used (characters outside the model's pieces, a spoken command, …); absent when it can. */
  reason?: string;
  /** The piece sequences it is boosted as (casings, segmentations); empty when rejected. */
  spellings: string[][];
  /** Tokenized by the file's embedded SentencePiece model (exact), else enumerated from the piece list. */
  exact: boolean;
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
  /** The engine thread's CPU time in these nodes (all of it at one thread; steady on a busy machine). */
  cpuMs: number;
  /**
   * The engine's own ops (`measured` of the `count` nodes): CPU time of each thread inside its own share of
   * them, by ggml's thread index, the barrier wait after it excluded (native/engine/runtime/thread_work.h).
   */
  threadMs: number[];
  /** Σ over the measured nodes of the busiest thread's share: what the nodes took had no thread waited on another. */
  busiestMs: number;
  measured: number;
  /** Nodes ggml gave one thread while more were active (serial ops). */
  oneThread: number;
}

export interface EncoderProfile {
  byOp: Record<string, NodeTime>;
  byPart: Record<string, NodeTime>;
  /** CPU threads the profiled graphs ran with (0 on a GPU). */
  threads: number;
}

// ---------------------------------------------------------------- the binary

interface NativeAbortFlag {
  abort(): void;
  readonly aborted: boolean;
}

interface NativeStream {
  info(): StreamInfo;
  feed(pcm: Float32Array): Promise<StreamChunk[]>;
  end(): Promise<StreamChunk[]>;
  dispose(): void;
}

interface NativeModelState {
  info(): StateInfo;
  transcribe(pcm: Float32Array, options: Record<string, unknown>, onProgress?: (f: number) => void): Promise<TranscribeResult>;
  createStream(options: Record<string, unknown>): NativeStream;
  dispose(): void;
  readonly disposed: boolean;
}

interface NativeModel {
  info(): ModelInfo;
  sentencePieceModel(): Uint8Array | null;
  checkVocabulary(phrases: readonly VocabularyPhrase[], neverBoost: readonly string[]): PhraseCheck[];
  transcribe(pcm: Float32Array, options: Record<string, unknown>, onProgress?: (f: number) => void): Promise<TranscribeResult>;
  createState(options: Record<string, unknown>): NativeModelState;
  dispose(): void;
  readonly disposed: boolean;
}

interface NativeVadStream {
  process(pcm: Float32Array): Promise<Float32Array>;
  flush(): Promise<Float32Array>;
  reset(): void;
  dispose(): void;
  readonly sampleRate: VadSampleRate;
  readonly chunkSamples: number;
}

interface NativeVadModel {
  info(): VadModelInfo;
  createStream(sampleRate: number): NativeVadStream;
  dispose(): void;
}

interface NativeBinding {
  AbortFlag: new () => NativeAbortFlag;
  loadVadModel(path: string): Promise<NativeVadModel>;
  loadDiarizer(path: string, options: Record<string, unknown>): Promise<NativeDiarizer>;
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

/**
 * The CPU device's free memory is the host's available memory. ggml's CPU device reports its total for
 * both (it has no allocator of its own to ask), so `devices` said "23.5 GiB free of 23.5 GiB".
 */
function withHostMemory(device: DeviceInfo): DeviceInfo {
  if (device.type !== 'cpu') return device;
  return { ...device, memoryFree: Math.min(device.memoryTotal, freemem()) };
}

export function listDevices(): DeviceInfo[] {
  return native().listDevices().map(withHostMemory);
}

export function selectDevice(name?: string): DeviceSelection {
  const selection = native().selectDevice(name);
  return { ...selection, device: withHostMemory(selection.device) };
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

/** A model's time grid, for planning its windows: its sample rate and the samples of one encoder frame. */
interface WindowGrid {
  sampleRate: number;
  frameSamples: number;
}

function windowGrid(info: { sampleRate: number; hopLength: number; subsamplingFactor: number }): WindowGrid {
  return { sampleRate: info.sampleRate, frameSamples: info.hopLength * info.subsamplingFactor };
}

/**
 * The windows a clip longer than maxWindowSec is cut into (windows.ts, the planner file jobs use too), or
 * none: a clip that fits is one window, and options the engine refuses (a rate that is not the model's, a
 * maxWindowSec out of 1..3600) are left to its error, which names them.
 */
function oneCallWindows(pcm: Float32Array, grid: WindowGrid, options: TranscribeOptions): { begin: number; end: number }[] | undefined {
  const maxWindowSec = options.maxWindowSec ?? DEFAULT_MAX_WINDOW_SEC;
  if ((options.sampleRate ?? grid.sampleRate) !== grid.sampleRate || !(maxWindowSec >= 1 && maxWindowSec <= 3600)) return undefined;
  const maxSamples = Math.trunc(maxWindowSec * grid.sampleRate);
  return pcm.length > maxSamples ? planWindows(pcm, grid.sampleRate, maxSamples, grid.frameSamples) : undefined;
}

function transcribeOn(
  handle: NativeModel | NativeModelState, grid: WindowGrid, pcm: Float32Array, options: TranscribeOptions,
): Promise<TranscribeResult> {
  return withSignal(options.signal, (flag) => {
    const { signal: _signal, onProgress, ...rest } = options;
    const windows = oneCallWindows(pcm, grid, options);
    return handle.transcribe(pcm, { maxWindowSec: DEFAULT_MAX_WINDOW_SEC, ...rest, ...(windows ? { windows } : {}), abortFlag: flag }, onProgress);
  });
}

/**
 * One run state of a model (Model.createState): its own compute buffers, CPU thread pool and decoder
 * scratch over the model's shared weights. Transcriptions on different states run concurrently (each on
 * its own native thread); one state runs one at a time (a concurrent call rejects with BUSY).
 */
export class ModelState {
  /** @internal made by Model.createState */
  constructor(
    private readonly handle: NativeModelState, private readonly grid: WindowGrid, private readonly onDispose: (state: ModelState) => void,
  ) {}

  info(): StateInfo {
    return this.handle.info();
  }

  get disposed(): boolean {
    return this.handle.disposed;
  }

  /** Transcribes float PCM on this state; compute runs on a native thread. */
  transcribe(pcm: Float32Array, options: TranscribeOptions = {}): Promise<TranscribeResult> {
    return transcribeOn(this.handle, this.grid, pcm, options);
  }

  /**
   * Begins a cache-aware stream computing on this state (ModelInfo.streaming models; BAD_ARGUMENT names
   * the presets or locales when the options ask for one the model lacks). This state computes one thing
   * at a time: a transcription or a chunk of any of its streams (BUSY otherwise).
   */
  createStream(options: StreamOptions = {}, /** @internal run when the stream is disposed */ onDispose: () => void = () => undefined): ModelStream {
    return new ModelStream(this.handle.createStream(nativeStreamOptions(options)), onDispose);
  }

  /** Frees this state's buffers (its transcription in flight is aborted first); the model stays. */
  dispose(): void {
    this.handle.dispose();
    this.onDispose(this);
  }
}

function nativeStreamOptions(options: StreamOptions): Record<string, unknown> {
  const [attLeft, attRight] = options.attContext ?? [-1, -1];
  return {
    attLeft, attRight, language: options.language ?? '', maxSymbols: options.maxSymbols ?? 0, captureEncoder: options.captureEncoder ?? false,
    vocabulary: options.vocabulary ?? [], neverBoost: options.neverBoost ?? [], nonSpeech: options.nonSpeech ?? [], profile: options.profile ?? false,
  };
}

/**
 * One cache-aware stream (Model.createStream): feed PCM blocks of any size, get the chunks each block
 * completed; end() processes the tail (the final partial chunk included). Calls are queued, so a caller
 * may feed without awaiting; compute runs on a native thread, never on the JS thread.
 */
export class ModelStream {
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  /** @internal made by Model.createStream / ModelState.createStream */
  constructor(private readonly handle: NativeStream, private readonly onDispose: () => void) {}

  info(): StreamInfo {
    return this.handle.info();
  }

  /** Appends mono float PCM at the model's rate; resolves to the chunks it completed (often none). */
  feed(pcm: Float32Array): Promise<StreamChunk[]> {
    if (this.closed) return Promise.reject(Object.assign(new Error('this stream has ended or was disposed'), { code: 'BAD_ARGUMENT' }));
    const copy = pcm.slice();  // the caller may reuse its buffer before the queued call runs
    return this.enqueue(() => this.handle.feed(copy));
  }

  /** Ends the stream: the final mel frames and the final partial chunk. */
  end(): Promise<StreamChunk[]> {
    if (this.closed) return Promise.reject(Object.assign(new Error('this stream has ended or was disposed'), { code: 'BAD_ARGUMENT' }));
    this.closed = true;
    return this.enqueue(() => this.handle.end());
  }

  /** Frees the stream (and its own state, for streams made by Model.createStream) once its queued calls are done. */
  dispose(): void {
    this.closed = true;
    void this.queue.then(() => {
      this.handle.dispose();
      this.onDispose();
    });
  }

  private enqueue<T>(call: () => Promise<T>): Promise<T> {
    const next = this.queue.then(call, call);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/**
 * A loaded Parakeet model: the weights, read-only and shared by its states. `transcribe` runs on the
 * model's default state, one call at a time (a concurrent call rejects with BUSY); `createState` makes
 * more states for work that runs in parallel (e.g. dictation beside a file job).
 */
/** Longest model name passed on (characters): a GGUF may name itself with anything, 70 000 characters included. */
export const MAX_MODEL_NAME_CHARS = 120;

/**
 * The model's self-declared name (general.name) as every caller shows it — `info`, engine:status, History's
 * entries: control characters as spaces, and cut with an ellipsis and its full length past MAX_MODEL_NAME_CHARS.
 */
export function displayName(name: string): string {
  const clean = name.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  const chars = [...clean];
  if (chars.length <= MAX_MODEL_NAME_CHARS) return clean;
  return `${chars.slice(0, MAX_MODEL_NAME_CHARS).join('')}… (${chars.length} characters)`;
}

export class Model {
  private readonly states = new Set<ModelState>();

  private readonly grid: WindowGrid;

  private constructor(private readonly handle: NativeModel) {
    this.grid = windowGrid(handle.info());
  }

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
    const info = this.handle.info();
    return { ...info, name: displayName(info.name) };
  }

  /**
   * The SentencePiece model proto the file embeds (NVIDIA NeMo-Speech.cpp files store it), for exact
   * text → tokens; null when the file has none (parakeet.cpp files store the pieces only).
   */
  sentencePieceModel(): Uint8Array | null {
    return this.handle.sentencePieceModel();
  }

  /**
   * Per phrase in order: whether the vocabulary boosts it and as which pieces (compiled as a
   * transcription compiles it; BAD_ARGUMENT as transcribe for more than 1,000 phrases or a bad weight).
   */
  checkVocabulary(phrases: readonly VocabularyPhrase[], neverBoost: readonly string[] = []): PhraseCheck[] {
    return this.handle.checkVocabulary(phrases, neverBoost);
  }

  get disposed(): boolean {
    return this.handle.disposed;
  }

  /** Transcribes float PCM on the default state; compute runs on a native thread. */
  transcribe(pcm: Float32Array, options: TranscribeOptions = {}): Promise<TranscribeResult> {
    return transcribeOn(this.handle, this.grid, pcm, options);
  }

  /**
   * A new run state on the model's device (synchronous, milliseconds: backend objects and a thread pool,
   * no weights). Absent options take the model's load options.
   */
  createState(options: StateOptions = {}): ModelState {
    const state = new ModelState(this.handle.createState({ ...options }), this.grid, (s) => this.states.delete(s));
    this.states.add(state);
    return state;
  }

  /**
   * Begins a cache-aware stream on a state of its own (so streams run in parallel with each other and
   * with transcriptions): `attContext` picks a preset of ModelInfo.attContextPresets, `language` a locale
   * of a prompt model (or 'auto'). Disposing the stream frees its state.
   */
  createStream(options: ModelStreamOptions = {}): ModelStream {
    const { threads, ...streamOptions } = options;
    const state = this.createState(threads !== undefined ? { threads } : {});
    try {
      return state.createStream(streamOptions, () => state.dispose());
    } catch (error) {
      state.dispose();
      throw error;
    }
  }

  /** Frees the weights and every state made from them (transcriptions in flight are aborted first). */
  dispose(): void {
    for (const state of [...this.states]) state.dispose();
    this.handle.dispose();
  }
}

// ---------------------------------------------------------------- Silero VAD

/** The rates Silero VAD has weights for; other audio is resampled to 16 kHz first. */
export type VadSampleRate = 16000 | 8000;

export interface VadModelInfo {
  path: string;
  name: string;
  /** The converted ONNX's Silero version ("v6.2", "v5.1.2", "unknown"). */
  sourceVersion: string;
  sourceSha256: string;
  /** Type of the conv and LSTM weights. */
  weightType: 'f32' | 'f16';
  sampleRates: number[];
  fileSize: number;
  /** The parakeet.cpp bundle component it was read from (its "vad" component); "" for a Silero GGUF. */
  bundleComponent: string;
}

/**
 * One audio source's Silero state (the previous chunk's context samples and the LSTM h/c). Calls run on a
 * native worker thread, one at a time per stream (a concurrent call rejects with BUSY); different streams
 * run at the same time. Each stream computes on its own one-thread CPU backend and graph: it shares no
 * thread pool or buffer with the ASR model, so it never waits for a transcription nor delays one.
 */
export class VadStream {
  /** @internal made by VadModel.createStream */
  constructor(private readonly handle: NativeVadStream) {}

  get sampleRate(): VadSampleRate {
    return this.handle.sampleRate;
  }

  /** Samples per chunk: 512 at 16 kHz, 256 at 8 kHz (32 ms). */
  get chunkSamples(): number {
    return this.handle.chunkSamples;
  }

  /** Appends samples; resolves with one speech probability per chunk they complete (the rest waits). */
  async process(pcm: Float32Array): Promise<Float32Array> {
    return this.handle.process(pcm);  // async: a BUSY or BAD_ARGUMENT thrown at the call becomes a rejection
  }

  /** The waiting remainder zero-padded to a chunk: one probability, or none when nothing waits. */
  async flush(): Promise<Float32Array> {
    return this.handle.flush();
  }

  /** Forgets context, LSTM state and waiting samples (a new recording on the same stream). */
  reset(): void {
    this.handle.reset();
  }

  dispose(): void {
    this.handle.dispose();
  }
}

/** Silero VAD weights (the GGUF of spec §8, both rates), read-only and shared by its streams. */
export class VadModel {
  private constructor(private readonly handle: NativeVadModel) {}

  /** Loads a Silero VAD GGUF on a worker thread; rejects MODEL_INVALID naming what the file is otherwise. */
  static async load(path: string): Promise<VadModel> {
    return new VadModel(await native().loadVadModel(path));
  }

  info(): VadModelInfo {
    return this.handle.info();
  }

  /** A new stream at 16000 or 8000 Hz (synchronous: a small graph, no weights). */
  createStream(sampleRate: VadSampleRate): VadStream {
    return new VadStream(this.handle.createStream(sampleRate));
  }

  /** Drops this handle's hold on the weights; streams made from it keep working until disposed. */
  dispose(): void {
    this.handle.dispose();
  }
}

