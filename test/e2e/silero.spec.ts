// The bundled Silero VAD in the app (web mode, the trained digits model): the fake microphone speaks three
// digit strings with pink noise, mains hum and keyboard clicks between them; there is one final per string
// and none for the noise, each final is its string, and Devices says the Silero VAD cuts speech and what
// its silence guards kept out (the segment confirm level is on by default; the confidence floor off).
//
// The app's defaults: a Silero segment starts Silero's speech pad (30 ms) before the onset, not the
// pre-roll (300 ms, the energy threshold's). What the digits model hears for a string's first word depends
// on where the onset falls in its 80 ms encoder frame (silero-vad.test.ts: "oh" with 0–10 ms in front,
// "four" with 20–30, lost with 40), and the browser's capture places Silero's 32 ms chunks differently
// each run: a final's first word may be lost, changed or preceded by one word; every later word is the
// string's, and nothing else is typed. Each final is also the engine's offline decode of the same cut.
import { existsSync, readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import type { Services } from '../../app/main/service-types.js';
import { DIGITS_MODEL } from '../support/audio/digits.js';
import { expect, test } from './support/fixtures.js';
import { CHROMIUM, chromiumArgs, NOISY_DIGITS_MIC_JSON, NOISY_DIGITS_MIC_WAV } from './support/paths.js';
import { sessionAudio, TranscriptRecorder } from './support/session-check.js';

test.skip(!existsSync(DIGITS_MODEL), `the trained test model is not at ${DIGITS_MODEL} (set PARAKEET_DIGITS_MODEL)`);
test.use({
  serverSetup: { withModel: false, extra: { modelPath: DIGITS_MODEL } },
  launchOptions: { executablePath: CHROMIUM, args: chromiumArgs(NOISY_DIGITS_MIC_WAV) },
});

/** Settings choose Silero, the engine has it, the page is ready; the noisy clip's strings. */
async function sileroReady(app: Page, server: { services: Services }): Promise<string[]> {
  await server.services.settings.set({ dictation: { vadModel: 'silero' } });
  await expect.poll(() => server.services.engine.vadStatus.kind).toBe('silero');
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  return (JSON.parse(readFileSync(NOISY_DIGITS_MIC_JSON, 'utf8')) as { texts: string[] }).texts;
}

test('dictation cut by Silero: digit strings between noise, hum and clicks are the finals, nothing else', async ({ app, server }) => {
  const texts = await sileroReady(app, server);
  await app.getByTestId('nav-devices').click();
  await expect(app.getByTestId('vad-detector')).toHaveAttribute('data-detector', 'silero');
  await expect(app.getByTestId('vad-detector')).toContainText('Silero VAD v6.2');
  await app.getByTestId('nav-dictate').click();

  const recorder = new TranscriptRecorder(server);
  await app.getByRole('button', { name: 'Start dictation' }).click();
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'live');
  await expect(app.getByTestId('final')).toHaveCount(texts.length, { timeout: 40_000 });
  // The clip's tail: a pause, then nothing more (noise never opens a segment).
  await app.waitForTimeout(1500);
  await app.getByRole('button', { name: 'Stop' }).click();
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
  const sessionId = (await app.getByTestId('final').first().getAttribute('data-session'))!;
  const finals = recorder.finals(sessionId);
  expect(finals).toHaveLength(texts.length);
  finals.forEach((f, i) => {
    const heard = f.text.trim().split(' ');
    const spoken = texts[i]!.split(' ');
    expect(heard.slice(heard.length - (spoken.length - 1)), `final ${i}: "${f.text.trim()}" ends as "${texts[i]}"`).toEqual(spoken.slice(1));
    expect(heard.length, `final ${i}: "${f.text.trim()}"`).toBeLessThanOrEqual(spoken.length + 1);
  });
  expect((await app.getByTestId('final').allTextContents()).map((t) => t.trim())).toEqual(finals.map((f) => f.text.trim()));
  const audio = await sessionAudio(server, sessionId);
  for (const f of finals) {
    const offline = await server.services.engine.transcribe(audio.slice(f.startSample, f.endSample), { sampleRate: 16_000 }, { priority: 'final' });
    expect(offline?.text.trim()).toBe(f.text.trim());
  }
  await app.getByTestId('nav-devices').click();
  await expect(app.getByTestId('vad-detector')).toContainText(/Silence guards: \d+ live stretch(es)? Silero was unsure of not transcribed, 0 words below the confidence floor dropped/);
  recorder.dispose();
});

test('Files: a noisy recording cut by Silero says so, with what it decoded and skipped, in the result and in History', async ({ app, server }) => {
  const texts = await sileroReady(app, server);
  await app.getByTestId('nav-files').click();
  await app.getByLabel('Audio file path on this machine').fill(NOISY_DIGITS_MIC_WAV);
  await app.getByRole('button', { name: 'Transcribe', exact: true }).click();
  const result = app.getByTestId('file-result');
  await expect(result).toBeVisible({ timeout: 30_000 });
  // Every string's later words are there (a first word may differ: see the top of this file); no noise became words.
  const heard = (await result.getByTestId('file-text').textContent())!.trim().split(' ');
  expect(heard.length, heard.join(' ')).toBeLessThanOrEqual(texts.join(' ').split(' ').length + texts.length);
  const speech = /^Speech found bySilero VAD v6\.2 \(F32\): (\d+\.\d) s decoded, (\d+\.\d) s of silence skipped$/;
  await expect(result.getByTestId('file-speech')).toHaveText(speech);
  const [, decoded, skipped] = speech.exec((await result.getByTestId('file-speech').textContent())!)!;
  expect(Number(decoded)).toBeGreaterThan(0);
  expect(Number(skipped), 'the noise between the strings is not decoded').toBeGreaterThan(Number(decoded) / 4);
  await app.getByTestId('nav-history').click();
  await app.getByTestId('history-entry').first().click();
  await expect(app.getByTestId('history-speech')).toHaveText(`Speech found bySilero VAD v6.2 (F32): ${decoded} s decoded, ${skipped} s of silence skipped`);
});
