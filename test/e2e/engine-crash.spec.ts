// Killing the engine process mid-session is survived: the UI says so, the
// session keeps going, text already final stays, and nothing captured is
// lost (the finals after the restart still match offline decodes of the
// session's complete audio).
import { expect, test } from './support/fixtures.js';
import { SENTENCES } from './support/paths.js';
import { offlineTranscripts, sessionAudio, TranscriptRecorder } from './support/session-check.js';

test('the engine process is killed mid-session; dictation continues and nothing is lost', async ({ app, server }) => {
  const recorder = new TranscriptRecorder(server);
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  const before = server.services.engine.status();
  expect(before.mode).toBe('process');

  await app.getByRole('button', { name: 'Start dictation' }).click();
  await expect(app.getByTestId('final')).toHaveCount(1, { timeout: 20_000 });
  const firstFinal = (await app.getByTestId('final').first().textContent())?.trim();

  // Kill it the hard way: SIGKILL to the engine's OS process.
  const pid = before.pid;
  expect(typeof pid).toBe('number');
  process.kill(pid!, 'SIGKILL');

  // The UI says what happened…
  const banner = app.getByTestId('notice').filter({ hasText: /engine/i });
  await expect(banner).toBeVisible({ timeout: 10_000 });
  // …the session is still live, and the engine comes back with a new process.
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'live');
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', /ready|busy/, { timeout: 20_000 });
  expect(server.services.engine.status().restarts).toBeGreaterThanOrEqual(1);
  expect(server.services.engine.status().pid).not.toBe(pid);

  // The remaining sentences are still transcribed; the first final did not change.
  await expect(app.getByTestId('final')).toHaveCount(SENTENCES.length, { timeout: 30_000 });
  await expect(app.getByTestId('final').first()).toHaveText(firstFinal ?? '');
  await app.getByRole('button', { name: 'Stop' }).click();
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');

  const sessionId = (await app.getByTestId('final').first().getAttribute('data-session'))!;
  const finals = recorder.finals(sessionId);
  expect(finals.map((f) => f.segmentId)).toEqual([0, 1, 2]);
  const audio = await sessionAudio(server, sessionId);
  const offline = await offlineTranscripts(server, audio, finals);
  expect(offline).toEqual(finals.map((f) => f.text.trim()));
  // Every sample the page sent is in the session's audio.
  await expect(app.getByText(/none lost/)).toBeVisible();
  recorder.dispose();
});
