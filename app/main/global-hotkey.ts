// Electron adapter: the global toggle hotkey (settings.hotkey.toggle). Pressing
// it anywhere sends 'dictation:toggle' to the renderer, which owns the
// microphone and starts or stops the session as if its button was pressed.
// Esc-to-cancel stays window-local: a global Esc would be taken from every app.
import { globalShortcut } from 'electron';
import { checkAccelerator } from '../ipc/accelerator.js';
import type { Services } from './services.js';

export function bindGlobalHotkey(services: Services): () => void {
  let registered: string | null = null;
  const log = services.log.child('hotkey');

  const register = (accelerator: string): void => {
    if (registered === accelerator) return;
    if (registered) globalShortcut.unregister(registered);
    registered = null;
    const checked = checkAccelerator(accelerator);
    let ok = false;
    try {
      ok = checked.ok && globalShortcut.register(accelerator, () => services.bus.emit('dictation:toggle', { source: 'hotkey' }));
    } catch (error) {
      log.warn(`cannot register ${accelerator}`, error);
    }
    if (ok) {
      registered = accelerator;
      log.info(`global hotkey ${accelerator}`);
      return;
    }
    // register() returns false when another application (or the desktop) already owns the chord.
    services.bus.emit('notice', {
      level: 'warning',
      code: 'HOTKEY_UNAVAILABLE',
      message: checked.ok
        ? `The hotkey ${accelerator} could not be registered: another application probably uses it.`
        : `The hotkey "${accelerator}" ${checked.reason}.`,
      action: 'Choose another hotkey in Settings → Hotkey.',
    });
  };

  register(services.settings.get().hotkey.toggle);
  const off = services.settings.on('changed', ({ next }) => register(next.hotkey.toggle));
  return () => {
    off();
    if (registered) globalShortcut.unregister(registered);
    registered = null;
  };
}
