// The message protocol between main (EngineHost) and the engine process
// (engine-process.ts → EngineCore). Messages are structured-cloned (Node
// `serialization: 'advanced'`, Electron utilityProcess), so Float32Array PCM
// travels as is. Every request carries an id; the engine answers each id
// exactly once with a result, and may send progress for it before that.
import type { ActivityChunk, EngineDiarizerStatus } from './engine-diarizer.js';
import type { DeviceSelfTest, IpcError } from '../ipc/contract.js';
import type { VocabularyPhrase } from '../shared/vocabulary.js';
import type {
  BuildInfo, DecoderName, DeviceInfo, ModelInfo, PhraseCheck, StreamChunk, StreamInfo, TranscribeResult, WeightType,
} from '../../native/index.js';

export interface EngineLoadOptions {
  /** ggml device name; absent = the engine's automatic choice. */
  device?: string;
  threads?: number;
  weightType?: WeightType;
}

export interface EngineTranscribeOptions {
  sampleRate?: number;
  decoder?: DecoderName | 'auto';
  maxWindowSec?: number;
  /** At most this many CPU threads for this call (the host splits them between dictation and a file window). */
  maxThreads?: number;
  /** Custom vocabulary (settings.text.vocabulary through app/shared/vocabulary.ts vocabularyOptions). */
  vocabulary?: VocabularyPhrase[];
  neverBoost?: string[];
  /** Seconds the session's VAD marks as non-speech (pre-roll, closing pause): no vocabulary bonus there. */
  nonSpeech?: { start: number; end: number }[];
  /** The clip begins at a trained VAD's onset: its first ms are faded in before decoding (app/shared/onset-fade.ts). */
  onsetFadeMs?: number;
}

/** A transcription as it crosses the process boundary (no debug captures). */
export type EngineTranscript = Omit<TranscribeResult, 'mel' | 'encoder' | 'logProbs'>;

/** An opened file job: its windows in samples at `sampleRate` (the model's). */
export interface EngineFileHandle {
  handle: number;
  sampleRate: number;
  samples: number;
  windows: { begin: number; end: number; onset?: boolean }[];
  /**
   * What planned the windows: the Silero VAD that ran over the file ("Silero VAD v6.2 (F32)"), or none (the
   * energy-based planner: the whole file). A job asked for Silero gets none when no Silero is loaded by then.
   */
  speechCut: { detector: 'silero'; model: string } | { detector: 'energy' };
}

/** streamBegin: a cache-aware stream on the resident streaming model (ModelInfo.streaming). */
export interface EngineStreamOptions {
  /** One of ModelInfo.attContextPresets; absent = the model's default (the first). */
  attContext?: [number, number];
  /** Prompt models (Nemotron-3.5): one of ModelInfo.languages, or 'auto' (absent = 'auto'). */
  language?: string;
  /** Custom vocabulary (StreamOptions.vocabulary / neverBoost / nonSpeech); absent or empty: none. */
  vocabulary?: VocabularyPhrase[];
  neverBoost?: string[];
  nonSpeech?: { start: number; end: number }[];
}

/** An opened stream: its handle in the engine process and its schedule (chunk sizes, preset, language). */
export interface EngineStreamHandle {
  handle: number;
  info: StreamInfo;
  /** Audio per chunk after the first (the preset's new mel frames × hop), ms. */
  chunkAudioMs: number;
}

/** A streaming step as it crosses the process boundary (no debug captures). */
export type EngineStreamChunk = Omit<StreamChunk, 'encoded'>;

/** The voice-activity detector the engine runs: Silero (a GGUF loaded) or none (the callers' energy VAD). */
export type EngineVadStatus =
  /** bundleComponent: the parakeet.cpp bundle component it came from (the loaded model's "vad"); absent for a Silero GGUF. */
  | { kind: 'silero'; path: string; sourceVersion: string; weightType: 'f32' | 'f16'; bundleComponent?: string }
  | { kind: 'energy'; reason: string };

/** How speech segments are found in a file (app/shared/vad-segments.ts). */
export interface EngineVadOptions {
  threshold: number;
  minSpeechMs: number;
  minSilenceMs: number;
  padMs: number;
  /** Kept after each segment's speech when longer than the pad (ms; vad-segments.ts SPEECH_TAIL_MS). */
  tailMs?: number;
  /** Silence guard: taken off both ends of every segment after padding (ms); absent or 0: off. */
  trimMs?: number;
}

export interface EngineProcessStatus {
  model: ModelInfo | null;
  /** Requests running in the engine process now. */
  running: number;
}

export type EngineRequest =
  | { op: 'load'; path: string; options: EngineLoadOptions }
  | { op: 'unload' }
  | { op: 'transcribe'; pcm: Float32Array; options: EngineTranscribeOptions }
  /**
   * A file job in steps: the engine reads the WAV (to mono at the model's rate, `sampleRate`) and keeps it
   * under a handle, and plans its windows as its own long-audio pass would (windows.ts, `maxWindowSec`).
   * Each `fileWindow` then decodes one window (times made absolute), so the host can run dictation between
   * windows; `fileClose` frees the audio. A dead engine loses the handles (the job fails, never re-run).
   */
  | { op: 'fileOpen'; path: string; sampleRate: number; maxWindowSec: number; align: number; vad?: EngineVadOptions }
  | { op: 'fileWindow'; handle: number; index: number; options: EngineTranscribeOptions }
  | { op: 'fileClose'; handle: number }
  /**
   * Loads the file into a separate model on the CPU; the resident model stays. The engine keeps that model
   * two minutes: a `load` of the same file (same identity, though renamed) that resolves to the CPU with the
   * same weight type adopts it instead of loading again, and a GPU load's self-test takes it as its reference.
   */
  /**
   * Cache-aware streaming (streaming models only): `streamBegin` opens a stream on a state of its own (it
   * computes beside file jobs and other streams), `streamFeed` appends PCM at the model's rate and returns
   * the chunks it completed (committed tokens never change), `streamEnd` processes the tail (the final
   * partial chunk included) and frees the stream, `streamClose` frees it without the tail. A model load or
   * unload, or a dead engine, ends every stream (their handles answer NOT_FOUND).
   */
  | { op: 'streamBegin'; options: EngineStreamOptions }
  | { op: 'streamFeed'; handle: number; pcm: Float32Array }
  | { op: 'streamEnd'; handle: number }
  | { op: 'streamClose'; handle: number }
  /** The resident model's verdict per phrase (Model.checkVocabulary): Settings' Vocabulary card. */
  | { op: 'checkVocabulary'; phrases: VocabularyPhrase[]; neverBoost: string[] }
  /** `selfTest`: also the CPU known-answer self-test (a converted .nemo), refused as MODEL_INVALID when it fails. */
  | { op: 'validate'; path: string; selfTest?: boolean }
  | { op: 'listDevices' }
  /** A quick CPU probe: one Q8_0 matmul shape (first-run speed class); no model needed. */
  | { op: 'probeSpeed'; threads: number }
  /**
   * The known-answer self-test (self-test.ts) of `device` (absent: the resident model's device) with the
   * resident model's file and load options, against a short-lived CPU twin. Testing a device other than the
   * resident's loads a second short-lived model on it; the resident model is never changed.
   */
  | { op: 'selfTest'; device?: string; trigger: DeviceSelfTest['trigger'] }
  | { op: 'status' }
  /**
   * Voice activity (engine-vad.ts): `vadLoad` loads a Silero VAD GGUF (null: none); `vadOpen` makes a stream
   * for one live source at 16 kHz; `vadPush` returns one speech probability per 512-sample chunk its samples
   * complete (in order, queued per stream); `vadClose` ends it and tells its cost. With a VAD loaded, `fileOpen` with `vad`
   * plans its windows over the speech segments only (silence skipped, cuts at pauses).
   */
  | { op: 'vadLoad'; path: string | null }
  | { op: 'vadOpen' }
  | { op: 'vadPush'; stream: number; pcm: Float32Array }
  | { op: 'vadClose'; stream: number }
  /**
   * Speaker diarization (engine-diarizer.ts): `diarizerLoad` loads a Sortformer GGUF (null: none);
   * `diarizerOpen` makes a live stream; `diarizerPush` returns the activity frames its samples made final;
   * `diarizerFinish` the rest, closing it; `diarizerClose` drops it.
   */
  | { op: 'diarizerLoad'; path: string | null }
  | { op: 'diarizerOpen' }
  | { op: 'diarizerPush'; stream: number; pcm: Float32Array }
  | { op: 'diarizerFinish'; stream: number }
  | { op: 'diarizerClose'; stream: number }
  /** Aborts request `target` (through the engine's abort flag); that request then fails with ABORTED. */
  | { op: 'cancel'; target: number };

/**
 * Test triggers: not part of EngineRequest, so the host can never send one. Only tests do, through
 * test/support/engine-triggers.ts (a transport wrapper that also turns them on in the engine process).
 */
export type TestTriggerRequest =
  /**
   * Test trigger, honoured only when the engine process runs with PARAKEET_ENGINE_TEST_HOOKS=1:
   * 'now' kills the process at once; 'nextTranscribe' kills it right after the next transcription (PCM
   * or file) started; 'nextValidate' right after the next validation started loading its file.
   */
  | { op: 'crash'; when: CrashWhen }
  /**
   * Test trigger, honoured only with PARAKEET_ENGINE_TEST_HOOKS=1: the next self-test corrupts the device
   * run's encoder output before the comparison, as a broken kernel would ('noise': a same-sized random
   * output, relative error ≈ 1.4; 'nan': NaN from the middle on). Used once, then cleared.
   */
  | { op: 'corruptSelfTest'; how: SelfTestCorruption };

export type CrashWhen = 'now' | 'nextTranscribe' | 'nextValidate';
export type SelfTestCorruption = 'noise' | 'nan';

export type EngineOp = EngineRequest['op'];

export interface EngineResponseMap {
  load: ModelInfo;
  unload: null;
  transcribe: EngineTranscript;
  fileOpen: EngineFileHandle;
  fileWindow: EngineTranscript;
  fileClose: null;
  streamBegin: EngineStreamHandle;
  streamFeed: EngineStreamChunk[];
  streamEnd: EngineStreamChunk[];
  streamClose: null;
  checkVocabulary: PhraseCheck[];
  validate: ModelInfo;
  listDevices: DeviceInfo[];
  probeSpeed: { gflops: number; threads: number };
  selfTest: DeviceSelfTest;
  status: EngineProcessStatus;
  vadLoad: EngineVadStatus;
  vadOpen: { stream: number; chunkSamples: number };
  vadPush: Float32Array;
  /** What the stream cost: native compute time against its audio. */
  vadClose: { computeMs: number; audioSec: number };
  diarizerLoad: EngineDiarizerStatus | null;
  diarizerOpen: { stream: number };
  diarizerPush: ActivityChunk;
  diarizerFinish: ActivityChunk;
  diarizerClose: null;
  cancel: null;
}

/** What crosses the wire to the engine: the host's requests, and the test triggers where tests send them. */
export type HostToEngine = (EngineRequest | TestTriggerRequest) & { id: number };

export type EngineLogLevel = 'debug' | 'info' | 'warn' | 'error';

export type EngineToHost =
  /** Sent once at start: whether the addon loaded, and what it was built with. */
  | { t: 'ready'; available: boolean; error: IpcError | null; build: BuildInfo | null; pid: number }
  | { t: 'result'; id: number; ok: true; value: unknown }
  | { t: 'result'; id: number; ok: false; error: IpcError }
  | { t: 'progress'; id: number; fraction: number }
  | { t: 'log'; level: EngineLogLevel; message: string }
  /** A GPU's first decode in this process started (it compiles pipelines first) or ended (`ms`: how long it took). */
  | { t: 'preparing'; device: string; done: boolean; ms?: number };

/** Env var that enables the test triggers (crash, self-test corruption) in the engine process. */
export const TEST_HOOKS_ENV = 'PARAKEET_ENGINE_TEST_HOOKS';

/** An error with a stable code, as it crosses the boundary. */
export function toIpcError(error: unknown, fallbackCode = 'INTERNAL'): IpcError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { code: typeof code === 'string' && code ? code : fallbackCode, message: error.message };
  }
  return { code: fallbackCode, message: String(error) };
}

export function isEngineToHost(value: unknown): value is EngineToHost {
  if (typeof value !== 'object' || value === null) return false;
  const t = (value as { t?: unknown }).t;
  return t === 'ready' || t === 'result' || t === 'progress' || t === 'log' || t === 'preparing';
}
