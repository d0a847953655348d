// Correcting one line: Edit turns it into a text box (focused) with Save and
// Cancel; Esc cancels, Ctrl+Enter saves. The correction is saved in the
// entry (history:editSegment); the words that did not change keep their times.
import { useState, type KeyboardEvent } from 'react';
import { Button } from '../../components/Button.js';
import { formatTimestamp } from '../../format.js';
import { editHistorySegment } from '../../store/commands.js';

interface Props {
  entryId: string;
  segmentId: number;
  start: number;
  text: string;
  onDone(): void;
}

export function SegmentEditor({ entryId, segmentId, start, text, onDone }: Props) {
  const [draft, setDraft] = useState(text);
  const [busy, setBusy] = useState(false);
  const save = async (): Promise<void> => {
    setBusy(true);
    const saved = await editHistorySegment(entryId, segmentId, draft);
    setBusy(false);
    if (saved) onDone();
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onDone();
    } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void save();
    }
  };
  return (
    <span className="segment-editor" onKeyDown={onKey}>
      <textarea
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        aria-label={`Text of the line at ${formatTimestamp(start)}`}
        rows={Math.min(6, Math.max(2, Math.ceil(draft.length / 70)))}
        autoFocus
        disabled={busy}
        data-testid="history-segment-input"
      />
      <span className="row-actions">
        <Button variant="primary" onClick={() => void save()} disabled={busy} data-testid="history-segment-save">
          {busy ? 'Saving…' : 'Save'}
        </Button>
        <Button variant="quiet" onClick={onDone} disabled={busy}>
          Cancel
        </Button>
      </span>
    </span>
  );
}
