// _electron fixtures: one app per test with the generated model; skipped as a
// whole where no Electron binary exists.
import { test as base, expect, type Page } from '@playwright/test';
import { MODEL_PATH } from '../../e2e/support/paths.js';
import { electronBinary, ELECTRON_SKIP_REASON, launchApp, type LaunchedApp, type LaunchOptions } from './electron-app.js';

interface Fixtures {
  launch: LaunchOptions;
  launched: LaunchedApp;
  appWindow: Page;
}

export const HAS_ELECTRON = electronBinary() !== null;

export const test = base.extend<Fixtures>({
  launch: [{ modelPath: MODEL_PATH }, { option: true }],
  launched: async ({ launch }, use) => {
    const app = await launchApp(launch);
    try {
      await use(app);
    } finally {
      await app.close();
    }
  },
  appWindow: async ({ launched }, use) => {
    await expect(launched.window.getByRole('heading', { name: 'Dictate' })).toBeVisible();
    await use(launched.window);
  },
});

/** Call at the top of every spec file. */
export function skipWithoutElectron(): void {
  test.skip(!HAS_ELECTRON, ELECTRON_SKIP_REASON);
}

export { expect };
