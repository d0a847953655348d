// The Settings form's own checks, field by field, in words, before anything is sent: the same limits as
// main's validator (app/ipc/settings.ts), plus warnings for values that are allowed but wrong for this
// machine (more CPU threads than it has). Pure, so the rules are unit-tested; the view shows each message
// next to its field and saves only the fields that pass.
import { checkAccelerator } from '../../../app/ipc/accelerator.js';
import type { Settings, SettingsPatch } from '../../../app/ipc/contract.js';
import { SETTINGS_LIMITS as L } from '../../../app/ipc/settings.js';
import { replacementProblem } from '../../../app/shared/text-transform.js';
import { parseChord } from '../../../app/shared/hotkey/chord.js';

/** Field ids (the inputs' element ids): messages are keyed by them. */
export type FieldId =
  | 'set-threads' | 'set-idle-unload' | 'set-pause' | 'set-maxseg' | 'set-partial' | 'set-preroll' | 'set-vad'
  | 'set-keep-days' | 'set-max-entries' | 'set-restore-delay' | 'set-hotkey' | 'set-mirror' | 'set-replacements' | 'set-hold-key' | 'set-tap-ms'
  | 'set-vad-threshold' | 'set-vad-min-speech' | 'set-vad-min-silence' | 'set-vad-speech-pad' | 'set-vad-edge-trim' | 'set-min-word-confidence';

export type FieldMessages = Partial<Record<FieldId, string>>;

/** Each field's name as the save bar lists it (short forms of the labels beside the inputs). */
export const FIELD_NAMES: Record<FieldId, string> = {
  'set-threads': 'CPU threads',
  'set-idle-unload': 'Unload the model when idle',
  'set-pause': 'Pause that ends a sentence',
  'set-maxseg': 'Longest segment',
  'set-partial': 'Partial text every',
  'set-preroll': 'Pre-roll',
  'set-vad': 'Speech threshold',
  'set-keep-days': 'Delete entries older than',
  'set-max-entries': 'Keep at most',
  'set-restore-delay': 'Clipboard restore delay',
  'set-hotkey': 'Hotkey',
  'set-mirror': 'Mirror endpoint',
  'set-replacements': 'Replacements',
  'set-hold-key': 'Hold-to-talk key',
  'set-tap-ms': 'A tap is shorter than',
  'set-vad-threshold': 'Silero speech threshold',
  'set-vad-min-speech': 'Shortest speech',
  'set-vad-min-silence': 'Shortest pause',
  'set-vad-speech-pad': 'Padding around speech',
  'set-vad-edge-trim': 'Segment edge trim',
  'set-min-word-confidence': 'Lowest word confidence',
};

export interface MachineFacts {
  /** Hardware threads of this machine (navigator.hardwareConcurrency); null when unknown. */
  cpus: number | null;
}

function numberProblem(value: number, limit: { min: number; max: number }, unit: string, integer = true): string | null {
  if (!Number.isFinite(value)) return `Enter a number from ${limit.min} to ${limit.max}${unit}.`;
  if (integer && !Number.isInteger(value)) return `Enter a whole number from ${limit.min} to ${limit.max}${unit}.`;
  if (value < limit.min || value > limit.max) return `Must be from ${limit.min} to ${limit.max}${unit}; ${value} is out of range.`;
  return null;
}

/** What would be refused, per field (nothing is sent for these fields). */
export function fieldErrors(draft: Settings): FieldMessages {
  const out: FieldMessages = {};
  const put = (id: FieldId, problem: string | null) => {
    if (problem) out[id] = problem;
  };
  put('set-threads', numberProblem(draft.threads, L.threads, ''));
  put('set-idle-unload', numberProblem(draft.idleUnloadMinutes, L.idleUnloadMinutes, ' minutes'));
  put('set-pause', numberProblem(draft.dictation.pauseMs, L.pauseMs, ' ms'));
  put('set-maxseg', numberProblem(draft.dictation.maxSegmentSec, L.maxSegmentSec, ' s', false));
  put('set-partial', numberProblem(draft.dictation.partialIntervalMs, L.partialIntervalMs, ' ms'));
  put('set-preroll', numberProblem(draft.dictation.preRollMs, L.preRollMs, ' ms'));
  put('set-vad', numberProblem(draft.dictation.vadThresholdDb, L.vadThresholdDb, ' dB', false));
  put('set-vad-threshold', numberProblem(draft.dictation.vadSpeechThreshold, L.vadSpeechThreshold, '', false));
  put('set-vad-min-speech', numberProblem(draft.dictation.vadMinSpeechMs, L.vadMinSpeechMs, ' ms'));
  put('set-vad-min-silence', numberProblem(draft.dictation.vadMinSilenceMs, L.vadMinSilenceMs, ' ms'));
  put('set-vad-speech-pad', numberProblem(draft.dictation.vadSpeechPadMs, L.vadSpeechPadMs, ' ms'));
  put('set-vad-edge-trim', numberProblem(draft.dictation.vadEdgeTrimMs, L.vadEdgeTrimMs, ' ms'));
  put('set-min-word-confidence', numberProblem(draft.dictation.minWordConfidence, L.minWordConfidence, '', false));
  put('set-keep-days', numberProblem(draft.history.keepDays, L.keepDays, ' days'));
  put('set-max-entries', numberProblem(draft.history.maxEntries, L.maxEntries, ' entries'));
  put('set-restore-delay', numberProblem(draft.insert.restoreDelayMs, L.restoreDelayMs, ' ms'));
  const hotkey = checkAccelerator(draft.hotkey.toggle);
  if (!hotkey.ok) out['set-hotkey'] = hotkey.reason;
  const replacements = replacementProblem(draft.text.replacements);
  if (replacements) out['set-replacements'] = replacements.message;
  const hold = parseChord(draft.hotkey.hold);
  if (!hold.ok) out['set-hold-key'] = `This key ${hold.reason}.`;
  put('set-tap-ms', numberProblem(draft.hotkey.tapMs, L.tapMs, ' ms'));
  const mirror = draft.mirrorEndpoint;
  if (mirror !== null) {
    if (!/^https:\/\//i.test(mirror)) {
      out['set-mirror'] = /^http:\/\//i.test(mirror)
        ? 'The mirror must use https:// (an http:// download could be changed on the way); or leave it empty for huggingface.co.'
        : 'Enter an address that starts with https://, or leave it empty for huggingface.co.';
    } else if (!/^https:\/\/[^\s/]+/i.test(mirror) || /\s/.test(mirror)) {
      out['set-mirror'] = 'This is not a valid https:// address (a host name is needed, no spaces).';
    } else if (mirror.length > 2048) {
      out['set-mirror'] = 'The address is longer than 2048 characters.';
    }
  }
  return out;
}

/** Allowed, but probably not what the user wants on this machine (saved anyway). */
export function fieldWarnings(draft: Settings, machine: MachineFacts): FieldMessages {
  const out: FieldMessages = {};
  if (machine.cpus && Number.isFinite(draft.threads) && draft.threads > machine.cpus) {
    out['set-threads'] = `This machine has ${machine.cpus} hardware thread${machine.cpus === 1 ? '' : 's'}; ` +
      `${draft.threads} threads would compete with each other and make dictation slower. 0 picks a good number.`;
  }
  return out;
}

/** The draft with every field that has an error put back to its saved value: what a save sends. */
export function validPart(saved: Settings, draft: Settings, errors: FieldMessages): Settings {
  const has = (id: FieldId) => id in errors;
  return {
    ...draft,
    threads: has('set-threads') ? saved.threads : draft.threads,
    idleUnloadMinutes: has('set-idle-unload') ? saved.idleUnloadMinutes : draft.idleUnloadMinutes,
    mirrorEndpoint: has('set-mirror') ? saved.mirrorEndpoint : draft.mirrorEndpoint,
    dictation: {
      ...draft.dictation,
      pauseMs: has('set-pause') ? saved.dictation.pauseMs : draft.dictation.pauseMs,
      maxSegmentSec: has('set-maxseg') ? saved.dictation.maxSegmentSec : draft.dictation.maxSegmentSec,
      partialIntervalMs: has('set-partial') ? saved.dictation.partialIntervalMs : draft.dictation.partialIntervalMs,
      preRollMs: has('set-preroll') ? saved.dictation.preRollMs : draft.dictation.preRollMs,
      vadThresholdDb: has('set-vad') ? saved.dictation.vadThresholdDb : draft.dictation.vadThresholdDb,
      vadSpeechThreshold: has('set-vad-threshold') ? saved.dictation.vadSpeechThreshold : draft.dictation.vadSpeechThreshold,
      vadMinSpeechMs: has('set-vad-min-speech') ? saved.dictation.vadMinSpeechMs : draft.dictation.vadMinSpeechMs,
      vadMinSilenceMs: has('set-vad-min-silence') ? saved.dictation.vadMinSilenceMs : draft.dictation.vadMinSilenceMs,
      vadSpeechPadMs: has('set-vad-speech-pad') ? saved.dictation.vadSpeechPadMs : draft.dictation.vadSpeechPadMs,
      vadEdgeTrimMs: has('set-vad-edge-trim') ? saved.dictation.vadEdgeTrimMs : draft.dictation.vadEdgeTrimMs,
      minWordConfidence: has('set-min-word-confidence') ? saved.dictation.minWordConfidence : draft.dictation.minWordConfidence,
    },
    history: {
      ...draft.history,
      keepDays: has('set-keep-days') ? saved.history.keepDays : draft.history.keepDays,
      maxEntries: has('set-max-entries') ? saved.history.maxEntries : draft.history.maxEntries,
    },
    insert: { ...draft.insert, restoreDelayMs: has('set-restore-delay') ? saved.insert.restoreDelayMs : draft.insert.restoreDelayMs },
    hotkey: {
      ...draft.hotkey,
      toggle: has('set-hotkey') ? saved.hotkey.toggle : draft.hotkey.toggle,
      hold: has('set-hold-key') ? saved.hotkey.hold : draft.hotkey.hold,
      tapMs: has('set-tap-ms') ? saved.hotkey.tapMs : draft.hotkey.tapMs,
    },
    text: { ...draft.text, replacements: has('set-replacements') ? saved.text.replacements : draft.text.replacements },
  };
}

/** Only what changed, so a save never overwrites a value changed elsewhere meanwhile. */
export function diff(base: Settings, draft: Settings): SettingsPatch {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(draft) as (keyof Settings)[]) {
    const a = base[key];
    const b = draft[key];
    if (b !== null && typeof b === 'object' && a !== null && typeof a === 'object') {
      const sub: Record<string, unknown> = {};
      for (const k of Object.keys(b)) {
        if ((a as unknown as Record<string, unknown>)[k] !== (b as unknown as Record<string, unknown>)[k]) {
          sub[k] = (b as unknown as Record<string, unknown>)[k];
        }
      }
      if (Object.keys(sub).length) patch[key] = sub;
    } else if (a !== b) patch[key] = b;
  }
  return patch as SettingsPatch;
}

/**
 * New saved values arrived (a save, another window, a reload): the draft takes them, except the fields
 * the user edited and has not saved (they differ from the previous saved values), which stay as typed.
 */
export function rebaseDraft(previous: Settings, next: Settings, draft: Settings): Settings {
  const out: Record<string, unknown> = { ...next };
  for (const key of Object.keys(draft) as (keyof Settings)[]) {
    const p = previous[key] as unknown;
    const d = draft[key] as unknown;
    if (d !== null && typeof d === 'object' && p !== null && typeof p === 'object') {
      const sub: Record<string, unknown> = { ...(next[key] as unknown as Record<string, unknown>) };
      for (const k of Object.keys(d)) {
        const dv = (d as Record<string, unknown>)[k];
        if (!Object.is((p as Record<string, unknown>)[k], dv)) sub[k] = dv;
      }
      out[key] = sub;
    } else if (!Object.is(p, d)) out[key] = d;
  }
  return out as unknown as Settings;
}

/** Which field a main-process validation message names ("payload.mirrorEndpoint: …"), if any. */
export function fieldOfServerError(message: string): FieldId | null {
  const m = /payload\.([a-zA-Z]+)(?:\.([a-zA-Z]+))?/.exec(message);
  if (!m) return null;
  const key = m[2] ?? m[1];
  const map: Record<string, FieldId> = {
    threads: 'set-threads', idleUnloadMinutes: 'set-idle-unload', pauseMs: 'set-pause', maxSegmentSec: 'set-maxseg',
    partialIntervalMs: 'set-partial', preRollMs: 'set-preroll', vadThresholdDb: 'set-vad', keepDays: 'set-keep-days',
    maxEntries: 'set-max-entries', restoreDelayMs: 'set-restore-delay', toggle: 'set-hotkey', hotkey: 'set-hotkey',
    mirrorEndpoint: 'set-mirror', replacements: 'set-replacements', hold: 'set-hold-key', tapMs: 'set-tap-ms',
    vadSpeechThreshold: 'set-vad-threshold', vadMinSpeechMs: 'set-vad-min-speech', vadMinSilenceMs: 'set-vad-min-silence',
    vadSpeechPadMs: 'set-vad-speech-pad', vadEdgeTrimMs: 'set-vad-edge-trim', minWordConfidence: 'set-min-word-confidence',
  };
  return map[key!] ?? null;
}
