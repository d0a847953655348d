// A meeting entry: transcribe it again from its audio with the model now loaded (and the decoder in
// Settings), at the same cut points; the entry's lines are replaced and the view reads it again
// (history:changed). The outcome shows next to the button.
import { useState } from 'react';
import type { HistoryEntry } from '../../../app/ipc/contract.js';
import { Button } from '../../components/Button.js';
import { api } from '../../store/api.js';

export function RetranscribeButton({ e }: { e: HistoryEntry }) {
  const [state, setState] = useState<{ busy: boolean; said: string | null }>({ busy: false, said: null });
  if (e.kind !== 'meeting') return null;
  return (
    <span className="row-actions">
      <Button
        disabled={state.busy || e.live}
        onClick={() => {
          setState({ busy: true, said: null });
          void api().invoke('meeting:retranscribe', { entryId: e.id }).then((r) => {
            setState({ busy: false, said: r.ok ? `Transcribed again: ${r.value.segments.filter((s) => s.text).length} lines.` : r.error.message });
          });
        }}
        data-testid="history-retranscribe"
      >
        {state.busy ? 'Transcribing…' : 'Transcribe again'}
      </Button>
      {state.said ? <span role="status">{state.said}</span> : null}
    </span>
  );
}
