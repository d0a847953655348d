// The Files view in web mode: a WAV path typed in (a browser cannot hand out
// paths), a progress bar, then the result — whose text equals the CLI's
// offline transcript of the same file, with timed words and an .srt export
// (a Blob download under the app's CSP) that covers them. A missing file gives
// a banner that names it; a long file can be cancelled and the view stays usable.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import type { Word } from '../../app/ipc/contract.js';
import { expect, test } from './support/fixtures.js';
import { CANCEL_SPEECH_WAV, MODEL_PATH, REPO_ROOT, SCREENSHOT_DIR, SPEECH_WAV } from './support/paths.js';

interface OfflineTranscript {
  text: string;
  words: Word[];
  durationSec: number;
}

/** The CLI's transcript of `wav` (same engine, same model, same thread count, same default decoder). */
function offline(wav: string, threads: number): OfflineTranscript {
  const out = execFileSync(
    process.execPath,
    [join(REPO_ROOT, 'bin', 'parakeet.js'), 'transcribe', wav, '--model', MODEL_PATH, '--json', '--threads', String(threads)],
    { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 },
  );
  return JSON.parse(out) as OfflineTranscript;
}

interface Cue {
  start: number;
  end: number;
  text: string;
}

function parseSrt(srt: string): Cue[] {
  const clock = (t: string): number => {
    const m = /^(\d\d):(\d\d):(\d\d),(\d\d\d)$/.exec(t);
    if (!m) throw new Error(`not an SRT time: ${t}`);
    return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(m[4]) / 1000;
  };
  return srt
    .trim()
    .split(/\n\n+/)
    .map((block, i) => {
      const [index, times, ...lines] = block.split('\n');
      expect(index, `cue ${i + 1} is numbered`).toBe(String(i + 1));
      const [start, end] = times.split(' --> ');
      expect(lines.length, `cue ${i + 1} has one or two lines`).toBeGreaterThanOrEqual(1);
      expect(lines.length).toBeLessThanOrEqual(2);
      return { start: clock(start), end: clock(end), text: lines.join(' ') };
    });
}

/** Records whether the progress bar was ever in the page (a short file finishes within a frame or two). */
async function watchProgressBar(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { progressSeen: string[] }).progressSeen = seen;
    const look = () => {
      const bar = document.querySelector('[role="progressbar"][data-testid="file-progress"]');
      if (bar) seen.push(bar.getAttribute('aria-valuenow') ?? '');
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  return () => page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen);
}

async function openFiles(page: Page): Promise<void> {
  await expect(page.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await page.getByTestId('nav-files').click();
  await expect(page.getByRole('heading', { name: 'Files', level: 2 })).toBeVisible();
}

const pathField = (page: Page) => page.getByLabel('Audio file path on this machine');
const transcribeButton = (page: Page) => page.getByRole('button', { name: 'Transcribe', exact: true });

test('a WAV file: progress, then the offline transcript with timed words, and an .srt that covers them', async ({ app, server }) => {
  await openFiles(app);
  const threads = server.services.engine.status().model?.threads ?? 1;
  const expected = offline(SPEECH_WAV, threads);
  expect(expected.words.length).toBeGreaterThan(3);

  const progressSeen = await watchProgressBar(app);
  await pathField(app).fill(SPEECH_WAV);
  await transcribeButton(app).click();
  const result = app.getByTestId('file-result');
  await expect(result).toBeVisible({ timeout: 30_000 });
  expect((await progressSeen()).length, 'the progress bar showed while it ran').toBeGreaterThan(0);
  await expect(app.getByTestId('file-job')).toHaveCount(0);

  // What ran, how long, how fast.
  await expect(result.getByTestId('file-name')).toHaveText('speech.wav');
  await expect(result.getByTestId('file-duration')).toContainText(`${expected.durationSec.toFixed(1)} s`);
  await expect(result.getByTestId('file-speed')).toContainText(/\d(\.\d)?× real time/);
  await expect(result.getByTestId('file-devices')).toContainText('CPU');

  // The same text as the CLI gives for the same file.
  expect(((await result.getByTestId('file-text').textContent()) ?? '').trim()).toBe(expected.text.trim());

  // Every word with its mm:ss.cc times; low-confidence words marked and explained.
  const rows = result.getByTestId('word-row');
  await expect(rows).toHaveCount(expected.words.length);
  const shownWords = await rows.locator('th').allTextContents();
  expect(shownWords).toEqual(expected.words.map((w) => w.text));
  for (const time of await result.getByTestId('word-time').allTextContents()) expect(time).toMatch(/^\d\d:\d\d\.\d\d–\d\d:\d\d\.\d\d$/);
  const low = expected.words.filter((w) => w.confidence < 0.5).length;
  await expect(result.locator('tr.word-low')).toHaveCount(low);
  // The reason is text in the row (read by screen readers, not a hover-only title).
  if (low > 0) await expect(result.locator('tr.word-low').first().locator('.badge-low')).toContainText(/^low\. Low confidence \(\d+ %\)/);
  if (low > 0) await expect(result.locator('tr.word-low').first()).not.toHaveAttribute('title');

  await app.screenshot({ path: join(SCREENSHOT_DIR, 'files.png') });

  // .srt export: a download (Blob URL, no CSP violation: the fixture fails on one) whose cues cover the words in order.
  const [download] = await Promise.all([app.waitForEvent('download'), result.getByRole('button', { name: /Export as SRT/ }).click()]);
  expect(download.suggestedFilename()).toBe('speech.srt');
  const cues = parseSrt(readFileSync(await download.path(), 'utf8'));
  expect(cues.map((c) => c.text).join(' ')).toBe(expected.words.map((w) => w.text).join(' '));
  let next = 0;
  for (const cue of cues) {
    const words = expected.words.slice(next, next + cue.text.split(' ').length);
    next += words.length;
    expect(Math.abs(cue.start - words[0].start)).toBeLessThanOrEqual(0.0005);
    // A cue covers its words, but never runs past the audio (a last word's end can be a frame past it).
    expect(cue.end).toBeGreaterThanOrEqual(Math.min(expected.durationSec, Math.max(...words.map((w) => w.end))) - 0.0005);
    expect(cue.end).toBeLessThanOrEqual(expected.durationSec + 0.0005);
    expect(cue.end - cue.start).toBeLessThanOrEqual(6.0005);
  }
  expect(next).toBe(expected.words.length);
});

test('a path that does not exist: said once, at the job, naming it; a relative path is refused before sending', async ({ app }) => {
  await openFiles(app);
  await pathField(app).fill('recordings/meeting.wav');
  await expect(transcribeButton(app)).toBeDisabled();
  await expect(app.getByTestId('file-blocker')).toContainText('Type the full path');

  await pathField(app).fill('/definitely/not/here.wav');
  await transcribeButton(app).click();
  const job = app.getByTestId('file-job');
  await expect(job).toHaveAttribute('data-phase', 'failed');
  await expect(job).toContainText('There is no file at /definitely/not/here.wav.');
  await expect(job).toContainText('full path of an audio file');
  await expect(app.getByText('There is no file at /definitely/not/here.wav.', { exact: false })).toHaveCount(1);
  await expect(app.getByTestId('notice')).toHaveCount(0);
  await expect(transcribeButton(app)).toBeEnabled();
});

test('a long file can be cancelled; the view and the engine stay usable', async ({ app }) => {
  await openFiles(app);
  await pathField(app).fill(CANCEL_SPEECH_WAV);
  await transcribeButton(app).click();
  const bar = app.getByRole('progressbar', { name: 'Transcription progress of speech-x200.wav' });
  await expect(bar).toBeVisible();
  await expect(bar).toHaveAttribute('aria-valuemax', '100');
  await expect(transcribeButton(app)).toHaveCount(0); // it reads "Transcribing…" while the job runs
  await app.getByRole('button', { name: 'Cancel transcribing speech-x200.wav' }).click();

  const job = app.getByTestId('file-job');
  await expect(job).toHaveAttribute('data-phase', 'cancelled', { timeout: 20_000 });
  await expect(job).toContainText('Cancelled');
  await expect(app.getByTestId('file-result')).toHaveCount(0);
  await expect(app.getByTestId('notice')).toHaveCount(0);

  // Usable again: the short file transcribes.
  await pathField(app).fill(SPEECH_WAV);
  await transcribeButton(app).click();
  await expect(app.getByTestId('file-result')).toBeVisible({ timeout: 30_000 });
  expect(((await app.getByTestId('file-text').textContent()) ?? '').trim().length).toBeGreaterThan(0);
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');

  // Again with the hybrid model's CTC head: two results, newest shown, the older one a click away.
  const first = await app.getByTestId('file-result').getAttribute('data-job');
  await app.getByLabel('Decoder').selectOption('ctc');
  await transcribeButton(app).click();
  await expect(app.getByTestId('file-result')).not.toHaveAttribute('data-job', first ?? '', { timeout: 30_000 });
  const recent = app.getByTestId('recent-file');
  await expect(recent).toHaveCount(2);
  await expect(recent.first()).toHaveAttribute('aria-current', 'true');
  await recent.nth(1).click();
  await expect(app.getByTestId('file-result')).toHaveAttribute('data-job', first ?? '');
});

test.describe('without a model', () => {
  test.use({ serverSetup: { withModel: false, extra: {} } });

  test('Transcribe is disabled and says to load a model first', async ({ app }) => {
    await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'no-model');
    await app.keyboard.press('Alt+2');
    await expect(app.getByRole('heading', { name: 'Files', level: 2 })).toBeVisible();
    await pathField(app).fill(SPEECH_WAV);
    await expect(transcribeButton(app)).toBeDisabled();
    await expect(app.getByTestId('file-blocker')).toHaveText('Load a model in Models first.');
    await app.getByTestId('file-blocker').getByRole('button', { name: 'Models' }).click();
    await expect(app.getByRole('heading', { name: 'Models', level: 2 })).toBeVisible();
  });
});
