// The History view in web mode: a short dictation (the fake microphone's
// first sentence) and a file transcription both end up listed; searching a
// word of the file's text finds the file and not the dictation; opening it
// shows the same text; after a reload the history is still there; Delete
// (confirmed) removes the entry and its file.
import type { Page } from '@playwright/test';
import { join } from 'node:path';
import { expect, test } from './support/fixtures.js';
import { SCREENSHOT_DIR, SPEECH_WAV } from './support/paths.js';

async function dictateOneSentence(app: Page): Promise<void> {
  await app.getByRole('button', { name: 'Start dictation' }).click();
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'live');
  await expect(app.getByTestId('final').first()).toBeVisible({ timeout: 20_000 });
  await app.getByRole('button', { name: 'Stop' }).click();
  await expect(app.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
}

async function transcribeSpeechFile(app: Page): Promise<string> {
  await app.getByTestId('nav-files').click();
  await app.getByLabel('Audio file path on this machine').fill(SPEECH_WAV);
  await app.getByRole('button', { name: 'Transcribe', exact: true }).click();
  const text = app.getByTestId('file-result').getByTestId('file-text');
  await expect(text).toBeVisible({ timeout: 30_000 });
  return ((await text.textContent()) ?? '').trim();
}

async function openHistory(app: Page): Promise<void> {
  await app.getByTestId('nav-history').click();
  await expect(app.getByRole('heading', { name: 'History', level: 2 })).toBeVisible();
}

test('dictation and file transcript are kept, searchable, still there after a reload, and can be deleted', async ({ app, server }) => {
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await openHistory(app);
  await expect(app.getByTestId('history-empty')).toContainText('never uploaded');

  await app.getByTestId('nav-dictate').click();
  await dictateOneSentence(app);
  const fileText = await transcribeSpeechFile(app);
  expect(fileText.length).toBeGreaterThan(0);

  await openHistory(app);
  const entries = app.getByTestId('history-entry');
  await expect(entries).toHaveCount(2);
  // Newest first: the file, then the dictation.
  await expect(entries.nth(0)).toHaveAttribute('data-kind', 'file');
  await expect(entries.nth(0).getByTestId('history-title')).toHaveText('speech.wav');
  await expect(entries.nth(1)).toHaveAttribute('data-kind', 'dictation');
  await expect(entries.nth(1).getByTestId('history-title')).toHaveText(/^Dictation \d{4}-\d\d-\d\d \d\d:\d\d$/);

  // A word of the file's text that the dictation does not contain (the dictation heard one sentence of it).
  const { entries: saved } = await server.services.history.list();
  const dictation = await server.services.history.get(saved.find((e) => e.kind === 'dictation')!.id);
  const haystack = `${dictation.text} ${dictation.title} speech.wav`.toLowerCase();
  const word = fileText.split(/\s+/).map((w) => w.replace(/^\W+|\W+$/g, '')).find((w) => w.length >= 3 && !haystack.includes(w.toLowerCase()));
  expect(word, `a word of "${fileText}" that "${dictation.text}" lacks`).toBeTruthy();

  const search = app.getByLabel('Search');
  await search.fill(word!.toUpperCase());
  await expect(entries).toHaveCount(1);
  await expect(entries.first()).toHaveAttribute('data-kind', 'file');
  await expect(app.getByTestId('history-count')).toContainText('1 entry contain');
  await search.fill('');
  await expect(entries).toHaveCount(2);

  // The opened entry shows the same text as the Files view did, with its words.
  await entries.nth(0).click();
  const detail = app.getByTestId('history-detail');
  await expect(detail.getByTestId('history-text')).toHaveText(fileText);
  await expect(detail.getByTestId('word-row').first()).toBeVisible();
  await expect(entries.nth(0)).toHaveAttribute('aria-current', 'true');
  await app.screenshot({ path: join(SCREENSHOT_DIR, 'history.png') });

  // The dictation: its segments with times.
  await entries.nth(1).click();
  await expect(detail.getByTestId('history-segment').first()).toBeVisible();
  await expect(detail.getByTestId('history-text')).toHaveText(dictation.text);

  // Still there after a reload (it is on disk, not in the page).
  await app.reload();
  await expect(app.getByRole('heading', { name: 'Dictate' })).toBeVisible();
  await openHistory(app);
  await expect(entries).toHaveCount(2);

  // Delete asks first; Keep leaves it; confirming removes it (and its file).
  await entries.nth(0).click();
  await detail.getByRole('button', { name: 'Delete speech.wav from the history' }).click();
  await expect(detail.getByTestId('history-delete-confirm')).toContainText('cannot be undone');
  await expect(detail.getByRole('button', { name: 'Delete entry' })).toBeFocused();
  await detail.getByRole('button', { name: 'Keep' }).click();
  await expect(entries).toHaveCount(2);
  await detail.getByRole('button', { name: 'Delete speech.wav from the history' }).click();
  await detail.getByRole('button', { name: 'Delete entry' }).click();
  await expect(entries).toHaveCount(1);
  await expect(entries.first()).toHaveAttribute('data-kind', 'dictation');
  await expect(app.getByTestId('history-detail')).toHaveCount(0);
  expect((await server.services.history.list()).total).toBe(1);
});
