// Settings: engine (device, threads, decoder, weights, engine mode), audio
// capture (processing toggles, input, pre-roll), dictation segmentation (VAD),
// history (on/off, retention), inserting into other apps and the hotkey, and the download mirror. Edits are collected in a draft and saved together.
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { checkAccelerator } from '../../app/ipc/accelerator.js';
import type { Settings, SettingsPatch } from '../../app/ipc/contract.js';
import { SETTINGS_LIMITS } from '../../app/ipc/settings.js';
import { listInputs } from '../audio/mic.js';
import { AboutCard } from '../components/AboutCard.js';
import { Button } from '../components/Button.js';
import { InsertSettingsCard } from '../components/InsertSettings.js';
import { saveKeepMicArmed } from '../preferences.js';
import * as actions from '../store/actions.js';
import { saveSettings } from '../store/commands.js';
import { useApp } from '../store/hooks.js';

function Field({ id, label, hint, children }: { id: string; label: string; hint?: string; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
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

function NumberInput({ id, value, min, max, step, onChange }: {
  id: string; value: number; min: number; max: number; step: number; onChange: (v: number) => void;
}) {
  return (
    <input
      id={id}
      type="number"
      value={Number.isFinite(value) ? value : ''}
      min={min}
      max={max}
      step={step}
      aria-describedby={`${id}-hint`}
      onChange={(e) => onChange(e.target.valueAsNumber)}
    />
  );
}

/** Only what changed, so a save never overwrites a value changed elsewhere meanwhile. */
function diff(base: Settings, draft: Settings): SettingsPatch {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(draft) as (keyof Settings)[]) {
    const a = base[key];
    const b = draft[key];
    if (b !== null && typeof b === 'object' && a !== null && typeof a === 'object') {
      const sub: Record<string, unknown> = {};
      for (const k of Object.keys(b)) {
        if ((a as unknown as Record<string, unknown>)[k] !== (b as unknown as Record<string, unknown>)[k]) {
          sub[k] = (b as unknown as Record<string, unknown>)[k];
        }
      }
      if (Object.keys(sub).length) patch[key] = sub;
    } else if (a !== b) patch[key] = b;
  }
  return patch as SettingsPatch;
}

export function SettingsView() {
  const values = useApp((s) => s.settings.values);
  const saving = useApp((s) => s.settings.saving);
  const devices = useApp((s) => s.devices.state?.devices ?? null);
  const armed = useApp((s) => s.session.armed);
  const app = useApp((s) => s.engine.app);
  const [draft, setDraft] = useState<Settings | null>(values);
  const [inputs, setInputs] = useState<{ deviceId: string; label: string }[]>([]);

  useEffect(() => setDraft(values), [values]);
  useEffect(() => {
    listInputs().then(setInputs, () => setInputs([]));
  }, []);

  if (!values || !draft) return <p className="muted">Reading settings…</p>;
  const update = (next: Partial<Settings>) => setDraft({ ...draft, ...next });
  const audio = (next: Partial<Settings['audio']>) => update({ audio: { ...draft.audio, ...next } });
  const dict = (next: Partial<Settings['dictation']>) => update({ dictation: { ...draft.dictation, ...next } });
  const hist = (next: Partial<Settings['history']>) => update({ history: { ...draft.history, ...next } });
  const patch = diff(values, draft);
  // An emptied number field is NaN: nothing to save until it holds a number again.
  const numbersValid = [draft.threads, draft.idleUnloadMinutes, draft.history.keepDays, draft.history.maxEntries, ...Object.values(draft.dictation)].every((n) =>
    Number.isFinite(n));
  const dirty = Object.keys(patch).length > 0 && numbersValid && checkAccelerator(draft.hotkey.toggle).ok;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (dirty) void saveSettings(patch);
  };

  return (
    <section className="view view-settings" aria-labelledby="settings-title">
      <header className="view-header">
        <h2 id="settings-title">Settings</h2>
      </header>
      <form className="settings-form" onSubmit={submit}>
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
            <NumberInput id="set-threads" value={draft.threads} min={0} max={256} step={1} onChange={(v) => update({ threads: v })} />
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
              {['auto', 'f32', 'f16', 'bf16', 'q8_0', 'q4_0'].map((w) => (
                <option key={w} value={w}>
                  {w === 'auto' ? 'Auto' : w.toUpperCase()}
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
              min={SETTINGS_LIMITS.idleUnloadMinutes.min}
              max={SETTINGS_LIMITS.idleUnloadMinutes.max}
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
            <NumberInput id="set-pause" value={draft.dictation.pauseMs} min={100} max={5000} step={50} onChange={(v) => dict({ pauseMs: v })} />
          </Field>
          <Field id="set-maxseg" label="Longest segment (s)" hint="Longer speech is cut at its quietest point.">
            <NumberInput id="set-maxseg" value={draft.dictation.maxSegmentSec} min={2} max={120} step={1} onChange={(v) => dict({ maxSegmentSec: v })} />
          </Field>
          <Field id="set-partial" label="Partial text every (ms)">
            <NumberInput id="set-partial" value={draft.dictation.partialIntervalMs} min={100} max={5000} step={50} onChange={(v) => dict({ partialIntervalMs: v })} />
          </Field>
          <Field id="set-preroll" label="Pre-roll (ms)" hint="Audio kept from before speech starts, so the first word is not cut.">
            <NumberInput id="set-preroll" value={draft.dictation.preRollMs} min={0} max={5000} step={50} onChange={(v) => dict({ preRollMs: v })} />
          </Field>
          <Field id="set-vad" label="Speech threshold above noise (dB)">
            <NumberInput id="set-vad" value={draft.dictation.vadThresholdDb} min={0} max={40} step={0.5} onChange={(v) => dict({ vadThresholdDb: v })} />
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
            <NumberInput id="set-keep-days" value={draft.history.keepDays} min={0} max={36500} step={1} onChange={(v) => hist({ keepDays: v })} />
          </Field>
          <Field id="set-max-entries" label="Keep at most (entries)" hint="The oldest are deleted first, when you save and after each new entry.">
            <NumberInput id="set-max-entries" value={draft.history.maxEntries} min={1} max={100000} step={1} onChange={(v) => hist({ maxEntries: v })} />
          </Field>
        </fieldset>

        <InsertSettingsCard
          insert={draft.insert}
          hotkey={draft.hotkey}
          desktop={app?.mode === 'electron'}
          onInsert={(next) => update({ insert: { ...draft.insert, ...next } })}
          onHotkey={(next) => update({ hotkey: { ...draft.hotkey, ...next } })}
        />

        <fieldset className="card">
          <legend>Downloads</legend>
          <Field id="set-mirror" label="Mirror endpoint (https)" hint="Empty: huggingface.co. A mirror serves the same /<repo>/resolve/<rev>/<file> paths.">
            <input
              id="set-mirror"
              type="url"
              spellCheck={false}
              value={draft.mirrorEndpoint ?? ''}
              placeholder="https://hf-mirror.example.org"
              onChange={(e) => update({ mirrorEndpoint: e.target.value.trim() || null })}
            />
          </Field>
        </fieldset>

        <div className="settings-actions">
          <Button type="submit" variant="primary" disabled={!dirty || saving}>
            {saving ? 'Saving…' : 'Save settings'}
          </Button>
          <Button variant="quiet" disabled={!dirty || saving} onClick={() => setDraft(values)}>
            Revert
          </Button>
        </div>
      </form>
      <AboutCard />
    </section>
  );
}
