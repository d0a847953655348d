// Electron: the app outside its window. The overlay appears while dictating,
// always on top, never focusable, and leaves the focus where it was; the tray
// state follows the session; push-to-talk through the real key hook on X11
// (xdotool keydown/keyup on the app's display); start at login where the OS
// has login items (restored afterwards, also when the test fails). Skips where
// no Electron binary exists.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { expect, skipWithoutElectron, test } from './support/fixtures.js';

skipWithoutElectron();

const exec = promisify(execFile);

interface MainHooks {
  services: { settings: { set(patch: unknown): Promise<unknown> } };
  hotkey: { status(): { mode: string; backend: string; key: string; problem: string | null } };
  desktop: { state(): { session: string | null } };
}

test('the overlay shows while dictating without taking the focus; the tray state follows', async ({ launched, appWindow }) => {
  test.skip(process.platform === 'linux' && process.env.XDG_SESSION_TYPE === 'wayland', 'native Wayland cannot place the overlay: the app does not show it');
  const { electron } = launched;
  await expect(appWindow.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await electron.evaluate(async () => {
    const hooks = (globalThis as unknown as { parakeetTest: MainHooks }).parakeetTest;
    await hooks.services.settings.set({ desktop: { overlay: true } });
  });
  await appWindow.keyboard.press('Control+Shift+Space');
  await expect(appWindow.getByTestId('session-status')).toHaveAttribute('data-phase', 'live');
  await expect.poll(() => electron.evaluate(({ BrowserWindow }) => {
    const overlay = BrowserWindow.getAllWindows().find((w) => w.getTitle() === 'Parakeet overlay');
    return overlay ? { visible: overlay.isVisible(), focusable: overlay.isFocusable(), onTop: overlay.isAlwaysOnTop() } : null;
  }), { timeout: 10_000 }).toEqual({ visible: true, focusable: false, onTop: true });
  const focused = await electron.evaluate(({ BrowserWindow }) => BrowserWindow.getFocusedWindow()?.getTitle() ?? null);
  expect(focused).not.toBe('Parakeet overlay');
  expect(await electron.evaluate(() => (globalThis as unknown as { parakeetTest: MainHooks }).parakeetTest.desktop.state().session)).not.toBeNull();
  await appWindow.keyboard.press('Control+Shift+Space');
  await expect(appWindow.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
  await expect.poll(() => electron.evaluate(({ BrowserWindow }) =>
    BrowserWindow.getAllWindows().find((w) => w.getTitle() === 'Parakeet overlay')?.isVisible() ?? false)).toBe(false);
  await expect.poll(() => electron.evaluate(() => (globalThis as unknown as { parakeetTest: MainHooks }).parakeetTest.desktop.state().session)).toBeNull();
});

test('push-to-talk through the key hook: xdotool keydown starts, keyup stops (Linux X11)', async ({ launched, appWindow }) => {
  test.skip(process.platform !== 'linux' || !process.env.DISPLAY || !existsSync('/usr/bin/xdotool'), 'needs Linux with an X display and xdotool');
  const { electron } = launched;
  await expect(appWindow.getByTestId('engine-chip')).toHaveAttribute('data-state', 'ready', { timeout: 30_000 });
  await electron.evaluate(async () => {
    const hooks = (globalThis as unknown as { parakeetTest: MainHooks }).parakeetTest;
    await hooks.services.settings.set({ hotkey: { mode: 'push-to-talk', hold: 'F8' } });
  });
  await expect.poll(() => electron.evaluate(() => (globalThis as unknown as { parakeetTest: MainHooks }).parakeetTest.hotkey.status()))
    .toMatchObject({ mode: 'push-to-talk', backend: 'key-hook', key: 'F8', problem: null });
  await appWindow.waitForTimeout(1000); // the hook process starts
  await exec('xdotool', ['keydown', 'F8']);
  await expect(appWindow.getByTestId('session-status')).toHaveAttribute('data-phase', 'live');
  await expect(appWindow.getByTestId('latency-key-first-text')).toContainText(/Key-down to first text.*\d+ (ms|s)/s, { timeout: 30_000 });
  await exec('xdotool', ['keyup', 'F8']);
  await expect(appWindow.getByTestId('session-status')).toHaveAttribute('data-phase', 'idle');
});

test('start at login follows the setting (macOS, Windows)', async ({ launched }) => {
  test.skip(process.platform === 'linux', 'Electron has no login items on Linux');
  const { electron } = launched;
  // A real login item of this machine: whatever happens below, it ends as it was (the finally runs on failure too,
  // through Electron directly rather than through the settings under test).
  const before = await electron.evaluate(({ app }) => app.getLoginItemSettings().openAtLogin);
  try {
    expect(before).toBe(false);
    await electron.evaluate(async () => {
      await (globalThis as unknown as { parakeetTest: MainHooks }).parakeetTest.services.settings.set({ desktop: { openAtLogin: true } });
    });
    await expect.poll(() => electron.evaluate(({ app }) => app.getLoginItemSettings().openAtLogin)).toBe(true);
    await electron.evaluate(async () => {
      await (globalThis as unknown as { parakeetTest: MainHooks }).parakeetTest.services.settings.set({ desktop: { openAtLogin: false } });
    });
    await expect.poll(() => electron.evaluate(({ app }) => app.getLoginItemSettings().openAtLogin)).toBe(false);
  } finally {
    await electron.evaluate(({ app }, openAtLogin) => app.setLoginItemSettings({ openAtLogin }), before).catch(() => undefined);
  }
});
