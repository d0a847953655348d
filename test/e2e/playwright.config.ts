// End-to-end tests of web mode: Debian's Chromium with a fake microphone that
// plays espeak-ng speech, against the built renderer served by app/web over
// the real services, engine process and addon. scripts/test.mjs adds
// --reporter=list,json.
import { defineConfig } from '@playwright/test';
import { CHROMIUM, chromiumArgs, REPO_ROOT, SPEECH_WAV } from './support/paths.js';

export default defineConfig({
  testDir: '.',
  testMatch: /.*\.spec\.ts$/,
  globalSetup: './global-setup.ts',
  outputDir: `${REPO_ROOT}/test-results/e2e`,
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  reporter: 'list',
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1180, height: 860 },
    launchOptions: { executablePath: CHROMIUM, args: chromiumArgs(SPEECH_WAV) },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
