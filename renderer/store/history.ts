// History slice: the History view's list (search text, kind, a page of
// entries, total) and the entry opened in full. Pure reducers. Rules: only
// the reply to the newest list request is shown (a slow search never
// overwrites a newer one); an opened entry that is deleted closes.
import type { HistoryEntry, HistoryKind, HistoryList } from '../../app/ipc/contract.js';
import type { HistorySlice } from './types.js';

/** Entries per page ("Show more" asks for another page). */
export const HISTORY_PAGE = 50;

export const initialHistory: HistorySlice = {
  query: '',
  kind: 'all',
  entries: [],
  total: 0,
  limit: HISTORY_PAGE,
  requested: 0,
  loading: false,
  loaded: false,
  openId: null,
  open: null,
};

export function historyQuery(s: HistorySlice, query: string): HistorySlice {
  return query === s.query ? s : { ...s, query, limit: HISTORY_PAGE };
}

export function historyKind(s: HistorySlice, kind: HistoryKind | 'all'): HistorySlice {
  return kind === s.kind ? s : { ...s, kind, limit: HISTORY_PAGE };
}

export function historyMore(s: HistorySlice): HistorySlice {
  return { ...s, limit: s.limit + HISTORY_PAGE };
}

export function historyListRequested(s: HistorySlice): HistorySlice {
  return { ...s, requested: s.requested + 1, loading: true };
}

/** The reply to request `seq`: shown only if no newer request was made since. */
export function historyListLoaded(s: HistorySlice, seq: number, list: HistoryList | null): HistorySlice {
  if (seq !== s.requested) return s;
  return list ? { ...s, entries: list.entries, total: list.total, loading: false, loaded: true } : { ...s, loading: false, loaded: true };
}

export function historyOpening(s: HistorySlice, id: string): HistorySlice {
  return { ...s, openId: id, open: s.open?.id === id ? s.open : null };
}

/** The entry's content arrived: shown if it is still the one asked for. */
export function historyOpened(s: HistorySlice, entry: HistoryEntry): HistorySlice {
  return entry.id === s.openId ? { ...s, open: entry } : s;
}

export function historyClosed(s: HistorySlice): HistorySlice {
  return s.openId === null ? s : { ...s, openId: null, open: null };
}

/** An entry was removed: the opened one closes if it was that one. */
export function historyRemoved(s: HistorySlice, id: string): HistorySlice {
  return id === s.openId ? historyClosed(s) : s;
}

/** The request history:list gets for the slice's search. */
export function listRequest(s: HistorySlice): { query?: string; kind?: HistoryKind; limit: number } {
  const query = s.query.trim();
  return { ...(query ? { query: query.slice(0, 200) } : {}), ...(s.kind !== 'all' ? { kind: s.kind } : {}), limit: s.limit };
}
