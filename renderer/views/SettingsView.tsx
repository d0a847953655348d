// Settings: engine (device, threads, decoder, weights, engine mode), audio
// capture (processing toggles, input, pre-roll), dictation segmentation (VAD),
// history (on/off, retention), inserting into other apps and the hotkey, and the download mirror: one
// section component each (views/settings/). Edits are
// collected in a draft and saved together. Each field is checked as it is typed (settings/form-check.ts):
// an error sits next to its field, in words, and that field is not sent; every valid edit is saved; a
// field main refuses gets main's reason next to it; the outcome of a save sits next to the Save button.
// New saved values (a save, another window) never overwrite an edit that is not saved yet.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { Settings } from '../../app/ipc/contract.js';
import { AboutCard } from '../components/AboutCard.js';
import { InsertSettingsCard } from '../components/InsertSettings.js';
import { TextOptionsCard } from '../components/TextOptions.js';
import { VocabularyCard } from '../components/VocabularyCard.js';
import { saveSettings } from '../store/commands.js';
import { useApp } from '../store/hooks.js';
import { DictationSection } from './settings/DictationSection.js';
import { StreamingSection } from './settings/StreamingSection.js';
import { DownloadsSection } from './settings/DownloadsSection.js';
import { SpeakersSection } from './settings/SpeakersSection.js';
import { EngineSection } from './settings/EngineSection.js';
import { Messages } from './settings/fields.js';
import { diff, fieldErrors, fieldWarnings, rebaseDraft, validPart, type FieldId, type FieldMessages } from './settings/form-check.js';
import { HistorySection } from './settings/HistorySection.js';
import { HotkeyModeSection } from './settings/HotkeyModeSection.js';
import { MicrophoneSection } from './settings/MicrophoneSection.js';
import { SaveBar } from './settings/SaveBar.js';
import { saveOutcome, type Outcome } from './settings/save-outcome.js';

function cpuCount(): number | null {
  return typeof navigator !== 'undefined' && navigator.hardwareConcurrency > 0 ? navigator.hardwareConcurrency : null;
}

export function SettingsView() {
  const values = useApp((s) => s.settings.values);
  const saving = useApp((s) => s.settings.saving);
  const app = useApp((s) => s.engine.app);
  const [draft, setDraft] = useState<Settings | null>(values);
  /** main's refusals by field, until that field is edited again. */
  const [refused, setRefused] = useState<FieldMessages>({});
  const [outcome, setOutcome] = useState<Outcome>(null);
  const previous = useRef<Settings | null>(values);

  useEffect(() => {
    const before = previous.current;
    previous.current = values;
    setDraft((d) => (values && d && before ? rebaseDraft(before, values, d) : values));
  }, [values]);

  if (!values || !draft) return <p className="muted">Reading settings…</p>;
  const update = (next: Partial<Settings>) => {
    setDraft({ ...draft, ...next });
    setOutcome(null);
    if (Object.keys(refused).length) setRefused({});
  };
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
    const next = saveOutcome(await saveSettings(patch), held);
    if (next.refused) setRefused(next.refused);
    setOutcome(next.outcome);
  };
  const section = { draft, update };

  return (
    <section className="view view-settings" aria-labelledby="settings-title">
      <header className="view-header">
        <h2 id="settings-title">Settings</h2>
      </header>
      <Messages.Provider value={{ errors, warnings }}>
      <form className="settings-form" onSubmit={(e) => void submit(e)} noValidate>
        <EngineSection {...section} />
        <MicrophoneSection {...section} />
        <DictationSection {...section} />
        <StreamingSection {...section} />
        <HistorySection {...section} />
        <InsertSettingsCard
          insert={draft.insert}
          hotkey={draft.hotkey}
          desktop={app?.mode === 'electron'}
          onInsert={(next) => update({ insert: { ...draft.insert, ...next } })}
          onHotkey={(next) => update({ hotkey: { ...draft.hotkey, ...next } })}
        />
        <HotkeyModeSection {...section} desktop={app?.mode === 'electron'} />
        <TextOptionsCard
          text={draft.text}
          error={errors['set-replacements'] ?? null}
          onText={(next) => update({ text: { ...draft.text, ...next } })}
        />
        <VocabularyCard text={draft.text} onText={(next) => update({ text: { ...draft.text, ...next } })} />
        <SpeakersSection {...section} />
        <DownloadsSection {...section} />

        <SaveBar
          canSave={canSave}
          saving={saving}
          unsaved={unsaved}
          outcome={outcome}
          held={held}
          onRevert={() => {
            setDraft(values);
            setRefused({});
            setOutcome(null);
          }}
        />
      </form>
      </Messages.Provider>
      <AboutCard />
    </section>
  );
}
