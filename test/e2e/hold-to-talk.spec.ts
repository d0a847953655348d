// Web mode's hold-to-talk: chosen in Settings (field checks as typed), then
// holding the key in the page records, releasing it ends the session with its
// finals, and the latency panel measures from the key press. Hybrid: a tap
// latches, the next tap stops. The fake microphone plays espeak-ng speech.
import { expect, test } from './support/fixtures.js';

test('push-to-talk on Right Ctrl, then hybrid on F8, from the page', async ({ app, server }) => {
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await app.getByTestId('nav-settings').click();
  const holdKey = app.getByLabel('Hold key (push-to-talk and hybrid)');
  await holdKey.fill('Q');
  await expect(app.getByTestId('set-hold-key-error')).toContainText('needs a modifier');
  await holdKey.fill('RightCtrl');
  await expect(app.getByTestId('set-hold-key-error')).toHaveCount(0);
  await app.getByLabel(/^Push-to-talk/).check();
  await app.getByRole('button', { name: 'Save settings' }).click();
  await expect(app.getByTestId('save-outcome')).not.toContainText('Unsaved');
  await expect.poll(() => server.services.settings.get().hotkey).toMatchObject({ mode: 'push-to-talk', hold: 'RightCtrl' });

  await app.keyboard.press('Alt+1');
  const status = app.getByTestId('session-status');
  await expect(status).toHaveAttribute('data-phase', 'idle');
  await app.keyboard.down('ControlRight');
  await expect(status).toHaveAttribute('data-phase', 'live');
  // Text arrives while the key is held, measured from the key press.
  await expect(app.getByTestId('latency-key-first-text')).toContainText(/\d+ (ms|s)/, { timeout: 30_000 });
  await expect(app.getByTestId('latency-key-first-text')).toContainText('Key press to first text');
  await app.keyboard.up('ControlRight');
  await expect(status).toHaveAttribute('data-phase', 'idle');
  await expect(app.getByRole('log', { name: 'Transcript' }).getByTestId('final').first()).toBeVisible();

  // Hybrid on F8: a tap latches dictation on; the next tap stops it.
  await app.getByTestId('nav-settings').click();
  await holdKey.fill('F8');
  await app.getByLabel(/^Hybrid/).check();
  await app.getByRole('button', { name: 'Save settings' }).click();
  await expect.poll(() => server.services.settings.get().hotkey).toMatchObject({ mode: 'hybrid', hold: 'F8' });
  await app.keyboard.press('Alt+1');
  await app.keyboard.press('F8');
  await expect(status).toHaveAttribute('data-phase', 'live');
  await app.waitForTimeout(1000);
  await expect(status).toHaveAttribute('data-phase', 'live');
  await app.keyboard.press('F8');
  await expect(status).toHaveAttribute('data-phase', 'idle');
});
