// Shared by the launch simulations: the compiled main entry copied into a
// folder laid out like a packaged app (<install>/resources/app.asar/…), the
// module hook that resolves `electron` to the recording fake, and a poll.
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { register } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureAppCompiled, REPO } from '../compiled-app.js';

export type FakeElectron = typeof import('./electron.js');

export interface PackagedLayout {
  install: string;
  asar: string;
  userData: string;
  /** Loads dist/app/main/index.js from the archive (once per process: modules are cached). */
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

/** Compiles when stale, copies dist/app and dist/native into a fresh app.asar folder, and hooks `electron`. */
export async function packagedApp(): Promise<{ layout: PackagedLayout; electron: FakeElectron }> {
  ensureAppCompiled();
  const install = mkdtempSync(path.join(tmpdir(), 'parakeet-launch-'));
  // A space and brackets, as in "C:\Program Files\…" or "Apps [x64]".
  const asar = path.join(install, 'Parakeet Desktop [x64]', 'resources', 'app.asar');
  mkdirSync(path.join(asar, 'dist'), { recursive: true });
  cpSync(path.join(REPO, 'package.json'), path.join(asar, 'package.json'));
  for (const part of ['app', 'native']) cpSync(path.join(REPO, 'dist', part), path.join(asar, 'dist', part), { recursive: true, filter: (src) => !src.endsWith('.map') });
  const fakeUrl = pathToFileURL(path.join(REPO, 'test', 'support', 'fake-electron', 'electron.ts')).href;
  register(pathToFileURL(path.join(REPO, 'test', 'support', 'fake-electron', 'hooks.mjs')), { data: { fakeUrl } });
  const electron = (await import(fakeUrl)) as FakeElectron;
  const layout: PackagedLayout = {
    install,
    asar,
    userData: path.join(install, 'userData'),
    startMain: async () => {
      await import(pathToFileURL(path.join(asar, 'dist', 'app', 'main', 'index.js')).href);
    },
    remove: () => rmSync(install, { recursive: true, force: true }),
  };
  return { layout, electron };
}
