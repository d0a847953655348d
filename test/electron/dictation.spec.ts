// Electron: the dictation flows of the web-mode suite, through the preload's
// window.parakeet and the audio MessagePort.
import { SENTENCES } from '../e2e/support/paths.js';
import { expect, skipWithoutElectron, test } from './support/fixtures.js';
import { checkSessionInMain, recordFinalsInMain } from './support/main-hooks.js';

skipWithoutElectron();

test('partials while speaking, finals equal the offline transcript of the same cuts', async ({ launched, appWindow }) => {
  await recordFinalsInMain(launched.electron);
  await expect(appWindow.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  expect(await appWindow.evaluate(() => window.parakeet?.mode)).toBe('electron');
  const started = Date.now();
  await appWindow.getByRole('button', { name: 'Start dictation' }).click();
  await expect(appWindow.getByTestId('partial')).toBeVisible({ timeout: 15_000 });
  expect((Date.now() - started) / 1000).toBeLessThan(12.6);
  await expect(appWindow.getByTestId('final')).toHaveCount(SENTENCES.length, { timeout: 30_000 });
  await appWindow.getByRole('button', { name: 'Stop' }).click();
  await expect(appWindow.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');

  const sessionId = (await appWindow.getByTestId('final').first().getAttribute('data-session'))!;
  const check = await checkSessionInMain(launched.electron, sessionId);
  const shown = (await appWindow.getByTestId('final').allTextContents()).map((t) => t.trim());
  expect(check.finals.map((f) => f.text)).toEqual(shown);
  expect(check.offline).toEqual(shown);
  await expect(appWindow.getByText(/none lost/)).toBeVisible();
});

test('stopping mid-sentence finalizes that sentence', async ({ launched, appWindow }) => {
  await recordFinalsInMain(launched.electron);
  await expect(appWindow.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await appWindow.getByRole('button', { name: 'Start dictation' }).click();
  await expect(appWindow.getByTestId('final')).toHaveCount(1, { timeout: 20_000 });
  await expect(appWindow.locator('[data-testid="partial"][data-segment="1"]')).toBeVisible({ timeout: 15_000 });
  await appWindow.getByRole('button', { name: 'Stop' }).click();
  await expect(appWindow.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
  await expect(appWindow.getByTestId('final')).toHaveCount(2);
  await expect(appWindow.getByTestId('partial')).toHaveCount(0);
  const sessionId = (await appWindow.getByTestId('final').first().getAttribute('data-session'))!;
  const check = await checkSessionInMain(launched.electron, sessionId);
  expect(check.offline).toEqual((await appWindow.getByTestId('final').allTextContents()).map((t) => t.trim()));
});

test('the Devices view lists the CPU with its memory and what ran the decodes', async ({ appWindow }) => {
  await expect(appWindow.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await appWindow.getByRole('button', { name: 'Start dictation' }).click();
  await expect(appWindow.getByTestId('final').first()).toBeVisible({ timeout: 20_000 });
  await appWindow.getByRole('button', { name: 'Stop' }).click();
  await appWindow.getByTestId('nav-devices').click();
  const cpu = appWindow.locator('[data-testid="device-row"][data-device="CPU"]');
  await expect(cpu.getByTestId('device-memory')).toHaveText(/free of \d/);
  await expect(cpu.getByTestId('ran-badge')).toBeVisible();
  await expect(appWindow.getByTestId('last-ran')).toContainText('CPU');
});
