// Settings: engine (device, threads, decoder, weights, engine mode), audio
// capture (processing toggles, input, pre-roll), dictation segmentation (VAD),
// history (on/off, retention), inserting into other apps and the hotkey, and the download mirror. Edits are
// collected in a draft and saved together. Each field is checked as it is typed (settings/form-check.ts):
// an error sits next to its field, in words, and that field is not sent; every valid edit is saved; a
// field main refuses gets main's reason next to it; the outcome of a save sits next to the Save button.
// New saved values (a save, another window) never overwrite an edit that is not saved yet.
import { createContext, useContext, useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { Settings } from '../../app/ipc/contract.js';
import { SETTINGS_LIMITS } from '../../app/ipc/settings.js';
import { listInputs } from '../audio/mic.js';
import { AboutCard } from '../components/AboutCard.js';
import { Button } from '../components/Button.js';
import { InsertSettingsCard } from '../components/InsertSettings.js';
import { TextOptionsCard } from '../components/TextOptions.js';
import { saveKeepMicArmed } from '../preferences.js';
import * as actions from '../store/actions.js';
import { saveSettings } from '../store/commands.js';
import { useApp } from '../store/hooks.js';
import { diff, fieldErrors, fieldOfServerError, fieldWarnings, rebaseDraft, validPart, type FieldId, type FieldMessages } from './settings/form-check.js';

/** The form's messages per field: errors (not saved) and warnings (saved, but check). */
const Messages = createContext<{ errors: FieldMessages; warnings: FieldMessages }>({ errors: {}, warnings: {} });

/** The ids an input is described by: its error or warning (first), then its hint. */
function describedBy(id: string, msgs: { errors: FieldMessages; warnings: FieldMessages }, hint: boolean): string | undefined {
  const ids = [];
  if (msgs.errors[id as FieldId]) ids.push(`${id}-error`);
  else if (msgs.warnings[id as FieldId]) ids.push(`${id}-warning`);
  if (hint) ids.push(`${id}-hint`);
  return ids.length ? ids.join(' ') : undefined;
}

function Field({ id, label, hint, children }: { id: string; label: string; hint?: string; children: ReactNode }) {
  const msgs = useContext(Messages);
  const error = msgs.errors[id as FieldId];
  const warning = msgs.warnings[id as FieldId];
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {error ? (
        <p className="field-error" id={`${id}-error`} data-testid={`${id}-error`}>
          {error}
        </p>
      ) : warning ? (
        <p className="field-warning" id={`${id}-warning`} data-testid={`${id}-warning`}>
          {warning}
        </p>
      ) : null}
      {hint ? (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}

function Toggle({ id, label, checked, onChange }: { id: string; label: string; checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <div className="toggle">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}

function NumberInput({ id, value, limit, step, onChange, hint = true }: {
  id: FieldId; value: number; limit: { min: number; max: number }; step: number; onChange: (v: number) => void; hint?: boolean;
}) {
  const msgs = useContext(Messages);
  return (
    <input
      id={id}
      type="number"
      value={Number.isFinite(value) ? value : ''}
      min={limit.min}
      max={limit.max}
      step={step}
      aria-invalid={msgs.errors[id] ? true : undefined}
      aria-describedby={describedBy(id, msgs, hint)}
      onChange={(e) => onChange(e.target.valueAsNumber)}
    />
  );
}

const FIELD_NAMES: Record<FieldId, string> = {
  'set-threads': 'CPU threads', 'set-idle-unload': 'Unload after idle', 'set-pause': 'Pause', 'set-maxseg': 'Longest segment',
  'set-partial': 'Partial text every', 'set-preroll': 'Pre-roll', 'set-vad': 'Speech threshold', 'set-keep-days': 'Delete entries older than',
  'set-max-entries': 'Keep at most', 'set-restore-delay': 'Clipboard restore delay', 'set-hotkey': 'Hotkey', 'set-mirror': 'Mirror endpoint',
  'set-replacements': 'Replacements',
  'set-hold-key': 'Hold key', 'set-tap-ms': 'Tap shorter than',
};

const HOTKEY_MODES: { value: Settings['hotkey']['mode']; label: string; hint: string }[] = [
  { value: 'toggle', label: 'Toggle', hint: 'press the hotkey above to start, again to stop' },
  { value: 'push-to-talk', label: 'Push-to-talk', hint: 'hold the key while you speak, release to finish' },
  { value: 'hybrid', label: 'Hybrid', hint: 'tap to start and tap again to stop, or hold to talk' },
];

/** Hotkey mode, the hold key, and the desktop app outside its window (tray, overlay, login, sounds). */
function HotkeyModeCard({ draft, desktop, update }: { draft: Settings; desktop: boolean; update: (next: Partial<Settings>) => void }) {
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

type Outcome = { kind: 'saved' | 'partial' | 'failed'; text: string } | null;

function cpuCount(): number | null {
  return typeof navigator !== 'undefined' && navigator.hardwareConcurrency > 0 ? navigator.hardwareConcurrency : null;
}

export function SettingsView() {
  const values = useApp((s) => s.settings.values);
  const saving = useApp((s) => s.settings.saving);
  const devices = useApp((s) => s.devices.state?.devices ?? null);
  const armed = useApp((s) => s.session.armed);
  const app = useApp((s) => s.engine.app);
  const [draft, setDraft] = useState<Settings | null>(values);
  const [inputs, setInputs] = useState<{ deviceId: string; label: string }[]>([]);
  /** main's refusals by field, until that field is edited again. */
  const [refused, setRefused] = useState<FieldMessages>({});
  const [outcome, setOutcome] = useState<Outcome>(null);
  const previous = useRef<Settings | null>(values);

  useEffect(() => {
    const before = previous.current;
    previous.current = values;
    setDraft((d) => (values && d && before ? rebaseDraft(before, values, d) : values));
  }, [values]);
  useEffect(() => {
    listInputs().then(setInputs, () => setInputs([]));
  }, []);

  if (!values || !draft) return <p className="muted">Reading settings…</p>;
  const update = (next: Partial<Settings>) => {
    setDraft({ ...draft, ...next });
    setOutcome(null);
    if (Object.keys(refused).length) setRefused({});
  };
  const audio = (next: Partial<Settings['audio']>) => update({ audio: { ...draft.audio, ...next } });
  const dict = (next: Partial<Settings['dictation']>) => update({ dictation: { ...draft.dictation, ...next } });
  const hist = (next: Partial<Settings['history']>) => update({ history: { ...draft.history, ...next } });
  const own = fieldErrors(draft);
  const errors: FieldMessages = { ...refused, ...own };
  const warnings = fieldWarnings(draft, { cpus: cpuCount() });
  // What a save sends: every changed field that passes its check (an emptied number field is an error).
  const patch = diff(values, validPart(values, draft, errors));
  const unsaved = Object.keys(diff(values, draft)).length > 0;
  const canSave = Object.keys(patch).length > 0;
  const held = (Object.keys(errors) as FieldId[]).filter((id) => id in own || id in refused);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!canSave || saving) return;
    const result = await saveSettings(patch);
    if (result.ok) {
      setOutcome(held.length
        ? { kind: 'partial', text: `Saved the other changes. Not saved: ${held.map((id) => FIELD_NAMES[id]).join(', ')}; see the message next to ${held.length === 1 ? 'it' : 'each'}.` }
        : { kind: 'saved', text: 'Saved.' });
      return;
    }
    const field = fieldOfServerError(result.error.message);
    const reason = result.error.message.replace(/^settings:set:\s*/, '').replace(/payload\.[\w.]+:\s*/, '');
    if (field) {
      setRefused({ [field]: `Not saved: the app refused this value (${reason}).` });
      setOutcome({ kind: 'failed', text: `Nothing was saved: ${FIELD_NAMES[field]} was refused; see the message next to it. Your edits are still here.` });
    } else {
      setOutcome({ kind: 'failed', text: `Nothing was saved: ${reason} Your edits are still here.` });
    }
  };

  return (
    <section className="view view-settings" aria-labelledby="settings-title">
      <header className="view-header">
        <h2 id="settings-title">Settings</h2>
      </header>
      <Messages.Provider value={{ errors, warnings }}>
      <form className="settings-form" onSubmit={(e) => void submit(e)} noValidate>
        <fieldset className="card">
          <legend>Engine</legend>
          <Field id="set-device" label="Compute device" hint="Auto picks the first GPU, else the CPU.">
            <select id="set-device" value={draft.device} onChange={(e) => update({ device: e.target.value })}>
              <option value="auto">Auto</option>
              {(devices ?? []).map((d) => (
                <option key={d.name} value={d.name}>
                  {d.name} — {d.description}
                </option>
              ))}
            </select>
          </Field>
          <Field id="set-threads" label="CPU threads" hint="0 uses every hardware thread.">
            <NumberInput id="set-threads" value={draft.threads} limit={SETTINGS_LIMITS.threads} step={1} onChange={(v) => update({ threads: v })} />
          </Field>
          <Field id="set-decoder" label="Decoder" hint="Auto uses the model's own (TDT for hybrid models).">
            <select id="set-decoder" value={draft.decoder} onChange={(e) => update({ decoder: e.target.value as Settings['decoder'] })}>
              <option value="auto">Auto</option>
              <option value="tdt">TDT</option>
              <option value="rnnt">RNN-T</option>
              <option value="ctc">CTC</option>
            </select>
          </Field>
          <Field id="set-weights" label="Weight layout" hint="Auto keeps the file's types; others convert at load time.">
            <select id="set-weights" value={draft.weightType} onChange={(e) => update({ weightType: e.target.value as Settings['weightType'] })}>
              {['auto', 'f32', 'f16', 'bf16', 'q8_0', 'q4_0', 'int8'].map((w) => (
                <option key={w} value={w}>
                  {w === 'auto' ? 'Auto' : w === 'int8' ? 'INT8 per channel (fastest with AVX512-VNNI, lossy)' : w.toUpperCase()}
                </option>
              ))}
            </select>
          </Field>
          <Field
            id="set-idle-unload"
            label="Unload the model after idle (minutes)"
            hint="Frees the engine's memory (GPU memory on a GPU) when nothing was transcribed for this long; the next dictation or file reloads it first, without losing audio. 0 keeps it loaded."
          >
            <NumberInput
              id="set-idle-unload"
              value={draft.idleUnloadMinutes}
              limit={SETTINGS_LIMITS.idleUnloadMinutes}
              step={1}
              onChange={(v) => update({ idleUnloadMinutes: v })}
            />
          </Field>
          <Field id="set-engine-mode" label="Engine mode" hint="Separate process: a crash in the engine cannot take the app down.">
            <select id="set-engine-mode" value={draft.engineMode} onChange={(e) => update({ engineMode: e.target.value as Settings['engineMode'] })}>
              <option value="process">Separate process (recommended)</option>
              <option value="inline">In the main process</option>
            </select>
          </Field>
        </fieldset>

        <fieldset className="card">
          <legend>Microphone</legend>
          <Field id="set-input" label="Input device">
            <select
              id="set-input"
              value={draft.audio.inputDeviceId ?? ''}
              onChange={(e) => audio({ inputDeviceId: e.target.value || null })}
            >
              <option value="">System default</option>
              {inputs.map((i) => (
                <option key={i.deviceId} value={i.deviceId}>
                  {i.label}
                </option>
              ))}
            </select>
          </Field>
          <p className="field-hint">Browser audio processing is off by default: it changes what the recogniser hears.</p>
          <Toggle id="set-ec" label="Echo cancellation" checked={draft.audio.echoCancellation} onChange={(v) => audio({ echoCancellation: v })} />
          <Toggle id="set-ns" label="Noise suppression" checked={draft.audio.noiseSuppression} onChange={(v) => audio({ noiseSuppression: v })} />
          <Toggle id="set-agc" label="Automatic gain" checked={draft.audio.autoGainControl} onChange={(v) => audio({ autoGainControl: v })} />
          <Toggle
            id="set-armed"
            label="Keep the microphone open on the Dictate view (pre-roll before Start)"
            checked={armed}
            onChange={(v) => {
              saveKeepMicArmed(v);
              actions.setArmed(v);
            }}
          />
        </fieldset>

        <fieldset className="card">
          <legend>Dictation segments (voice activity)</legend>
          <Field id="set-pause" label="Pause that ends a sentence (ms)" hint="Shorter: text settles sooner; longer: fewer cuts mid-sentence.">
            <NumberInput id="set-pause" value={draft.dictation.pauseMs} limit={SETTINGS_LIMITS.pauseMs} step={50} onChange={(v) => dict({ pauseMs: v })} />
          </Field>
          <Field id="set-maxseg" label="Longest segment (s)" hint="Longer speech is cut at its quietest point.">
            <NumberInput id="set-maxseg" value={draft.dictation.maxSegmentSec} limit={SETTINGS_LIMITS.maxSegmentSec} step={1} onChange={(v) => dict({ maxSegmentSec: v })} />
          </Field>
          <Field id="set-partial" label="Partial text every (ms)">
            <NumberInput id="set-partial" hint={false} value={draft.dictation.partialIntervalMs} limit={SETTINGS_LIMITS.partialIntervalMs} step={50} onChange={(v) => dict({ partialIntervalMs: v })} />
          </Field>
          <Field id="set-preroll" label="Pre-roll (ms)" hint="Audio kept from before speech starts, so the first word is not cut.">
            <NumberInput id="set-preroll" value={draft.dictation.preRollMs} limit={SETTINGS_LIMITS.preRollMs} step={50} onChange={(v) => dict({ preRollMs: v })} />
          </Field>
          <Field id="set-vad" label="Speech threshold above noise (dB)">
            <NumberInput id="set-vad" hint={false} value={draft.dictation.vadThresholdDb} limit={SETTINGS_LIMITS.vadThresholdDb} step={0.5} onChange={(v) => dict({ vadThresholdDb: v })} />
          </Field>
        </fieldset>

        <fieldset className="card">
          <legend>History</legend>
          <Toggle
            id="set-history"
            label="Keep a history of dictations and file transcripts"
            checked={draft.history.enabled}
            onChange={(v) => hist({ enabled: v })}
          />
          <p className="field-hint">
            Saved on this machine only{app ? ` (${app.userDataDir}/history)` : ''}. Off: nothing new is recorded; what is
            there stays until you delete it in History.
          </p>
          <Field id="set-keep-days" label="Delete entries older than (days)" hint="0 keeps them forever.">
            <NumberInput id="set-keep-days" value={draft.history.keepDays} limit={SETTINGS_LIMITS.keepDays} step={1} onChange={(v) => hist({ keepDays: v })} />
          </Field>
          <Field id="set-max-entries" label="Keep at most (entries)" hint="The oldest are deleted first, when you save and after each new entry.">
            <NumberInput id="set-max-entries" value={draft.history.maxEntries} limit={SETTINGS_LIMITS.maxEntries} step={1} onChange={(v) => hist({ maxEntries: v })} />
          </Field>
        </fieldset>

        <InsertSettingsCard
          insert={draft.insert}
          hotkey={draft.hotkey}
          desktop={app?.mode === 'electron'}
          onInsert={(next) => update({ insert: { ...draft.insert, ...next } })}
          onHotkey={(next) => update({ hotkey: { ...draft.hotkey, ...next } })}
        />
        <HotkeyModeCard draft={draft} desktop={app?.mode === 'electron'} update={update} />

        <TextOptionsCard
          text={draft.text}
          error={errors['set-replacements'] ?? null}
          onText={(next) => update({ text: { ...draft.text, ...next } })}
        />

        <fieldset className="card">
          <legend>Downloads</legend>
          <Field id="set-mirror" label="Mirror endpoint (https)" hint="Empty: huggingface.co. A mirror serves the same /<repo>/resolve/<rev>/<file> paths.">
            <input
              id="set-mirror"
              type="url"
              spellCheck={false}
              aria-invalid={errors['set-mirror'] ? true : undefined}
              aria-describedby={describedBy('set-mirror', { errors, warnings }, true)}
              value={draft.mirrorEndpoint ?? ''}
              placeholder="https://hf-mirror.example.org"
              onChange={(e) => update({ mirrorEndpoint: e.target.value.trim() || null })}
            />
          </Field>
        </fieldset>

        <div className="settings-actions">
          <Button type="submit" variant="primary" disabled={!canSave || saving}>
            {saving ? 'Saving…' : 'Save settings'}
          </Button>
          <Button variant="quiet" disabled={!unsaved || saving} onClick={() => {
            setDraft(values);
            setRefused({});
            setOutcome(null);
          }}>
            Revert
          </Button>
          <p className={`save-outcome save-${outcome?.kind ?? 'none'}`} role="status" data-testid="save-outcome">
            {outcome ? outcome.text : unsaved ? 'Unsaved changes.' : ''}
          </p>
        </div>
      </form>
      </Messages.Provider>
      <AboutCard />
    </section>
  );
}
