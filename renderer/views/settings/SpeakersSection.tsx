// Settings › Speakers: the Sortformer diarizer that tells the people on a meeting's "Others" track apart.
// The model file is chosen as the app's other model files are: Electron opens the native .gguf dialog
// (models:pickFile, as Models › Open a model file does); web mode cannot hand out paths, so the path is typed.
import { useContext } from 'react';
import { Button } from '../../components/Button.js';
import { pickModelFile } from '../../store/commands.js';
import { useApp } from '../../store/hooks.js';
import { describedBy, Field, Messages, Toggle, type SectionProps } from './fields.js';

export function SpeakersSection({ draft, update }: SectionProps) {
  const msgs = useContext(Messages);
  const mode = useApp((s) => s.engine.mode ?? s.engine.app?.mode ?? 'web');
  return (
    <fieldset className="card">
      <legend>Speakers</legend>
      <Field
        id="set-diarizer"
        label="Speaker model (Sortformer GGUF, full path)"
        hint={'Empty: the computer\'s audio is one speaker, "Others". With a Streaming Sortformer model (parakeet.arch = diarization), ' +
          'a meeting labels up to 4 people there ("Speaker 1" …) as it records, and checks every word again when it stops; rename them in History.'}
      >
        <div className="inline-form-row">
          <input
            id="set-diarizer"
            type="text"
            spellCheck={false}
            aria-describedby={describedBy('set-diarizer', msgs, true)}
            value={draft.diarizerPath ?? ''}
            placeholder="/path/to/diar_streaming_sortformer_4spk-v2.gguf"
            onChange={(e) => update({ diarizerPath: e.target.value.trim() || null })}
          />
          {mode === 'electron' ? (
            <Button
              onClick={async () => {
                const picked = await pickModelFile('diarizer');
                if (picked) update({ diarizerPath: picked });
              }}
            >
              Choose…
            </Button>
          ) : null}
          {draft.diarizerPath ? (
            <Button variant="quiet" onClick={() => update({ diarizerPath: null })}>
              No speaker model
            </Button>
          ) : null}
        </div>
      </Field>
      <Toggle
        id="set-diarize-mic"
        label='Tell apart the people on the microphone too (an in-room meeting): "Room 1" … instead of "You"'
        checked={draft.diarizeMicrophone}
        onChange={(v) => update({ diarizeMicrophone: v })}
      />
    </fieldset>
  );
}
