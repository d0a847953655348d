// Settings cards for dictating into other apps: how final text reaches the
// focused application (with a Test that waits 3 s so the user can switch apps)
// and the global hotkey (desktop app only: a browser page cannot grab keys
// outside itself).
import { useEffect, useState } from 'react';
import { checkAccelerator } from '../../app/ipc/accelerator.js';
import type { HotkeySettings, InsertMode, InsertSettings } from '../../app/ipc/contract.js';
import { actionFor } from '../errors.js';
import { testInsert } from '../store/commands.js';
import { Button } from './Button.js';

const MODES: { value: InsertMode; label: string; hint: string }[] = [
  { value: 'off', label: 'Off', hint: 'text stays in this app' },
  { value: 'paste', label: 'Paste', hint: 'clipboard + Ctrl+V (⌘V); fast, any language' },
  { value: 'type', label: 'Type', hint: 'synthesized keystrokes; leaves the clipboard alone' },
  { value: 'copy', label: 'Copy only', hint: 'the text goes on the clipboard, you paste it' },
];

const COUNTDOWN_S = 3;

function InsertTest() {
  const [left, setLeft] = useState(0);
  const [result, setResult] = useState<string | null>(null);
  useEffect(() => {
    if (left <= 0) return;
    const timer = setTimeout(() => {
      if (left > 1) return setLeft(left - 1);
      setLeft(0);
      // Only what is known: keystrokes sent are not keystrokes received (X11 can confirm a paste was read).
      void testInsert().then((r) => setResult(r.ok
        ? `${r.value.platform}, ${r.value.mode}: ${r.value.detail ?? 'sent.'}`
        : `The test failed: ${r.error.message}${actionFor(r.error.code) ? ` ${actionFor(r.error.code)}` : ''}`));
    }, 1000);
    return () => clearTimeout(timer);
  }, [left]);
  return (
    <div className="field">
      <Button disabled={left > 0} onClick={() => (setResult(null), setLeft(COUNTDOWN_S))}>
        {left > 0 ? `Inserting in ${left} s… switch to another app` : 'Test (inserts a sample after 3 s)'}
      </Button>
      <p className="field-hint" role="status" id="set-insert-test-result">
        {result ?? 'Uses the saved settings. Click into a text field of another app during the countdown.'}
      </p>
    </div>
  );
}

export function InsertSettingsCard({ insert, hotkey, desktop, onInsert, onHotkey }: {
  insert: InsertSettings;
  hotkey: HotkeySettings;
  desktop: boolean;
  onInsert: (next: Partial<InsertSettings>) => void;
  onHotkey: (next: Partial<HotkeySettings>) => void;
}) {
  const hotkeyCheck = checkAccelerator(hotkey.toggle);
  return (
    <>
      <fieldset className="card">
        <legend>Insert into other apps</legend>
        <div role="radiogroup" aria-label="Insert mode">
          {MODES.map((m) => (
            <div className="toggle" key={m.value}>
              <input id={`set-insert-${m.value}`} type="radio" name="insert-mode" checked={insert.mode === m.value} onChange={() => onInsert({ mode: m.value })} />
              <label htmlFor={`set-insert-${m.value}`}>
                {m.label} <span className="muted">— {m.hint}</span>
              </label>
            </div>
          ))}
        </div>
        <div className="toggle">
          <input id="set-insert-restore" type="checkbox" checked={insert.restoreClipboard} disabled={insert.mode !== 'paste'}
            onChange={(e) => onInsert({ restoreClipboard: e.target.checked })} />
          <label htmlFor="set-insert-restore">Restore the clipboard after pasting</label>
        </div>
        <p className="field-hint">
          Linux X11 needs xdotool and xclip (xprop from x11-utils to recognise terminals); Wayland wl-clipboard and wtype or
          ydotool (without them the text is copied and you press Ctrl+V); macOS asks for the Accessibility permission.
          {desktop ? '' : ' In the browser, text is inserted on the display of the machine running the app.'}
        </p>
        <InsertTest />
      </fieldset>
      <fieldset className="card">
        <legend>Hotkey</legend>
        <div className="field">
          <label htmlFor="set-hotkey">Start/stop dictation from any app</label>
          <input id="set-hotkey" type="text" value={hotkey.toggle} disabled={!desktop} aria-invalid={!hotkeyCheck.ok}
            aria-describedby="set-hotkey-hint" onChange={(e) => onHotkey({ toggle: e.target.value })} />
          <p className="field-hint" id="set-hotkey-hint">
            {!desktop
              ? 'Desktop app only: a browser page cannot take keys from other apps. Here, Ctrl+Shift+Space works while this page has focus.'
              : hotkeyCheck.ok
                ? 'An Electron accelerator, e.g. CommandOrControl+Shift+Space. Esc cancels while this window has focus.'
                : `This hotkey ${hotkeyCheck.reason}.`}
          </p>
        </div>
      </fieldset>
    </>
  );
}
