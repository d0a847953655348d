// History playback and corrections in web mode with real words: a meeting is
// recorded (the fake microphone speaks the e2e digit strings as "You"; the
// test's own PulseAudio null sink is "Others", silent here), then in History
// the player loads its audio from the app's media route (mixed on meeting
// time when both tracks exist). Setting the playhead to a word's time marks
// that word; clicking a word, or Enter on it after the arrow keys, plays
// from its start; a corrected line is saved, keeps the unchanged words'
// times, survives a reload, is found by search, is in the .txt export, and
// "Transcribe again" then asks before replacing it; deleting the entry
// deletes its audio. Real engine, real model.
import type { Page } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HistoryEntry } from '../../app/ipc/contract.js';
import type { Concatenation } from '../support/audio/digits.js';
import { expect, test } from './support/fixtures.js';
import { startMeeting, useMeetingSetup } from './support/meeting.js';
import { DIGITS_MIC_JSON, SCREENSHOT_DIR } from './support/paths.js';

const setup = useMeetingSetup();

async function openEntry(app: Page): Promise<void> {
  await app.keyboard.press('Alt+3');
  await expect(app.getByRole('heading', { name: 'History', level: 2 })).toBeVisible();
  await app.getByTestId('history-entry').first().click();
  await expect(app.getByTestId('history-detail')).toContainText('Meeting');
}

/** The player's position in meeting time (its source's offset added). */
async function playhead(app: Page): Promise<number> {
  return app.getByTestId('history-audio').evaluate((el) => (el as HTMLAudioElement).currentTime + Number((el as HTMLAudioElement).dataset.offset));
}

type Probed = HTMLAudioElement & { seeks?: number[] };

/** From now on, the meeting time of every seek the player makes is kept on the element. */
async function recordSeeks(app: Page): Promise<void> {
  await app.getByTestId('history-audio').evaluate((el) => {
    const a = el as Probed;
    if (!a.seeks) a.addEventListener('seeked', () => a.seeks!.push(a.currentTime + Number(a.dataset.offset)));
    a.seeks = [];
  });
}

async function lastSeek(app: Page): Promise<number | null> {
  return app.getByTestId('history-audio').evaluate((el) => (el as Probed).seeks?.at(-1) ?? null);
}

test('a meeting in History: played with the word heard marked, a clicked word plays, a corrected line is kept, searched and exported; delete removes its audio', async ({ app, server }) => {
  const mic = JSON.parse(readFileSync(DIGITS_MIC_JSON, 'utf8')) as Concatenation;
  const transcript = await startMeeting(app, server);
  for (const part of mic.parts) await expect(transcript).toContainText(`You: ${part.text}`, { timeout: 40_000 });
  await app.getByTestId('meeting-stop').click();
  await expect(app.getByText(/Saved to History/)).toBeVisible({ timeout: 30_000 });

  const { entries } = await server.services.history.list();
  const saved: HistoryEntry = await server.services.history.get(entries[0]!.id);
  const twoTracks = (saved.audio ?? []).length === 2;
  test.info().annotations.push({ type: 'tracks', description: twoTracks ? 'You and Others (mixed)' : `You only (${typeof setup.pulse === 'string' ? setup.pulse : 'Others sent nothing'})` });
  // Lines of "You" with at least three words, in the renderer's order (history:get's).
  const lines = saved.segments.map((s, index) => ({ s, index })).filter(({ s }) => s.speaker === 'You' && s.words.length >= 3);
  expect(lines.length, JSON.stringify(saved.segments.map((s) => s.text))).toBeGreaterThanOrEqual(2);

  await openEntry(app);
  const audio = app.getByTestId('history-audio');
  await expect(audio).toBeVisible();
  // The mix (both tracks on meeting time) is the default where both were recorded.
  await expect(audio).toHaveAttribute('aria-label', twoTracks ? 'Audio: You and Others' : 'Audio: You');
  await expect.poll(() => audio.evaluate((el) => (el as HTMLAudioElement).readyState), { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
  // The whole meeting: its last line ends inside the audio.
  const end = await audio.evaluate((el) => (el as HTMLAudioElement).duration + Number((el as HTMLAudioElement).dataset.offset));
  expect(end).toBeGreaterThanOrEqual(Math.max(...saved.segments.map((s) => s.end)) - 0.05);

  // It plays: time moves.
  await audio.evaluate((el) => (el as HTMLAudioElement).play());
  await expect.poll(() => playhead(app), { timeout: 10_000 }).toBeGreaterThan(0.5);
  await audio.evaluate((el) => (el as HTMLAudioElement).pause());

  // The playhead set to the middle of a word (before the next one starts) marks that word, and only it.
  const first = lines[0]!;
  const word = first.s.words[1]!;
  const mid = (word.start + Math.min(word.end, first.s.words[2]!.start)) / 2;
  await audio.evaluate((el, t) => {
    const a = el as HTMLAudioElement;
    a.currentTime = t - Number(a.dataset.offset);
  }, mid);
  const current = app.locator('[data-testid="history-word"][aria-current="true"]');
  await expect(current).toHaveCount(1);
  await expect(current).toHaveAttribute('data-word', `${first.index}:1`);
  await expect(current).toHaveText(word.text);
  await app.getByTestId('history-audio').scrollIntoViewIfNeeded();
  await app.screenshot({ path: join(SCREENSHOT_DIR, 'history-playback.png') });

  // A click on a word of another line plays from its start: the player seeks exactly there and plays.
  const second = lines[1]!;
  const target = second.s.words[2]!;
  await recordSeeks(app);
  await app.locator(`[data-word="${second.index}:2"]`).click();
  await expect.poll(() => lastSeek(app)).not.toBeNull();
  // At 'seeked' it may already have played a few ms from there.
  expect(await lastSeek(app)).toBeGreaterThanOrEqual(target.start - 0.005);
  expect(await lastSeek(app)).toBeLessThan(target.start + 0.25);
  await expect.poll(() => audio.evaluate((el) => (el as HTMLAudioElement).paused)).toBe(false);
  await expect.poll(() => playhead(app)).toBeGreaterThan(target.start);
  await audio.evaluate((el) => (el as HTMLAudioElement).pause());

  // Keyboard: the clicked word is the transcript's one Tab stop; ArrowRight moves on, Enter plays from there.
  await expect(app.locator(`[data-word="${second.index}:2"]`)).toHaveAttribute('tabindex', '0');
  await expect(app.locator('[data-testid="history-word"][tabindex="0"]')).toHaveCount(1);
  await app.locator(`[data-word="${second.index}:2"]`).focus();
  await app.keyboard.press('ArrowLeft');
  await expect(app.locator(`[data-word="${second.index}:1"]`)).toBeFocused();
  await recordSeeks(app);
  await app.keyboard.press('Enter');
  await expect.poll(() => lastSeek(app)).not.toBeNull();
  expect(await lastSeek(app)).toBeGreaterThanOrEqual(second.s.words[1]!.start - 0.005);
  expect(await lastSeek(app)).toBeLessThan(second.s.words[1]!.start + 0.25);
  await audio.evaluate((el) => (el as HTMLAudioElement).pause());

  // Correct the first line: its second word replaced, the rest kept.
  const words = first.s.words.map((w) => w.text);
  const corrected = [words[0], 'corrected', ...words.slice(2)].join(' ');
  const line = app.locator(`[data-testid="history-segment"][data-segment-id="${first.s.segmentId}"]`);
  await line.getByTestId('history-segment-edit').click();
  await expect(line.getByTestId('history-segment-input')).toBeFocused();
  await line.getByTestId('history-segment-input').fill(corrected);
  await line.getByTestId('history-segment-save').click();
  const edited = app.getByTestId('history-segment').filter({ hasText: 'corrected' });
  await expect(edited).toHaveCount(1);
  await expect(edited).toContainText('edited');
  const after = await server.services.history.get(saved.id);
  const fixed = after.segments[first.index]!;
  expect(fixed.text).toBe(corrected);
  expect(fixed.edited).toBe(true);
  // Unchanged words keep their decoded times; the new one takes the replaced word's span.
  expect(fixed.words.map((w) => [w.text, w.start, w.end])).toEqual(first.s.words.map((w, i) => [i === 1 ? 'corrected' : w.text, w.start, w.end]));

  // After a reload: still corrected, found by search, and in the export.
  await app.reload();
  await expect(app.getByRole('heading', { name: 'Dictate' })).toBeVisible();
  await openEntry(app);
  await expect(app.getByTestId('history-segment').filter({ hasText: corrected })).toHaveCount(1);
  const [download] = await Promise.all([app.waitForEvent('download'), app.getByRole('button', { name: /Export as plain text/ }).click()]);
  const txt = readFileSync(await download.path(), 'utf8');
  expect(txt).toContain(`You: ${corrected}`);
  expect(txt).not.toContain(`You: ${words.join(' ')}`);
  await app.getByLabel('Search').fill('corrected');
  await expect(app.getByTestId('history-entry')).toHaveCount(1);

  // Transcribing again would replace the correction: it asks first; Keep keeps it.
  await app.getByTestId('history-retranscribe').click();
  await expect(app.getByTestId('history-retranscribe-confirm')).toContainText('corrections of 1 line');
  await app.getByTestId('history-retranscribe-confirm').getByRole('button', { name: 'Keep' }).click();
  await expect(app.getByTestId('history-segment').filter({ hasText: corrected })).toHaveCount(1);

  // Deleting the entry deletes its audio: the folder is gone and its media URL answers 404.
  const src = await audio.evaluate((el) => (el as HTMLAudioElement).src);
  expect((await app.request.get(src, { headers: { range: 'bytes=0-99' } })).status()).toBe(206);
  const audioDir = server.services.history.audioDirOf(saved.id);
  expect(existsSync(audioDir)).toBe(true);
  await app.getByRole('button', { name: `Delete ${saved.title} from the history` }).click();
  await app.getByRole('button', { name: 'Delete entry' }).click();
  await expect(app.getByTestId('history-detail')).toHaveCount(0);
  expect(existsSync(audioDir)).toBe(false);
  expect((await app.request.get(src)).status()).toBe(404);
});
