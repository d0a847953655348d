// The Models view against a local HTTPS mirror shaped like Hugging Face:
// first run proposes the English default with its size, the download shows a
// moving progress bar, the model installs, becomes active and transcribes.
// A file the mirror does not have fails with an error that says what to do.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGguf } from '../support/gguf/reader.js';
import { GgmlType } from '../support/gguf/types.js';
import { generateModel } from '../support/model/generate.js';
import { writeNemoArchive } from '../support/model/nemo-archive.js';
import { hfRedirect, serveBytes, TestHttpsServer } from '../support/https-server/server.js';
import { formatBytes } from '../../app/shared/bytes.js';
import { expect, test as base } from './support/fixtures.js';
import { MODEL_PATH, SCREENSHOT_DIR } from './support/paths.js';

const RESOLVE = '/mudler/parakeet-cpp-gguf/resolve/main';
/** The first-run English default: the 110M hybrid in Q8_0 (served here as the generated tiny model). */
const DEFAULT_ID = 'tdt_ctc-110m-q8_0';

const test = base.extend<{ mirror: TestHttpsServer }>({
  mirror: async ({}, use) => {
    const mirror = await TestHttpsServer.start();
    const bytes = readFileSync(MODEL_PATH);
    const file = `${DEFAULT_ID}.gguf`;
    mirror.route(`${RESOLVE}/${file}`, hfRedirect(`${mirror.origin}/cdn/${file}`, bytes));
    // Slow enough (≈ 3 s) that the progress bar is seen moving.
    mirror.route(`/cdn/${file}`, (req, res) => serveBytes(req, res, bytes, { chunkSize: 16 * 1024, delayMs: 70 }));
    await use(mirror);
    await mirror.close();
  },
  serverSetup: async ({ mirror }, use) => {
    await use({ withModel: false, extra: { modelEndpoint: mirror.origin, extraCa: mirror.ca } });
  },
});

test('download from the mirror with a visible progress bar, then transcribe with it', async ({ app, server }) => {
  const size = readFileSync(MODEL_PATH).length;
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'no-model');
  await expect(app.getByText(/No model is loaded/)).toBeVisible();
  await app.getByTestId('nav-models').click();

  // First run: English dictation preselected, its size shown before anything starts.
  const firstRun = app.getByTestId('first-run');
  await expect(firstRun).toBeVisible();
  await expect(firstRun.getByRole('radio', { name: /English dictation/ })).toBeChecked();
  const download = firstRun.getByRole('button', { name: /^Download / });
  await expect(download).toContainText(formatBytes(size));
  await download.click();

  // A progress bar that moves.
  const item = app.locator(`[data-testid="download"][data-id="${DEFAULT_ID}"]`);
  const bar = item.getByTestId('download-progress');
  await expect(bar).toBeVisible();
  await expect
    .poll(async () => Number((await bar.getAttribute('value')) ?? 0), { timeout: 10_000, intervals: [50] })
    .toBeGreaterThan(0.25);
  await expect(item).toContainText(/\/s · .* left/);
  const mid = Number(await bar.getAttribute('value'));
  expect(mid).toBeLessThan(1);
  await app.screenshot({ path: join(SCREENSHOT_DIR, 'models.png') });

  // Installed, verified, active, loaded.
  const row = app.locator(`[data-testid="installed-row"][data-id="${DEFAULT_ID}"]`);
  await expect(row).toBeVisible({ timeout: 20_000 });
  await expect(row).toContainText('Active');
  await expect(row).toContainText('CC-BY-4.0');
  await expect(item).toHaveCount(0);
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready', { timeout: 20_000 });
  expect(server.services.engine.status().modelId).toBe(DEFAULT_ID);

  // And it transcribes.
  await app.getByTestId('nav-dictate').click();
  await app.getByRole('button', { name: 'Start dictation' }).click();
  await expect(app.getByTestId('final').first()).toBeVisible({ timeout: 20_000 });
  await app.getByRole('button', { name: 'Stop' }).click();
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
  expect(((await app.getByTestId('final').first().textContent()) ?? '').trim().length).toBeGreaterThan(0);
});

test('a download the mirror cannot serve fails with an error that says what to do', async ({ app }) => {
  await app.getByTestId('nav-models').click();
  const missing = app.locator('[data-testid="catalog-download"][data-id="tdt_ctc-110m-f16"]');
  await missing.click();
  const item = app.locator('[data-testid="download"][data-id="tdt_ctc-110m-f16"]');
  await expect(item).toHaveAttribute('data-state', 'failed', { timeout: 20_000 });
  await expect(item.getByRole('alert')).toContainText(/mirror endpoint in Settings/);
  await expect(item.getByRole('button', { name: /Retry/ })).toBeVisible();
});

test('a local .gguf opens directly, or is imported into the models folder', async ({ app, server }) => {
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'no-model');
  // Web mode cannot get paths from the browser's file picker: the path is typed.
  await app.getByLabel('Model file (.gguf) path on this machine').fill(MODEL_PATH);
  await app.getByRole('button', { name: 'Open model' }).click();
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await expect(app.getByTestId('engine-line')).toContainText('running on CPU');

  await app.getByTestId('nav-models').click();
  await app.getByLabel('Path of a .gguf or .nemo file on this machine').fill(MODEL_PATH);
  await app.getByRole('button', { name: 'Import', exact: true }).click();
  const row = app.locator('[data-testid="installed-row"][data-id^="imported/"]');
  await expect(row).toBeVisible();
  await expect(row).toContainText('unknown (imported)');
  await expect(app.getByTestId('import-outcome')).toContainText('Imported');
  await expect(app.getByTestId('notice')).toHaveCount(0);
  // The opened file is listed by reference (issue 44 item 1); the import is a copy of its own.
  expect((await server.services.models.listInstalled()).map((m) => m.source.kind)).toEqual(['linked', 'imported']);

  // A path that is not a model says what is wrong and what to do.
  await app.getByLabel('Path of a .gguf or .nemo file on this machine').fill('/definitely/not/here.gguf');
  await app.getByRole('button', { name: 'Import', exact: true }).click();
  // Next to Import, with advice about the path; not a banner at the top of the window.
  const outcome = app.getByTestId('import-outcome');
  await expect(outcome).toHaveAttribute('data-kind', 'error');
  await expect(outcome).toContainText(/not\/here\.gguf does not exist\. Check the path/);
  await expect(app.getByTestId('notice')).toHaveCount(0);
  const box = await outcome.boundingBox();
  const button = await app.getByRole('button', { name: 'Import', exact: true }).boundingBox();
  expect(Math.abs((box?.y ?? 0) - (button?.y ?? 0))).toBeLessThan(120);
  // Editing the path makes it no longer true: it goes.
  await app.getByLabel('Path of a .gguf or .nemo file on this machine').fill('/somewhere/else.gguf');
  await expect(outcome).toHaveCount(0);
});

test('a .nemo is converted with the weights chosen, checked by the engine and listed', async ({ app, server }) => {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-nemo-'));
  const source = join(dir, 'source.gguf');
  generateModel(source, { preset: 'tiny', arch: 'tdt', seed: 12, label: 'my-finetune' });
  const nemo = join(dir, 'my-finetune.nemo');
  writeNemoArchive(source, nemo);

  await app.getByTestId('nav-models').click();
  const weights = app.getByLabel('Weights of a converted .nemo');
  await expect(weights).toHaveValue('q8_0');
  await weights.selectOption('f16');
  await app.getByLabel('Path of a .gguf or .nemo file on this machine').fill(nemo);
  await app.getByRole('button', { name: 'Import', exact: true }).click();
  const row = app.locator('[data-testid="installed-row"][data-id="imported/my-finetune"]');
  await expect(row).toBeVisible();
  await expect(row).toContainText('my-finetune (imported)');
  await expect(app.getByTestId('import-outcome')).toContainText('Imported my-finetune (imported)');
  // The file listed is the F16 conversion: its matmul weights are F16, the rest F32 (as the converter writes).
  const file = readGguf(server.services.models.modelPath('imported/my-finetune'));
  const matmul = [...file.tensors.values()].filter((t) => /feed_forward1\.linear1\.weight$/.test(t.name));
  expect(matmul.length).toBeGreaterThan(0);
  expect(new Set(matmul.map((t) => t.type))).toEqual(new Set([GgmlType.F16]));
  expect(file.tensors.get('encoder.layers.0.norm_out.weight')?.type).toBe(GgmlType.F32);
});
