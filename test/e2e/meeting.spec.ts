// The Meeting view in web mode with real words: Chromium's fake microphone
// speaks the e2e digit strings ("You") while a PulseAudio daemon of the
// test's own plays other digit strings into its null sink, which the server
// records through parec ("Others"). The view shows both meters recording and
// the transcript with each line's speaker; after Stop, History has the
// meeting with both speakers' lines and exports them. Each track's partial
// text shows while it is spoken. A reload mid-meeting does not stop it: the
// page shows it again with the transcript so far, the microphone gap as a
// line, and new finals. Skipped with the reason where the model or PulseAudio
// is missing.
import { readFileSync } from 'node:fs';
import type { Concatenation } from '../support/audio/digits.js';
import { ensureDigitsSet } from '../support/audio/digits.js';
import type { TestPulseAudio } from '../support/audio/pulseaudio.js';
import { expect, test } from './support/fixtures.js';
import { startMeeting, useMeetingSetup } from './support/meeting.js';
import { DIGITS_MIC_JSON } from './support/paths.js';

const setup = useMeetingSetup();

/** The sound server (the test skips without one), what the fake microphone says and the strings played as Others. */
function meetingSpeech(): { sound: TestPulseAudio; mic: Concatenation; others: ReturnType<typeof ensureDigitsSet>['items'] } {
  test.skip(typeof setup.pulse === 'string', `PulseAudio cannot start here: ${String(setup.pulse)}`);
  const mic = JSON.parse(readFileSync(DIGITS_MIC_JSON, 'utf8')) as Concatenation;
  const others = ensureDigitsSet('meeting-others', { seed: 0x0e71_0002, perVoice: 3, voices: ['en'], rates: [150, 165], minWords: 3, maxWords: 5 }).items;
  return { sound: setup.pulse as TestPulseAudio, mic, others };
}

test('a meeting: microphone and system audio transcribed live with speaker labels, then a History entry with both', async ({ app, server }) => {
  const { sound, mic, others } = meetingSpeech();
  const transcript = await startMeeting(app, server);
  await sound.play(others[0]!.wav);
  // The played string's words on an Others line (the model may hear a word more in the playback's onset).
  await expect(transcript.locator('li', { hasText: 'Others:' }).first()).toContainText(others[0]!.text, { timeout: 30_000 });
  await expect(transcript).toContainText(`You: ${mic.parts[0]!.text}`, { timeout: 30_000 });
  // The next string: its words show as the You partial while spoken, before its line.
  await expect(app.getByTestId('meeting-partial-you')).not.toBeEmpty({ timeout: 30_000 });
  await app.getByLabel('Marker').fill('action item');
  await app.getByRole('button', { name: 'Add marker' }).click();
  await expect(app.getByRole('list', { name: 'Markers' })).toContainText('action item');
  await app.getByTestId('meeting-stop').click();
  await expect(app.getByText(/Saved to History/)).toBeVisible({ timeout: 30_000 });

  await app.keyboard.press('Alt+3');
  await app.getByTestId('history-entry').first().click();
  const detail = app.getByTestId('history-detail');
  await expect(detail).toContainText('Meeting');
  const segments = app.getByTestId('history-segment');
  await expect(segments.filter({ hasText: 'Others:' }).filter({ hasText: others[0]!.text })).toHaveCount(1);
  await expect(segments.filter({ hasText: `You: ${mic.parts[0]!.text}` })).toHaveCount(1);
  // Transcribed again from its audio: the same lines come back.
  await app.getByTestId('history-retranscribe').click();
  await expect(app.getByText(/Transcribed again: \d+ lines/)).toBeVisible({ timeout: 30_000 });
  await expect(segments.filter({ hasText: `You: ${mic.parts[0]!.text}` })).toHaveCount(1);
});

test('a reload mid-meeting: the meeting records on, the page shows it again with the transcript so far, the microphone gap as a line, and new finals', async ({ app, server }) => {
  const { sound, mic, others } = meetingSpeech();
  const transcript = await startMeeting(app, server);
  await expect(transcript).toContainText(`You: ${mic.parts[0]!.text}`, { timeout: 30_000 });
  const before = await transcript.locator('li').allTextContents();
  await app.reload();
  await app.keyboard.press('Alt+7');
  // Still recording: the Stop button, the clock going on, and the lines from before the reload.
  await expect(app.getByTestId('meeting-stop')).toBeVisible({ timeout: 15_000 });
  for (const line of before) await expect(transcript).toContainText(line.replace(/^\d\d:\d\d /, ''));
  expect(server.services.meetings.running).toBe(true);
  await expect(app.getByTestId('meeting-source-you')).not.toContainText('is gone', { timeout: 10_000 });
  // The microphone's gap, once it resumed: a line of the transcript and a marker.
  await expect(app.getByTestId('meeting-gap')).toContainText(/The microphone was interrupted from \d\d:\d\d to \d\d:\d\d/, { timeout: 15_000 });
  // Finals after the reload arrive.
  await sound.play(others[1]!.wav);
  await expect(transcript.locator('li', { hasText: 'Others:' }).filter({ hasText: others[1]!.text })).toHaveCount(1, { timeout: 30_000 });
  await app.getByTestId('meeting-stop').click();
  await expect(app.getByText(/Saved to History/)).toBeVisible({ timeout: 30_000 });
  expect(server.services.meetings.running).toBe(false);
});
