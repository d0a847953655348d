// Electron: keyboard smoke test (tab order, shortcuts, live region). The tab
// stops are the web-mode spec's (test/e2e/support/tab-order.ts), Meeting included.
import { TAB_STOPS, VIEW_LABELS } from '../e2e/support/tab-order.js';
import { expect, skipWithoutElectron, test } from './support/fixtures.js';

skipWithoutElectron();

test('the app can be used from the keyboard alone', async ({ appWindow }) => {
  await expect(appWindow.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  const names: string[] = [];
  for (let i = 0; i < TAB_STOPS.length; i++) {
    await appWindow.keyboard.press('Tab');
    names.push(await appWindow.evaluate(() => (document.activeElement?.getAttribute('aria-label') || document.activeElement?.textContent || '').trim()));
  }
  expect(names).toEqual([...TAB_STOPS]);
  // Alt+1…7 in the nav's order, Meeting last.
  for (const [i, label] of VIEW_LABELS.entries()) {
    if (i === 0) continue;
    await appWindow.keyboard.press(`Alt+${i + 1}`);
    await expect(appWindow.getByRole('heading', { name: label, level: 2 })).toBeVisible();
  }
  await appWindow.keyboard.press('Alt+1');
  await expect(appWindow.getByRole('log', { name: 'Transcript' })).toHaveAttribute('aria-live', 'polite');
  await appWindow.keyboard.press('Control+Shift+Space');
  await expect(appWindow.getByTestId('session-status')).toHaveAttribute('data-phase', 'live');
  await expect(appWindow.getByTestId('final').first()).toBeVisible({ timeout: 20_000 });
  await appWindow.keyboard.press('Control+Shift+Space');
  await expect(appWindow.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
});
