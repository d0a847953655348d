// settings.streaming (the latency preset and the language of a streaming model), as Settings and Dictate save
// it: the store keeps 'auto' or a locale and 'default' or "left,right", refuses anything else naming the
// field; at a stream's start a language or preset the loaded model does not have falls back to its default
// (auto; the first preset) with a warning instead of failing the dictation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nullLogger } from '../../../app/main/log.js';
import { streamOptionsFor } from '../../../app/main/sessions/stream-options.js';
import { SettingsStore } from '../../../app/main/settings.js';
import { scratch } from './tmp.js';

const NEMOTRON_35 = { attContextPresets: [[56, 3], [56, 0], [56, 6], [56, 13]] as [number, number][], hasPrompt: true, languages: ['en-US', 'de-DE', 'fr-FR'] };

test('the settings store keeps a locale and a preset, and persists them', async () => {
  const dir = scratch('streaming-settings');
  const settings = await SettingsStore.open(dir, nullLogger);
  assert.deepEqual(settings.get().streaming, { preset: 'default', language: 'auto' });
  await settings.set({ streaming: { language: 'de-DE' } });
  await settings.set({ streaming: { preset: '56,6' } });
  assert.deepEqual(settings.get().streaming, { preset: '56,6', language: 'de-DE' }, 'one field saved keeps the other');
  const reopened = await SettingsStore.open(dir, nullLogger);
  assert.deepEqual(reopened.get().streaming, { preset: '56,6', language: 'de-DE' });
});

test('the settings store refuses a language or preset that is not one, naming the field and what was found', async () => {
  const settings = await SettingsStore.open(scratch('streaming-settings-bad'), nullLogger);
  await assert.rejects(settings.set({ streaming: { language: 'de DE' } }), /streaming\.language.*"de DE" is not 'auto' or a locale/);
  await assert.rejects(settings.set({ streaming: { language: '' } }), /streaming\.language/);
  await assert.rejects(settings.set({ streaming: { preset: '56;6' } }), /streaming\.preset.*"56;6" is not 'default' or "left,right"/);
  assert.deepEqual(settings.get().streaming, { preset: 'default', language: 'auto' }, 'nothing refused was kept');
});

test('a stream starts with the chosen locale and preset; ones the model lacks fall back to auto and its default, with a warning', () => {
  const warnings: string[] = [];
  assert.deepEqual(streamOptionsFor(NEMOTRON_35, { preset: '56,13', language: 'fr-FR' }, (m) => warnings.push(m)), { attContext: [56, 13], language: 'fr-FR' });
  assert.deepEqual(streamOptionsFor(NEMOTRON_35, { preset: 'default', language: 'auto' }, (m) => warnings.push(m)), { language: 'auto' });
  assert.equal(warnings.length, 0);
  // No attContext and no language: the engine's defaults (the first preset; the model's default_lang, auto).
  assert.deepEqual(streamOptionsFor(NEMOTRON_35, { preset: '70,1', language: 'ja-JP' }, (m) => warnings.push(m)), {});
  assert.equal(warnings.length, 2);
  assert.match(warnings[0]!, /streaming preset 70,1 is not one of this model's \(56,3 56,0 56,6 56,13\)/);
  assert.match(warnings[1]!, /language ja-JP is not one of this model's locales: using auto/);
  // A model without a prompt takes no language at all.
  assert.deepEqual(streamOptionsFor({ attContextPresets: [[70, 1]], hasPrompt: false, languages: [] }, { preset: 'default', language: 'de-DE' }, () => undefined), {});
});
