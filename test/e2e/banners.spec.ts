// Banners belong to their cause and speak to people (issue 44 item 4): opening a model shows why it failed
// next to the picker, in words (no channel or payload names), "not found" for a missing file; a start-up
// "could not be loaded" banner leaves once a model loads. (The meeting's banners leaving with it:
// recording-indicator.spec.ts.)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startWebServer } from '../../app/web/server.js';
import { MODEL_PATH, RENDERER_DIST } from './support/paths.js';

test('the picker says what is wrong in words beside it, "not found" for a missing file, and a stale load banner leaves once a model loads', async ({ page }) => {
  // An installed model whose file is not a model: the start-up load fails with a banner.
  const userDataDir = mkdtempSync(join(tmpdir(), 'parakeet-e2e-banners-'));
  const broken = join(userDataDir, 'broken.gguf');
  const bytes = Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(4096, 7)]);
  writeFileSync(broken, bytes);
  mkdirSync(join(userDataDir, 'models'), { recursive: true });
  writeFileSync(join(userDataDir, 'models', 'installed.json'), JSON.stringify({
    version: 1,
    activeId: 'linked/broken',
    models: [{
      id: 'linked/broken', displayName: 'broken', file: broken, bytes: bytes.length, sha256: '', source: { kind: 'linked', path: broken },
      architecture: 'hybrid_tdt_ctc', decoders: ['tdt'], variant: null, license: null, installedAt: new Date().toISOString(),
    }],
  }));
  const server = await startWebServer({ port: 0, userDataDir, rendererDir: RENDERER_DIST, engineMode: 'process' });
  try {
    await server.services.ready;
    await page.goto(server.url);
    const stale = page.getByTestId('notice').filter({ hasText: 'The model could not be loaded' });
    await expect(stale).toBeVisible();

    const steps = page.getByTestId('first-run-steps');
    const field = steps.getByLabel('Model file (.gguf) path on this machine');
    const open = steps.getByRole('button', { name: 'Open model' });
    const error = steps.getByTestId('dictate-picker-error');

    // A relative path: said in words, beside the picker; no contract text anywhere.
    await field.fill('models/tiny.gguf');
    await open.click();
    await expect(error).toHaveText('The path is not an absolute path. Check the path: it must be the full path of a .gguf or .nemo file on this machine.');
    await expect(page.locator('body')).not.toContainText('payload');
    await expect(page.locator('body')).not.toContainText('engine:loadModel');
    await expect(page.getByTestId('notice')).toHaveCount(1);

    // A missing file: not found, not "not a usable Parakeet model".
    await field.fill('/definitely/not/here.gguf');
    await expect(error).toHaveCount(0);
    await open.click();
    await expect(error).toContainText('/definitely/not/here.gguf was not found.');
    await expect(error).not.toContainText('usable');

    // A model that loads: the start-up banner about the broken one is no longer true, and goes.
    await field.fill(MODEL_PATH);
    await open.click();
    await expect(page.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
    await expect(stale).toHaveCount(0);
    await expect(page.getByTestId('notice')).toHaveCount(0);
  } finally {
    await server.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
});
