// Settings: audio processing is off by default, and a saved change reaches
// the main process's settings.
import { expect, test } from './support/fixtures.js';

test('settings show the defaults and save a change', async ({ app, server }) => {
  await app.getByTestId('nav-settings').click();
  await expect(app.getByLabel('Echo cancellation')).not.toBeChecked();
  await expect(app.getByLabel('Noise suppression')).not.toBeChecked();
  await expect(app.getByLabel('Automatic gain')).not.toBeChecked();
  await expect(app.getByLabel('Engine mode')).toHaveValue('process');
  const save = app.getByRole('button', { name: 'Save settings' });
  await expect(save).toBeDisabled();

  const pause = app.getByLabel('Pause that ends a sentence (ms)');
  await pause.fill('750');
  await app.getByLabel('Noise suppression').check();
  await save.click();
  await expect(save).toBeDisabled();
  const saved = server.services.settings.get();
  expect(saved.dictation.pauseMs).toBe(750);
  expect(saved.audio.noiseSuppression).toBe(true);
  expect(saved.audio.echoCancellation).toBe(false);
});

test('About: Copy diagnostics gives the report with the ggml build and the CPU', async ({ app }) => {
  await app.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await app.getByTestId('nav-settings').click();
  await app.getByRole('button', { name: 'Copy diagnostics' }).click();
  await expect(app.getByRole('button', { name: 'Copied' })).toBeVisible();
  const text = await app.evaluate(() => navigator.clipboard.readText());
  expect(text).toContain('ggml');
  expect(text).toContain('CPU (cpu, backend CPU)');
  expect(text).toContain('[log: last');
});
