// Electron: keyboard smoke test (tab order, shortcuts, live region).
import { expect, skipWithoutElectron, test } from './support/fixtures.js';

skipWithoutElectron();

test('the app can be used from the keyboard alone', async ({ appWindow }) => {
  await expect(appWindow.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  const names: string[] = [];
  for (let i = 0; i < 8; i++) {
    await appWindow.keyboard.press('Tab');
    names.push(await appWindow.evaluate(() => (document.activeElement?.getAttribute('aria-label') || document.activeElement?.textContent || '').trim()));
  }
  expect(names).toEqual(['Skip to content', 'Dictate', 'Files', 'History', 'Devices', 'Models', 'Settings', 'Start dictation']);
  await appWindow.keyboard.press('Alt+2');
  await expect(appWindow.getByRole('heading', { name: 'Files', level: 2 })).toBeVisible();
  await appWindow.keyboard.press('Alt+3');
  await expect(appWindow.getByRole('heading', { name: 'History', level: 2 })).toBeVisible();
  await appWindow.keyboard.press('Alt+4');
  await expect(appWindow.getByRole('heading', { name: 'Devices', level: 2 })).toBeVisible();
  await appWindow.keyboard.press('Alt+1');
  await expect(appWindow.getByRole('log', { name: 'Transcript' })).toHaveAttribute('aria-live', 'polite');
  await appWindow.keyboard.press('Control+Shift+Space');
  await expect(appWindow.getByTestId('session-status')).toHaveAttribute('data-phase', 'live');
  await expect(appWindow.getByTestId('final').first()).toBeVisible({ timeout: 20_000 });
  await appWindow.keyboard.press('Control+Shift+Space');
  await expect(appWindow.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
});
