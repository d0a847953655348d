// Settings › Speakers: the Sortformer diarizer that tells the people on a meeting's "Others" track apart.
import { useContext } from 'react';
import { describedBy, Field, Messages, type SectionProps } from './fields.js';

export function SpeakersSection({ draft, update }: SectionProps) {
  const msgs = useContext(Messages);
  return (
    <fieldset className="card">
      <legend>Speakers</legend>
      <Field
        id="set-diarizer"
        label="Speaker model (Sortformer GGUF, full path)"
        hint={'Empty: the computer\'s audio is one speaker, "Others". With a Streaming Sortformer model (parakeet.arch = diarization), ' +
          'a meeting labels up to 4 people there ("Speaker 1" …) as it records, and checks every word again when it stops; rename them in History.'}
      >
        <input
          id="set-diarizer"
          type="text"
          spellCheck={false}
          aria-describedby={describedBy('set-diarizer', msgs, true)}
          value={draft.diarizerPath ?? ''}
          placeholder="/path/to/diar_streaming_sortformer_4spk-v2.gguf"
          onChange={(e) => update({ diarizerPath: e.target.value.trim() || null })}
        />
      </Field>
    </fieldset>
  );
}
