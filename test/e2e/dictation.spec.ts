// Live dictation in web mode with the fake microphone playing three sentences
// with pauses: partial text appears while the audio plays, finals follow, and
// the finals equal the offline transcripts of the same audio cut at the same
// points. Stopping mid-sentence still finalizes that sentence.
import { join } from 'node:path';
import { formatBytes } from '../../app/shared/bytes.js';
import { systemMemory } from '../../app/main/util/memory.js';
import { expect, test } from './support/fixtures.js';
import { SCREENSHOT_DIR, SENTENCES } from './support/paths.js';
import { joinFinals, offlineTranscripts, sessionAudio, TranscriptRecorder } from './support/session-check.js';

/** Length of the fake-mic file (lead + sentences + pauses + tail ≈ 12.6 s). */
const AUDIO_SEC = 12.6;

test('partials while speaking, finals equal the offline transcript of the same cuts', async ({ app, server }) => {
  const recorder = new TranscriptRecorder(server);
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');

  const started = Date.now();
  await app.getByRole('button', { name: 'Start dictation' }).click();
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'live');

  // Tentative text shows up while the file is still playing, before the last sentence is final.
  const partial = app.getByTestId('partial');
  await expect(partial).toBeVisible({ timeout: 15_000 });
  const partialAfterSec = (Date.now() - started) / 1000;
  expect(partialAfterSec).toBeLessThan(AUDIO_SEC);
  expect(await app.getByTestId('final').count()).toBeLessThan(SENTENCES.length);
  await expect(partial).toHaveClass(/partial/);
  // The input meter follows the speech.
  const meter = app.getByTestId('level-meter');
  await expect.poll(async () => Number(await meter.getAttribute('value')), { timeout: 5_000, intervals: [50] }).toBeGreaterThan(0.2);

  // The README's screenshot: settled text plus the tentative last sentence, while live.
  await expect(app.getByTestId('final')).toHaveCount(SENTENCES.length - 1, { timeout: 30_000 });
  await app.locator('[data-testid="partial"][data-segment="2"]').waitFor({ timeout: 8_000 }).catch(() => undefined);
  await app.screenshot({ path: join(SCREENSHOT_DIR, 'dictate.png') });

  // One final per sentence, as the pauses close the segments.
  await expect(app.getByTestId('final')).toHaveCount(SENTENCES.length, { timeout: 30_000 });
  const sessionId = await app.getByTestId('final').first().getAttribute('data-session');
  expect(sessionId).toBeTruthy();
  await app.getByRole('button', { name: 'Stop' }).click();
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
  await expect(partial).toHaveCount(0);

  const finals = recorder.finals(sessionId!);
  expect(finals.map((f) => f.segmentId)).toEqual([0, 1, 2]);
  expect(recorder.partialsBefore(sessionId!, 0)).toBeGreaterThan(0);
  // The page shows exactly what the session finalized.
  const shown = await app.getByTestId('final').allTextContents();
  expect(shown.map((t) => t.trim())).toEqual(finals.map((f) => f.text.trim()));

  // Same audio, same cut points, decoded offline → same text.
  const audio = await sessionAudio(server, sessionId!);
  const offline = await offlineTranscripts(server, audio, finals);
  expect(offline).toEqual(finals.map((f) => f.text.trim()));
  expect(joinFinals(shown)).toEqual(joinFinals(offline));
  // Segments are cut inside the pauses: each one is shorter than the pause-separated sentence plus margins.
  for (const f of finals) expect((f.endSample - f.startSample) / 16_000).toBeLessThan(5);

  // Latencies are reported and shown; no sample was lost between page and session.
  await expect(app.getByTestId('latency-first-partial').locator('dd')).not.toHaveText('—');
  await expect(app.getByTestId('latency-final').locator('dd')).not.toHaveText('—');
  await expect(app.getByTestId('latency-mic-start').locator('dd')).not.toHaveText('—');
  await expect(app.getByText(/none lost/)).toBeVisible();

  // The Devices view lists this machine's CPU with its memory and shows what ran the decodes.
  await app.getByTestId('nav-devices').click();
  const cpu = app.locator('[data-testid="device-row"][data-device="CPU"]');
  await expect(cpu).toBeVisible();
  await expect(cpu.getByTestId('device-type')).toHaveText('CPU');
  // The OS's "available" (MemAvailable on Linux, what `free` shows), in decimal units, of the machine's total.
  await expect(cpu.getByTestId('device-memory')).toHaveText(new RegExp(`available of ${formatBytes(systemMemory().totalBytes).replace('.', '\\.')}$`));
  await expect(cpu.getByTestId('ran-badge')).toBeVisible();
  await expect(app.getByTestId('last-ran')).toContainText('CPU');
  expect(finals.every((f) => f.devicesRan.includes('CPU'))).toBe(true);
  // The self-test on demand: the CPU's normal path against its scheduler path, with the real figures.
  await cpu.getByRole('button', { name: 'Run self-test on CPU' }).click();
  await expect(cpu.getByTestId('self-test-result')).toHaveAttribute('data-passed', 'true');
  await expect(cpu.getByTestId('self-test-result')).toHaveText(/^Passed: matches the CPU's scheduler path: relative error [\d.e-]+, same tokens, \d+ ms$/);
  // The README's screenshot, with the self-test result in its row.
  await app.screenshot({ path: join(SCREENSHOT_DIR, 'devices.png') });
  recorder.dispose();
});

test('stopping mid-sentence finalizes that sentence', async ({ app, server }) => {
  const recorder = new TranscriptRecorder(server);
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await app.getByRole('button', { name: 'Start dictation' }).click();
  // Wait for the first sentence to be final and the second one to be under way…
  await expect(app.getByTestId('final')).toHaveCount(1, { timeout: 20_000 });
  await expect(app.locator('[data-testid="partial"][data-segment="1"]')).toBeVisible({ timeout: 15_000 });
  // …and stop while it is still being spoken.
  await app.getByRole('button', { name: 'Stop' }).click();
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');

  const sessionId = (await app.getByTestId('final').first().getAttribute('data-session'))!;
  const finals = recorder.finals(sessionId);
  expect(finals.map((f) => f.segmentId)).toEqual([0, 1]);
  await expect(app.getByTestId('final')).toHaveCount(2);
  await expect(app.getByTestId('partial')).toHaveCount(0);
  // The cut sentence is final, and it is what an offline decode of the same samples gives.
  const audio = await sessionAudio(server, sessionId);
  expect(finals[1].endSample).toBeLessThanOrEqual(audio.length);
  const offline = await offlineTranscripts(server, audio, finals);
  expect(offline).toEqual(finals.map((f) => f.text.trim()));
  const shown = (await app.getByTestId('final').allTextContents()).map((t) => t.trim());
  expect(shown).toEqual(offline);
  recorder.dispose();
});
