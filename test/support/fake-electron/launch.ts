// Shared by the launch simulations: the compiled main entry copied into a
// folder laid out like a packaged app (<install>/resources/app.asar/…), the
// module hook that resolves `electron` to the recording fake, and a poll.
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { register } from 'node:module';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureAppCompiled, REPO } from '../compiled-app.js';

export type FakeElectron = typeof import('./electron.js');

export interface PackagedLayout {
  install: string;
  asar: string;
  userData: string;
  /** Loads dist/app/main/electron/main.js from the archive (once per process: modules are cached). */
  startMain(): Promise<void>;
  remove(): void;
}

export async function until<T>(what: string, probe: () => T | undefined | null | false, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Compiles when stale, copies dist/app, dist/native and dist/types into a fresh app.asar folder, and hooks `electron`. */
export async function packagedApp(): Promise<{ layout: PackagedLayout; electron: FakeElectron }> {
  ensureAppCompiled();
  const install = mkdtempSync(path.join(tmpdir(), 'parakeet-launch-'));
  // A space and brackets, as in "C:\Program Files\…" or "Apps [x64]".
  const asar = path.join(install, 'Parakeet Desktop [x64]', 'resources', 'app.asar');
  mkdirSync(path.join(asar, 'dist'), { recursive: true });
  cpSync(path.join(REPO, 'package.json'), path.join(asar, 'package.json'));
  for (const part of ['app', 'native', 'types']) cpSync(path.join(REPO, 'dist', part), path.join(asar, 'dist', part), { recursive: true, filter: (src) => !src.endsWith('.map') });
  const fakeUrl = pathToFileURL(path.join(REPO, 'test', 'support', 'fake-electron', 'electron.ts')).href;
  register(pathToFileURL(path.join(REPO, 'test', 'support', 'fake-electron', 'hooks.mjs')), { data: { fakeUrl } });
  const electron = (await import(fakeUrl)) as FakeElectron;
  const layout: PackagedLayout = {
    install,
    asar,
    userData: path.join(install, 'userData'),
    startMain: async () => {
      await import(pathToFileURL(path.join(asar, 'dist', 'app', 'main', 'electron', 'main.js')).href);
    },
    remove: () => rmSync(install, { recursive: true, force: true }),
  };
  return { layout, electron };
}

export interface SimulatedSystem {
  /** process.platform as main sees it (default: this machine's). */
  platform?: NodeJS.Platform;
  /** os.release() (macOS: the Darwin version). */
  osRelease?: string;
  /** Set on top of the app's own (PARAKEET_USER_DATA_DIR, PARAKEET_TEST_HOOKS=1). */
  env?: Record<string, string>;
}

export interface Launched {
  electron: FakeElectron;
  layout: PackagedLayout;
  /** Ends what is still running (the engine child), puts the process back as it was, removes the folder. */
  restore(): void;
}

/**
 * The packaged main entry loaded as the given system (Electron 40.8.5), the engine forked for real from inside the
 * archive; app 'ready' has not happened yet (fake.becomeReady()).
 */
export async function launchPackaged(system: SimulatedSystem = {}): Promise<Launched> {
  const { layout, electron } = await packagedApp();
  const { fake } = electron;
  const engineEntry = path.join(layout.asar, 'dist', 'app', 'engine-process', 'engine-process.js');
  fake.config.realFork = (modulePath) => modulePath === engineEntry;
  const saved = { env: { ...process.env }, platform: process.platform, release: os.release, electron: process.versions.electron };
  if (system.platform) Object.defineProperty(process, 'platform', { value: system.platform });
  if (system.osRelease) os.release = () => system.osRelease!;
  (process.versions as Record<string, string | undefined>).electron = '40.8.5';
  Object.assign(process.env, { PARAKEET_USER_DATA_DIR: layout.userData, PARAKEET_TEST_HOOKS: '1', ...system.env });
  for (const key of ['PARAKEET_MODEL', 'PARAKEET_RENDERER_URL', 'PARAKEET_ADDON', ...(system.env?.WAYLAND_DISPLAY ? [] : ['WAYLAND_DISPLAY'])]) delete process.env[key];
  const restore = (): void => {
    for (const child of fake.children) if (child.exitCode === null && child.signalCode === null) child.kill();
    Object.defineProperty(process, 'platform', { value: saved.platform });
    os.release = saved.release;
    (process.versions as Record<string, string | undefined>).electron = saved.electron;
    process.env = saved.env;
    layout.remove();
  };
  try {
    await layout.startMain();
  } catch (error) {
    restore();
    throw error;
  }
  return { electron, layout, restore };
}
