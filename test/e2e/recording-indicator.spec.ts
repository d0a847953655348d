// The header's recording chip covers every way the microphone is live (issue 44 item 3): a meeting (both
// tracks record, on every view) and the first run's microphone test; a dictation cannot start on the same
// microphone while a meeting records: Start is off with the reason, the shortcut explains, main refuses.
import { expect, test } from './support/fixtures.js';
import { startMeeting, useMeetingSetup } from './support/meeting.js';

useMeetingSetup();

test('a meeting shows the recording chip on every view; dictation is refused with the reason until it ends', async ({ app, server }) => {
  await startMeeting(app, server);
  const chip = app.getByTestId('recording-chip');
  await expect(chip).toHaveAttribute('data-source', 'meeting');
  await expect(chip).toHaveText('Recording meeting');
  for (const key of ['Alt+1', 'Alt+3', 'Alt+6']) {
    await app.keyboard.press(key);
    await expect(chip).toBeVisible();
  }
  // On Dictate: Start is off and says why; the shortcut explains instead of starting.
  await app.keyboard.press('Alt+1');
  await expect(app.getByTestId('record')).toBeDisabled();
  await expect(app.getByTestId('record-why')).toHaveText('A meeting is recording this microphone: stop it in the Meeting view to dictate.');
  await app.keyboard.press('Control+Shift+Space');
  await expect(app.getByTestId('notice').filter({ hasText: 'a meeting is recording this microphone' })).toBeVisible();
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
  // Main refuses it too (another client, the hotkey of another window).
  const refused = await server.services.router.handle('dictation:start', { sampleRate: 16_000 }, { clientId: 'other' });
  expect(refused).toMatchObject({ ok: false, error: { code: 'MEETING_RECORDING' } });

  // The chip goes to the meeting, which stops; then it is gone and Start is back.
  await chip.click();
  await expect(app.getByRole('heading', { name: 'Meeting', level: 2 })).toBeVisible();
  await app.getByTestId('meeting-stop').click();
  await expect(chip).toHaveCount(0, { timeout: 30_000 });
  await app.keyboard.press('Alt+1');
  await expect(app.getByTestId('record')).toBeEnabled();
  // The meeting's banner went with it (issue 44 item 4).
  await expect(app.getByTestId('notice').filter({ hasText: 'a meeting is recording this microphone' })).toHaveCount(0);
});
