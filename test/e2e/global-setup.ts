// Runs once before the end-to-end specs: builds the renderer and the CLI if
// they are stale and generates the model, the speech file the fake microphone plays and a
// long copy of it for file transcription, and the spoken digit strings the
// trained digits model hears (digits.spec.ts).
import { existsSync, mkdirSync } from 'node:fs';
import {
  checkTools, ensureCancelSpeech, ensureCliBuilt, ensureDigitsSpeech, ensureNoisyDigitsSpeech, ensureLongSpeech, ensureModel, ensureRendererBuilt, ensureSpeech,
  ensureStreamingModels,
} from './support/assets.js';
import { CHROMIUM, SCREENSHOT_DIR } from './support/paths.js';

export default function globalSetup(): void {
  const missing = checkTools();
  if (missing.length) throw new Error(`end-to-end tests need ${missing.join(' and ')}: apt-get install -y ${missing.join(' ')}`);
  if (!existsSync(CHROMIUM)) throw new Error(`end-to-end tests need Chromium at ${CHROMIUM}: apt-get install -y chromium (or set PARAKEET_CHROMIUM)`);
  ensureRendererBuilt();
  ensureCliBuilt();
  ensureModel();
  ensureStreamingModels();
  ensureSpeech();
  ensureLongSpeech();
  ensureCancelSpeech();
  ensureDigitsSpeech();
  ensureNoisyDigitsSpeech();
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
}
