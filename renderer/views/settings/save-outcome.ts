// What a save's reply means for the form, in words (DOM-free): "Saved.", which
// fields were held back by their own errors, or which field main refused and why.
import type { IpcError } from '../../../app/ipc/contract.js';
import { fieldOfServerError, type FieldId, type FieldMessages } from './form-check.js';

export type Outcome = { kind: 'saved' | 'partial' | 'failed'; text: string } | null;

export const FIELD_NAMES: Record<FieldId, string> = {
  'set-threads': 'CPU threads', 'set-idle-unload': 'Unload after idle', 'set-pause': 'Pause', 'set-maxseg': 'Longest segment',
  'set-partial': 'Partial text every', 'set-preroll': 'Pre-roll', 'set-vad': 'Energy speech threshold', 'set-keep-days': 'Delete entries older than',
  'set-max-entries': 'Keep at most', 'set-restore-delay': 'Clipboard restore delay', 'set-hotkey': 'Hotkey', 'set-mirror': 'Mirror endpoint',
  'set-replacements': 'Replacements',
  'set-hold-key': 'Hold key', 'set-tap-ms': 'Tap shorter than',
  'set-vad-threshold': 'Speech probability threshold', 'set-vad-min-speech': 'Shortest speech', 'set-vad-min-silence': 'Shortest pause between file segments',
  'set-vad-speech-pad': 'Padding around speech', 'set-vad-edge-trim': 'Trim segment edges', 'set-min-word-confidence': 'Lowest word confidence',
};

/** `held`: fields not sent because of their own error. `refused`: main's reason, next to its field. */
export function saveOutcome(result: { ok: true } | { ok: false; error: IpcError }, held: FieldId[]): { outcome: Outcome; refused: FieldMessages | null } {
  if (result.ok) {
    return {
      outcome: held.length
        ? { kind: 'partial', text: `Saved the other changes. Not saved: ${held.map((id) => FIELD_NAMES[id]).join(', ')}; see the message next to ${held.length === 1 ? 'it' : 'each'}.` }
        : { kind: 'saved', text: 'Saved.' },
      refused: null,
    };
  }
  const field = fieldOfServerError(result.error.message);
  const reason = result.error.message.replace(/^settings:set:\s*/, '').replace(/payload\.[\w.]+:\s*/, '');
  if (field) {
    return {
      outcome: { kind: 'failed', text: `Nothing was saved: ${FIELD_NAMES[field]} was refused; see the message next to it. Your edits are still here.` },
      refused: { [field]: `Not saved: the app refused this value (${reason}).` },
    };
  }
  return { outcome: { kind: 'failed', text: `Nothing was saved: ${reason} Your edits are still here.` }, refused: null };
}
