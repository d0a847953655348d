// axe-core on the Meeting view while a meeting records (issue 44's remainder: the accessibility spec covers
// every view idle and with content, but a live meeting needs a sound server): both tracks recording, the level
// meters moving, partial text and finals arriving, a marker added — in light and dark. Any serious or critical
// violation fails. Skipped with the reason where the trained model or PulseAudio is missing.
import { readFileSync } from 'node:fs';
import type { Concatenation } from '../support/audio/digits.js';
import { ensureDigitsSet } from '../support/audio/digits.js';
import type { TestPulseAudio } from '../support/audio/pulseaudio.js';
import { axeViolations } from './support/axe.js';
import { expect, test } from './support/fixtures.js';
import { startMeeting, useMeetingSetup } from './support/meeting.js';
import { DIGITS_MIC_JSON } from './support/paths.js';

const setup = useMeetingSetup();

for (const scheme of ['light', 'dark'] as const) {
  test(`a live meeting in ${scheme} mode: no serious or critical axe violation while both tracks record`, async ({ app, server }) => {
    test.skip(typeof setup.pulse === 'string', `PulseAudio cannot start here: ${String(setup.pulse)}`);
    const sound = setup.pulse as TestPulseAudio;
    const mic = JSON.parse(readFileSync(DIGITS_MIC_JSON, 'utf8')) as Concatenation;
    const others = ensureDigitsSet('meeting-others', { seed: 0x0e71_0002, perVoice: 3, voices: ['en'], rates: [150, 165], minWords: 3, maxWords: 5 }).items;
    await app.emulateMedia({ colorScheme: scheme });
    const transcript = await startMeeting(app, server);
    await sound.play(others[0]!.wav);
    // Live content on the page: an Others line, a You line, a marker, both sources recording.
    await expect(transcript.locator('li', { hasText: 'Others:' }).first()).toContainText(others[0]!.text, { timeout: 30_000 });
    await expect(transcript).toContainText(`You: ${mic.parts[0]!.text}`, { timeout: 30_000 });
    await app.getByLabel('Marker').fill('accessibility check');
    await app.getByRole('button', { name: 'Add marker' }).click();
    await expect(app.getByRole('list', { name: 'Markers' })).toContainText('accessibility check');
    expect(server.services.meetings.running).toBe(true);
    await expect(app.getByTestId('meeting-stop')).toBeVisible();
    await expect(app.getByTestId('recording-chip')).toBeVisible();
    expect(await axeViolations(app)).toEqual([]);
    // And once more while the next string is spoken (a partial on screen), not only between sentences.
    await expect(app.getByTestId('meeting-partial-you')).not.toBeEmpty({ timeout: 30_000 });
    expect(await axeViolations(app)).toEqual([]);
    await app.getByTestId('meeting-stop').click();
    await expect(app.getByText(/Saved to History/)).toBeVisible({ timeout: 30_000 });
  });
}
