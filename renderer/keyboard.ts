// Window-level shortcuts: Ctrl+Shift+Space starts/stops dictation from any
// view, Esc cancels a running one, Alt+1..6 switch views (in Nav's order).
// Keys typed into text fields are left alone, except the start/stop chord.
import { dictation } from './audio/dictation.js';
import { VIEWS } from './components/Nav.js';
import * as actions from './store/actions.js';
import { appStore } from './store/store.js';

function inTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement;
}

export function installShortcuts(): () => void {
  const onKey = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.shiftKey && e.code === 'Space') {
      e.preventDefault();
      void dictation.toggle();
      return;
    }
    if (inTextField(e.target)) return;
    if (e.key === 'Escape' && appStore.getState().session.phase === 'live') {
      e.preventDefault();
      void dictation.cancel();
      return;
    }
    if (e.altKey && !e.ctrlKey && !e.metaKey && /^Digit[1-9]$/.test(e.code)) {
      const view = VIEWS[Number(e.code.slice(5)) - 1];
      if (view) {
        e.preventDefault();
        actions.showView(view.id);
      }
    }
  };
  window.addEventListener('keydown', onKey);
  return () => window.removeEventListener('keydown', onKey);
}
