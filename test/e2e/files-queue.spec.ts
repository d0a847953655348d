// The Files view after a new user's pass (issue 44 item 11): a second file waits in a queue while one runs
// and starts when it ends; an uploaded file's result names the file, not the server's deleted copy; a folder
// is said in one sentence with no decoder advice.
import { expect, test } from './support/fixtures.js';
import { ASSET_DIR, CANCEL_SPEECH_WAV, SPEECH_WAV } from './support/paths.js';

test('a file added while one runs is queued, can be removed, and runs next', async ({ app }) => {
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await app.getByTestId('nav-files').click();
  const path = app.getByLabel('Audio file path on this machine');
  await path.fill(CANCEL_SPEECH_WAV);
  await app.getByRole('button', { name: 'Transcribe', exact: true }).click();
  await expect(app.getByTestId('file-job')).toHaveAttribute('data-phase', 'running');
  // The form stays usable: the next file goes into the queue.
  await path.fill(SPEECH_WAV);
  await app.getByRole('button', { name: 'Add to queue' }).click();
  await path.fill(SPEECH_WAV);
  await app.getByRole('button', { name: 'Add to queue' }).click();
  const queued = app.getByTestId('file-queued');
  await expect(queued).toHaveCount(2);
  await expect(queued.first()).toContainText('speech.wav');
  await queued.nth(1).getByRole('button', { name: /^Remove/ }).click();
  await expect(queued).toHaveCount(1);
  // Ending the long one starts the queued one.
  await app.getByTestId('file-job').getByRole('button', { name: /^Cancel/ }).click();
  await expect(app.getByTestId('file-result').getByTestId('file-name')).toHaveText('speech.wav', { timeout: 60_000 });
  await expect(app.getByTestId('file-queue')).toHaveCount(0);
});

test('an upload\'s result names the file, not the server\'s copy; a folder is said once, without decoder advice', async ({ app }) => {
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await app.getByTestId('nav-files').click();
  await app.getByLabel('Or send a file from this browser').setInputFiles(SPEECH_WAV);
  const result = app.getByTestId('file-result');
  await expect(result.getByTestId('file-name')).toHaveText('speech.wav', { timeout: 60_000 });
  await expect(result.getByTestId('file-origin')).toHaveText('Sent from this browser');
  await expect(result).not.toContainText('uploads');

  await app.getByLabel('Audio file path on this machine').fill(ASSET_DIR);
  await app.getByRole('button', { name: 'Transcribe', exact: true }).click();
  const job = app.getByTestId('file-job');
  await expect(job).toHaveAttribute('data-phase', 'failed');
  await expect(job.locator('.download-error')).toHaveText(`${ASSET_DIR} is a folder. Choose an audio file inside it.`);
});
