// The opened entry in full: facts, the text (Copy), exports, Delete (asks
// first), and its segments with times (dictation, meeting: with the player
// and corrections, EntryTranscript) or words (file).
import type { HistoryEntry } from '../../../app/ipc/contract.js';
import { Button } from '../../components/Button.js';
import { ConfirmButton } from '../../components/ConfirmButton.js';
import { CopyButton } from '../../components/CopyButton.js';
import { ExportButtons } from '../../components/ExportButtons.js';
import { FactList, type Fact } from '../../components/FactList.js';
import { saveTextFile } from '../../download.js';
import { historyExportContent, historyExportName, meetingTranscript } from '../../export.js';
import { meetingExport } from '../../../app/shared/meeting-export.js';
import { formatDateTime, formatDuration } from '../../format.js';
import * as actions from '../../store/actions.js';
import { deleteHistoryEntry } from '../../store/commands.js';
import { useApp } from '../../store/hooks.js';
import { WordTable } from '../files/WordTable.js';
import { EntryBadges } from './HistoryList.js';
import { RetranscribeButton } from './RetranscribeButton.js';
import { EntryTranscript } from './EntryTranscript.js';

function Facts({ e }: { e: HistoryEntry }) {
  const rows: Fact[] = [
    ['date', 'Created', formatDateTime(e.createdAt)],
    ['duration', 'Audio', formatDuration(e.durationSec)],
    ['words', 'Words', String(e.wordCount)],
    ['model', 'Model', e.modelName ?? e.modelId ?? 'unknown'],
    ['devices', 'Ran on', e.devices.length ? e.devices.join(' + ') : 'unknown'],
  ];
  return <FactList facts={rows} testIdPrefix="history" className="file-facts" />;
}

export function HistoryDetail() {
  const openId = useApp((s) => s.history.openId);
  const e = useApp((s) => s.history.open);
  if (!openId) {
    return <p className="muted history-detail-hint">Choose an entry to read it, copy it or export it.</p>;
  }
  if (!e) return <p className="muted history-detail-hint">Opening…</p>;
  return (
    <section className="card history-detail" aria-labelledby="history-detail-title" data-testid="history-detail" data-id={e.id}>
      <div className="card-title-row history-detail-head">
        <div>
          <h3 id="history-detail-title" data-testid="history-detail-title">{e.title}</h3>
          <EntryBadges e={e} />
          {e.sourcePath ? <p className="muted mono file-path">{e.sourcePath}</p> : null}
        </div>
        <Button variant="quiet" onClick={() => actions.historyEntryClosed()} aria-label="Close this entry">
          Close
        </Button>
      </div>
      {e.recovered ? (
        <p className="warn-text">Recovered: the app stopped during this session; everything saved up to then is here.</p>
      ) : null}
      <Facts e={e} />
      <ExportButtons file={(format) => ({ name: historyExportName(e, format), content: historyExportContent(format, e) })} />
      <RetranscribeButton e={e} />
      {e.kind === 'meeting' ? (
        <Button onClick={() => saveTextFile(historyExportName(e, 'md'), meetingExport('md', meetingTranscript(e)), 'text/markdown;charset=utf-8')} aria-label="Export as Markdown (.md)">
          .md
        </Button>
      ) : null}
      <div className="card-title-row">
        <h4>Text</h4>
        <div className="row-actions">
          <CopyButton getText={() => e.text} disabled={!e.text} />
          <ConfirmButton
            label="Delete"
            ariaLabel={`Delete ${e.title} from the history`}
            question="Delete this entry? This cannot be undone."
            confirmLabel="Delete entry"
            onConfirm={() => deleteHistoryEntry(e.id)}
            testId="history-delete"
          />
        </div>
      </div>
      <div className="transcript file-text" data-testid="history-text" tabIndex={0} role="region" aria-label="Text of the entry (scrollable)">
        {e.text ? e.text : <span className="transcript-empty">No speech was recognized.</span>}
      </div>
      {e.kind === 'dictation' || e.kind === 'meeting' ? (
        <EntryTranscript key={e.id} e={e} />
      ) : (
        <>
          <h4>Words</h4>
          <WordTable key={e.id} words={e.words} />
        </>
      )}
    </section>
  );
}
