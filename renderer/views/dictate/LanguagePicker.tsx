// Dictate › the language of a multilingual streaming model (Nemotron-3.5): 'Auto' or one of its locales,
// saved as settings.streaming.language and used from the next dictation on. Hidden for other models.
import { useId, useState } from 'react';
import { saveSettings } from '../../store/commands.js';
import { useApp } from '../../store/hooks.js';

export function LanguagePicker() {
  const languages = useApp((s) => s.engine.status?.model?.live?.languages ?? null);
  const saved = useApp((s) => s.settings.values?.streaming.language ?? 'auto');
  const phase = useApp((s) => s.session.phase);
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  if (!languages || languages.length === 0) return null;
  return (
    <div className="language-picker">
      <label htmlFor={id}>Language</label>
      <select
        id={id}
        data-testid="dictate-language"
        value={saved}
        aria-describedby={`${id}-hint`}
        onChange={(e) => {
          setError(null);
          void saveSettings({ streaming: { language: e.target.value } }).then((r) => setError(r.ok ? null : r.error.message));
        }}
      >
        <option value="auto">Auto (detect)</option>
        {languages.map((l) => <option key={l} value={l}>{l}</option>)}
      </select>
      <span className="hint" id={`${id}-hint`}>
        {error ?? (phase === 'live' ? 'Applies from the next dictation.' : 'The detected language is shown with each sentence.')}
      </span>
    </div>
  );
}
