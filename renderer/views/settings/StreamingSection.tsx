// Settings › Live text on streaming models: the latency preset (how much audio each streaming step waits
// for, with its latency in figures: preset-latency.ts) and, for prompt models (Nemotron-3.5), the language.
// Offline models re-decode segments instead.
import type { ModelStreaming } from '../../../app/ipc/contract.js';
import { useApp } from '../../store/hooks.js';
import { Field, type SectionProps } from './fields.js';
import { presetChunkMs, presetLatencyText } from './preset-latency.js';

/** A preset in words: the audio a chunk waits for before its text can commit (NeMo's chunk = right + 1 frames). */
export function describePreset(preset: readonly [number, number], frameSec: number): string {
  return `${presetChunkMs(preset, frameSec)} ms chunks (${preset[0]} frames of left context, ${preset[1]} of look-ahead)`;
}

/** The chosen preset's latency: waiting for the chunk + the compute measured in the last dictation; accuracy said unmeasured. */
function PresetLatency({ live, preset }: { live: ModelStreaming; preset: string }) {
  const measured = useApp((s) => s.session.latency?.streamChunk);
  const chosen = preset === 'default' ? live.presets[0] : live.presets.find(([l, r]) => `${l},${r}` === preset);
  if (!chosen) return null;
  const text = presetLatencyText(presetChunkMs(chosen, live.frameSec), measured);
  return (
    <div className="field-hint" data-testid="stream-preset-latency" aria-live="polite">
      <p data-testid="stream-preset-latency-figures">{text.latency}</p>
      <p data-testid="stream-preset-latency-source">{text.source}</p>
      <p data-testid="stream-preset-accuracy">{text.accuracy}</p>
    </div>
  );
}

export function StreamingSection({ draft, update }: SectionProps) {
  const live: ModelStreaming | undefined = useApp((s) => s.engine.status?.model?.live);
  const set = (next: Partial<typeof draft.streaming>) => update({ streaming: { ...draft.streaming, ...next } });
  const presetKeys = live?.presets.map(([l, r]) => `${l},${r}`) ?? [];
  const savedPresetMissing = draft.streaming.preset !== 'default' && !presetKeys.includes(draft.streaming.preset);
  const languages = live?.languages ?? [];
  const savedLanguageMissing = draft.streaming.language !== 'auto' && !languages.includes(draft.streaming.language);
  return (
    <fieldset className="card">
      <legend>Live text on streaming models</legend>
      {live ? null : (
        <p className="field-hint" data-testid="streaming-offline-note">
          The loaded model is an offline model: live text re-decodes each segment. These choices apply when a streaming
          model (EOU-120M, Nemotron) is loaded.
        </p>
      )}
      <Field id="set-stream-preset" label="Latency preset" hint="Shorter chunks show text sooner; longer look-ahead is usually more accurate.">
        <select id="set-stream-preset" value={draft.streaming.preset} onChange={(e) => set({ preset: e.target.value })} aria-describedby="set-stream-preset-hint">
          <option value="default">Model default{live?.presets[0] ? `: ${describePreset(live.presets[0], live.frameSec)}` : ''}</option>
          {live?.presets.map((p, i) => (
            <option key={presetKeys[i]} value={presetKeys[i]}>{describePreset(p, live.frameSec)}</option>
          ))}
          {savedPresetMissing ? <option value={draft.streaming.preset}>{draft.streaming.preset} (not a preset of the loaded model)</option> : null}
        </select>
      </Field>
      {live ? <PresetLatency live={live} preset={draft.streaming.preset} /> : null}
      <Field id="set-stream-language" label="Language" hint={languages.length ? 'Auto detects it; the detected language is shown with each final.' : 'Only multilingual prompt models (Nemotron-3.5) take a language.'}>
        <select id="set-stream-language" value={draft.streaming.language} onChange={(e) => set({ language: e.target.value })} aria-describedby="set-stream-language-hint">
          <option value="auto">Auto</option>
          {languages.map((l) => <option key={l} value={l}>{l}</option>)}
          {savedLanguageMissing ? <option value={draft.streaming.language}>{draft.streaming.language} (not offered by the loaded model)</option> : null}
        </select>
      </Field>
    </fieldset>
  );
}
