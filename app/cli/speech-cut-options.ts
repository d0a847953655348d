// `parakeet transcribe`'s options for how a file is cut (--vad-*) and its confidence floor: the Settings a
// file job reads (Settings → Dictation → Voice activity), with Settings' own ranges, so a command line can
// cut a file as a user's changed settings cut it in the Files view. Pure: no engine, no files.
import { DEFAULT_DICTATION, SETTINGS_LIMITS } from '../ipc/settings.js';
import type { SpeechCutSettings } from './speech-only.js';

/** A value out of its Settings range, or not a number: the CLI reports it as a usage error. */
export class SpeechCutOptionError extends Error {}

/** Each option, the setting it sets, and whether it must be a whole number (milliseconds) or a probability. */
const OPTIONS = {
  'vad-threshold': { setting: 'vadSpeechThreshold', integer: false },
  'vad-min-speech-ms': { setting: 'vadMinSpeechMs', integer: true },
  'vad-min-silence-ms': { setting: 'vadMinSilenceMs', integer: true },
  'vad-pad-ms': { setting: 'vadSpeechPadMs', integer: true },
  'vad-trim-ms': { setting: 'vadEdgeTrimMs', integer: true },
  'min-word-confidence': { setting: 'minWordConfidence', integer: false },
} as const satisfies Record<string, { setting: keyof SpeechCutSettings; integer: boolean }>;

export type SpeechCutFlag = keyof typeof OPTIONS;

/** For parseArgs: every option takes a value. */
export const SPEECH_CUT_ARGS = Object.fromEntries(Object.keys(OPTIONS).map((flag) => [flag, { type: 'string' as const }])) as
  Record<SpeechCutFlag, { type: 'string' }>;

/** The flags that cut with the VAD (all but the floor, which applies to any offline transcript). */
export const VAD_ONLY_FLAGS: readonly SpeechCutFlag[] = ['vad-threshold', 'vad-min-speech-ms', 'vad-min-silence-ms', 'vad-pad-ms', 'vad-trim-ms'];

/** The options given, as the settings they set over Settings' defaults; each checked against Settings' range. */
export function speechCutSettings(values: Partial<Record<SpeechCutFlag, string>>): SpeechCutSettings {
  const settings: SpeechCutSettings = {
    vadSpeechThreshold: DEFAULT_DICTATION.vadSpeechThreshold,
    vadMinSpeechMs: DEFAULT_DICTATION.vadMinSpeechMs,
    vadMinSilenceMs: DEFAULT_DICTATION.vadMinSilenceMs,
    vadSpeechPadMs: DEFAULT_DICTATION.vadSpeechPadMs,
    vadEdgeTrimMs: DEFAULT_DICTATION.vadEdgeTrimMs,
    minWordConfidence: DEFAULT_DICTATION.minWordConfidence,
  };
  for (const [flag, { setting, integer }] of Object.entries(OPTIONS) as [SpeechCutFlag, (typeof OPTIONS)[SpeechCutFlag]][]) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const { min, max } = SETTINGS_LIMITS[setting];
    const n = Number(raw);
    // Number('') is 0: an empty value (an unset shell variable) must not silently mean 0.
    if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
      throw new SpeechCutOptionError(`--${flag} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max} (as in Settings), got "${raw}"`);
    }
    settings[setting] = n;
  }
  return settings;
}
