// Settings › Microphone: input device, the browser's audio processing, keeping the microphone armed.
import { useEffect, useState } from 'react';
import type { Settings } from '../../../app/ipc/contract.js';
import { listInputs } from '../../audio/mic.js';
import { saveKeepMicArmed } from '../../preferences.js';
import * as actions from '../../store/actions.js';
import { useApp } from '../../store/hooks.js';
import { Field, Toggle, type SectionProps } from './fields.js';

export function MicrophoneSection({ draft, update }: SectionProps) {
  const armed = useApp((s) => s.session.armed);
  const [inputs, setInputs] = useState<{ deviceId: string; label: string }[]>([]);
  useEffect(() => {
    listInputs().then(setInputs, () => setInputs([]));
  }, []);
  const audio = (next: Partial<Settings['audio']>) => update({ audio: { ...draft.audio, ...next } });
  return (
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
  );
}
