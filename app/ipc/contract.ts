// The IPC contract: the single source of channel names, payload and event
// types, Result<T> envelopes and error codes. No Electron import and no
// runtime dependency beyond constants, so the main process, the preload, the
// web bridge and the renderer (types only) all derive from it.
//
// Channel names are `domain:verb`. Every invoke returns Result<T>; errors carry
// a stable code and a message that says what to do.
//
// The contract owns its data types (engine-types.ts, model-types.ts) and imports
// nothing from main, the preload, the renderer or the addon (eslint.config.js).
import type {
  DecoderName, DeviceInfo, DeviceSelection, ModelDetails, ModelSummary, TokenTiming, WeightType, Word,
} from '../../types/engine.js';
import type {
  CatalogEntry, DownloadProgress, DownloadSnapshot, FirstRunProposal, InstalledModel,
} from '../../types/models.js';

import type { ErrorCode } from '../../types/errors.js';
import type { Replacement } from '../shared/text-transform.js';
import type { VocabularyPhrase } from '../shared/vocabulary.js';

export type * from '../../types/engine.js';
export type * from '../../types/models.js';
export type { Replacement, VocabularyPhrase };

// ---------------------------------------------------------------- envelopes

/** The one error-code list (types/errors.ts). */
export type { ErrorCode };

/** What a picked model file is for: a speech model (GGUF or .nemo) or a Sortformer speaker model (GGUF). */
export type ModelFilePurpose = 'model' | 'diarizer';
export const MODEL_FILE_PURPOSES: readonly ModelFilePurpose[] = ['model', 'diarizer'];

export interface IpcError {
  code: ErrorCode | string;
  message: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: IpcError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = (code: ErrorCode | string, message: string): Result<never> => ({ ok: false, error: { code, message } });

// ---------------------------------------------------------------- domain types

export interface AppInfo {
  name: string;
  version: string;
  mode: 'electron' | 'web';
  platform: string;
  arch: string;
  engineAvailable: boolean;
  ggml: { version: string; commit: string; source: string; backends: string[] } | null;
  logFile: string;
  userDataDir: string;
}

/** app:diagnostics: what runs where, for a bug report. Never transcript text or audio; home paths shown as `~`. */
export interface DiagnosticsData {
  /** ISO time the report was made. */
  generatedAt: string;
  app: { name: string; version: string; mode: 'electron' | 'web' };
  system: {
    platform: string;
    arch: string;
    /** OS kernel release and version string (os.release(), os.version()). */
    release: string;
    osVersion: string;
    totalMemoryBytes: number;
    freeMemoryBytes: number;
    cpuModel: string;
    cpuCount: number;
  };
  /** Runtime versions; electron/chromium are null in web mode (the page's browser is not the main process's). */
  runtime: { node: string; v8: string; electron: string | null; chromium: string | null };
  engine: {
    status: EngineStatus;
    /** The loaded model in full (null when none). */
    model: ModelDetails | null;
    ggml: AppInfo['ggml'];
    /** ggml's backends are loadable modules (distributable build). */
    backendDl: boolean | null;
  };
  devices: DevicesState;
  settings: Settings;
  history: { entries: number };
  log: { file: string; lines: string[] };
}

export interface DiagnosticsReport {
  /** The same facts as plain text (what Copy and Save give). */
  text: string;
  data: DiagnosticsData;
}

export interface DeviceFailure {
  name: string;
  reason: string;
  at: string;  // ISO time
}

/**
 * The outcome of a device's known-answer self-test: a fixed ~1 s signal transcribed on the device and on a
 * CPU twin of the same model file (for the CPU itself: the normal path vs the path forced through
 * ggml_backend_sched), compared by encoder output and tokens. A failure marks the device failed for the run.
 */
export interface DeviceSelfTest {
  /** ggml device name that was tested. */
  device: string;
  /** What it was compared with: a CPU twin, or (testing the CPU) the CPU through ggml_backend_sched. */
  reference: 'cpu' | 'cpu-scheduled';
  /** 'load': automatically after a model was loaded on a device that is not the CPU; 'manual': asked for. */
  trigger: 'load' | 'manual';
  passed: boolean;
  /** Encoder output relative L2 against the reference; null when the device's output held NaN/Inf or had another shape. */
  relL2: number | null;
  /** The relative L2 allowed for this model's weight types on this device. */
  tolerance: number;
  /** The decoded token sequences are identical. */
  tokensMatch: boolean;
  /** Wall time of the whole test (twin load and both runs). */
  durationMs: number;
  /** ISO time it finished. */
  at: string;
  /** What was found, in words ("matches the CPU's: relative error 2.1e-7, same tokens" or why it failed). */
  detail: string;
  /** How fast each side decoded the fixed signal (absent when the test failed: a wrong device's speed means nothing). */
  speed?: SelfTestSpeed;
  /**
   * The model file the test ran. Its speed is that model's: Auto passes over a device measured slower than the CPU
   * only while that model is loaded (another model, another size or weight type, may run faster there).
   */
  model?: string;
}

/**
 * The self-test's speed comparison: the signal decoded again on the tested device and on its reference,
 * after the verdict's run (which may have compiled a GPU's pipelines), the faster of two runs each.
 */
export interface SelfTestSpeed {
  /** Seconds of audio in the signal, in ms. */
  audioMs: number;
  /** The tested device's decode time, ms. */
  deviceMs: number;
  /** The reference's (the CPU's) decode time for the same signal, same threads, ms. */
  referenceMs: number;
}

/** A GPU compiling its compute pipelines on first use ("Preparing the GPU, once"). */
export interface DevicePreparing {
  device: string;
  /** ISO time it started. */
  since: string;
}

/** A first use that finished: how long the preparation took (the first decode on the device in this engine process). */
export interface DevicePrepared {
  device: string;
  ms: number;
}

/** A device Auto passes over although it works, and why ("measured slower than the CPU: …"). */
export interface DeviceSkipped {
  name: string;
  reason: string;
}

export interface DevicesState {
  devices: DeviceInfo[];
  /** The user's choice: 'auto' or a device name. */
  selected: string;
  /** What the engine actually uses now (after fallbacks), null before a model is loaded. */
  active: DeviceSelection | null;
  /** Devices that executed the last decode (from the engine, not from the settings). */
  lastRan: string[];
  /**
   * Devices marked failed in this run (engine crash or device error); they are not used again until restart.
   * The CPU may appear here too (the crash happened on it), but it stays the last resort: with no
   * other device left, decoding continues on the CPU.
   */
  failed: DeviceFailure[];
  /** The last self-test of each device in this run (oldest first). */
  selfTests: DeviceSelfTest[];
  /** A GPU's first use in this engine process, while it compiles its pipelines; null otherwise. */
  preparing: DevicePreparing | null;
  /** First uses that finished in this engine process. */
  prepared: DevicePrepared[];
  /** Working devices Auto does not use: each measured slower than the CPU by its self-test. */
  autoSkipped: DeviceSkipped[];
  /**
   * GPU backends shipped with the app that could not start on this machine, each "<Name>: <why>" (e.g. Vulkan
   * without a Vulkan loader): the app runs on the CPU, and Devices says why. Empty in builds without them.
   */
  backendsNotLoaded: string[];
}

/** 'idle-unloaded': the model was unloaded after `idleUnloadMinutes` without use; the next use reloads it first. */
export type EngineState = 'missing' | 'starting' | 'no-model' | 'loading' | 'ready' | 'busy' | 'crashed' | 'restarting' | 'idle-unloaded';

export interface EngineStatus {
  state: EngineState;
  mode: 'process' | 'inline';
  /** The loaded model (null when none). */
  model: ModelSummary | null;
  /** Installed-model id of the loaded model, when it came from the model manager. */
  modelId: string | null;
  restarts: number;
  lastError: IpcError | null;
  /** OS process id of the engine process (null inline or while none runs); for diagnostics and crash tests. */
  pid?: number | null;
  /** The voice-activity detector that cuts speech now (Devices shows it). */
  vad?: VadSummary;
}

export interface VadSummary {
  detector: VadModelChoice;
  /** In words: "Silero VAD v6.2 (F32), on the CPU beside the model", or why the energy VAD is used. */
  text: string;
}

export interface AudioCaptureSettings {
  echoCancellation: boolean;
  noiseSuppression: boolean;
  autoGainControl: boolean;
  /** MediaDeviceInfo.deviceId, or null for the system default. */
  inputDeviceId: string | null;
}

export interface DictationSettings {
  /** Silence that closes a segment (ms). */
  pauseMs: number;
  /** A segment longer than this is closed at its quietest point (s). */
  maxSegmentSec: number;
  /** Re-decode cadence of the open segment for partial text (ms). */
  partialIntervalMs: number;
  /** Audio kept from before speech onset (ms), so the first word is never cut. */
  preRollMs: number;
  /** Speech threshold above the adaptive noise floor (dB), for the energy VAD. */
  vadThresholdDb: number;
  /**
   * Which voice-activity detector cuts speech (dictation, meetings, files): the bundled Silero VAD (a trained
   * model on the engine), or the energy VAD (also the fallback whenever Silero is unavailable).
   */
  vadModel: VadModelChoice;
  /** Silero: a 32 ms chunk is speech at this probability and above (0.5). */
  vadSpeechThreshold: number;
  /** Silero, files: speech shorter than this is dropped (ms). */
  vadMinSpeechMs: number;
  /** Silero, files: a pause at least this long ends a segment (ms); dictation ends at pauseMs. */
  vadMinSilenceMs: number;
  /** Silero: added before each speech segment, live and in files, and after it in files (ms; Silero's speech pad, 30). */
  vadSpeechPadMs: number;
  /** Silence guard, files: taken off both ends of every Silero segment before it is decoded (ms); 0 = off. */
  vadEdgeTrimMs: number;
  /** Silence guard, files: words below this confidence (0–1) are dropped; 0 = off. */
  minWordConfidence: number;
}

/**
 * Live text on a cache-aware streaming model (EOU-120M, Nemotron): which attention preset (latency) and, for
 * prompt models (Nemotron-3.5), which language. Offline models ignore it.
 */
export interface StreamingSettings {
  /** 'default' (the model's first preset) or "left,right" in encoder frames, e.g. "70,6"; one of the model's presets. */
  preset: string;
  /** 'auto' or one of the model's locales (e.g. "de-DE"). */
  language: string;
}

export type VadModelChoice = 'silero' | 'energy';

/** What is kept on disk under <userData>/history (see app/main/history). */
export interface HistorySettings {
  /** Record every dictation session and file transcription. Off: nothing new is recorded; what exists stays until deleted. */
  enabled: boolean;
  /** Entries older than this many days are deleted; 0 keeps them forever. */
  keepDays: number;
  /** At most this many entries are kept; the oldest go first. */
  maxEntries: number;
}

/** How final text reaches the focused application (app/main/insert). */
export type InsertMode = 'off' | 'paste' | 'type' | 'copy';

export interface InsertSettings {
  /** off: text stays in the app; paste: clipboard + paste keystroke; type: synthesized keystrokes; copy: clipboard only. */
  mode: InsertMode;
  /** Paste mode: put the previous clipboard text back once the paste has landed. */
  restoreClipboard: boolean;
  /** Paste mode: how long after the paste keystroke the clipboard is restored (ms); the target reads it asynchronously. */
  restoreDelayMs: number;
}

/** Dictation text options (app/shared/text-transform.ts), applied to the live text before it is shown, inserted or kept. */
export interface TextSettings {
  /** "comma", "period", "new line", … are written as marks and line breaks (the list: SPOKEN_COMMANDS). */
  spokenPunctuation: boolean;
  /** Whole words, case-insensitive; applied before spoken punctuation. */
  replacements: Replacement[];
  /** Inserted text ends with a space (ready for the next dictation) instead of starting the next segment with one. */
  trailingSpace: boolean;
  /**
   * Custom vocabulary: phrases the decoder favours while it decodes dictation and files (app/shared/vocabulary.ts;
   * at most 1,000). Unlike the options above it acts before the text exists, inside the engine.
   */
  vocabulary: VocabularyPhrase[];
}

/** toggle: press starts, press stops; push-to-talk: hold to speak; hybrid: tap to latch, hold to talk (app/shared/hotkey). */
export type HotkeyMode = 'toggle' | 'push-to-talk' | 'hybrid';

export interface HotkeySettings {
  /** Electron accelerator that starts/stops dictation from any app (desktop app only), e.g. "CommandOrControl+Shift+Space". */
  toggle: string;
  mode: HotkeyMode;
  /**
   * The key held in push-to-talk and hybrid mode (and a toggle key needing the key hook): a chord ("Ctrl+Space"),
   * a function key ("F8") or one modifier alone ("RightCtrl"); grammar in app/shared/hotkey/chord.ts.
   */
  hold: string;
  /** Hybrid: a press shorter than this latches; a lone modifier with another key this soon was a shortcut (ms). */
  tapMs: number;
}

/** The desktop app outside its window (app/main/tray). */
export interface DesktopSettings {
  /** A small always-on-top window with the recording dot, the level and the live text; it never takes the focus. */
  overlay: boolean;
  /** Start Parakeet when the user logs in (off by default). */
  openAtLogin: boolean;
  /** Short tones when capture starts and stops (off by default). */
  sounds: boolean;
}

export interface Settings {
  /** 'auto' or a ggml device name ("CPU", "CUDA0", …). */
  device: string;
  /** CPU threads; 0 = automatic (all hardware threads but one, so decoding never starves the UI and the audio). */
  threads: number;
  weightType: WeightType;
  decoder: DecoderName | 'auto';
  /** 'process': engine in an isolated process (default); 'inline': in the main process. */
  engineMode: 'process' | 'inline';
  audio: AudioCaptureSettings;
  dictation: DictationSettings;
  streaming: StreamingSettings;
  history: HistorySettings;
  insert: InsertSettings;
  hotkey: HotkeySettings;
  text: TextSettings;
  desktop: DesktopSettings;
  /**
   * Unload the model after this many minutes without a dictation, file job or self-test (0 = never). It frees the
   * compute buffers and the engine's resident model pages (GPU memory on a GPU); the next use reloads it first.
   */
  idleUnloadMinutes: number;
  /** Hugging Face mirror base URL (https), or null for huggingface.co. */
  mirrorEndpoint: string | null;
  /**
   * A Streaming Sortformer GGUF (parakeet.arch = diarization) that tells the speakers of a meeting's "Others"
   * track apart, live and refined when it stops; null: none (the track is one speaker, "Others").
   */
  diarizerPath: string | null;
  /**
   * The diarizer also tells apart the people on the microphone track (an in-room meeting around one
   * microphone): its words are "Room 1" … instead of "You". Off by default (a microphone is usually one person).
   */
  diarizeMicrophone: boolean;
}

export type SettingsPatch = {
  [K in keyof Settings]?: Settings[K] extends object ? (Settings[K] extends null ? Settings[K] : Partial<Settings[K]> | Settings[K]) : Settings[K];
};

export interface ModelsState {
  installed: InstalledModel[];
  activeId: string | null;
  downloads: DownloadSnapshot[];
}

export interface DictationStartOptions {
  /** Sample rate of the frames the renderer will send (16000 from the AudioWorklet). */
  sampleRate: number;
  /** Milliseconds of audio captured before start() (the renderer's pre-roll), sent as the first frames. */
  preRollMs?: number;
}

export interface SessionInfo {
  sessionId: string;
  sampleRate: number;
}

export type TranscriptKind = 'partial' | 'final';

export interface TranscriptEvent {
  sessionId: string;
  /** Segments are numbered from 0 in the order they start. */
  segmentId: number;
  kind: TranscriptKind;
  text: string;
  words: Word[];
  /** Session-relative seconds of the segment's audio. */
  start: number;
  end: number;
  /** Devices that ran this decode. */
  devicesRan: string[];
  /**
   * Sample-exact cut points of the segment in the session's 16 kHz audio ([startSample, endSample)).
   * `start`/`end` are these divided by 16000; decoding exactly these samples offline gives the final text.
   */
  startSample?: number;
  endSample?: number;
  /** The engine's own text, present only when the text options changed it (text is what is shown and inserted). */
  spokenText?: string;
  /** The language a prompt-conditioned streaming model (Nemotron-3.5) detected or was told, e.g. "en-US". */
  language?: string;
  /** Custom-vocabulary phrases this decode found (settings.text.vocabulary); absent when none. */
  phrasesFired?: string[];
}

export type SessionState = 'listening' | 'speech' | 'finalizing' | 'stopped' | 'failed';

export interface SessionStateEvent {
  sessionId: string;
  state: SessionState;
  /** Input level of the last frames, 0..1 (RMS): the desktop overlay's meter (the window measures its own). */
  level: number;
  /** A message when the state is 'failed' or something degraded (engine restarted, …). */
  notice: IpcError | null;
  /**
   * Live text cannot be on time now: what holds the engine up, in words ("loading the model", "checking a
   * model file"); null once decodes get through again. (A file job never does: it yields to dictation.)
   */
  delayedBy?: string | null;
}

export interface LatencyReport {
  sessionId: string;
  /** start() call to first audio frame received (ms). */
  micStartMs: number | null;
  /** Speech onset (audio time) to the first partial text (wall ms). */
  firstPartialMs: number | null;
  /** End of speech (the arrival of the segment's last voiced frame) to its final text (wall ms), last segment. */
  finalMs: number | null;
  /** Mean of finalMs over the session. */
  meanFinalMs: number | null;
  /** Audio frames received / samples received / samples lost or duplicated (must be 0). */
  framesReceived: number;
  samplesReceived: number;
  sampleGaps: number;
  /** Samples received as NaN or ±Infinity (a broken capture path); they were replaced by silence. */
  nonFiniteSamples: number;
  /**
   * Main-process event-loop delay while the session ran (perf_hooks histogram), ms. Target: < 50.
   * Absent where the process cannot measure it.
   */
  eventLoopP99Ms?: number | null;
  eventLoopMaxMs?: number | null;
  /** Decodes run for partial text, partial decodes skipped because the engine was busy, final decodes. */
  partialDecodes?: number;
  partialsSkipped?: number;
  finalDecodes?: number;
  /**
   * Live text on a streaming model: the engine's compute per chunk (encoder + RNNT decode, wall ms, the
   * first chunk of each segment left out: it builds its graph), against the audio a chunk holds.
   * Absent for offline models and before a chunk ran.
   */
  streamChunk?: StreamChunkCompute;
}

export interface StreamChunkCompute {
  /** The chunks these figures cover (the session's latest). */
  chunks: number;
  p50Ms: number;
  p95Ms: number;
  /** Audio per chunk (the preset's chunk), ms. */
  chunkAudioMs: number;
  /** p50Ms as a percentage of chunkAudioMs. */
  percent: number;
}

export interface SessionSummary {
  sessionId: string;
  text: string;
  segments: TranscriptEvent[];
  audioSeconds: number;
  latency: LatencyReport;
}

export interface FileTranscribeOptions {
  decoder?: DecoderName | 'auto';
  /** Tell the speakers apart with the speaker model of Settings › Speakers: each word gets a speaker ("Speaker 2"). */
  speakers?: boolean;
}

/** How a file's speech was found before decoding (the Files result and History say it; the JSON export carries it). */
export interface FileSpeechCut {
  /**
   * 'silero': the trained VAD found the speech (silent stretches skipped, windows cut at pauses); 'energy': no VAD
   * model was in use, so the whole file was decoded in windows cut at its quietest points.
   */
  detector: 'silero' | 'energy';
  /** The Silero model, e.g. "Silero VAD v6.2 (F32)"; absent for 'energy'. */
  model?: string;
  /** Seconds of the file's audio the model decoded (its windows' total). */
  decodedSec: number;
}

export interface FileTranscript {
  jobId: string;
  path: string;
  /** The model that ran (its name in the file) and the decoder head used: the JSON export carries them. */
  model?: string;
  decoder?: DecoderName;
  text: string;
  words: Word[];
  tokens: TokenTiming[];
  durationSec: number;
  devicesRan: string[];
  elapsedMs: number;
  /** Custom-vocabulary phrases found in the file; absent when none. */
  phrasesFired?: string[];
  /** How its speech was found (absent in transcripts from before it was recorded). */
  speechCut?: FileSpeechCut;
}

/** vocabulary:check: each phrase against the active model's tokenizer (Settings' Vocabulary card). */
export interface VocabularyCheck {
  /** The model checked against; null when none is loaded (then `phrases` is empty). */
  modelName: string | null;
  /** Tokenized by the model file's own SentencePiece model (exact), else from its piece list (plausible segmentations). */
  exact: boolean;
  phrases: PhraseVerdict[];
}

export interface PhraseVerdict {
  phrase: string;
  /** Why the decoder cannot favour it; absent when it can. */
  reason?: string;
  /** The pieces of its first spelling, e.g. ["▁Par", "akeet"]; empty when rejected. */
  pieces: string[];
}

export type HistoryKind = 'dictation' | 'file' | 'meeting';

/** One entry of the history as the list shows it (what <userData>/history/index.json keeps per entry). */
export interface HistoryEntrySummary {
  /** Letters, digits and dashes only: it names the entry's file. */
  id: string;
  kind: HistoryKind;
  /** The audio file's name, or "Dictation <local date time>". */
  title: string;
  /** ISO time of the entry (a dictation: when the session started; a file: when its transcript was ready). */
  createdAt: string;
  /** Seconds of audio (a dictation: up to the end of its last segment until it is closed). */
  durationSec: number;
  wordCount: number;
  characterCount: number;
  /** The first ~200 characters of the text. */
  preview: string;
  /** Installed-model id and model name that made it (null when unknown). */
  modelId: string | null;
  modelName: string | null;
  /** Devices that ran its decodes. */
  devices: string[];
  /** Dictation segments saved (0 for a file). */
  segmentCount: number;
  /** A file entry: the transcribed file's path. */
  sourcePath: string | null;
  /** The app stopped while this dictation was being recorded; everything saved up to then is kept. */
  recovered: boolean;
  /** A dictation still being recorded. */
  live: boolean;
}

/** A final dictation segment as saved (times in session seconds). */
export interface HistorySegment {
  segmentId: number;
  start: number;
  end: number;
  text: string;
  devicesRan: string[];
  words: Word[];
  /** A meeting's track label ("You", "Others"); absent for a dictation. */
  speaker?: string;
  /**
   * The user corrected the text (history:editSegment). Unchanged words keep their decoded times; a changed or
   * added word is timed within the span of the words it replaced (see app/main/history/segment-edit.ts).
   */
  edited?: boolean;
  /** Custom-vocabulary phrases this segment's decode found; absent when none. */
  phrasesFired?: string[];
}

/** A whole entry (history:get). */
export interface HistoryEntry extends HistoryEntrySummary {
  text: string;
  /** Custom-vocabulary phrases that fired in the entry (a file's, or its segments' in order), each once. */
  phrasesFired: string[];
  /** A dictation's final segments in order (empty for a file); a meeting's from both tracks, by start time. */
  segments: HistorySegment[];
  /** Every word with its times: a file's words, or a dictation's segments' words in order. */
  words: Word[];
  /** A meeting: the markers added while recording. */
  markers?: MeetingMarker[];
  /** A meeting: its tracks' audio files (deleted with the entry). */
  audio?: MeetingAudioTrack[];
  /** A file: how its speech was found (absent for entries written before it was recorded). */
  speechCut?: FileSpeechCut;
}

// ---------------------------------------------------------------- meetings

/** The two tracks of a meeting: the microphone and the computer's own audio output. */
export type MeetingTrackName = 'you' | 'others';

/** One track's capture: recording, or why it cannot be and what to do (the other track keeps recording). */
export interface MeetingSource {
  track: MeetingTrackName;
  /** The speaker label its finals carry ("You", "Others"). */
  speaker: string;
  /** interrupted: the page that captures it is gone (a reload); the track is kept in time with silence until it is back. */
  state: 'recording' | 'unavailable' | 'stopped' | 'interrupted';
  /** Why it is unavailable, stopped or interrupted, in words (null while recording). */
  reason: string | null;
  action: string | null;
}

export interface MeetingStartOptions {
  /** Rate of the microphone frames the client sends (default 16000); 0 or absent mic: no microphone track. */
  micSampleRate?: number;
  /** Record the system audio (default true). */
  systemAudio?: boolean;
  /**
   * The client captures the system audio itself (Windows/macOS loopback through getDisplayMedia) and sends it
   * on othersStreamId like the microphone; otherwise main captures it (Linux: parec/pw-record).
   */
  systemAudioFromClient?: boolean;
  /** Rate of those frames (default 16000). */
  systemAudioSampleRate?: number;
}

export interface MeetingInfo {
  meetingId: string;
  /** The History entry being written. */
  entryId: string;
  /** The stream id the client sends microphone frames on (sendAudio), or null without a microphone track. */
  micStreamId: string | null;
  /** The stream id the client sends its loopback system audio on (systemAudioFromClient), else null. */
  othersStreamId: string | null;
  startedAt: string;
  sources: MeetingSource[];
}

/** A final of one track (times in meeting seconds, from the meeting's start). */
export interface MeetingFinal {
  meetingId: string;
  track: MeetingTrackName;
  speaker: string;
  segmentId: number;
  start: number;
  end: number;
  text: string;
  words: Word[];
  devicesRan: string[];
  /** The track's own segment number (its partials carry it); absent in finals read back from History. */
  trackSegment?: number;
  /** Custom-vocabulary phrases this segment's decode found; absent when none. */
  phrasesFired?: string[];
}

/** The text of a track's open segment so far, re-decoded as it grows; replaced by the segment's final. */
export interface MeetingPartial {
  meetingId: string;
  track: MeetingTrackName;
  speaker: string;
  /** The track segment the final will close (MeetingFinal.trackSegment). */
  trackSegment: number;
  /** Meeting seconds where the segment starts. */
  start: number;
  text: string;
}

/** Whether the system audio ("Others") can be recorded, found out before Start (meeting:checkSystemAudio). */
export type SystemAudioCheck = { ok: true; source: string } | { ok: false; reason: string; action: string };

/** The meeting being recorded, for a page that (re)loads while it runs (meeting:current). */
export interface MeetingCurrent {
  info: MeetingInfo;
  state: MeetingStateEvent['state'];
  elapsedSec: number;
  /** The microphone's page is gone (a reload): meeting:attach takes the meeting over with a new microphone stream. */
  micDetached: boolean;
}

export interface MeetingMarker {
  /** Meeting seconds. */
  at: number;
  text: string;
}

export interface MeetingStateEvent {
  meetingId: string;
  state: 'recording' | 'finalizing' | 'stopped';
  elapsedSec: number;
  /** RMS of the last ~100 ms per track, 0–1. */
  levels: Record<MeetingTrackName, number>;
  sources: MeetingSource[];
}

export interface MeetingAudioTrack {
  track: MeetingTrackName;
  speaker: string;
  /** The WAV file (16 kHz mono PCM16) under <userData>/history/audio/<entry id>/. */
  file: string;
  /** Where the track's sample 0 sits in meeting time (s). */
  offsetSec: number;
}

export interface MeetingTrackReport {
  track: MeetingTrackName;
  /** Samples placed on the track's timeline (16 kHz). */
  samples: number;
  /** Samples missing (filled with silence) or received twice (dropped), as the sender numbered them. */
  samplesMissing: number;
  samplesRepeated: number;
  /** Samples the audio journal could not write (disk full or too slow). */
  journalDropped: number;
  /** Samples of silence put in while the track's page was gone (a reload), so the tracks stay aligned in time. */
  samplesInterrupted: number;
  segments: number;
  /** Wall ms from a segment's last sample arriving to its final: median, 95th percentile, largest (null: no finals). */
  finalLagMs: { p50: number; p95: number; max: number } | null;
  /** The same finals from the segment's close decision (pause decided, cap or <EOU>): the engine's share of the wait. */
  closeToFinalMs?: { p50: number; p95: number; max: number } | null;
  /** The same finals from the last voiced sample's arrival: what a person waits (the pause setting included). */
  speechEndToFinalMs?: { p50: number; p95: number; max: number } | null;
}

export interface MeetingSummary {
  meetingId: string;
  entryId: string;
  durationSec: number;
  finals: number;
  tracks: MeetingTrackReport[];
}

/** What a player can play of an entry: the meeting mixed, or one track (history:media). */
export type HistoryMediaSourceName = 'mix' | MeetingTrackName;

export interface HistoryMediaSource {
  source: HistoryMediaSourceName;
  /** "You and Others", "You", "Others". */
  label: string;
  /** What the <audio> element loads (a read-only, Range-capable media URL of this app; see app/main/media). */
  url: string;
  /** Meeting time of the source's time 0 (the mix starts at the meeting's start: 0). */
  offsetSec: number;
  durationSec: number;
}

export interface HistoryMedia {
  /** Empty when the entry kept no audio (dictations, files: only meetings keep theirs). */
  sources: HistoryMediaSource[];
}

export interface HistoryListRequest {
  /** Case-insensitive text to find in the entries' titles and text. */
  query?: string;
  kind?: HistoryKind;
  /** Page size (default 50) and start, newest first. */
  limit?: number;
  offset?: number;
}

export interface HistoryList {
  entries: HistoryEntrySummary[];
  /** Entries matching the request (all pages). */
  total: number;
}

/** history:changed: what happened; the renderer reads the list again. */
export interface HistoryChange {
  change: 'added' | 'updated' | 'removed' | 'cleared';
  /** The entry concerned (null for 'cleared' and for retention pruning of several). */
  id: string | null;
}

export type NoticeLevel = 'info' | 'warning' | 'error';

export interface Notice {
  level: NoticeLevel;
  code: ErrorCode | string;
  message: string;
  /** What the user can do about it, in words. */
  action?: string;
}

// ---------------------------------------------------------------- channels

/** invoke channels: request payload and response value. */
export interface InvokeMap {
  'app:info': { request: void; response: AppInfo };
  'app:openLogFolder': { request: void; response: void };
  /** A system/engine/device/model/settings report with the log's last lines, for bug reports (no transcript text). */
  'app:diagnostics': { request: void; response: DiagnosticsReport };
  'devices:list': { request: void; response: DevicesState };
  'devices:select': { request: { name: string }; response: DevicesState };
  /**
   * Runs the known-answer self-test on a device (absent: the one in use) with the loaded model; after the
   * finals waiting, never beside a decode. A failure marks the device failed and, when it was in use,
   * reloads the model on the next device (the CPU).
   */
  'devices:selfTest': { request: { name?: string }; response: DeviceSelfTest };
  'engine:status': { request: void; response: EngineStatus };
  'engine:loadModel': { request: { path: string }; response: EngineStatus };
  'models:state': { request: void; response: ModelsState };
  'models:catalog': { request: void; response: CatalogEntry[] };
  'models:firstRun': { request: { locale?: string }; response: FirstRunProposal };
  'models:download': { request: { id: string }; response: DownloadSnapshot };
  'models:pause': { request: { id: string }; response: DownloadSnapshot };
  'models:resume': { request: { id: string }; response: DownloadSnapshot };
  'models:cancel': { request: { id: string }; response: DownloadSnapshot };
  'models:remove': { request: { id: string }; response: ModelsState };
  'models:setActive': { request: { id: string }; response: ModelsState };
  /** `nemoWeights`: the matmul weights' storage when a .nemo is converted (default NEMO_DEFAULT_WEIGHTS); ignored for a .gguf. */
  'models:import': { request: { path: string; nemoWeights?: NemoWeightType }; response: InstalledModel };
  /** Stops the running import (a .nemo conversion); `cancelled` false when none ran. */
  'models:cancelImport': { request: void; response: { cancelled: boolean } };
  /** Electron: a native open dialog; web mode: NOT_SUPPORTED (the UI asks for a path). */
  /** `purpose`: what the file is for, so the dialog says so and offers only what fits ('model' when absent). */
  'models:pickFile': { request: { purpose?: ModelFilePurpose } | void; response: string | null };
  'settings:get': { request: void; response: Settings };
  'settings:set': { request: SettingsPatch; response: Settings };
  /** Whether each phrase tokenizes with the active model (an empty answer without a model). */
  'vocabulary:check': { request: { phrases: VocabularyPhrase[] }; response: VocabularyCheck };
  'dictation:start': { request: DictationStartOptions; response: SessionInfo };
  /**
   * `sentSamples`: how many samples the client sent (its next startSample). Audio
   * and invokes travel separately (MessagePort vs invoke), so main waits for the
   * frames still in flight before it finalizes.
   */
  'dictation:stop': { request: { sessionId: string; sentSamples?: number }; response: SessionSummary };
  'dictation:cancel': { request: { sessionId: string }; response: void };
  /** A running session's finals so far, or a recently finished session's summary (web mode: after a reconnect). */
  'dictation:summary': { request: { sessionId: string }; response: SessionSummary };
  'files:transcribe': { request: { path: string; options?: FileTranscribeOptions }; response: FileTranscript };
  'files:cancel': { request: { jobId: string }; response: void };
  /** Electron: a native open dialog for a .wav file; web mode: NOT_SUPPORTED (the UI asks for a path). */
  'files:pickFile': { request: void; response: string | null };
  /** Newest first; with a query, only entries whose title or text contains it (case-insensitive). */
  'history:list': { request: HistoryListRequest; response: HistoryList };
  'history:get': { request: { id: string }; response: HistoryEntry };
  /** Deletes the entry's file (a dictation still being recorded stops being recorded). */
  'history:delete': { request: { id: string }; response: void };
  /** Deletes every entry. */
  'history:clear': { request: void; response: void };
  /** The entry's playable audio (its sources' URLs). */
  'history:media': { request: { id: string }; response: HistoryMedia };
  /** Replaces one segment's text (a correction), saved atomically; the whole entry comes back. */
  'history:editSegment': { request: { id: string; segmentId: number; text: string }; response: HistoryEntry };
  /**
   * Renames a speaker (a track label or a diarized "Speaker k") in every segment and word of a meeting at once,
   * saved atomically; a name another speaker already has merges the two. The whole entry comes back.
   */
  'history:renameSpeaker': { request: { id: string; from: string; to: string }; response: HistoryEntry };
  /**
   * Inserts `text` (default: a sample sentence) into the focused application with the insert settings
   * (mode 'off' is taken as 'paste'); fails with INSERT_FAILED and the reason, NOT_SUPPORTED where no
   * insertion path exists.
   */
  'insert:test': { request: { text?: string; intoOwnWindow?: boolean }; response: InsertTestResult };
  /** What inserting needs on this machine (tools, permission), what is missing and how to install it. */
  'insert:check': { request: void; response: InsertRequirements };
  /**
   * Web mode: announces a file the page will send in chunks (binary frames, web-protocol.ts), acknowledged by
   * `files:upload` events; then files:transcribeUpload runs the normal file job on it.
   */
  'files:uploadBegin': { request: { name: string; sizeBytes: number }; response: UploadTicket };
  /** Deletes an upload that is not being transcribed (a running transcription is cancelled with files:cancel). */
  'files:uploadCancel': { request: { uploadId: number }; response: void };
  /** Transcribes a complete upload like files:transcribe; the uploaded file is deleted when the job ends. */
  'files:transcribeUpload': { request: { uploadId: number; options?: FileTranscribeOptions }; response: FileTranscript };
  /** Starts recording a meeting: the microphone (frames from this client on micStreamId) and the system audio. */
  'meeting:start': { request: MeetingStartOptions; response: MeetingInfo };
  /** Stops it: the open segments are transcribed, the audio closed; the History entry is complete. */
  'meeting:stop': { request: { meetingId: string; sentSamples?: number; othersSentSamples?: number }; response: MeetingSummary };
  /** A marker (a note) at the current meeting time. */
  'meeting:marker': { request: { meetingId: string; text: string }; response: MeetingMarker };
  /** The meeting being recorded (null: none), so a page that loads while one runs can show it again. */
  'meeting:current': { request: void; response: MeetingCurrent | null };
  'meeting:checkSystemAudio': { request: void; response: SystemAudioCheck };
  /**
   * A page that (re)loaded takes over the running meeting whose page is gone: a new microphone stream id
   * (frames numbered from 0 again); the time the page was away is silence on the track and a marker.
   */
  'meeting:attach': { request: { meetingId: string }; response: MeetingInfo };
  /** A recorded meeting transcribed again from its audio with the loaded model (and this decoder); the entry's segments are replaced. */
  'meeting:retranscribe': { request: { entryId: string; decoder?: DecoderName | 'auto' }; response: HistoryEntry };
}

export interface InsertDelivery {
  sessionId: string;
  segmentId: number;
  /** From the final's emission to the delivery's end (the clipboard restored included), wall ms. */
  ms: number;
  method: 'typed' | 'pasted' | 'copied';
  /** The target read the pasted clipboard (X11). */
  confirmed: boolean;
  /** Epoch ms when the delivery ended (the latency panel's key-down → text inserted). */
  at: number;
  /** Characters delivered. */
  chars: number;
}

/** One thing inserting needs (a tool, a permission) and whether this machine has it. */
export interface InsertRequirement {
  name: string;
  ok: boolean;
  /** What it is for, in words. */
  purpose: string;
  /** How to get it, when missing (a command or where to click). */
  fix?: string;
  /** Without it some modes still work (terminal detection, one of two alternatives). */
  optional?: boolean;
}

export interface InsertRequirements {
  /** The OS path ('x11', 'wayland', 'macos', 'windows'), or null where no display exists. */
  platform: string | null;
  /** Typing or pasting into other apps can work now. */
  ready: boolean;
  /** The modes that can work here now. */
  modes: Exclude<InsertMode, 'off'>[];
  summary: string;
  items: InsertRequirement[];
}

/** files:uploadBegin's answer: where the upload will be and how to send it (app/main/files/uploads.ts). */
export interface UploadTicket {
  uploadId: number;
  /** The complete file's path once every byte arrived (files:progress events name it). */
  path: string;
  /** Largest payload of one chunk frame (bytes). */
  chunkBytes: number;
  /** Bytes that may be sent ahead of the acknowledgements (files:upload events). */
  windowBytes: number;
  maxBytes: number;
}

/** Web mode, to the uploading client only: bytes on disk so far; done once the file is complete. */
export interface UploadProgress {
  uploadId: number;
  receivedBytes: number;
  sizeBytes: number;
  done: boolean;
  /** The upload failed and was deleted (a rule broken, the disk, a stall). */
  error?: IpcError;
}

export interface InsertTestResult {
  mode: Exclude<InsertMode, 'off'>;
  /** The OS path taken ('x11', 'wayland', 'macos', 'windows'). */
  platform: string;
  text: string;
  /** What was done: keystrokes typed, a paste sent, or only copied (the user presses Ctrl+V). */
  delivered?: 'typed' | 'pasted' | 'copied';
  /** The target read the pasted clipboard (X11 only can see it). */
  confirmed?: boolean;
  /** The focused window was a terminal (X11): Ctrl+Shift+V or typing was used. */
  terminal?: boolean;
  /** In words. */
  detail?: string;
}

export type InvokeChannel = keyof InvokeMap;
export type RequestOf<C extends InvokeChannel> = InvokeMap[C]['request'];
export type ResponseOf<C extends InvokeChannel> = InvokeMap[C]['response'];

/** How a converted .nemo stores its matmul weights (the rest stays F32, as parakeet.cpp's converter writes it). */
export const NEMO_WEIGHT_TYPES = ['q8_0', 'f16', 'f32'] as const;
export type NemoWeightType = (typeof NEMO_WEIGHT_TYPES)[number];
/**
 * Q8_0 by default: the file is about 3.5× smaller than F32 (a 0.6B model 0.7 GB instead of 2.4 GB), it
 * loads and decodes faster on a CPU (memory-bound matmuls), its error is within the engine's Q8_0
 * bounds (test/native/quantization.test.ts), and it is what NVIDIA and the catalog ship. F16 keeps more
 * precision at half of F32's size; F32 is NeMo's weights unchanged.
 */
export const NEMO_DEFAULT_WEIGHTS: NemoWeightType = 'q8_0';

export const INVOKE_CHANNELS = [
  'app:info', 'app:openLogFolder', 'app:diagnostics', 'devices:list', 'devices:select', 'devices:selfTest', 'engine:status', 'engine:loadModel',
  'models:state', 'models:catalog', 'models:firstRun', 'models:download', 'models:pause', 'models:resume', 'models:cancel',
  'models:remove', 'models:setActive', 'models:import', 'models:cancelImport', 'models:pickFile', 'settings:get', 'settings:set',
  'dictation:start', 'dictation:stop', 'dictation:cancel', 'dictation:summary', 'files:transcribe', 'files:cancel',
  'files:pickFile', 'history:list', 'history:get', 'history:delete', 'history:clear', 'insert:test',
  'files:uploadBegin', 'files:uploadCancel', 'files:transcribeUpload', 'insert:check',
  'meeting:start', 'meeting:stop', 'meeting:marker', 'meeting:retranscribe', 'meeting:current', 'meeting:attach',
  'meeting:checkSystemAudio', 'history:media', 'history:editSegment', 'vocabulary:check', 'history:renameSpeaker',
] as const satisfies readonly InvokeChannel[];

/** Events pushed from main to the renderer. */
export interface EventMap {
  'engine:status': EngineStatus;
  'devices:changed': DevicesState;
  'models:progress': DownloadProgress;
  'models:state': DownloadSnapshot;
  'models:changed': ModelsState;
  /** A .nemo import's conversion progress (the Models view's import shows it with a Cancel button). */
  'models:importProgress': { path: string; fraction: number };
  'dictation:transcript': TranscriptEvent;
  'dictation:state': SessionStateEvent;
  'dictation:latency': LatencyReport;
  /** Sent with fraction 0 as soon as a job starts (path tells which request it belongs to, for files:cancel). */
  /** `durationSec`: the audio's length once read; `audioSec`: how far into it the transcript is. */
  'files:progress': { jobId: string; fraction: number; path?: string; audioSec?: number; durationSec?: number };
  /** An entry was added, closed, recovered or removed. */
  'history:changed': HistoryChange;
  'notice': Notice;
  /** The global hotkey was pressed (desktop app): the renderer, which owns the microphone, starts or stops dictation. */
  'dictation:toggle': { source: 'hotkey' | 'tray' | 'menu' };
  /** The global hotkey's mode logic decided (desktop app): the renderer starts, stops or cancels. */
  'dictation:hotkey': HotkeyEvent;
  /** A final reached the focused app (or only the clipboard): how long the delivery took and what is known of it. */
  'dictation:inserted': InsertDelivery;
  /** Web mode: an upload's progress, sent to the uploading client only (not through the bus). */
  'files:upload': UploadProgress;
  'meeting:state': MeetingStateEvent;
  'meeting:transcript': MeetingFinal;
  'meeting:partial': MeetingPartial;
  /** A marker main added itself (kind 'gap': a track's page was away from `at` on; the text says until when). */
  'meeting:marker': MeetingMarker & { meetingId: string; kind: 'gap' };
}

export interface HotkeyEvent {
  /** toggle: the toggle-mode shortcut was pressed; the window starts or stops by its own state, as its button does. */
  action: 'start' | 'stop' | 'cancel' | 'toggle';
  /** Epoch ms of the key event that caused it (key-down for a start): the latency panel measures from here. */
  at: number;
  mode: HotkeyMode;
}

export type EventName = keyof EventMap;

export const EVENT_NAMES = [
  'engine:status', 'devices:changed', 'models:progress', 'models:state', 'models:changed', 'models:importProgress', 'dictation:transcript',
  'dictation:state', 'dictation:latency', 'files:progress', 'history:changed', 'notice', 'dictation:toggle',
  'files:upload', 'dictation:hotkey', 'dictation:inserted',
  'meeting:state', 'meeting:transcript', 'meeting:partial', 'meeting:marker',
] as const satisfies readonly EventName[];

/** Electron: the single channel events travel on (payload: { event, data }). */
export const EVENT_CHANNEL = 'parakeet:event';
/** Electron: main posts a MessagePort for a dictation session's audio on this channel (message: AudioPortMessage). */
export const AUDIO_PORT_CHANNEL = 'dictation:port';

/** Electron: the message that carries a session's port (the port itself is in event.ports[0]). */
export interface AudioPortMessage {
  sessionId: string;
}

/** Electron: one audio frame on a session's MessagePort (preload → main). */
export interface AudioPortFrame {
  frame: Float32Array;
  startSample?: number;
}

// ---------------------------------------------------------------- the renderer's API

/** window.parakeet: exposed by the preload (Electron) or the web bridge client (web mode). */
export interface ParakeetApi {
  readonly mode: 'electron' | 'web';
  invoke<C extends InvokeChannel>(channel: C, ...payload: RequestOf<C> extends void ? [] : [RequestOf<C>]): Promise<Result<ResponseOf<C>>>;
  /** Subscribes to an event; returns the unsubscribe function. */
  on<E extends EventName>(event: E, listener: (data: EventMap[E]) => void): () => void;
  /**
   * Sends one frame of mono float PCM for a dictation session (fire-and-forget, in order).
   * `startSample`: the index of the frame's first sample in the session's stream (0, then the running
   * total). Optional; when given, main counts lost or duplicated samples exactly (LatencyReport.sampleGaps)
   * and keeps the timeline (missing samples become silence, duplicates are dropped).
   */
  sendAudio(sessionId: string, frame: Float32Array, startSample?: number): void;
  /**
   * Web mode only: one chunk of an upload (files:uploadBegin), in order, `offset` its first byte's place in the
   * file. False when it could not be sent (no connection: the server drops the upload with the connection).
   */
  sendUploadChunk?(uploadId: number, offset: number, bytes: ArrayBuffer): boolean;
}
