// Web mode's hold-to-talk: the same state machine as the desktop app's global
// hotkey (app/shared/hotkey/hotkey-machine.ts), fed with this page's keydown
// and keyup while it has the focus (a browser page hears no other keys). Only
// for settings.hotkey.mode push-to-talk or hybrid; in the desktop app the
// global key hook hears the key even here, so the page leaves it alone.
// Ctrl+Shift+Space and Esc stay keyboard.ts's.
import type { HotkeyMachine } from '../app/shared/hotkey/hotkey-machine.js';
import { dictation } from './audio/dictation.js';
import { holdMachineFor, typesInFields } from './hold-keys.js';
import { eventTime, isEditable } from './keyboard.js';
import { appStore } from './store/store.js';

export function installHoldToTalk(): () => void {
  let key = '';
  let current: ReturnType<typeof holdMachineFor> = null;
  let active = false;
  const machine = (): ReturnType<typeof holdMachineFor> => {
    const state = appStore.getState();
    const hotkey = state.settings.values?.hotkey;
    const next = JSON.stringify([state.engine.mode, hotkey]);
    if (next !== key) {
      key = next;
      current = holdMachineFor(state.engine.mode, hotkey);
      if (current && active) current.machine.sessionChanged(true);
    }
    return current;
  };
  const apply = (actions: ReturnType<HotkeyMachine['keyDown']>, e: Event | null): void => {
    for (const action of actions) {
      e?.preventDefault();
      void dictation.hotkey({ action: action.type, at: action.at }, 'key');
    }
  };
  const onDown = (e: KeyboardEvent): void => {
    const m = machine();
    if (!m || e.code === 'Escape') return;
    if (isEditable(e.target) && typesInFields(m.chord)) return;
    apply(m.machine.keyDown(e.code, eventTime(e)), e);
  };
  const onUp = (e: KeyboardEvent): void => {
    const m = machine();
    if (!m || e.code === 'Escape') return;
    apply(m.machine.keyUp(e.code, eventTime(e)), e);
  };
  // The key-up of a key held while the page lost the focus never comes here.
  const onBlur = (): void => apply(machine()?.machine.releaseAll(Date.now()) ?? [], null);
  const unsubscribe = appStore.subscribe((state) => {
    const now = state.session.phase !== 'idle';
    if (now === active) return;
    active = now;
    machine()?.machine.sessionChanged(now);
  });
  window.addEventListener('keydown', onDown);
  window.addEventListener('keyup', onUp);
  window.addEventListener('blur', onBlur);
  return () => {
    unsubscribe();
    window.removeEventListener('keydown', onDown);
    window.removeEventListener('keyup', onUp);
    window.removeEventListener('blur', onBlur);
  };
}
