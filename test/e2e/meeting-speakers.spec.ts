// Speakers in a meeting, web mode, with a generated Sortformer as the speaker model (Settings › Speakers):
// the system audio ("Others") played into the test's own PulseAudio sink shows live with diarized speaker
// turns; after Stop, History lists the meeting's speakers, one renamed there is renamed in every line and
// in the RTTM export; with diarizeMicrophone the microphone's words are "Room k". Skipped with the reason where
// the model or PulseAudio is missing.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDigitsSet } from '../support/audio/digits.js';
import type { TestPulseAudio } from '../support/audio/pulseaudio.js';
import { generateSortformer } from '../support/model/sortformer.js';
import { expect, test } from './support/fixtures.js';
import { startMeeting, useMeetingSetup } from './support/meeting.js';

const setup = useMeetingSetup();
const diarizerPath = join(mkdtempSync(join(tmpdir(), 'parakeet-e2e-sortformer-')), 'sortformer.gguf');
generateSortformer(diarizerPath);

test('the Others track gets speakers live; History renames one everywhere, RTTM included', async ({ app, server }) => {
  test.skip(typeof setup.pulse === 'string', `PulseAudio cannot start here: ${String(setup.pulse)}`);
  const sound = setup.pulse as TestPulseAudio;
  const others = ensureDigitsSet('meeting-others', { seed: 0x0e71_0002, perVoice: 3, voices: ['en'], rates: [150, 165], minWords: 3, maxWords: 5 }).items;
  await server.services.settings.set({ diarizerPath });
  await expect.poll(() => server.services.engine.diarizerLoaded, { timeout: 30_000 }).toBe(true);

  const transcript = await startMeeting(app, server);
  await sound.play(others[0]!.wav);
  const turn = transcript.getByTestId('meeting-turn').filter({ hasText: /Speaker [1-4]:/ }).first();
  await expect(turn).toBeVisible({ timeout: 30_000 });
  await app.getByTestId('meeting-stop').click();
  await expect(app.getByText(/Saved to History/)).toBeVisible({ timeout: 30_000 });

  await app.keyboard.press('Alt+3');
  await app.getByTestId('history-entry').first().click();
  const speakers = app.getByTestId('history-speakers');
  const first = speakers.getByLabel(/^New name for Speaker [1-4]$/).first();
  const name = await first.inputValue();
  expect(name).toMatch(/^Speaker [1-4]$/);
  await first.fill('Ana');
  await speakers.getByRole('button', { name: `Rename ${name} to Ana` }).click();
  const segments = app.getByTestId('history-segment');
  await expect(segments.filter({ hasText: /Others \([^)]*Ana/ })).not.toHaveCount(0);
  await expect(segments.filter({ hasText: new RegExp(`\\b${name}\\b`) })).toHaveCount(0);

  const download = app.waitForEvent('download');
  await app.getByRole('button', { name: 'Export who spoke when as RTTM (.rttm)' }).click();
  const rttm = readFileSync(await (await download).path(), 'utf8');
  expect(rttm).toMatch(/^SPEAKER \S+ 1 \d+\.\d{3} \d+\.\d{3} <NA> <NA> Ana <NA> <NA>$/m);
});

test('with "the microphone too", an in-room meeting labels the microphone\'s people Room 1 … (live)', async ({ app, server }) => {
  test.skip(typeof setup.pulse === 'string', `PulseAudio cannot start here: ${String(setup.pulse)}`);
  await server.services.settings.set({ diarizerPath, diarizeMicrophone: true });
  await expect.poll(() => server.services.engine.diarizerLoaded, { timeout: 30_000 }).toBe(true);

  // Chromium's fake microphone speaks the digit strings: no system audio is played, so every turn is the microphone's.
  const transcript = await startMeeting(app, server);
  await expect(transcript.getByTestId('meeting-turn').filter({ hasText: /Room [1-4]:/ }).first()).toBeVisible({ timeout: 30_000 });
  await expect(transcript.getByTestId('meeting-turn').filter({ hasText: /Speaker [1-4]:/ })).toHaveCount(0);
  await app.getByTestId('meeting-stop').click();
  await expect(app.getByText(/Saved to History/)).toBeVisible({ timeout: 30_000 });
});
