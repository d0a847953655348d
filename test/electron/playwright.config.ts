// Playwright _electron specs: the same flows as test/e2e, in the real
// Electron shell. Where no Electron binary exists, global-setup prints a
// SKIP line and every spec is skipped (the run still exits 0).
import { defineConfig } from '@playwright/test';
import { REPO_ROOT } from '../e2e/support/paths.js';

export default defineConfig({
  testDir: '.',
  testMatch: /.*\.spec\.ts$/,
  globalSetup: './global-setup.ts',
  outputDir: `${REPO_ROOT}/test-results/electron`,
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 120_000,
  expect: { timeout: 20_000 },
  reporter: 'list',
  use: { trace: 'retain-on-failure' },
});
