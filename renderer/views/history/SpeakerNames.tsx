// A meeting's speakers by name, each renamable once for the whole meeting (history:renameSpeaker): every
// line, search, copy and export follow. A name another speaker already has merges the two.
import { useState } from 'react';
import type { HistoryEntry } from '../../../app/ipc/contract.js';
import { speakersOf } from '../../../app/shared/diarization.js';
import { Button } from '../../components/Button.js';
import { renameHistorySpeaker } from '../../store/commands.js';

function SpeakerRow({ entryId, name, others }: { entryId: string; name: string; others: readonly string[] }) {
  const [draft, setDraft] = useState(name);
  const [busy, setBusy] = useState(false);
  const target = draft.trim();
  const merges = others.includes(target);
  const save = async (): Promise<void> => {
    setBusy(true);
    await renameHistorySpeaker(entryId, name, target);
    setBusy(false);
  };
  return (
    <li className="speaker-row">
      <input value={draft} onChange={(ev) => setDraft(ev.target.value)} aria-label={`New name for ${name}`} maxLength={64} />
      <Button onClick={() => void save()} disabled={busy || !target || target === name} aria-label={merges ? `Merge ${name} into ${target}` : `Rename ${name} to ${target || '…'}`}>
        {merges ? 'Merge' : 'Rename'}
      </Button>
    </li>
  );
}

export function SpeakerNames({ e }: { e: HistoryEntry }) {
  const names = speakersOf(e.segments);
  if (names.length === 0) return null;
  return (
    <section aria-label="Speakers of this meeting">
      <h4>Speakers</h4>
      <ul className="speaker-names" data-testid="history-speakers">
        {names.map((name) => <SpeakerRow key={`${e.id}:${name}`} entryId={e.id} name={name} others={names.filter((n) => n !== name)} />)}
      </ul>
    </section>
  );
}
