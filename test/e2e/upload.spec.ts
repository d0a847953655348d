// Web mode uploads: a browser cannot give the engine a path, so the Files view
// takes a file from the browser's picker or a drop, sends it over the bridge in
// chunks and transcribes it on the server. With the trained digits model the
// transcript is the spoken digit string (real words, real engine), equal to
// what the same file gives by path; the server's copy is gone afterwards.
// Cancel while the bytes are still going stops the upload and deletes it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import type { Concatenation } from '../support/audio/digits.js';
import { DIGITS_MODEL } from '../support/audio/digits.js';
import { expect, test } from './support/fixtures.js';
import { DIGITS_FILE_JSON, DIGITS_FILE_WAV, LONG_SPEECH_WAV as SPEECH_X10_WAV } from './support/paths.js';

test.skip(!existsSync(DIGITS_MODEL), `the trained test model is not at ${DIGITS_MODEL} (set PARAKEET_DIGITS_MODEL)`);
// Small chunks and window, so a 4 MB file takes a few hundred acknowledgements (time to press Cancel).
test.use({
  serverSetup: {
    withModel: false,
    extra: { modelPath: DIGITS_MODEL, services: { uploadLimits: { chunkBytes: 16 * 1024, windowBytes: 32 * 1024 } } },
  },
});

const spokenText = (): string => (JSON.parse(readFileSync(DIGITS_FILE_JSON, 'utf8')) as Concatenation).text;

async function openFiles(app: Page): Promise<void> {
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await app.getByTestId('nav-files').click();
}

test('a WAV picked with the browser\'s file picker is uploaded in chunks and transcribed to its spoken words', async ({ app, server }) => {
  const progress: number[] = [];
  server.services.uploads.on('progress', (_owner, p) => progress.push(p.receivedBytes));
  await openFiles(app);
  await app.getByLabel('Or send a file from this browser').setInputFiles(DIGITS_FILE_WAV);
  const result = app.getByTestId('file-result');
  await expect(result).toBeVisible({ timeout: 30_000 });
  await expect(result.getByTestId('file-text')).toHaveText(spokenText());
  // Sent in order, in more than one chunk, every byte.
  const size = readFileSync(DIGITS_FILE_WAV).length;
  expect(progress.length).toBeGreaterThanOrEqual(Math.ceil(size / (16 * 1024)));
  expect(progress.at(-1)).toBe(size);
  expect(progress).toEqual([...progress].sort((a, b) => a - b));
  // The same file by path gives the same text; the uploaded copy was deleted when its job ended.
  const direct = await server.services.files.transcribe(DIGITS_FILE_WAV);
  await expect(result.getByTestId('file-text')).toHaveText(direct.text);
  expect(readdirSync(join(server.services.userDataDir, 'uploads'))).toEqual([]);
});

test('a WAV dropped on the Files view is uploaded and transcribed', async ({ app }) => {
  await openFiles(app);
  const bytes = readFileSync(DIGITS_FILE_WAV).toString('base64');
  const dataTransfer = await app.evaluateHandle((b64) => {
    const raw = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([raw], 'spoken digits.wav', { type: 'audio/wav' }));
    return dt;
  }, bytes);
  const zone = app.getByTestId('file-drop');
  await zone.dispatchEvent('dragover', { dataTransfer });
  await zone.dispatchEvent('drop', { dataTransfer });
  const result = app.getByTestId('file-result');
  await expect(result).toBeVisible({ timeout: 30_000 });
  await expect(result.getByTestId('file-text')).toHaveText(spokenText());
  await expect(result).toContainText('spoken digits.wav');
});

test('Cancel during the upload stops it: the job says cancelled and the server keeps nothing', async ({ app, server }) => {
  let received = 0;
  server.services.uploads.on('progress', (_owner, p) => (received = p.receivedBytes));
  await openFiles(app);
  await app.getByLabel('Or send a file from this browser').setInputFiles(SPEECH_X10_WAV);
  const job = app.getByTestId('file-job');
  await expect(job).toContainText('Uploading');
  await expect(job.getByTestId('file-figures')).toContainText('uploaded');
  await expect.poll(() => received).toBeGreaterThan(0);
  await app.getByRole('button', { name: 'Cancel uploading speech-x10.wav' }).click();
  await expect(job).toHaveAttribute('data-phase', 'cancelled');
  await expect(job).toContainText('Cancelled');
  const size = readFileSync(SPEECH_X10_WAV).length;
  expect(received).toBeLessThan(size);
  await expect.poll(() => server.services.uploads.open).toBe(0);
  expect(readdirSync(join(server.services.userDataDir, 'uploads'))).toEqual([]);
  // Nothing was transcribed: no result, no history entry.
  await expect(app.getByTestId('file-result')).toHaveCount(0);
  expect((await server.services.history.list({})).total).toBe(0);
});
