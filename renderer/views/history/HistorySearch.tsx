// The History view's toolbar: search text, kind, how many match, and
// "Clear history" (asks first).
import type { HistoryKind } from '../../../app/ipc/contract.js';
import { ConfirmButton } from '../../components/ConfirmButton.js';
import * as actions from '../../store/actions.js';
import { clearHistory } from '../../store/commands.js';
import { useApp } from '../../store/hooks.js';

const KINDS: { value: HistoryKind | 'all'; label: string }[] = [
  { value: 'all', label: 'Everything' },
  { value: 'dictation', label: 'Dictations' },
  { value: 'file', label: 'Files' },
  { value: 'meeting', label: 'Meetings' },
];

export function HistorySearch() {
  const query = useApp((s) => s.history.query);
  const kind = useApp((s) => s.history.kind);
  const total = useApp((s) => s.history.total);
  const loading = useApp((s) => s.history.loading);
  const enabled = useApp((s) => s.settings.values?.history.enabled ?? true);
  return (
    <div className="card history-toolbar">
      <div className="history-search-row" role="search">
        <div className="field history-search">
          <label htmlFor="history-query">Search</label>
          <input
            id="history-query"
            type="search"
            value={query}
            maxLength={200}
            placeholder="Words from the text or a file name"
            spellCheck={false}
            onChange={(e) => actions.historySearch(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="history-kind">Show</label>
          <select id="history-kind" value={kind} onChange={(e) => actions.historyKindChosen(e.target.value as HistoryKind | 'all')}>
            {KINDS.map((k) => (
              <option key={k.value} value={k.value}>
                {k.label}
              </option>
            ))}
          </select>
        </div>
        <ConfirmButton
          label="Clear history"
          question="Delete every entry of the history? This cannot be undone."
          confirmLabel="Delete everything"
          onConfirm={clearHistory}
          afterConfirm={() => document.getElementById('main')?.focus()}
          testId="history-clear"
        />
      </div>
      <p className="muted history-count" aria-live="polite" data-testid="history-count" data-loading={loading ? 'true' : 'false'}>
        {total === 1 ? '1 entry' : `${total} entries`}
        {query.trim() ? ` contain “${query.trim()}”` : ''}
        {enabled ? '' : ' · History is off: nothing new is recorded (Settings).'}
      </p>
    </div>
  );
}
