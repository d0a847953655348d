// "Keep the microphone open" (armed pre-roll): speech that starts before the
// Start press still reaches the session from its first syllable, because the
// last pre-roll milliseconds are sent ahead of the live frames.
import { expect, test } from './support/fixtures.js';
import { TranscriptRecorder, sessionAudio } from './support/session-check.js';

function rmsOf(x: Float32Array): number {
  let s = 0;
  for (const v of x) s += v * v;
  return Math.sqrt(s / Math.max(1, x.length));
}

test('with the mic armed, the words spoken just before Start are not cut', async ({ app, server }) => {
  const recorder = new TranscriptRecorder(server);
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  // A pre-roll long enough that the press lands inside it even on a slow, busy test machine.
  const preRollMs = 1500;
  await app.getByTestId('nav-settings').click();
  await app.getByLabel('Pre-roll (ms)').fill(String(preRollMs));
  await app.getByRole('button', { name: 'Save settings' }).click();
  await expect.poll(() => server.services.settings.get().dictation.preRollMs).toBe(preRollMs);
  // Arm: the preference is per window; the Dictate view then opens the mic (the fake file starts playing).
  await app.getByLabel(/Keep the microphone open/).check();
  await app.getByTestId('nav-dictate').click();
  const meter = app.getByTestId('level-meter');
  // Press Start only once the first sentence is audibly under way.
  await expect.poll(async () => Number(await meter.getAttribute('value')), { timeout: 10_000, intervals: [20] }).toBeGreaterThan(0.3);
  await app.getByRole('button', { name: 'Start dictation' }).click();
  await expect(app.getByTestId('latency-press-to-mic').locator('dd')).toHaveText('0 ms');
  await expect(app.getByTestId('final').first()).toBeVisible({ timeout: 20_000 });
  await app.getByRole('button', { name: 'Stop' }).click();
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
  // Still armed after the session: the mic stays open on this view.
  await expect(meter).not.toHaveClass(/level-off/);

  const sessionId = (await app.getByTestId('final').first().getAttribute('data-session'))!;
  const audio = await sessionAudio(server, sessionId);
  // The session's audio begins in the quiet before the first word and reaches speech within the pre-roll.
  const head = audio.subarray(0, 480); // 30 ms
  const preRoll = audio.subarray(0, Math.round((preRollMs / 1000) * 16_000));
  expect(rmsOf(head)).toBeLessThan(0.01);
  expect(rmsOf(preRoll)).toBeGreaterThan(0.02);
  // The first segment starts at the very beginning of that audio.
  expect(recorder.finals(sessionId)[0]?.startSample).toBeLessThan(preRoll.length);
  recorder.dispose();
});
