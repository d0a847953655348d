// Settings › Dictation segments: the voice-activity settings that cut speech into segments.
import type { Settings } from '../../../app/ipc/contract.js';
import { SETTINGS_LIMITS } from '../../../app/ipc/settings.js';
import { Field, NumberInput, type SectionProps } from './fields.js';

export function DictationSection({ draft, update }: SectionProps) {
  const dict = (next: Partial<Settings['dictation']>) => update({ dictation: { ...draft.dictation, ...next } });
  return (
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
      <Field id="set-vad-model" label="Voice activity detector" hint="Silero is a trained model bundled with the app: noise, hum and clicks are not speech to it. The energy detector is used when Silero cannot run.">
        <select id="set-vad-model" value={draft.dictation.vadModel} onChange={(e) => dict({ vadModel: e.target.value as Settings['dictation']['vadModel'] })}>
          <option value="silero">Silero VAD (bundled)</option>
          <option value="energy">Energy threshold</option>
        </select>
      </Field>
      {draft.dictation.vadModel === 'silero' ? (
        <>
          <Field id="set-vad-threshold" label="Speech probability threshold" hint="A 32 ms chunk is speech at this probability and above.">
            <NumberInput id="set-vad-threshold" value={draft.dictation.vadSpeechThreshold} limit={SETTINGS_LIMITS.vadSpeechThreshold} step={0.05} onChange={(v) => dict({ vadSpeechThreshold: v })} />
          </Field>
          <Field id="set-vad-min-speech" label="Shortest speech (ms)" hint="Shorter sounds are not transcribed, live or in files.">
            <NumberInput id="set-vad-min-speech" value={draft.dictation.vadMinSpeechMs} limit={SETTINGS_LIMITS.vadMinSpeechMs} step={10} onChange={(v) => dict({ vadMinSpeechMs: v })} />
          </Field>
          <Field id="set-vad-min-silence" label="Shortest pause between file segments (ms)" hint="Files are cut at pauses this long; silence is skipped. Shorter pauses inside speech count toward the shortest speech, live as in files.">
            <NumberInput id="set-vad-min-silence" value={draft.dictation.vadMinSilenceMs} limit={SETTINGS_LIMITS.vadMinSilenceMs} step={50} onChange={(v) => dict({ vadMinSilenceMs: v })} />
          </Field>
          <Field id="set-vad-speech-pad" label="Padding around speech (ms)" hint="Audio kept before each speech segment (and after it, in files); the pre-roll is the energy threshold's.">
            <NumberInput id="set-vad-speech-pad" value={draft.dictation.vadSpeechPadMs} limit={SETTINGS_LIMITS.vadSpeechPadMs} step={10} onChange={(v) => dict({ vadSpeechPadMs: v })} />
          </Field>
          <Field id="set-vad-edge-trim" label="Trim segment edges (ms)" hint="Files: taken off both ends of each speech segment before it is transcribed; 0 = off.">
            <NumberInput id="set-vad-edge-trim" value={draft.dictation.vadEdgeTrimMs} limit={SETTINGS_LIMITS.vadEdgeTrimMs} step={10} onChange={(v) => dict({ vadEdgeTrimMs: v })} />
          </Field>
        </>
      ) : null}
      {/* Not Silero's: the floor applies to dictation, meetings and files whichever detector cuts them (silence-guards.ts). */}
      <Field id="set-min-word-confidence" label="Lowest word confidence" hint="Words the model is less sure of are dropped from dictation, meetings and files, whichever detector is chosen; 0 = off.">
        <NumberInput id="set-min-word-confidence" value={draft.dictation.minWordConfidence} limit={SETTINGS_LIMITS.minWordConfidence} step={0.05} onChange={(v) => dict({ minWordConfidence: v })} />
      </Field>
      <Field id="set-vad" label="Energy: speech threshold above noise (dB)">
        <NumberInput id="set-vad" hint={false} value={draft.dictation.vadThresholdDb} limit={SETTINGS_LIMITS.vadThresholdDb} step={0.5} onChange={(v) => dict({ vadThresholdDb: v })} />
      </Field>
    </fieldset>
  );
}
