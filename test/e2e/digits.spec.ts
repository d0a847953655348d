// Real words in web mode: the trained digits model (../shared/models) instead
// of the random-weight one. The fake microphone speaks three digit strings with
// pauses; the finals are those strings, equal to the offline transcripts of the
// same cuts; the history finds the dictation by a spoken word. The Files view
// transcribes a spoken digit string to its words, each shown at a time within
// 0.2 s of where espeak-ng spoke it.
//
// Pre-roll 0 ms for the dictation: the model learned isolated espeak-ng
// strings, and silence in front of a string costs it words (offline, with the
// app's segmenter on 50 strings: WER 0.4 % at 0 ms, 9.7 % at the default 300 ms;
// npm run bench:wer measures it).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import type { Concatenation } from '../support/audio/digits.js';
import { DIGITS_MODEL } from '../support/audio/digits.js';
import { expect, test } from './support/fixtures.js';
import { CHROMIUM, chromiumArgs, DIGITS_FILE_JSON, DIGITS_FILE_WAV, DIGITS_MIC_JSON, DIGITS_MIC_WAV, SCREENSHOT_DIR } from './support/paths.js';
import { offlineTranscripts, sessionAudio, TranscriptRecorder } from './support/session-check.js';

test.skip(!existsSync(DIGITS_MODEL), `the trained test model is not at ${DIGITS_MODEL} (set PARAKEET_DIGITS_MODEL)`);
test.use({
  serverSetup: { withModel: false, extra: { modelPath: DIGITS_MODEL } },
  launchOptions: { executablePath: CHROMIUM, args: chromiumArgs(DIGITS_MIC_WAV) },
});

const readParts = (path: string): Concatenation => JSON.parse(readFileSync(path, 'utf8')) as Concatenation;

/** "mm:ss.cc" → seconds. */
function clock(t: string): number {
  const m = /^(\d\d):(\d\d)\.(\d\d)$/.exec(t);
  if (!m) throw new Error(`not a mm:ss.cc time: ${t}`);
  return Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) / 100;
}

async function ready(app: Page): Promise<void> {
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
}

test('live dictation of three spoken digit strings: the finals are those strings and equal the offline transcript of the same cuts; history finds a spoken word', async ({ app, server }) => {
  const spoken = readParts(DIGITS_MIC_JSON);
  expect(spoken.parts).toHaveLength(3);
  await server.services.settings.set({ dictation: { preRollMs: 0 } });
  const recorder = new TranscriptRecorder(server);
  await ready(app);
  await app.getByRole('button', { name: 'Start dictation' }).click();
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'live');
  await expect(app.getByTestId('final')).toHaveCount(3, { timeout: 30_000 });
  await app.getByRole('button', { name: 'Stop' }).click();
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');

  const sessionId = (await app.getByTestId('final').first().getAttribute('data-session'))!;
  const finals = recorder.finals(sessionId);
  // The words that were spoken, in order, one final per string.
  expect(finals.map((f) => f.text.trim())).toEqual(spoken.parts.map((p) => p.text));
  const shown = (await app.getByTestId('final').allTextContents()).map((t) => t.trim());
  expect(shown).toEqual(spoken.parts.map((p) => p.text));
  // Each final's cut lies around its string (the session's clock starts when the mic opened, so only lengths compare).
  finals.forEach((f, i) => {
    const len = (f.endSample - f.startSample) / 16_000;
    const spokenLen = spoken.parts[i].end - spoken.parts[i].start;
    expect(len).toBeGreaterThan(spokenLen - 0.6);
    expect(len).toBeLessThan(spokenLen + 0.6);
  });
  await app.screenshot({ path: join(SCREENSHOT_DIR, 'dictate-digits.png') });

  // History: the session is kept with its text, and searching a word that was spoken finds it; one that was not, nothing.
  await app.getByTestId('nav-history').click();
  const entries = app.getByTestId('history-entry');
  await expect(entries).toHaveCount(1);
  const said = new Set(spoken.text.split(' '));
  const word = spoken.parts[2].text.split(' ').at(-1)!;
  const unsaid = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'oh'].find((w) => !said.has(w));
  const search = app.getByLabel('Search');
  await search.fill(word.toUpperCase());
  await expect(entries).toHaveCount(1);
  await expect(app.getByTestId('history-count')).toContainText('1 entry contain');
  if (unsaid) {
    await search.fill(unsaid);
    await expect(entries).toHaveCount(0);
  }
  await search.fill(word);
  await entries.first().click();
  await expect(app.getByTestId('history-detail').getByTestId('history-text')).toHaveText(spoken.text);

  // Same audio, same cut points, decoded offline (files:transcribe, after the history checks: each cut becomes an entry) → the same words.
  const offline = await offlineTranscripts(server, await sessionAudio(server, sessionId), finals);
  expect(offline).toEqual(finals.map((f) => f.text.trim()));
  recorder.dispose();
});

test("Files: a spoken digit string gives its words, each at a time within 0.2 s of espeak-ng's word", async ({ app }) => {
  const spoken = readParts(DIGITS_FILE_JSON);
  const words = spoken.parts.flatMap((p) => p.words);
  await ready(app);
  await app.getByTestId('nav-files').click();
  await app.getByLabel('Audio file path on this machine').fill(DIGITS_FILE_WAV);
  await app.getByRole('button', { name: 'Transcribe', exact: true }).click();
  const result = app.getByTestId('file-result');
  await expect(result).toBeVisible({ timeout: 30_000 });
  await expect(result.getByTestId('file-text')).toHaveText(spoken.text);

  const rows = result.getByTestId('word-row');
  await expect(rows).toHaveCount(words.length);
  expect(await rows.locator('th').allTextContents()).toEqual(words.map((w) => w.text));
  // The engine's word time is its CTC spike, which falls inside the spoken word: compared with the word's middle.
  const times = await result.getByTestId('word-time').allTextContents();
  times.forEach((t, i) => {
    const [start, end] = t.split('–').map(clock);
    const middle = (words[i].start + words[i].end) / 2;
    expect(Math.abs(start - middle), `"${words[i].text}" shown at ${t}; espeak-ng spoke it ${words[i].start.toFixed(2)}–${words[i].end.toFixed(2)} s`).toBeLessThanOrEqual(0.2);
    expect(end).toBeGreaterThanOrEqual(start);
  });
  await app.screenshot({ path: join(SCREENSHOT_DIR, 'files-digits.png') });
});

// Custom vocabulary (issue 45): the phrases the decoder found travel with the file's history entry, which shows them.
test('History shows which vocabulary phrases fired in a transcribed file', async ({ app, server }) => {
  const spoken = readParts(DIGITS_FILE_JSON);
  const phrase = spoken.text.split(' ').slice(0, 2).join(' ');
  await server.services.settings.set({ text: { vocabulary: [{ phrase, weight: 1 }, { phrase: 'nine nine nine nine nine', weight: 1 }] } });
  await ready(app);
  await app.getByTestId('nav-files').click();
  await app.getByLabel('Audio file path on this machine').fill(DIGITS_FILE_WAV);
  await app.getByRole('button', { name: 'Transcribe', exact: true }).click();
  await expect(app.getByTestId('file-result')).toBeVisible({ timeout: 30_000 });
  await app.getByTestId('nav-history').click();
  await app.getByTestId('history-entry').first().click();
  await expect(app.getByTestId('history-phrases')).toHaveText(`Vocabulary heard${phrase}`);
});
