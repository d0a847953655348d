// The Settings form's checks (issue 11): errors per field in words, warnings for this machine, what a
// save sends (valid edits only), and that new saved values never undo an edit that is not saved.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultSettings } from '../../../app/ipc/settings.js';
import { diff, fieldErrors, fieldOfServerError, fieldWarnings, rebaseDraft, validPart } from '../../../renderer/views/settings/form-check.js';

test('threads 64, pause 900 and an http:// mirror: the mirror is an error in words, threads a warning on 2 CPUs, the rest is sent', () => {
  const saved = defaultSettings();
  const draft = { ...saved, threads: 64, dictation: { ...saved.dictation, pauseMs: 900 }, mirrorEndpoint: 'http://mirror.example.org' };
  const errors = fieldErrors(draft);
  assert.deepEqual(Object.keys(errors), ['set-mirror']);
  assert.match(errors['set-mirror']!, /must use https:\/\//);
  const warnings = fieldWarnings(draft, { cpus: 2 });
  assert.match(warnings['set-threads']!, /This machine has 2 hardware threads; 64 threads/);
  assert.deepEqual(fieldWarnings({ ...draft, threads: 2 }, { cpus: 2 }), {});
  const patch = diff(saved, validPart(saved, draft, errors));
  assert.deepEqual(patch, { threads: 64, dictation: { pauseMs: 900 } }, 'valid edits are sent, the invalid one is held back');
});

test('numbers: empty, fractional and out-of-range values are named with their range', () => {
  const saved = defaultSettings();
  const errors = fieldErrors({ ...saved, threads: Number.NaN, history: { ...saved.history, maxEntries: 0 }, dictation: { ...saved.dictation, preRollMs: 12.5 } });
  assert.equal(errors['set-threads'], 'Enter a number from 0 to 256.');
  assert.equal(errors['set-max-entries'], 'Must be from 1 to 100000 entries; 0 is out of range.');
  assert.equal(errors['set-preroll'], 'Enter a whole number from 0 to 2000 ms.');
  assert.deepEqual(fieldErrors(saved), {}, 'the defaults pass');
});

test('saved values arriving (after a save, from another window) keep the edits not saved yet', () => {
  const before = defaultSettings();
  const draft = { ...before, threads: 64, mirrorEndpoint: 'http://x', dictation: { ...before.dictation, pauseMs: 900 } };
  // The save stored threads and pause; another window changed the decoder meanwhile.
  const after = { ...before, threads: 64, decoder: 'ctc' as const, dictation: { ...before.dictation, pauseMs: 900 } };
  const rebased = rebaseDraft(before, after, draft);
  assert.equal(rebased.mirrorEndpoint, 'http://x', 'the refused edit is still in the form');
  assert.equal(rebased.threads, 64);
  assert.equal(rebased.dictation.pauseMs, 900);
  assert.equal(rebased.decoder, 'ctc', 'the change from elsewhere shows');
  assert.deepEqual(diff(after, rebased), { mirrorEndpoint: 'http://x' }, 'the form and the saved state differ by exactly the unsaved edit');
});

test('a refusal from main names its field', () => {
  assert.equal(fieldOfServerError('settings:set: payload.mirrorEndpoint: is not an https:// URL'), 'set-mirror');
  assert.equal(fieldOfServerError('payload.dictation.pauseMs: must be at most 5000'), 'set-pause');
  assert.equal(fieldOfServerError('disk full'), null);
});

test('a replacement list with a repeated entry is held back with the reason; the text toggles beside it are still sent', () => {
  const saved = defaultSettings();
  const draft = {
    ...saved,
    text: { ...saved.text, spokenPunctuation: true, trailingSpace: true, replacements: [{ from: 'parakeet', to: 'Parakeet' }, { from: 'Parakeet', to: 'P' }] },
  };
  const errors = fieldErrors(draft);
  assert.deepEqual(Object.keys(errors), ['set-replacements']);
  assert.match(errors['set-replacements']!, /Replacement 2 repeats replacement 1/);
  assert.deepEqual(diff(saved, validPart(saved, draft, errors)), { text: { spokenPunctuation: true, trailingSpace: true } });
  const fixed = { ...draft, text: { ...draft.text, replacements: [{ from: 'parakeet desktop', to: 'Parakeet Desktop' }] } };
  assert.deepEqual(fieldErrors(fixed), {});
  assert.deepEqual(diff(saved, validPart(saved, fixed, {})).text?.replacements, [{ from: 'parakeet desktop', to: 'Parakeet Desktop' }]);
  assert.equal(fieldOfServerError('settings:set: payload.text.replacements[1]: Replacement 2 repeats replacement 1'), 'set-replacements');
});
