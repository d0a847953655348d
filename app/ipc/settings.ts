// Default settings and the limits of each numeric field. Electron-free and
// dependency-free so the main process (validation, migration) and the renderer
// (form limits, "reset to default") share one definition.
import { DEFAULT_SILENCE_GUARDS } from '../shared/silence-guards.js';
import { DEFAULT_VAD_SEGMENT_OPTIONS } from '../shared/vad-segments.js';
import type { DesktopSettings, DictationSettings, VadModelChoice, HistorySettings, HotkeySettings, InsertMode, InsertSettings, Settings, TextSettings } from './contract.js';

export const SETTINGS_VERSION = 1;

export const DEFAULT_DICTATION: DictationSettings = {
  // 600 ms: long enough not to split a sentence at a breath, short enough that
  // the final text of a phrase arrives while the user still looks at it.
  pauseMs: 600,
  // Shorter segments keep the final decode well under the 0.5 s target on a
  // 2-core CPU; the cut falls on the quietest point, not mid-word.
  maxSegmentSec: 15,
  partialIntervalMs: 300,
  preRollMs: 300,
  vadThresholdDb: 10,
  // The trained VAD: noise, hum and clicks are not speech to it, where an energy threshold lets them through.
  vadModel: 'silero',
  vadSpeechThreshold: 0.5,
  // Files and live alike (segmenter.ts opens a live segment only after it): espeak-ng's shortest one-word
  // answers ("no", "eight" at 195 wpm) last 6–7 of Silero's 32 ms windows, the one stretch of the non-speech
  // set Silero confirms 4 (a generated model typed two words into it live); Silero's own 250 ms dropped such
  // words (test/native/silero-live-min-speech.test.ts).
  vadMinSpeechMs: 160,
  vadMinSilenceMs: 300,
  // Silero's own speech pad (get_speech_timestamps' speech_pad_ms): its segments start at the onset already,
  // and more audio in front of a word is what cost the digits model words (bench:vad; the pre-roll was used).
  vadSpeechPadMs: DEFAULT_VAD_SEGMENT_OPTIONS.padMs,
  // The trim and the floor are off: bench:vad found Silero with its confirm level (vad-segments.ts) puts no
  // word into 10 minutes of non-speech, and a floor deletes quiet speech (app/shared/silence-guards.ts).
  vadEdgeTrimMs: DEFAULT_SILENCE_GUARDS.edgeTrimMs,
  minWordConfidence: DEFAULT_SILENCE_GUARDS.minWordConfidence,
};

export const VAD_MODEL_CHOICES: readonly VadModelChoice[] = ['silero', 'energy'];

export const DEFAULT_HISTORY: HistorySettings = {
  enabled: true,
  // Forever, but bounded by count: 1000 entries of hour-long meetings is still only tens of MB of text.
  keepDays: 0,
  maxEntries: 1000,
};

export const DEFAULT_INSERT: InsertSettings = {
  // Off until the user chooses: keystrokes sent to whatever window has focus are a surprise nobody asked for,
  // and the OS tools (xdotool, wtype, Accessibility permission) may not be there yet.
  mode: 'off',
  restoreClipboard: true,
  // The target application reads the clipboard after it handles the paste keystroke, asynchronously; restoring
  // sooner pastes the old clipboard (a common failure of dictation apps). 300 ms covers slow Electron/Java targets.
  restoreDelayMs: 300,
};

export const DEFAULT_TEXT: TextSettings = {
  // Off: with it on, "a period of time" becomes "a. Of time"; users who dictate punctuation turn it on.
  spokenPunctuation: false,
  replacements: [],
  // Off: segments of one dictation are joined by a space before each one but the first (nothing dangles at the end).
  trailingSpace: false,
  vocabulary: [],
};

export const DEFAULT_HOTKEY: HotkeySettings = {
  toggle: 'CommandOrControl+Shift+Space',
  // Toggle until the user picks a hold mode: it works without the key hook (Wayland, no Input Monitoring).
  mode: 'toggle',
  // Right Ctrl types nothing alone and most keyboards have one; a shortcut typed with it is told apart (tapMs).
  hold: 'RightCtrl',
  // A deliberate tap lasts ~100–200 ms; a "hold to talk" is longer than a word.
  tapMs: 300,
};

export const DEFAULT_DESKTOP: DesktopSettings = { overlay: false, openAtLogin: false, sounds: false };

/**
 * 15 minutes: unloading gives back most of the engine's memory (110M-shape Q8_0 on the CPU: RSS 320 → 88 MiB;
 * the mapped weight pages and the compute buffers go, the page cache keeps the file) and the reload from the page
 * cache costs ~45 ms, so a dictation after a break barely notices; on a GPU it frees the device memory for other
 * programs. Short enough to matter on a laptop, long enough not to reload between the phrases of a working session.
 */
export const DEFAULT_IDLE_UNLOAD_MINUTES = 15;

export const DEFAULT_SETTINGS: Settings = {
  device: 'auto',
  threads: 0,
  weightType: 'auto',
  decoder: 'auto',
  engineMode: 'process',
  audio: {
    // Off: with browser processing on, auto gain distorts and clips the signal
    // (measured correlation 0.74 against 0.98–1.00 with it off).
    echoCancellation: false,
    noiseSuppression: false,
    autoGainControl: false,
    inputDeviceId: null,
  },
  dictation: DEFAULT_DICTATION,
  streaming: { preset: 'default', language: 'auto' },
  history: DEFAULT_HISTORY,
  insert: DEFAULT_INSERT,
  hotkey: DEFAULT_HOTKEY,
  text: DEFAULT_TEXT,
  desktop: DEFAULT_DESKTOP,
  idleUnloadMinutes: DEFAULT_IDLE_UNLOAD_MINUTES,
  mirrorEndpoint: null,
  diarizerPath: null,
  diarizeMicrophone: false,
};

/** Inclusive ranges of the numeric settings (integers unless noted). */
export const SETTINGS_LIMITS = {
  threads: { min: 0, max: 256 },
  pauseMs: { min: 150, max: 5000 },
  maxSegmentSec: { min: 2, max: 120 },
  partialIntervalMs: { min: 100, max: 5000 },
  preRollMs: { min: 0, max: 2000 },
  /** dB, may be fractional. */
  vadThresholdDb: { min: 1, max: 40 },
  /** Probability, fractional. */
  vadSpeechThreshold: { min: 0.05, max: 0.95 },
  vadMinSpeechMs: { min: 0, max: 5000 },
  vadMinSilenceMs: { min: 50, max: 5000 },
  vadSpeechPadMs: { min: 0, max: 1000 },
  vadEdgeTrimMs: { min: 0, max: 1000 },
  /** Probability, fractional. */
  minWordConfidence: { min: 0, max: 0.99 },
  /** Days; 0 = forever. */
  keepDays: { min: 0, max: 36500 },
  maxEntries: { min: 1, max: 100000 },
  restoreDelayMs: { min: 50, max: 5000 },
  /** Minutes; 0 = never. At most a day. */
  idleUnloadMinutes: { min: 0, max: 1440 },
  /** Hybrid tap / shortcut window (ms). */
  tapMs: { min: 100, max: 1000 },
} as const;

export const INSERT_MODES: readonly InsertMode[] = ['off', 'paste', 'type', 'copy'];

export const WEIGHT_TYPES = ['auto', 'f32', 'f16', 'bf16', 'q8_0', 'q4_0', 'q4_k', 'int8', 'i16'] as const;
export const DECODER_CHOICES = ['auto', 'tdt', 'rnnt', 'ctc'] as const;
export const ENGINE_MODES = ['process', 'inline'] as const;

/** A deep copy of the defaults (callers may mutate it). */
export function defaultSettings(): Settings {
  return {
    ...DEFAULT_SETTINGS,
    audio: { ...DEFAULT_SETTINGS.audio },
    dictation: { ...DEFAULT_SETTINGS.dictation },
    streaming: { ...DEFAULT_SETTINGS.streaming },
    history: { ...DEFAULT_SETTINGS.history },
    insert: { ...DEFAULT_SETTINGS.insert },
    hotkey: { ...DEFAULT_SETTINGS.hotkey },
    text: {
      ...DEFAULT_SETTINGS.text,
      replacements: DEFAULT_SETTINGS.text.replacements.map((r) => ({ ...r })),
      vocabulary: DEFAULT_SETTINGS.text.vocabulary.map((p) => ({ ...p })),
    },
    desktop: { ...DEFAULT_SETTINGS.desktop },
  };
}
