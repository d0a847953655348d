// The entries matching the search, newest first: title, kind, date, length,
// preview and state badges. Each is a button that opens the entry.
import type { HistoryEntrySummary } from '../../../app/ipc/contract.js';
import { Button } from '../../components/Button.js';
import { formatDateTime, formatDuration } from '../../format.js';
import * as actions from '../../store/actions.js';
import { openHistoryEntry } from '../../store/commands.js';
import { useApp } from '../../store/hooks.js';

export function EntryBadges({ e }: { e: HistoryEntrySummary }) {
  return (
    <span className="badges">
      <span className={`badge badge-${e.kind}`} data-testid="history-kind">
        {e.kind === 'file' ? 'File' : e.kind === 'meeting' ? 'Meeting' : 'Dictation'}
      </span>
      {e.live ? <span className="badge badge-live">Recording</span> : null}
      {e.recovered ? (
        <span className="badge badge-recovered" data-testid="history-recovered">
          Recovered<span className="visually-hidden">: the app stopped during this session; everything saved up to then is kept.</span>
        </span>
      ) : null}
    </span>
  );
}

export function HistoryList() {
  const entries = useApp((s) => s.history.entries);
  const total = useApp((s) => s.history.total);
  const openId = useApp((s) => s.history.openId);
  const query = useApp((s) => s.history.query.trim());
  if (entries.length === 0) {
    return (
      <p className="muted history-none" data-testid="history-none">
        {query ? `No entry contains “${query}”.` : 'No entries of this kind.'}
      </p>
    );
  }
  return (
    <div className="history-list-wrap">
      <ul className="history-list" aria-label="History entries">
        {entries.map((e) => (
          <li key={e.id}>
            <button
              type="button"
              className="history-item"
              aria-current={e.id === openId ? 'true' : undefined}
              onClick={() => void openHistoryEntry(e.id)}
              data-testid="history-entry"
              data-id={e.id}
              data-kind={e.kind}
            >
              <span className="history-item-head">
                <strong className="history-item-title" data-testid="history-title">{e.title}</strong>
                <EntryBadges e={e} />
              </span>
              <span className="muted history-item-meta">
                {formatDateTime(e.createdAt)} · {formatDuration(e.durationSec)} · {e.wordCount} words
              </span>
              <span className="history-item-preview" data-testid="history-preview">
                {e.preview || <em className="muted">No speech recognized.</em>}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {total > entries.length ? (
        <Button variant="quiet" onClick={() => actions.historyShowMore()}>
          Show more ({total - entries.length} not shown)
        </Button>
      ) : null}
    </div>
  );
}
