// Electron: the Models view downloads from a local HTTPS mirror, then the
// model transcribes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hfRedirect, serveBytes, TestHttpsServer } from '../support/https-server/server.js';
import { MODEL_PATH } from '../e2e/support/paths.js';
import { expect, skipWithoutElectron, test } from './support/fixtures.js';

skipWithoutElectron();

const RESOLVE = '/mudler/parakeet-cpp-gguf/resolve/main';
const DEFAULT_ID = 'tdt_ctc-110m-q8_0';

let mirror: TestHttpsServer | null = null;
let caDir = '';

test.beforeAll(async () => {
  mirror = await TestHttpsServer.start();
  const bytes = readFileSync(MODEL_PATH);
  const file = `${DEFAULT_ID}.gguf`;
  mirror.route(`${RESOLVE}/${file}`, hfRedirect(`${mirror.origin}/cdn/${file}`, bytes));
  mirror.route(`/cdn/${file}`, (req, res) => serveBytes(req, res, bytes, { chunkSize: 16 * 1024, delayMs: 70 }));
  caDir = mkdtempSync(join(tmpdir(), 'parakeet-ca-'));
  writeFileSync(join(caDir, 'ca.pem'), mirror.ca);
});

test.afterAll(async () => {
  await mirror?.close();
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});

test.use({
  launch: async ({}, use) => {
    await use({ env: { PARAKEET_MODEL_ENDPOINT: mirror!.origin, PARAKEET_EXTRA_CA_FILE: join(caDir, 'ca.pem') } });
  },
});

test('download with a visible progress bar, then transcribe with it', async ({ appWindow }) => {
  await appWindow.getByTestId('nav-models').click();
  const firstRun = appWindow.getByTestId('first-run');
  await expect(firstRun.getByRole('radio', { name: /English dictation/ })).toBeChecked();
  await firstRun.getByRole('button', { name: /^Download / }).click();
  const bar = appWindow.locator(`[data-testid="download"][data-id="${DEFAULT_ID}"]`).getByTestId('download-progress');
  await expect.poll(async () => Number((await bar.getAttribute('value')) ?? 0), { timeout: 10_000, intervals: [50] }).toBeGreaterThan(0.25);
  await expect(appWindow.locator(`[data-testid="installed-row"][data-id="${DEFAULT_ID}"]`)).toContainText('Active', { timeout: 20_000 });
  await expect(appWindow.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready', { timeout: 20_000 });
  await appWindow.getByTestId('nav-dictate').click();
  await appWindow.getByRole('button', { name: 'Start dictation' }).click();
  await expect(appWindow.getByTestId('final').first()).toBeVisible({ timeout: 20_000 });
  await appWindow.getByRole('button', { name: 'Stop' }).click();
});
