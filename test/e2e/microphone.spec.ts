// Without a granted microphone, Start fails with a banner that says what to
// do, and nothing is left half-started. (No --use-fake-ui-for-media-stream:
// Chromium then denies getUserMedia with NotAllowedError.)
import { expect, test } from './support/fixtures.js';
import { CHROMIUM, chromiumArgs, SPEECH_WAV } from './support/paths.js';

test.use({ launchOptions: { executablePath: CHROMIUM, args: chromiumArgs(SPEECH_WAV, { grantMic: false }) } });

test('a denied microphone shows what to do', async ({ app, server, pageErrors }) => {
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await app.getByRole('button', { name: 'Start dictation' }).click();
  const banner = app.locator('[data-testid="notice"][data-code="PERMISSION_DENIED"]');
  await expect(banner).toBeVisible();
  await expect(banner).toHaveAttribute('role', 'alert');
  await expect(banner).toContainText(/Allow microphone access/);
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
  await expect(app.getByRole('button', { name: 'Start dictation' })).toBeEnabled();
  // No session was opened on the server.
  expect(server.services.sessions.get('s1')).toBeUndefined();
  // Dismissable from the keyboard.
  await banner.getByRole('button', { name: /Dismiss/ }).press('Enter');
  await expect(banner).toHaveCount(0);
  pageErrors.length = 0;
});
