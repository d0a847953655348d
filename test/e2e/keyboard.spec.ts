// Keyboard use: Tab reaches the controls in a sensible order with a visible
// focus ring, Enter/Space press buttons, Alt+1..6 switch views, Ctrl+Shift+
// Space starts and stops dictation from anywhere, Esc cancels. The transcript
// is an ARIA live region (finals only).
import { expect, test } from './support/fixtures.js';
import { TAB_STOPS } from './support/tab-order.js';

test('the app can be used from the keyboard alone', async ({ app }) => {
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');

  // Tab order: skip link, the seven views, then into the Dictate view.
  // Each stop shows a focus ring.
  const stops: { name: string; outline: string }[] = [];
  for (let i = 0; i < TAB_STOPS.length; i++) {
    await app.keyboard.press('Tab');
    stops.push(await app.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      return { name: (el.getAttribute('aria-label') || el.textContent || '').trim(), outline: getComputedStyle(el).outlineStyle };
    }));
  }
  expect(stops.map((s) => s.name)).toEqual([...TAB_STOPS]);
  for (const stop of stops) expect(stop.outline, `focus ring on ${stop.name}`).not.toBe('none');

  // Enter on a focused nav button switches the view; Alt+digits too.
  await app.getByTestId('nav-devices').focus();
  await app.keyboard.press('Enter');
  await expect(app.getByRole('heading', { name: 'Devices', level: 2 })).toBeVisible();
  await app.keyboard.press('Alt+2');
  await expect(app.getByRole('heading', { name: 'Files', level: 2 })).toBeVisible();
  await app.keyboard.press('Alt+3');
  await expect(app.getByRole('heading', { name: 'History', level: 2 })).toBeVisible();
  await app.keyboard.press('Alt+4');
  await expect(app.getByRole('heading', { name: 'Devices', level: 2 })).toBeVisible();
  await app.keyboard.press('Alt+5');
  await expect(app.getByRole('heading', { name: 'Models', level: 2 })).toBeVisible();
  await app.keyboard.press('Alt+6');
  await expect(app.getByRole('heading', { name: 'Settings', level: 2 })).toBeVisible();
  await app.keyboard.press('Alt+7');
  await expect(app.getByRole('heading', { name: 'Meeting', level: 2 })).toBeVisible();
  await app.keyboard.press('Alt+1');
  await expect(app.getByRole('heading', { name: 'Dictate', level: 2 })).toBeVisible();

  // The transcript's live region is polite and holds finals only.
  const log = app.getByRole('log', { name: 'Transcript' });
  await expect(log).toHaveAttribute('aria-live', 'polite');

  // Space on the focused Start button starts; the shortcut stops; finals land in the live region.
  await app.getByRole('button', { name: 'Start dictation' }).focus();
  await app.keyboard.press('Space');
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'live');
  await expect(log.getByTestId('final').first()).toBeVisible({ timeout: 20_000 });
  await expect(log.getByTestId('partial')).toHaveCount(0);
  await app.keyboard.press('Control+Shift+Space');
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');

  // The shortcut starts from another view too, and Esc cancels.
  await app.keyboard.press('Alt+4');
  await app.keyboard.press('Control+Shift+Space');
  await app.keyboard.press('Alt+1');
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'live');
  await app.keyboard.press('Escape');
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
});

test('the header says the microphone is live on every view; shortcuts leave editable fields alone', async ({ app }) => {
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await expect(app.getByTestId('recording-chip')).toHaveCount(0);

  // Started by the shortcut from Files: the header says so there, and on every other view.
  await app.keyboard.press('Alt+2');
  await expect(app.getByRole('heading', { name: 'Files', level: 2 })).toBeVisible();
  await app.keyboard.press('Control+Shift+Space');
  const chip = app.getByTestId('recording-chip');
  await expect(chip).toHaveAttribute('data-phase', 'live');
  await expect(chip).toContainText('Recording');
  for (const key of ['Alt+3', 'Alt+4', 'Alt+5', 'Alt+6', 'Alt+1']) {
    await app.keyboard.press(key);
    await expect(chip).toBeVisible();
  }
  await app.keyboard.press('Control+Shift+Space');
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
  await expect(chip).toHaveCount(0);

  // Inside a text field the start/stop chord and Esc belong to the field; Alt+digits still switch views
  // (they type nothing there on this layout).
  await app.keyboard.press('Alt+2');
  const field = app.locator('main input[type="text"]').first();
  await field.focus();
  await app.keyboard.press('Control+Shift+Space');
  await app.waitForTimeout(500);
  await expect(chip).toHaveCount(0);
  await expect(app.getByTestId('session-status')).toHaveCount(0); // still on Files: nothing started
  await app.keyboard.press('Alt+1');
  await expect(app.getByRole('heading', { name: 'Dictate', level: 2 })).toBeVisible();
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
});
