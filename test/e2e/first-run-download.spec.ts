// A first-run download started on Dictate stays where the user clicked (issue 44 item 2): its progress
// while it runs, and when it fails, the error with what to do and Retry, in the set-up steps themselves.
import { readFileSync } from 'node:fs';
import { hfRedirect, serveBytes, TestHttpsServer } from '../support/https-server/server.js';
import { expect, test as base } from './support/fixtures.js';
import { MODEL_PATH } from './support/paths.js';

const RESOLVE = '/mudler/parakeet-cpp-gguf/resolve/main';
const DEFAULT_ID = 'tdt_ctc-110m-q8_0';

const test = base.extend<{ mirror: TestHttpsServer }>({
  mirror: async ({}, use) => {
    const mirror = await TestHttpsServer.start();
    await use(mirror);
    await mirror.close();
  },
  serverSetup: async ({ mirror }, use) => {
    await use({ withModel: false, extra: { modelEndpoint: mirror.origin, extraCa: mirror.ca } });
  },
});

test('the download shows its progress on Dictate, under the button that started it', async ({ app, mirror }) => {
  const bytes = readFileSync(MODEL_PATH);
  const file = `${DEFAULT_ID}.gguf`;
  mirror.route(`${RESOLVE}/${file}`, hfRedirect(`${mirror.origin}/cdn/${file}`, bytes));
  mirror.route(`/cdn/${file}`, (req, res) => serveBytes(req, res, bytes, { chunkSize: 16 * 1024, delayMs: 70 }));
  const steps = app.getByTestId('first-run-steps');
  await steps.getByRole('button', { name: /^Download / }).click();
  const item = steps.locator(`[data-testid="download"][data-id="${DEFAULT_ID}"]`);
  await expect(item).toBeVisible();
  await expect
    .poll(async () => Number((await item.getByTestId('download-progress').getAttribute('value')) ?? 0), { timeout: 10_000, intervals: [50] })
    .toBeGreaterThan(0.1);
  await expect(item).toContainText(/\/s · .* left/);
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
});

test('a failed download says why and offers Retry on Dictate; the chooser does not just come back unchanged', async ({ app }) => {
  // The mirror has no such file: 404.
  const steps = app.getByTestId('first-run-steps');
  await steps.getByRole('button', { name: /^Download / }).click();
  const item = steps.locator(`[data-testid="download"][data-id="${DEFAULT_ID}"]`);
  await expect(item).toHaveAttribute('data-state', 'failed', { timeout: 30_000 });
  await expect(item.getByRole('alert')).toContainText(/mirror endpoint in Settings/);
  await expect(item.getByRole('button', { name: /^Retry / })).toBeVisible();
  // Dismissing it brings the choice back.
  await item.getByRole('button', { name: /^Dismiss / }).click();
  await expect(steps.getByRole('button', { name: /^Download / })).toBeVisible();
});
