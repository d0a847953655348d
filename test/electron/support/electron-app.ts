// Launching the packaged-to-be app under Playwright's _electron. Where no
// Electron binary exists (build machines: ELECTRON_SKIP_BINARY_DOWNLOAD),
// every spec skips itself with ELECTRON_SKIP_REASON.
//
// What the specs expect from the Electron entry (dist/app/main/electron/main.js):
//   PARAKEET_USER_DATA_DIR  userData folder (settings, models, logs)
//   PARAKEET_MODEL          .gguf to load at start
//   PARAKEET_TEST_HOOKS=1   session audio retained, and
//                           globalThis.parakeetTest = { services } in main
//   PARAKEET_MODEL_ENDPOINT / PARAKEET_EXTRA_CA_FILE  download mirror + its CA
// and Chromium switches after the entry (the fake microphone flags).
import { _electron, type ElectronApplication, type Page } from '@playwright/test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { linuxSandboxProblem, readSandboxFacts } from '../../../app/main/util/linux-sandbox.js';
import { chromiumArgs, REPO_ROOT, SPEECH_WAV } from '../../e2e/support/paths.js';

export const ELECTRON_SKIP_REASON =
  'Electron binary not available on this machine (ELECTRON_SKIP_BINARY_DOWNLOAD); _electron specs skipped';

/** Path of the Electron binary, or null where `require('electron')` throws or points at nothing. */
export function electronBinary(): string | null {
  if (process.env.PARAKEET_ELECTRON && existsSync(process.env.PARAKEET_ELECTRON)) return process.env.PARAKEET_ELECTRON;
  try {
    const path = createRequire(import.meta.url)('electron') as unknown;
    return typeof path === 'string' && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

export const MAIN_ENTRY = join(REPO_ROOT, 'dist', 'app', 'main', 'electron', 'main.js');

export interface LaunchOptions {
  modelPath?: string;
  env?: Record<string, string>;
  grantMic?: boolean;
}

export interface LaunchedApp {
  electron: ElectronApplication;
  window: Page;
  userDataDir: string;
  close(): Promise<void>;
}

export async function launchApp(opts: LaunchOptions = {}): Promise<LaunchedApp> {
  const executablePath = electronBinary();
  if (!executablePath) throw new Error(ELECTRON_SKIP_REASON);
  const userDataDir = mkdtempSync(join(tmpdir(), 'parakeet-electron-'));
  // The app runs with Chromium's sandbox like a user's, unless it cannot start here (root, restricted user
  // namespaces: app/main/util/linux-sandbox.ts); only then --no-sandbox, and the app shows its notice about it.
  const sandboxBlocked = linuxSandboxProblem(readSandboxFacts(executablePath)) !== null;
  const browserArgs = chromiumArgs(SPEECH_WAV, { grantMic: opts.grantMic }).filter((arg) => arg !== '--no-sandbox' || sandboxBlocked);
  const electron = await _electron.launch({
    executablePath,
    // --user-data-dir also moves Electron's userData, for an entry that ignores PARAKEET_USER_DATA_DIR.
    args: [MAIN_ENTRY, `--user-data-dir=${userDataDir}`, ...browserArgs],
    cwd: REPO_ROOT,
    env: {
      ...(process.env as Record<string, string>),
      PARAKEET_USER_DATA_DIR: userDataDir,
      PARAKEET_TEST_HOOKS: '1',
      ...(opts.modelPath ? { PARAKEET_MODEL: opts.modelPath } : {}),
      ...opts.env,
    },
  });
  const window = await electron.firstWindow();
  await window.waitForLoadState('domcontentloaded');
  return {
    electron,
    window,
    userDataDir,
    close: async () => {
      await electron.close().catch(() => undefined);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
