// History after a new user's pass (issue 44 item 9): a Meetings filter; the Model tile is not squashed;
// the delete question does not push the toolbar apart; the focus never falls to <body>: Keep returns it
// to Delete, a delete moves it to the next entry, Close to the entry's place in the list.
import { expect, test } from './support/fixtures.js';
import { startMeeting, useMeetingSetup } from './support/meeting.js';
import { SPEECH_WAV } from './support/paths.js';

useMeetingSetup();

const focusedTestId = (page: import('@playwright/test').Page) =>
  page.evaluate(() => `${document.activeElement?.tagName.toLowerCase()}:${document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.id ?? ''}`);

test('Meetings filter, a model tile that fits, a delete question on its own line, and the focus kept after every action', async ({ app, server }) => {
  await startMeeting(app, server);
  await app.getByTestId('meeting-stop').click();
  await expect(app.getByTestId('recording-chip')).toHaveCount(0, { timeout: 30_000 });
  await app.keyboard.press('Alt+2');
  await app.getByLabel('Audio file path on this machine').fill(SPEECH_WAV);
  await app.getByRole('button', { name: 'Transcribe', exact: true }).click();
  await expect(app.getByTestId('file-result')).toBeVisible({ timeout: 30_000 });

  await app.keyboard.press('Alt+3');
  const entries = app.getByTestId('history-entry');
  await expect(entries).toHaveCount(2);
  await app.getByLabel('Show').selectOption({ label: 'Meetings' });
  await expect(entries).toHaveCount(1);
  await expect(entries.first()).toHaveAttribute('data-kind', 'meeting');
  await app.getByLabel('Show').selectOption({ label: 'Everything' });
  await expect(entries).toHaveCount(2);

  // The file entry: its Model tile is wider than a one-number tile.
  await entries.first().click();
  const detail = app.getByTestId('history-detail');
  await expect(detail).toBeVisible();
  const model = await detail.getByTestId('history-model').boundingBox();
  const words = await detail.getByTestId('history-words').boundingBox();
  expect(model!.width).toBeGreaterThan(words!.width * 1.5);

  // Close: the focus goes back to the entry in the list.
  await detail.getByRole('button', { name: 'Close this entry' }).click();
  expect(await focusedTestId(app)).toBe('button:history-entry');

  // Delete asks on a line of its own; Copy stays where it was; Keep returns the focus to Delete.
  await entries.first().click();
  const copy = detail.getByRole('button', { name: /^Copy/ });
  const before = await copy.boundingBox();
  await detail.getByTestId('history-delete').click();
  const confirm = detail.getByTestId('history-delete-confirm');
  await expect(confirm).toBeVisible();
  expect((await copy.boundingBox())!.y).toBeCloseTo(before!.y, 0);
  expect((await confirm.boundingBox())!.y).toBeGreaterThan(before!.y + before!.height - 1);
  await confirm.getByRole('button', { name: 'Keep' }).click();
  expect(await focusedTestId(app)).toBe('button:history-delete');

  // A confirmed delete: the focus moves to the entry that is left, not to <body>.
  await detail.getByTestId('history-delete').click();
  await confirm.getByRole('button', { name: 'Delete entry' }).click();
  await expect(entries).toHaveCount(1);
  expect(await focusedTestId(app)).toBe('button:history-entry');
});
