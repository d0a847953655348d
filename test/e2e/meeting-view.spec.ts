// The Meeting view at the level of Dictate (issue 44 item 5): styled controls and cards, transcript lines
// without clipped list numbers, markers in time order and in History, and a sound server that does not
// answer said once (under its track, not also as a banner) in words, with no raw "parec:" line.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIGITS_MODEL } from '../support/audio/digits.js';
import { pulseEnv } from '../support/audio/pulseaudio.js';
import { expect, test } from './support/fixtures.js';
import { startMeeting } from './support/meeting.js';
import { CHROMIUM, chromiumArgs, DIGITS_MIC_WAV } from './support/paths.js';

test.skip(!existsSync(DIGITS_MODEL), `the trained test model is not at ${DIGITS_MODEL} (set PARAKEET_DIGITS_MODEL)`);
// A sound-server address where nothing listens: the system audio cannot be recorded.
test.use({
  serverSetup: { withModel: false, extra: { modelPath: DIGITS_MODEL, services: { soundServerEnv: pulseEnv(mkdtempSync(join(tmpdir(), 'parakeet-e2e-nopulse-'))) } } },
  launchOptions: { executablePath: CHROMIUM, args: chromiumArgs(DIGITS_MIC_WAV) },
});

test('styled like Dictate; a silent sound server said once in words; markers in order, and in History', async ({ app, server }) => {
  // Checked before Start: the user learns the system audio cannot be recorded before the meeting begins.
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await app.keyboard.press('Alt+7');
  const check = app.getByTestId('meeting-system-check');
  await expect(check).toHaveAttribute('data-ok', 'false');
  await expect(check).toContainText('no PulseAudio or PipeWire sound server answered');
  await startMeeting(app, server);
  await expect(check).toHaveCount(0);
  // Buttons are the app's own, not bare native ones.
  await expect(app.getByTestId('meeting-stop')).toHaveClass(/\bbtn\b/);
  const others = app.getByTestId('meeting-source-others');
  await expect(others).toContainText('The system audio cannot be recorded: no PulseAudio or PipeWire sound server answered.', { timeout: 20_000 });
  await expect(app.locator('body')).not.toContainText('parec:');
  await expect(app.getByText(/sound server answered/)).toHaveCount(1);
  await expect(app.getByTestId('notice')).toHaveCount(0);

  const marker = app.getByRole('textbox', { name: 'Marker' });
  await marker.fill('first');
  await app.getByRole('button', { name: 'Add marker' }).click();
  await expect(app.getByTestId('meeting-marker')).toHaveCount(1);
  await app.waitForTimeout(1100);
  await marker.fill('second');
  await app.getByRole('button', { name: 'Add marker' }).click();
  await expect(app.getByTestId('meeting-marker')).toHaveText([/first$/, /second$/]);
  // Transcript lines carry their times and no list numbers to clip.
  await expect(app.getByTestId('meeting-transcript')).toHaveCSS('list-style-type', 'none');

  await app.getByTestId('meeting-stop').click();
  await expect(app.getByTestId('meeting-start')).toBeVisible({ timeout: 30_000 });
  await app.keyboard.press('Alt+3');
  await app.getByTestId('history-entry').first().click();
  await expect(app.getByTestId('history-markers').locator('li')).toHaveText([/first$/, /second$/]);
});
