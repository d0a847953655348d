// Settings › Downloads: the Hugging Face mirror.
import { useContext } from 'react';
import { describedBy, Field, Messages, type SectionProps } from './fields.js';

export function DownloadsSection({ draft, update }: SectionProps) {
  const msgs = useContext(Messages);
  return (
    <fieldset className="card">
      <legend>Downloads</legend>
      <Field id="set-mirror" label="Mirror endpoint (https)" hint="Empty: huggingface.co. A mirror serves the same /<repo>/resolve/<rev>/<file> paths.">
        <input
          id="set-mirror"
          type="url"
          spellCheck={false}
          aria-invalid={msgs.errors['set-mirror'] ? true : undefined}
          aria-describedby={describedBy('set-mirror', msgs, true)}
          value={draft.mirrorEndpoint ?? ''}
          placeholder="https://hf-mirror.example.org"
          onChange={(e) => update({ mirrorEndpoint: e.target.value.trim() || null })}
        />
      </Field>
    </fieldset>
  );
}
