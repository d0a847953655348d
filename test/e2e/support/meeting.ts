// What the meeting specs share: the trained digits model as the server's model, a PulseAudio
// daemon of the spec's own (its null sink's monitor is the "Others" track) and Chromium's fake
// microphone speaking the e2e digit strings ("You"); and starting a meeting from the Meeting view.
import type { Locator, Page } from '@playwright/test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebServer } from '../../../app/web/server.js';
import { DIGITS_MODEL } from '../../support/audio/digits.js';
import { pulseEnv, startPulseAudio, type TestPulseAudio } from '../../support/audio/pulseaudio.js';
import { expect, test } from './fixtures.js';
import { CHROMIUM, chromiumArgs, DIGITS_MIC_WAV } from './paths.js';

/** The spec's sound server once started, or why it could not start. */
export interface MeetingSound {
  readonly pulse: TestPulseAudio | string;
}

/**
 * Declares the spec's setup (call at the top level of a spec file). Default: the trained digits model and
 * the digit strings as the microphone; `model`/`micWav` name others (a generated streaming model, say).
 */
export function useMeetingSetup(options: { model?: string; micWav?: string } = {}): MeetingSound {
  const dir = mkdtempSync(join(tmpdir(), 'parakeet-e2e-pulse-'));
  const sound: { pulse: TestPulseAudio | string } = { pulse: 'not started' };
  const model = options.model ?? DIGITS_MODEL;
  if (model === DIGITS_MODEL) test.skip(!existsSync(DIGITS_MODEL), `the trained test model is not at ${DIGITS_MODEL} (set PARAKEET_DIGITS_MODEL)`);
  test.use({
    serverSetup: { withModel: false, extra: { modelPath: model, services: { soundServerEnv: pulseEnv(dir) } } },
    launchOptions: { executablePath: CHROMIUM, args: chromiumArgs(options.micWav ?? DIGITS_MIC_WAV) },
  });
  test.beforeAll(async () => {
    sound.pulse = await startPulseAudio(dir);
  });
  test.afterAll(async () => {
    if (typeof sound.pulse !== 'string') await sound.pulse.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return sound;
}

/** Opens the Meeting view with the model ready and presses Start; returns the live transcript. */
export async function startMeeting(app: Page, server: WebServer): Promise<Locator> {
  await server.services.settings.set({ dictation: { preRollMs: 0 } });
  await expect(app.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready');
  await app.keyboard.press('Alt+7');
  await expect(app.getByRole('heading', { name: 'Meeting', level: 2 })).toBeVisible();
  await app.getByTestId('meeting-start').click();
  await expect(app.getByTestId('meeting-stop')).toBeVisible();
  return app.getByTestId('meeting-transcript');
}
