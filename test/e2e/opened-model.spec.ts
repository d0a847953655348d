// A model opened in the first run is not forgotten (issue 44 item 1): it is listed under Models → Installed
// as used from where it is, it can be switched back to, and a restart loads it again. Removing it from the
// list leaves the file alone (it is the user's).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startWebServer, type WebServer } from '../../app/web/server.js';
import { MODEL_PATH, RENDERER_DIST } from './support/paths.js';

test('a model opened on Dictate shows under Installed, survives a restart, and leaving the list keeps the file', async ({ page }) => {
  const userDataDir = mkdtempSync(join(tmpdir(), 'parakeet-e2e-opened-'));
  const start = (): Promise<WebServer> => startWebServer({ port: 0, userDataDir, rendererDir: RENDERER_DIST, engineMode: 'process' });
  let server = await start();
  try {
    await page.goto(server.url);
    await expect(page.getByTestId('engine-chip')).toHaveAttribute('data-state', 'no-model');
    const steps = page.getByTestId('first-run-steps');
    await expect(steps).toContainText('used from where it is, not copied');
    await steps.getByLabel('Model file (.gguf) path on this machine').fill(MODEL_PATH);
    await steps.getByRole('button', { name: 'Open model' }).click();
    await expect(page.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');

    await page.getByTestId('nav-models').click();
    const row = page.locator('[data-testid="installed-row"][data-id^="linked/"]');
    await expect(row).toBeVisible();
    await expect(row.getByTestId('installed-file')).toHaveText(`Used from where it is: ${MODEL_PATH}`);
    await expect(row.getByText(/^Active, loaded$/)).toBeVisible();

    // A restart loads it again: no "No model is loaded yet".
    await page.close();
    await server.close();
    server = await start();
    const again = await page.context().newPage();
    await again.goto(server.url);
    await expect(again.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
    expect(server.services.engine.status().model?.path).toBe(MODEL_PATH);

    // Leaving the list unloads it and keeps the user's file.
    await again.getByTestId('nav-models').click();
    const row2 = again.locator('[data-testid="installed-row"][data-id^="linked/"]');
    await row2.getByRole('button', { name: /^Remove / }).click();
    await row2.getByRole('button', { name: 'Remove from list' }).click();
    await expect(row2).toHaveCount(0);
    expect(existsSync(MODEL_PATH)).toBe(true);
  } finally {
    await server.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
});
