// A meeting entry: transcribe it again from its audio with the model now loaded (and the decoder in
// Settings), at the same cut points; the entry's lines are replaced and the view reads it again
// (history:changed). Lines the user corrected are replaced too, so then it asks first, saying how many.
// The outcome shows next to the button.
import { useState } from 'react';
import type { HistoryEntry } from '../../../app/ipc/contract.js';
import { Button } from '../../components/Button.js';
import { ConfirmButton } from '../../components/ConfirmButton.js';
import { api } from '../../store/api.js';

export function RetranscribeButton({ e }: { e: HistoryEntry }) {
  const [state, setState] = useState<{ busy: boolean; said: string | null }>({ busy: false, said: null });
  if (e.kind !== 'meeting') return null;
  const run = async (): Promise<void> => {
    setState({ busy: true, said: null });
    const r = await api().invoke('meeting:retranscribe', { entryId: e.id });
    setState({ busy: false, said: r.ok ? `Transcribed again: ${r.value.segments.filter((s) => s.text).length} lines.` : r.error.message });
  };
  const edited = e.segments.filter((s) => s.edited).length;
  const label = state.busy ? 'Transcribing…' : 'Transcribe again';
  return (
    <span className="row-actions">
      {edited > 0 ? (
        <ConfirmButton
          label={label}
          question={`Transcribe again? Your corrections of ${edited === 1 ? '1 line' : `${edited} lines`} are replaced by what the model hears.`}
          confirmLabel="Replace my corrections"
          onConfirm={run}
          disabled={state.busy || e.live}
          testId="history-retranscribe"
        />
      ) : (
        <Button disabled={state.busy || e.live} onClick={() => void run()} data-testid="history-retranscribe">
          {label}
        </Button>
      )}
      {state.said ? <span role="status">{state.said}</span> : null}
    </span>
  );
}
