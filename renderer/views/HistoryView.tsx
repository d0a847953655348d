// History: every dictation and file transcript kept on this machine, newest
// first. Search (debounced), a list, the opened entry in full (copy, export,
// delete), and "Clear history". The list follows history:changed.
import { useEffect, useRef } from 'react';
import { loadHistory } from '../store/commands.js';
import { useApp } from '../store/hooks.js';
import { HistoryDetail } from './history/HistoryDetail.js';
import { HistoryEmpty } from './history/HistoryEmpty.js';
import { HistoryList } from './history/HistoryList.js';
import { HistorySearch } from './history/HistorySearch.js';

/** Typing pauses this long before the search runs (each search reads the entry files). */
export const SEARCH_DEBOUNCE_MS = 250;

function useListLoading(): void {
  const query = useApp((s) => s.history.query);
  const kind = useApp((s) => s.history.kind);
  const limit = useApp((s) => s.history.limit);
  // The kind and the page size apply at once (and the view's first read); the search text when typing pauses.
  useEffect(() => {
    void loadHistory();
  }, [kind, limit]);
  const typed = useRef(false);
  useEffect(() => {
    if (!typed.current) {
      typed.current = true;
      return;
    }
    const timer = setTimeout(() => void loadHistory(), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [query]);
}

export function HistoryView() {
  useListLoading();
  const loaded = useApp((s) => s.history.loaded);
  const empty = useApp((s) => s.history.loaded && s.history.total === 0 && !s.history.query.trim() && s.history.kind === 'all');
  return (
    <section className="view view-history" aria-labelledby="history-title">
      <header className="view-header">
        <h2 id="history-title">History</h2>
        <p className="muted">Every dictation and file transcript, kept on this machine.</p>
      </header>
      {!loaded ? (
        <p className="muted">Reading the history…</p>
      ) : empty ? (
        <HistoryEmpty />
      ) : (
        <>
          <HistorySearch />
          <div className="history-panes">
            <HistoryList />
            <HistoryDetail />
          </div>
        </>
      )}
    </section>
  );
}
