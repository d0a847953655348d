// Window-level shortcuts: Ctrl+Shift+Space starts/stops dictation from any
// view, Esc cancels a running one, Alt+1..7 switch views (in Nav's order).
// Keys typed into an editable field (text inputs, text areas, contenteditable)
// are the field's: the start/stop chord and Esc do nothing there (the OS-wide
// hotkey of the desktop app is another matter). Alt+1..6 types nothing in a
// field, so it switches views from inside one too, unless the keyboard layout
// makes it type a character there (macOS Option+1 is "¡", AltGr layouts): then
// the field gets it.
import { dictation } from './audio/dictation.js';
import { VIEWS } from './components/Nav.js';
import * as actions from './store/actions.js';
import { appStore } from './store/store.js';

/** Input types that take typed text (a checkbox, a button or a range does not). */
const TEXT_INPUTS = new Set(['text', 'search', 'url', 'email', 'password', 'tel', 'number', 'date', 'time', 'datetime-local', 'month', 'week']);

export function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement) return true;
  return target instanceof HTMLInputElement && TEXT_INPUTS.has(target.type);
}

function inFormControl(target: EventTarget | null): boolean {
  return isEditable(target) || target instanceof HTMLSelectElement;
}

/** Epoch ms of a DOM event (its timeStamp counts from the page's time origin). */
export function eventTime(e: Event): number {
  return Math.round(performance.timeOrigin + e.timeStamp);
}

export function installShortcuts(): () => void {
  const onKey = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.shiftKey && e.code === 'Space') {
      if (isEditable(e.target)) return;
      e.preventDefault();
      void dictation.toggle({ at: eventTime(e), source: 'key' });
      return;
    }
    if (e.altKey && !e.ctrlKey && !e.metaKey && /^Digit[1-9]$/.test(e.code)) {
      // A layout that types a character with this chord: the field gets it.
      if (isEditable(e.target) && e.key !== e.code.slice(5)) return;
      const view = VIEWS[Number(e.code.slice(5)) - 1];
      if (view) {
        e.preventDefault();
        actions.showView(view.id);
      }
      return;
    }
    if (inFormControl(e.target)) return;
    if (e.key === 'Escape' && appStore.getState().session.phase === 'live') {
      e.preventDefault();
      void dictation.cancel();
    }
  };
  window.addEventListener('keydown', onKey);
  return () => window.removeEventListener('keydown', onKey);
}
