// Hand-written payload validators for every invoke channel. Main runs each
// request through these before a handler sees it, so a handler can trust its
// argument's type, and a malformed payload (from a compromised renderer, a
// buggy client or a web-bridge peer) becomes an INVALID_PAYLOAD result instead
// of an exception deep in a service. No Node or Electron import: the renderer
// may use the same checks for its forms.
import type {
  AudioCaptureSettings, DesktopSettings, DictationSettings, DictationStartOptions, FileTranscribeOptions, HistoryKind, HistoryListRequest,
  HistorySettings, HotkeySettings, StreamingSettings, InsertSettings, InvokeChannel, MeetingStartOptions, Replacement, RequestOf, Result, Settings, SettingsPatch,
  NemoWeightType, TextSettings,
} from './contract.js';
import { MODEL_FILE_PURPOSES, NEMO_WEIGHT_TYPES, type ModelFilePurpose } from './contract.js';
import { REPLACEMENT_LIMITS, replacementProblem } from '../shared/text-transform.js';
import { MAX_VOCABULARY_PHRASES, VOCABULARY_LIMITS, type VocabularyPhrase } from '../shared/vocabulary.js';
import { checkAccelerator } from './accelerator.js';
import { parseChord } from '../shared/hotkey/chord.js';
import { HOTKEY_MODES } from '../shared/hotkey/hotkey-machine.js';
import { DECODER_CHOICES, ENGINE_MODES, INSERT_MODES, SETTINGS_LIMITS, VAD_MODEL_CHOICES, WEIGHT_TYPES } from './settings.js';

export class PayloadError extends Error {
  constructor(readonly at: string, message: string) {
    super(`${at}: ${message}`);
    this.name = 'PayloadError';
  }
}

/** Checks `value` (found at `at`, for the message) and returns it typed, or throws PayloadError. */
export type Check<T> = (value: unknown, at: string) => T;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length > 40 ? 'a long string' : `"${value}"`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) && !ArrayBuffer.isView(v);

export function str(opts: { max?: number; pattern?: RegExp; what?: string; allowEmpty?: boolean } = {}): Check<string> {
  const max = opts.max ?? 4096;
  return (v, at) => {
    if (typeof v !== 'string') throw new PayloadError(at, `expected a string, got ${describe(v)}`);
    if (v.length === 0 && !opts.allowEmpty) throw new PayloadError(at, 'must not be empty');
    if (v.length > max) throw new PayloadError(at, `longer than ${max} characters`);
    if (v.includes('\0')) throw new PayloadError(at, 'contains a NUL character');
    if (opts.pattern && !opts.pattern.test(v)) throw new PayloadError(at, `is not ${opts.what ?? `of the form ${opts.pattern}`}`);
    return v;
  };
}

export function num(min: number, max: number, integer: boolean): Check<number> {
  return (v, at) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new PayloadError(at, `expected a number, got ${describe(v)}`);
    if (integer && !Number.isInteger(v)) throw new PayloadError(at, `expected a whole number, got ${v}`);
    if (v < min || v > max) throw new PayloadError(at, `must be between ${min} and ${max}, got ${v}`);
    return v;
  };
}

export const bool: Check<boolean> = (v, at) => {
  if (typeof v !== 'boolean') throw new PayloadError(at, `expected true or false, got ${describe(v)}`);
  return v;
};

export function oneOf<T extends string>(values: readonly T[]): Check<T> {
  return (v, at) => {
    if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
      throw new PayloadError(at, `must be one of ${values.join(', ')}, got ${describe(v)}`);
    }
    return v as T;
  };
}

export function nullable<T>(check: Check<T>): Check<T | null> {
  return (v, at) => (v === null ? null : check(v, at));
}

export function arrayOf<T>(check: Check<T>, max = Number.MAX_SAFE_INTEGER): Check<T[]> {
  return (v, at) => {
    if (!Array.isArray(v)) throw new PayloadError(at, `expected an array, got ${describe(v)}`);
    if (v.length > max) throw new PayloadError(at, `more than ${max} items`);
    return v.map((item, i) => check(item, `${at}[${i}]`));
  };
}

export type Shape<T> = { [K in keyof T]-?: Check<T[K]> };

/**
 * An object with exactly these keys (unknown keys are refused: a typo must not
 * pass silently). Keys listed in `optional` may be absent or undefined.
 */
export function object<T extends object>(shape: Shape<T>, optional: readonly (keyof T)[] = []): Check<T> {
  return (v, at) => {
    if (!isPlainObject(v)) throw new PayloadError(at, `expected an object, got ${describe(v)}`);
    for (const key of Object.keys(v)) {
      // Own properties only: `key in shape` would take toString, constructor or __proto__ for fields.
      if (!Object.hasOwn(shape, key)) throw new PayloadError(`${at}.${key}`, 'is not a known field');
    }
    const out: Partial<T> = {};
    for (const key of Object.keys(shape) as (keyof T & string)[]) {
      const value = Object.hasOwn(v, key) ? v[key] : undefined;
      if (value === undefined) {
        if (optional.includes(key)) continue;
        throw new PayloadError(`${at}.${key}`, 'is required');
      }
      out[key] = shape[key](value, `${at}.${key}`);
    }
    return out as T;
  };
}

/** Every key optional (a patch). */
function partial<T extends object>(shape: Shape<T>): Check<Partial<T>> {
  return object<Partial<T>>(shape as Shape<Partial<T>>, Object.keys(shape) as (keyof T)[]);
}

const noPayload: Check<void> = (v, at) => {
  if (v !== undefined && v !== null) throw new PayloadError(at, `this channel takes no payload, got ${describe(v)}`);
};

/** models:pickFile: no payload (a speech model) or `{ purpose }`. */
const pickFilePayload: Check<{ purpose?: ModelFilePurpose } | void> = (v, at) =>
  v === undefined || v === null ? undefined : object<{ purpose?: ModelFilePurpose }>({ purpose: oneOf(MODEL_FILE_PURPOSES) }, ['purpose'])(v, at);

// ---------------------------------------------------------------- field checks

/**
 * An absolute file path (POSIX, Windows drive or UNC): relative paths would resolve against main's cwd.
 * The renderer's path fields check the same before they send.
 */
export const ABSOLUTE_PATH = /^(\/|[A-Za-z]:[\\/]|\\\\)/;
export const isAbsolutePath = (path: string): boolean => ABSOLUTE_PATH.test(path);
export const absolutePath = str({ max: 4096, pattern: ABSOLUTE_PATH, what: 'an absolute path' });
const modelId = str({ max: 300 });
const sessionId = str({ max: 40, pattern: /^s\d+$/, what: 'a session id (s<number>)' });
const jobId = str({ max: 40, pattern: /^f\d+$/, what: 'a job id (f<number>)' });
const deviceName = str({ max: 128 });
/** A history entry id: it names a file, so letters, digits and dashes only (no path can be built from it). */
export const HISTORY_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const historyId = str({ max: 64, pattern: HISTORY_ID, what: 'a history entry id' });
export const HISTORY_KINDS: readonly HistoryKind[] = ['dictation', 'file', 'meeting'];
const httpsUrl = str({ max: 2048, pattern: /^https:\/\/[^\s/]+/i, what: 'an https:// URL' });

const L = SETTINGS_LIMITS;

export const AUDIO_CHECKS: Shape<AudioCaptureSettings> = {
  echoCancellation: bool,
  noiseSuppression: bool,
  autoGainControl: bool,
  inputDeviceId: nullable(str({ max: 512 })),
};

export const DICTATION_CHECKS: Shape<DictationSettings> = {
  pauseMs: num(L.pauseMs.min, L.pauseMs.max, true),
  maxSegmentSec: num(L.maxSegmentSec.min, L.maxSegmentSec.max, false),
  partialIntervalMs: num(L.partialIntervalMs.min, L.partialIntervalMs.max, true),
  preRollMs: num(L.preRollMs.min, L.preRollMs.max, true),
  vadThresholdDb: num(L.vadThresholdDb.min, L.vadThresholdDb.max, false),
  vadModel: oneOf(VAD_MODEL_CHOICES),
  vadSpeechThreshold: num(L.vadSpeechThreshold.min, L.vadSpeechThreshold.max, false),
  vadMinSpeechMs: num(L.vadMinSpeechMs.min, L.vadMinSpeechMs.max, true),
  vadMinSilenceMs: num(L.vadMinSilenceMs.min, L.vadMinSilenceMs.max, true),
  vadSpeechPadMs: num(L.vadSpeechPadMs.min, L.vadSpeechPadMs.max, true),
  vadEdgeTrimMs: num(L.vadEdgeTrimMs.min, L.vadEdgeTrimMs.max, true),
  minWordConfidence: num(L.minWordConfidence.min, L.minWordConfidence.max, false),
};

/** 'default' or "left,right" (encoder frames, left ≤ 10000, right ≤ 100); whether the model has it is checked at use. */
const streamingPreset: Check<string> = (v, at) => {
  const text = str({ max: 16 })(v, at);
  if (text !== 'default' && !/^\d{1,5},\d{1,3}$/.test(text)) throw new PayloadError(at, `"${text}" is not 'default' or "left,right" (e.g. "70,1")`);
  return text;
};

/** 'auto' or a locale tag such as "en-US" (letters, digits, '-' and '_'). */
const streamingLanguage: Check<string> = (v, at) => {
  const text = str({ max: 35 })(v, at);
  if (!/^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*$/.test(text)) throw new PayloadError(at, `"${text}" is not 'auto' or a locale such as "en-US"`);
  return text;
};

export const STREAMING_CHECKS: Shape<StreamingSettings> = { preset: streamingPreset, language: streamingLanguage };

export const HISTORY_CHECKS: Shape<HistorySettings> = {
  enabled: bool,
  keepDays: num(L.keepDays.min, L.keepDays.max, true),
  maxEntries: num(L.maxEntries.min, L.maxEntries.max, true),
};

export const INSERT_CHECKS: Shape<InsertSettings> = {
  mode: oneOf(INSERT_MODES),
  restoreClipboard: bool,
  restoreDelayMs: num(L.restoreDelayMs.min, L.restoreDelayMs.max, true),
};

const accelerator: Check<string> = (v, at) => {
  const text = str({ max: 100 })(v, at);
  const checked = checkAccelerator(text);
  if (!checked.ok) throw new PayloadError(at, `"${text}" ${checked.reason}`);
  return text;
};

const holdKey: Check<string> = (v, at) => {
  const text = str({ max: 60 })(v, at);
  const parsed = parseChord(text);
  if (!parsed.ok) throw new PayloadError(at, `"${text}" ${parsed.reason}`);
  return text;
};

export const HOTKEY_CHECKS: Shape<HotkeySettings> = {
  toggle: accelerator,
  mode: oneOf(HOTKEY_MODES),
  hold: holdKey,
  tapMs: num(L.tapMs.min, L.tapMs.max, true),
};

export const DESKTOP_CHECKS: Shape<DesktopSettings> = { overlay: bool, openAtLogin: bool, sounds: bool };

const replacementEntry: Check<Replacement> = object<Replacement>({
  from: str({ max: REPLACEMENT_LIMITS.maxFromChars }),
  to: str({ max: REPLACEMENT_LIMITS.maxToChars, allowEmpty: true }),
});

/** The list as a whole: every entry well-formed, then the rules the form shows (words to match, no repeats). */
const replacements: Check<Replacement[]> = (v, at) => {
  const list = arrayOf(replacementEntry, REPLACEMENT_LIMITS.maxEntries)(v, at);
  const problem = replacementProblem(list);
  if (problem) throw new PayloadError(`${at}[${problem.index}]`, problem.message);
  return list;
};

const vocabularyEntry: Check<VocabularyPhrase> = object<VocabularyPhrase>({
  phrase: str({ max: VOCABULARY_LIMITS.maxPhraseChars }),
  weight: num(VOCABULARY_LIMITS.minWeight, VOCABULARY_LIMITS.maxWeight, false),
});

export const TEXT_CHECKS: Shape<TextSettings> = {
  spokenPunctuation: bool,
  replacements,
  trailingSpace: bool,
  vocabulary: arrayOf(vocabularyEntry, MAX_VOCABULARY_PHRASES),
};

/** The nested groups of Settings and their field checks (the settings store salvages and patches each group). */
export const SETTINGS_GROUPS = {
  audio: AUDIO_CHECKS,
  dictation: DICTATION_CHECKS,
  streaming: STREAMING_CHECKS,
  history: HISTORY_CHECKS,
  insert: INSERT_CHECKS,
  hotkey: HOTKEY_CHECKS,
  text: TEXT_CHECKS,
  desktop: DESKTOP_CHECKS,
} as const satisfies { [G in keyof Settings]?: Shape<Settings[G]> };
export type SettingsGroup = keyof typeof SETTINGS_GROUPS;

/** Checks of the flat settings fields; nested groups are checked field by field (see settings store). */
export const SETTINGS_CHECKS: Shape<Omit<Settings, SettingsGroup>> = {
  device: deviceName,
  threads: num(L.threads.min, L.threads.max, true),
  weightType: oneOf(WEIGHT_TYPES),
  decoder: oneOf(DECODER_CHOICES),
  engineMode: oneOf(ENGINE_MODES),
  idleUnloadMinutes: num(L.idleUnloadMinutes.min, L.idleUnloadMinutes.max, true),
  mirrorEndpoint: nullable(httpsUrl),
  diarizerPath: nullable(absolutePath),
  diarizeMicrophone: bool,
};

const settingsPatch: Check<SettingsPatch> = object<SettingsPatch>(
  {
    ...SETTINGS_CHECKS,
    audio: partial(AUDIO_CHECKS),
    dictation: partial(DICTATION_CHECKS),
    streaming: partial(STREAMING_CHECKS),
    history: partial(HISTORY_CHECKS),
    insert: partial(INSERT_CHECKS),
    hotkey: partial(HOTKEY_CHECKS),
    text: partial(TEXT_CHECKS),
    desktop: partial(DESKTOP_CHECKS),
  },
  ['device', 'threads', 'weightType', 'decoder', 'engineMode', 'idleUnloadMinutes', 'mirrorEndpoint', 'diarizerPath', 'diarizeMicrophone', 'audio', 'dictation', 'streaming', 'history', 'insert', 'hotkey', 'text', 'desktop'],
);

const dictationStart: Check<DictationStartOptions> = object<DictationStartOptions>(
  { sampleRate: num(8000, 192000, true), preRollMs: num(0, 10000, true) },
  ['preRollMs'],
);

const historyList: Check<HistoryListRequest> = object<HistoryListRequest>(
  {
    query: str({ max: 200 }),
    kind: oneOf(HISTORY_KINDS),
    limit: num(1, 500, true),
    offset: num(0, 1_000_000, true),
  },
  ['query', 'kind', 'limit', 'offset'],
);

const uploadId = num(1, 0x3fffffff, true);
/** A meeting id: "m<number>". */
const meetingId = str({ max: 40, pattern: /^m\d+$/, what: 'a meeting id (m<number>)' });
const meetingStart: Check<MeetingStartOptions> = (v, at) => (v === undefined || v === null ? {} : object<MeetingStartOptions>(
  { micSampleRate: num(0, 192000, true), systemAudio: bool, systemAudioFromClient: bool, systemAudioSampleRate: num(8000, 192000, true) },
  ['micSampleRate', 'systemAudio', 'systemAudioFromClient', 'systemAudioSampleRate'],
)(v, at));

const fileOptions: Check<FileTranscribeOptions> = object<FileTranscribeOptions>({ decoder: oneOf(DECODER_CHOICES), speakers: bool }, ['decoder', 'speakers']);

// ---------------------------------------------------------------- per channel

type Validators = { [C in InvokeChannel]: Check<RequestOf<C>> };

export const PAYLOAD_VALIDATORS: Validators = {
  'app:info': noPayload,
  'app:openLogFolder': noPayload,
  'app:diagnostics': noPayload,
  'devices:list': noPayload,
  'devices:select': object({ name: deviceName }),
  'devices:selfTest': object<{ name?: string }>({ name: deviceName }, ['name']),
  'engine:status': noPayload,
  'engine:loadModel': object({ path: absolutePath }),
  'models:state': noPayload,
  'models:catalog': noPayload,
  // Lenient: no payload means "no locale".
  'models:firstRun': (v, at) => (v === undefined || v === null ? {} : object<{ locale?: string }>({ locale: str({ max: 64 }) }, ['locale'])(v, at)),
  'models:download': object({ id: modelId }),
  'models:pause': object({ id: modelId }),
  'models:resume': object({ id: modelId }),
  'models:cancel': object({ id: modelId }),
  'models:remove': object({ id: modelId }),
  'models:setActive': object({ id: modelId }),
  'models:import': object<{ path: string; nemoWeights?: NemoWeightType }>({ path: absolutePath, nemoWeights: oneOf(NEMO_WEIGHT_TYPES) }, ['nemoWeights']),
  'models:cancelImport': noPayload,
  'models:pickFile': pickFilePayload,
  'settings:get': noPayload,
  'settings:set': settingsPatch,
  'vocabulary:check': object({ phrases: arrayOf(vocabularyEntry, MAX_VOCABULARY_PHRASES) }),
  'dictation:start': dictationStart,
  'dictation:stop': object<{ sessionId: string; sentSamples?: number }>({ sessionId, sentSamples: num(0, Number.MAX_SAFE_INTEGER, true) }, ['sentSamples']),
  'dictation:cancel': object({ sessionId }),
  'dictation:summary': object({ sessionId }),
  'files:transcribe': object<{ path: string; options?: FileTranscribeOptions }>({ path: absolutePath, options: fileOptions }, ['options']),
  'files:cancel': object({ jobId }),
  'files:pickFile': noPayload,
  'history:list': historyList,
  'history:get': object({ id: historyId }),
  'history:delete': object({ id: historyId }),
  'history:clear': noPayload,
  'history:media': object({ id: historyId }),
  // A segment's text: bounded like a record's (an edit is a line, not a document).
  'history:editSegment': object({ id: historyId, segmentId: num(0, Number.MAX_SAFE_INTEGER, true), text: str({ max: 100_000, allowEmpty: true }) }),
  'history:renameSpeaker': object({ id: historyId, from: str({ max: 64 }), to: str({ max: 64 }) }),
  // Bounded: a test sample, not a document.
  'insert:test': object<{ text?: string; intoOwnWindow?: boolean }>({ text: str({ max: 2000 }), intoOwnWindow: bool }, ['text', 'intoOwnWindow']),
  'insert:check': noPayload,
  // The name only names the stored copy (its base name, cleaned: app/main/files/uploads.ts); the size is checked there.
  'files:uploadBegin': object({ name: str({ max: 1024 }), sizeBytes: num(0, Number.MAX_SAFE_INTEGER, true) }),
  'files:uploadCancel': object({ uploadId }),
  'files:transcribeUpload': object<{ uploadId: number; options?: FileTranscribeOptions }>({ uploadId, options: fileOptions }, ['options']),
  'meeting:start': meetingStart,
  'meeting:stop': object<{ meetingId: string; sentSamples?: number; othersSentSamples?: number }>(
    { meetingId, sentSamples: num(0, Number.MAX_SAFE_INTEGER, true), othersSentSamples: num(0, Number.MAX_SAFE_INTEGER, true) },
    ['sentSamples', 'othersSentSamples'],
  ),
  'meeting:marker': object({ meetingId, text: str({ max: 2000 }) }),
  'meeting:current': noPayload,
  'meeting:checkSystemAudio': noPayload,
  'meeting:attach': object({ meetingId }),
  'meeting:retranscribe': object<{ entryId: string; decoder?: (typeof DECODER_CHOICES)[number] }>({ entryId: historyId, decoder: oneOf(DECODER_CHOICES) }, ['decoder']),
};

export function isInvokeChannel(channel: unknown): channel is InvokeChannel {
  return typeof channel === 'string' && Object.prototype.hasOwnProperty.call(PAYLOAD_VALIDATORS, channel);
}

/** Validates a channel's payload: the typed request, or an INVALID_PAYLOAD error that names the field. */
export function validatePayload<C extends InvokeChannel>(channel: C, payload: unknown): Result<RequestOf<C>> {
  try {
    const check = PAYLOAD_VALIDATORS[channel] as Check<RequestOf<C>>;
    return { ok: true, value: check(payload, 'payload') };
  } catch (error) {
    const message = error instanceof PayloadError ? error.message : `payload: ${String(error)}`;
    return { ok: false, error: { code: 'INVALID_PAYLOAD', message: `${channel}: ${message}` } };
  }
}
