// Electron adapter of the global hotkey (hotkey/hotkey-service.ts): the OS
// shortcut registry is globalShortcut, the key hook runs in a utilityProcess,
// macOS's permission is asked of systemPreferences, and sleep/resume comes
// from powerMonitor. The mode logic lives in the Electron-free service.
import { globalShortcut, powerMonitor, systemPreferences, utilityProcess } from 'electron';
import { hookSupport } from '../hotkey/hook-availability.js';
import { HotkeyService } from '../hotkey/hotkey-service.js';
import { utilityKeyHook } from '../hotkey/utility-key-hook.js';
import type { Services } from '../services.js';

export function bindGlobalHotkey(services: Services): { service: HotkeyService; unbind: () => void } {
  const service = new HotkeyService({
    settings: services.settings,
    bus: services.bus,
    log: services.log.child('hotkey'),
    registry: {
      register: (accelerator, pressed) => globalShortcut.register(accelerator, pressed),
      unregister: (accelerator) => globalShortcut.unregister(accelerator),
    },
    support: () =>
      hookSupport({
        platform: process.platform,
        env: process.env,
        // false: only ask, do not pop the system prompt at every start (Settings says where to allow it).
        ...(process.platform === 'darwin' ? { macTrusted: systemPreferences.isTrustedAccessibilityClient(false) } : {}),
      }),
    spawnHook: utilityKeyHook(utilityProcess),
    env: process.env,
  });
  const onSuspend = (): void => service.suspend();
  const onResume = (): void => service.resume();
  powerMonitor.on('suspend', onSuspend);
  powerMonitor.on('resume', onResume);
  return {
    service,
    unbind: () => {
      powerMonitor.off('suspend', onSuspend);
      powerMonitor.off('resume', onResume);
      service.dispose();
    },
  };
}
