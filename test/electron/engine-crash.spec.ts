// Electron: the engine's utility process is killed mid-session; the window,
// the session and the text survive.
import { SENTENCES } from '../e2e/support/paths.js';
import { expect, skipWithoutElectron, test } from './support/fixtures.js';
import { checkSessionInMain, recordFinalsInMain } from './support/main-hooks.js';

skipWithoutElectron();

test('the engine process is killed mid-session; dictation continues and nothing is lost', async ({ launched, appWindow }) => {
  await recordFinalsInMain(launched.electron);
  await expect(appWindow.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await appWindow.getByRole('button', { name: 'Start dictation' }).click();
  await expect(appWindow.getByTestId('final')).toHaveCount(1, { timeout: 20_000 });
  const first = (await appWindow.getByTestId('final').first().textContent())?.trim() ?? '';

  const status = await appWindow.evaluate(async () => {
    const r = await window.parakeet!.invoke('engine:status');
    return r.ok ? r.value : null;
  });
  expect(typeof status?.pid).toBe('number');
  process.kill(status!.pid!, 'SIGKILL');

  await expect(appWindow.getByTestId('notice').filter({ hasText: /engine/i })).toBeVisible({ timeout: 10_000 });
  await expect(appWindow.getByTestId('session-status')).toHaveAttribute('data-phase', 'live');
  await expect(appWindow.getByTestId('final')).toHaveCount(SENTENCES.length, { timeout: 30_000 });
  await expect(appWindow.getByTestId('final').first()).toHaveText(first);
  await appWindow.getByRole('button', { name: 'Stop' }).click();
  await expect(appWindow.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
  const sessionId = (await appWindow.getByTestId('final').first().getAttribute('data-session'))!;
  const check = await checkSessionInMain(launched.electron, sessionId);
  expect(check.offline).toEqual((await appWindow.getByTestId('final').allTextContents()).map((t) => t.trim()));
});
