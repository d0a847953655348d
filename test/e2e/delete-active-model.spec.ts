// Deleting the active model is never a silent switch (issue 44 item 8): the confirmation says it is the
// active one and which model takes over, the outcome says it again, and the header names the active model
// on every view.
import { expect, test } from './support/fixtures.js';
import { MODEL_PATH } from './support/paths.js';

test.use({ serverSetup: { withModel: false, extra: {} } });

test('deleting the active model warns first and says which model is active now; the header names it', async ({ app, server }) => {
  // Two installed models: the file opened on Dictate (active) and an imported copy.
  await app.getByLabel('Model file (.gguf) path on this machine').fill(MODEL_PATH);
  await app.getByRole('button', { name: 'Open model' }).click();
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await app.getByTestId('nav-models').click();
  await app.getByLabel('Path of a .gguf or .nemo file on this machine').fill(MODEL_PATH);
  await app.getByRole('button', { name: 'Import', exact: true }).click();
  const imported = app.locator('[data-testid="installed-row"][data-id^="imported/"]');
  await expect(imported).toBeVisible();
  const importedName = (await server.services.models.listInstalled()).find((m) => m.source.kind === 'imported')!.displayName;
  const active = app.locator('[data-testid="installed-row"][data-id^="linked/"]');
  const activeName = (await server.services.models.listInstalled()).find((m) => m.source.kind === 'linked')!.displayName;

  const chip = app.getByTestId('model-chip');
  await expect(chip).toHaveText(`Active model: ${activeName}`);
  await app.keyboard.press('Alt+3');
  await expect(chip).toHaveText(`Active model: ${activeName}`);
  await app.keyboard.press('Alt+5');

  await active.getByRole('button', { name: /^Remove / }).click();
  await expect(active.getByTestId('delete-active-warning')).toHaveText(`${activeName} is the active model. ${importedName} becomes the active model.`);
  await active.getByRole('button', { name: 'Remove from list' }).click();
  await expect(app.getByTestId('installed-outcome')).toHaveText(`Removed ${activeName}. ${importedName} becomes the active model.`);
  await expect(imported).toContainText('Active');
  await expect(chip).toHaveText(`Active model: ${importedName}`);
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
});
