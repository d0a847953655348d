// Settings › Hotkey mode and feedback: toggle / push-to-talk / hybrid, the hold key, and the desktop app
// outside its window (tray, overlay, login, sounds).
import { useContext } from 'react';
import type { Settings } from '../../../app/ipc/contract.js';
import { SETTINGS_LIMITS } from '../../../app/ipc/settings.js';
import { describedBy, Field, Messages, NumberInput, Toggle, type SectionProps } from './fields.js';

const HOTKEY_MODES: { value: Settings['hotkey']['mode']; label: string; hint: string }[] = [
  { value: 'toggle', label: 'Toggle', hint: 'press the hotkey above to start, again to stop' },
  { value: 'push-to-talk', label: 'Push-to-talk', hint: 'hold the key while you speak, release to finish' },
  { value: 'hybrid', label: 'Hybrid', hint: 'tap to start and tap again to stop, or hold to talk' },
];

export function HotkeyModeSection({ draft, desktop, update }: SectionProps & { desktop: boolean }) {
  const hotkey = (next: Partial<Settings['hotkey']>) => update({ hotkey: { ...draft.hotkey, ...next } });
  const outside = (next: Partial<Settings['desktop']>) => update({ desktop: { ...draft.desktop, ...next } });
  const msgs = useContext(Messages);
  return (
    <fieldset className="card">
      <legend>Hotkey mode and feedback</legend>
      <div role="radiogroup" aria-label="Hotkey mode">
        {HOTKEY_MODES.map((m) => (
          <div className="toggle" key={m.value}>
            <input id={`set-hotkey-${m.value}`} type="radio" name="hotkey-mode" checked={draft.hotkey.mode === m.value} onChange={() => hotkey({ mode: m.value })} />
            <label htmlFor={`set-hotkey-${m.value}`}>
              {m.label} <span className="muted">— {m.hint}</span>
            </label>
          </div>
        ))}
      </div>
      <Field
        id="set-hold-key"
        label="Hold key (push-to-talk and hybrid)"
        hint={desktop
          ? 'A chord (Ctrl+Space), a function key (F8) or one modifier alone (RightCtrl, RightAlt, AltGr). Heard in every app through a key hook; Esc cancels. Linux needs X11 (on Wayland only the toggle hotkey works), macOS the Accessibility permission.'
          : 'A chord (Ctrl+Space), a function key (F8) or one modifier alone (RightCtrl). In the browser it works while this page has the focus.'}
      >
        <input id="set-hold-key" type="text" spellCheck={false} value={draft.hotkey.hold}
          aria-invalid={msgs.errors['set-hold-key'] ? true : undefined}
          aria-describedby={describedBy('set-hold-key', msgs, true)}
          onChange={(e) => hotkey({ hold: e.target.value })} />
      </Field>
      <Field id="set-tap-ms" label="A tap is shorter than (ms)" hint="Hybrid: a shorter press latches dictation on. A key pressed this soon after a lone modifier was a shortcut (Ctrl+C), and cancels.">
        <NumberInput id="set-tap-ms" value={draft.hotkey.tapMs} limit={SETTINGS_LIMITS.tapMs} step={10} onChange={(v) => hotkey({ tapMs: v })} />
      </Field>
      <Toggle id="set-sounds" label="Play a short tone when capture starts and stops" checked={draft.desktop.sounds} onChange={(v) => outside({ sounds: v })} />
      {desktop ? (
        <>
          <Toggle id="set-overlay" label="Show a small always-on-top overlay while dictating (it never takes the focus)" checked={draft.desktop.overlay} onChange={(v) => outside({ overlay: v })} />
          <Toggle id="set-login" label="Start Parakeet when I log in" checked={draft.desktop.openAtLogin} onChange={(v) => outside({ openAtLogin: v })} />
        </>
      ) : null}
    </fieldset>
  );
}
