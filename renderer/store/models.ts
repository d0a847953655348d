// Models slice: catalog, installed list, per-download snapshots and progress.
import type { DownloadProgress, DownloadSnapshot, ModelsState } from '../../app/ipc/contract.js';
import type { ModelsSlice } from './types.js';

export const initialModels: ModelsSlice = {
  catalog: [],
  installed: [],
  activeId: null,
  downloads: {},
  progress: {},
  firstRun: null,
  importing: null,
  importProgress: null,
  importOutcome: null,
};

export function applyModelsState(s: ModelsSlice, state: ModelsState): ModelsSlice {
  const downloads: Record<string, DownloadSnapshot> = { ...s.downloads };
  for (const d of state.downloads) downloads[d.id] = d;
  return { ...s, installed: state.installed, activeId: state.activeId, downloads };
}

export function applyDownloadState(s: ModelsSlice, snap: DownloadSnapshot): ModelsSlice {
  const progress = { ...s.progress };
  // Speed/ETA only mean something while bytes flow.
  if (snap.state !== 'downloading') delete progress[snap.id];
  return { ...s, downloads: { ...s.downloads, [snap.id]: snap }, progress };
}

export function applyDownloadProgress(s: ModelsSlice, p: DownloadProgress): ModelsSlice {
  const snap = s.downloads[p.id];
  const downloads = snap
    ? { ...s.downloads, [p.id]: { ...snap, receivedBytes: p.receivedBytes, totalBytes: p.totalBytes ?? snap.totalBytes } }
    : s.downloads;
  return { ...s, downloads, progress: { ...s.progress, [p.id]: p } };
}

/** A finished or cancelled download leaves the list once the user has seen it in the installed list. */
export function dismissDownload(s: ModelsSlice, id: string): ModelsSlice {
  const downloads = { ...s.downloads };
  const progress = { ...s.progress };
  delete downloads[id];
  delete progress[id];
  return { ...s, downloads, progress };
}

/** Downloads still worth showing (active, paused or failed with an action), in catalog order. */
export function visibleDownloads(downloads: ModelsSlice['downloads'], catalog: ModelsSlice['catalog']): DownloadSnapshot[] {
  const order = new Map(catalog.map((e, i) => [e.id, i]));
  return Object.values(downloads)
    .filter((d) => d.state !== 'cancelled' && d.state !== 'installed')
    .sort((a, b) => (order.get(a.id) ?? 1e9) - (order.get(b.id) ?? 1e9));
}

export function downloadFraction(d: DownloadSnapshot): number | null {
  if (!d.totalBytes || d.totalBytes <= 0) return null;
  return Math.min(1, d.receivedBytes / d.totalBytes);
}
