// Settings › Engine: device, threads, decoder, weight layout, idle unload, engine mode.
import type { Settings } from '../../../app/ipc/contract.js';
import { SETTINGS_LIMITS, WEIGHT_TYPES } from '../../../app/ipc/settings.js';
import { useApp } from '../../store/hooks.js';
import { Field, NumberInput, type SectionProps } from './fields.js';

export function EngineSection({ draft, update }: SectionProps) {
  const devices = useApp((s) => s.devices.state?.devices ?? null);
  return (
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
          {WEIGHT_TYPES.map((w) => (
            <option key={w} value={w}>
              {w === 'auto' ? 'Auto' : w === 'int8' ? 'INT8 per channel (fastest with AVX512-VNNI, lossy)' : w === 'i16' ? 'I16 blocks (F32/F16 weights as 14-bit integers, AVX512-VNNI)' : w.toUpperCase()}
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
  );
}
