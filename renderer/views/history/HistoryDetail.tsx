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
import { formatDateTime, formatDuration, formatSpeechCut } from '../../format.js';
import * as actions from '../../store/actions.js';
import { deleteHistoryEntry } from '../../store/commands.js';
import { useApp } from '../../store/hooks.js';
import { WordTable } from '../files/WordTable.js';
import { EntryBadges } from './HistoryList.js';
import { RetranscribeButton } from './RetranscribeButton.js';
import { EntryTranscript } from './EntryTranscript.js';
import { SpeakerNames } from './SpeakerNames.js';

/** The ids next to `id` in the list (below first, then above), for where the focus goes after a delete. */
function neighbourIds(listIds: string, id: string): string[] {
  const ids = listIds ? listIds.split('\n') : [];
  const at = ids.indexOf(id);
  return at < 0 ? [] : [ids[at + 1], ids[at - 1]].filter((x): x is string => x !== undefined);
}

function Facts({ e }: { e: HistoryEntry }) {
  const rows: Fact[] = [
    ['date', 'Created', formatDateTime(e.createdAt)],
    ['duration', 'Audio', formatDuration(e.durationSec)],
    ['words', 'Words', String(e.wordCount)],
    ['model', 'Model', e.modelName ?? e.modelId ?? 'unknown'],
    ['devices', 'Ran on', e.devices.length ? e.devices.join(' + ') : 'unknown'],
    ...(e.speechCut ? [['speech', 'Speech found by', formatSpeechCut(e.speechCut, e.durationSec)] satisfies Fact] : []),
    // The custom-vocabulary phrases the decoder found (Settings → Vocabulary).
    ...(e.phrasesFired.length ? [['phrases', 'Vocabulary heard', e.phrasesFired.join(', ')] satisfies Fact] : []),
  ];
  return <FactList facts={rows} testIdPrefix="history" className="file-facts" />;
}

/** The list's button for an entry (focus goes back there when the entry closes). */
function entryButton(id: string): HTMLElement | null {
  return document.querySelector<HTMLElement>(`[data-testid="history-entry"][data-id="${CSS.escape(id)}"]`);
}

/** After a delete: the entry below the deleted one in the list, else the one above, else the search field. */
function focusAfterDelete(neighbours: string[]): void {
  for (const id of neighbours) {
    const button = entryButton(id);
    if (button) {
      button.focus();
      return;
    }
  }
  (document.getElementById('history-query') ?? document.getElementById('main'))?.focus();
}

/** A meeting whose words carry diarized speakers: copy gives its lines with their names. */
function diarized(e: HistoryEntry): boolean {
  return e.segments.some((s) => s.words.some((w) => w.speaker !== undefined));
}

export function HistoryDetail() {
  const openId = useApp((s) => s.history.openId);
  const e = useApp((s) => s.history.open);
  // Joined: a selector returning a fresh array would re-render forever.
  const listIds = useApp((s) => s.history.entries.map((x) => x.id).join('\n'));
  if (!openId) {
    return <p className="muted history-detail-hint">Choose an entry to read it, copy it or export it.</p>;
  }
  if (!e) return <p className="muted history-detail-hint">Opening…</p>;
  const neighbours = neighbourIds(listIds, e.id);
  return (
    <section className="card history-detail" aria-labelledby="history-detail-title" data-testid="history-detail" data-id={e.id}>
      <div className="card-title-row history-detail-head">
        <div>
          <h3 id="history-detail-title" data-testid="history-detail-title">{e.title}</h3>
          <EntryBadges e={e} />
          {e.sourcePath ? <p className="muted mono file-path">{e.sourcePath}</p> : null}
        </div>
        <Button
          variant="quiet"
          onClick={() => {
            actions.historyEntryClosed();
            // Back to where the entry was opened from, not to <body>.
            (entryButton(e.id) ?? document.getElementById('history-query'))?.focus();
          }}
          aria-label="Close this entry"
        >
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
      {e.kind === 'meeting' ? (
        <Button onClick={() => saveTextFile(historyExportName(e, 'rttm'), meetingExport('rttm', meetingTranscript(e)), 'text/plain;charset=utf-8')} aria-label="Export who spoke when as RTTM (.rttm)">
          .rttm
        </Button>
      ) : null}
      <div className="card-title-row">
        <h4>Text</h4>
        <div className="row-actions">
          <CopyButton getText={() => (diarized(e) ? meetingExport('txt', meetingTranscript(e)) : e.text)} disabled={!e.text} />
          <ConfirmButton
            label="Delete"
            ariaLabel={`Delete ${e.title} from the history`}
            question="Delete this entry? This cannot be undone."
            confirmLabel="Delete entry"
            onConfirm={() => deleteHistoryEntry(e.id)}
            afterConfirm={() => focusAfterDelete(neighbours)}
            testId="history-delete"
          />
        </div>
      </div>
      <div className="transcript file-text" data-testid="history-text" tabIndex={0} role="region" aria-label="Text of the entry (scrollable)">
        {e.text ? e.text : <span className="transcript-empty">No speech was recognized.</span>}
      </div>
      {e.kind === 'meeting' && diarized(e) ? <SpeakerNames e={e} /> : null}
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
